"""The code lab: every task's reference passes and its starter does not, each
classic bug fails with its rule and misconception (rustlings' content check,
with properties instead of fixtures), every correct solution written another way
passes, each rule family (inputs unchanged, every draw from the generator, the
replacement's distribution, specials never drawn, the rate on short rows, dtypes,
empty inputs) on inputs hypothesis picks, the sandbox's limits, the command line."""

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
from hypothesis import given, settings
from hypothesis import strategies as st

from exercises.lab import stats
from exercises.lab.checks import CHECKERS, run_check
from exercises.lab.record import LabRecord
from exercises.lab.tasks import BY_ID, TASKS, find_task, solution, starter
from exercises.lab.workspace import init
from tests.lab_bugs import BUGS, buggy_source
from tests.lab_variants import VARIANTS, variant_source
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


# What each task asks for, as quizzes fingerprint it (exercises.lab.grading.task_fingerprint): the
# signatures now read from the starter files must ask for exactly what the strings in tasks.py did.
FINGERPRINTS = {
    "three_samples": "e2d522fa28fbdf93",
    "clm_shift": "5acd9255c95507d3",
    "loss_side_pairs": "cb292e3c24992451",
    "clm_loss": "69bacbba99f8b664",
    "lesson_clm_run": "af6b4934ecbfb307",
    "bert_mask": "9b125518f9bfb9ed",
    "lesson_mlm_run": "107a7b506dec1baf",
    "mask_content": "c315dc86430ac3b4",
    "whole_word_mask": "22b2dceb95938709",
    "causal_mask": "03d5bb8145b9fa0c",
    "padded_causal_mask": "60e7d847fcfa7775",
    "span_corrupt": "d43d14628bbb183b",
    "prefix_lm_mask": "283e3215e3eb86ce",
}


def _outline(text: str, function: str) -> str:
    """A file's code with the task's function body left out: imports, signature, the rest."""
    import ast

    tree = ast.parse(text)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            node.body = [ast.Expr(ast.Constant(...))]
    return ast.dump(tree)


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.id)
def test_starter_and_solution_are_real_files_that_agree(task):
    """starters/ and solutions/ hold each task's code as real Python files (package data,
    linted by ruff): the same imports, signature and module code around a different body;
    the signature read from them asks for what quizzes recorded; the learner's file is
    the statement as its docstring, then the code."""
    import tomllib

    from exercises.lab.grading import task_fingerprint
    from exercises.lab.tasks import FOLDER

    handed, reference = (FOLDER / kind / task.file_name for kind in ("starters", "solutions"))
    assert _outline(handed.read_text(), task.function) == _outline(reference.read_text(), task.function)
    assert task_fingerprint(f"lab:{task.id}") == FINGERPRINTS[task.id]
    assert task.signature.startswith(f"def {task.function}(") and "\n" not in task.signature
    for text, code in ((starter(task), handed.read_text()), (solution(task), reference.read_text())):
        assert text.startswith('"""') and text.endswith(code) and task.statement["zh"] in text
        compile(text, task.file_name, "exec")
    data = tomllib.loads((FOLDER.parents[1] / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    assert {"starters/*.py", "solutions/*.py"} <= set(data["exercises.lab"])  # shipped with the package
    assert sorted(p.name for p in (FOLDER / "starters").glob("*.py")) == sorted(t.file_name for t in TASKS)
    assert sorted(p.name for p in (FOLDER / "solutions").glob("*.py")) == sorted(t.file_name for t in TASKS)


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.id)
def test_reference_passes_and_starter_fails(task, tmp_path):
    passed = run_check(task, _write(tmp_path, task.file_name, solution(task)))
    assert passed.status == "pass", passed.failure
    # the significance promise (stats.py): the tests of a check spend at most TESTS_PER_TASK * ALPHA
    assert sum(test["alpha"] for test in passed.statistics) <= stats.TESTS_PER_TASK * stats.ALPHA * (1 + 1e-9)
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
    note = result.failure.note
    assert (note is None) if bug.note is None else (bug.note in note["en"] and note["zh"] != note["en"])


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.__name__)
def test_a_correct_solution_written_another_way_passes(variant, tmp_path):
    """The false-reject rate is zero: other draw orders, loops, torch.bernoulli,
    rejection sampling, narrow, roll-then-trim... all pass (tests/lab_variants.py)."""
    task = BY_ID[variant.__name__.split("__")[0]]
    result = run_check(task, _write(tmp_path, task.file_name, variant_source(variant)))
    assert result.status == "pass", (result.failure, result.message)


