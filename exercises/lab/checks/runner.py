"""Running one file's check: load it through the probe in the sandbox, search,
shrink, the statistics; the messages for a file that does not load or run.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from exercises.files import FileTooLarge, read_regular
from exercises.lab import sandbox as lab_sandbox
from exercises.lab.checks.clm import (
    ClmLoss,
    ClmShift,
    LessonClmRun,
    LossSidePairs,
)
from exercises.lab.checks.core import (
    INPUTS_UNCHANGED,
    LONG_IDS,
    PROBE,
    RUNS,
    SHAPE,
    Checker,
    Failure,
    LabResult,
    Said,
    call,
    changed_argument,
    global_rng_difference,
    parameters,
    probe_source,
    reproducibility_failure,
    search,
)
from exercises.lab.checks.masks import (
    CausalMask,
    PaddedCausalMask,
    PrefixMask,
)
from exercises.lab.checks.mlm import (
    BertMask,
    LessonMlmRun,
    MaskContent,
    WholeWordMask,
)
from exercises.lab.checks.samples import ThreeSamples
from exercises.lab.checks.spans import SpanCorrupt
from exercises.lab.sandbox import LearnerError, LoadFailed, Sandbox, SandboxStopped
from exercises.lab.tasks import BY_ID, Task
from exercises.lab.workspace import MAX_FILE_BYTES, digest
from exercises.text import Bilingual, L, reason_of

CHECKERS: dict[str, Callable[[], Checker]] = {
    "three_samples": ThreeSamples,
    "clm_shift": ClmShift,
    "loss_side_pairs": LossSidePairs,
    "clm_loss": ClmLoss,
    "lesson_clm_run": LessonClmRun,
    "bert_mask": BertMask,
    "lesson_mlm_run": LessonMlmRun,
    "mask_content": MaskContent,
    "whole_word_mask": WholeWordMask,
    "causal_mask": CausalMask,
    "padded_causal_mask": PaddedCausalMask,
    "span_corrupt": SpanCorrupt,
    "prefix_lm_mask": PrefixMask,
}


# -- running ---------------------------------------------------------------------------------


def _load_message(error: LoadFailed) -> Bilingual:
    where = f" (line {error.line})" if error.line else ""
    where_zh = f"（第 {error.line} 行）" if error.line else ""
    if error.kind == "syntax":
        return L(
            f"Python cannot read the file{where}: {error.message}",
            f"Python 读不懂这个文件{where_zh}：{error.message}",
        )
    if error.kind == "import":
        return L(f"An import failed{where}: {error.message}", f"导入失败{where_zh}：{error.message}")
    if error.kind == "missing":
        return L(
            f"The file has no function named {error.message}.", f"文件里没有名为 {error.message} 的函数。"
        )
    if error.kind == "unreadable":
        return L(f"The file cannot be read: {error.message}", f"无法读取文件：{error.message}")
    return L(f"Running the file failed{where}: {error.message}", f"运行文件时出错{where_zh}：{error.message}")


def _stopped_message(error: SandboxStopped, limit: float, loading: bool = False) -> Bilingual:
    if error.kind == "time" and loading:
        return L(
            f"The file did not finish loading within {limit:g} s and was stopped (a loop at the top level?).",
            f"文件在 {limit:g} 秒内没有加载完，已被终止（是不是在函数外写了循环？）。",
        )
    if error.kind == "time":
        return L(
            f"Your function did not return within {limit:g} s and was stopped (an endless loop?).",
            f"你的函数在 {limit:g} 秒内没有返回，已被终止（是不是死循环？）。",
        )
    if error.kind == "slow":
        return L(
            f"Too slow: your file took more than {limit:g} s in all to answer the checks and was stopped "
            "(a sleep, or a slow loop, in every call?). A correct file answers them in a few seconds.",
            f"太慢：你的文件回答检查总共用了超过 {limit:g} 秒，已被终止（是不是每次调用里都有 sleep 或很慢的循环？）。"
            "正确的文件几秒钟内就能全部答完。",
        )
    if error.kind == "cpu":
        return L("Your code used up its CPU time and was stopped.", "你的代码用完了 CPU 时间，已被终止。")
    return L(
        f"Your code's process died ({error.detail}): usually memory beyond the lab's limit.",
        f"你的代码所在进程意外结束（{error.detail}）：通常是内存超出了实验的限制。",
    )


def run_check(
    task: Task | str,
    path,
    *,
    max_examples: int | None = None,
    call_limit: float | None = None,
    memory: int | None = None,
    start_limit: float | None = None,
    check_limit: float | None = None,
) -> LabResult:
    """Check one file against one task's rules; never raises for anything the file does.
    The limits default to the sandbox's (``check_limit``: all the answers of the check
    together, ``exercises.lab.sandbox.CHECK_LIMIT_S``)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the checks' tensors are tiny; a thread pool only costs (50x on 2 busy cores)
    limits = {"call_limit": call_limit, "memory": memory, "start_limit": start_limit}
    limits["total_limit"] = lab_sandbox.CHECK_LIMIT_S if check_limit is None else check_limit
    try:
        return _run_check(task, path, max_examples, {k: v for k, v in limits.items() if v is not None})
    finally:
        torch.set_num_threads(threads)


def raised_words(error: LearnerError, line: int | None) -> Said:
    """What the learner's function raised, and on which line of their file."""
    said = f"{error.name}: {error.message[:200]}"
    return L(f"{said} (line {line})", f"{said}（第 {line} 行）") if line else said


