"""Span corruption, live: explicit spans or T5's random ones over a sentence."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Label, Static

from tui.figures.base import Figure
from tui.i18n import t
from tui.render import token_line
from tui.widgets.text_input import TextInput

LESSON_SENTENCE = "transformer models learn patterns from large text corpora"


def parse_spans(text: str) -> list[tuple[int, int]] | None:
    """'2:5, 7:8' -> [(2, 5), (7, 8)]; empty -> None (random spans); bad -> ValueError."""
    import unicodedata

    cleaned = unicodedata.normalize("NFKC", text).replace("、", ",").strip()
    if not cleaned:
        return None
    spans = []
    for part in cleaned.split(","):
        start, _, end = part.strip().replace("-", ":").partition(":")
        spans.append((int(start), int(end)))
    return spans


class SpanFigure(Figure):
    BINDINGS = [Binding("r", "resample", "resample", show=False)]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.seed = 0

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="span-keys")
        yield TextInput(value=LESSON_SENTENCE, id="span-text")
        with Horizontal(classes="row"):
            yield Label(markup=False, id="span-label")
            yield TextInput(value="2:5", id="span-spans")
        yield Static(markup=False, classes="output readout", id="span-out")
        yield Static(markup=False, classes="error")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_figure()

    def action_resample(self) -> None:
        self.seed += 1
        self.refresh_figure()

    def redraw(self) -> None:
        from engine.samples import span_sample

        lang = self.lang
        self.query_one("#span-keys", Static).update(t("fig-span-keys", lang))
        self.query_one("#span-label", Label).update(t("fig-spans", lang) + " ")
        try:
            spans = parse_spans(self.query_one("#span-spans", Input).value)
        except ValueError:
            self.show_error(t("fig-span-keys", lang))
            return
        sample = span_sample(self.query_one("#span-text", Input).value, spans=spans, seed=self.seed)
        listing = ", ".join(f"{start}:{end}" for start, end in sample.spans)
        out = Text(t("span-heading", lang, spans=listing), style="bold")
        out.append("\n")
        out.append(token_line(t("span-inputs", lang), sample.inputs))
        out.append("\n")
        out.append(token_line(t("span-targets", lang), sample.targets))
        self.query_one("#span-out", Static).update(out)
        self.clear_error()
