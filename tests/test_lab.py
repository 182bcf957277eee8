"""The code lab: every task's reference passes and its starter does not, each
classic bug fails with its rule and misconception (rustlings' content check,
with properties instead of fixtures), the sandbox's limits, the command line."""

from __future__ import annotations

import json
import math
import os
import time
import types
import uuid
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from exercises.lab import stats
from exercises.lab.checks import CHECKERS, run_check
from exercises.lab.record import LabRecord
from exercises.lab.tasks import BY_ID, TASKS, find_task, solution, starter
from exercises.lab.workspace import init
from tests.lab_bugs import BUGS, buggy_source
from tui.cli import main

EXACT_TASKS = {"three_samples", "bert_mask", "lesson_mlm_run"}


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the content check -------------------------------------------------------------------


def test_tasks_in_course_order_each_with_a_checker():
    from exercises.curriculum import OBJECTIVES

    order = [objective.id for objective in OBJECTIVES]
    ranks = [order.index(task.objective) for task in TASKS]
    assert ranks == sorted(ranks)
    assert [task.number for task in TASKS] == list(range(1, len(TASKS) + 1))
    assert set(CHECKERS) == set(BY_ID)
    for task in TASKS:
        assert task.statement["en"] and task.statement["zh"] and task.hints
        assert all(hint["en"] and hint["zh"] for hint in task.hints)


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.id)
def test_reference_passes_and_starter_fails(task, tmp_path):
    passed = run_check(task, _write(tmp_path, task.file_name, solution(task)))
    assert passed.status == "pass", passed.failure
    # the significance promise (stats.py): at most TESTS_PER_TASK binomial tests per check
    assert len(passed.statistics) <= stats.TESTS_PER_TASK
    if task.id in EXACT_TASKS:
        assert passed.exact is True
    fresh = run_check(task, _write(tmp_path, "starter_" + task.file_name, starter(task)))
    assert fresh.status == "not-started" and not fresh.passed


@pytest.mark.parametrize("bug", BUGS, ids=lambda bug: bug.name)
def test_classic_bug_fails_with_its_rule(bug, tmp_path):
    task = BY_ID[bug.task]
    result = run_check(task, _write(tmp_path, task.file_name, buggy_source(solution(task), bug)))
    assert result.status == "fail"
    assert result.failure.rule.code == bug.rule
    assert result.failure.diagnosis == bug.diagnosis
    assert result.failure.input and result.failure.yours  # the table has content


def test_counterexample_is_shrunk_and_explained(tmp_path):
    """The diagonal bug is shown on the smallest mask, with the lesson's misconception."""
    task = BY_ID["causal_mask"]
    bug = next(b for b in BUGS if b.name == "mask including the diagonal")
    result = run_check(task, _write(tmp_path, task.file_name, buggy_source(solution(task), bug)))
    assert result.failure.input == "n = 1"
    assert result.failure.yours.endswith("\n1") and result.failure.required["en"].endswith("\n0")
    from exercises.grading.diagnoses import DIAGNOSES

    assert result.failure.diagnosis in DIAGNOSES


def test_engine_draw_order_is_exact_and_another_order_is_still_right(tmp_path):
    task = BY_ID["bert_mask"]
    swapped = solution(task).replace(
        "    selected = (torch.rand(ids.shape, generator=generator) < p) & ~special\n"
        "    fate = torch.rand(ids.shape, generator=generator)\n",
        "    fate = torch.rand(ids.shape, generator=generator)\n"
        "    selected = (torch.rand(ids.shape, generator=generator) < p) & ~special\n",
    )
    assert swapped != solution(task)
    result = run_check(task, _write(tmp_path, task.file_name, swapped))
    assert result.status == "pass" and result.exact is False


# -- statistics ------------------------------------------------------------------------------


def _brute_p_value(k: int, n: int, p: Fraction) -> float:
    pmf = [math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)]
    return float(sum(x for x in pmf if x <= pmf[k]))


