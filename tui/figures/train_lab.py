"""The training lab, live: pick objectives and a budget, train the same tiny
model once per objective in a worker thread (the app stays responsive), watch
each loss fall from ln V, cancel at any time, then read the table, probe the
models with your own text, and see what each model looks at: its attention
weights beside the mask it was trained with.

The worker only appends to plain lists; a 10 Hz timer on the app's side reads
them and redraws, so the training loop never waits for the screen.
"""

from __future__ import annotations

import threading
import time

from rich.cells import cell_len
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Input, ProgressBar, Select, Static

from engine.toy_corpus import CORPORA
from engine.train_lab_spec import APP_MAX_STEPS, DEFAULT_STEPS, OBJECTIVES
from exercises.text import L, listing, pick
from exercises.training.own_code import BUGS, MINE, TASK_OBJECTIVE, failure_line, label_of, merged_rows
from exercises.training.recorded import CORPUS_NAMES
from exercises.training.table import (
    EXAMPLES,
    OBJECTIVE_NAMES,
    SHORT_NAMES,
    notes,
    rules_text,
    table_rows,
)
from tui.figures.base import Figure
from tui.i18n import t
from tui.widgets.glyph_radio import GlyphCheckbox
from tui.widgets.mask_view import BLOCKED, VISIBLE, short_label
from tui.widgets.relabel_select import relabel

MARKS = {"clm": "C", "mlm": "M", "prefix": "P", "span": "S"}
STYLES = {"clm": "bold cyan", "mlm": "bold magenta", "prefix": "bold green", "span": "bold yellow"}
NO_OWN = "none"  # the own-code choice: reference run only
EVERY_BUG = "bugs"


def curve_mark(name: str) -> str:
    """A curve's letter: the objective's for a reference run; for a run from the learner's
    code ("mlm:mine") the same in lower case; for a shipped bug its number (1-4)."""
    if name in MARKS:
        return MARKS[name]
    objective, _, source = name.partition(":")
    if source == "mine":
        return MARKS[objective].lower()
    slugs = [bug.slug for bug in BUGS]
    return str(slugs.index(source) + 1) if source in slugs else "?"


def curve_style(name: str) -> str:
    return STYLES[name.partition(":")[0]]


def curve_name(name: str, lang: str) -> str:
    if name in OBJECTIVE_NAMES:
        return pick(OBJECTIVE_NAMES[name], lang)
    return pick(label_of(name), lang)


LABEL_CELLS = 6  # a row's token label in the attention grid
# The attention grid's shades: a weight at or above each threshold takes its glyph.
SHADES = ((0.5, "█"), (0.25, "▓"), (0.1, "▒"), (0.0, "░"))
SHADE_STYLE = "#f59e0b"


def loss_chart(
    curves: dict[str, list[float]], ln_v: float, steps: int, width: int = 56, height: int = 6
) -> Text:
    """Each objective's loss as a row of its letter, over the steps, and a dotted line
    at ln V, the loss of a model that has learned nothing (a uniform guess). The axis
    reaches ln V and the highest loss drawn: a fresh model's first steps can lie above
    ln V (drawn on the top line, they looked like ln V itself)."""
    width, height = max(width, 8), max(height, 3)
    per_column = max(steps, 1) / width
    points: dict[str, list[tuple[int, float]]] = {}  # each curve's (column, mean loss there)
    for name, losses in curves.items():
        for column in range(width):
            start = int(column * per_column)
            end = max(int((column + 1) * per_column), start + 1)
            chunk = [value for value in losses[start:end] if value == value]  # skip NaN
            if chunk:
                points.setdefault(name, []).append((column, sum(chunk) / len(chunk)))
    top = max([ln_v, 0.1, *(value for drawn in points.values() for _, value in drawn)])

    def row_of(value: float) -> int:
        return height - 1 - min(height - 1, max(0, round(value / top * (height - 1))))

    grid = [[" "] * width for _ in range(height)]
    styles = [[""] * width for _ in range(height)]
    for name, drawn in points.items():
        for column, value in drawn:
            grid[row_of(value)][column] = curve_mark(name)
            styles[row_of(value)][column] = curve_style(name)
    chart = Text()
    for row in range(height):
        level = top * (height - 1 - row) / (height - 1)
        chart.append(f"{level:4.1f} ┤", style="dim")
        for column in range(width):
            mark = grid[row][column]
            if mark == " " and row == row_of(ln_v):
                chart.append("┈", style="red dim")  # ln V
            else:
                chart.append(mark, style=styles[row][column])
        chart.append("\n")
    chart.append("     └" + "─" * width + f" {steps}", style="dim")
    return chart


