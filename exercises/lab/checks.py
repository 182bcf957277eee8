"""Each task's rules, checked as properties of the learner's function.

The learner's function runs in the sandbox; everything here runs in the trusted
process. For each task hypothesis searches its inputs (token ids, lengths,
special-token sets, probabilities, seeds) for one that breaks a rule, and shrinks
it to the smallest such input; the first rule it breaks is reported with that
input, the learner's output and what the rule requires, the rule in words and,
where one fits, the misconception code of ``exercises.grading.diagnoses``.
Statistical rules (the 15 %, the 80/10/10) are exact binomial tests on one large
call (``exercises.lab.stats``). The search is derandomised: the same file gets
the same counterexample every time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from engine import clm as engine_clm
from engine import masks as engine_masks
from engine import mlm as engine_mlm
from engine import spans as engine_spans
from engine import textbook as engine_textbook
from engine.settings import MASK_RATE
from exercises.lab import stats
from exercises.lab.sandbox import Generator, LearnerError, LoadFailed, Sandbox, SandboxStopped
from exercises.lab.tasks import BY_ID, Task
from exercises.text import Bilingual, L

IGNORE = -100
MAX_EXAMPLES = 80
STAT_CALL_LIMIT_S = 30.0


@dataclass(frozen=True)
class Rule:
    code: str  # stable: tests, --json and the lab_runs table name rules by it
    text: Bilingual
    diagnosis: str | None = None


@dataclass
class Failure:
    rule: Rule
    input: str  # the (shrunk) input, written out
    yours: str  # what the learner's function returned there
    required: Bilingual  # what the rule requires there
    diagnosis: str | None = None
    note: Bilingual | None = None

    def to_json(self) -> dict:
        return {
            "rule": self.rule.code,
            "rule_text": self.rule.text,
            "input": self.input,
            "yours": self.yours,
            "required": self.required,
            "diagnosis": self.diagnosis,
            "note": self.note,
        }


@dataclass
class LabResult:
    task: str
    status: str  # pass | fail | not-started | invalid (cannot load) | stopped (time, memory)
    failure: Failure | None = None
    message: Bilingual | None = None
    line: int | None = None
    exact: bool | None = None  # equal to the engine value for value (where the task can be)
    statistics: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    sandbox_start_seconds: float = 0.0
    calls: int = 0
    printed: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    @property
    def first_rule(self) -> str | None:
        if self.failure is not None:
            return self.failure.rule.code
        return None if self.passed else self.status

    def to_json(self) -> dict:
        return {
            "task": self.task,
            "status": self.status,
            "passed": self.passed,
            "rule": self.first_rule,
            "failure": None if self.failure is None else self.failure.to_json(),
            "message": self.message,
            "line": self.line,
            "exact": self.exact,
            "statistics": self.statistics,
            "seconds": round(self.seconds, 3),
            "sandbox_start_seconds": round(self.sandbox_start_seconds, 3),
            "calls": self.calls,
        }


def same(text: str) -> Bilingual:
    return L(text, text)


RUNS = Rule(
    "runs",
    L(
        "Your function must return for every valid input, without raising.",
        "对每个合法输入，你的函数都要正常返回，不能抛出异常。",
    ),
)
SHAPE = Rule(
    "shape",
    L("The result must have the type and shape the task states.", "结果的类型和形状必须与题目所述一致。"),
)
REPRODUCIBLE = Rule(
    "reproducible",
    L(
        "Every random draw must use the generator you are given: the same seed must give the same result.",
        "所有随机抽样都必须用传入的 generator：同一个种子必须得到同样的结果。",
    ),
)


class Unfit(Exception):
    """The output is not even the right kind of value."""

    def __init__(self, yours: str, required: Bilingual) -> None:
        super().__init__(yours)
        self.yours, self.required = yours, required


# -- showing values ------------------------------------------------------------


def show(value, limit: int = 160) -> str:
    if isinstance(value, torch.Tensor):
        if value.dim() == 0:
            item = value.item()
            return f"{item:.4f}" if isinstance(item, float) else str(item)
        if value.dtype == torch.bool:
            value = value.to(torch.int8)
        if value.dim() == 2 and value.dtype == torch.int8:
            text = "\n".join("".join(str(v) for v in row) for row in value.tolist())
        else:
            text = str(value.tolist())
    elif isinstance(value, float):
        text = f"{value:.4f}"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tensor(value, name: str, shape: tuple[int, ...] | None = None, kind: str = "int") -> torch.Tensor:
    """The learner's value as a tensor of the stated shape, or Unfit."""
    if not isinstance(value, torch.Tensor):
        raise Unfit(f"{name}: {show(value)}", L(f"{name}: a torch.Tensor", f"{name}：一个 torch.Tensor"))
    if shape is not None and tuple(value.shape) != tuple(shape):
        raise Unfit(
            f"{name}.shape = {tuple(value.shape)}",
            L(f"{name}.shape = {tuple(shape)}", f"{name}.shape = {tuple(shape)}"),
        )
    if kind == "bool" and value.dtype != torch.bool:
        raise Unfit(
            f"{name}.dtype = {value.dtype}",
            L(f"{name}.dtype = torch.bool (True = blocked)", f"{name}.dtype = torch.bool（True = 被遮盖）"),
        )
    if kind == "int" and (value.dtype.is_floating_point or value.dtype == torch.bool or value.is_complex()):
        raise Unfit(f"{name}.dtype = {value.dtype}", same(f"{name}: integer ids (torch.long)"))
    return value


def pair(value, names: tuple[str, ...]) -> tuple:
    if not isinstance(value, (tuple, list)) or len(value) != len(names):
        raise Unfit(show(value, 80), same(f"a tuple ({', '.join(names)})"))
    return tuple(value)


def _batch(b: int, n: int, cell: st.SearchStrategy) -> st.SearchStrategy[list[list]]:
    """A batch of ``b`` rows of ``n`` values drawn from ``cell``."""
    return st.lists(st.lists(cell, min_size=n, max_size=n), min_size=b, max_size=b)


def _batches(sizes: st.SearchStrategy[int], lengths: st.SearchStrategy[int], cell) -> st.SearchStrategy:
    """Batches of any size and row length the two strategies give."""
    return sizes.flatmap(lambda b: lengths.flatmap(lambda n: _batch(b, n, cell)))


# -- one checker per task --------------------------------------------------------


class Checker:
    """How to call one task's function, what its inputs are, and its rules."""

    rules: tuple[Rule, ...] = ()
    examples = MAX_EXAMPLES  # hypothesis examples searched; fewer where one call is costly

    def strategy(self) -> st.SearchStrategy:
        raise NotImplementedError

    def smoke(self):
        raise NotImplementedError

    def args(self, case) -> tuple:
        raise NotImplementedError

    def describe(self, case) -> str:
        raise NotImplementedError

    def judge(self, case, out) -> Failure | None:
        raise NotImplementedError

    def extra(self, box: Sandbox, result: LabResult) -> Failure | None:
        """Checks beyond the search: reproducibility, statistics, exactness."""
        return None

    def fail(
        self, rule: Rule, case, yours: str, required: Bilingual, diagnosis: str | None = None, note=None
    ) -> Failure:
        """``diagnosis``: None takes the rule's own misconception, "" names none."""
        code = rule.diagnosis if diagnosis is None else diagnosis
        return Failure(rule, self.describe(case), yours, required, code or None, note)


def _mask_rule_cell(out: torch.Tensor, ref: torch.Tensor) -> tuple[int, ...]:
    diff = (out != ref).nonzero()
    return tuple(int(v) for v in diff[0])


# Masks ---------------------------------------------------------------------------

DIAGONAL = Rule(
    "diagonal-visible",
    L("A position may look at itself: the diagonal is not blocked.", "位置可以看自己：对角线不遮盖。"),
    "mask-blocks-diagonal",
)
FUTURE = Rule(
    "future-blocked",
    L(
        "Query q may not look at a key k > q (the future): mask[q, k] is True.",
        "查询 q 不能看 k > q 的键（未来）：mask[q, k] 为 True。",
    ),
    "causal-sees-future",
)
PAST = Rule(
    "past-visible",
    L(
        "Query q may look at every key k <= q: mask[q, k] is False.",
        "查询 q 可以看所有 k <= q 的键：mask[q, k] 为 False。",
    ),
    "causal-excludes-self",
)