def test_counterexample_is_shrunk_and_explained(tmp_path):
    """The diagonal bug is shown on the smallest mask that tells mistakes apart (2 x 2: in
    a 1 x 1 mask a blocked diagonal and an inverted mask are one output), with the
    lesson's misconception."""
    task = BY_ID["causal_mask"]
    bug = next(b for b in BUGS if b.name == "mask including the diagonal")
    result = run_check(task, _write(tmp_path, task.file_name, buggy_source(solution(task), bug)))
    assert result.failure.input == "n = 2"
    assert result.failure.yours.endswith("\n11\n01") and result.failure.required["en"].endswith("\n01\n00")
    assert result.failure.diagnosis == "mask-blocks-diagonal"
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
    # the rows docs/code-lab.md adds for issue 20 (trials as the checks make them)
    assert stats.power(220, 0.15, 0.0) == 1.0  # short rows: a fixed count per row selects none
    assert stats.power(197, 0.3, 0.6) > 0.999  # short contents: p rescaled by (L + 2) / L
    assert stats.power(19865, 0.8, 0.85) > 0.999999  # 85/5/10
    assert stats.power(19865, 0.08, 0.1) > 0.99999  # the random word never the original
    assert stats.power(19865, 0.12, 0.1) > 0.9998
    assert stats.power(1270, 0.25, 0.0, stats.ALPHA / 5) == 1.0  # a pool id never drawn
    assert stats.power(2003, 0.32, 0.0) == 1.0  # one fate per word
    assert stats.power(100000, 0.1 * 4998 / 9995, 0.0) == 1.0  # random words from the lower half only
    assert 1 - (1 - 5 / 10000) ** 8200 > 0.98  # randint(0, 10000) draws a special among ~8,300 words
    # issue 31's rows (trials as the checks make them)
    assert stats.power(16160, 0.0225, 0.15) == 1.0  # one selection per column: both selected at p
    assert stats.power(35711, 0.55, 0.15) == 1.0  # 0.15 whatever p
    assert stats.power(19711, 0.8, 1.0) == 1.0  # one uniform for selection and fate: all [MASK]
    assert stats.power(20000, 0.09, 0.3) == 1.0  # mask_content's neighbours selected together
    assert stats.power(10000, 0.0225, 0.15) == 1.0  # whole words selected in pairs
    assert stats.power(5503, 0.8, 0.75) > 0.999


@given(
    st.integers(1, 3000).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
    st.sampled_from([0.0, 1.0, 0.02, 0.15, 0.3, 0.5, 0.8, 0.12]),
)
@pytest.mark.slow
def test_the_windowed_p_value_is_the_full_sum(nk, p):
    """stats.py sums only within 40 standard deviations of the mean: the same p-value
    and acceptance region as the sum over every count (an independent transcription)."""
    n, k = nk

    def log_pmf(i: int) -> float:
        if p in (0.0, 1.0):
            return 0.0 if i == (0 if p == 0.0 else n) else -math.inf
        return (
            math.lgamma(n + 1)
            - math.lgamma(i + 1)
            - math.lgamma(n - i + 1)
            + i * math.log(p)
            + (n - i) * math.log1p(-p)
        )

    logs = [log_pmf(i) for i in range(n + 1)]
    full = min(1.0, sum(math.exp(v) for v in logs if v <= logs[k] + 1e-7))
    assert stats.p_value(k, n, p) == pytest.approx(full, rel=1e-9, abs=1e-25)
    accepted = [
        i
        for i in range(n + 1)
        if min(1.0, sum(math.exp(v) for v in logs if v <= logs[i] + 1e-7)) > stats.ALPHA
    ]
    low, high = stats.acceptance_region(n, p)
    assert abs(low - min(accepted)) <= 1 and abs(high - max(accepted)) <= 1


# -- the rule families, on inputs hypothesis picks (in this process: no sandbox) -----------------


class InProcess:
    """The sandbox's stand-in for the rule tests: one of OUR functions (test code, never a
    learner's) called through the real probe, its arguments and result crossing the
    child's JSON codec, torch's global seed set per call as the child sets it."""

    def __init__(self, task_id: str, function) -> None:
        from exercises.lab.checks.core import PROBE, probe_source

        namespace = {BY_ID[task_id].function: function}
        exec(probe_source(BY_ID[task_id].function), namespace)
        self.probe = namespace[PROBE]
        self.calls = 0

    def call(self, *args, limit=None, global_seed=0):
        import torch

        from exercises.lab.child import decode, encode
        from exercises.lab.sandbox import _wire

        self.calls += 1
        torch.manual_seed(global_seed)
        decoded = decode(json.loads(json.dumps(_wire(list(args)))))
        return decode(json.loads(json.dumps(encode(self.probe(*decoded)))))


