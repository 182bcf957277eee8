"""Train with your own code: the training lab's batches built by a learner's code-lab
function (or by one of the shipped classic bugs), everything else as in the reference run.

The learner's function runs where every check of the code lab runs it: in the lab's
sandbox (``exercises.lab.sandbox``: a child process, isolated where the machine can,
limited in memory, CPU and time per call), never in this process. What comes back is
hostile until checked: ``checked_mlm`` and ``checked_mask`` accept only tensors of the
exact shape, dtype and value range a batch needs, and anything else ends the run with
one line that says what was wrong (``OwnCodeFailed``). The reference run's vocabulary,
initial weights, windows, their order, steps and learning rate are used unchanged
(``engine.train_lab.train_objective``'s ``build``); the learner's ``bert_mask`` even
receives a generator seeded as the engine's own, its stream continuing from call to
call, so that a solution drawing in the engine's order builds the reference's batches
exactly (a test holds it to that).

Tasks that can build a batch: ``bert_mask`` (the masked LM's inputs and labels, one call
per step) and ``prefix_lm_mask`` (the prefix LM's attention mask, one call per prefix
length, kept: the prefixes are drawn here as the reference draws them). ``span_corrupt``
works on one sequence and given spans: a call per row would be 16,000 calls per run.
"""

from __future__ import annotations

import atexit
import functools
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from exercises.lab.tasks import BY_ID, code
from exercises.text import Bilingual, L, fmt, pick

TASK_OBJECTIVE = {"bert_mask": "mlm", "prefix_lm_mask": "prefix"}  # code-lab task -> the objective it builds
MINE = "mine"
CALL_LIMIT_S = 5.0  # per call, as the lab's checks allow
# Masks kept per run: a prefix length is drawn from 1 to context - 2.
MAX_MASKS = 64


@dataclass(frozen=True)
class Bug:
    """A classic wrong ``bert_mask``: the reference solution with one change, ``find``
    (which occurs in it exactly once) written as ``replace``. Stored as the change, not
    as a copy of the file, so that the solution is written once and each bug says only
    what it breaks; ``source`` builds the file's text, ``path`` writes it where the
    lab's sandbox can load it, under the name the learner sees in a traceback."""

    slug: str
    task: str
    name: Bilingual
    rule: str  # the lab check it fails (tests hold the built file to it)
    find: str
    replace: str

    def source(self) -> str:
        solution = code("solutions", BY_ID[self.task].file_name)
        if solution.count(self.find) != 1:
            raise ValueError(f"bug {self.slug}: {self.find!r} is not in the solution exactly once")
        return solution.replace(self.find, self.replace)

    @property
    def file_name(self) -> str:
        return f"{BY_ID[self.task].file_name.removesuffix('.py')}.{self.slug}.py"

    @property
    def path(self) -> Path:
        path = _bug_folder() / self.file_name
        path.write_text(self.source(), encoding="utf-8")
        return path


@functools.cache
def _bug_folder() -> Path:
    """This process's own folder for the built bug files (private, removed at exit)."""
    folder = Path(tempfile.mkdtemp(prefix="objectives-bugs-"))
    owner = os.getpid()  # a forked child that exits normally must not remove it
    atexit.register(lambda: os.getpid() == owner and shutil.rmtree(folder, ignore_errors=True))
    return folder


BUGS: tuple[Bug, ...] = (
    Bug(
        "labels_everywhere",
        "bert_mask",
        L("bug: labels on every position", "错误：每个位置都有标签"),
        "labels-off-selected",
        "labels = torch.where(selected, ids, torch.full_like(ids, -100))",
        "labels = ids.clone()",
    ),
    Bug(
        "specials_selectable",
        "bert_mask",
        L("bug: specials can be selected", "错误：特殊符号也会被选中"),
        "specials-never-selected",
        "selected = (torch.rand(ids.shape, generator=generator) < p) & ~special",
        "selected = torch.rand(ids.shape, generator=generator) < p",
    ),
    Bug(
        "no_keep",
        "bert_mask",
        L("bug: no 10 % kept unchanged", "错误：没有 10 % 保持原样"),
        "split-80-10-10",
        "randomised = selected & (fate >= 0.8) & (fate < 0.9)",
        "randomised = selected & (fate >= 0.8)",
    ),
    Bug(
        "mask_never_applied",
        "bert_mask",
        L("bug: [MASK] never written", "错误：从不写入 [MASK]"),
        "split-80-10-10",
        "    input_ids[masked] = mask_id\n",
        "",
    ),
)
BY_SLUG = {bug.slug: bug for bug in BUGS}