@given(
    st.integers(1, 30).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
    st.sampled_from([1, 3, 5, 8]),
)
def test_binomial_p_value_matches_exact_arithmetic(nk, tenths):
    n, k = nk
    expected = _brute_p_value(k, n, Fraction(tenths, 10))
    assert stats.p_value(k, n, tenths / 10) == pytest.approx(expected, rel=1e-6, abs=1e-12)


def test_significance_and_power_as_stated():
    """A correct solution fails < 1e-6 per check (with at most TESTS_PER_TASK tests a check,
    counted in test_reference_passes_and_starter_fails); biased solutions fail reliably."""
    assert stats.TESTS_PER_TASK * stats.ALPHA <= 1e-6
    # bert_mask: 36,000-odd eligible tokens at p = 0.15, then ~5,400 selected
    assert stats.power(36000, 0.15, 0.12) > 0.999999
    assert stats.power(36000, 0.15, 0.14) > 0.5
    assert stats.power(5400, 0.8, 0.7) > 0.999999
    assert stats.power(5400, 0.1, 0.05) > 0.999999
    low, high = stats.acceptance_region(36000, 0.15)
    assert low < 0.15 * 36000 < high


# -- the sandbox -------------------------------------------------------------------------------

LOOP = "def causal_mask(n):\n    while True:\n        pass\n"
HUGE = "import torch\n\ndef causal_mask(n):\n    return torch.ones(10 * 1024**3, dtype=torch.uint8)\n"
HUGE_BYTES = "def causal_mask(n):\n    return bytearray(10 * 1024**3)\n"


def test_endless_loop_is_stopped_within_its_limit(tmp_path):
    # The call's own timer stopped it (not the CPU limit, not the test's patience): only
    # that timer says "did not return within <the limit>". No stopwatch here: starting
    # the sandbox takes seconds on a busy machine.
    result = run_check("causal_mask", _write(tmp_path, "loop.py", LOOP), call_limit=1.0)
    assert result.status == "stopped"
    assert "did not return within 1 s" in result.message["en"]


@pytest.mark.parametrize("source", [HUGE, HUGE_BYTES], ids=["torch", "bytearray"])
def test_ten_gigabytes_are_refused(source, tmp_path):
    # Refused by the address-space limit, as a MemoryError: never allocated (no stopwatch).
    result = run_check("causal_mask", _write(tmp_path, "huge.py", source))
    assert result.status == "fail" and result.failure.rule.code == "runs"
    assert "memory" in result.failure.yours.lower() or "MemoryError" in result.failure.yours


@pytest.mark.parametrize(
    ("source", "kind", "words"),
    [
        ("def causal_mask(n)\n    return 1\n", "invalid", "line 1"),
        ("import not_a_module_anywhere\n", "invalid", "not_a_module_anywhere"),
        ("from engine.masks import causal_mask\n", "invalid", "write it yourself"),
        ("raise SystemExit(3)\n", "invalid", "SystemExit"),
        ("x = 1\n", "invalid", "no function named causal_mask"),
        ("import os\n\ndef causal_mask(n):\n    os._exit(4)\n", "stopped", "died"),
        ("while True:\n    pass\n", "stopped", "loading"),
        (b"\xff\xfe not utf-8", "invalid", "cannot read"),
    ],
    ids=["syntax", "import", "engine", "exit", "missing", "crash", "loop-on-load", "bytes"],
)
def test_broken_files_give_clear_messages(source, kind, words, tmp_path):
    path = tmp_path / "broken.py"
    if isinstance(source, bytes):
        path.write_bytes(source)
    else:
        path.write_text(source)
    result = run_check("causal_mask", path, start_limit=2.0)
    assert result.status == kind
    assert words.lower() in result.message["en"].lower()
    assert result.message["zh"] and result.message["zh"] != result.message["en"]


