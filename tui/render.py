"""Rich renderables for the command line's plain output.

Everything here fits the console width (80 columns over SSH): wide grids are
cut into column blocks, never wrapped mid-row. Piped or redirected, the console
has no width (tui/cli.py), so a grid is one block of whole rows: the lines a
lesson's code prints. Every cell carries a glyph as well as a colour, so the
output reads the same with NO_COLOR. Drawings are capped (MAX_DRAWN_*): beyond,
one line says so and --json gives every value.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from tui.i18n import t

BLOCKED_STYLE = "bold red"
ALLOWED_STYLE = "green"
MAX_DRAWN_POSITIONS = 128  # columns of a grid, rows of a mask or of a per-position table
_HIDDEN = {"Cc", "Cf", "Cs"}  # control, format (bidi overrides), lone surrogates
MAX_DRAWN_ROWS = 64  # rows of a batch (textbook mlm --batch 4096 prints its counts, not 4096 rows)


def printable(token: str) -> str:
    """A token as the terminal should show it: control characters (an ESC from --text)
    written out as escapes, never sent to the terminal."""
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in _HIDDEN else c for c in token)


def too_large(n: int, lang: str) -> Text:
    return Text(t("too-large", lang, n=n, cap=MAX_DRAWN_POSITIONS), style="yellow")


def drawable(rows: int, columns: int, max_rows: int = MAX_DRAWN_ROWS) -> bool:
    """A batch grid has at most MAX_DRAWN_ROWS rows; a mask's rows are positions (``max_rows``)."""
    return rows <= max_rows and columns <= MAX_DRAWN_POSITIONS


def too_large_grid(rows: int, columns: int, lang: str, max_rows: int = MAX_DRAWN_ROWS) -> Text:
    said = t(
        "too-large-grid", lang, rows=rows, columns=columns, max_rows=max_rows, max_columns=MAX_DRAWN_POSITIONS
    )
    return Text(said, style="yellow")


