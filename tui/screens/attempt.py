"""One attempt from the history, opened: the answer given, the engine's solution
for that same variant, the feedback (graded again now, by the engine) and the
misconceptions in words. Esc goes back to the history."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static

from exercises.text import pick
from tui.i18n import t
from tui.widgets.fitting_footer import FittingFooter
from tui.widgets.reading_scroll import ReadingScroll


def prediction_text(attempt, lang: str) -> Text:
    """A prediction made on a figure: what was guessed, whether the figure agreed,
    and the misconception it showed (the figure itself is in the lesson)."""
    from exercises.grading.diagnoses import explain
    from exercises.predictions import title

    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(attempt.at))
    out = Text(
        f"{pick(title(attempt.exercise) or {'en': attempt.exercise}, lang)} · {when}\n\n", style="bold"
    )
    out.append(t("attempt-given", lang) + "\n", style="bold underline")
    out.append("  " + (attempt.answer.get("prediction") or t("attempt-empty-part", lang)) + "\n")
    mark = "✓" if attempt.correct else "✗"
    out.append(
        f"  {mark} " + t("attempt-score", lang, score=f"{attempt.score or 0:.0%}") + "\n", style="bold"
    )
    out.append("\n" + t("attempt-misconceptions", lang) + "\n", style="bold underline")
    if not attempt.diagnoses:
        out.append("  " + t("attempt-none", lang) + "\n")
    for code in attempt.diagnoses:
        out.append("  ! " + pick(explain(code), lang) + "\n", style="magenta")
    return out


def attempt_text(attempt, lang: str) -> Text:
    """The attempt as the learner reads it. Needs the engine (solution and feedback)."""
    from exercises.catalogue import get
    from exercises.grading.diagnoses import explain
    from exercises.grading.policy import choice_text, solution_lines
    from exercises.learner.review import is_prediction
    from tui.widgets.parts import part_feedback

    if is_prediction(attempt):
        return prediction_text(attempt, lang)

    exercise = get(attempt.exercise)
    variant = exercise.generate(attempt.seed)
    labels = {part.name: pick(part.label, lang) for part in exercise.parts}
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(attempt.at))
    out = Text()
    out.append(
        t("attempt-title", lang, exercise=pick(exercise.title, lang), seed=attempt.seed, when=when),
        style="bold",
    )
    out.append("\n" + pick(variant.prompt, lang) + "\n\n")
    out.append(t("attempt-given", lang) + "\n", style="bold underline")
    kinds = {part.name: part.kind for part in exercise.parts}
    for name, text in attempt.answer.items():
        out.append("  " + t("part-line", lang, part=labels.get(name, name)), style="bold")
        if kinds.get(name) == "choice" and text.strip():
            text = pick(choice_text(exercise, variant, text), lang)
        out.append((text.replace("\n", " / ") or t("attempt-empty-part", lang)) + "\n")
    out.append("\n" + t("attempt-solution", lang) + "\n", style="bold underline")
    for label, answer in solution_lines(exercise, variant):
        out.append("  " + t("part-line", lang, part=pick(label, lang)), style="bold")
        out.append(pick(answer, lang) + "\n", style="green")
    out.append("\n" + t("attempt-feedback", lang) + "\n", style="bold underline")
    result = exercise.grade(variant, attempt.answer)
    if result.graded:
        mark = result.mark
        out.append(f"  {mark} " + t("attempt-score", lang, score=f"{result.score:.0%}") + "\n", style="bold")
        out.append_text(part_feedback(exercise, variant, result, attempt.answer, lang, indent="  "))
    else:
        out.append("  " + pick(result.feedback, lang) + "\n")
    out.append("\n" + t("attempt-misconceptions", lang) + "\n", style="bold underline")
    codes = list(dict.fromkeys([*attempt.diagnoses, *result.diagnoses]))
    if not codes:
        out.append("  " + t("attempt-none", lang) + "\n")
    for code in codes:
        out.append("  ! " + pick(explain(code), lang) + "\n", style="magenta")
    return out


class AttemptScreen(Screen):
    DEFAULT_CSS = """
    AttemptScreen VerticalScroll { padding: 1 2; }
    """
    BINDINGS = [Binding("escape", "leave", "back")]

    def __init__(self, attempt) -> None:
        super().__init__()
        self.attempt = attempt

    def compose(self) -> ComposeResult:
        yield Header()
        with ReadingScroll(id="attempt-scroll"):
            yield Static(id="attempt", markup=False)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "lang", self._show, init=True)
        self.query_one("#attempt-scroll").focus()

    def _show(self, lang: str) -> None:
        """The header, the keys and the attempt in ``lang``: drawn again on Ctrl+L, which
        left the body in the other language (the scroll stays where the learner was)."""
        from tui.bindings import localise_bindings

        localise_bindings(self, lang)
        self.sub_title = t("history-title", lang)
        try:
            text = attempt_text(self.attempt, lang)
        except (KeyError, ValueError, LookupError) as error:  # an id from an older version
            text = Text(t("attempt-gone", lang, error=error), style="yellow")
        self.query_one("#attempt", Static).update(text)

    def action_leave(self) -> None:
        self.app.pop_screen()