def _classify_square(out: torch.Tensor, ref: torch.Tensor) -> str | None:
    if out.shape[-1] < 2:  # one cell cannot tell an inverted mask from a blocked diagonal
        return None
    if torch.equal(out, ~ref):
        return "mask-inverted"
    if torch.equal(out, ref.transpose(-1, -2)):
        return "mask-transposed"
    return None


class SquareMaskChecker(Checker):
    """A task whose answer is one (n, n) boolean mask, judged cell by cell against the
    engine's: the first wrong cell names the rule it breaks."""

    def reference(self, case) -> torch.Tensor:
        raise NotImplementedError

    def rule_at(self, case, q: int, k: int) -> Rule:
        """The rule that cell [q, k] of the mask follows."""
        raise NotImplementedError

    def diagnose(self, case, rule: Rule, mask: torch.Tensor) -> str | None:
        """A misconception the whole mask shows, beyond the square's own (inverted, transposed)."""
        return None

    def judge(self, case, out):
        ref = self.reference(case)
        n = ref.shape[-1]
        try:
            mask = tensor(out, "mask", (n, n), "bool")
        except Unfit as unfit:
            return self.fail(SHAPE, case, unfit.yours, unfit.required)
        if torch.equal(mask, ref):
            return None
        q, k = _mask_rule_cell(mask, ref)
        rule = self.rule_at(case, q, k)
        return self.fail(
            rule,
            case,
            f"mask[{q}, {k}] = {bool(mask[q, k])}\n{show(mask)}",
            same(f"mask[{q}, {k}] = {bool(ref[q, k])}\n{show(ref)}"),
            self.diagnose(case, rule, mask) or _classify_square(mask, ref),  # None: the rule's own
        )


class CausalMask(SquareMaskChecker):
    rules = (SHAPE, DIAGONAL, FUTURE, PAST)

    def strategy(self):
        return st.integers(1, 12)

    def smoke(self):
        return 4

    def args(self, n):
        return (n,)

    def describe(self, n):
        return f"n = {n}"

    def reference(self, n):
        return engine_masks.causal_mask(n)

    def rule_at(self, n, q, k):
        return DIAGONAL if q == k else FUTURE if k > q else PAST


PREFIX_VISIBLE = Rule(
    "prefix-visible",
    L(
        "Every query may look at every prefix key: k < prefix_len is never blocked.",
        "每个查询都能看前缀中的所有键：k < prefix_len 从不遮盖。",
    ),
    "prefix-ignored",
)
PREFIX_BOUNDARY = Rule(
    "prefix-boundary",
    L(
        "Key prefix_len is the first causal position: a query q < prefix_len may not see it (allowed = k <= q or k < prefix_len).",
        "键 prefix_len 是第一个因果位置：查询 q < prefix_len 不能看它（allowed = k <= q 或 k < prefix_len）。",
    ),
)
PREFIX_FUTURE = Rule(
    "future-blocked",
    L(
        "After the prefix, attention is causal: a key k > q with k >= prefix_len is blocked.",
        "前缀之后是因果的：k > q 且 k >= prefix_len 的键被遮盖。",
    ),
    "prefix-fully-bidirectional",
)


class PrefixMask(SquareMaskChecker):
    rules = (SHAPE, PREFIX_VISIBLE, PREFIX_BOUNDARY, PREFIX_FUTURE, PAST)

    def strategy(self):
        return st.integers(1, 10).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))

    def smoke(self):
        return (6, 3)

    def args(self, case):
        return case

    def describe(self, case):
        return f"n = {case[0]}, prefix_len = {case[1]}"

    def reference(self, case):
        return engine_masks.prefix_mask(*case)

    def rule_at(self, case, q, k):
        prefix = case[1]
        if k < prefix:
            return PREFIX_VISIBLE
        if k == prefix and q < prefix:
            return PREFIX_BOUNDARY
        if k > q:
            return PREFIX_FUTURE
        return DIAGONAL if q == k else PAST

    def diagnose(self, case, rule, mask):
        if rule is PREFIX_FUTURE and torch.equal(mask, torch.zeros_like(mask)):
            return "prefix-fully-bidirectional"
        if rule is PREFIX_VISIBLE and torch.equal(mask, engine_masks.causal_mask(case[0])):
            return "prefix-ignored"
        return None


PADDING_KEYS = Rule(
    "padding-keys-blocked",
    L(
        "A padding key (attention_mask 0) is blocked for every query of its row.",
        "填充位置的键（attention_mask 为 0）对该行每个查询都遮盖。",
    ),
)
PADDING_ONLY_KEYS = Rule(
    "padding-blocks-keys-only",
    L(
        "Padding blocks keys (columns), not queries: a real key k <= q stays visible, even to a padding query.",
        "填充遮盖的是键（列），不是查询：真实的键 k <= q 仍然可见，即使查询本身是填充。",
    ),
)


class PaddedCausalMask(Checker):
    rules = (SHAPE, FUTURE, PADDING_KEYS, PADDING_ONLY_KEYS, PAST)

    def strategy(self):
        return _batches(st.integers(1, 3), st.integers(1, 7), st.integers(0, 1))

    def smoke(self):
        return [[1, 1, 1, 0], [1, 1, 0, 0]]

    def args(self, rows):
        return (torch.tensor(rows),)

    def describe(self, rows):
        return "attention_mask =\n" + "\n".join(str(row) for row in rows)

    def judge(self, rows, out):
        attention = torch.tensor(rows)
        b, n = attention.shape
        ref = engine_masks.with_key_padding(engine_masks.causal_mask(n), attention)
        try:
            mask = tensor(out, "mask", (b, n, n), "bool")
        except Unfit as unfit:
            return self.fail(SHAPE, rows, unfit.yours, unfit.required)
        if torch.equal(mask, ref):
            return None
        row, q, k = _mask_rule_cell(mask, ref)
        if k > q:
            rule = FUTURE
        elif attention[row, k] == 0:
            rule = PADDING_KEYS
        elif attention[row, q] == 0:
            rule = PADDING_ONLY_KEYS
        else:
            rule = DIAGONAL if q == k else PAST
        return self.fail(
            rule,
            rows,
            f"mask[{row}, {q}, {k}] = {bool(mask[row, q, k])}\nmask[{row}] =\n{show(mask[row])}",
            same(f"mask[{row}, {q}, {k}] = {bool(ref[row, q, k])}\nmask[{row}] =\n{show(ref[row])}"),
            rule.diagnosis if rule is DIAGONAL else "",
        )


# Causal LM -----------------------------------------------------------------------

INPUTS_DROP_LAST = Rule(
    "inputs-drop-last",
    L(
        "inputs are the tokens without the last one: tokens[..., :-1].",
        "inputs 是去掉最后一个 token 的序列：tokens[..., :-1]。",
    ),
    "inputs-keep-last",
)
LABELS_NEXT = Rule(
    "labels-next-token",
    L(
        "The label of position t is token t+1: labels = tokens[..., 1:].",
        "位置 t 的标签是位置 t+1 上的 token：labels = tokens[..., 1:]。",
    ),
    "labels-not-shifted",
)