# -- the attention view ----------------------------------------------------------------


def shade(weight: float) -> str:
    """One cell of the attention grid: exactly 0 (a blocked key) is a dot."""
    if weight == 0:
        return "·"
    return next(glyph for threshold, glyph in SHADES if weight >= threshold)


def attention_grid(
    matrix: list[list[float]], mask: list[list[int]], tokens: list[str], row: int, answer_row: int | None
) -> Text:
    """The weights (one shade per cell, one column per key) and, beside them, the mask
    the model was trained with in the lessons' glyphs and colours (mask_view's 1 and
    0), row for row, so that a blocked 1 stands level with a · in the weights."""
    n = len(matrix)
    index_width = len(str(max(n - 1, 0)))
    gutter = index_width + 1 + LABEL_CELLS + 2
    text = Text(no_wrap=True)
    if n > 10:  # the tens of each column number, over its units
        tens = "".join(str(column // 10) if column >= 10 else " " for column in range(n))
        text.append(" " * gutter + tens + "   " + tens + "\n", style="bold")
    units = "".join(str(column % 10) for column in range(n))
    text.append(" " * gutter + units + "   " + units + "\n", style="bold")
    for index in range(n):
        picked = index == row
        label = short_label(tokens[index], LABEL_CELLS)
        mark = "▶" if picked else ("◆" if index == answer_row else " ")
        text.append(str(index).rjust(index_width) + " ", style="bold reverse" if picked else "bold")
        text.append(label + " " * (LABEL_CELLS - cell_len(label)), style="reverse" if picked else "")
        text.append(f"{mark} ", style="bold")
        for weight in matrix[index]:
            glyph = shade(weight)
            text.append(glyph, style="dim" if glyph == "·" else SHADE_STYLE)
        text.append("   ")
        for blocked in mask[index]:
            text.append(
                "1" if blocked else "0", style=(BLOCKED if blocked else VISIBLE) + (" bold" if picked else "")
            )
        text.append("\n")
    text.rstrip()
    return text


def looks_at(view, row: int, layer: int | None, head: int | None, lang: str) -> Text:
    """Where row ``row`` of one model puts its weight: left, itself, right, and the keys
    it weighs most."""
    weights = view.matrix(layer, head)[row]
    left = float(weights[:row].sum())
    right = float(weights[row + 1 :].sum())
    top = listing(
        (
            t("tl-attn-top", lang, token=view.tokens[column], column=column, weight=f"{weight:.0%}")
            for column, weight in view.top(row, layer, head)
        ),
        lang,
    )
    colon = pick(L(": ", "："), lang)
    line = Text(f"{pick(OBJECTIVE_NAMES[view.objective], lang)}{colon}", style=STYLES[view.objective])
    line.append(
        t(
            "tl-attn-looks",
            lang,
            row=row,
            token=view.tokens[row],
            left=f"{left:.0%}",
            right=f"{right:.0%}",
            top=top,
        )
    )
    return line


class TrainLabFigure(Figure):
    ACTION_KEYS = {  # the labels of this figure's own actions (tui.bindings)
        "probe_box": "key-probe-box",
        "model(-1)": "key-attention-model",
        "model(1)": "key-attention-model",
        "row(-1)": "key-attention-row",
        "row(1)": "key-attention-row",
        "layer": "key-attention-layer",
        "head": "key-attention-head",
    }
    BINDINGS = [
        # priority: the steps box's own Ctrl+X (cut) and a focused button must not eat them
        Binding("ctrl+s", "start", "train", show=False, priority=True),
        Binding("ctrl+x", "cancel", "cancel", show=False, priority=True),
        Binding("p", "probe_box", "probe", show=False),
        Binding("left", "model(-1)", "model ←", show=False),
        Binding("right", "model(1)", "model →", show=False),
        Binding("up", "row(-1)", "row ↑", show=False),
        Binding("down", "row(1)", "row ↓", show=False),
        Binding("l", "layer", "layer", show=False),
        Binding("h", "head", "head", show=False),
    ]
    DEFAULT_CSS = """
    TrainLabFigure #tl-objectives, TrainLabFigure #tl-settings { height: auto; }
    TrainLabFigure .tl-label { width: auto; height: 3; content-align: left middle; padding-right: 1; }
    TrainLabFigure #tl-objectives .tl-label { height: 1; }
    TrainLabFigure GlyphCheckbox { width: auto; border: none; padding: 0 1 0 0; height: 1; }
    /* Textual's focus border is two lines tall: in a one-line box it hid the box and its
       label. Focus shows as the highlighted label, as Textual draws it anyway. */
    TrainLabFigure GlyphCheckbox:focus { border: none; }
    TrainLabFigure #tl-steps { width: 12; }
    TrainLabFigure #tl-corpus { width: 32; }
    TrainLabFigure #tl-own { height: auto; }
    TrainLabFigure #tl-own-source { width: 1fr; max-width: 44; }
    TrainLabFigure #tl-own-hint { color: $text-muted; }
    TrainLabFigure Button { min-width: 10; margin-right: 1; }
    TrainLabFigure #tl-buttons { height: auto; }
    TrainLabFigure ProgressBar { margin: 0 0; }
    TrainLabFigure #tl-probe { width: 1fr; }
    TrainLabFigure #tl-attn-title { margin-top: 1; }
    TrainLabFigure.narrow #tl-objectives { layout: grid; grid-size: 3; grid-columns: auto; grid-rows: auto; }
    TrainLabFigure.narrow #tl-corpus { width: 20; }
    """
    NARROW = 78  # below this many columns the objectives take two lines

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.curves: dict[str, list[float]] = {}
        self.done_steps = 0
        self.total_steps = 1
        self.training = False
        self.cancel_event = threading.Event()
        self.result: dict | None = None
        self.saved = None  # the models to probe (exercises.training.runs.SavedRun)
        self.started_at = 0.0
        self.first_point_seconds: float | None = None
        self.status_key = "tl-ready"
        self.status_params: dict = {}
        self.steps_for_chart = DEFAULT_STEPS
        self.ln_v = 0.0
        self.probe_result: dict | None = None
        # the attention view: every model's map of one text, and where the learner looks
        self.attention: dict | None = None  # objective -> engine.train_lab.AttentionMap
        self.attention_text = ""
        self.attention_seconds: float | None = None  # asked -> drawn (benchmarks/train.py)
        self.attn_model = "clm"
        self.attn_row = 0
        self.attn_layer: int | None = None  # None: the last layer
        self.attn_head: int | None = None  # None: the mean of the heads
        self._attn_asked = 0.0
        # train with my code: the learner's passing code-lab files (task -> path), read on
        # mount and again before each run (a file edited since its check no longer counts)
        self.own_ready: dict[str, object] = {}
        self.own_folder = None

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="tl-intro")
        with Horizontal(id="tl-objectives"):
            yield Static(markup=False, classes="tl-label", id="tl-objectives-label")
            for name in OBJECTIVES:
                yield GlyphCheckbox("", value=name in ("clm", "mlm"), id=f"tl-{name}")
        with Horizontal(id="tl-settings"):
            yield Static(markup=False, classes="tl-label", id="tl-steps-label")
            yield Input(str(DEFAULT_STEPS), id="tl-steps", restrict=r"[0-9０-９]*", max_length=6)
            yield Static(markup=False, classes="tl-label", id="tl-corpus-label")
            lang = self.app.lang
            corpus = lang if lang in CORPORA else CORPORA[0]  # the learner's language's toy language
            options = [(pick(CORPUS_NAMES[name], lang), name) for name in CORPORA]
            yield Select(options, value=corpus, allow_blank=False, id="tl-corpus")
            self._corpus_lang = lang
        with Horizontal(id="tl-own"):
            yield Static(markup=False, classes="tl-label", id="tl-own-label")
            yield Select(self._own_options(lang), value=NO_OWN, allow_blank=False, id="tl-own-source")
        yield Static(markup=False, id="tl-own-hint")
        with Horizontal(id="tl-buttons"):
            yield Button("", id="tl-start", variant="primary")
            yield Button("", id="tl-cancel", variant="error", disabled=True)
            yield Static(markup=False, id="tl-status")
        yield ProgressBar(total=1, show_eta=False, id="tl-progress")
        yield Static(markup=False, id="tl-chart")
        yield Static(markup=False, classes="output", id="tl-table")
        yield Input(placeholder="", id="tl-probe", max_length=2000)
        yield Static(markup=False, id="tl-probe-out")
        yield Static(markup=False, id="tl-attn-title")
        yield Static(markup=False, id="tl-attn-read")  # above the grid: read while moving the row
        yield Static(markup=False, id="tl-attn")
        yield Static(markup=False, id="tl-rules")
        yield Static(markup=False, classes="error")

    def on_resize(self) -> None:
        super().on_resize()
        self.set_class(self.size.width < self.NARROW, "narrow")  # nothing cut at 60 columns

    def on_mount(self) -> None:
        from exercises.training.runs import last_table

        self._refresh_own()
        relabel(self.query_one("#tl-own-source", Select), self._own_options(self.lang), keep=NO_OWN)
        self._own_lang = self.lang
        self.result = last_table()  # the last run's table, until a new run replaces it
        # Torch's first optimizer costs seconds of imports: paid while the learner reads, not
        # after Train (a daemon thread: quitting never waits for it).
        threading.Thread(target=_warm_up, name="train-lab-warm-up", daemon=True).start()
        super().on_mount()
        self.set_interval(0.1, self._tick)

    # -- drawing ------------------------------------------------------------------

    def waiting(self) -> None:
        self._labels()
        self.query_one("#tl-table", Static).update(t("waiting-engine", self.lang))

    def redraw(self) -> None:
        self._labels()
        self._draw_chart()
        self._draw_table()
        self._draw_probe()
        self._draw_attention()
        if self.attention is None and self.result is not None and not self.training:
            self.ask_attention(self.attention_text or self._example())

    def _labels(self) -> None:
        lang = self.lang
        self.query_one("#tl-intro", Static).update(t("tl-intro", lang))
        self.query_one("#tl-objectives-label", Static).update(t("tl-objectives", lang))
        for name in OBJECTIVES:
            self.query_one(f"#tl-{name}", GlyphCheckbox).label = pick(SHORT_NAMES[name], lang)
        self.query_one("#tl-steps-label", Static).update(t("tl-steps", lang))
        self.query_one("#tl-corpus-label", Static).update(t("tl-corpus", lang))
        self.query_one("#tl-own-label", Static).update(t("tl-own", lang))
        self._own_hint()
        if getattr(self, "_own_lang", None) != lang:
            relabel(self.query_one("#tl-own-source", Select), self._own_options(lang))
            self._own_lang = lang
        self.query_one("#tl-start", Button).label = t("tl-start", lang)
        self.query_one("#tl-cancel", Button).label = t("tl-cancel", lang)
        self.query_one("#tl-probe", Input).placeholder = t("tl-probe-placeholder", lang)
        self.query_one("#tl-status", Static).update(t(self.status_key, lang, **self.status_params))
        if getattr(self, "_corpus_lang", None) != lang:
            chosen = self._corpus()
            if chosen == getattr(self, "_corpus_lang", None) and lang in ("zh", "en") and self.result is None:
                # Left on the old language's own toy language and nothing trained yet: it
                # follows, as a sentence does. After a run it stays: the rules below and the
                # next Train are about the models on screen.
                chosen = lang
            relabel(
                self.query_one("#tl-corpus", Select),
                [(pick(CORPUS_NAMES[name], lang), name) for name in CORPORA],
                keep=chosen,
            )
            self._corpus_lang = lang
        self.query_one("#tl-rules", Static).update(
            t("tl-rules-title", lang) + "\n" + rules_text(self._corpus(), lang)
        )

    # -- train with my code ---------------------------------------------------------

    def _refresh_own(self) -> None:
        """Which of the learner's code-lab files can build batches now (their file, as it
        is, passed its last check), in the folder the code lab last used."""
        from exercises.training.own_code import ready
        from tui.screens.lab import lab_folder

        try:
            self.own_folder = lab_folder(self.app)
            self.own_ready = {source.task: source for source in ready(self.own_folder)}
        except Exception:  # an unreadable progress file: no own code offered, nothing breaks
            self.own_ready = {}

    def _own_options(self, lang: str) -> list[tuple[Text, str]]:
        """The choices, as plain text (a Select reads a str as markup: "[MASK]" would vanish)."""
        options = [(t("tl-own-none", lang), NO_OWN)]
        options += [
            (pick(label_of(f"{TASK_OBJECTIVE[task]}:{MINE}"), lang), f"mine:{task}")
            for task in self.own_ready
        ]
        options += [(pick(bug.name, lang), f"bug:{bug.slug}") for bug in BUGS]
        options.append((t("tl-own-every-bug", lang), EVERY_BUG))
        return [(Text(label), value) for label, value in options]

    def _own_hint(self) -> None:
        lang = self.lang
        if self.own_ready:
            names = pick(L(", ", "、"), lang).join(self.own_ready)
            hint = t("tl-own-ready", lang, tasks=names)
        else:
            hint = t("tl-own-not-yet", lang, folder=str(self.own_folder or "~/objectives-lab"))
        self.query_one("#tl-own-hint", Static).update(hint)

    def own_sources(self) -> list | None:
        """The chosen sources, or None when the learner's file no longer passes."""
        from exercises.training.own_code import bug_source

        value = self.query_one("#tl-own-source", Select).value
        if value == EVERY_BUG:
            return [bug_source(bug.slug) for bug in BUGS]
        if isinstance(value, str) and value.startswith("bug:"):
            return [bug_source(value.removeprefix("bug:"))]
        if isinstance(value, str) and value.startswith("mine:"):
            task = value.removeprefix("mine:")
            return [self.own_ready[task]] if task in self.own_ready else None
        return []

    def _corpus(self) -> str:
        value = self.query_one("#tl-corpus", Select).value
        return value if isinstance(value, str) else CORPORA[0]

    def _example(self) -> str:
        """The lesson's sentence in the toy language the models were trained on."""
        corpus = self.result["settings"]["corpus"] if self.result else self._corpus()
        return EXAMPLES.get(corpus, EXAMPLES[CORPORA[0]])

    def _draw_chart(self) -> None:
        chart = self.query_one("#tl-chart", Static)
        if not self.curves:
            chart.update("")
            return
        width = max(self.size.width - 12, 16)
        text = loss_chart(self.curves, self.ln_v, self.steps_for_chart, width=min(width, 100))
        legend = Text("      ")
        for name in self.curves:
            legend.append(f"{curve_mark(name)} = {curve_name(name, self.lang)}  ", style=curve_style(name))
        legend.append("┈ = ln V", style="red")
        chart.update(Text.assemble(text, "\n", legend))

    def _draw_table(self) -> None:
        target = self.query_one("#tl-table", Static)
        if self.result is None:
            target.update("")
            return
        lang = self.lang
        header, rows = table_rows(self.result, lang)
        rows = merged_rows(self.result, (header, rows), lang)
        table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
        for index, name in enumerate(header):
            table.add_column(name, justify="left" if index == 0 else "right")
        baselines_from = len(rows) - 2  # chance and majority
        for index, row in enumerate(rows):
            table.add_row(*(Text(value) for value in row), style="dim" if index >= baselines_from else "")
        lines = Text("\n".join(notes(self.result, lang)), style="dim")
        failures = [line for entry in self.result.get("own", []) if (line := failure_line(entry, lang))]
        if failures:  # the learner's own words: plain text, never markup
            lines = Text.assemble(lines, "\n", Text("\n".join(failures), style="bold red"))
        target.update(Group(table, lines))

    def _draw_probe(self) -> None:
        from tui.commands.train import probe_text  # the command line's lines, in colour

        target = self.query_one("#tl-probe-out", Static)
        result = self.probe_result
        target.update("" if result is None else probe_text(result, self.lang, STYLES))

    def _draw_attention(self) -> None:
        title = self.query_one("#tl-attn-title", Static)
        grid = self.query_one("#tl-attn", Static)
        read = self.query_one("#tl-attn-read", Static)
        if not self.attention:
            for static in (title, grid, read):
                static.update("")
            return
        lang = self.lang
        view = self.attention[self.attn_model]
        layer = self.attn_layer
        head = self.attn_head
        shown_layer = view.layers if layer is None else layer + 1
        which = t("attention-mean-heads", lang) if head is None else t("attention-head", lang, head=head + 1)
        heading = Text(t("tl-attn-title", lang), style="bold")
        heading.append("\n" + t("tl-attn-keys", lang), style="dim")
        heading.append("\n")
        heading.append(pick(OBJECTIVE_NAMES[view.objective], lang), style=STYLES[view.objective])
        heading.append(
            " · "
            + t("attention-layer", lang, layer=shown_layer)
            + " · "
            + which
            + " · "
            + t("tl-attn-mask", lang)
        )
        heading.append("\n" + t("tl-attn-legend", lang), style="dim")
        title.update(heading)
        matrix = view.matrix(layer, head).tolist()
        grid.update(
            attention_grid(matrix, view.mask.int().tolist(), view.tokens, self.attn_row, view.answer_row)
        )
        lines = Text()
        if view.answer_row is not None:
            lines.append(
                t("attention-answer-row", lang, row=view.answer_row, token=view.tokens[view.answer_row])
                + "\n",
                style="dim",
            )
        lines.append_text(looks_at(view, self.attn_row, layer, head, lang))
        for name, other in self.attention.items():  # the same row of the models that read the same text
            if name != view.objective and other.tokens == view.tokens:
                lines.append("\n")
                lines.append_text(looks_at(other, self.attn_row, layer, head, lang))
        read.update(lines)
        if self._attn_asked and self.attention_seconds is None:
            self.attention_seconds = time.perf_counter() - self._attn_asked

    def _status(self, key: str, **params) -> None:
        self.status_key, self.status_params = key, params
        self.query_one("#tl-status", Static).update(t(key, self.lang, **params))

    # -- the attention view: keys --------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("model", "row", "layer", "head"):
            return bool(self.attention)  # otherwise the arrows scroll the figure
        return super().check_action(action, parameters)

    def action_probe_box(self) -> None:
        self.query_one("#tl-probe", Input).focus()

    def _reveal_row(self) -> None:
        """Scroll the figure so that the picked row of the grid is on screen (the view
        sits below the table and the probe: at 80x24 it starts off screen)."""
        from textual.geometry import Region, Spacing

        if not self.attention:
            return
        grid = self.query_one("#tl-attn", Static)
        header = 2 if len(self.attention[self.attn_model].tokens) > 10 else 1
        region = Region(0, header + self.attn_row, grid.size.width or 1, 1)
        widget = grid
        while widget.parent is not None and widget is not self.screen:
            region = region.translate(widget.virtual_region.offset)
            container = widget.parent
            if container.is_scrollable and container.allow_vertical_scroll:
                container.scroll_to_region(region, spacing=Spacing(2, 0, 2, 0), animate=False, immediate=True)
                return
            widget = container

    def _moved(self) -> None:
        self._draw_attention()
        self.call_after_refresh(self._reveal_row)

    def action_model(self, step: int) -> None:
        names = list(self.attention or {})
        if not names:
            return
        index = names.index(self.attn_model) if self.attn_model in names else 0
        self.attn_model = names[(index + step) % len(names)]
        self.attn_row = min(self.attn_row, len(self.attention[self.attn_model].tokens) - 1)
        self._moved()

    def action_row(self, step: int) -> None:
        if self.attention:
            last = len(self.attention[self.attn_model].tokens) - 1
            self.attn_row = min(last, max(0, self.attn_row + step))
            self._moved()

    def action_layer(self) -> None:
        if self.attention:
            layers = self.attention[self.attn_model].layers
            current = layers - 1 if self.attn_layer is None else self.attn_layer
            self.attn_layer = (current + 1) % layers
            self._moved()

    def action_head(self) -> None:
        """The mean of the heads, then each head in turn."""
        if self.attention:
            heads = self.attention[self.attn_model].heads
            self.attn_head = (
                0 if self.attn_head is None else (None if self.attn_head + 1 >= heads else self.attn_head + 1)
            )
            self._moved()

    # -- training -----------------------------------------------------------------

    def chosen(self) -> list[str]:
        return [name for name in OBJECTIVES if self.query_one(f"#tl-{name}", GlyphCheckbox).value]

    def budget(self) -> int | None:
        import unicodedata

        text = unicodedata.normalize("NFKC", self.query_one("#tl-steps", Input).value).strip()
        return int(text) if text.isdigit() and 1 <= int(text) <= APP_MAX_STEPS else None

    @on(Button.Pressed, "#tl-start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#tl-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    @on(Input.Submitted, "#tl-steps")
    def _steps_submitted(self) -> None:
        self.action_start()

    @on(Select.Changed, "#tl-corpus")
    def _corpus_changed(self) -> None:
        self.query_one("#tl-rules", Static).update(
            t("tl-rules-title", self.lang) + "\n" + rules_text(self._corpus(), self.lang)
        )

    def action_start(self) -> None:
        if self.training:
            return
        objectives, steps = self.chosen(), self.budget()
        self._refresh_own()
        self._own_hint()
        sources = self.own_sources()
        if sources is None:
            self._status("tl-own-not-passing")
            return
        objectives += [name for name in dict.fromkeys(s.objective for s in sources) if name not in objectives]
        if not objectives:
            self._status("tl-pick-one")
            return
        if steps is None:
            self._status("tl-bad-steps", most=APP_MAX_STEPS)
            return
        gate = getattr(self.app, "training_gate", None)  # a class session: the teacher's setting decides
        if gate is not None and not gate.enabled:
            self._status("tl-class-off")
            return
        if gate is not None and steps > gate.max_steps:
            self._status("tl-class-budget", steps=gate.max_steps)
            return
        self.training = True
        self.cancel_event.clear()
        self.curves = {name: [] for name in [*objectives, *(source.run_key for source in sources)]}
        self.result = None
        self.attention = None
        self.done_steps, self.total_steps = 0, steps * len(self.curves)
        self.steps_for_chart = steps
        self.started_at = time.perf_counter()
        self.first_point_seconds = None
        self.query_one("#tl-progress", ProgressBar).update(total=self.total_steps, progress=0)
        cancel = self.query_one("#tl-cancel", Button)
        cancel.disabled = False
        self.query_one("#tl-start", Button).disabled = True
        if self.screen.focused is None or self.screen.focused.id in ("tl-start", None):
            cancel.focus()  # the pressed button goes grey: Enter on the focused one cancels
        self._status("tl-preparing")
        self._draw_table()
        self._draw_attention()
        corpus = self._corpus()
        if any(source.key == MINE for source in sources):
            from tui.sandbox_notice import notify_unisolated

            notify_unisolated(self.app)  # as the code lab does: said once where code is not isolated
        self.run_worker(
            lambda: self._train(objectives, steps, corpus, sources),
            thread=True,
            exclusive=True,
            group="train-lab",
        )

    def action_cancel(self) -> None:
        if self.training:
            self.cancel_event.set()
            self._status("tl-cancelling")

    def _train(self, objectives: list[str], steps: int, corpus: str, sources: list | None = None) -> None:
        """In a worker thread: build the data, train each objective, then each own-code
        source (in the lab's sandbox), save the run."""
        try:
            import math

            from engine.toy_corpus import vocabulary
            from engine.train_lab import LabSettings, run_lab
            from exercises.training.runs import save_run

            self.ln_v = math.log(len(vocabulary(corpus)))
            settings = LabSettings(corpus=corpus, objectives=tuple(objectives), steps=steps)

            def on_step(name: str, step: int, loss: float) -> None:
                self.curves[name].append(loss)
                self.done_steps += 1

            gate = getattr(self.app, "training_gate", None)
            slot = None
            if gate is not None:  # a class server: one of the host's training slots, in turn
                slot = gate.acquire(
                    self.cancel_event.is_set,
                    lambda: self.app.call_from_thread(self._status, "tl-class-queue"),
                )
                if slot is None:
                    self.app.call_from_thread(self._finished, None, "tl-cancelled")
                    return
            try:
                if sources:
                    from exercises.training.own_code import warm_up

                    warm_up()  # the sandbox's fork server starts while the reference models train
                run = run_lab(settings, on_step=on_step, should_stop=self.cancel_event.is_set)
                if sources and not any(trained.cancelled for trained in run.models.values()):
                    from exercises.training.own_code import train_sources

                    own_runs = train_sources(sources, settings, on_step, self.cancel_event.is_set, run.data)
                else:
                    own_runs = []
            finally:
                if slot is not None:
                    slot.release()
            cancelled = any(entry.status == "cancelled" for entry in own_runs)
            if cancelled or any(trained.cancelled for trained in run.models.values()):
                self.app.call_from_thread(self._finished, None, "tl-cancelled")
                return
            own = [entry.to_json() for entry in own_runs]
            result = run.to_json()
            if own:
                result["own"] = own
            try:
                save_run(run, own=own)
                from exercises.training.runs import load_run

                self.saved = load_run()
            except Exception:  # could not save: probe this session's models anyway
                self.saved = _saved_from(run)
            failed = [entry for entry in own if entry["status"] == "failed"]
            self.app.call_from_thread(self._finished, result, "tl-own-failed" if failed else "tl-done")
        except Exception as error:  # shown, never a crash
            self.app.call_from_thread(self._finished, None, "tl-failed", f"{type(error).__name__}: {error}")

    def _finished(self, result: dict | None, key: str, error: str = "") -> None:
        self.training = False
        self.query_one("#tl-start", Button).disabled = False
        self.query_one("#tl-cancel", Button).disabled = True
        if result is not None:
            self.result = result
        seconds = time.perf_counter() - self.started_at
        self._status(key, seconds=f"{seconds:.1f}", error=error)
        self._tick()
        self._draw_table()
        if result is not None:
            self.post_message(TrainLabFigure.Trained(result))
            # The figure's keys, as its first line says: p for the probe box, the arrows, l and
            # h for the attention view. (Focusing the probe box here made the p of "press p"
            # the probe's first letter.)
            self.focus(scroll_visible=False)
            self.ask_attention(self.attention_text or self._example())

    def _tick(self) -> None:
        if not self.curves:
            return
        if self.first_point_seconds is None and any(self.curves.values()):
            self.first_point_seconds = time.perf_counter() - self.started_at
        if self.training:
            self.query_one("#tl-progress", ProgressBar).update(progress=self.done_steps)
            current = next((name for name, losses in reversed(self.curves.items()) if losses), None)
            if current is not None and not self.cancel_event.is_set():
                self._status(
                    "tl-training",
                    objective=curve_name(current, self.lang),
                    loss=f"{self.curves[current][-1]:.2f}",
                )
        self._draw_chart()

    # -- probing ------------------------------------------------------------------

    @on(Input.Submitted, "#tl-probe")
    def _probe_submitted(self, event: Input.Submitted) -> None:
        prompt = event.value.strip()
        if not prompt:
            return
        self._attn_asked = time.perf_counter()
        self.attention_seconds = None
        self.run_worker(lambda: self._probe(prompt), thread=True, exclusive=True, group="train-probe")

    def ask_attention(self, text: str) -> None:
        """Every model's attention on ``text`` (in a worker: the first call loads the run)."""
        self._attn_asked = time.perf_counter()
        self.attention_seconds = None
        self.run_worker(
            lambda: self._probe(text, answers=False), thread=True, exclusive=True, group="train-probe"
        )

    def _models(self):
        """The saved run to ask, or None (then the learner is told why)."""
        if self.saved is None:
            from exercises.training.runs import RunUnreadable, load_run

            try:
                self.saved = load_run()
            except RunUnreadable as error:
                self.app.call_from_thread(
                    self.show_error,
                    t("train-unreadable", self.lang, why=error, moved=error.moved_to or "-"),
                )
                return None
        return self.saved

    def _probe(self, prompt: str, answers: bool = True) -> None:
        try:
            saved = self._models()
            if saved is None:
                if answers:
                    self.app.call_from_thread(self._status, "tl-train-first")
                return
            from tui.commands.train import attention_maps, probe_answers

            result = probe_answers(saved, prompt, self.lang) if answers else None
            maps = attention_maps(saved, prompt, self.lang)
        except Exception as error:  # a prompt the models cannot read: say so
            from tui.i18n import error_text

            message = error_text(error, self.lang)
            self.app.call_from_thread(self.show_error, message)
            return
        self.app.call_from_thread(self._probe_done, result, maps, prompt)

    def _probe_done(self, result: dict | None, maps: dict, prompt: str) -> None:
        self.clear_error()
        if result is not None:
            self.probe_result = result
            self._draw_probe()
        text_changed = prompt != self.attention_text or not self.attention
        self.attention, self.attention_text = maps, prompt
        if self.attn_model not in maps:
            self.attn_model = next(iter(maps))
        if text_changed:  # the cursor starts on the row that answers
            answer = maps[self.attn_model].answer_row
            self.attn_row = answer if answer is not None else len(maps[self.attn_model].tokens) - 1
        self.attn_row = min(self.attn_row, len(maps[self.attn_model].tokens) - 1)
        self._draw_attention()

    class Trained(Message):
        """A run finished: its table (exercises graded against it may listen)."""

        def __init__(self, result: dict) -> None:
            super().__init__()
            self.result = result


def _warm_up() -> None:
    try:
        from engine.train_lab import warm_up

        warm_up()
    except (ImportError, OSError, RuntimeError):  # a broken torch: Train will say so, in words
        return


def _saved_from(run):
    from exercises.training.runs import SavedRun

    return SavedRun(
        run.to_json(), run.settings, run.data.vocab, {n: m.model for n, m in run.models.items()}, "", None
    )
