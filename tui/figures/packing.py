"""Packing, live: documents (typed, separated by |) concatenated GPT-style, each followed by
</s>, and cut into windows of L tokens; under each window, the token each position is
trained to predict. Tokens are coloured by their document, so a document running on into
the next window, and a label that crosses a document boundary, are seen at once."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from exercises.text import listing
from tui.figures.base import Figure
from tui.i18n import t
from tui.widgets.text_input import TextInput

DOCUMENT_STYLES = ("cyan", "magenta", "green", "yellow", "blue", "red")
TEXT_LIMIT = 300  # characters the box takes (the engine bounds the tokens too)
START_WINDOW = 6


class PackingFigure(Figure):
    ACTION_KEYS = {  # the labels of this figure's own actions (tui.bindings)
        "window(-1)": "key-window",
        "window(1)": "key-window",
        "shuffle": "key-shuffle",
        "in_order": "key-in-order",
        "drop": "key-drop",
    }
    BINDINGS = [
        Binding("minus", "window(-1)", "L −", show=False),
        Binding("plus,equals_sign", "window(1)", "L +", show=False),
        Binding("r", "shuffle", "shuffle", show=False),
        Binding("o", "in_order", "in order", show=False),
        Binding("d", "drop", "drop/pad", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.window = START_WINDOW
        self.seed: int | None = None  # None: the documents in the order typed
        self.shuffles = 0
        self.drop_last = True

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="pk-keys")
        yield TextInput(value=t("fig-pk-default", self.app.lang), max_length=TEXT_LIMIT, id="pk-text")
        yield Static(markup=False, classes="output", id="pk-head")
        yield Static(markup=False, classes="output", id="pk-table")
        yield Static(markup=False, classes="output readout", id="pk-note")
        yield Static(markup=False, classes="error")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_figure()

    def action_window(self, step: int) -> None:
        from engine.packing import MAX_WINDOW, MIN_WINDOW

        self.window = min(MAX_WINDOW, max(MIN_WINDOW, self.window + step))
        self.refresh_figure()

    def action_shuffle(self) -> None:
        self.shuffles += 1
        self.seed = self.shuffles
        self.refresh_figure()

    def action_in_order(self) -> None:
        self.seed = None
        self.refresh_figure()

    def action_drop(self) -> None:
        self.drop_last = not self.drop_last
        self.refresh_figure()

    def redraw(self) -> None:
        from engine.packing import pack_text

        lang = self.lang
        self.query_one("#pk-keys", Static).update(t("fig-pk-keys", lang))
        text = self.query_one("#pk-text", Input).value
        packed = pack_text(text, self.window, seed=self.seed, drop_last=self.drop_last)
        self.query_one("#pk-head", Static).update(
            self._head(packed.documents, len(packed.stream), len(packed.windows))
        )

        cells, crossings = self._cells(packed)
        room = self.scrollable_content_region.width or self.app.size.width - 4
        self.query_one("#pk-table", Static).update(_table(cells, lang, room))
        note = Text()
        crossing = packed.crossing()
        if crossing:
            note.append(t("fig-pk-crossing", lang, documents=listing(crossing, lang)) + "\n", style="bold")
        if crossings:
            note.append(t("fig-pk-boundary", lang, separator=packed.separator) + "\n", style="dim")
        if packed.dropped:
            note.append(
                t("fig-pk-dropped", lang, n=len(packed.dropped), tokens=" ".join(packed.dropped)) + "\n"
            )
        if packed.padded:
            note.append(t("fig-pk-padded", lang, n=packed.padded) + "\n")
        note.append(t("fig-pk-last", lang), style="dim")
        self.query_one("#pk-note", Static).update(note)
        self.clear_error()

    def _head(self, documents: list[list[str]], tokens: int, windows: int | None) -> Text:
        """L and the corpus as set, the documents in packing order; ``windows`` None: the
        engine refused these settings, and no count of windows is claimed."""
        lang = self.lang
        order = (
            t("fig-pk-in-order", lang) if self.seed is None else t("fig-pk-shuffled", lang, seed=self.seed)
        )
        counts = {"window": self.window, "documents": len(documents), "tokens": tokens, "order": order}
        if windows is None:
            head = Text(t("fig-pk-head-refused", lang, **counts), style="bold")
        else:
            head = Text(t("fig-pk-head", lang, windows=windows, **counts), style="bold")
        head.append("\n")
        for number, document in enumerate(documents):
            if number:
                head.append("  ")
            head.append(t("fig-pk-document", lang, number=number) + " ".join(document), style=_style(number))
        return head

    def show_settings(self) -> None:
        """The engine refused the settings (L longer than the corpus, with the tail dropped):
        the header says the L asked for, and no window of an earlier L stays drawn."""
        from engine.packing import split_documents

        documents = split_documents(self.query_one("#pk-text", Input).value)
        tokens = sum(len(document) + 1 for document in documents)
        head = self._head(documents, tokens, None)
        if self.seed is not None:  # the shuffled order is the engine's: not listed in the typed one
            head = head.split("\n")[0]
        self.query_one("#pk-head", Static).update(head)

    def _cells(self, packed) -> tuple[list[tuple[list[Text], list[Text]]], int]:
        """Per window, its tokens and its labels as coloured cells; and how many labels
        come from the next document (underlined)."""
        out, crossings = [], 0
        for tokens, labels, owners in zip(packed.windows, packed.labels, packed.document_of, strict=True):
            row = []
            for token, owner in zip(tokens, owners, strict=True):
                style = _style(owner) + (" bold reverse" if token == packed.separator else "")
                row.append(Text(token, style=style if owner >= 0 else "dim"))
            label_row = []
            for position, label in enumerate(labels):
                if label is None:
                    label_row.append(Text("-100", style="dim"))
                    continue
                owner = owners[position + 1]
                crosses = owner != owners[position]  # the label comes from the next document
                crossings += crosses
                label_row.append(Text(label, style=_style(owner) + (" underline" if crosses else "")))
            out.append((row, label_row))
        return out, crossings


GAP = 2  # columns between two cells


def _bands(widths: list[int], room: int) -> list[range]:
    """The window's positions cut into bands that each fit ``room`` columns: a long window
    at 80 columns (or in Chinese, where a character takes two) is shown in two or three
    bands, never squeezed into cut-off tokens."""
    bands, start, used = [], 0, 0
    for position, width in enumerate(widths):
        if position > start and used + GAP + width > room:
            bands.append(range(start, position))
            start, used = position, 0
        used += (GAP if position > start else 0) + width
    bands.append(range(start, len(widths)))
    return bands


def _table(cells, lang: str, room: int):
    """Each window's tokens over its labels, every column as wide as its widest cell in any
    window (so the windows line up), with the positions above. When the window does not fit
    the width, each window is shown in bands, the positions above each band."""
    window = len(cells[0][0])
    widths = [
        max(len(str(p)), *(max(row[p].cell_len, labels[p].cell_len) for row, labels in cells))
        for p in range(window)
    ]
    heads = [t("fig-pk-window", lang, n=n) for n in range(len(cells))] + [t("fig-pk-labels", lang)]
    head_width = max(Text(head).cell_len for head in heads)
    bands = _bands(widths, max(room - head_width - GAP, max(widths)))

    def table(band: range) -> Table:
        grid = Table(box=None, show_header=False, pad_edge=False, show_edge=False, padding=(0, GAP, 0, 0))
        grid.add_column(no_wrap=True, width=head_width)
        for p in band:
            grid.add_column(no_wrap=True, width=widths[p])
        grid.add_row(Text(""), *(Text(str(p), style="bold") for p in band))
        return grid

    def add_window(grid: Table, number: int, band: range) -> None:
        row, labels = cells[number]
        grid.add_row(Text(t("fig-pk-window", lang, n=number), style="bold"), *(row[p] for p in band))
        grid.add_row(
            Text(t("fig-pk-labels", lang), style="dim"), *(labels[p] for p in band), end_section=True
        )

    if len(bands) == 1:
        grid = table(bands[0])
        for number in range(len(cells)):
            add_window(grid, number, bands[0])
        return grid
    parts = []
    for number in range(len(cells)):
        for band in bands:
            grid = table(band)
            add_window(grid, number, band)
            parts.append(grid)
        parts.append(Text(""))
    return Group(*parts[:-1])


def _style(document: int) -> str:
    return DOCUMENT_STYLES[document % len(DOCUMENT_STYLES)] if document >= 0 else "dim"
