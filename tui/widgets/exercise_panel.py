"""Practise in place: one exercise variant, an input per part, graded feedback
that names the misconception, hints, the engine's solution, new variants.

The rules (when a hint or the solution may be shown, how a reflection goes, which
matrix cells are wrong) live in ``exercises.grading.policy``; this panel renders
what they decide and posts each graded attempt up as a ``Graded`` message for the
app to record. Laid out to fit 80×24: one-line inputs and buttons, so the question
stays in view while answering; feedback is scrolled into view when it appears."""

from __future__ import annotations

import time

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.message import Message
from textual.widgets import Button, Input, RadioSet, Select, Static

from exercises.grading.policy import (
    Practice,
    hints_offered,
    matrix_corrections,
    model_answer,
    reflection_step,
    score_cap,
    solution_lines,
    solution_refusal,
)
from exercises.text import Bilingual, pick
from tui.i18n import t
from tui.widgets.matrix_editor import MatrixEditor
from tui.widgets.parts import choose_by_letter, part_feedback, part_widgets, read_answers, relabel_parts
from tui.widgets.relabel_select import relabel

# Shortcuts that would steal letters from a learner who is typing: they work
# wherever the panel has focus except in a text box, and the footer shows them
# only where they work (Esc leaves a text box).
LETTER_ACTIONS = {"hint", "solution", "new_variant"}