def test_learner_code_cannot_touch_progress(tmp_path, monkeypatch):
    """The usual ways to reach progress.db lead to a scratch directory that is then removed."""
    home = tmp_path / "real-home"
    monkeypatch.setenv("OBJECTIVES_TUTOR_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    record = LabRecord()
    record_path = record.path
    source = (
        "import os, sqlite3, pathlib, torch\n"
        "def causal_mask(n):\n"
        "    for base in (os.environ.get('OBJECTIVES_TUTOR_HOME', ''), os.path.expanduser('~'), os.getcwd()):\n"
        "        if base:\n"
        "            os.makedirs(base, exist_ok=True)\n"
        "            try:\n"
        "                sqlite3.connect(os.path.join(base, 'progress.db')).execute('CREATE TABLE IF NOT EXISTS lab_runs (x)')\n"
        "                pathlib.Path(base, 'progress.db').write_text('overwritten')\n"
        "            except Exception:\n"
        "                pass\n"
        "    return torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)\n"
    )
    result = run_check("causal_mask", _write(tmp_path, "sneaky.py", source))
    assert result.status == "pass"
    assert not record_path.exists() and not (tmp_path / "user").exists()


@pytest.mark.parametrize(
    "form",
    ["bom", "crlf", "tabs", "chinese-comments"],
)
def test_files_as_editors_save_them(form, tmp_path):
    """Notepad's BOM, Windows line ends, tab indentation, Chinese comments: all run."""
    text = solution(BY_ID["causal_mask"])
    if form == "crlf":
        text = text.replace("\n", "\r\n")
    elif form == "tabs":
        text = text.replace("    return", "\treturn")
    elif form == "chinese-comments":
        text = text.replace(
            "    return", "    # 上三角（不含对角线）为 True，表示被遮盖：位置 q 看不到 k > q\n    return"
        )
    path = tmp_path / "10_causal_mask.py"
    path.write_bytes(("\ufeff" if form == "bom" else "").encode() + text.encode("utf-8"))
    assert run_check("causal_mask", path).status == "pass"


def test_learner_prints_do_not_break_the_protocol(tmp_path):
    source = solution(BY_ID["causal_mask"]).replace(
        "    return torch",
        "    print('{\"ok\": 1}')\n    import os, sys\n    os.write(1, b'noise\\n')\n    assert sys.stdin.read() == ''\n    return torch",
    )
    result = run_check("causal_mask", _write(tmp_path, "noisy.py", source))
    assert result.status == "pass"
    assert "noise" in result.printed


# -- the workspace and the command line -----------------------------------------------------------


def test_init_never_overwrites_a_learners_file(tmp_path):
    first = init(tmp_path)
    assert len(first.created) == len(TASKS) + 1
    mine = tmp_path / TASKS[0].file_name
    mine.write_text("# my work\n")
    (tmp_path / TASKS[1].file_name).unlink()
    again = init(tmp_path)
    assert again.created == [TASKS[1].file_name]
    assert mine.read_text() == "# my work\n"
    assert "lab check" in (tmp_path / "README.md").read_text()


@given(st.text(max_size=20))
def test_find_task_never_raises(name):
    found = find_task(name)
    assert found is None or found in TASKS


def test_find_task_forms():
    assert find_task("06") is find_task("6") is find_task("bert_mask") is find_task("06_bert_mask.py")
    assert (
        find_task("０６") is find_task(" bert_mask ") is find_task("6") is find_task("./lab/06_bert_mask.py")
    )
    assert find_task("07_bert_mask") is None and find_task("99") is None and find_task("6x") is None


def test_lab_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["lab", "init", "work"]) == 0
    assert "14" in capsys.readouterr().out
    work = tmp_path / "work"
    # the starter fails, with exit 1 and JSON for scripts
    assert main(["lab", "check", "causal_mask", "--dir", str(work), "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["tasks"][0]["status"] == "not-started" and payload["total"] == len(TASKS)
    # the reference solution is locked before a first real attempt
    assert main(["lab", "solution", "causal_mask"]) == 1
    capsys.readouterr()
    task = BY_ID["causal_mask"]
    bug = next(b for b in BUGS if b.task == "causal_mask")
    (work / task.file_name).write_text(buggy_source(solution(task), bug))
    assert main(["lab", "check", "10", "--dir", str(work)]) == 1
    out = capsys.readouterr().out
    assert "diagonal-visible" in out and "mask-blocks-diagonal" in out
    assert main(["lab", "solution", "causal_mask"]) == 0
    assert "diagonal=1" in capsys.readouterr().out
    (work / task.file_name).write_text(solution(task))
    assert main(["lab", "check", "causal_mask", "--dir", str(work), "--lang", "zh"]) == 0
    assert "已完成 1 / 13" in capsys.readouterr().out
    runs = LabRecord().runs()
    assert [(run.task, run.passed, run.rule) for run in runs] == [
        ("causal_mask", False, "not-started"),
        ("causal_mask", False, "diagonal-visible"),
        ("causal_mask", True, None),
    ]
    assert LabRecord().done() == {"causal_mask"}
    # hints come one at a time, then stop
    for index in range(1, len(task.hints) + 2):
        assert main(["lab", "hint", "causal_mask"]) == 0
        assert f"{min(index, len(task.hints))} of {len(task.hints)}" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["lab", "check", "nonsense", "--dir", "."],
        ["lab", "check", "--dir", "/nonexistent-lab-dir"],
        ["lab", "hint"],
        ["lab", "hint", "no_such_task"],
        ["lab", "frobnicate", "x"],
    ],
)
def test_lab_usage_errors_exit_2_in_one_line(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    init(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_lab_record_survives_an_unwritable_home(tmp_path, monkeypatch):
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    monkeypatch.setenv("OBJECTIVES_TUTOR_HOME", str(blocked / "home"))
    record = LabRecord()
    assert record.runs() == [] and record.done() == set()
    result = run_check("causal_mask", _write(tmp_path, "ok.py", solution(BY_ID["causal_mask"])))
    assert record.record(result) is False
    assert (
        str(blocked / "home") in record.notice["en"]
        and "无法写入 " + str(blocked / "home") in record.notice["zh"]
    )


def test_sandbox_processes_are_gone_after_a_check(tmp_path):
    """No learner process outlives its check (the fork server aside). A child forked by the
    fork server keeps the server's command line (and the file it loads is a copy, task.py,
    so its name is nowhere either): the learner's loop names its own process, and that
    name must be gone once the check has ended (polled: a killed process takes a moment)."""
    marker = f"lab-{uuid.uuid4().hex[:11]}"  # a process name holds 15 bytes
    source = f"import ctypes\nctypes.CDLL(None).prctl(15, {marker.encode()!r})  # PR_SET_NAME\n\n{LOOP}"
    result = run_check("causal_mask", _write(tmp_path, "loop.py", source), call_limit=0.5)
    assert result.status == "stopped"

    def named() -> list[str]:
        found = []
        for pid in os.listdir("/proc"):
            try:
                if pid.isdigit() and Path(f"/proc/{pid}/comm").read_text().strip() == marker:
                    found.append(pid)
            except OSError:
                continue
        return found

    deadline = time.monotonic() + 10
    while named() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert named() == []


def t5_reference(
    tokens: list[int], spans: list[tuple[int, int]], sentinels: list[int], eos: int
) -> tuple[list[int], list[int]]:
    """T5's format, written out plainly: an independent reference for the engine the span task grades with."""
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and merged[-1][1] == start:
            merged[-1][1] = end
        else:
            merged.append([start, end])
    inputs, targets, kept = [], [], 0
    for k, (start, end) in enumerate(merged):
        inputs += [*tokens[kept:start], sentinels[k]]
        targets += [sentinels[k], *tokens[start:end]]
        kept = end
    inputs += tokens[kept:]
    if kept < len(tokens):
        targets.append(sentinels[len(merged)])
    return [*inputs, eos], [*targets, eos]


@given(
    st.integers(2, 12).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.integers(0, n), min_size=2, max_size=8, unique=True).map(sorted),
            st.data(),
        )
    )
)
def test_engine_t5_matches_an_independent_transcription(case):
    """The span task is graded against the engine; the engine must agree with T5's
    format written out plainly (touching spans merged, closing sentinel only before
    kept text, </s> on both)."""
    from exercises.lab.checks import EOS, SENTINELS, engine_t5

    n, cuts, data = case
    spans = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]
    if data.draw(st.booleans()) and spans[-1][1] - spans[-1][0] >= 2:  # two touching halves
        start, end = spans.pop()
        spans += [(start, start + 1), (start + 1, end)]
    tokens = list(range(10, 10 + n))
    assert engine_t5(tokens, spans) == t5_reference(tokens, spans, SENTINELS, EOS)


