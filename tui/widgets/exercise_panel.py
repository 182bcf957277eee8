"""Practise in place: one exercise variant, an input per part, graded feedback
that names the misconception, hints, the engine's solution, new variants.

Laid out to fit 80×24: one-line inputs and buttons, so the question stays in
view while answering; feedback is scrolled into view when it appears."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.widgets import Button, Input, RadioSet, Select, Static

from exercises.text import pick
from tui.i18n import t
from tui.widgets.matrix_editor import MatrixEditor
from tui.widgets.parts import choose_by_letter, part_widgets, read_answers, relabel_parts

# Shortcuts that would steal letters from a learner who is typing: they work
# only when the panel itself has the focus (Esc gives it back).
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
    """
    BINDINGS = [
        Binding("escape", "escape", "back"),
        Binding("h", "hint", "hint"),
        Binding("s", "solution", "solution"),
        Binding("n", "new_variant", "new variant"),
    ]

    def __init__(self, exercise_ids: tuple[str, ...], **kwargs) -> None:
        super().__init__(**kwargs)
        self.exercise_ids = exercise_ids
        self.exercise_id = exercise_ids[0] if exercise_ids else None
        self.seed = 0
        self.hints_shown = 0
        self.tried = False
        self.started = 0.0
        self.shown: tuple[str, object] | None = (
            None  # what the feedback area shows: ("result", r) | ("solution", None)
        )

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

    def action_escape(self) -> None:
        """Esc leaves a text box for this panel's own keys; a second Esc goes back."""
        if self.has_focus:
            self.screen.action_leave()
        else:
            self.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in LETTER_ACTIONS and not self.has_focus:
            return None  # shown, but inactive while typing or on a button
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def on_focus(self) -> None:
        self.refresh_bindings()

    def on_mount(self) -> None:
        self.watch(self.app, "engine_loaded", self._engine_changed, init=True)
        self.watch(self.app, "lang", lambda _lang: self._relabel(), init=False)

    @property
    def lang(self) -> str:
        return self.app.lang

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
            self.query_one(f"#{button}", Button).label = t(key, lang)
        if not getattr(self.app, "engine_loaded", False) or not self.exercise_id:
            return
        from textual.widgets._select import SelectCurrent  # pinned textual: the shown value

        from exercises.catalogue import get

        select = self.query_one("#exercise-select", Select)
        titles = {eid: Text(pick(get(eid).title, lang)) for eid in self.exercise_ids}
        with select.prevent(Select.Changed):
            select.set_options([(titles[eid], eid) for eid in self.exercise_ids])
            select.value = self.exercise_id
        # The value did not change, so Select does not redraw its label: do it here.
        select.query_one(SelectCurrent).update(titles[self.exercise_id])
        self._show_prompt()
        self._show_hints()
        if self.shown is not None:
            kind, result = self.shown
            self._show_solution() if kind == "solution" else self._show_result(result)

    async def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value and event.value != self.exercise_id:
            self.exercise_id = str(event.value)
            self.seed = 0
            await self.load_variant()

    async def select_exercise(self, exercise_id: str, seed: int = 0) -> None:
        """Jump to one exercise variant (the command palette and the review queue do this)."""
        if exercise_id in self.exercise_ids:
            self.exercise_id = exercise_id
            self.seed = seed
            if getattr(self.app, "engine_loaded", False):
                self._relabel()
                await self.load_variant()

    async def load_variant(self, focus: bool = True) -> None:
        """Show variant ``self.seed``; ``focus`` puts the cursor in its first part
        (not when the engine arrives: that would pull the learner off their tab)."""
        exercise = self._exercise()
        self.variant = exercise.generate(self.seed)
        self.hints_shown = 0
        self.tried = False
        self.shown = None
        self.started = time.monotonic()
        parts = self.query_one("#parts", Vertical)
        await parts.remove_children()
        widgets = part_widgets(exercise, self.variant, self.lang)
        await parts.mount(*widgets)
        self.query_one("#hints", Static).update("")
        self.query_one("#hints", Static).add_class("-empty")
        self.query_one("#feedback", Static).update("")
        self._show_prompt()
        self.scroll_home(animate=False)
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
        help_key = {"matrix": "matrix-help", "reflection": "self-mark", "choice": "choice-help"}.get(
            exercise.kind, "answer-enter"
        )
        self.query_one("#answer-help", Static).update(t(help_key, lang))

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
        if self._exercise().kind == "reflection":
            next(iter(self.query("#part-self_mark")), self).focus()
            return
        self.check()

    def on_matrix_editor_submitted(self, event: MatrixEditor.Submitted) -> None:
        event.stop()
        self.check()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.check()

    def on_key(self, event: Key) -> None:
        """In a multiple-choice list, typing the option's letter chooses it."""
        if choose_by_letter(self.app.focused, event.character):
            event.stop()

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "new":
            await self.action_new_variant(force=True)
        elif event.button.id == "check":
            self.check()
        elif event.button.id == "hint":
            self.action_hint(force=True)
        else:
            self.action_solution(force=True)

    def check(self) -> None:
        if not hasattr(self, "variant"):
            return
        exercise = self._exercise()
        answer = self.answers()
        if not answer:
            return
        if exercise.kind == "reflection" and not answer.get("answer", "").strip():
            self.query_one("#feedback", Static).update(
                Text(t("reflect-first", self.lang), style="bold yellow")
            )
            return
        result = exercise.grade(self.variant, answer)
        self.tried = True
        self.app.record_attempt(
            exercise, self.variant, answer, result, self.hints_shown, time.monotonic() - self.started
        )
        self._show_result(result)

    def _show_result(self, result) -> None:
        from exercises.grading.diagnoses import explain

        self.shown = ("result", result)
        lang = self.lang
        labels = {part.name: pick(part.label, lang) for part in self._exercise().parts}
        out = Text()
        if result.graded:
            style = "bold green" if result.correct else "bold yellow" if result.valid else "bold red"
            mark = "✓" if result.correct else "✗" if result.valid else "?"
            out.append(f"{mark} {t('score', lang)} {result.score:.0%}\n", style=style)
            for name, part in result.parts.items():
                glyph = "?" if not part.valid else "✓" if part.score >= 1 else "~" if part.score > 0 else "✗"
                out.append(f"{glyph} {labels.get(name, name)}: ", style="bold")
                out.append(pick(part.feedback, lang) + "\n")
            for code in result.diagnoses:
                out.append("! ", style="bold magenta")
                out.append(pick(explain(code), lang) + "\n", style="magenta")
        else:
            out.append(pick(result.feedback, lang))
            if result.score is not None:
                out.append("\n" + t("self-marked-as", lang, mark=f"{result.score:.0%}"), style="bold")
        feedback = self.query_one("#feedback", Static)
        feedback.update(out)
        matrix = next(iter(self.query("#parts MatrixEditor").results(MatrixEditor)), None)
        if matrix is not None and result.graded:
            from exercises.items.mask_matrix import diff_cells

            matrix.mark_wrong(set(diff_cells(matrix.value, self.variant.data["mask"])))
        self.call_after_refresh(feedback.scroll_visible, top=True)

    # -- help ------------------------------------------------------------

    def action_hint(self, force: bool = False) -> None:
        if not hasattr(self, "variant"):
            return
        policy = self.app.progress.setting("hints")
        if policy == "never" or (policy == "after-first-try" and not self.tried):
            key = "hints-off" if policy == "never" else "hints-locked"
            hints = self.query_one("#hints", Static)
            hints.update(t(key, self.lang))
            hints.remove_class("-empty")
            self.call_after_refresh(hints.scroll_visible)
            return
        if self.hints_shown < len(self._exercise().hints(self.variant)):
            self.hints_shown += 1
        self._show_hints()
        hints = self.query_one("#hints", Static)
        self.call_after_refresh(hints.scroll_visible)

    def _show_hints(self) -> None:
        if not hasattr(self, "variant") or not self.hints_shown:
            return
        lang = self.lang
        hints = self._exercise().hints(self.variant)
        lines = [
            t("hint-n", lang, n=i + 1, total=len(hints), text=pick(hint, lang))
            for i, hint in enumerate(hints[: self.hints_shown])
        ]
        if self.hints_shown >= len(hints):
            lines.append(t("no-more-hints", lang))
        self.query_one("#hints", Static).update("\n".join(lines))
        self.query_one("#hints", Static).remove_class("-empty")

    def action_solution(self, force: bool = False) -> None:
        if hasattr(self, "variant"):
            self._show_solution()

    def _show_solution(self) -> None:
        self.shown = ("solution", None)
        lang = self.lang
        labels = {part.name: pick(part.label, lang) for part in self._exercise().parts}
        solution = self._exercise().solve(self.variant)
        out = Text(t("solution-shown", lang) + "\n", style="bold green")
        for name, text in solution.items():
            out.append(f"{labels.get(name, name)}: ", style="bold")
            out.append(text.replace("\n", " / ") + "\n")
        feedback = self.query_one("#feedback", Static)
        feedback.update(out)
        self.call_after_refresh(feedback.scroll_visible, top=True)

    async def action_new_variant(self, force: bool = False) -> None:
        if hasattr(self, "variant"):
            self.seed += 1
            await self.load_variant()