@dataclass(frozen=True)
class Source:
    """Where a run's batches come from: the learner's file (``key`` = "mine") or a bug."""

    key: str
    task: str
    path: Path

    @property
    def objective(self) -> str:
        return TASK_OBJECTIVE[self.task]

    @property
    def run_key(self) -> str:
        """The row's key in a run's JSON: "mlm:mine", "mlm:no_keep"."""
        return f"{self.objective}:{self.key}"

    def label(self) -> Bilingual:
        return label_of(self.run_key)


def label_of(run_key: str) -> Bilingual:
    """A run's label from its key ("mlm:mine", "mlm:no_keep")."""
    objective, _, key = run_key.partition(":")
    if key != MINE:
        return BY_SLUG[key].name
    task = next(task for task, name in TASK_OBJECTIVE.items() if name == objective)
    return L(f"your {BY_ID[task].function}", f"你的 {BY_ID[task].function}")


def bug_source(slug: str) -> Source:
    bug = BY_SLUG[slug]
    return Source(slug, bug.task, bug.path)


def ready(folder: Path, home: Path | None = None) -> list[Source]:
    """The learner's files in ``folder`` that can build batches: the task's file, as it is
    now, passed its last lab check (the code lab's own "done")."""
    from exercises.lab.record import LabRecord
    from exercises.lab.workspace import task_path

    passing = LabRecord(home).passing(Path(folder))
    return [
        Source(MINE, task, task_path(Path(folder), BY_ID[task])) for task in TASK_OBJECTIVE if task in passing
    ]


class OwnCodeFailed(Exception):
    """The learner's code could not build a batch: ``words`` is the one line to show."""

    def __init__(self, words: Bilingual, step: int | None = None) -> None:
        super().__init__(words["en"])
        self.words, self.step = words, step


# -- what comes back from the sandbox, checked before use ------------------------------


def _tensor_problem(value, name: str, shape: tuple[int, ...], dtypes: tuple) -> Bilingual | None:
    import torch

    if not isinstance(value, torch.Tensor):
        kind = type(value).__name__ if not hasattr(value, "info") else repr(value)
        return L(f"{name} is not a tensor ({kind[:60]})", f"{name} 不是张量（{kind[:60]}）")
    if tuple(value.shape) != shape:
        return L(
            f"{name} has shape {tuple(value.shape)}, the batch needs {shape}",
            f"{name} 的形状是 {tuple(value.shape)}，批次需要 {shape}",
        )
    if value.dtype not in dtypes:
        wanted = " or ".join(str(d).removeprefix("torch.") for d in dtypes)
        got = str(value.dtype).removeprefix("torch.")
        return L(
            f"{name} is {got}, the batch needs {wanted}",
            f"{name} 的类型是 {got}，批次需要 {wanted.replace(' or ', ' 或 ')}",
        )
    return None


def checked_mlm(result, windows, vocab_size: int):
    """(inputs, labels) from ``bert_mask``'s result, or OwnCodeFailed: a pair of int64
    tensors of the windows' shape, inputs in [0, V), labels -100 or in [0, V)."""
    import torch

    if not isinstance(result, (tuple, list)) or len(result) != 2:
        return _fail(
            L(
                "bert_mask must return (input_ids, labels), two tensors",
                "bert_mask 应返回 (input_ids, labels) 两个张量",
            )
        )
    shape = tuple(windows.shape)
    for value, name in zip(result, ("input_ids", "labels"), strict=True):
        problem = _tensor_problem(value, name, shape, (torch.long,))
        if problem is not None:
            _fail(problem)
    inputs, labels = result
    if bool(((inputs < 0) | (inputs >= vocab_size)).any()):
        bad = int(inputs[(inputs < 0) | (inputs >= vocab_size)][0])
        _fail(
            L(
                f"input_ids holds {bad}: ids must be from 0 to {vocab_size - 1}",
                f"input_ids 里有 {bad}：id 必须在 0 到 {vocab_size - 1} 之间",
            )
        )
    wrong = (labels != -100) & ((labels < 0) | (labels >= vocab_size))
    if bool(wrong.any()):
        bad = int(labels[wrong][0])
        _fail(
            L(
                f"labels holds {bad}: a label is -100 or an id from 0 to {vocab_size - 1}",
                f"labels 里有 {bad}：标签只能是 -100 或 0 到 {vocab_size - 1} 的 id",
            )
        )
    if not bool((labels != -100).any()):
        _fail(
            L(
                "labels are -100 everywhere: nothing to learn from this batch",
                "labels 全是 -100：这个批次没有可学的位置",
            )
        )
    return inputs, labels