def test_quiz_grading_runs_the_same_checks():
    from exercises.lab.grading import grade_source, is_lab_question

    assert is_lab_question("lab:bert_mask") and is_lab_question("lab:06")
    assert not is_lab_question("bert_mask") and not is_lab_question("lab:nothing")
    task = BY_ID["prefix_lm_mask"]
    right = grade_source("prefix_lm_mask", solution(task))
    assert (right.score, right.correct, right.valid) == (1.0, True, True)
    bug = next(b for b in BUGS if b.name == "prefix ignored (plain causal)")
    wrong = grade_source("prefix_lm_mask", buggy_source(solution(task), bug))
    assert (wrong.score, wrong.valid, wrong.rule, wrong.diagnoses) == (
        0.0,
        True,
        "prefix-visible",
        ("prefix-ignored",),
    )
    for unreadable in ("", "   ", None, 42, "x" * 200_000, "def prefix_lm_mask(n, p)\n"):
        graded = grade_source("prefix_lm_mask", unreadable)
        assert graded.score == 0.0 and not graded.valid and graded.feedback["zh"]


def test_watch_round_shows_progress_statement_and_first_failure(tmp_path):
    """One round of `lab watch` (the loop around it is watchfiles'): the saved task is
    checked, then the next task is named once it passes."""
    import io

    from rich.console import Console

    from tui.commands.lab import _watch_round

    init(tmp_path)
    task = BY_ID["three_samples"]
    bug = next(b for b in BUGS if b.task == "three_samples")
    (tmp_path / task.file_name).write_text(buggy_source(solution(task), bug))
    out = io.StringIO()
    console = Console(file=out, width=100)
    assert _watch_round(tmp_path, {task.file_name}, "en", console) is task
    text = out.getvalue()
    assert "0 of 13 done" in text and "three training samples" in text and "causal-pair" in text
    (tmp_path / task.file_name).write_text(solution(task))
    out.truncate(0)
    following = _watch_round(tmp_path, {task.file_name}, "zh", console)
    assert following is BY_ID["clm_shift"]
    assert "已完成 1 / 13" in out.getvalue() and "02_clm_shift.py" in out.getvalue()


