"""Prefix LM, live: the prefix length moves the matrix and the loss positions.
It opens on a translation: the source is the prefix, the continuation is in the
other language. ``r`` cuts the text at a random point instead, as T5 pretrains a
prefix LM on plain, unlabelled text (the engine's ``random_prefix_length``)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static

from tui.figures.base import Figure
from tui.i18n import t
from tui.widgets.mask_view import MaskView, grid_width
from tui.widgets.text_input import TextInput


class PrefixFigure(Figure):
    PREDICTS = True
    KEYS = "fig-prefix-keys"
    EDIT_BOX = "prefix-text"
    BINDINGS = [
        Binding("left_square_bracket", "prefix(-1)", "prefix −", show=False),
        Binding("right_square_bracket", "prefix(1)", "prefix +", show=False),
        Binding("r", "random_cut", "random cut", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.prefix = 0  # set in compose: the prefix ends with the arrow
        self.cut_seed = 0  # how many random cuts were drawn
        self.random_cut = False  # the prefix was cut at random (plain text), not set by hand

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="prefix-keys")
        # A real prefix task: a translation whose continuation is in the other language;
        # the prefix is the instruction, the source sentence and the arrow.
        text = self.default_text(self.app.lang)
        self.prefix = _prefix_of(text)
        yield TextInput(value=text, id="prefix-text")
        yield Static(markup=False, classes="output", id="prefix-title")
        with Horizontal(classes="row", id="prefix-row"):
            yield Static(markup=False, classes="output side", id="prefix-table")
            yield MaskView(classes="output", id="prefix-mask")
        yield Static(markup=False, classes="error")

    def default_text(self, lang: str) -> str:
        return t("fig-prefix-default", lang)

    def text_replaced(self) -> None:
        self.prefix = _prefix_of(self.query_one("#prefix-text", Input).value)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.random_cut = False  # a new text: the cut drawn for the old one no longer applies
        self.refresh_figure()

    def action_prefix(self, step: int) -> None:
        self.prefix = max(0, self.prefix + step)
        self.random_cut = False
        self.refresh_figure()

    def action_random_cut(self) -> None:
        import torch

        from engine.prefix_lm import random_prefix_length
        from engine.tokens import split_text

        n_tokens = len(split_text(self.query_one("#prefix-text", Input).value))
        if n_tokens < 2:
            return
        self.cut_seed += 1
        self.prefix = random_prefix_length(n_tokens, torch.Generator().manual_seed(self.cut_seed))
        self.random_cut = True
        self.refresh_figure()

    def ask(self):
        from exercises.predictions import prefix_loss_start

        self.refresh_figure()  # clamps the prefix to the text's length first
        return prefix_loss_start(self.query_one("#prefix-text", Input).value, self.prefix)

    def context(self, question) -> tuple:
        return (self.query_one("#prefix-text", Input).value, self.prefix)

    def redraw(self) -> None:
        from engine.samples import prefix_sample
        from engine.tokens import split_text

        lang = self.lang
        n_tokens = len(split_text(self.query_one("#prefix-text", Input).value))
        self.prefix = min(self.prefix, max(0, n_tokens - 1))
        sample = prefix_sample(self.query_one("#prefix-text", Input).value, self.prefix)
        self.show_keys()
        title = Text(t("prefix-heading", lang, prefix=sample.prefix), style="bold")
        if self.random_cut:
            title.append("\n" + t("fig-prefix-random", lang, n=n_tokens, cut=sample.prefix), style="dim")
        self.query_one("#prefix-title", Static).update(title)
        self.query_one("#prefix-mask", MaskView).show(sample.mask, labels=sample.inputs)
        table = Table(box=None, header_style="bold", pad_edge=False)
        for header, width in (("position", 16), ("input", 16), ("label", 24)):  # the label carries the guess
            table.add_column(t(header, lang), no_wrap=True, max_width=width)
        guessed = None
        if self.marks is not None:
            _question, verdict = self.marks
            guessed = (verdict.given[0] if verdict.given else None, verdict.correct)
        for position, token in enumerate(sample.inputs):
            label = sample.labels[position]
            cell = Text(label, style="bold green") if label else Text("-100", style="dim")
            if self.hiding:  # the labels are the answer
                cell = Text("?", style="bold")
            elif guessed is not None and position == guessed[0]:
                cell.append(
                    " ← " + ("✓ " if guessed[1] else "✗ ") + t("predict-yours", lang),
                    style="bold green" if guessed[1] else "bold yellow",
                )
            table.add_row(str(position), Text(token), cell)  # Text: a typed "[b]" is a token
        self.query_one("#prefix-table", Static).update(table)
        self.place_side_by_side(
            self.query_one("#prefix-row"), table, grid_width(len(sample.mask), sample.inputs)
        )
        self.clear_error()


def _prefix_of(text: str) -> int:
    """The default translation's prefix: the instruction, the source and the arrow."""
    words = text.split()
    return words.index("→") + 1 if "→" in words else len(words) // 2
