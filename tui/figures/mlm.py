"""Masked LM, live: a sentence wrapped in [CLS] ... [SEP] under BERT's rule,
each position's fate, input and label; and the lesson's run over a batch whose
counts approach 80/10/10 as the batch grows."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from engine.settings import MASK_RATE
from tui.figures.base import Figure, default_sentence
from tui.i18n import t
from tui.widgets.text_input import TextInput

BATCHES = (4, 16, 64, 256, 1024, 4096)
FATE_STYLE = {"mask": "bold cyan", "random": "bold magenta", "keep": "bold yellow"}


class MlmFigure(Figure):
    PREDICTS = True
    KEYS = "fig-mlm-keys"
    EDIT_BOX = "mlm-text"
    BINDINGS = [
        Binding("minus", "p(-0.05)", "p −", show=False),
        Binding("plus,equals_sign", "p(0.05)", "p +", show=False),
        Binding("left_square_bracket", "batch(-1)", "batch −", show=False),
        Binding("right_square_bracket", "batch(1)", "batch +", show=False),
        Binding("r", "resample", "resample", show=False),
        Binding("w", "wrap", "[CLS]…[SEP]", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.p = MASK_RATE
        self.seed = 0
        self.batch_index = 0
        self.wrapped = False

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="mlm-keys")
        yield Static(markup=False, classes="output", id="mlm-settings")
        yield TextInput(value=default_sentence(self.app.lang), id="mlm-text")
        yield Static(markup=False, classes="output", id="mlm-table")
        yield Static(markup=False, classes="output", id="mlm-sentence-counts")
        yield Static(markup=False, classes="output readout", id="mlm-counts")
        yield Static(markup=False, classes="error")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_figure()

    def action_p(self, step: float) -> None:
        self.p = round(min(1.0, max(0.0, self.p + step)), 2)
        self.refresh_figure()

    def action_batch(self, step: int) -> None:
        self.batch_index = min(len(BATCHES) - 1, max(0, self.batch_index + step))
        self.refresh_figure()

    def action_wrap(self) -> None:
        self.wrapped = not self.wrapped
        self.refresh_figure()

    def action_resample(self) -> None:
        self.seed += 1
        self.refresh_figure()

    def ask(self):
        from exercises.predictions import mlm_loss

        return mlm_loss(self.query_one("#mlm-text", Input).value, self.seed, self.p, self.wrapped)

    def context(self, question) -> tuple:
        return (self.query_one("#mlm-text", Input).value, self.seed, self.p, self.wrapped)

    def _guess_marks(self, n: int) -> list[Text]:
        """Per position, the guess against the engine: ✓, or what the guess got wrong."""
        if self.marks is None:
            return [Text("")] * n
        question, verdict = self.marks
        given, expected = set(verdict.given), set(question.expected)
        out = []
        for position in range(n):
            if position in given and position in expected:
                out.append(Text("✓", style="bold green"))
            elif position in expected:
                out.append(Text("✗ " + t("predict-missed", self.lang), style="bold yellow"))
            elif position in given:
                out.append(Text("✗ " + t("no-loss", self.lang), style="bold yellow"))
            else:
                out.append(Text(""))
        return out

    def redraw(self) -> None:
        from engine.samples import mlm_sample

        lang = self.lang
        text = self.query_one("#mlm-text", Input).value
        sample = mlm_sample(text, seed=self.seed, p=self.p, add_cls_sep=self.wrapped)
        self.show_keys()
        self.show_settings()
        self.query_one("#mlm-table", Static).update(self._table(sample))
        # The sentence's own counts, as `show sample mlm` prints them: they agree with the table.
        counts = sample.counts
        sentence = self.query_one("#mlm-sentence-counts", Static)
        sentence.update(t("mlm-counts", lang, total=sum(counts.values()), **counts))
        sentence.display = not self.hiding  # how many were selected is part of the answer
        self.query_one("#mlm-counts", Static).update(self._batch_counts())
        self.clear_error()

    def show_settings(self) -> None:
        lang = self.lang
        self.query_one("#mlm-settings", Static).update(
            f"p = {self.p:.2f} · {t('fig-seed', lang, seed=self.seed)} · × = {t('special', lang)}"
        )

    def _table(self, sample) -> Table:
        """The sentence position by position, marked as `show sample mlm` marks it (✓
        selected, × special, the label or -100). Every cell is Text: a typed "[b]" is a
        token, not a style."""
        lang = self.lang
        table = Table(box=None, header_style="bold", pad_edge=False)
        headers = ["position", "token", "selected", "fate", "input", "label"]
        if self.hiding:  # "selected" and "label" are the answer
            headers = ["position", "token", "fate", "input"]
        for header in headers:
            table.add_column(t(header, lang), no_wrap=True, max_width=18, justify="left")
        guesses = self._guess_marks(len(sample.tokens))
        if self.marks is not None:
            table.add_column(t("predict-column", lang), no_wrap=True)
        fate_words = {
            "mask": t("fate-mask", lang),
            "random": t("fate-random", lang),
            "keep": t("fate-keep", lang),
        }
        for position, token in enumerate(sample.tokens):
            fate = sample.fates[position]
            if not sample.eligible[position]:
                mark = Text("×", style="dim")
            else:
                mark = Text("✓", style="bold") if sample.selected[position] else Text("")
            fate_text = Text(fate_words.get(fate, ""), style=FATE_STYLE.get(fate, ""))
            if fate == "random" and sample.inputs[position] == token:
                # The draw covers every ordinary token (the engine leaves out the specials), the original too.
                fate_text.append(" " + t("fig-mlm-same", lang), style="magenta")
            label = sample.labels[position]
            cells = [
                Text(str(position)),
                Text(token),
                mark,
                fate_text,
                Text(sample.inputs[position], style=FATE_STYLE.get(fate, "")),
                Text(label) if label else Text(t("no-loss", lang), style="dim"),
            ]
            if self.hiding:
                cells = [cells[0], cells[1], cells[3], cells[4]]
            elif self.marks is not None:
                cells.append(guesses[position])
            table.add_row(*cells)
        return table

    def _batch_counts(self) -> Text:
        """The same rule over a whole batch of random ids, apart from the sentence above
        (a handful of tokens cannot show 80/10/10; thousands can). It is the course
        notes' run only at the notes' settings."""
        from engine.textbook import mlm_run

        lang = self.lang
        batch = BATCHES[self.batch_index]
        counts = mlm_run(seed=self.seed, batch=batch, seq_len=8, p=self.p).counts()
        total = sum(counts.values())

        def share(n: int) -> str:
            return f"{100 * n / total:.1f}%" if total else "-"

        notes = (self.seed, batch, self.p) == (0, BATCHES[0], MASK_RATE)
        out = Text(
            t("fig-mlm-batch-notes" if notes else "fig-mlm-batch", lang, batch=batch, length=8), style="bold"
        )
        out.append(
            "\n"
            + t(
                "fig-mlm-counts",
                lang,
                total=total,
                mask=counts["mask"],
                random=counts["random"],
                keep=counts["keep"],
                mp=share(counts["mask"]),
                rp=share(counts["random"]),
                kp=share(counts["keep"]),
            )
        )
        return out
