"""Subwords, live: a sentence cut by the course's WordPiece tokenizer (trained on the
course's text at the vocabulary size the learner picks), and BERT's masking of those
pieces two ways with the same draws: per piece, as BERT first did, and per whole word.
A word left half hidden by per-piece masking is marked: its visible pieces give it away."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Input, Static

from engine.settings import MASK_RATE
from tui.figures.base import Figure
from tui.i18n import t
from tui.widgets.text_input import TextInput

FATE_STYLE = {"mask": "bold cyan", "random": "bold magenta", "keep": "bold yellow"}
START_SEED = 5  # the course sentence at p = 0.15: per piece leaves "cor [MASK]…" half hidden
TEXT_LIMIT = 200  # characters the box takes (the engine refuses longer texts too)


class SubwordsFigure(Figure):
    ACTION_KEYS = {  # the labels of this figure's own actions (tui.bindings)
        "vocab(-1)": "key-vocab",
        "vocab(1)": "key-vocab",
        "p(-0.05)": "key-p",
        "p(0.05)": "key-p",
        "resample": "key-resample",
    }
    BINDINGS = [
        Binding("minus", "vocab(-1)", "vocabulary −", show=False),
        Binding("plus,equals_sign", "vocab(1)", "vocabulary +", show=False),
        Binding("left_square_bracket", "p(-0.05)", "p −", show=False),
        Binding("right_square_bracket", "p(0.05)", "p +", show=False),
        Binding("r", "resample", "resample", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        from engine.subwords import DEFAULT_VOCAB, VOCAB_STEPS  # torch-free module

        self.steps = VOCAB_STEPS
        self.step = VOCAB_STEPS.index(DEFAULT_VOCAB)
        self.p = MASK_RATE
        self.seed = START_SEED

    def compose(self) -> ComposeResult:
        from engine.subwords import EN_TEXT

        yield Static(markup=False, classes="keys", id="sw-keys")
        yield TextInput(value=EN_TEXT[0], max_length=TEXT_LIMIT, id="sw-text")
        yield Static(markup=False, classes="output", id="sw-pieces")
        yield Static(markup=False, classes="output", id="sw-table")
        yield Static(markup=False, classes="output readout", id="sw-note")
        yield Static(markup=False, classes="error")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_figure()

    def action_vocab(self, step: int) -> None:
        self.step = min(len(self.steps) - 1, max(0, self.step + step))
        self.refresh_figure()

    def action_p(self, step: float) -> None:
        self.p = round(min(1.0, max(0.0, self.p + step)), 2)
        self.refresh_figure()

    def action_resample(self) -> None:
        self.seed += 1
        self.refresh_figure()

    def redraw(self) -> None:
        from engine.subwords import compare_masking, vocabulary_size

        lang = self.lang
        text = self.query_one("#sw-text", Input).value
        asked = self.steps[self.step]
        compared = compare_masking(text, vocab_size=asked, seed=self.seed, p=self.p, add_cls_sep=False)
        pieces = compared.pieces
        self.query_one("#sw-keys", Static).update(t("fig-sw-keys", lang))
        size, smallest = vocabulary_size(asked), vocabulary_size(0)
        head = Text(t("fig-sw-vocab", lang, size=size, chars=smallest), style="bold")
        head.append(
            "\n" + t("fig-sw-count", lang, words=pieces.word_count(), pieces=len(pieces.pieces)), style="dim"
        )
        head.append("\n")
        for index, piece in enumerate(pieces.pieces):
            if index:
                head.append(" ")
            split = pieces.words[index] >= 0 and pieces.words.count(pieces.words[index]) > 1
            head.append(piece, style="bold underline" if split else "")
        self.query_one("#sw-pieces", Static).update(head)

        per, whole = compared.per_piece, compared.whole_word
        table = Table(box=None, header_style="bold", pad_edge=False, show_edge=False)
        for header in ("position", "fig-sw-piece", "fig-sw-word", "fig-sw-per-piece", "fig-sw-whole-word"):
            table.add_column(t(header, lang), no_wrap=True, max_width=16)
        half_hidden = _half_hidden(pieces.words, per.selected)
        for index, piece in enumerate(pieces.pieces):
            word = pieces.words[index]
            table.add_row(
                str(index),
                piece,
                Text("×", style="dim") if word < 0 else str(word),
                _cell(per, index, index in half_hidden, lang),
                _cell(whole, index, False, lang),
            )
        self.query_one("#sw-table", Static).update(table)
        note = Text(t("fig-sw-settings", lang, p=self.p, seed=self.seed), style="dim")
        if half_hidden:
            shown = " ".join(per.inputs[i] for i in sorted(_word_span(pieces.words, half_hidden)))
            note.append("\n" + t("fig-sw-half", lang, pieces=shown), style="bold yellow")
        note.append("\n" + t("fig-sw-labels", lang), style="dim")
        self.query_one("#sw-note", Static).update(note)
        self.clear_error()


def _cell(sample, index: int, half: bool, lang: str) -> Text:
    """What the model reads at ``index`` under one masking: blank when unselected."""
    if not sample.selected[index]:
        return Text("·", style="dim")
    fate = sample.fates[index]
    cell = Text(sample.inputs[index], style=FATE_STYLE.get(fate, ""))
    if fate == "keep":
        cell.append(" " + t("fig-sw-kept", lang), style="yellow")
    elif fate == "random":
        cell.append(" " + t("fig-sw-random", lang), style="magenta")
    if half:
        cell.append(" ✂", style="bold yellow")
    return cell


def _half_hidden(words, selected) -> set[int]:
    """Selected positions whose word has a piece left unselected (per-piece masking only)."""
    return {
        i
        for i, chosen in enumerate(selected)
        if chosen
        and words[i] >= 0
        and any(words[j] == words[i] and not selected[j] for j in range(len(words)))
    }


def _word_span(words, positions: set[int]) -> set[int]:
    """Every position of the first word among ``positions``."""
    first = words[min(positions)]
    return {i for i, word in enumerate(words) if word == first}