class ClmShift(Checker):
    rules = (SHAPE, INPUTS_DROP_LAST, LABELS_NEXT)

    def strategy(self):
        row = st.integers(2, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, 3)))
        return row.flatmap(
            lambda nb: st.lists(
                st.lists(st.integers(0, 99), min_size=nb[0], max_size=nb[0]),
                min_size=max(nb[1], 1),
                max_size=max(nb[1], 1),
            ).map(lambda rows, flat=nb[1] == 0: rows[0] if flat else rows)
        )

    def smoke(self):
        return [10, 11, 12, 13]

    def args(self, tokens):
        return (torch.tensor(tokens),)

    def describe(self, tokens):
        return f"tokens = {tokens}"

    def judge(self, tokens, out):
        ids = torch.tensor(tokens)
        want_in, want_labels = engine_clm.shift_for_next_token(ids)
        try:
            inputs, labels = pair(out, ("inputs", "labels"))
            inputs = tensor(inputs, "inputs", tuple(want_in.shape))
            labels = tensor(labels, "labels", tuple(want_labels.shape))
        except Unfit as unfit:
            return self.fail(SHAPE, tokens, unfit.yours, unfit.required)
        yours = f"inputs = {show(inputs)}\nlabels = {show(labels)}"
        required = same(f"inputs = {show(want_in)}\nlabels = {show(want_labels)}")
        wrong_way = torch.equal(inputs, ids[..., 1:]) and torch.equal(labels, ids[..., :-1])
        if not torch.equal(inputs, want_in):
            return self.fail(
                INPUTS_DROP_LAST, tokens, yours, required, "shifted-wrong-way" if wrong_way else None
            )
        if not torch.equal(labels, want_labels):
            return self.fail(LABELS_NEXT, tokens, yours, required)
        return None


LOGITS_DROP_LAST = Rule(
    "logits-drop-last",
    L(
        "The logits of position t meet the label of position t+1: keep logits[:, :-1] (the last position has nothing to predict).",
        "位置 t 的 logits 对应位置 t+1 的标签：保留 logits[:, :-1]（最后一个位置没有要预测的词）。",
    ),
)
LABELS_DROP_FIRST = Rule(
    "labels-drop-first",
    L(
        "The labels compared are labels[:, 1:]: the first token is never predicted.",
        "参与比较的标签是 labels[:, 1:]：第一个 token 永远不被预测。",
    ),
    "labels-not-shifted",
)


def _random_logits(seed: int, shape: tuple[int, ...], scale: float = 2.0) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed)) * scale


class LogitsChecker(Checker):
    """A task given seeded random logits of shape (b, n, v) and a b x n batch of ids
    (or labels): a case is ((b, n, v, seed), rows)."""

    lengths = (2, 5)  # n, inclusive
    vocab = (2, 4)  # v, inclusive

    def cell(self, vocab: int) -> st.SearchStrategy[int]:
        return st.integers(0, vocab - 1)

    def usable(self, rows: list[list[int]]) -> bool:
        return True

    def strategy(self):
        dims = st.tuples(
            st.integers(1, 2), st.integers(*self.lengths), st.integers(*self.vocab), st.integers(0, 2**16)
        )
        return dims.flatmap(
            lambda d: st.tuples(st.just(d), _batch(d[0], d[1], self.cell(d[2])).filter(self.usable))
        )

    def _inputs(self, case):
        (b, n, v, seed), rows = case
        return _random_logits(seed, (b, n, v)), torch.tensor(rows)

    def args(self, case):
        return self._inputs(case)


class LossSidePairs(LogitsChecker):
    rules = (SHAPE, LOGITS_DROP_LAST, LABELS_DROP_FIRST)

    def smoke(self):
        return ((1, 4, 3, 0), [[0, 1, 2, 1]])

    def describe(self, case):
        (b, n, v, _seed), ids = case
        return f"logits: shape ({b}, {n}, {v}), logits[0, t] differs for every t\ninput_ids = {ids}"

    def judge(self, case, out):
        logits, ids = self._inputs(case)
        b, n, v = logits.shape
        try:
            got_logits, got_labels = pair(out, ("shifted_logits", "shifted_labels"))
            got_logits = tensor(got_logits, "shifted_logits", (b, n - 1, v), kind="float")
            got_labels = tensor(got_labels, "shifted_labels", (b, n - 1))
        except Unfit as unfit:
            return self.fail(SHAPE, case, unfit.yours, unfit.required)

        def positions(rows: torch.Tensor) -> list:
            found = []
            for t in range(rows.shape[1]):
                match = [s for s in range(n) if torch.equal(rows[0, t], logits[0, s])]
                found.append(match[0] if match else "?")
            return found

        wrong_way = torch.equal(got_logits, logits[:, 1:]) and torch.equal(got_labels, ids[:, :-1])
        diagnosis = "shifted-wrong-way" if wrong_way else None
        yours = f"logits of positions {positions(got_logits)}\nlabels = {show(got_labels)}"
        pairs = engine_clm.loss_side_pairs(n)  # (logit position, label position)
        want_labels = ids[:, [label for _logit, label in pairs]]
        required = same(
            f"logits of positions {[logit for logit, _label in pairs]}\nlabels = {show(want_labels)}"
        )
        if not torch.equal(got_logits, logits[:, [logit for logit, _label in pairs]]):
            return self.fail(LOGITS_DROP_LAST, case, yours, required, diagnosis)
        if not torch.equal(got_labels, want_labels):
            return self.fail(LABELS_DROP_FIRST, case, yours, required, diagnosis)
        return None


LOSS_EQUAL = Rule(
    "loss-equals-engine",
    L(
        "The loss is the mean cross-entropy of logits[:, :-1] against labels[:, 1:] over the labels that are not -100, equal to the engine's.",
        "损失是 logits[:, :-1] 对 labels[:, 1:] 在非 -100 标签上的平均交叉熵，应与引擎的结果相等。",
    ),
)
IGNORE_INDEX_RULE = Rule(
    "ignore-index",
    L(
        "Labels -100 are left out of the loss (ignore_index=-100): they are not classes.",
        "标签 -100 不参与损失（ignore_index=-100）：它们不是类别。",
    ),
)


def _ce(logits: torch.Tensor, labels: torch.Tensor) -> float:
    return float(engine_clm.causal_lm_loss(logits, labels))


class ClmLoss(LogitsChecker):
    rules = (SHAPE, IGNORE_INDEX_RULE, LOSS_EQUAL)
    lengths, vocab = (2, 6), (2, 5)

    def cell(self, vocab):
        return st.one_of(st.just(IGNORE), st.integers(0, vocab - 1))

    def usable(self, rows):
        return any(v != IGNORE for row in rows for v in row[1:])  # at least one label in the loss

    def smoke(self):
        return ((1, 4, 3, 0), [[0, 1, 2, IGNORE]])

    def describe(self, case):
        (b, n, v, seed), labels = case
        return f"logits: shape ({b}, {n}, {v}), seed {seed}\nlabels = {labels}"

    def judge(self, case, out):
        logits, labels = self._inputs(case)
        want = float(engine_clm.loss_side_loss(logits, labels))
        if isinstance(out, torch.Tensor) and out.numel() == 1 and out.dtype.is_floating_point:
            value = float(out)
        elif isinstance(out, float):
            value = out
        else:
            return self.fail(SHAPE, case, show(out), same("a 0-d float tensor"))
        if abs(value - want) <= 1e-4 * max(1.0, abs(want)):
            return None
        alternatives = {}  # the loss a known mistake gives, where it is defined
        if bool((labels[:, :-1] != IGNORE).any()):
            alternatives["shifted-wrong-way"] = _ce(logits[:, 1:], labels[:, :-1])
        if bool((labels != IGNORE).any()):
            alternatives["labels-not-shifted"] = _ce(logits, labels)
        diagnosis = next(
            (code for code, alt in alternatives.items() if abs(alt - value) <= 1e-4 * max(1.0, abs(alt))),
            None,
        )
        return self.fail(LOSS_EQUAL, case, f"loss = {value:.4f}", same(f"loss = {want:.4f}"), diagnosis)

    def raised(self, case, error: LearnerError) -> Failure | None:
        if "out of bounds" in error.message or "Target -100" in error.message:
            return self.fail(
                IGNORE_INDEX_RULE, case, f"{error.name}: {error.message[:120]}", same("ignore_index=-100")
            )
        return None


