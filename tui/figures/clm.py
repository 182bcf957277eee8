"""Causal LM, live: the course's CLM run with a length control (8 -> 4), its
labels in both layouts (data-side and loss-side, taken from the engine), the
causal mask, and the loss against ln V + sigma^2/2 with the 1/sqrt(d) scaling
switchable."""

from __future__ import annotations

import functools

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from exercises.items.loss_sanity import verdict as loss_verdict
from tui.figures.base import Figure
from tui.i18n import t
from tui.widgets.mask_view import MAX_POSITIONS, MaskView, grid_width

MIN_LENGTH, MAX_LENGTH = 2, MAX_POSITIONS  # the cap is stated once, by MaskView


@functools.lru_cache(maxsize=128)
def _lesson_run(seed: int, length: int):
    """The lesson's CLM run; cached, so toggling the scaling or stepping back is instant."""
    from engine.textbook import clm_run

    return clm_run(seed=seed, seq_len=length)


class ClmFigure(Figure):
    PREDICTS = True
    KEYS = "fig-clm-keys"
    BINDINGS = [
        Binding("minus", "length(-1)", "length −", show=False),
        Binding("plus,equals_sign", "length(1)", "length +", show=False),
        Binding("d", "toggle_scaling", "1/√d", show=False),
        Binding("r", "reseed", "seed", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.length = 8
        self.scaled = True
        self.seed = 0

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="clm-keys")
        yield Static(markup=False, classes="output", id="clm-ids")
        yield Static(markup=False, classes="output readout", id="clm-loss")
        with Horizontal(classes="row", id="clm-row"):
            yield Static(markup=False, classes="output side", id="clm-table")
            yield MaskView(classes="output", id="clm-mask")
        yield Static(markup=False, classes="error")

    def action_length(self, step: int) -> None:
        self.length = min(MAX_LENGTH, max(MIN_LENGTH, self.length + step))
        self.refresh_figure()

    def action_toggle_scaling(self) -> None:
        self.scaled = not self.scaled
        self.refresh_figure()

    def action_reseed(self) -> None:
        self.seed += 1
        self.refresh_figure()

    def ask(self):
        from exercises.predictions import clm_label, pick_row

        run = _lesson_run(self.seed, self.length)
        position = pick_row(self.length - 1, self.rounds)
        return clm_label(run.input_ids[0].tolist(), run.labels[0].tolist(), position, self.seed)

    def context(self, question) -> tuple:
        return (self.seed, self.length, question.row)

    def key_line(self) -> str:
        return super().key_line() + "\n" + t("fig-mask-legend", self.lang)  # the mask's, on its own line

    def redraw(self) -> None:
        lang = self.lang
        run = _lesson_run(self.seed, self.length)
        self.show_keys()
        ids = run.input_ids.tolist()
        header = Text(
            f"{t('fig-length', lang)} {self.length} · {t('fig-seed', lang, seed=self.seed)} · ", style="bold"
        )
        header.append(t("fig-scaling-on" if self.scaled else "fig-scaling-off", lang, d=run.hidden_dim))
        room = self.scrollable_content_region.width or 76
        for index, row in enumerate(ids):
            label = t("fig-clm-rows", lang, row=index)
            shown = max(3, min(10, (room - cell_len(label) - 3) // 6))  # one line each, "…" for the rest
            header.append("\n" + label, style="dim")
            header.append(" " + " ".join(f"{v:5d}" for v in row[:shown]) + (" …" if len(row) > shown else ""))
        self.query_one("#clm-ids", Static).update(header)
        loss = run.loss if self.scaled else run.loss_unscaled
        verdict = t("fig-clm-ok" if loss_verdict(loss, run.vocab_size) == "normal" else "fig-clm-bad", lang)
        readout = Text(
            t("fig-clm-loss", lang, loss=loss, baseline=run.baseline, V=run.vocab_size, verdict=verdict),
            style="bold green" if self.scaled else "bold red",
        )
        if self.scaled:
            expected = run.baseline + run.logit_variance / 2
            readout.append(
                "\n"
                + t(
                    "fig-clm-variance",
                    lang,
                    var=run.logit_variance,
                    expected=expected,
                    count=run.counted_positions,
                ),
                style="dim",
            )
        readout.append("\n" + t("fig-clm-layouts", lang), style="dim")
        self.query_one("#clm-loss", Static).update(readout)
        table = _layout_table(run, lang, self.hiding, self.marks)
        self.query_one("#clm-table", Static).update(table)
        self.place_side_by_side(self.query_one("#clm-row"), table, grid_width(self.length))
        self.query_one("#clm-mask", MaskView).show(
            run.causal_mask.int().tolist(),
            cap_message=t("matrix-cap", lang, n=self.length, cap=MAX_POSITIONS),
        )
        self.clear_error()


def _layout_table(run, lang: str, hide_labels: bool = False, marks=None) -> Table:
    """Row 0 of the run in both layouts, side by side, each under its own title (one
    title over both drifted off the "│" between them). Data-side labels are the
    engine's shifted labels; loss-side labels are input_ids themselves, and the pairs
    are the engine's (logits[:, :-1] against labels[:, 1:]). Every position has its
    row: the figure scrolls, nothing is cut. While a prediction is open the labels are
    hidden; after it, the guessed row carries the guess."""
    from engine.clm import loss_side_pairs

    ids = run.input_ids[0].tolist()
    data_labels = run.labels[0].tolist()
    pairs = dict(loss_side_pairs(len(ids)))

    def half(title: str) -> Table:
        table = Table(box=None, header_style="bold", pad_edge=False, show_edge=False)
        table.title, table.title_justify, table.title_style = title, "left", "bold"
        return table

    data = half(t("fig-clm-data-side", lang))
    data.add_column(t("position", lang))
    data.add_column(t("input", lang), justify="right")
    data.add_column(t("label", lang), justify="right")
    loss = half(t("fig-clm-loss-side", lang))
    loss.add_column("input_ids", justify="right")
    loss.add_column("labels", justify="right")
    loss.add_column(t("fig-clm-pair", lang))
    guessed_row, guess = None, None
    if marks is not None:
        question, verdict = marks
        guessed_row, guess = question.row, (verdict.given[0] if verdict.given else None)
    for position in range(len(ids)):
        has_data_row = position < len(data_labels)
        pair = (
            Text(f"{position}→{pairs[position]}", style="green")
            if position in pairs
            else Text(t("fig-clm-unused", lang), style="dim")
        )
        label = Text(str(data_labels[position]) if has_data_row else "")
        if hide_labels and has_data_row:
            label = Text("?", style="bold")
        elif position == guessed_row and has_data_row:
            right = guess == data_labels[position]
            label = Text(
                f"{'✓' if right else '✗ ' + str(guess) + ' →'} ",
                style="bold green" if right else "bold yellow",
            )
            label.append(str(data_labels[position]), style="bold")
        data.add_row(str(position), str(ids[position]) if has_data_row else "", label)
        loss.add_row(
            str(ids[position]), "?" if hide_labels else str(ids[position]), "?" if hide_labels else pair
        )
    rule = Text("\n".join("│" * (len(ids) + 2)), style="dim")  # the title's line, the header's, the rows'
    both = Table.grid(padding=(0, 1))
    both.add_row(data, rule, loss)
    return both
