"""What every live figure shares: it waits for the engine, follows the
language, redraws from the engine whenever a control changes, and can ask the
learner to predict what it is about to show (``exercises.predictions``)."""

from __future__ import annotations

import time

from rich.cells import cell_len
from textual.await_remove import AwaitRemove
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from tui.i18n import t
from tui.widgets.prediction_box import PredictionBox

SENTENCE_ZH = "模型根据上文预测下一个词"  # the Chinese figures' sentence, one of the course's


def default_sentence(lang: str) -> str:
    """The sentence a figure's text box opens on: the course's example in English, a
    Chinese sentence in the Chinese app (it opened on the English one: issue 23)."""
    from exercises.items.banks import LESSON_SENTENCE

    return SENTENCE_ZH if lang == "zh" else LESSON_SENTENCE


class Figure(VerticalScroll, can_focus=True):
    """A live figure. Subclasses compose their controls and implement ``redraw``,
    which reads the engine (imported only once the worker has loaded it).

    Keys and text boxes take turns: while the figure has the focus, letters are its
    controls (r, +, g …); Enter goes into its text box, where every letter is text,
    and Enter or Esc comes back. The key line at the top says which of the two is on
    (issue 23.15, 23.22)."""

    BINDINGS = [
        Binding("escape", "escape", "back"),
        Binding("g", "predict", "predict"),
        Binding("enter", "edit", "type"),
    ]
    PREDICTS = False  # a figure that asks a question of exercises.predictions sets it
    KEYS = ""  # the i18n key of the figure's own controls, for its key line
    EDIT_BOX: str | None = None  # the id of the text box Enter goes into, if it has one

    class Predicted(Message):
        """The learner answered the figure's question: the lesson records it."""

        def __init__(self, question, answer: str, verdict, seconds: float) -> None:
            super().__init__()
            self.question = question
            self.answer = answer
            self.verdict = verdict
            self.seconds = seconds

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.question = None  # the open question: the figure hides its answer meanwhile
        self.revealed = None  # (question, verdict) of the last answer, marked on the figure
        self.rounds = 0  # questions asked: each round may ask about another row
        self.asked_at = 0.0

    DEFAULT_CSS = """
    Figure { height: 1fr; padding: 0 1; overflow-x: auto; }
    Figure .keys { color: $text-muted; }
    Figure .readout { margin-top: 1; }
    Figure Input { width: 1fr; }
    /* a box the keys are not in looks it: dim, until Enter (or a click) goes in */
    Figure > Input, Figure > .row > Input { color: $text-muted; }
    Figure > Input:focus, Figure > .row > Input:focus { color: $foreground; border: tall $accent; }
    Figure .row { height: auto; margin-top: 1; }
    Figure .side { width: auto; margin-right: 3; }
    Figure .row.stacked { layout: vertical; }
    Figure .row.stacked .side { margin-right: 0; margin-bottom: 1; }
    """
    SIDE_GAP = 3  # .side's margin: the columns between a table and its mask

    # -- predict, then reveal ---------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "predict":
            return self.PREDICTS and bool(getattr(self.app, "engine_loaded", False))
        if action == "edit":
            return self.EDIT_BOX is not None
        return True

    # -- keys, and the text boxes ------------------------------------------

    def own_boxes(self) -> list[Input]:
        """The figure's own text boxes (a prediction's answer box is not one)."""
        return [
            box
            for box in self.query(Input)
            if not any(isinstance(node, PredictionBox) for node in box.ancestors)
        ]

    def typing(self) -> bool:
        """The focus is in one of the figure's own text boxes."""
        return self.app.focused in self.own_boxes()

    def default_text(self, lang: str) -> str:
        """What the figure's text box (``EDIT_BOX``) opens on in ``lang``."""
        return default_sentence(lang)

    def _language_changed(self, old: str, new: str) -> None:
        """A text box the learner has not touched follows the language; then redraw.
        Not while a question is open or its marks are shown: they are about the text
        as it is, and a new text dropped the question and showed its answer unasked
        (the question box speaks the new language by itself, the guess typed kept)."""
        asked = self.question is not None or self.revealed is not None
        if self.EDIT_BOX is not None and not asked:
            box = self.query_one(f"#{self.EDIT_BOX}", Input)
            if box.value == self.default_text(old):
                with box.prevent(Input.Changed):
                    box.value = self.default_text(new)
                self.text_replaced()
        self.refresh_figure()

    def text_replaced(self) -> None:
        """The text box's default was swapped for the other language's (a figure that
        derives a setting from the text, the prefix figure's prefix, follows it)."""

    def key_line(self) -> str:
        """The figure's keys as the key line shows them: its controls, then `g` and
        Enter where they work; while typing, how to get the controls back."""
        lang = self.lang
        if self.typing():
            several = len(self.own_boxes()) > 1
            return t("fig-typing", lang) + (" · " + t("fig-typing-tab", lang) if several else "")
        parts = [t(self.KEYS, lang)] if self.KEYS else []
        if self.PREDICTS:
            parts.append(t("fig-key-predict", lang))
        if self.EDIT_BOX is not None:
            parts.append(t("fig-key-edit", lang))
        return " · ".join(parts)

    def show_keys(self) -> None:
        """The key line, broken between two keys where it is too long, never inside one
        ("回车 输入 / 句子" and "↑/↓ / row" read badly at 80 columns)."""
        room = self.scrollable_content_region.width or max(20, self.app.size.width - 4)
        lines = []
        for line in self.key_line().split("\n"):
            packed = ""
            for phrase in line.split(" · "):
                joined = f"{packed} · {phrase}" if packed else phrase
                if packed and cell_len(joined) > room:
                    lines.append(packed)
                    joined = phrase
                packed = joined
            lines.append(packed)
        for static in self.query(".keys").results(Static):
            static.update("\n".join(lines))
            break

    def on_descendant_focus(self) -> None:
        if self.KEYS:
            self.show_keys()

    def on_descendant_blur(self) -> None:
        if self.KEYS:
            self.call_after_refresh(self.show_keys)  # the next focus is known after the blur

    def action_edit(self) -> None:
        """Enter: into the figure's text box, the cursor at the end of its text."""
        if self.EDIT_BOX is not None:
            box = self.query_one(f"#{self.EDIT_BOX}", Input)
            box.focus()
            box.cursor_position = len(box.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a text box: done typing, the controls are back."""
        event.stop()
        self.focus()

    def on_key(self, event) -> None:
        """A letter the figure has no control for, typed while its keys are on: say how
        to type, rather than drop it silently."""
        if (
            self.EDIT_BOX is not None
            and self.app.focused is self
            and event.is_printable
            and event.key not in self.screen.active_bindings
        ):
            event.stop()
            self.show_error(t("fig-type-how", self.lang))

    def ask(self):
        """The question for the figure's current settings (``exercises.predictions``)."""
        raise NotImplementedError

    def context(self, question) -> tuple:
        """The settings ``question`` would be asked under now: when they no longer
        match the question's, the question (or its marks) no longer applies."""
        raise NotImplementedError

    @property
    def hiding(self) -> bool:
        """A question is open: the parts that would give the answer away stay hidden."""
        return self.question is not None

    @property
    def marks(self):
        """(question, verdict) to mark on the figure, or None."""
        return self.revealed

    async def action_predict(self) -> None:
        """Ask (again: another question); pressed while a question is open, drop it."""
        if self.question is not None:
            self._close_prediction()
            return
        try:
            question = self.ask()
        except ValueError as error:  # nothing to ask about (e.g. a text too short)
            from tui.i18n import error_text

            self.show_error(error_text(error, self.lang))
            return
        # The last answer's box must be gone before the next one is mounted: a removal
        # is only done once awaited, and the new box takes the same id (issue 23.1).
        await self._close_prediction(refresh=False)
        self.rounds += 1
        self.question = question
        self.asked_at = time.monotonic()
        anchor = next(iter(self.query(".keys")), None)
        box = PredictionBox(question, id="prediction")
        if anchor is not None:
            self.mount(box, after=anchor)
        else:
            self.mount(box, before=0)
        self.refresh_figure()
        self.call_after_refresh(self.scroll_home, animate=False)

    def on_prediction_box_answered(self, event: PredictionBox.Answered) -> None:
        from exercises.predictions import grade

        event.stop()
        question = self.question
        if question is None:
            return
        verdict = grade(question, event.text)
        self.query_one(PredictionBox).show_verdict(event.text, verdict)
        if not verdict.valid:  # unreadable: not a wrong answer; the box asks again
            return
        self.question = None
        self.revealed = (question, verdict)
        self.post_message(self.Predicted(question, event.text, verdict, time.monotonic() - self.asked_at))
        self.refresh_figure()
        self.focus()

    def on_prediction_box_cancelled(self, event: PredictionBox.Cancelled) -> None:
        event.stop()
        self._close_prediction()
        self.focus()

    def _close_prediction(self, refresh: bool = True) -> AwaitRemove:
        """Drop the question or the marks and the box; await the result to know the
        box is gone."""
        self.question = None
        self.revealed = None
        removal = self.query(PredictionBox).remove()
        if refresh:
            self.refresh_figure()
        return removal

    def _prediction_still_applies(self) -> None:
        """A control changed: a question or marks made for other settings are dropped."""
        current = self.question or (self.revealed[0] if self.revealed else None)
        if current is not None and self.context(current) != current.context:
            self._close_prediction(refresh=False)

    def action_escape(self) -> None:
        """Esc leaves a text box for this panel's own keys; a second Esc goes back."""
        if self.has_focus:
            self.screen.action_leave()
        else:
            self.focus()

    def on_mount(self) -> None:
        # The first drawing waits for the lesson's first frame: the lesson opens on its
        # text, and the learner should see it before the figure is computed.
        self.watch(self.app, "engine_loaded", self._engine_changed, init=False)
        self.call_after_refresh(lambda: self._engine_changed(bool(getattr(self.app, "engine_loaded", False))))
        self._shown_lang = self.app.lang
        self.watch(self.app, "lang", self._lang_watched, init=False)

    def _lang_watched(self, lang: str) -> None:
        old, self._shown_lang = self._shown_lang, lang
        self._language_changed(old, lang)

    @property
    def lang(self) -> str:
        return self.app.lang

    def _engine_changed(self, loaded: bool) -> None:
        if loaded:
            self.refresh_bindings()  # "predict" is offered once the engine is in
            self.refresh_figure()
        else:
            self.waiting()

    def waiting(self) -> None:
        """Before the engine is in: say so where the figure will be (its keys are there)."""
        if self.KEYS:
            self.show_keys()
        for static in self.query(".output").results(Static):
            static.update(t("waiting-engine", self.lang))

    def refresh_figure(self) -> None:
        if not getattr(self.app, "engine_loaded", False):
            self.waiting()
            return
        if self.PREDICTS:
            self._prediction_still_applies()
        try:
            self.redraw()
        except ValueError as error:  # the engine's InvalidInput: say it, keep the controls
            from tui.i18n import error_text

            # Nothing drawn for the settings before stays beside the error: a drawing that
            # no longer matches them reads as their result (the packing figure kept its
            # L = 12 windows under "at least 13 tokens are needed").
            for static in self.query(".output").results(Static):
                static.update("")
            self.show_settings()
            self.show_error(error_text(error, self.lang))

    def show_settings(self) -> None:
        """The settings as the learner has set them, for when the engine refused them (a
        figure whose header names its settings redraws it here, the drawing left out)."""

    def redraw(self) -> None:
        raise NotImplementedError

    def on_resize(self) -> None:
        if self.KEYS:
            self.show_keys()
        if getattr(self.app, "engine_loaded", False):
            self.refresh_figure()

    def place_side_by_side(self, row, table, mask_width: int) -> None:
        """A table and a mask side by side when both fit the figure's width, the mask
        below the table when they would not (at 80 columns in Chinese, or a long sequence):
        never one squeezed against the other or cut at the edge."""
        from rich.console import Console
        from rich.measure import Measurement

        console = Console(width=1000)
        table_width = Measurement.get(console, console.options, table).maximum
        room = self.scrollable_content_region.width or self.app.size.width - 4
        row.set_class(table_width + self.SIDE_GAP + mask_width > room, "stacked")

    def show_error(self, message: str) -> None:
        for static in self.query(".error").results(Static):
            static.update(message)
            static.display = True

    def clear_error(self) -> None:
        for static in self.query(".error").results(Static):
            static.display = False