SAME_DRAWS = Rule(
    "same-draws",
    L(
        "Draw from the given generator in the stated order: the same seed must give the lesson's numbers.",
        "按给定顺序从给定的生成器抽样：同一个种子必须得到讲义的数字。",
    ),
)
LOSS_LESSON = Rule(
    "loss-matches-lesson",
    L(
        "The loss is the cross-entropy of logits[:, :-1] against input_ids[:, 1:], with the projection scaled by 1/sqrt(64).",
        "损失是 logits[:, :-1] 对 input_ids[:, 1:] 的交叉熵，投影要按 1/sqrt(64) 缩放。",
    ),
)


class LessonClmRun(Checker):
    examples = 25  # each call draws a 64 x 10000 projection, here and in the sandbox
    rules = (SHAPE, SAME_DRAWS, LOSS_LESSON, DIAGONAL, FUTURE, PAST)

    def strategy(self):
        return st.tuples(st.integers(0, 2**16), st.integers(1, 3), st.integers(2, 8))

    def smoke(self):
        return (0, 2, 4)

    def args(self, case):
        return case

    def describe(self, case):
        return "seed = {}, batch = {}, seq_len = {}".format(*case)

    def judge(self, case, out):
        seed, batch, seq_len = case
        ref = engine_textbook.clm_run(seed=seed, batch=batch, seq_len=seq_len)
        try:
            ids, loss, mask = pair(out, ("input_ids", "loss", "mask"))
            ids = tensor(ids, "input_ids", (batch, seq_len))
            mask = tensor(mask, "mask", (seq_len, seq_len), "bool")
            loss = float(loss)
        except (Unfit, TypeError, ValueError, RuntimeError) as problem:
            if isinstance(problem, Unfit):
                return self.fail(SHAPE, case, problem.yours, problem.required)
            return self.fail(SHAPE, case, show(out, 80), same("(input_ids, loss as a float, mask)"))
        if not torch.equal(ids, ref.input_ids):
            return self.fail(
                SAME_DRAWS, case, f"input_ids = {show(ids)}", same(f"input_ids = {show(ref.input_ids)}")
            )
        if abs(loss - ref.loss) > 1e-4 * max(1.0, ref.loss):
            diagnosis = (
                "scaling-bug-missed" if abs(loss - ref.loss_unscaled) < 1e-3 * ref.loss_unscaled else None
            )
            return self.fail(
                LOSS_LESSON, case, f"loss = {loss:.4f}", same(f"loss = {ref.loss:.4f}"), diagnosis
            )
        if not torch.equal(mask, ref.causal_mask):
            q, k = _mask_rule_cell(mask, ref.causal_mask)
            rule = DIAGONAL if q == k else FUTURE if k > q else PAST
            return self.fail(
                rule, case, show(mask), same(show(ref.causal_mask)), _classify_square(mask, ref.causal_mask)
            )
        return None


# Masked LM -------------------------------------------------------------------------

LABELS_OFF = Rule(
    "labels-off-selected",
    L(
        "Labels are -100 exactly off the selected positions: special tokens are never selected, and with p = 0 nothing is; there every label is -100 and the input is unchanged.",
        "标签恰好在未选中的位置为 -100：特殊符号从不被选中，p = 0 时什么都不选；这些位置的标签都是 -100，输入保持不变。",
    ),
    "loss-includes-unselected",
)
SPECIALS = Rule(
    "specials-never-selected",
    L(
        "Special tokens are never selected: at a special position the input is unchanged and the label is -100.",
        "特殊符号从不被选中：特殊位置的输入不变，标签为 -100。",
    ),
    "specials-selected",
)
LABEL_ORIGINAL = Rule(
    "label-is-original",
    L(
        "Every label is either -100 or the original token at that position.",
        "每个标签要么是 -100，要么是该位置的原始 token。",
    ),
)
UNSELECTED_KEPT = Rule(
    "unselected-unchanged",
    L(
        "A position whose label is -100 was not selected: its input token stays as it was. Every changed token needs its label.",
        "标签为 -100 的位置没有被选中：它的输入保持原样。每个被改动的 token 都要有标签。",
    ),
)
RANDOM_NOT_SPECIAL = Rule(
    "random-not-special",
    L(
        "A random replacement is a non-special id in [0, vocab_size): never [MASK], [CLS], [SEP] or any other special.",
        "随机替换词是 [0, vocab_size) 中的非特殊 id：永远不会是 [MASK]、[CLS]、[SEP] 或其他特殊符号。",
    ),
)
ALL_SELECTED = Rule(
    "p-one-selects-all",
    L(
        "With p = 1 every non-special token is selected: every such label is the original token.",
        "p = 1 时每个非特殊 token 都被选中：这些位置的标签都是原始 token。",
    ),
)
SELECTION_RATE = Rule(
    "selection-rate",
    L(
        "Each eligible token is selected with probability p (an exact binomial test on tens of thousands of tokens).",
        "每个可选 token 以概率 p 被选中（在数万个 token 上做精确二项检验）。",
    ),
)
SPLIT = Rule(
    "split-80-10-10",
    L(
        "Of the selected tokens {:.0%} become [MASK], {:.0%} a random token, {:.0%} stay (exact binomial tests).".format(
            *engine_mlm.BERT_SPLIT
        ),
        "被选中的 token 中 {:.0%} 变成 [MASK]，{:.0%} 变成随机词，{:.0%} 保持不变（精确二项检验）。".format(
            *engine_mlm.BERT_SPLIT
        ),
    ),
    "split-of-all-tokens",
)


# The rules of BERT's masking that judge_mlm and mlm_statistics check, in the order a report lists them.
BERT_MASKING_RULES = (
    LABELS_OFF,
    SPECIALS,
    LABEL_ORIGINAL,
    UNSELECTED_KEPT,
    RANDOM_NOT_SPECIAL,
    ALL_SELECTED,
    SELECTION_RATE,
    SPLIT,
)


def judge_mlm(
    checker: Checker,
    case,
    ids: torch.Tensor,
    out,
    specials: set[int],
    mask_id: int,
    vocab_size: int,
    p: float,
    eligible: torch.Tensor | None = None,
) -> Failure | None:
    """The masked-LM invariants, read from the output alone (selected = label != -100)."""
    try:
        input_ids, labels = pair(out, ("input_ids", "labels"))
        input_ids = tensor(input_ids, "input_ids", tuple(ids.shape))
        labels = tensor(labels, "labels", tuple(ids.shape))
    except Unfit as unfit:
        return checker.fail(SHAPE, case, unfit.yours, unfit.required)
    is_special = torch.tensor(
        [int(v) in specials for v in ids.reshape(-1).tolist()], dtype=torch.bool
    ).reshape(ids.shape)
    if eligible is not None:
        is_special |= ~eligible
    selected = labels != IGNORE
    yours = f"input_ids = {show(input_ids)}\nlabels    = {show(labels)}"

    def at(position: tuple[int, ...]) -> str:
        return "[" + ", ".join(str(i) for i in position) + "]"

    if p == 0.0 and (bool(selected.any()) or not torch.equal(input_ids, ids)):
        return checker.fail(
            LABELS_OFF,
            case,
            yours,
            same(f"input_ids = {show(ids)}\nlabels    = {show(torch.full_like(ids, IGNORE))}"),
        )
    if p < 1.0 and bool(selected.all()) and bool(is_special.any()):  # a label everywhere, specials included
        required = torch.where(is_special, torch.full_like(ids, IGNORE), labels)
        return checker.fail(LABELS_OFF, case, yours, same(f"labels    = {show(required)} (at least)"))
    bad = (is_special & (selected | (input_ids != ids))).nonzero()
    if len(bad):
        pos = tuple(int(v) for v in bad[0])
        return checker.fail(
            SPECIALS,
            case,
            yours,
            same(f"at {at(pos)} (special {int(ids[pos])}): input {int(ids[pos])}, label -100"),
        )
    bad = (selected & (labels != ids)).nonzero()
    if len(bad):
        pos = tuple(int(v) for v in bad[0])
        label = int(labels[pos])
        diagnosis = (
            "label-is-mask"
            if label == mask_id
            else "label-is-replacement"
            if label == int(input_ids[pos])
            else None
        )
        return checker.fail(
            LABEL_ORIGINAL,
            case,
            yours,
            same(f"at {at(pos)}: label {int(ids[pos])} (the original), or -100"),
            diagnosis,
        )
    bad = (~selected & (input_ids != ids)).nonzero()
    if len(bad):
        pos = tuple(int(v) for v in bad[0])
        diagnosis = "loss-omits-random" if int(input_ids[pos]) != mask_id else None
        return checker.fail(
            UNSELECTED_KEPT,
            case,
            yours,
            same(
                f"at {at(pos)}: input {int(ids[pos])} with label -100, or input {int(input_ids[pos])} with label {int(ids[pos])}"
            ),
            diagnosis,
        )
    replaced = selected & (input_ids != ids) & (input_ids != mask_id)
    in_pool = torch.tensor(
        [0 <= int(v) < vocab_size and int(v) not in specials for v in input_ids.reshape(-1).tolist()],
        dtype=torch.bool,
    ).reshape(ids.shape)
    bad = (replaced & ~in_pool).nonzero()
    if len(bad):
        pos = tuple(int(v) for v in bad[0])
        return checker.fail(
            RANDOM_NOT_SPECIAL,
            case,
            yours,
            same(
                f"at {at(pos)}: a random id in [0, {vocab_size}) not in {sorted(specials)}, got {int(input_ids[pos])}"
            ),
        )
    if p == 1.0:
        missing = (~is_special & ~selected).nonzero()
        if len(missing):
            pos = tuple(int(v) for v in missing[0])
            return checker.fail(ALL_SELECTED, case, yours, same(f"at {at(pos)}: label {int(ids[pos])}"))
    return None