def _as_received(args: tuple) -> list:
    """The arguments as the child receives them (a Generator seed becomes a torch.Generator)."""
    from exercises.lab.child import decode
    from exercises.lab.sandbox import _wire

    return decode(json.loads(json.dumps(_wire(list(args)))))


def _checker(task_id: str):
    from exercises.lab.checks.core import parameters

    checker = CHECKERS[task_id]()
    checker.params = parameters(BY_ID[task_id])
    return checker


def _reference(task_id: str):
    """Our own reference function, run in this process."""
    namespace: dict = {}
    exec(compile(solution(BY_ID[task_id]), task_id, "exec"), namespace)
    return namespace[BY_ID[task_id].function]


def _mutate(value, data):
    """The argument as a function that writes into it would leave it."""
    import torch

    if isinstance(value, torch.Tensor):
        changed = value.clone()
        flat = changed.view(-1)
        i = data.draw(st.integers(0, flat.numel() - 1))
        flat[i] = (
            ~flat[i] if changed.dtype == torch.bool else flat[i] + data.draw(st.sampled_from([1, -1, 7]))
        )
        return changed
    changed = list(value)
    if changed and data.draw(st.booleans()):
        changed[data.draw(st.integers(0, len(changed) - 1))] = "[MASK]"
    else:
        changed.append(data.draw(st.sampled_from([0, "[MASK]", (0, 1)])))
    return changed


@pytest.mark.parametrize("task_id", sorted(CHECKERS))
@given(data=st.data())
def test_inputs_unchanged_names_the_argument_changed(task_id, data):
    """Any argument written into (a tensor's element, a list's item, an item appended)
    breaks inputs-unchanged, named by its parameter; the arguments as sent do not."""
    import torch

    from exercises.lab.checks.core import changed_argument

    checker = _checker(task_id)
    case = data.draw(checker.strategy())
    sent = checker.args(case)
    after = [
        None if isinstance(a, torch.Generator) else a for a in _as_received(sent)
    ]  # as the probe sends them
    assert changed_argument(checker, case, sent, after) is None
    writable = [
        i
        for i, a in enumerate(after)
        if (isinstance(a, torch.Tensor) and a.numel()) or (isinstance(a, list) and a is not None)
    ]
    if not writable:  # (n,), (n, prefix_len), (seed, batch, seq_len): nothing to write into
        return
    i = data.draw(st.sampled_from(writable))
    after[i] = _mutate(after[i], data)
    failure = changed_argument(checker, case, sent, after)
    assert failure.rule.code == "inputs-unchanged" and failure.diagnosis == "inputs-modified-in-place"
    assert failure.yours.startswith(checker.params[i] + " after your call")
    assert failure.yours.zh.startswith("调用之后 " + checker.params[i])


ID_TASKS = [
    "clm_shift",
    "loss_side_pairs",
    "lesson_clm_run",
    "bert_mask",
    "lesson_mlm_run",
    "mask_content",
    "whole_word_mask",
    "span_corrupt",
]


@pytest.mark.parametrize("task_id", ID_TASKS)
@settings(max_examples=30)
@given(data=st.data())
def test_ids_that_are_not_long_break_the_dtype_rule(task_id, data):
    """The reference's output with its id tensors in any other integer type (int32 as
    torch.tensor(..., dtype=torch.int32), int16, int8, uint8) breaks ids-long."""
    import torch

    from exercises.lab.checks.core import judge_output

    checker = _checker(task_id)
    case = data.draw(checker.strategy())
    out = _reference(task_id)(*_as_received(checker.args(case)))
    assert judge_output(checker, case, out) is None
    dtype = data.draw(st.sampled_from([torch.int32, torch.int16, torch.int8, torch.uint8]))
    narrowed = tuple(v.to(dtype) if isinstance(v, torch.Tensor) and v.dtype == torch.long else v for v in out)
    failure = judge_output(checker, case, narrowed)
    assert (
        failure.rule.code == "ids-long"
        and failure.diagnosis == "ids-not-long"
        and str(dtype) in failure.yours
    )


def _fates_batch():
    """The ids of bert_mask's fates call (a small vocabulary, ids uniform over its pool)."""
    from exercises.lab.checks.mlm import fates_batch

    return fates_batch()


