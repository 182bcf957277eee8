"""The training lab, live: pick objectives and a budget, train the same tiny
model once per objective in a worker thread (the app stays responsive), watch
each loss fall from ln V, cancel at any time, then read the table and probe
the models with your own text.

The worker only appends to plain lists; a 10 Hz timer on the app's side reads
them and redraws, so the training loop never waits for the screen.
"""

from __future__ import annotations

import threading
import time

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Checkbox, Input, ProgressBar, Select, Static

from exercises.text import pick
from exercises.training.table import CORPUS_NAMES, METHODS, OBJECTIVE_NAMES, notes, rules_text, table_rows
from tui.figures.base import Figure
from tui.i18n import t

OBJECTIVES = ("clm", "mlm", "prefix", "span")
MARKS = {"clm": "C", "mlm": "M", "prefix": "P", "span": "S"}
STYLES = {"clm": "bold cyan", "mlm": "bold magenta", "prefix": "bold green", "span": "bold yellow"}
BUDGETS = (("short", 150), ("default", 500), ("long", 1000))


def loss_chart(
    curves: dict[str, list[float]], ln_v: float, steps: int, width: int = 56, height: int = 6
) -> Text:
    """Each objective's loss as a row of its letter, over the steps; the top line
    is ln V, the loss of a model that has learned nothing (a uniform guess)."""
    width, height = max(width, 8), max(height, 3)
    top = max(ln_v, 0.1)
    grid = [[" "] * width for _ in range(height)]
    styles = [[""] * width for _ in range(height)]
    for name, losses in curves.items():
        if not losses:
            continue
        per_column = max(steps, 1) / width
        for column in range(width):
            start = int(column * per_column)
            end = max(int((column + 1) * per_column), start + 1)
            chunk = [value for value in losses[start:end] if value == value]  # skip NaN
            if not chunk:
                continue
            value = sum(chunk) / len(chunk)
            row = height - 1 - min(height - 1, max(0, round(value / top * (height - 1))))
            grid[row][column] = MARKS[name]
            styles[row][column] = STYLES[name]
    chart = Text()
    for row in range(height):
        level = top * (height - 1 - row) / (height - 1)
        chart.append(f"{level:4.1f} ┤", style="dim")
        for column in range(width):
            mark = grid[row][column]
            if mark == " " and row == 0:
                chart.append("┈", style="red dim")  # ln V
            else:
                chart.append(mark, style=styles[row][column])
        chart.append("\n")
    chart.append("     └" + "─" * width + f" {steps}", style="dim")
    return chart


