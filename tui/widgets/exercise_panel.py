"""Practise in place: one exercise variant, an input per part, graded feedback
that names the misconception, hints, the engine's solution, new variants."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Select, Static

from tui.i18n import t
from tui.widgets.matrix_editor import MatrixEditor
from tui.widgets.text_input import TextInput


def _pick(text: dict[str, str], lang: str) -> str:
    return text.get(lang) or text["en"]


class ExercisePanel(VerticalScroll, can_focus=True):
    """Practice for one objective: pick an exercise, answer, get feedback."""

    DEFAULT_CSS = """
    ExercisePanel { height: 1fr; padding: 0 1; }
    ExercisePanel #prompt { margin: 1 0; }
    ExercisePanel #parts { height: auto; }
    ExercisePanel .part-label { color: $accent; margin-top: 1; }
    ExercisePanel #feedback { margin-top: 1; }
    ExercisePanel #hints { color: $warning; }
    ExercisePanel #buttons { height: auto; margin-top: 1; }
    ExercisePanel #buttons Button { margin-right: 1; min-width: 10; }
    ExercisePanel .help { color: $text-muted; }
    ExercisePanel Select { width: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "escape", "back", show=False),
        Binding("h", "hint", "hint"),
        Binding("s", "solution", "solution"),
        Binding("n", "new_variant", "new variant"),
        Binding("y", "self_mark('yes')", "yes", show=False),
        Binding("p", "self_mark('partly')", "partly", show=False),
        Binding("x", "self_mark('no')", "no", show=False),
    ]

    def __init__(self, exercise_ids: tuple[str, ...], **kwargs) -> None:
        super().__init__(**kwargs)
        self.exercise_ids = exercise_ids
        self.exercise_id = exercise_ids[0] if exercise_ids else None
        self.seed = 0
        self.hints_shown = 0
        self.started = 0.0

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
        from exercises.catalogue import get

        select = self.query_one("#exercise-select", Select)
        with select.prevent(Select.Changed):
            select.set_options(
                [(_pick(get(eid).title, lang) + f"  [{eid}]", eid) for eid in self.exercise_ids]
            )
            select.value = self.exercise_id
        self._show_prompt()

    async def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value and event.value != self.exercise_id:
            self.exercise_id = str(event.value)
            self.seed = 0
            await self.load_variant()

    async def select_exercise(self, exercise_id: str) -> None:
        """Jump to one exercise (the command palette does this)."""
        if exercise_id in self.exercise_ids:
            self.exercise_id = exercise_id
            self.seed = 0
            if getattr(self.app, "engine_loaded", False):
                self._relabel()
                await self.load_variant()

    async def load_variant(self, focus: bool = True) -> None:
        """Show variant ``self.seed``; ``focus`` puts the cursor in its first part
        (not when the engine arrives: that would pull the learner off their tab)."""
        import time

        exercise = self._exercise()
        self.variant = exercise.generate(self.seed)
        self.hints_shown = 0
        self.started = time.monotonic()
        parts = self.query_one("#parts", Vertical)
        await parts.remove_children()
        widgets = []
        for part in exercise.parts:
            if exercise.kind == "reflection" and part.name == "self_mark":
                continue
            widgets.append(Label(markup=False, classes="part-label", id=f"label-{part.name}"))
            if exercise.kind == "matrix":
                widgets.append(MatrixEditor(self.variant.data["n"], id=f"part-{part.name}"))
            elif exercise.kind == "choice":
                count = len(self.variant.data["order"])
                widgets.append(
                    RadioSet(*(RadioButton(chr(65 + i)) for i in range(count)), id=f"part-{part.name}")
                )
            else:
                widgets.append(TextInput(id=f"part-{part.name}"))
        await parts.mount(*widgets)
        self.query_one("#hints", Static).update("")
        self.query_one("#feedback", Static).update("")
        self._show_prompt()
        if focus:
            self.call_after_refresh(self.focus_first)

    def focus_first(self) -> None:
        """The cursor into the first part (or the panel, before a variant is shown)."""
        first = next(iter(self.query("#parts Input, #parts MatrixEditor, #parts RadioSet")), None)
        (first or self).focus()

    def _show_prompt(self) -> None:
        if not hasattr(self, "variant"):
            return
        lang = self.lang
        exercise = self._exercise()
        self.query_one("#title", Static).update(
            Text.assemble(
                (_pick(exercise.title, lang), "bold"), ("  " + t("variant", lang, seed=self.seed), "dim")
            )
        )
        self.query_one("#prompt", Static).update(_pick(self.variant.prompt, lang))
        for part in exercise.parts:
            for label in self.query(f"#label-{part.name}").results(Label):
                label.update(
                    f"{_pick(part.label, lang)}  ({t('for-example', lang)} {_pick(part.example, lang)})"
                )
        help_key = {"matrix": "matrix-help", "reflection": "self-mark"}.get(exercise.kind, "answer-enter")
        self.query_one("#answer-help", Static).update(t(help_key, lang))

    # -- answering -------------------------------------------------------

    def answers(self) -> dict[str, str]:
        exercise = self._exercise()
        answer: dict[str, str] = {}
        for part in exercise.parts:
            for widget in self.query(f"#part-{part.name}"):
                if isinstance(widget, Input) and widget.value.strip():
                    answer[part.name] = widget.value
                elif isinstance(widget, MatrixEditor):
                    answer[part.name] = widget.as_text()
                elif isinstance(widget, RadioSet) and widget.pressed_index >= 0:
                    answer[part.name] = chr(65 + widget.pressed_index)
        return answer

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        inputs = list(self.query("#parts Input").results(Input))
        empty = [widget for widget in inputs if not widget.value.strip()]
        if empty and self._exercise().kind != "reflection":
            empty[0].focus()
            return
        self.check()

    def on_matrix_editor_submitted(self, event: MatrixEditor.Submitted) -> None:
        event.stop()
        self.check()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.check()

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "new":
            await self.action_new_variant()
        else:
            {"check": self.check, "hint": self.action_hint, "solution": self.action_solution}[
                event.button.id
            ]()

    def check(self, self_mark: str | None = None) -> None:
        import time

        if not hasattr(self, "variant"):
            return
        exercise = self._exercise()
        answer = self.answers()
        if self_mark is not None:
            answer["self_mark"] = self_mark
        if not answer:
            return
        result = exercise.grade(self.variant, answer)
        self.app.record_attempt(
            exercise, self.variant, answer, result, self.hints_shown, time.monotonic() - self.started
        )
        self._show_result(result)

    def _show_result(self, result) -> None:
        from exercises.diagnoses import explain

        lang = self.lang
        out = Text()
        if result.graded:
            style = "bold green" if result.correct else "bold yellow" if result.valid else "bold red"
            mark = "✓" if result.correct else "✗" if result.valid else "?"
            out.append(f"{mark} {t('score', lang)} {result.score:.0%}\n", style=style)
            for name, part in result.parts.items():
                glyph = "?" if not part.valid else "✓" if part.score >= 1 else "~" if part.score > 0 else "✗"
                out.append(f"{glyph} {name}: ", style="bold")
                out.append(_pick(part.feedback, lang) + "\n")
            for code in result.diagnoses:
                out.append("! ", style="bold magenta")
                out.append(_pick(explain(code), lang) + "\n", style="magenta")
        else:
            out.append(_pick(result.feedback, lang))
            if result.score is not None:
                out.append("\n" + t("self-marked-as", lang, mark=f"{result.score:.0%}"), style="bold")
        self.query_one("#feedback", Static).update(out)
        matrix = next(iter(self.query("#parts MatrixEditor").results(MatrixEditor)), None)
        if matrix is not None and result.graded:
            from exercises.items.mask_matrix import diff_cells

            matrix.mark_wrong(set(diff_cells(matrix.value, self.variant.data["mask"])))

    # -- help ------------------------------------------------------------

    def action_hint(self) -> None:
        if not hasattr(self, "variant"):
            return
        lang = self.lang
        hints = self._exercise().hints(self.variant)
        if self.hints_shown < len(hints):
            self.hints_shown += 1
        lines = [
            t("hint-n", lang, n=i + 1, total=len(hints), text=_pick(hint, lang))
            for i, hint in enumerate(hints[: self.hints_shown])
        ]
        if self.hints_shown >= len(hints):
            lines.append(t("no-more-hints", lang))
        self.query_one("#hints", Static).update("\n".join(lines))

    def action_solution(self) -> None:
        if not hasattr(self, "variant"):
            return
        solution = self._exercise().solve(self.variant)
        out = Text(t("solution-shown", self.lang) + "\n", style="bold green")
        for name, text in solution.items():
            out.append(f"{name}: ", style="bold")
            out.append(text.replace("\n", " / ") + "\n")
        self.query_one("#feedback", Static).update(out)

    async def action_new_variant(self) -> None:
        if hasattr(self, "variant"):
            self.seed += 1
            await self.load_variant()

    def action_self_mark(self, mark: str) -> None:
        if hasattr(self, "variant") and self._exercise().kind == "reflection":
            self.check(self_mark=mark)
