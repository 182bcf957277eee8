"""Span corruption, live: the spans a learner types, and T5's random spans at the
lesson's settings (noise density 0.15, mean span 3), with the arithmetic that
gives a short sentence one span, placed last. Both follow T5 (closing sentinel
only when kept text follows, </s> at the end)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Label, Static

from engine.settings import MEAN_SPAN, NOISE_DENSITY
from tui.figures.base import Figure, default_sentence
from tui.i18n import t
from tui.render import token_line
from tui.widgets.text_input import TextInput


def parse_spans(text: str) -> list[tuple[int, int]] | None:
    """The spans box, read two ways: a slice as Python writes it, start:end with the
    end left out ('2:5, 7:8' -> [(2, 5), (7, 8)]); anything else as the exercises read
    positions ('2到4', '2-4', '位置 2、3、4' -> [(2, 5)]: the positions named, each run
    of neighbours one span). Empty -> None (T5's random spans); unreadable -> ValueError."""
    import unicodedata

    from exercises.grading import parsing

    cleaned = unicodedata.normalize("NFKC", text).strip()
    if not cleaned:
        return None
    spans: list[tuple[int, int]] = []
    loose: list[str] = []  # the pieces that are not slices, read together as positions
    for piece in cleaned.replace("、", ",").replace(";", ",").split(","):
        if ":" in piece:
            start, _, end = piece.strip().partition(":")
            spans.append((int(start), int(end)))
        elif piece.strip():
            loose.append(piece)
    if loose:
        positions = sorted(set(parsing.positions(",".join(loose)) or ()))
        if not positions:
            raise ValueError(f"not spans: {text!r}")
        start = previous = positions[0]
        for position in positions[1:]:
            if position != previous + 1:  # a gap: the run so far is one span
                spans.append((start, previous + 1))
                start = position
            previous = position
        spans.append((start, previous + 1))
    return spans


class SpanFigure(Figure):
    PREDICTS = True
    KEYS = "fig-span-keys"
    EDIT_BOX = "span-text"
    BINDINGS = [
        Binding("r", "resample", "resample", show=False),
        Binding("minus", "density(-0.05)", "density −", show=False),
        Binding("plus,equals_sign", "density(0.05)", "density +", show=False),
        Binding("left_square_bracket", "mean(-0.5)", "mean −", show=False),
        Binding("right_square_bracket", "mean(0.5)", "mean +", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.seed = 0
        self.density = NOISE_DENSITY  # T5's settings, the lesson's
        self.mean = MEAN_SPAN

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="span-keys")
        yield TextInput(value=default_sentence(self.app.lang), id="span-text")
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

    def action_density(self, step: float) -> None:
        self.density = round(min(0.95, max(0.05, self.density + step)), 2)
        self.refresh_figure()

    def action_mean(self, step: float) -> None:
        self.mean = min(10.0, max(0.5, self.mean + step))
        self.refresh_figure()

    def _settings(self) -> tuple:
        """(text, spans or None) as typed: the question is about the first sample shown."""
        return self.query_one("#span-text", Input).value, parse_spans(
            self.query_one("#span-spans", Input).value
        )

    def ask(self):
        from exercises.predictions import span_start

        text, spans = self._settings()
        return span_start(text, spans, self.density, self.mean, self.seed)

    def context(self, question) -> tuple:
        try:
            text, spans = self._settings()
        except ValueError:
            return ()
        spans_key = tuple(map(tuple, spans)) if spans is not None else None
        return (text, spans_key, self.density, self.mean, self.seed)

    def redraw(self) -> None:
        from engine.samples import span_sample

        lang = self.lang
        self.show_keys()
        self.query_one("#span-label", Label).update(t("fig-spans", lang) + " ")
        out_widget = self.query_one("#span-out", Static)
        try:
            spans = parse_spans(self.query_one("#span-spans", Input).value)
        except ValueError:
            out_widget.update("")
            self.show_error(t("fig-span-bad", lang))
            return
        text = self.query_one("#span-text", Input).value
        out = Text()
        if self.hiding:  # the first sample's input only: its target is the answer
            first = (
                span_sample(text, spans=spans)
                if spans is not None
                else span_sample(text, density=self.density, mean_span=self.mean, seed=self.seed)
            )
            _describe(out, first, lang, hide_target=True)
            out_widget.update(out)
            self.clear_error()
            return
        guess = self.marks
        if spans is not None:
            given = span_sample(text, spans=spans)
            _describe(out, given, lang, guess)
            guess = None
            if len(given.spans) < len(spans):
                out.append("\n" + t("fig-span-merged", lang), style="dim")
            out.append("\n\n")
        sample = span_sample(text, density=self.density, mean_span=self.mean, seed=self.seed)
        out.append(
            t("fig-span-params", lang, density=self.density, mean=self.mean, seed=self.seed) + "\n",
            style="dim",
        )
        _describe(out, sample, lang, guess)
        n = len(sample.tokens)
        out.append("\n")
        out.append(
            t(
                "fig-span-why",
                lang,
                n=n,
                density=self.density,
                raw=n * self.density,
                noise=sample.noise_tokens,
                mean=self.mean,
                spans=sample.span_count,
            ),
            style="italic",
        )
        out_widget.update(out)
        self.clear_error()


def _describe(out: Text, sample, lang: str, guess=None, hide_target: bool = False) -> None:
    """Heading, input, target, and why the target ends as it does; ``guess`` (a
    question and its verdict) is shown under the target it was about."""
    from engine.tokens import sentinel

    listing = ", ".join(f"{start}:{end}" for start, end in sample.spans)
    out.append(t("span-heading", lang, spans=listing), style="bold")
    out.append("\n")
    out.append(token_line(t("span-inputs", lang), sample.inputs))
    out.append("\n")
    if hide_target:
        out.append(t("span-targets", lang) + " ?", style="bold")
        return
    out.append(token_line(t("span-targets", lang), sample.targets))
    out.append("\n")
    if guess is not None:
        _question, verdict = guess
        mark, style = ("✓", "bold green") if verdict.correct else ("✗", "bold yellow")
        out.append(f"{mark} {t('predict-guess', lang, guess=verdict.answer)}\n", style=style)
    if sample.closed:
        out.append(t("fig-span-closed", lang, sentinel=sentinel(len(sample.spans))), style="dim")
    else:
        out.append(t("fig-span-open", lang), style="dim")
    out.append("\n" + t("fig-span-eos", lang), style="dim")