def _odd_outputs():
    """What can come back from a learner's function (exercises.lab.child.decode's types)."""
    import torch

    from exercises.lab.child import Opaque

    dtypes = [torch.bool, torch.int8, torch.int64, torch.float32, torch.float64, torch.complex64, torch.uint8]
    tensors = st.builds(
        lambda dtype, shape, fill: torch.full(shape, fill).to(dtype),
        st.sampled_from(dtypes),
        st.lists(st.integers(0, 4), max_size=3).map(tuple),
        st.integers(-3, 3),
    )
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**63), 2**63),
        st.floats(allow_nan=True),
        st.text(max_size=5),
        st.just(Opaque({"$repr": "object: <x>"})),
        st.just(Opaque({"$toolarge": [10**6]})),
        tensors,
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.lists(inner, max_size=4).map(tuple),
            st.dictionaries(st.one_of(st.integers(0, 3), st.text(max_size=2)), inner, max_size=3),
        ),
        max_leaves=8,
    )


@pytest.mark.parametrize("task_id", sorted(CHECKERS))
@given(out=_odd_outputs())
def test_any_output_gets_a_verdict_never_an_exception(task_id, out):
    """The judges' errors on odd outputs are narrowed (issue 10) to what an output of
    the wrong shape raises: every such output is a verdict (the shape rule), never a crash."""
    from exercises.lab.checks import judge_output

    checker = CHECKERS[task_id]()
    failure = judge_output(checker, checker.smoke(), out)
    assert failure is not None and failure.rule.code  # none of these is a right answer