@settings(max_examples=20, derandomize=True)
@given(
    kept=st.sets(st.sampled_from([1, 2, 5, 7, 9]), min_size=1, max_size=4),
    seed=st.integers(0, 2**20),
)
def test_a_random_word_not_uniform_over_the_pool_is_caught(kept, seed):
    """Random words from only part of the pool (the first few, any few): the uniformity
    test fails; the split test cannot see it (drawing the original back stays 1/m, as
    the originals are uniform over the pool), so it is named for what it is."""
    import torch

    from engine import mlm as engine_mlm
    from exercises.lab.checks.mlm import FATES_MASK, FATES_POOL, FATES_SPECIALS, FATES_VOCAB
    from exercises.lab.checks.statistics import split_test, uniform_test

    ids = _fates_batch()

    def masked(pool):
        return engine_mlm.mask_tokens(
            ids,
            mask_id=FATES_MASK,
            vocab_size=FATES_VOCAB,
            special_ids=FATES_SPECIALS,
            p=1.0,
            replacement_ids=torch.tensor(sorted(pool)),
            generator=torch.Generator().manual_seed(seed),
        )

    right = masked(FATES_POOL)
    assert uniform_test([], ids, right.input_ids, right.selected, FATES_MASK, FATES_POOL, "here") is None
    biased = masked(kept)
    assert (
        split_test([], ids, biased.input_ids, biased.selected, FATES_MASK, len(FATES_POOL), "here", 1.0)
        is None
    )
    failure = uniform_test([], ids, biased.input_ids, biased.selected, FATES_MASK, FATES_POOL, "here")
    assert failure.rule.code == "random-uniform" and failure.diagnosis == "random-word-not-uniform"


@settings(max_examples=25, derandomize=True)
@given(
    split=st.tuples(st.floats(0.5, 0.95), st.floats(0.0, 1.0))
    .map(lambda ab: (ab[0], (1 - ab[0]) * ab[1]))
    .filter(lambda ab: max(abs(ab[0] - 0.8), abs(ab[1] - 0.1), abs(1 - ab[0] - ab[1] - 0.1)) >= 0.03),
    seed=st.integers(0, 2**20),
)
def test_a_split_other_than_80_10_10_is_caught(split, seed):
    """Any split of the selected tokens 3 points or more from 80/10/10 fails the split
    test (power 1 - 1e-6 at 3 points on ~20,000 tokens); 80/10/10 itself passes."""
    import torch

    from engine import mlm as engine_mlm
    from exercises.lab.checks.mlm import FATES_MASK, FATES_POOL, FATES_SPECIALS, FATES_VOCAB
    from exercises.lab.checks.statistics import split_test

    ids = _fates_batch()
    mask_share, random_share = split
    for shares, caught in (
        (engine_mlm.BERT_SPLIT, False),
        ((mask_share, random_share, 1 - mask_share - random_share), True),
    ):
        out = engine_mlm.mask_tokens(
            ids,
            mask_id=FATES_MASK,
            vocab_size=FATES_VOCAB,
            special_ids=FATES_SPECIALS,
            p=1.0,
            split=shares,
            generator=torch.Generator().manual_seed(seed),
        )
        failure = split_test([], ids, out.input_ids, out.selected, FATES_MASK, len(FATES_POOL), "here", 1.0)
        assert (failure is not None) is caught
        if caught:
            assert failure.rule.code == "split-80-10-10" and failure.diagnosis
            for said in (failure.yours, failure.required):  # the shares named in each language
                en, zh = (said.pick(lang) if hasattr(said, "pick") else said[lang] for lang in ("en", "zh"))
                assert "随机词" in zh and "不变" in zh and "unchanged" in en
                assert "random" not in zh and "unchanged" not in zh


@given(data=st.data())
def test_a_special_drawn_as_the_random_word_is_caught(data):
    """Wherever a selected token shows a special other than [MASK] (a random word drawn
    from the whole vocabulary), random-not-special is broken; the statistics calls find
    it with the same vectorised test over a whole batch (stat_call)."""
    import torch

    from engine import mlm as engine_mlm
    from exercises.lab.checks.masking import judge_mlm

    checker = _checker("bert_mask")
    case = data.draw(checker.strategy())
    vocab, specials, mask_id, rows, _p, seed = case
    ids = torch.tensor(rows, dtype=torch.long)
    others = [s for s in specials if s != mask_id]
    eligible = ~torch.isin(ids, torch.tensor(specials))
    if not others or not bool(eligible.any()):
        return
    out = engine_mlm.mask_tokens(
        ids,
        mask_id=mask_id,
        vocab_size=vocab,
        special_ids=specials,
        p=1.0,
        generator=torch.Generator().manual_seed(seed),
    )
    assert (
        judge_mlm(checker, case, ids, (out.input_ids, out.labels), set(specials), mask_id, vocab, 1.0) is None
    )
    positions = eligible.nonzero().tolist()
    row, col = positions[data.draw(st.integers(0, len(positions) - 1))]
    drawn = out.input_ids.clone()
    drawn[row, col] = data.draw(st.sampled_from(others))
    failure = judge_mlm(checker, case, ids, (drawn, out.labels), set(specials), mask_id, vocab, 1.0)
    assert failure.rule.code == "random-not-special" and failure.diagnosis == "random-word-special"


