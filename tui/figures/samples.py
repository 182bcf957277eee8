"""The three samples of "Pretraining methods", live: type a sentence (English or
Chinese) and watch its CLM, MLM and span-corruption samples follow; the span
sample is T5's, with </s>."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Input, Static

from tui.figures.base import Figure, default_sentence
from tui.i18n import t
from tui.render import token_line
from tui.widgets.text_input import TextInput


class SamplesFigure(Figure):
    KEYS = "fig-samples-keys"
    EDIT_BOX = "samples-text"

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="samples-keys")
        yield TextInput(value=default_sentence(self.app.lang), id="samples-text")
        yield Static(markup=False, classes="output readout", id="samples-out")
        yield Static(markup=False, classes="error")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_figure()

    def redraw(self) -> None:
        from engine.samples import span_sample
        from engine.textbook import three_samples

        lang = self.lang
        self.show_keys()
        text = self.query_one("#samples-text", Input).value
        run = three_samples(text)
        # The figures follow T5 (</s>, a closing sentinel only when kept text follows);
        # `textbook three-samples` alone prints the section's simplified function.
        span = span_sample(text, spans=[run.span])
        out = Text()
        rows = (
            (t("samples-causal-inputs", lang), run.causal_inputs),
            (t("samples-causal-labels", lang), run.causal_labels),
            (None, None),
            (t("samples-masked-inputs", lang), run.masked_inputs),
            (t("samples-masked-labels", lang), [f"{i}:{token}" for i, token in run.masked_labels.items()]),
            (None, None),
            (t("samples-span-inputs", lang), span.inputs),
            (t("samples-span-target", lang), span.targets),
        )
        for label, tokens in rows:
            if label is None:
                out.append("\n")
                continue
            out.append(token_line(label, tokens))
            out.append("\n")
        out.rstrip()
        self.query_one("#samples-out", Static).update(out)
        self.clear_error()