def checked_mask(result, n: int):
    """A (n, n) bool mask (True = blocked) from ``prefix_lm_mask``, or OwnCodeFailed; a
    row with every key blocked would make the attention NaN, so it is refused too."""
    import torch

    problem = _tensor_problem(result, "prefix_lm_mask(...)", (n, n), (torch.bool,))
    if problem is not None:
        _fail(problem)
    if bool(result.all(dim=1).any()):
        row = int(result.all(dim=1).nonzero()[0])
        _fail(
            L(
                f"row {row} of the mask blocks every key: that position can look at nothing",
                f"掩码第 {row} 行挡住了所有键：这个位置什么也看不到",
            )
        )
    return result


def _fail(words: Bilingual):
    raise OwnCodeFailed(words)


# -- building batches in the sandbox ---------------------------------------------------


class SandboxedBuilder:
    """One sandboxed child serving one source for one run; a batch builder for
    ``train_objective``. Use as a context manager: the child is stopped at the end."""

    def __init__(self, source: Source, *, call_limit: float = CALL_LIMIT_S, steps: int = 0) -> None:
        self.source = source
        self.call_limit = call_limit
        from exercises.lab.sandbox import CPU_LIMIT_S

        # The child's CPU seconds: the lab's limit, and a tenth of a second more per step
        # (a 100,000-step run makes 100,000 calls; each call is also held to call_limit).
        self.cpu_seconds = CPU_LIMIT_S + steps // 10
        self.sandbox = None
        self.masks: dict[int, object] = {}
        self.call_seconds = 0.0

    def __enter__(self) -> SandboxedBuilder:
        from exercises.lab.checks.runner import _load_message, _stopped_message
        from exercises.lab.sandbox import LoadFailed, Sandbox, SandboxStopped

        self.sandbox = Sandbox(
            self.source.path,
            BY_ID[self.source.task].function,
            call_limit=self.call_limit,
            cpu_seconds=self.cpu_seconds,
        )
        try:
            self.sandbox.start()
        except LoadFailed as error:
            raise OwnCodeFailed(_load_message(error)) from None
        except SandboxStopped as error:
            raise OwnCodeFailed(_stopped_message(error, self.sandbox.start_limit, loading=True)) from None
        return self

    def __exit__(self, *exc) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:  # the call still out (at most one, held to call_limit) ends first
            pool.shutdown(wait=True)  # then no thread reads a pipe that close() hands back
        if self.sandbox is not None:
            self.sandbox.close()

    @property
    def isolated(self) -> bool:
        return bool(self.sandbox is not None and self.sandbox.isolated)

    def _call(self, *args):
        from exercises.lab.checks.runner import _stopped_message, raised_words
        from exercises.lab.sandbox import LearnerError, SandboxStopped

        started = time.perf_counter()
        try:
            return self.sandbox.call(*args, limit=self.call_limit)
        except LearnerError as error:
            said = raised_words(error, error.line)
            raise OwnCodeFailed(said if isinstance(said, dict) else L(said, said)) from None
        except SandboxStopped as error:
            raise OwnCodeFailed(_stopped_message(error, self.call_limit)) from None
        finally:
            self.call_seconds += time.perf_counter() - started

    def __call__(self, windows, vocab, settings, generator):
        from engine.train_lab import Batch

        if self.source.task == "bert_mask":
            result = self._mlm_result(windows, vocab, settings)
            inputs, labels = checked_mlm(result, windows, len(vocab))
            return Batch(inputs, None, labels)
        return self._prefix_batch(windows, settings, generator)

    def prefetch(self, data, settings) -> None:
        """Build the next step's batch while the model trains on this one: the windows
        come in a known order (engine.train_lab.training_windows, the same seed), so the
        sandbox can be asked one step ahead; a call hides its latency behind a step's
        compute. A prefetched answer is used only for exactly the windows it was made
        from, and never one step beyond the run."""
        from concurrent.futures import ThreadPoolExecutor

        from engine.train_lab import training_windows

        self._ahead = (training_windows(data, settings), settings.steps)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="own-code-prefetch")
        self._pending = None

    def _mlm_call(self, windows, vocab, settings):
        from exercises.lab.sandbox import Generator

        return self._call(
            windows,
            vocab.special_ids(),
            vocab.mask_id,
            len(vocab),
            settings.mask_p,
            Generator(settings.seed + 17, keep=True),  # train_objective's own seed for its generator
        )

    def _mlm_result(self, windows, vocab, settings):
        import torch

        ahead = getattr(self, "_ahead", None)
        if ahead is None:
            return self._mlm_call(windows, vocab, settings)
        next_windows, left = ahead
        if self._pending is None:
            first = next_windows()
            self._pending = (first, self._pool.submit(self._mlm_call, first, vocab, settings))
            left -= 1
        expected, future = self._pending
        self._pending = None
        if left > 0:  # the next step's call goes out now, behind this one in the child
            following = next_windows()
            self._pending = (following, self._pool.submit(self._mlm_call, following, vocab, settings))
            left -= 1
        self._ahead = (next_windows, left)
        result = future.result()
        if not torch.equal(expected, windows):  # not the run's own order: no prefetching
            self._ahead = None
            raise OwnCodeFailed(L("the training windows came out of order", "训练窗口的顺序不对"))
        return result

    def _prefix_batch(self, windows, settings, generator):
        """engine.train_lab.prefix_batch with the learner's mask: the same prefix draws."""
        import torch

        from engine.clm import IGNORE_INDEX, shift_for_next_token
        from engine.train_lab import Batch

        length = windows.shape[1]
        prefixes = torch.randint(1, length - 1, (windows.shape[0],), generator=generator)
        inputs, labels = shift_for_next_token(windows)
        positions = torch.arange(length - 1).view(1, -1)
        labels = labels.masked_fill(positions + 1 < prefixes.view(-1, 1), IGNORE_INDEX)
        masks = []
        for prefix in prefixes.tolist():
            if prefix not in self.masks:
                if len(self.masks) >= MAX_MASKS:
                    _fail(L("too many prefix lengths", "前缀长度太多"))
                self.masks[prefix] = checked_mask(self._call(length - 1, prefix), length - 1)
            masks.append(self.masks[prefix])
        return Batch(inputs, torch.stack(masks), labels)