def _bert_mask(*, global_draws=(), own_generator=False, fixed=None, per_call=False):
    """bert_mask, right in every other way, whose named draws use torch's global RNG, or a
    generator of its own, or that selects a fixed count (``fixed(p * n)``) per row or per call."""
    import torch

    def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):
        if own_generator:
            generator = torch.Generator().manual_seed(0)

        def source(name):
            return None if name in global_draws else generator

        special = torch.isin(ids, torch.tensor(special_ids, dtype=ids.dtype))
        scores = torch.rand(ids.shape, generator=source("selection"))
        if fixed is None:
            selected = (scores < p) & ~special
        else:
            scores = scores.masked_fill(special, 2.0)
            selected = torch.zeros_like(special)
            groups = [selected.view(-1)] if per_call else list(selected)
            weights = [scores.view(-1)] if per_call else list(scores)
            eligible = [(~special).view(-1)] if per_call else list(~special)
            for chosen, weight, ok in zip(groups, weights, eligible, strict=True):
                chosen[weight.argsort()[: fixed(p * int(ok.sum()))]] = True
        fate = torch.rand(ids.shape, generator=source("fate"))
        randomised = selected & (fate >= 0.8) & (fate < 0.9)
        input_ids = ids.masked_fill(selected & (fate < 0.8), mask_id)
        pool = torch.tensor([i for i in range(vocab_size) if i not in special_ids], dtype=ids.dtype)
        input_ids[randomised] = pool[
            torch.randint(0, len(pool), (int(randomised.sum()),), generator=source("words"))
        ]
        return input_ids, torch.where(selected, ids, torch.full_like(ids, -100))

    return bert_mask


DRAWS = ("selection", "fate", "words")


@pytest.mark.parametrize(
    "global_draws", [tuple(d for i, d in enumerate(DRAWS) if mask >> i & 1) for mask in range(1, 8)], ids=str
)
def test_every_draw_must_come_from_the_generator(global_draws):
    """Each of the 7 ways of taking some draws from torch's global RNG breaks
    reproducible, shown on a small case found by the search; a generator of the
    function's own breaks generator-used; drawing from the generator passes both."""
    from exercises.lab.checks.core import generator_rules

    checker = _checker("bert_mask")
    rich, reseeded = checker.rich(99), checker.rich(100)
    assert generator_rules(checker, InProcess("bert_mask", _bert_mask()), rich, reseeded) is None
    failure = generator_rules(
        checker, InProcess("bert_mask", _bert_mask(global_draws=global_draws)), rich, reseeded
    )
    assert failure.rule.code == "reproducible" and failure.diagnosis == "global-rng"
    assert len(failure.input) < len(checker.describe(rich)) / 2  # shrunk, not the rich case
    own = generator_rules(checker, InProcess("bert_mask", _bert_mask(own_generator=True)), rich, reseeded)
    assert own.rule.code == "generator-used" and own.diagnosis == "generator-ignored"


@pytest.mark.parametrize("per_call", [False, True], ids=["per-row", "per-call"])
@pytest.mark.parametrize(
    "fixed",
    [round, math.floor, math.ceil, lambda x: max(1, round(x))],
    ids=["round", "floor", "ceil", "at-least-one"],
)
def test_a_fixed_count_per_row_fails_on_short_rows(fixed, per_call):
    """Selecting exactly f(p * eligible) per row (or per call), for each rounding f:
    the long-row test cannot tell, the short rows can, and the mistake is named."""
    checker = _checker("bert_mask")
    box = InProcess("bert_mask", _bert_mask(fixed=fixed, per_call=per_call))
    failure = checker.statistics(box, [])
    assert failure.rule.code == "selection-rate-short-rows" and failure.diagnosis == "selection-fixed-count"
    assert checker.statistics(InProcess("bert_mask", _bert_mask()), []) is None


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
    assert capsys.readouterr().out == solution(task)  # the reference file, docstring and all
    assert all((work / t.file_name).read_text() == starter(t) for t in TASKS if t is not task)
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
        ["lab", "nope"],
        ["lab", "init", "a", "--dir", "b"],
        ["lab", "watch", "--dir", "/nonexistent-lab-dir"],
        ["lab", "check", "no-such-folder-or-task"],
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


