"""Visibility, live: causal, bidirectional or prefix-LM mask; a cursor on a row
says which positions that position sees."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer
from textual.widgets import Static

from tui.figures.base import Figure
from tui.i18n import t
from tui.widgets.mask_view import MAX_POSITIONS, MaskView, grid_geometry, row_headers

KIND_TITLES = {
    "causal": "mask-title-causal",
    "bidirectional": "mask-title-bidirectional",
    "prefix": "mask-title-prefix",
}


class VisibilityFigure(Figure):
    PREDICTS = True
    KEYS = "fig-vis-keys"
    BINDINGS = [
        Binding("c", "kind('causal')", "causal", show=False),
        Binding("b", "kind('bidirectional')", "bidirectional", show=False),
        Binding("p", "kind('prefix')", "prefix", show=False),
        Binding("minus", "length(-1)", "n −", show=False),
        Binding("plus,equals_sign", "length(1)", "n +", show=False),
        Binding("left_square_bracket", "prefix(-1)", "prefix −", show=False),
        Binding("right_square_bracket", "prefix(1)", "prefix +", show=False),
        Binding("up", "row(-1)", "row ↑", show=False),
        Binding("down", "row(1)", "row ↓", show=False),
        Binding("left", "pan(-1)", "scroll ←", show=False),
        Binding("right", "pan(1)", "scroll →", show=False),
    ]
    PAN_COLUMNS = 4  # grid columns a ← or → moves the cells by
    # The row headers stay put while the cells scroll sideways under their column numbers,
    # and nothing else scrolls sideways: the caption below wraps at the figure's width (at
    # 64 positions it was cut at the left, and the row numbers were scrolled off).
    DEFAULT_CSS = """
    VisibilityFigure { overflow-x: hidden; }
    VisibilityFigure #vis-grid { height: auto; width: 1fr; }
    VisibilityFigure #vis-rows { width: auto; height: auto; }
    VisibilityFigure #vis-pan { height: auto; width: 1fr; overflow-x: auto; overflow-y: hidden; }
    """

    def __init__(self, kind: str = "causal", **kwargs) -> None:
        super().__init__(**kwargs)
        self.kind = kind
        self.n = 6
        self.prefix = 3
        self.row = 0

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="vis-keys")
        yield Static(markup=False, classes="output", id="vis-title")
        with Horizontal(id="vis-grid"):
            yield Static(markup=False, classes="output", id="vis-rows")
            with ScrollableContainer(id="vis-pan", can_focus=False):
                yield MaskView(classes="output", id="vis-mask")
        yield Static(markup=False, classes="output readout", id="vis-sees")
        yield Static(markup=False, classes="error")

    def action_kind(self, kind: str) -> None:
        self.kind = kind
        self.refresh_figure()

    def action_length(self, step: int) -> None:
        self.n = min(MAX_POSITIONS, max(1, self.n + step))
        self.prefix = min(self.prefix, self.n)
        self.row = min(self.row, self.n - 1)
        self.refresh_figure()

    def action_prefix(self, step: int) -> None:
        self.prefix = min(self.n, max(0, self.prefix + step))
        self.kind = "prefix"
        self.refresh_figure()

    def action_row(self, step: int) -> None:
        self.row = min(self.n - 1, max(0, self.row + step))
        self.refresh_figure()

    def action_pan(self, step: int) -> None:
        """← →: the cells sideways, a few columns at a time; the row headers stay."""
        _, cell, _, _ = grid_geometry(self.n, [""] * self.n)
        pan = self.query_one("#vis-pan", ScrollableContainer)
        pan.scroll_to(x=pan.scroll_x + step * self.PAN_COLUMNS * cell, animate=False)

    def ask(self):
        from exercises.predictions import pick_row, visibility

        self.row = pick_row(self.n, self.rounds)  # the cursor goes to the row asked about
        return visibility(self.kind, self.n, self.prefix, self.row)

    def context(self, question) -> tuple:
        return (self.kind, self.n, self.prefix, self.row)

    def redraw(self) -> None:
        from engine.masks import mask_for, visible_keys

        lang = self.lang
        mask = mask_for(self.kind, self.n, self.prefix)
        self.show_keys()
        self.query_one("#vis-title", Static).update(
            Text(t(KIND_TITLES[self.kind], lang, prefix=self.prefix), style="bold")
        )
        view = self.query_one("#vis-mask", MaskView)
        sees = self.query_one("#vis-sees", Static)
        grid = self.query_one("#vis-grid", Horizontal)
        grid.display = view.display = sees.display = not self.hiding  # the mask is the answer
        wrong = None
        if self.marks is not None:  # the guess, cell by cell: a wrong cell shows as ! or ?
            _question, verdict = self.marks
            guessed = set(verdict.given)
            wrong = {
                (self.row, key) for key in range(self.n) if (key in guessed) != (not mask[self.row][key])
            }
        view.show(mask.int().tolist(), highlight_row=self.row, wrong_cells=wrong, headers=False)
        self.query_one("#vis-rows", Static).update(row_headers(self.n, highlight_row=self.row))
        readout = Text(t("sees", lang, i=self.row, visible=visible_keys(mask, self.row)), style="bold")
        if wrong:
            readout.append("\n" + t("predict-cells", lang), style="dim")
        sees.update(readout)
        self.clear_error()