# -- a run -------------------------------------------------------------------------------


@dataclass
class OwnRun:
    """One model trained from one source: its row of the table, or why it failed."""

    source: Source
    losses: list[float]
    seconds: float
    steps_done: int
    status: str  # done | failed | cancelled
    error: Bilingual | None = None
    failed_step: int | None = None
    isolated: bool = False
    start_seconds: float = 0.0
    call_seconds: float = 0.0
    scores: object = None  # engine.train_lab.Scores
    model: object = None

    def to_json(self) -> dict:
        from engine.train_lab import model_fields

        return {
            "source": self.source.key,
            "task": self.source.task,
            "objective": self.source.objective,
            "label": self.source.label(),
            "status": self.status,
            "error": self.error,
            "failed_step": self.failed_step,
            "isolated": self.isolated,
            **model_fields(self.scores, self.losses, self.seconds, self.steps_done),
            "sandbox_start_seconds": round(self.start_seconds, 3),
            "sandbox_call_seconds": round(self.call_seconds, 3),
        }


def train_own(
    source: Source,
    data,
    settings,
    start_state: dict,
    on_step: Callable[[int, float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    *,
    call_limit: float = CALL_LIMIT_S,
) -> OwnRun:
    """Train ``source.objective``'s model with batches built by ``source`` in the sandbox;
    never raises for anything the learner's code does (the run is "failed", with why)."""
    from engine.train_lab import evaluate, train_objective

    started = time.perf_counter()
    done = {"steps": 0}
    losses: list[float] = []

    def step(index: int, loss: float) -> None:
        done["steps"] = index + 1
        losses.append(loss if math.isfinite(loss) else float("nan"))
        if on_step is not None:
            on_step(index, loss)

    builder = SandboxedBuilder(source, call_limit=call_limit, steps=settings.steps)
    try:
        with builder:
            load_seconds = builder.sandbox.start_seconds
            if source.task == "bert_mask":
                builder.prefetch(data, settings)
            trained = train_objective(
                source.objective, data, settings, start_state, step, should_stop, build=builder
            )
    except OwnCodeFailed as error:
        return OwnRun(
            source,
            losses,
            time.perf_counter() - started,
            done["steps"],
            "failed",
            error.words,
            done["steps"] + 1 if builder.sandbox is not None and builder.sandbox.calls else None,
            builder.isolated,
            builder.sandbox.start_seconds if builder.sandbox is not None else 0.0,
            builder.call_seconds,
        )
    run = OwnRun(
        source,
        trained.losses,
        time.perf_counter() - started,
        trained.steps_done,
        "cancelled" if trained.cancelled else "done",
        isolated=builder.isolated,
        start_seconds=load_seconds,
        call_seconds=builder.call_seconds,
        model=trained.model,
    )
    if not trained.cancelled:
        run.scores = evaluate(source.objective, trained.model, data)
    return run


def warm_up() -> None:
    """Start the lab's fork server now, in the background (it imports torch: seconds on a
    busy machine), so that it is ready when the reference models are done; a sandbox
    started meanwhile waits for it (exercises.lab.sandbox.get_zygote holds a lock)."""
    import threading

    from exercises.lab.sandbox import get_zygote

    threading.Thread(target=get_zygote, daemon=True, name="own-code-warm-up").start()


def train_sources(
    sources: list[Source],
    settings,
    on_step: Callable[[str, int, float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    data=None,
    *,
    call_limit: float = CALL_LIMIT_S,
) -> list[OwnRun]:
    """Every source in turn, from the reference run's start (same data, same weights)."""
    from engine.train_lab import build_data, initial_model

    data = data or build_data(settings)
    start = initial_model(data.vocab, settings).state_dict()
    runs = []
    for source in sources:
        key = source.run_key
        run = train_own(
            source,
            data,
            settings,
            start,
            None if on_step is None else (lambda index, loss, key=key: on_step(key, index, loss)),
            should_stop,
            call_limit=call_limit,
        )
        runs.append(run)
        if run.status == "cancelled":
            break
    return runs


# -- how a learner reads them ------------------------------------------------------------


def row_label(entry: dict, lang: str) -> str:
    """A row's first cell: "  └ your bert_mask", "  └ bug: labels on every position"."""
    return "└ " + pick(entry["label"], lang)


def failure_line(entry: dict, lang: str) -> str | None:
    """The one line a failed run shows (plain text: it holds the learner's own words)."""
    if entry.get("status") != "failed" or not entry.get("error"):
        return None
    step = entry.get("failed_step")
    where = (
        pick(L(f" (at step {step})", f"（第 {step} 步）"), lang)
        if step
        else pick(L(" (loading)", "（加载时）"), lang)
    )
    label = pick(entry["label"], lang)
    colon = pick(L(": ", "："), lang)
    text = pick(entry["error"], lang)
    return (
        pick(fmt(L("{label} failed{where}", "{label} 失败{where}"), label=label, where=where), lang)
        + colon
        + text
    )


def own_rows(result: dict, lang: str) -> list[tuple[str, list[str]]]:
    """(objective, row) for each own-code run of ``result["own"]``, in the table's columns:
    the caller puts each row under its objective's reference row."""
    from exercises.training.table import cell

    rows = []
    for entry in result.get("own", []):
        failed = entry["status"] != "done"
        status = (
            pick(L("failed", "失败"), lang)
            if entry["status"] == "failed"
            else pick(L("stopped", "已停止"), lang)
        )
        rows.append(
            (
                entry["objective"],
                [
                    row_label(entry, lang),
                    status if failed else cell(entry.get("continue")),
                    "" if failed else cell(entry.get("fill")),
                    "",
                    cell(entry.get("final_loss")),
                    f"{entry['seconds']:.1f}",
                ],
            )
        )
    return rows


def merged_rows(result: dict, header_rows: tuple[list[str], list[list[str]]], lang: str) -> list[list[str]]:
    """The table's rows with each own-code row right under its objective's reference row
    (an objective the reference run did not train: before the baselines)."""
    from exercises.training.table import OBJECTIVE_NAMES

    _header, rows = header_rows
    extra = own_rows(result, lang)
    names = {pick(OBJECTIVE_NAMES[name], lang): name for name in result["objectives"]}
    merged: list[list[str]] = []
    for row in rows:
        merged.append(row)
        objective = names.get(row[0])
        if objective is not None:
            merged += [own for name, own in extra if name == objective]
    trained = set(result["objectives"])
    orphans = [own for name, own in extra if name not in trained]
    baselines = len(rows) - len(result["objectives"])
    return merged[: len(merged) - baselines] + orphans + merged[len(merged) - baselines :]
