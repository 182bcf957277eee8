"""The question a live figure asks before it shows the engine's answer, a box to
answer it in, and then the verdict. It renders and posts messages up; the question
and its check are ``exercises.predictions``'."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from exercises.text import pick
from tui.i18n import t
from tui.widgets.text_input import TextInput


class PredictionBox(Vertical):
    DEFAULT_CSS = """
    PredictionBox { height: auto; border: round $accent; padding: 0 1; margin-top: 1; }
    PredictionBox #prediction-form { color: $text-muted; }
    PredictionBox Input { border: none; height: 1; padding: 0 1; background: $boost; }
    PredictionBox Input:focus { border: none; background: $primary 30%; }
    """
    BINDINGS = [Binding("escape", "cancel", "back")]
    ACTION_KEYS = {"cancel": "predict-skip"}

    class Answered(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Cancelled(Message):
        pass

    def __init__(self, question, **kwargs) -> None:
        super().__init__(**kwargs)
        self.question = question
        self.answered = False

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id="prediction-question")
        yield Static(markup=False, id="prediction-form")
        yield TextInput(id="prediction-answer")
        verdict = Static(markup=False, id="prediction-verdict")
        verdict.display = False
        yield verdict

    def on_mount(self) -> None:
        self.watch(self.app, "lang", lambda _lang: self.relabel(), init=False)
        self.relabel()
        self.query_one(Input).focus()

    def relabel(self) -> None:
        from tui.bindings import localise_bindings

        lang = self.app.lang
        localise_bindings(self, lang)
        self.border_title = t("predict-title", lang)
        self.query_one(Input).placeholder = t("predict-placeholder", lang)
        self.query_one("#prediction-question", Static).update(
            Text(pick(self.question.text, lang), style="bold")
        )
        self._show_form()
        self._show_verdict()

    def _show_form(self) -> None:
        """The answer's form, then its keys: on one line where they fit, else the keys on
        a line of their own (never "Esc:" at a line's end and "skip" on the next)."""
        from rich.cells import cell_len

        lang = self.app.lang
        form, keys = pick(self.question.form, lang), t("predict-enter", lang)
        room = self.content_region.width or max(20, self.app.size.width - 6)
        joined = f"{form} · {keys}"
        self.query_one("#prediction-form", Static).update(
            joined if cell_len(joined) <= room else f"{form}\n{keys}"
        )

    def on_resize(self) -> None:
        self._show_form()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()  # the figure redraws on its own inputs' changes, not on this one

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.post_message(self.Answered(event.value))

    def action_cancel(self) -> None:
        """Esc: before answering, drop the question; after, leave the box for the figure's keys."""
        if self.answered and self.parent is not None:
            self.parent.focus()
        elif not self.answered:
            self.post_message(self.Cancelled())

    def show_verdict(self, answer: str, verdict) -> None:
        """The guess stays on screen beside the verdict; the box no longer takes answers
        (an unreadable answer can be written again)."""
        self.answer, self.verdict = answer, verdict
        if verdict.valid:
            self.answered = True
            self.query_one(Input).display = False
            self.query_one("#prediction-form", Static).display = False
        self._show_verdict()

    def _show_verdict(self) -> None:
        verdict = getattr(self, "verdict", None)
        if verdict is None:
            return
        lang = self.app.lang
        out = Text()
        if not verdict.valid:
            out.append("? ", style="bold red")
        else:
            mark, style = ("✓", "bold green") if verdict.correct else ("✗", "bold yellow")
            out.append(f"{mark} {t('predict-guess', lang, guess=self.answer.strip())}\n", style=style)
        out.append(pick(verdict.feedback, lang))
        self.query_one("#prediction-verdict", Static).update(out)
        self.query_one("#prediction-verdict", Static).display = True