def _mutated(value, rnd):
    """A near miss of a right output: another dtype, an element out of range, a
    dimension more or less, a part dropped or added, a list instead of a tensor."""
    import torch

    roll = rnd.random()
    if isinstance(value, torch.Tensor):
        if roll < 0.2:
            return value.to(rnd.choice([torch.float32, torch.int8, torch.bool, torch.int64]))
        if roll < 0.4 and value.numel():
            changed = value.clone().to(torch.float64 if value.dtype.is_floating_point else torch.int64)
            changed.view(-1)[rnd.randrange(value.numel())] = rnd.choice([-5, -1, 10**6, 2**40, 3])
            return changed
        if roll < 0.5:
            return value.unsqueeze(0)
        if roll < 0.6 and value.dim():
            return value[..., :-1]
        if roll < 0.7:
            return value.tolist()
        return value
    if isinstance(value, (tuple, list)):
        items = [_mutated(item, rnd) for item in value]
        if roll < 0.15 and items:
            items.pop()
        elif roll < 0.3:
            items.append(items[0] if items else 1)
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        return {key: _mutated(item, rnd) for key, item in value.items()}
    if isinstance(value, str):
        return rnd.choice([value + "x", "", value.upper(), "<extra_id_0>"])
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return rnd.choice([value + 1, -value, float("nan"), 10**30])
    return value


@pytest.mark.parametrize("task_id", sorted(CHECKERS))
@given(rnd=st.randoms(use_true_random=False))
def test_a_near_miss_of_the_reference_output_gets_a_verdict(task_id, rnd):
    from exercises.lab.checks import judge_output
    from exercises.lab.child import decode, encode
    from exercises.lab.sandbox import _wire

    task = BY_ID[task_id]
    namespace: dict = {}
    exec(compile(solution(task), task_id, "exec"), namespace)  # our own reference file
    checker = CHECKERS[task_id]()
    case = checker.smoke()
    args = decode(json.loads(json.dumps(_wire(tuple(checker.args(case))))))  # as the child receives them
    out = decode(json.loads(json.dumps(encode(namespace[task.function](*args)))))
    verdict = judge_output(checker, case, _mutated(out, rnd))
    assert verdict is None or verdict.rule.code


def test_only_an_unreadable_output_is_a_shape_failure_and_a_bug_of_ours_is_not_hidden():
    from exercises.lab.checks import SHAPE, judge_output

    class Judge:
        error: Exception

        def judge(self, case, out):
            raise self.error

        def fail(self, rule, case, yours, required):
            return types.SimpleNamespace(rule=rule, yours=yours)

    judge = Judge()
    judge.error = IndexError("index 7 is out of bounds")
    assert judge_output(judge, 0, None).rule is SHAPE
    judge.error = NameError("name 'rows' is not defined")  # a typo in a judge: must be seen
    with pytest.raises(NameError):
        judge_output(judge, 0, None)
