"""An attention mask drawn as a grid: token headers on rows and columns, a
glyph and a colour per cell (1 = blocked, 0 = may look), one row picked out."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

MAX_POSITIONS = 64
LABEL_WIDTH = 8
# Cells carry their own foreground: a theme's text colour on these fixed backgrounds
# fell below WCAG AA in 8 of Textual's themes (tests/test_app_contrast.py).
BLOCKED = "#ffffff on #7f1d1d"
VISIBLE = "#ffffff on #14532d"
WRONG = "bold #000000 on #facc15"


def short_label(token: str, width: int) -> str:
    """A token cut to ``width`` terminal cells (CJK characters take two)."""
    from rich.cells import cell_len

    out = ""
    for char in token:
        if cell_len(out + char) > width:
            return out[: max(0, len(out) - 1)] + "…" if width > 1 else out
        out += char
    return out


def grid_geometry(n: int, labels: Sequence[str]) -> tuple[int, int, int, int]:
    """(index width, cell width, label width, gutter) of an n-position grid: where
    each column starts, so a cell can be scrolled into view."""
    from rich.cells import cell_len

    index_width = len(str(max(n - 1, 0)))
    cell = max(index_width, 1) + 1
    label_width = min(LABEL_WIDTH, max([cell_len(label) for label in labels] + [0]))
    gutter = index_width + (label_width + 1 if label_width else 0) + 1
    return index_width, cell, label_width, gutter


def grid_width(n: int, labels: Sequence[str] | None = None) -> int:
    """How many terminal columns an n-position grid takes."""
    _, cell, _, gutter = grid_geometry(n, list(labels or [""] * n))
    return gutter + n * cell


def row_headers(n: int, labels: Sequence[str] | None = None, highlight_row: int | None = None) -> Text:
    """The rows' headers (position, token) of an n-position grid, line for line beside
    ``mask_text(..., headers=False)``: drawn apart, they stay on screen while the cells
    scroll sideways."""
    from rich.cells import cell_len

    labels = list(labels or [""] * n)
    index_width, _cell, label_width, _gutter = grid_geometry(n, labels)
    text = Text(no_wrap=True)
    for row in range(n):
        row_style = "reverse" if row == highlight_row else ""
        text.append("\n")
        text.append(str(row).rjust(index_width), style="bold " + row_style)
        if label_width:
            label = short_label(labels[row], label_width)
            text.append(" " + label + " " * (label_width - cell_len(label)), style=row_style)
        text.append(" ")
    return text


def mask_text(
    mask: Sequence[Sequence[int]],
    labels: Sequence[str] | None = None,
    highlight_row: int | None = None,
    wrong_cells: set[tuple[int, int]] | None = None,
    headers: bool = True,
) -> Text:
    """The grid as Rich text. Columns are numbered (a row of tokens would not fit
    80 columns); rows carry position and token (``headers=False``: the cells alone, the
    headers drawn apart by ``row_headers``)."""
    from rich.cells import cell_len

    n = len(mask)
    labels = list(labels or [""] * n)
    index_width, cell, label_width, gutter = grid_geometry(n, labels)
    text = Text(no_wrap=True)
    text.append(" " * gutter if headers else "")
    for column in range(n):
        text.append(str(column).rjust(cell), style="bold")
    text.append("\n")
    for row, cells in enumerate(mask):
        row_style = "reverse" if row == highlight_row else ""
        if headers:
            text.append(str(row).rjust(index_width), style="bold " + row_style)
            if label_width:
                label = short_label(labels[row], label_width)
                text.append(" " + label + " " * (label_width - cell_len(label)), style=row_style)
            text.append(" ")
        # Consecutive cells of one style go in as one span: a 64×64 mask is then
        # ~130 spans instead of 4,096, which is what keeps redrawing instant.
        run, run_style = "", None
        for column, blocked in enumerate(cells):
            glyph = "1" if blocked else "0"
            style = BLOCKED if blocked else VISIBLE
            if wrong_cells and (row, column) in wrong_cells:
                glyph, style = "!" if blocked else "?", WRONG
            if row == highlight_row:
                style += " bold"
            if style != run_style and run:
                text.append(run, style=run_style)
                run = ""
            run += glyph.rjust(cell)
            run_style = style
        if run:
            text.append(run, style=run_style)
        text.append("\n")
    text.rstrip()
    return text


class MaskView(Static):
    """Shows one mask; large masks scroll with their container, huge ones are capped
    with a message. The picked row's diagonal cell is kept in view, so at 64
    positions the cursor never walks off the visible part of the grid."""

    DEFAULT_CSS = """
    MaskView { width: auto; height: auto; }
    """

    def show(
        self,
        mask: Sequence[Sequence[int]],
        labels: Sequence[str] | None = None,
        highlight_row: int | None = None,
        wrong_cells: set[tuple[int, int]] | None = None,
        cap_message: str | None = None,
        headers: bool = True,
    ) -> None:
        if len(mask) > MAX_POSITIONS:
            self.update(Text(cap_message or f"{len(mask)} > {MAX_POSITIONS}", style="yellow"))
            return
        self.update(mask_text(mask, labels, highlight_row, wrong_cells, headers))
        if highlight_row is not None and 0 <= highlight_row < len(mask):
            _, cell, _, gutter = grid_geometry(len(mask), list(labels or [""] * len(mask)))
            self.call_after_refresh(self.reveal, highlight_row, highlight_row, cell, gutter if headers else 0)

    def reveal(self, row: int, column: int, cell: int, gutter: int) -> None:
        """Scroll the containers so that cell (row, column) and its row header are on screen."""
        from textual.geometry import Region, Spacing

        # The cell, in this widget's coordinates (line 0 is the column numbers), then
        # in each ancestor's virtual coordinates until a container scrolls it into view.
        # A container that only scrolls sideways (the cells' own, beside fixed row headers)
        # is scrolled, and the walk goes on up to the one that scrolls the page.
        region = Region(gutter + column * cell, row + 1, cell, 1)
        widget = self
        while widget.parent is not None and widget is not self.screen:
            region = region.translate(widget.virtual_region.offset)
            container = widget.parent
            if container.is_scrollable and (
                container.allow_vertical_scroll or container.allow_horizontal_scroll
            ):
                # keep the row's header in view too when the cell is near the left edge
                container.scroll_to_region(region, spacing=Spacing(0, 0, 0, 0), animate=False, immediate=True)
                if container.allow_vertical_scroll or container.styles.overflow_y != "hidden":
                    return
                region = region.translate(-container.scroll_offset)
            widget = container