class ExercisePanel(VerticalScroll, can_focus=True):
    """Practice for one objective: pick an exercise, answer, get feedback."""

    DEFAULT_CSS = """
    ExercisePanel { height: 1fr; padding: 0 1; }
    ExercisePanel Select { width: 1fr; margin: 0; }
    ExercisePanel Select > SelectCurrent { border: none; height: 1; padding: 0 1; }
    ExercisePanel #title { margin-top: 1; }
    ExercisePanel #prompt { margin-bottom: 1; }
    ExercisePanel #parts { height: auto; }
    ExercisePanel .part-label { color: $accent; }
    ExercisePanel #parts Input { border: none; height: 1; padding: 0 1; margin-bottom: 1; background: $boost; }
    ExercisePanel #parts Input:focus { border: none; background: $primary 30%; }
    ExercisePanel #parts RadioSet { margin-bottom: 1; }
    ExercisePanel #buttons { height: 1; }
    ExercisePanel #buttons Button { border: none; height: 1; min-width: 8; margin-right: 1; padding: 0 1; }
    ExercisePanel .help { color: $text-muted; }
    ExercisePanel #hints { color: $warning; margin-top: 1; }
    ExercisePanel #hints.-empty { display: none; }
    ExercisePanel #feedback { margin-top: 1; }
    ExercisePanel #lesson-note { color: $success; text-style: bold; }
    """
    BINDINGS = [
        Binding("escape", "escape", "back"),
        Binding("h", "hint", "hint"),
        Binding("s", "solution", "solution"),
        Binding("n", "new_variant", "new variant"),
    ]

    class Graded(Message):
        """An attempt was graded: the screen or the app records it (the panel stores nothing)."""

        def __init__(
            self, exercise, variant, answer: dict[str, str], result, hints_used: int, seconds: float
        ):
            super().__init__()
            self.exercise = exercise
            self.variant = variant
            self.answer = answer
            self.result = result
            self.hints_used = hints_used
            self.seconds = seconds

    class VariantShown(Message):
        """A variant is on screen: the lesson remembers it, so "continue" comes back to it."""

        def __init__(self, exercise_id: str, seed: int) -> None:
            super().__init__()
            self.exercise_id = exercise_id
            self.seed = seed

    def __init__(self, exercise_ids: tuple[str, ...], **kwargs) -> None:
        super().__init__(**kwargs)
        self.exercise_ids = exercise_ids
        self.exercise_id = exercise_ids[0] if exercise_ids else None
        self.seed = 0
        self.practice = Practice()
        self.started = 0.0
        self.result = None  # the last graded result on this variant
        self.graded_answer: dict[str, str] = {}  # the answer it was given for
        self.comparing = False  # a reflection written: its model answer is shown
        # The lesson was just solved: (the next lesson's title, or None after the last one;
        # the lessons still unfinished: how many, and the first one's title).
        self.solved_note: tuple[Bilingual | None, tuple[int, Bilingual] | None] | None = None

    def compose(self) -> ComposeResult:
        # Ids until the engine (and with it the exercises' titles) has loaded.
        options = [(exercise_id, exercise_id) for exercise_id in self.exercise_ids]
        yield Select(options, id="exercise-select", allow_blank=False) if options else Static(markup=False)
        yield Static(markup=False, id="title")
        yield Static(markup=False, id="prompt")
        yield Vertical(id="parts")
        yield Static(markup=False, classes="help", id="answer-help")
        with Horizontal(id="buttons"):
            yield Button(id="check", variant="primary")
            yield Button(id="hint")
            yield Button(id="solution")
            yield Button(id="new")
        yield Static(markup=False, id="hints")
        yield Static(markup=False, id="feedback")
        yield Static(markup=False, id="lesson-note")

    def action_escape(self) -> None:
        """Esc leaves a text box for this panel's own keys; a second Esc goes back."""
        if self.has_focus:
            self.screen.action_leave()
        else:
            self.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While typing the letters are the learner's, and the footer does not offer them.
        if action in LETTER_ACTIONS and isinstance(self.app.focused, Input):
            return False
        # Exam practice (hints off) offers no hint, and no solution before an answer.
        if action == "hint":
            return hints_offered(self.app.hint_policy)
        if action == "solution":
            return solution_refusal(self.app.hint_policy, self.practice.checks > 0) is None
        return True

    def policy_changed(self) -> None:
        """The hint setting or the tries changed: the keys, buttons and help line follow."""
        policy = self.app.hint_policy
        self.query_one("#hint", Button).display = hints_offered(policy)
        self.query_one("#solution", Button).display = (
            solution_refusal(policy, self.practice.checks > 0) is None
        )
        self._show_help()
        self.refresh_bindings()

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def on_descendant_blur(self) -> None:
        self.refresh_bindings()

    def on_focus(self) -> None:
        self.refresh_bindings()

    def on_mount(self) -> None:
        # The first variant is built after the lesson's first frame (see Figure.on_mount).
        self.watch(self.app, "engine_loaded", self._engine_changed, init=False)
        self.call_after_refresh(self._first_variant)
        self.watch(self.app, "lang", lambda _lang: self._relabel(), init=False)

    @property
    def lang(self) -> str:
        return self.app.lang

    async def _first_variant(self) -> None:
        if not hasattr(self, "variant"):  # not shown already (a jump to an exercise comes first)
            await self._engine_changed(bool(getattr(self.app, "engine_loaded", False)))

    async def _engine_changed(self, loaded: bool) -> None:
        if loaded and self.exercise_id:
            self._relabel()
            await self.load_variant(focus=False)
        else:
            self.query_one("#prompt", Static).update(t("waiting-engine", self.lang))

    def _exercise(self):
        from exercises.catalogue import get

        return get(self.exercise_id)

    def _relabel(self) -> None:
        """Every text in the learner's language (called again on Ctrl+L)."""
        lang = self.lang
        for button, key in (
            ("check", "key-check"),
            ("hint", "key-hint"),
            ("solution", "key-solution"),
            ("new", "key-new"),
        ):
            widget = self.query_one(f"#{button}", Button)
            widget.label = t(key, lang)
            widget.refresh(layout=True)  # a Button's label repaints only: its width must follow the new words
        if not getattr(self.app, "engine_loaded", False) or not self.exercise_id:
            return
        from exercises.catalogue import get

        titles = self._marked_titles(lambda eid: pick(get(eid).title, lang))
        relabel(
            self.query_one("#exercise-select", Select),
            [(titles[eid], eid) for eid in self.exercise_ids],
            keep=self.exercise_id,
        )
        self._show_prompt()
        self._show_hints()
        self._show_feedback(scroll=False)
        self._show_note()

    def _marked_titles(self, title) -> dict[str, Text]:
        """Each exercise of the lesson as the list shows it: its mark (✓ solved, ✗ tried,
        not solved yet, ○ not tried), its number of the lesson's, its title. The list is
        the lesson's only way to its other exercises: it says how many there are and
        where the learner stands on each (issue 23.16)."""
        progress = getattr(self.app, "progress", None)
        total = len(self.exercise_ids)
        out = {}
        for number, eid in enumerate(self.exercise_ids, start=1):
            state = progress.exercise_state(eid) if progress is not None else "new"
            mark, style = {"solved": ("✓", "green"), "tried": ("✗", "yellow"), "new": ("○", "")}[state]
            out[eid] = Text.assemble((mark, style), f" {number}/{total}  ", title(eid))
        return out

    def progress_changed(self) -> None:
        """An attempt was recorded: the marks in the list follow."""
        if getattr(self.app, "engine_loaded", False) and self.exercise_ids:
            self._relabel()

    async def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value and event.value != self.exercise_id:
            self.exercise_id = str(event.value)
            self.seed = 0
            await self.load_variant()

    async def select_exercise(self, exercise_id: str, seed: int = 0, focus: bool = True) -> None:
        """Jump to one exercise variant (the command palette and the review queue do this);
        ``focus``: put the cursor in it (not when the lesson opens on another tab)."""
        if exercise_id in self.exercise_ids:
            self.exercise_id = exercise_id
            self.seed = seed
            if getattr(self.app, "engine_loaded", False):
                # The new variant first: relabelling redraws the feedback and the solution,
                # which must never meet the previous exercise's variant (that crashed).
                await self.load_variant(focus=focus)
                self._relabel()

    async def load_variant(self, focus: bool = True) -> None:
        """Show variant ``self.seed``; ``focus`` puts the cursor in its first part
        (not when the engine arrives: that would pull the learner off their tab)."""
        exercise = self._exercise()
        self.variant = exercise.generate(self.seed)
        self.practice = Practice()
        self.result = None
        self.graded_answer = {}
        self.comparing = False
        self.started = time.monotonic()
        parts = self.query_one("#parts", Vertical)
        await parts.remove_children()
        await parts.mount(*part_widgets(exercise, self.variant, self.lang))
        self.query_one("#hints", Static).update("")
        self.query_one("#hints", Static).add_class("-empty")
        self.query_one("#feedback", Static).update("")
        self.solved_note = None
        self._show_note()
        self._show_prompt()
        self.policy_changed()
        self.scroll_home(animate=False)
        self.post_message(self.VariantShown(exercise.id, self.seed))
        if focus:
            self.call_after_refresh(self.focus_first)

    def focus_first(self) -> None:
        """The cursor into the first part (or the panel, before a variant is shown)."""
        first = next(iter(self.query("#parts Input, #parts MatrixEditor, #parts RadioSet")), None)
        (first or self).focus(scroll_visible=False)

    def _show_prompt(self) -> None:
        if not hasattr(self, "variant"):
            return
        lang = self.lang
        exercise = self._exercise()
        self.query_one("#title", Static).update(
            Text.assemble(
                (pick(exercise.title, lang), "bold"), ("  " + t("variant", lang, seed=self.seed), "dim")
            )
        )
        self.query_one("#prompt", Static).update(pick(self.variant.prompt, lang))
        relabel_parts(self.query_one("#parts"), exercise, lang)
        self._show_help()

    def _show_help(self) -> None:
        """How to answer, by what the parts are (a choice asked in a text box is typed,
        not picked with the arrows), and the keys that work here now."""
        if not hasattr(self, "variant"):
            return
        lang = self.lang
        kinds = {part.kind for part in self._exercise().parts}
        if "self-mark" in kinds:
            line = t("self-mark", lang)
        elif "matrix" in kinds:
            line = t("matrix-help", lang)
        elif "choice" in kinds:
            line = t("choice-help", lang)
        else:
            line = t("answer-enter", lang)
        # What the setting allows (not what works this instant: in a text box, none does)
        policy = self.app.hint_policy
        offered = {
            "help-key-hint": hints_offered(policy),
            "help-key-solution": solution_refusal(policy, self.practice.checks > 0) is None,
            "help-key-new": True,
        }
        keys = [t(key, lang) for key, shown in offered.items() if shown]
        typed = "text" in kinds  # from a text box, Esc first: there the letters are the learner's
        keys_line = t("answer-keys" if typed else "answer-keys-direct", lang, keys=" · ".join(keys))
        # The keys on a line of their own where the two do not fit on one ("s 答" at a line's
        # end and "案" on the next, 60 columns).
        help_widget = self.query_one("#answer-help", Static)
        room = help_widget.content_region.width or max(20, self.app.size.width - 4)
        joined = t("answer-help-line", lang, line=line, keys=keys_line)
        help_widget.update(joined if cell_len(joined) <= room else f"{line}\n{keys_line}")

    def on_resize(self) -> None:
        self._show_help()

    # -- answering -------------------------------------------------------

    def answers(self) -> dict[str, str]:
        return read_answers(self.query_one("#parts"), self._exercise())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        inputs = list(self.query("#parts Input").results(Input))
        empty = [widget for widget in inputs if not widget.value.strip()]
        if empty:
            empty[0].focus()
            return
        self.check()

    def on_matrix_editor_submitted(self, event: MatrixEditor.Submitted) -> None:
        event.stop()
        self.check()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.check()

    def on_key(self, event: Key) -> None:
        """In a list of choices (or on the panel, for its list), an option's key picks it."""
        focused = self.app.focused
        if focused is self:
            focused = next(iter(self.query("#parts ChoiceSet")), None)
        if choose_by_letter(focused, event.character):
            event.stop()

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "new":
            await self.action_new_variant()
        elif event.button.id == "check":
            self.check()
        elif event.button.id == "hint":
            self.action_hint()
        else:
            self.action_solution()

    def check(self) -> None:
        """Grade what is entered; a reflection first shows its model answer, then takes the self-mark."""
        if not hasattr(self, "variant"):
            return
        exercise = self._exercise()
        answer = self.answers()
        if not answer:
            return
        if exercise.kind == "reflection":
            step = reflection_step(exercise, answer)
            if step == "write":
                self.query_one("#feedback", Static).update(
                    Text(t("reflect-first", self.lang), style="bold yellow")
                )
                return
            if step == "compare":
                self.comparing = True
                self._show_feedback()
                next(iter(self.query("#parts ChoiceSet")), self).focus(scroll_visible=False)
                return
        if self.practice.repeats(answer) and self.result is not None:
            self._show_feedback(note=t("answer-unchanged", self.lang))
            return
        result = exercise.grade(self.variant, answer)
        self.practice.graded(result, answer)
        self.result = result
        self.graded_answer = dict(answer)
        self.post_message(
            self.Graded(
                exercise,
                self.variant,
                answer,
                result,
                self.practice.hints_shown,
                time.monotonic() - self.started,
            )
        )
        matrix = next(iter(self.query("#parts MatrixEditor").results(MatrixEditor)), None)
        if matrix is not None and result.graded:
            part = matrix.id.removeprefix("part-")
            matrix.mark_wrong(matrix_corrections(exercise, self.variant, part, answer[part]))
        self._show_feedback()
        self.policy_changed()  # a first answer may unlock the solution (exam practice)

    def _show_feedback(self, scroll: bool = True, note: str | None = None) -> None:
        """The last result, then the model answer or the solution where the policy shows
        them; ``note``, a line above them."""
        if not hasattr(self, "variant"):
            return
        lang = self.lang
        exercise = self._exercise()
        out = Text(note + "\n", style="bold") if note else Text()
        if self.result is not None:
            out.append_text(self._result_text(self.result))
        comparison = model_answer(exercise, self.variant)
        if comparison is not None:
            if self.result is None and (self.comparing or self.practice.shows_solution):
                out.append(pick(comparison, lang) + "\n")
                out.append(t("mark-now", lang) + "\n", style="bold")
        elif self.practice.shows_solution:
            out.append_text(self._solution_text())
        feedback = self.query_one("#feedback", Static)
        feedback.update(out)
        if scroll and out.plain:
            self.call_after_refresh(feedback.scroll_visible, top=True)

    def _labels(self) -> dict[str, str]:
        return {part.name: pick(part.label, self.lang) for part in self._exercise().parts}

    def _result_text(self, result) -> Text:
        from exercises.grading.diagnoses import explain

        lang, exercise = self.lang, self._exercise()
        out = Text()
        if not result.graded:
            out.append(pick(result.feedback, lang))
            if result.score is not None:
                out.append("\n" + t("self-marked-as", lang, mark=f"{result.score:.0%}"), style="bold")
            out.append("\n")
            return out
        style = "bold green" if result.correct else "bold yellow" if result.valid else "bold red"
        mark = "✓" if result.correct else "✗" if result.valid else "?"
        out.append(f"{mark} {t('score', lang)} {result.score:.0%}\n", style=style)
        out.append_text(part_feedback(exercise, self.variant, result, self.graded_answer, lang))
        cap = score_cap(exercise, result)
        if cap is not None:
            out.append(
                t("score-capped", lang, parts=f"{cap.parts_score:.0%}", cap=f"{cap.limit:.0%}") + "\n",
                style="bold magenta",
            )
        if self.practice.shows_misconceptions(exercise):
            for code in result.diagnoses:
                out.append("! ", style="bold magenta")
                out.append(pick(explain(code), lang) + "\n", style="magenta")
        return out

    def _solution_text(self) -> Text:
        lang = self.lang
        computed = self._exercise().shown_solution(self.variant, lang)[1]
        heading = "solution-shown" if computed else "solution-model-answer"
        out = Text(t(heading, lang) + "\n", style="bold green")
        for label, answer in solution_lines(self._exercise(), self.variant):
            out.append(t("part-line", lang, part=pick(label, lang)), style="bold")
            out.append(pick(answer, lang) + "\n")
        return out

    def show_note(self, following: Bilingual | None, unfinished: tuple[int, Bilingual] | None = None) -> None:
        """A line under the feedback: the lesson has just been solved, and which lesson
        comes next (None: it was the last; then ``unfinished``, the lessons not finished
        yet, if any). It goes with the variant it was earned on."""
        self.solved_note = (following, unfinished)
        self._show_note()
        widget = self.query_one("#lesson-note", Static)
        self.call_after_refresh(widget.scroll_visible)

    def _show_note(self) -> None:
        widget = self.query_one("#lesson-note", Static)
        if self.solved_note is None:
            widget.update("")
            return
        following, unfinished = self.solved_note
        lang = self.lang
        if following is not None:
            widget.update(t("lesson-done", lang, title=pick(following, lang)))
        elif unfinished is not None:
            count, title = unfinished
            widget.update(t("lesson-done-last-unfinished", lang, n=count, title=pick(title, lang)))
        else:
            widget.update(t("lesson-done-last", lang))

    # -- help ------------------------------------------------------------

    def action_hint(self) -> None:
        if not hasattr(self, "variant"):
            return
        available = len(self._exercise().hints(self.variant))
        refusal = self.practice.next_hint(self.app.hint_policy, available)
        hints = self.query_one("#hints", Static)
        if refusal is not None:
            hints.update(t(refusal, self.lang))
            hints.remove_class("-empty")
        else:
            self._show_hints()
        self.call_after_refresh(hints.scroll_visible)

    def _show_hints(self) -> None:
        shown = self.practice.hints_shown
        if not hasattr(self, "variant") or not shown:
            return
        lang = self.lang
        hints = self._exercise().hints(self.variant)
        lines = [
            t("hint-n", lang, n=i + 1, total=len(hints), text=pick(hint, lang))
            for i, hint in enumerate(hints[:shown])
        ]
        if shown >= len(hints):
            lines.append(t("no-more-hints", lang))
        self.query_one("#hints", Static).update("\n".join(lines))
        self.query_one("#hints", Static).remove_class("-empty")

    def action_solution(self) -> None:
        if not hasattr(self, "variant"):
            return
        refusal = self.practice.ask_solution(self.app.hint_policy)
        if refusal is not None:  # exam practice, nothing answered yet
            hints = self.query_one("#hints", Static)
            hints.update(t(refusal, self.lang))
            hints.remove_class("-empty")
            return
        self._show_feedback()

    async def action_new_variant(self) -> None:
        """A question this learner has not answered yet (the progress knows which)."""
        if hasattr(self, "variant"):
            progress = getattr(self.app, "progress", None)
            self.seed = progress.next_new_seed(self.exercise_id, self.seed) if progress else self.seed + 1
            await self.load_variant()
