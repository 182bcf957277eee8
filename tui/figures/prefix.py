"""Prefix LM, live: the prefix length moves the matrix and the loss positions."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static

from tui.figures.base import Figure
from tui.i18n import t
from tui.widgets.mask_view import MaskView
from tui.widgets.text_input import TextInput

DEFAULT_TEXT = "translate to French : the cat sleeps"


class PrefixFigure(Figure):
    BINDINGS = [
        Binding("left_square_bracket", "prefix(-1)", "prefix −", show=False),
        Binding("right_square_bracket", "prefix(1)", "prefix +", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.prefix = 4

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="prefix-keys")
        yield TextInput(value=DEFAULT_TEXT, id="prefix-text")
        yield Static(markup=False, classes="output", id="prefix-title")
        with Horizontal(classes="row"):
            yield Static(markup=False, classes="output side", id="prefix-table")
            yield MaskView(classes="output", id="prefix-mask")
        yield Static(markup=False, classes="error")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_figure()

    def action_prefix(self, step: int) -> None:
        self.prefix = max(0, self.prefix + step)
        self.refresh_figure()

    def redraw(self) -> None:
        from engine.samples import prefix_sample
        from engine.tokens import split_text

        lang = self.lang
        n_tokens = len(split_text(self.query_one("#prefix-text", Input).value))
        self.prefix = min(self.prefix, max(0, n_tokens - 1))
        sample = prefix_sample(self.query_one("#prefix-text", Input).value, self.prefix)
        self.query_one("#prefix-keys", Static).update(t("fig-prefix-keys", lang))
        self.query_one("#prefix-title", Static).update(
            Text(t("prefix-heading", lang, prefix=sample.prefix), style="bold")
        )
        self.query_one("#prefix-mask", MaskView).show(sample.mask, labels=sample.inputs)
        table = Table(box=None, header_style="bold", pad_edge=False)
        for header in ("position", "input", "label"):
            table.add_column(t(header, lang), no_wrap=True, max_width=16)
        for position, token in enumerate(sample.inputs):
            label = sample.labels[position]
            table.add_row(
                str(position), token, Text(label, style="bold green") if label else Text("-100", style="dim")
            )
        self.query_one("#prefix-table", Static).update(table)
        self.clear_error()