def test_a_typo_for_an_action_is_an_error_never_a_folder(tmp_path, capsys, monkeypatch):
    """`lab nope` used to open the app on a new folder `nope` and remember it: now a
    word that is no action is an error (with the closest action), and only the
    documented forms open the lab screen."""
    monkeypatch.chdir(tmp_path)
    opened = []
    monkeypatch.setattr("tui.commands.lab.run_lab_app", lambda lang, folder: opened.append(folder))
    for typo, guess in (("nope", None), ("chek", "check"), ("INIT", "init"), ("solutoin", "solution")):
        with pytest.raises(SystemExit) as stop:
            main(["lab", typo])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and f"'{typo}'" in err and err.count("\n") == 1
        assert (f"'{typo}' (did you mean {guess}?)" in err) if guess else "did you mean" not in err
    assert opened == [] and list(tmp_path.iterdir()) == []
    (tmp_path / "mylab").mkdir()
    assert main(["lab", "mylab"]) == 0 and opened[-1] == Path(
        "mylab"
    )  # the old form, on a folder that exists
    assert main(["lab", "--dir", "new"]) == 0 and opened[-1] == Path("new")
    assert main(["lab"]) == 0 and opened[-1] is None  # the folder last used, else the default
    with pytest.raises(SystemExit):
        main(["lab", "--lang", "zh", "chek"])
    assert "是不是想输入 check？" in capsys.readouterr().err


async def test_the_lab_screen_remembers_a_folder_only_once_it_holds_the_lab(tmp_path):
    from tui.commands.lab import lab_app
    from tui.screens.lab import LabScreen

    for folder, remembered in ((tmp_path / "typo", False), (tmp_path / "lab", True)):
        if remembered:
            init(folder)
        app = lab_app("en", folder, load_engine=False, still=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, LabScreen) and app.screen.folder == folder.resolve()
            assert (app.progress.setting("lab_dir") == str(folder.resolve())) is remembered
        assert not (tmp_path / "typo").exists()


@pytest.mark.slow
def test_init_watch_and_check_take_the_folder_the_same_way(tmp_path, capsys, monkeypatch):
    """--dir DIR for every action; a folder in the task's place for init, watch and check
    too; a task's file path checks that file in its folder."""
    import watchfiles

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(watchfiles, "watch", lambda *args, **kwargs: iter(()))
    assert main(["lab", "init", "--dir", "one"]) == 0 and len(list((tmp_path / "one").glob("*.py"))) == len(
        TASKS
    )
    assert main(["lab", "init", "two"]) == 0 and len(list((tmp_path / "two").glob("*.py"))) == len(TASKS)
    assert "lab watch --dir two" in capsys.readouterr().out
    for argv in (["check", "causal_mask", "--dir", "one"], ["check", "two/10_causal_mask.py"]):
        assert main(["lab", *argv, "--json"]) == 1
        (checked,) = json.loads(capsys.readouterr().out)["tasks"]
        assert checked["task"] == "causal_mask" and checked["status"] == "not-started"
    assert main(["lab", "check", "one", "--json"]) == 1
    assert len(json.loads(capsys.readouterr().out)["tasks"]) == len(TASKS)
    for argv in (["watch", "one"], ["watch", "--dir", "two"]):
        assert main(["lab", *argv]) == 0
        assert "01_three_samples.py" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["lab", "check", "one", "--dir", "two"])
    assert "two folders" in capsys.readouterr().err


def test_the_default_lab_folder_follows_objectives_tutor_home(tmp_path, capsys, monkeypatch):
    """With OBJECTIVES_TUTOR_HOME set, `lab init` without a folder writes under it, never
    into the current directory or ~/objectives-lab; unset, ~/objectives-lab."""
    from exercises.lab.workspace import default_folder

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    home = Path(os.environ["OBJECTIVES_TUTOR_HOME"])
    assert main(["lab", "init"]) == 0
    assert len(list((home / "code-lab").glob("*.py"))) == len(TASKS)
    assert list(elsewhere.iterdir()) == [] and not (tmp_path / "user").exists()
    capsys.readouterr()
    assert main(["lab", "check", "10", "--json"]) == 1  # finds the default folder too
    assert json.loads(capsys.readouterr().out)["tasks"][0]["status"] == "not-started"
    monkeypatch.delenv("OBJECTIVES_TUTOR_HOME")
    assert default_folder() == tmp_path / "user" / "objectives-lab"