def _blocks(count: int, cell_width: int, indent: int, width: int) -> list[range]:
    per_block = max(1, (width - indent) // cell_width)
    n_blocks = -(-count // per_block)
    per_block = -(-count // n_blocks) if n_blocks else per_block  # balanced blocks
    return [range(start, min(start + per_block, count)) for start in range(0, count, per_block)]


def value_grid(
    rows: Sequence[Sequence[str]],
    *,
    width: int,
    lang: str,
    indent: int = 2,
    min_cell: int = 1,
    styles: dict[str, str] | None = None,
    max_rows: int = MAX_DRAWN_ROWS,
) -> RenderableType:
    """Rows of right-aligned values in the lessons' layout (``min_cell=5`` is
    their ``f"{v:5d}"``); cut into column blocks when a row would not fit. A mask
    passes ``max_rows=MAX_DRAWN_POSITIONS``: its rows are positions, not a batch."""
    if not rows or not rows[0]:
        return Text("")
    if not drawable(len(rows), len(rows[0]), max_rows):
        return too_large_grid(len(rows), len(rows[0]), lang, max_rows)
    styles = styles or {}
    cell_width = max(min_cell, *(len(value) for row in rows for value in row)) + 1
    blocks = _blocks(len(rows[0]), cell_width, indent, width)
    lines: list[Text] = []
    for block in blocks:
        if len(blocks) > 1:
            lines.append(Text(t("columns-block", lang, first=block.start, last=block.stop - 1), style="dim"))
        for row in rows:
            line = Text(" " * indent)
            for column in block:
                value = row[column]
                line.append(value.rjust(cell_width - 1), style=styles.get(value, ""))
                line.append(" ")
            line.rstrip()
            lines.append(line)
    return Group(*lines)


def mask_grid(
    mask: Sequence[Sequence[int]], *, width: int, lang: str, headers: bool = True
) -> RenderableType:
    """A 0/1 mask, 1 = blocked, with position numbers on rows and columns."""
    n = len(mask)
    if n > MAX_DRAWN_POSITIONS:
        return too_large(n, lang)
    cells = [["1" if blocked else "0" for blocked in row] for row in mask]
    styles = {"1": BLOCKED_STYLE, "0": ALLOWED_STYLE}
    if not headers:
        return value_grid(cells, width=width, lang=lang, styles=styles)
    label_width = len(str(n - 1))
    cell_width = label_width + 1
    indent = label_width + 2
    lines: list[Text] = []
    blocks = _blocks(n, cell_width, indent, width)
    for block in blocks:
        lines += _block_head(block, len(blocks) > 1, indent, label_width, lang)
        for index, row in enumerate(cells):
            line = Text(str(index).rjust(label_width) + "  ", style="bold")
            for column in block:
                line.append(row[column].rjust(label_width), style=styles[row[column]])
                line.append(" ")
            line.rstrip()
            lines.append(line)
    return Group(*lines)


def _block_head(block: range, titled: bool, indent: int, column_width: int, lang: str) -> list[Text]:
    """A column block's title (when the grid is cut into several) and its header of
    column numbers, shared by the mask grid and the attention grid."""
    lines = []
    if titled:
        lines.append(Text(t("columns-block", lang, first=block.start, last=block.stop - 1), style="dim"))
    header = Text(" " * indent)
    for column in block:
        header.append(str(column).rjust(column_width) + " ", style="bold")
    header.rstrip()
    lines.append(header)
    return lines


def attention_cell(weight: float) -> str:
    """A weight as the grids print it: a percentage; exactly 0 (a blocked key: the
    softmax of -inf) as ·, so that 0 % of a weight that is tiny but there still differs."""
    return "·" if weight == 0 else str(round(weight * 100))


def attention_grid(
    matrix: Sequence[Sequence[float]], tokens: Sequence[str], *, width: int, lang: str
) -> RenderableType:
    """Attention weights in % (row = query, with its position and token; column = key,
    by position), cut into column blocks like the masks."""
    from rich.cells import cell_len

    n = len(matrix)
    if n > MAX_DRAWN_POSITIONS:
        return too_large(n, lang)
    index_width = len(str(max(n - 1, 0)))
    labels = [printable(token)[:6] for token in tokens]
    label_width = max([cell_len(label) for label in labels] + [0])
    indent = index_width + 1 + label_width + 1
    cell_width = max(3, index_width) + 1
    lines: list[Text] = []
    blocks = _blocks(n, cell_width, indent, width)
    for block in blocks:
        lines += _block_head(block, len(blocks) > 1, indent, cell_width - 1, lang)
        for index, row in enumerate(matrix):
            label = labels[index] + " " * (label_width - cell_len(labels[index]))
            line = Text(f"{str(index).rjust(index_width)} {label} ", style="bold")
            for column in block:
                value = attention_cell(row[column])
                line.append(value.rjust(cell_width - 1), style=BLOCKED_STYLE if value == "·" else "")
                line.append(" ")
            line.rstrip()
            lines.append(line)
    return Group(*lines)


def token_table(
    columns: Sequence[tuple[str, Sequence[str]]], *, lang: str, highlight: Sequence[bool] | None = None
) -> RenderableType:
    """One row per position: a column per aspect (token, input, label, ...)."""
    length = len(columns[0][1]) if columns else 0
    if length > MAX_DRAWN_POSITIONS:
        return too_large(length, lang)
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    for header, _ in columns:
        table.add_column(header, overflow="fold")
    for position in range(length):
        style = "bold" if highlight and highlight[position] else ""
        table.add_row(*(printable(str(values[position])) for _, values in columns), style=style)
    return table


def token_line(label: str, tokens: Sequence[str]) -> Text:
    """A label and a token list, sentinels and [MASK] picked out in colour."""
    line = Text(label + " ", style="bold")
    for index, token in enumerate(tokens):
        if index:
            line.append(" ")
        style = (
            "magenta"
            if token.startswith("<extra_id_")
            else "cyan"
            if token.startswith("[")
            else "dim"
            if token == "</s>"
            else ""
        )
        line.append(printable(token), style=style)
    return line


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def emit_json(payload: dict) -> None:
    """One JSON object on one line, Chinese kept readable. What JSON leaves raw but a
    terminal acts on (DEL, C1 controls such as the one-byte CSI, bidi overrides) and lone
    surrogates (which UTF-8 cannot carry) are written as \\u escapes: the same value for
    a JSON reader, inert on a screen (C0 controls JSON escapes itself)."""
    sys.stdout.write(_inert(json.dumps(payload, ensure_ascii=False)) + "\n")


def _inert(text: str) -> str:
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