def _read_source(path: Path) -> bytes:
    """The learner's file, bounded before it is read: a regular file (a FIFO or a device
    named 06_bert_mask.py is refused, never waited on) of at most MAX_FILE_BYTES."""
    try:
        return read_regular(path, MAX_FILE_BYTES)
    except FileTooLarge:
        raise LoadFailed("unreadable", f"a task file may have at most {MAX_FILE_BYTES} bytes") from None


def _run_check(task, path, max_examples, limits: dict) -> LabResult:
    task = BY_ID[task] if isinstance(task, str) else task
    path = Path(path)
    result = LabResult(task.id, "fail")
    began = time.perf_counter()
    try:
        source = _read_source(path)
    except (OSError, LoadFailed) as error:
        if isinstance(error, LoadFailed):
            result.message = _load_message(error)
        else:  # the OS's reason, or exercises.files' (not a regular file), in both languages
            why = reason_of(error)
            result.message = L(f"The file cannot be read: {why['en']}", f"无法读取文件：{why['zh']}")
        result.status = "invalid"
        result.seconds = time.perf_counter() - began
        return result
    result.digest = digest(source)
    with tempfile.TemporaryDirectory(prefix="objectives-lab-check-") as folder:
        probed = Path(folder) / path.name  # the same name: messages name the learner's file
        probed.write_bytes(source + probe_source(task.function).encode())
        _check_probed(task, probed, source.count(b"\n") + 1, result, max_examples, limits)
    result.seconds = time.perf_counter() - began
    return result


def _check_probed(task, probed, lines, result, max_examples, limits: dict) -> None:
    checker = CHECKERS[task.id]()
    checker.params = parameters(task)
    box = Sandbox(probed, PROBE, values_limit=lab_sandbox.FILE_VALUES, **limits)

    def theirs(line: int | None) -> int | None:
        """A line of the learner's file (not of the probe after it)."""
        return line if line is not None and line <= lines else None

    try:
        box.start()
    except LoadFailed as error:
        if error.kind == "missing":
            error.message = task.function
        error.line = min(error.line, lines) if error.line else error.line
        result.status, result.message, result.line = "invalid", _load_message(error), error.line
        return
    except SandboxStopped as error:
        result.status, result.message = "stopped", _stopped_message(error, box.start_limit, loading=True)
        return
    result.sandbox_start_seconds = box.start_seconds
    memo: dict[str, object] = {}

    def outcome(case):
        key = repr(case)
        if key not in memo:
            try:
                memo[key] = ("ok", call(box, checker, checker.args(case)))
            except LearnerError as error:
                error.line = theirs(error.line)
                memo[key] = ("raised", error)
        return memo[key]

    def violation(case) -> Failure | None:
        kind, value = outcome(case)
        if kind == "raised":
            special = getattr(checker, "raised", None)
            failure = special(case, value) if special else None
            if failure is not None:
                return failure
            return checker.fail(RUNS, case, raised_words(value, value.line), L("a result", "一个结果"))
        return changed_argument(checker, case, checker.args(case), value.args) or checker.judge_call(
            case, value
        )

    try:
        kind, value = outcome(checker.smoke())
        if kind == "raised" and value.name == "NotImplementedError":
            result.status = "not-started"
            result.message = L(
                "Not written yet: replace the `raise NotImplementedError` with your code.",
                "还没有写：把 `raise NotImplementedError` 换成你的代码。",
            )
            result.line = value.line
            return
        failure = violation(checker.smoke())
        # search even when the first case fails: the report shows the smallest input
        case = search(checker, lambda c: violation(c) is not None, max_examples)
        if case is not None:
            shrunk = violation(case)
            if (
                failure is not None
                and shrunk is not None
                and shrunk.rule == failure.rule
                and failure.diagnosis
            ):
                shrunk.diagnosis = (
                    failure.diagnosis
                )  # the larger first case tells misconceptions apart better
            failure = shrunk
        elif failure is not None:
            case = checker.smoke()
        if (
            failure is not None
            and checker.random
            and failure.rule not in (RUNS, SHAPE, LONG_IDS, INPUTS_UNCHANGED)
            and (difference := global_rng_difference(box, checker, case)) is not None
        ):
            failure = reproducibility_failure(
                checker, case, difference
            )  # the cause of whatever else is wrong
        if failure is None:
            failure = checker.extra(box, result)
        if failure is None:
            result.status = "pass"
        else:
            result.failure = failure
    except LearnerError as error:  # raised in a statistics or reproducibility call
        result.failure = Failure(
            RUNS,
            L("a large batch (the statistics)", "一个大批次（统计检验）"),
            raised_words(error, theirs(error.line)),
            L("a result", "一个结果"),
        )
    except Exception:  # SandboxStopped, or hypothesis's group of them when it stopped mid-search
        if box.stopped is None:
            raise
        limit = box.total_limit if box.stopped.kind == "slow" else box.call_limit
        result.status, result.message = "stopped", _stopped_message(box.stopped, limit)
    finally:
        result.calls = box.calls
        result.printed = box.printed()
        box.close()


def diagnosis_text(code: str | None) -> Bilingual | None:
    if code is None:
        return None
    from exercises.grading.diagnoses import DIAGNOSES

    return DIAGNOSES.get(code)