def test_done_means_the_file_shown_passes_now(tmp_path, capsys):
    """A pass, then a failure of the same task: not done any more; back to the passing
    file: done again without a new check; a folder of starters: none done, whatever the
    record holds for other folders."""
    task = BY_ID["causal_mask"]
    work, fresh = tmp_path / "work", tmp_path / "fresh"
    init(work)
    init(fresh)

    def done_after(argv) -> int:
        main(["lab", *argv, "--json"])
        return json.loads(capsys.readouterr().out)["done"]

    (work / task.file_name).write_text(solution(task))
    assert done_after(["check", "10", "--dir", str(work)]) == 1
    bug = next(b for b in BUGS if b.task == "causal_mask")
    (work / task.file_name).write_text(buggy_source(solution(task), bug))
    assert done_after(["check", "10", "--dir", str(work)]) == 0
    (work / task.file_name).write_text(solution(task))
    assert done_after(["check", "13", "--dir", str(work)]) == 1  # causal_mask's file passed as it is
    assert done_after(["check", "13", "--dir", str(fresh)]) == 0
    assert LabRecord().done() == {"causal_mask"}  # the history keeps every task that passed once


def test_runs_saved_before_digests_are_history_not_done(tmp_path):
    """A progress.db whose lab_runs has no digest column (older versions) gets one; its
    old passes stay in the history but no file counts as passing on their account."""
    import sqlite3

    record = LabRecord()
    record.path.parent.mkdir(parents=True, exist_ok=True)
    old = sqlite3.connect(record.path)
    old.execute(
        "CREATE TABLE lab_runs (id INTEGER PRIMARY KEY AUTOINCREMENT, task TEXT NOT NULL, passed INTEGER NOT NULL,"
        " status TEXT NOT NULL, rule TEXT, diagnosis TEXT, seconds REAL NOT NULL, at REAL NOT NULL)"
    )
    old.execute(
        "INSERT INTO lab_runs (task, passed, status, seconds, at) VALUES ('causal_mask', 1, 'pass', 0.1, 1.0)"
    )
    old.commit()
    old.close()
    init(tmp_path / "work")
    (tmp_path / "work" / "10_causal_mask.py").write_text(solution(BY_ID["causal_mask"]))
    assert record.done() == {"causal_mask"} and record.passing(tmp_path / "work") == set()
    result = run_check("causal_mask", tmp_path / "work" / "10_causal_mask.py")
    assert record.record(result) and record.passing(tmp_path / "work") == {"causal_mask"}


@pytest.mark.parametrize(
    ("source", "status", "words"),
    [
        ("def other(n):\n    return n\n", "invalid", "no function named causal_mask"),
        ('def causal_mask(n):\n    x = """\n', "invalid", "line"),
        ("import torch\n\n\ndef causal_mask(n):\n    return torch.ones(n)[n + 5]\n", "fail", "(line 5)"),
        ("def causal_mask():\n    return 1\n", "fail", "TypeError"),
    ],
    ids=["missing", "unterminated-string", "error-line", "wrong-signature"],
)
def test_the_probe_added_to_a_copy_of_the_file_is_invisible(source, status, words, tmp_path):
    """The checks call the learner's function through a probe appended to a copy of their
    file: a missing function is still named, lines are theirs (never past their last
    line), an unterminated string at the end stays a syntax error."""
    result = run_check("causal_mask", _write(tmp_path, "10_causal_mask.py", source))
    assert result.status == status
    shown = result.message["en"] if status == "invalid" else result.failure.yours
    assert words in shown and "__objectives_lab_call__" not in shown
    lines = source.count("\n") + 1
    line = result.line if status == "invalid" else None
    assert line is None or line <= lines
    if status == "fail":
        assert all(f"(line {n})" not in shown for n in range(lines + 1, lines + 30))


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
            st.lists(st.integers(0, n), min_size=0, max_size=8, unique=True).map(sorted),
            st.data(),
        )
    )
)
def test_engine_t5_matches_an_independent_transcription(case):
    """The span task is graded against the engine; the engine must agree with T5's
    format written out plainly (touching spans merged, closing sentinel only before
    kept text, </s> on both; no span at all: the whole text is <extra_id_0>'s). T5's
    own two functions, transcribed (t5_literal), agree too, except when a span starts
    the text: the case the task states the course's convention for."""
    from exercises.lab.checks.spans import EOS, SENTINELS, engine_t5, t5_literal

    n, cuts, data = case
    spans = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]
    if spans and data.draw(st.booleans()) and spans[-1][1] - spans[-1][0] >= 2:  # two touching halves
        start, end = spans.pop()
        spans += [(start, start + 1), (start + 1, end)]
    tokens = list(range(10, 10 + n))
    course = engine_t5(tokens, spans)
    assert course == t5_reference(tokens, spans, SENTINELS, EOS)
    starts_with_a_span = bool(spans) and spans[0][0] == 0
    assert (t5_literal(tokens, spans) == course) is not starts_with_a_span


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
    from exercises.lab.checks.core import judge_output

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
    from exercises.lab.checks.core import judge_output
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
    from exercises.lab.checks.core import SHAPE, judge_output

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