def _probabilities():
    return st.one_of(st.sampled_from([0.0, 1.0, MASK_RATE, 0.5]), st.floats(0.0, 1.0))


def _seeds():
    return st.integers(0, 2**31 - 1)


def _binomial(name: str, count: int, trials: int, p: float, report: list[dict]) -> bool:
    value = stats.p_value(count, trials, p)
    low, high = stats.acceptance_region(trials, p)
    report.append(
        {
            "name": name,
            "count": count,
            "trials": trials,
            "p": p,
            "p_value": value,
            "accepted": [low, high],
            "ok": value > stats.ALPHA,
        }
    )
    return value > stats.ALPHA


def mlm_statistics(
    checker: Checker,
    box: Sandbox,
    result: LabResult,
    args: tuple,
    ids: torch.Tensor,
    eligible: torch.Tensor,
    p: float,
    mask_id: int,
    pool_size: int,
    units: torch.Tensor | None = None,
) -> Failure | None:
    """One large call; exact binomial tests of the selection rate and the split."""
    out = box.call(*args, limit=STAT_CALL_LIMIT_S, global_seed=7)
    try:
        input_ids, labels = pair(out, ("input_ids", "labels"))
        input_ids = tensor(input_ids, "input_ids", tuple(ids.shape))
        labels = tensor(labels, "labels", tuple(ids.shape))
    except Unfit as unfit:
        return Failure(SHAPE, f"a batch of shape {tuple(ids.shape)}", unfit.yours, unfit.required)
    selected = labels != IGNORE
    report = result.statistics
    if units is None:
        chosen, trials = int((selected & eligible).sum()), int(eligible.sum())
    else:  # whole words: count words, by their first piece
        chosen, trials = int((selected & units).sum()), int(units.sum())
    n_selected = int(selected.sum())
    masked = int((selected & (input_ids == mask_id)).sum())
    unchanged = int((selected & (input_ids == ids)).sum())
    random = n_selected - masked - unchanged
    hit = 1.0 / pool_size  # a random draw may give back the original token
    to_mask, to_random, to_keep = engine_mlm.BERT_SPLIT
    checks = [
        ("selection", chosen, trials, p, SELECTION_RATE),
        ("mask", masked, n_selected, to_mask, SPLIT),
        ("random", random, n_selected, to_random * (1 - hit), SPLIT),
        ("keep", unchanged, n_selected, to_keep + to_random * hit, SPLIT),
    ]
    for name, count, trials_, rate, rule in checks:
        if not _binomial(name, count, trials_, rate, report):
            low, high = report[-1]["accepted"]
            where = L(
                f"{name}: between {low} and {high} of {trials_} (rate {rate:.3f}); a correct solution lands outside less than once in ten million runs",
                f"{name}：{trials_} 个中应有 {low} 到 {high} 个（比例 {rate:.3f}）；正确的实现落在范围外的概率不到千万分之一",
            )
            return Failure(
                rule,
                f"{tuple(ids.shape)} tokens, {trials} eligible, p = {p}, seed 12345",
                f"{name}: {count} of {trials_} ({count / max(trials_, 1):.3f})",
                where,
                rule.diagnosis if name != "selection" else None,
            )
    return None


def reproducibility(checker: Checker, box: Sandbox, case) -> Failure | None:
    first = box.call(*checker.args(case), global_seed=1)
    second = box.call(*checker.args(case), global_seed=2)
    if not _equal(first, second):
        return checker.fail(
            REPRODUCIBLE,
            case,
            f"1st call: {show(first, 100)}\n2nd call: {show(second, 100)}",
            same("the same result twice"),
        )
    return None


def _equal(a, b) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


class BertMask(Checker):
    rules = (SHAPE, REPRODUCIBLE, *BERT_MASKING_RULES)

    def strategy(self):
        def build(vocab):
            specials = st.lists(
                st.integers(0, vocab - 2), min_size=1, max_size=min(4, vocab - 1), unique=True
            )
            return specials.flatmap(
                lambda sp: st.tuples(
                    st.just(vocab),
                    st.just(sorted(sp)),
                    st.sampled_from(sorted(sp)),
                    _batches(st.integers(1, 3), st.integers(1, 10), st.integers(0, vocab - 1)),
                    _probabilities(),
                    _seeds(),
                )
            )

        return st.integers(3, 30).flatmap(build)

    def smoke(self):
        return (12, [0, 1, 2, 3, 4], 4, [[2, 5, 6, 7, 8, 9, 10, 11, 3]], 0.5, 0)

    def args(self, case):
        vocab, specials, mask_id, rows, p, seed = case
        return (torch.tensor(rows), list(specials), mask_id, vocab, p, Generator(seed))

    def describe(self, case):
        vocab, specials, mask_id, rows, p, seed = case
        return f"ids = {rows}\nspecial_ids = {specials}, mask_id = {mask_id}\nvocab_size = {vocab}, p = {p}, seed = {seed}"

    def judge(self, case, out):
        vocab, specials, mask_id, rows, p, _seed = case
        return judge_mlm(self, case, torch.tensor(rows), out, set(specials), mask_id, vocab, p)

    def extra(self, box, result):
        failure = reproducibility(self, box, self.smoke())
        if failure:
            return failure
        # exactness: the engine's draw order gives the engine's values
        exact = True
        for case in (
            self.smoke(),
            (30, [0, 3, 4], 4, [[1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]] * 3, 0.6, 99),
        ):
            vocab, specials, mask_id, rows, p, seed = case
            ref = engine_mlm.mask_tokens(
                torch.tensor(rows),
                mask_id=mask_id,
                vocab_size=vocab,
                special_ids=specials,
                p=p,
                generator=torch.Generator().manual_seed(seed),
            )
            out = box.call(*self.args(case))
            exact = exact and _equal(tuple(out), (ref.input_ids, ref.labels))
        result.exact = exact
        g = torch.Generator().manual_seed(4242)
        vocab, mask_id, specials = 30000, 4, [0, 1, 2, 3, 4]
        ids = torch.randint(5, vocab, (200, 200), generator=g)
        ids[torch.rand(ids.shape, generator=g) < 0.1] = 0  # padding-like specials among the text
        eligible = ids >= 5
        return mlm_statistics(
            self,
            box,
            result,
            (ids, specials, mask_id, vocab, MASK_RATE, Generator(12345)),
            ids,
            eligible,
            MASK_RATE,
            mask_id,
            vocab - 5,
        )