class TrainLabFigure(Figure):
    BINDINGS = [
        Binding("ctrl+s", "start", "train", show=False),
        Binding("ctrl+x", "cancel", "cancel", show=False),
    ]
    DEFAULT_CSS = """
    TrainLabFigure #tl-controls { height: auto; }
    TrainLabFigure Checkbox { width: auto; border: none; padding: 0 1 0 0; }
    TrainLabFigure #tl-steps { width: 14; }
    TrainLabFigure #tl-corpus { width: 22; }
    TrainLabFigure Button { min-width: 10; margin-right: 1; }
    TrainLabFigure #tl-buttons { height: auto; }
    TrainLabFigure ProgressBar { margin: 0 0; }
    TrainLabFigure #tl-probe { width: 1fr; }
    TrainLabFigure.narrow #tl-controls { layout: grid; grid-size: 4; grid-columns: auto; grid-rows: auto; }
    TrainLabFigure.narrow #tl-steps { width: 12; }
    TrainLabFigure.narrow #tl-corpus { width: 14; }
    """
    NARROW = 78  # below this many columns the steps and corpus go under the objectives

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
        self.steps_for_chart = 500
        self.ln_v = 0.0
        self.probe_result: dict | None = None

    def compose(self) -> ComposeResult:
        yield Static(markup=False, classes="keys", id="tl-intro")
        with Horizontal(id="tl-controls"):
            for name in OBJECTIVES:
                yield Checkbox(name, value=name in ("clm", "mlm"), id=f"tl-{name}")
            yield Input("500", id="tl-steps", restrict=r"[0-9０-９]*", max_length=6)
            yield Select(
                [(name, name) for name in ("zh", "en", "arith")],
                value=self.app.lang if self.app.lang in ("zh", "en") else "zh",
                allow_blank=False,
                id="tl-corpus",
            )
        with Horizontal(id="tl-buttons"):
            yield Button("", id="tl-start", variant="primary")
            yield Button("", id="tl-cancel", variant="error", disabled=True)
            yield Static(markup=False, id="tl-status")
        yield ProgressBar(total=1, show_eta=False, id="tl-progress")
        yield Static(markup=False, id="tl-chart")
        yield Static(markup=False, classes="output", id="tl-table")
        yield Input(placeholder="", id="tl-probe")
        yield Static(markup=False, id="tl-probe-out")
        yield Static(markup=False, id="tl-rules")
        yield Static(markup=False, classes="error")

    def on_resize(self) -> None:
        super().on_resize()
        self.set_class(self.size.width < self.NARROW, "narrow")  # nothing cut at 60 columns

    def on_mount(self) -> None:
        from exercises.training.runs import last_table

        self.result = last_table()  # the last run's table, until a new run replaces it
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

    def _labels(self) -> None:
        lang = self.lang
        self.query_one("#tl-intro", Static).update(t("tl-intro", lang))
        self.query_one("#tl-start", Button).label = t("tl-start", lang)
        self.query_one("#tl-cancel", Button).label = t("tl-cancel", lang)
        self.query_one("#tl-probe", Input).placeholder = t("tl-probe-placeholder", lang)
        self.query_one("#tl-status", Static).update(t(self.status_key, lang, **self.status_params))
        corpus = self.query_one("#tl-corpus", Select)
        if getattr(self, "_corpus_lang", None) != lang:  # set_options resets the choice: keep it
            chosen = self._corpus()
            if chosen == getattr(self, "_corpus_lang", None) and lang in ("zh", "en"):
                chosen = lang  # left on the old language's own toy language: it follows, as a sentence does
            with corpus.prevent(Select.Changed):
                corpus.set_options([(pick(CORPUS_NAMES[name], lang), name) for name in ("zh", "en", "arith")])
                corpus.value = chosen
            self._corpus_lang = lang
        self.query_one("#tl-rules", Static).update(
            t("tl-rules-title", lang) + "\n" + rules_text(self._corpus(), lang)
        )

    def _corpus(self) -> str:
        value = self.query_one("#tl-corpus", Select).value
        return value if isinstance(value, str) else "zh"

    def _draw_chart(self) -> None:
        chart = self.query_one("#tl-chart", Static)
        if not self.curves:
            chart.update("")
            return
        width = max(self.size.width - 12, 16)
        text = loss_chart(self.curves, self.ln_v, self.steps_for_chart, width=min(width, 100))
        legend = Text("      ")
        for name in self.curves:
            legend.append(f"{MARKS[name]} = {pick(OBJECTIVE_NAMES[name], self.lang)}  ", style=STYLES[name])
        legend.append("┈ = ln V", style="red")
        chart.update(Text.assemble(text, "\n", legend))

    def _draw_table(self) -> None:
        target = self.query_one("#tl-table", Static)
        if self.result is None:
            target.update("")
            return
        lang = self.lang
        header, rows = table_rows(self.result, lang)
        table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
        for index, name in enumerate(header):
            table.add_column(name, justify="left" if index == 0 else "right")
        baselines_from = len(self.result["objectives"])
        for index, row in enumerate(rows):
            table.add_row(*row, style="dim" if index >= baselines_from else "")
        lines = Text("\n".join(notes(self.result, lang)), style="dim")
        target.update(Group(table, lines))

    def _draw_probe(self) -> None:
        target = self.query_one("#tl-probe-out", Static)
        result = self.probe_result
        if result is None:
            target.update("")
            return
        from engine.toy_corpus import grammar
        from tui.commands.train import shown

        lang = self.lang
        joiner = grammar(result["corpus"]).joiner
        text = Text()
        if result["unknown"]:
            text.append(t("probe-unknown", lang, tokens=shown(result["unknown"])) + "\n", style="yellow")
        for name, answer in result["models"].items():
            text.append(t("part-line", lang, part=pick(OBJECTIVE_NAMES[name], lang)), style=STYLES[name])
            text.append(joiner.join(answer["answer"]) or "∅")
            text.append(f"  ({pick(METHODS[answer['method']], lang)})\n", style="dim")
            if "scored" in answer:
                text.append(
                    "  "
                    + t("probe-scored", lang, token=joiner.join(answer["scored"]), passes=answer["passes"])
                    + "\n",
                    style="dim",
                )
        target.update(text)

    def _status(self, key: str, **params) -> None:
        self.status_key, self.status_params = key, params
        self.query_one("#tl-status", Static).update(t(key, self.lang, **params))

    # -- training -----------------------------------------------------------------

    def chosen(self) -> list[str]:
        return [name for name in OBJECTIVES if self.query_one(f"#tl-{name}", Checkbox).value]

    def budget(self) -> int | None:
        import unicodedata

        text = unicodedata.normalize("NFKC", self.query_one("#tl-steps", Input).value).strip()
        return int(text) if text.isdigit() and 1 <= int(text) <= 5000 else None

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
        if not objectives:
            self._status("tl-pick-one")
            return
        if steps is None:
            self._status("tl-bad-steps")
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
        self.curves = {name: [] for name in objectives}
        self.result = None
        self.done_steps, self.total_steps = 0, steps * len(objectives)
        self.steps_for_chart = steps
        self.started_at = time.perf_counter()
        self.first_point_seconds = None
        self.query_one("#tl-progress", ProgressBar).update(total=self.total_steps, progress=0)
        self.query_one("#tl-start", Button).disabled = True
        self.query_one("#tl-cancel", Button).disabled = False
        self._status("tl-preparing")
        self._draw_table()
        corpus = self._corpus()
        self.run_worker(
            lambda: self._train(objectives, steps, corpus), thread=True, exclusive=True, group="train-lab"
        )

    def action_cancel(self) -> None:
        if self.training:
            self.cancel_event.set()
            self._status("tl-cancelling")

    def _train(self, objectives: list[str], steps: int, corpus: str) -> None:
        """In a worker thread: build the data, train each objective, save the run."""
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
                run = run_lab(settings, on_step=on_step, should_stop=self.cancel_event.is_set)
            finally:
                if slot is not None:
                    slot.release()
            if any(trained.cancelled for trained in run.models.values()):
                self.app.call_from_thread(self._finished, None, "tl-cancelled")
                return
            result = run.to_json()
            try:
                save_run(run)
                from exercises.training.runs import load_run

                self.saved = load_run()
            except Exception:  # could not save: probe this session's models anyway
                self.saved = _saved_from(run)
            self.app.call_from_thread(self._finished, result, "tl-done")
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
                    objective=pick(OBJECTIVE_NAMES[current], self.lang),
                    loss=f"{self.curves[current][-1]:.2f}",
                )
        self._draw_chart()

    # -- probing ------------------------------------------------------------------

    @on(Input.Submitted, "#tl-probe")
    def _probe_submitted(self, event: Input.Submitted) -> None:
        prompt = event.value.strip()
        if not prompt:
            return
        self.run_worker(lambda: self._probe(prompt), thread=True, exclusive=True, group="train-probe")

    def _probe(self, prompt: str) -> None:
        try:
            if self.saved is None:
                from exercises.training.runs import RunUnreadable, load_run

                try:
                    self.saved = load_run()
                except RunUnreadable as error:
                    self.app.call_from_thread(
                        self.show_error,
                        t("train-unreadable", self.lang, why=error, moved=error.moved_to or "-"),
                    )
                    return
            if self.saved is None:
                self.app.call_from_thread(self._status, "tl-train-first")
                return
            from tui.commands.train import probe_answers

            result = probe_answers(self.saved, prompt, self.lang)
        except Exception as error:  # a prompt the models cannot read: say so
            from tui.i18n import error_text

            message = error_text(error, self.lang)
            self.app.call_from_thread(self.show_error, message)
            return
        self.probe_result = result
        self.app.call_from_thread(self._probe_done)

    def _probe_done(self) -> None:
        self.clear_error()
        self._draw_probe()

    class Trained(Message):
        """A run finished: its table (exercises graded against it may listen)."""

        def __init__(self, result: dict) -> None:
            super().__init__()
            self.result = result


def _saved_from(run):
    from exercises.training.runs import SavedRun

    return SavedRun(
        run.to_json(), run.settings, run.data.vocab, {n: m.model for n, m in run.models.items()}, "", None
    )