# -- issue 31: each rule over the task's parameter space -----------------------------------------


def _masked(ids, p, seed, *, one_uniform=False, per_column=False):
    """bert_mask's output on ``ids`` (the small vocabulary): right, or with one uniform for
    selection and fate, or with one selection per column repeated over the rows."""
    import torch

    from exercises.lab.checks.mlm import FATES_MASK, FATES_POOL, FATES_SPECIALS

    g = torch.Generator().manual_seed(seed)
    special = torch.isin(ids, torch.tensor(FATES_SPECIALS))
    u = torch.rand(ids.shape[-1:] if per_column else ids.shape, generator=g).expand(ids.shape)
    fate = u if one_uniform else torch.rand(ids.shape, generator=g)
    selected = (u < p) & ~special
    out = ids.masked_fill(selected & (fate < 0.8), FATES_MASK)
    random = selected & (fate >= 0.8) & (fate < 0.9)
    out[random] = torch.tensor(FATES_POOL)[
        torch.randint(0, len(FATES_POOL), (int(random.sum()),), generator=g)
    ]
    return out, selected, special


@settings(max_examples=30, derandomize=True)
@given(p=st.floats(0.05, 0.95), seed=st.integers(0, 2**20))
def test_one_uniform_for_selection_and_fate_fails_the_split_at_any_p_below_1(p, seed):
    """At any p in (0, 1) a fate read from the selection's uniform breaks the split and is
    named; two draws pass at the same p (the split test is used at p = 0.55)."""
    from exercises.lab.checks.mlm import FATES_MASK, FATES_POOL
    from exercises.lab.checks.statistics import split_test

    ids = _fates_batch()
    right, selected, _special = _masked(ids, p, seed)
    assert split_test([], ids, right, selected, FATES_MASK, len(FATES_POOL), "here", p) is None
    wrong, selected, _special = _masked(ids, p, seed, one_uniform=True)
    failure = split_test([], ids, wrong, selected, FATES_MASK, len(FATES_POOL), "here", p)
    assert failure.rule.code == "split-80-10-10"
    if p < 0.75:  # above, the shares near 80/10/10 (0.9 of p: 89/11/0) fit no single name
        assert failure.diagnosis == "fate-reuses-selection-draw"


@settings(max_examples=30, derandomize=True)
@given(p=st.floats(0.05, 0.95), seed=st.integers(0, 2**20))
def test_rows_selected_together_fail_independence_at_any_p(p, seed):
    """A selection drawn per column and repeated over the rows fails the pairs test at
    any p in (0, 1); independent rows pass it."""
    from exercises.lab.checks.statistics import independence_test

    ids = _fates_batch()
    for per_column in (False, True):
        _out, selected, special = _masked(ids, p, seed, per_column=per_column)
        eligible = ~special[0::2] & ~special[1::2]
        failure = independence_test([], "rows", selected[0::2], selected[1::2], eligible, p, "here")
        assert (failure is not None) is per_column
        if per_column:
            assert (
                failure.rule.code == "selection-independent" and failure.diagnosis == "rows-masked-together"
            )


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), "nan", "1.5", True, [1.0]])
def test_no_numeric_comparison_accepts_what_is_not_a_finite_number(value):
    import torch

    from exercises.lab.checks.core import close, finite

    assert finite(value) is None
    if isinstance(value, float):
        assert finite(torch.tensor(value)) is None
        assert not close(value, 1.0) and not close(1.0, value)
    assert finite(1.5) == 1.5 and finite(torch.tensor(1.5)) == 1.5