class LessonMlmRun(Checker):
    SAME_SELECTION = Rule(
        "same-selection",
        L(
            "The selection is rand(shape, generator=g) < p, drawn right after the ids.",
            "选中与否是 rand(shape, generator=g) < p，紧跟在 id 之后抽。",
        ),
    )
    SAME_FATES = Rule(
        "same-fates",
        L(
            "Fates come from a second rand(shape); a random word is drawn in the loop, row by row, only for the 'random' fate.",
            "命运来自第二次 rand(shape)；随机词在循环里逐行、只在命运为“随机”时抽。",
        ),
    )
    rules = (SHAPE, SAME_DRAWS, SAME_SELECTION, LABEL_ORIGINAL, SAME_FATES)

    def strategy(self):
        return st.tuples(_seeds(), _probabilities(), st.integers(1, 4), st.integers(1, 8))

    def smoke(self):
        return (0, 0.3, 4, 8)

    def args(self, case):
        return case

    def describe(self, case):
        return "seed = {}, p = {}, batch = {}, seq_len = {}".format(*case)

    def judge(self, case, out):
        seed, p, batch, seq_len = case
        ref = engine_textbook.mlm_run(seed=seed, batch=batch, seq_len=seq_len, p=p)
        try:
            original, input_ids, labels = pair(out, ("original", "input_ids", "labels"))
            original = tensor(original, "original", (batch, seq_len))
            input_ids = tensor(input_ids, "input_ids", (batch, seq_len))
            labels = tensor(labels, "labels", (batch, seq_len))
        except Unfit as unfit:
            return self.fail(SHAPE, case, unfit.yours, unfit.required)
        if not torch.equal(original, ref.original_ids):
            return self.fail(
                SAME_DRAWS, case, f"original = {show(original)}", same(f"original = {show(ref.original_ids)}")
            )
        if not torch.equal(labels != IGNORE, ref.selected):
            return self.fail(
                self.SAME_SELECTION,
                case,
                f"labels = {show(labels)}",
                same(f"labels = {show(ref.labels)}"),
                "loss-includes-unselected"
                if bool((labels != IGNORE).all()) and not bool(ref.selected.all())
                else None,
            )
        if not torch.equal(labels, ref.labels):
            return self.fail(
                LABEL_ORIGINAL, case, f"labels = {show(labels)}", same(f"labels = {show(ref.labels)}")
            )
        if not torch.equal(input_ids, ref.input_ids):
            return self.fail(
                self.SAME_FATES,
                case,
                f"input_ids = {show(input_ids)}",
                same(f"input_ids = {show(ref.input_ids)}"),
            )
        return None

    def extra(self, box, result):
        result.exact = True
        return None


CLS_SEP = Rule(
    "cls-sep-in-place",
    L(
        "The sequence is [CLS] (2), the content, then [SEP] (3): length L + 2.",
        "序列是 [CLS]（2）、内容、再 [SEP]（3）：长度 L + 2。",
    ),
)
LESSON_SPECIALS = [0, 1, 2, 3, 4]


class MaskContent(Checker):
    rules = (SHAPE, REPRODUCIBLE, CLS_SEP, *BERT_MASKING_RULES)

    def strategy(self):
        return st.tuples(st.lists(st.integers(5, 9999), min_size=0, max_size=10), _probabilities(), _seeds())

    def smoke(self):
        return ([7715, 2736, 2941, 1766], 0.3, 0)

    def args(self, case):
        content, p, seed = case
        return (torch.tensor(content, dtype=torch.long), p, Generator(seed))

    def describe(self, case):
        content, p, seed = case
        return f"content = {content}\np = {p}, seed = {seed}"

    def judge(self, case, out):
        content, p, _seed = case
        ids = torch.tensor([2, *content, 3])
        try:
            input_ids, labels = pair(out, ("input_ids", "labels"))
            input_ids = tensor(input_ids, "input_ids", tuple(ids.shape))
            labels = tensor(labels, "labels", tuple(ids.shape))
        except Unfit as unfit:
            return self.fail(CLS_SEP if "shape" in unfit.yours else SHAPE, case, unfit.yours, unfit.required)
        if int(input_ids[0]) != 2 or int(input_ids[-1]) != 3:
            return self.fail(
                CLS_SEP,
                case,
                f"input_ids = {show(input_ids)}",
                same("input_ids[0] = 2, input_ids[-1] = 3"),
                "specials-selected",
            )
        return judge_mlm(self, case, ids, out, set(LESSON_SPECIALS), 4, 10000, p)

    def extra(self, box, result):
        failure = reproducibility(self, box, self.smoke())
        if failure:
            return failure
        g = torch.Generator().manual_seed(4243)
        content = torch.randint(5, 10000, (40000,), generator=g)
        ids = torch.cat([torch.tensor([2]), content, torch.tensor([3])])
        eligible = ids >= 5
        return mlm_statistics(
            self, box, result, (content, 0.3, Generator(12345)), ids, eligible, 0.3, 4, 10000 - 5
        )


WHOLE_WORDS = Rule(
    "whole-words",
    L(
        "All pieces of a word are selected together or not at all: their labels are all -100 or none is.",
        "一个词的所有子词要么一起被选中，要么都不选：它们的标签要么全是 -100，要么都不是。",
    ),
)


def _word_ids(lengths: list[int]) -> list[int]:
    words = [-1]
    for word, length in enumerate(lengths):
        words += [word] * length
    return [*words, -1]


class WholeWordMask(Checker):
    rules = (
        SHAPE,
        REPRODUCIBLE,
        LABELS_OFF,
        SPECIALS,
        WHOLE_WORDS,
        LABEL_ORIGINAL,
        UNSELECTED_KEPT,
        RANDOM_NOT_SPECIAL,
        ALL_SELECTED,
        SELECTION_RATE,
        SPLIT,
    )
    VOCAB, MASK, SPECIAL_IDS = 40, 4, [0, 1, 2, 3, 4]

    def strategy(self):
        lengths = st.lists(st.integers(1, 3), min_size=1, max_size=5)
        return lengths.flatmap(
            lambda ls: st.tuples(
                st.just(ls),
                st.lists(st.integers(5, self.VOCAB - 1), min_size=sum(ls), max_size=sum(ls)),
                _probabilities(),
                _seeds(),
            )
        )

    def smoke(self):
        return ([2, 1, 3], [10, 11, 12, 13, 14, 15], 0.5, 0)

    def _inputs(self, case):
        lengths, pieces, _p, _seed = case
        return torch.tensor([2, *pieces, 3]), torch.tensor(_word_ids(lengths))

    def args(self, case):
        ids, words = self._inputs(case)
        return (ids, words, self.SPECIAL_IDS, self.MASK, self.VOCAB, case[2], Generator(case[3]))

    def describe(self, case):
        ids, words = self._inputs(case)
        return f"ids      = {ids.tolist()}\nword_ids = {words.tolist()}\nspecial_ids = {self.SPECIAL_IDS}, mask_id = 4, vocab_size = {self.VOCAB}, p = {case[2]}, seed = {case[3]}"

    def judge(self, case, out):
        ids, words = self._inputs(case)
        failure = judge_mlm(self, case, ids, out, set(self.SPECIAL_IDS), self.MASK, self.VOCAB, case[2])
        if failure is not None:
            return failure
        labels = out[1]
        selected = (labels != IGNORE).tolist()
        for word in set(words.tolist()) - {-1}:
            marks = {selected[i] for i, w in enumerate(words.tolist()) if w == word}
            if len(marks) > 1:
                pieces = [i for i, w in enumerate(words.tolist()) if w == word]
                return self.fail(
                    WHOLE_WORDS,
                    case,
                    f"labels = {show(labels)}",
                    same(f"positions {pieces} (word {word}): all labels -100, or all the original tokens"),
                )
        return None

    def extra(self, box, result):
        failure = reproducibility(self, box, self.smoke())
        if failure:
            return failure
        g = torch.Generator().manual_seed(4244)
        lengths = torch.randint(1, 4, (20000,), generator=g).tolist()
        words = torch.tensor(_word_ids(lengths))
        ids = torch.randint(5, 30000, words.shape, generator=g)
        ids[0], ids[-1] = 2, 3
        first_pieces = torch.zeros(words.shape, dtype=torch.bool)
        previous = -2
        for i, w in enumerate(words.tolist()):
            first_pieces[i] = w >= 0 and w != previous
            previous = w
        eligible = words >= 0
        args = (ids, words, self.SPECIAL_IDS, self.MASK, 30000, MASK_RATE, Generator(12345))
        result.exact = None
        return mlm_statistics(
            self, box, result, args, ids, eligible, MASK_RATE, self.MASK, 30000 - 5, units=first_pieces
        )


# Span corruption ---------------------------------------------------------------------

SENTINELS = list(range(99, 59, -1))  # <extra_id_0> = 99, <extra_id_1> = 98, ... (T5 counts down)
EOS = 1


def engine_t5(tokens: list[int], spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The engine's T5 corruption of one sequence, as lists."""
    result = engine_spans.corrupt_explicit(torch.tensor(tokens), spans, SENTINELS, pad_id=0, eos_id=EOS)
    return (
        result.inputs[: int(result.input_lengths)].tolist(),
        result.targets[: int(result.target_lengths)].tolist(),
    )


def _spell(ids: list[int]) -> str:
    words = []
    for v in ids:
        if v in SENTINELS:
            words.append(f"<{SENTINELS.index(v)}>")
        elif v == EOS:
            words.append("</s>")
        elif 10 <= v < 36:
            words.append(chr(ord("A") + v - 10))
        else:
            words.append(str(v))
    return " ".join(words)


EOS_RULE = Rule(
    "eos-at-end",
    L("inputs and targets both end with eos_id (</s>).", "inputs 和 targets 都以 eos_id（</s>）结尾。"),
)
SENTINEL_ORDER = Rule(
    "sentinel-order",
    L(
        "Spans get sentinel_ids[0], sentinel_ids[1], ... in order, each once.",
        "片段依次得到 sentinel_ids[0]、sentinel_ids[1]……，每个只用一次。",
    ),
    "sentinel-reused",
)
ONE_PER_SPAN = Rule(
    "one-sentinel-per-span",
    L(
        "Each span becomes ONE sentinel in the inputs, and two touching spans are one span.",
        "每个片段在 inputs 中只换成“一个”哨兵，首尾相接的两个片段算一个片段。",
    ),
    "one-sentinel-per-token",
)
KEPT_TEXT = Rule(
    "kept-text-unchanged",
    L("Outside the spans the inputs keep every token, in order.", "片段之外，inputs 按顺序保留每个 token。"),
    "span-kept-in-input",
)
CLOSING = Rule(
    "closing-sentinel",
    L(
        "The targets end with the next sentinel (before </s>) exactly when kept text follows the last span.",
        "只有当最后一个片段之后还有保留的文本时，targets 才在 </s> 之前以下一个哨兵结尾。",
    ),
    "target-missing-final-sentinel",
)
REBUILD = Rule(
    "rebuild",
    L(
        "Putting each sentinel's tokens from the targets back into the inputs rebuilds the text: targets are sentinel, span, sentinel, span, ...",
        "把 targets 中每个哨兵后面的 token 放回 inputs，就能还原原文：targets 是 哨兵、片段、哨兵、片段……",
    ),
    "target-without-sentinels",
)


class SpanCorrupt(Checker):
    rules = (SHAPE, EOS_RULE, SENTINEL_ORDER, ONE_PER_SPAN, KEPT_TEXT, CLOSING, REBUILD)

    def strategy(self):
        def spans_for(n):
            cuts = st.lists(st.integers(0, n), min_size=2, max_size=8, unique=True).map(sorted)
            return cuts.flatmap(
                lambda cs: st.lists(st.booleans(), min_size=len(cs) // 2, max_size=len(cs) // 2).map(
                    lambda keep, cs=cs: [
                        (cs[2 * i], cs[2 * i + 1]) for i in range(len(cs) // 2) if keep[i] or i == 0
                    ]
                )
            )

        def touching(spans):  # sometimes split a span in two touching halves
            return st.booleans().map(
                lambda split: (
                    [*spans[:-1], (spans[-1][0], spans[-1][0] + 1), (spans[-1][0] + 1, spans[-1][1])]
                    if split and spans[-1][1] - spans[-1][0] >= 2
                    else spans
                )
            )

        return st.integers(2, 10).flatmap(
            lambda n: st.tuples(st.just(list(range(10, 10 + n))), spans_for(n).flatmap(touching))
        )

    def smoke(self):
        return (list(range(10, 18)), [(2, 5)])

    def args(self, case):
        tokens, spans = case
        return (torch.tensor(tokens), [tuple(s) for s in spans], SENTINELS, EOS)

    def describe(self, case):
        tokens, spans = case
        return f"ids   = {_spell(tokens)}\nspans = {spans}\n(<k> is sentinel_ids[k], </s> is eos_id)"

    def judge(self, case, out):
        tokens, spans = case
        want_in, want_tg = engine_t5(tokens, spans)
        try:
            inputs, targets = pair(out, ("inputs", "targets"))
            inputs = tensor(inputs, "inputs")
            targets = tensor(targets, "targets")
            if inputs.dim() != 1 or targets.dim() != 1:
                raise Unfit(f"shapes {tuple(inputs.shape)}, {tuple(targets.shape)}", same("1-D tensors"))
        except Unfit as unfit:
            return self.fail(SHAPE, case, unfit.yours, unfit.required)
        got_in, got_tg = inputs.tolist(), targets.tolist()
        if got_in == want_in and got_tg == want_tg:
            return None
        yours = f"inputs  = {_spell(got_in)}\ntargets = {_spell(got_tg)}"
        required = same(f"inputs  = {_spell(want_in)}\ntargets = {_spell(want_tg)}")
        if not got_in or not got_tg or got_in[-1] != EOS or got_tg[-1] != EOS:
            return self.fail(EOS_RULE, case, yours, required)
        used = [v for v in got_in if v in SENTINELS]
        n_spans = sum(1 for v in want_in if v in SENTINELS)
        if len(used) != n_spans:
            noise = sum(e - s for s, e in spans)
            diagnosis = "one-sentinel-per-token" if len(used) == noise else None
            if len(used) == len(spans):
                diagnosis = ""  # touching spans not merged: no misconception code for that
            return self.fail(ONE_PER_SPAN, case, yours, required, diagnosis)
        if used != SENTINELS[: len(used)]:
            diagnosis = (
                "sentinel-numbering-from-1" if used == SENTINELS[1 : len(used) + 1] else "sentinel-reused"
            )
            return self.fail(SENTINEL_ORDER, case, yours, required, diagnosis)
        if got_in != want_in:
            return self.fail(KEPT_TEXT, case, yours, required)
        closing_wanted = (
            len(want_tg) >= 2
            and want_tg[-2] in SENTINELS
            and want_tg.count(want_tg[-2]) == 1
            and want_tg[-2] not in want_in
        )
        closing_got = len(got_tg) >= 2 and got_tg[-2] in SENTINELS and got_tg[-2] not in got_in
        if closing_wanted != closing_got:
            return self.fail(
                CLOSING, case, yours, required, "target-missing-final-sentinel" if closing_wanted else ""
            )
        return self.fail(REBUILD, case, yours, required)


# The lesson's three samples ---------------------------------------------------------------

WORDS = [
    "transformer",
    "models",
    "learn",
    "patterns",
    "from",
    "text",
    "今天",
    "天气",
    "很",
    "好",
    "，",
    "公园",
    "A",
    "B",
]
CAUSAL_PAIR = Rule(
    "causal-pair",
    L(
        "Causal inputs are tokens[:-1] and causal labels tokens[1:].",
        "因果样本的 inputs 是 tokens[:-1]，labels 是 tokens[1:]。",
    ),
    "labels-not-shifted",
)
MASKED_SAMPLE = Rule(
    "masked-sample",
    L(
        "The masked input has '[MASK]' exactly at mask_positions; labels map each of those positions to its original token.",
        "掩码样本恰好在 mask_positions 处为 '[MASK]'；labels 把这些位置映射到原词。",
    ),
)
SPAN_SAMPLE = Rule(
    "span-sample",
    L(
        "The span input replaces tokens[start:end] by '<extra_id_0>'; the target is '<extra_id_0>', the span, '<extra_id_1>'.",
        "片段样本把 tokens[start:end] 换成 '<extra_id_0>'；target 是 '<extra_id_0>'、片段本身、'<extra_id_1>'。",
    ),
)


class ThreeSamples(Checker):
    rules = (SHAPE, CAUSAL_PAIR, MASKED_SAMPLE, SPAN_SAMPLE)

    def strategy(self):
        return st.lists(st.sampled_from(WORDS), min_size=2, max_size=8).flatmap(
            lambda toks: st.tuples(
                st.just(toks),
                st.lists(st.integers(0, len(toks) - 1), min_size=1, max_size=3, unique=True).map(sorted),
                st.integers(0, len(toks) - 1).flatmap(
                    lambda s: st.tuples(st.just(s), st.integers(s + 1, len(toks)))
                ),
            )
        )

    def smoke(self):
        return (
            ["transformer", "models", "learn", "patterns", "from", "large", "text", "corpora"],
            [2, 5],
            (2, 5),
        )

    def args(self, case):
        tokens, positions, (start, end) = case
        return (list(tokens), list(positions), start, end)

    def describe(self, case):
        tokens, positions, (start, end) = case
        return f"tokens = {tokens}\nmask_positions = {positions}, start = {start}, end = {end}"

    def judge(self, case, out):
        tokens, positions, span = case
        ref = engine_textbook.three_samples(" ".join(tokens), mask_positions=tuple(positions), span=span)
        if not isinstance(out, (tuple, list)) or len(out) != 6:
            return self.fail(
                SHAPE,
                case,
                show(out, 100),
                same(
                    "a tuple of 6: causal_inputs, causal_labels, masked_inputs, masked_labels, span_inputs, span_target"
                ),
            )
        ci, cl, mi, ml, si, st_ = out
        if [ci, cl] != [ref.causal_inputs, ref.causal_labels]:
            diagnosis = "shifted-wrong-way" if ci == tokens[1:] and cl == tokens[:-1] else None
            return self.fail(
                CAUSAL_PAIR, case, f"{ci}\n{cl}", same(f"{ref.causal_inputs}\n{ref.causal_labels}"), diagnosis
            )
        if mi != ref.masked_inputs or ml != ref.masked_labels:
            diagnosis = "label-is-mask" if isinstance(ml, dict) and "[MASK]" in ml.values() else None
            return self.fail(
                MASKED_SAMPLE,
                case,
                f"{mi}\n{ml}",
                same(f"{ref.masked_inputs}\n{ref.masked_labels}"),
                diagnosis,
            )
        if si != ref.span_inputs or st_ != ref.span_target:
            diagnosis = None
            if isinstance(st_, list) and st_ and st_[0] == "<extra_id_1>":
                diagnosis = "sentinel-numbering-from-1"
            elif isinstance(st_, list) and st_ == ref.span_target[:-1]:
                diagnosis = "target-missing-final-sentinel"
            elif isinstance(st_, list) and len(st_) == len(ref.span_target) + 1:
                diagnosis = "span-end-inclusive"
            return self.fail(
                SPAN_SAMPLE, case, f"{si}\n{st_}", same(f"{ref.span_inputs}\n{ref.span_target}"), diagnosis
            )
        return None

    def extra(self, box, result):
        result.exact = True
        return None


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
) -> LabResult:
    """Check one file against one task's rules; never raises for anything the file does."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the checks' tensors are tiny; a thread pool only costs (50x on 2 busy cores)
    try:
        return _run_check(task, path, max_examples, call_limit, memory, start_limit)
    finally:
        torch.set_num_threads(threads)


# What a judge raises on an output of a shape it does not expect (a tensor of another
# dtype or rank, a dict, a string...): the output does not fit, it is not our bug.
UNREADABLE_OUTPUT = (TypeError, ValueError, LookupError, AttributeError, ArithmeticError, RuntimeError)


def judge_output(checker: Checker, case, out) -> Failure | None:
    """The checker's verdict on one output; an output so odd the judge cannot read it
    breaks the shape rule."""
    try:
        return checker.judge(case, out)
    except UNREADABLE_OUTPUT as error:
        return checker.fail(
            SHAPE, case, f"{type(error).__name__}: {str(error)[:120]}", same("the result the task states")
        )


def _run_check(task, path, max_examples, call_limit, memory, start_limit) -> LabResult:
    task = BY_ID[task] if isinstance(task, str) else task
    checker = CHECKERS[task.id]()
    result = LabResult(task.id, "fail")
    began = time.perf_counter()
    options = {}
    if call_limit is not None:
        options["call_limit"] = call_limit
    if memory is not None:
        options["memory"] = memory
    if start_limit is not None:
        options["start_limit"] = start_limit
    box = Sandbox(path, task.function, **options)
    try:
        box.start()
    except LoadFailed as error:
        result.status, result.message, result.line = "invalid", _load_message(error), error.line
        result.seconds = time.perf_counter() - began
        return result
    except SandboxStopped as error:
        result.status, result.message = "stopped", _stopped_message(error, box.start_limit, loading=True)
        result.seconds = time.perf_counter() - began
        return result
    result.sandbox_start_seconds = box.start_seconds
    memo: dict[str, object] = {}

    def outcome(case):
        key = repr(case)
        if key not in memo:
            try:
                memo[key] = ("ok", box.call(*checker.args(case)))
            except LearnerError as error:
                memo[key] = ("raised", error)
        return memo[key]

    def violation(case) -> Failure | None:
        kind, value = outcome(case)
        if kind == "raised":
            special = getattr(checker, "raised", None)
            failure = special(case, value) if special else None
            if failure is not None:
                return failure
            line = f" (line {value.line})" if value.line else ""
            return checker.fail(RUNS, case, f"{value.name}: {value.message[:200]}{line}", same("a result"))
        return judge_output(checker, case, value)

    try:
        kind, value = outcome(checker.smoke())
        if kind == "raised" and value.name == "NotImplementedError":
            result.status = "not-started"
            result.message = L(
                "Not written yet: replace the `raise NotImplementedError` with your code.",
                "还没有写：把 `raise NotImplementedError` 换成你的代码。",
            )
            result.line = value.line
            return result
        failure = violation(checker.smoke())
        try:  # search even when the first case fails: the report shows the smallest input
            case = find(
                checker.strategy(),
                lambda c: violation(c) is not None,
                settings=settings(
                    max_examples=max_examples or checker.examples,
                    database=None,
                    derandomize=True,
                    deadline=None,
                    suppress_health_check=list(HealthCheck),
                    phases=[Phase.generate, Phase.shrink],
                ),
            )
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
        except NoSuchExample:
            pass
        if failure is None:
            failure = checker.extra(box, result)
        if failure is None:
            result.status = "pass"
        else:
            result.failure = failure
    except SandboxStopped as error:
        result.status, result.message = "stopped", _stopped_message(error, box.call_limit)
    except LearnerError as error:  # raised in a statistics or reproducibility call
        line = f" (line {error.line})" if error.line else ""
        result.failure = Failure(
            RUNS, "a large batch", f"{error.name}: {error.message[:200]}{line}", same("a result")
        )
    finally:
        result.calls = box.calls
        result.printed = box.printed()
        box.close()
        result.seconds = time.perf_counter() - began
    return result


def diagnosis_text(code: str | None) -> Bilingual | None:
    if code is None:
        return None
    from exercises.grading.diagnoses import DIAGNOSES

    return DIAGNOSES.get(code)
