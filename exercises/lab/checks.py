"""Each task's rules, checked as properties of the learner's function.

The learner's function runs in the sandbox; everything here runs in the trusted
process. For each task hypothesis searches its inputs (token ids, lengths,
special-token sets, probabilities, seeds) for one that breaks a rule, and shrinks
it to the smallest such input; the first rule it breaks is reported with that
input, the learner's output and what the rule requires, the rule in words and,
where one fits, the misconception code of ``exercises.grading.diagnoses``.
Statistical rules (the 15 %, the 80/10/10, the replacement's distribution) are
exact binomial tests (``exercises.lab.stats``). The search is derandomised: the
same file gets the same counterexample every time.

Every call goes through a small function appended to a copy of the learner's
file (``probe_source``): it calls theirs and sends back the arguments as they
are afterwards, so a function that changes its inputs in place is seen, and
(for the loss) whether the result is still connected to the logits' graph.
"""

from __future__ import annotations

import ast
import math
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from engine import clm as engine_clm
from engine import masks as engine_masks
from engine import mlm as engine_mlm
from engine import spans as engine_spans
from engine import textbook as engine_textbook
from exercises.lab import stats
from exercises.lab.sandbox import Generator, LearnerError, LoadFailed, Sandbox, SandboxStopped
from exercises.lab.tasks import BY_ID, Task
from exercises.lab.workspace import MAX_FILE_BYTES, digest
from exercises.text import Bilingual, L

IGNORE = -100
MAX_EXAMPLES = 80
STAT_CALL_LIMIT_S = 60.0  # a learner's loop over 100,000 tokens on a loaded machine
SHORT_CALLS = 100  # calls on short inputs for the selection rate where a row has 1 to 3 tokens


@dataclass(frozen=True)
class Rule:
    code: str  # stable: tests, --json and the lab_runs table name rules by it
    text: Bilingual
    diagnosis: str | None = None


Said = str | Bilingual  # values written as code read the same in both languages; prose comes in two


class Words(str):
    """A failure's input or output as shown: a str (the English, which --json, scripts
    and tests read, as always) that carries its Chinese for the table."""

    zh: str

    def __new__(cls, text: Said) -> Words:
        if isinstance(text, Words):
            return text
        en, zh = (text, text) if isinstance(text, str) else (text["en"], text["zh"])
        words = super().__new__(cls, en)
        words.zh = zh
        return words

    def pick(self, lang: str) -> str:
        return self.zh if lang == "zh" else str(self)


@dataclass
class Failure:
    rule: Rule
    input: Said  # the (shrunk) input, written out (a Said once made)
    yours: Said  # what the learner's function returned there (a Said once made)
    required: Bilingual  # what the rule requires there
    diagnosis: str | None = None
    note: Bilingual | None = None  # a convention of the course (not a misconception) the case shows

    def __post_init__(self) -> None:
        self.input, self.yours = Words(self.input), Words(self.yours)

    def to_json(self) -> dict:
        return {
            "rule": self.rule.code,
            "rule_text": self.rule.text,
            "input": str(self.input),
            "yours": str(self.yours),
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
    digest: str | None = None  # sha256 of the file checked: "done" means the file as it is now passed

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
LONG_IDS = Rule(
    "ids-long",
    L(
        "Token ids and labels are LongTensors (torch.long, int64), as the task states.",
        "token id 和标签都是 LongTensor（torch.long，即 int64），与题目所述一致。",
    ),
    "ids-not-long",
)
INPUTS_UNCHANGED = Rule(
    "inputs-unchanged",
    L(
        "Your function leaves its arguments as they were: the caller still needs them.",
        "你的函数不能改动传入的参数：调用者之后还要用它们。",
    ),
    "inputs-modified-in-place",
)
REPRODUCIBLE = Rule(
    "reproducible",
    L(
        "Every random draw must use the generator you are given: the same seed must give the same result.",
        "所有随机抽样都必须用传入的 generator：同一个种子必须得到同样的结果。",
    ),
    "global-rng",
)
GENERATOR_USED = Rule(
    "generator-used",
    L(
        "The draws come from the generator you are given: another seed gives other draws.",
        "抽样来自传入的 generator：换一个种子，抽到的就不同。",
    ),
    "generator-ignored",
)


class Unfit(Exception):
    """The output is not even the right kind of value (``rule``: the rule it breaks)."""

    def __init__(self, yours: Said, required: Bilingual, rule: Rule = SHAPE) -> None:
        super().__init__(yours)
        self.yours, self.required, self.rule = yours, required, rule


@dataclass(frozen=True)
class Shown:
    """A case from a large statistics call, described by its own text (one row, or a
    window of a long sequence) instead of the checker's ``describe``."""

    text: Said


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


def tensor(value, name: str, shape: tuple[int, ...] | None = None, kind: str = "long") -> torch.Tensor:
    """The learner's value as a tensor of the stated shape and kind (long ids, a bool mask,
    floats), or Unfit."""
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
    if kind == "long" and value.dtype != torch.long:
        raise Unfit(
            f"{name}.dtype = {value.dtype}",
            L(f"{name}.dtype = torch.long (int64)", f"{name}.dtype = torch.long（int64）"),
            LONG_IDS,
        )
    if kind == "float" and not value.dtype.is_floating_point:
        raise Unfit(f"{name}.dtype = {value.dtype}", same(f"{name}: floats (the logits themselves)"))
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


def _fixed_ints(seed: int, shape: tuple[int, ...], low: int, high: int) -> torch.Tensor:
    """Integers in [low, high) from a fixed seed: the large inputs of the statistics."""
    return torch.randint(low, high, shape, generator=torch.Generator().manual_seed(seed))


# -- calling the learner's function ------------------------------------------------

PROBE = "__objectives_lab_call__"


def probe_source(function: str) -> str:
    """Appended to a copy of the learner's file: calls their function and returns
    (result, the arguments afterwards, whether the result is part of an autograd graph).
    With ``grad`` the float arguments require grad first (through a multiplication by
    1.0, so writing into them stays possible and is seen). Defined only when their
    function is, so a missing function is still reported as missing. No triple quotes:
    an unterminated string at the end of their file stays unterminated."""
    return (
        "\n\n\n# -- added by the lab's checks to a copy of your file: calls your function --\n"
        f"if callable(globals().get({function!r})):\n\n"
        f"    def {PROBE}(grad, *args):\n"
        "        import torch as lab_torch\n\n"
        "        if grad:\n"
        "            args = tuple(\n"
        "                a.detach().requires_grad_(True) * 1.0\n"
        "                if isinstance(a, lab_torch.Tensor) and a.is_floating_point()\n"
        "                else a\n"
        "                for a in args\n"
        "            )\n"
        f"        out = {function}(*args)\n"
        "        connected = isinstance(out, lab_torch.Tensor) and out.requires_grad\n"
        "        after = [None if isinstance(a, lab_torch.Generator) else a for a in args]\n"
        "        return (out, after, connected)\n"
    )


@dataclass
class Call:
    out: object  # what the learner's function returned
    args: list | None  # its arguments after the call (None: not reported)
    connected: bool = False  # the result is a tensor in an autograd graph (with Checker.grad)


def call(
    box: Sandbox, checker: Checker, args: tuple, *, limit: float | None = None, global_seed: int = 0
) -> Call:
    """One call through the probe; LearnerError and SandboxStopped pass through."""
    raw = box.call(checker.grad, *args, limit=limit, global_seed=global_seed)
    if isinstance(raw, tuple) and len(raw) == 3 and isinstance(raw[1], list):
        return Call(raw[0], raw[1], raw[2] is True)
    return Call(raw, None)  # only if their file replaced the probe: judged as a plain result


def parameters(task: Task) -> tuple[str, ...]:
    """The parameter names of the task's signature (our own text), to name an argument."""
    tree = ast.parse(task.signature + "\n    pass\n")
    return tuple(arg.arg for arg in tree.body[0].args.args)


def _equal(a, b) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def changed_argument(checker: Checker, case, sent: tuple, after: list | None) -> Failure | None:
    """The inputs-unchanged rule: each argument compared with what was sent."""
    if after is None or len(after) != len(sent):
        return None
    for index, (before, now) in enumerate(zip(sent, after, strict=True)):
        if isinstance(before, Generator) or _equal(before, now):
            continue
        name = checker.params[index] if index < len(checker.params) else f"argument {index + 1}"
        return checker.fail(
            INPUTS_UNCHANGED,
            case,
            L(f"{name} after your call = {show(now)}", f"调用之后 {name} = {show(now)}"),
            L(f"{name} = {show(before)}, as it was passed", f"{name} = {show(before)}，和传入时一样"),
        )
    return None


# -- one checker per task --------------------------------------------------------


class Checker:
    """How to call one task's function, what its inputs are, and its rules."""

    rules: tuple[Rule, ...] = ()
    examples = MAX_EXAMPLES  # hypothesis examples searched; fewer where one call is costly
    random = False  # the function draws random numbers: a failure is also checked for the global RNG
    grad = False  # float arguments require grad in the child (a loss must backpropagate)
    params: tuple[str, ...] = ()  # the signature's parameter names (set by the runner)

    def strategy(self) -> st.SearchStrategy:
        raise NotImplementedError

    def smoke(self):
        raise NotImplementedError

    def args(self, case) -> tuple:
        raise NotImplementedError

    def describe(self, case) -> Said:
        raise NotImplementedError

    def judge(self, case, out) -> Failure | None:
        raise NotImplementedError

    def judge_call(self, case, result: Call) -> Failure | None:
        """The verdict on one call: the output's, and whatever else the call showed."""
        return judge_output(self, case, result.out)

    def extra(self, box: Sandbox, result: LabResult) -> Failure | None:
        """Checks beyond the search: reproducibility, statistics, exactness."""
        return None

    def fail(
        self, rule: Rule, case, yours: Said, required: Bilingual, diagnosis: str | None = None, note=None
    ) -> Failure:
        """``diagnosis``: None takes the rule's own misconception, "" names none."""
        code = rule.diagnosis if diagnosis is None else diagnosis
        where = case.text if isinstance(case, Shown) else self.describe(case)
        return Failure(rule, where, yours, required, code or None, note)

    def unfit(self, case, unfit: Unfit) -> Failure:
        return self.fail(unfit.rule, case, unfit.yours, unfit.required)


def search(checker: Checker, predicate, examples: int | None = None):
    """The smallest case of the checker's strategy for which ``predicate`` holds, or None."""
    try:
        return find(
            checker.strategy(),
            predicate,
            settings=settings(
                max_examples=examples or checker.examples,
                database=None,
                derandomize=True,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                phases=[Phase.generate, Phase.shrink],
            ),
        )
    except NoSuchExample:
        return None


def global_rng_difference(box: Sandbox, checker: Checker, case, tries: int = 3) -> tuple | None:
    """Two calls with the same arguments (the same generator seed), under two global
    seeds, that give different results: (first, second), or None. Several tries: a draw
    from Python's random (whose state moves on between calls) may agree by chance."""
    for _ in range(tries):
        try:
            first = call(box, checker, checker.args(case), global_seed=1).out
            second = call(box, checker, checker.args(case), global_seed=2).out
        except LearnerError:
            return None
        if not _equal(first, second):
            return first, second
    return None


def reproducibility_failure(checker: Checker, case, difference: tuple) -> Failure:
    first, second = difference
    return checker.fail(
        REPRODUCIBLE,
        case,
        L(
            f"1st call: {show(first, 100)}\n2nd call: {show(second, 100)}",
            f"第 1 次调用：{show(first, 100)}\n第 2 次调用：{show(second, 100)}",
        ),
        L(
            "the same result twice: both calls had the same generator seed (only torch's global seed, "
            "or Python's random state, differed)",
            "两次结果相同：两次调用的 generator 种子相同（不同的只有 torch 的全局种子或 Python random 的状态）",
        ),
    )


def shrunk_reproducibility_failure(checker: Checker, box: Sandbox, case, difference: tuple) -> Failure:
    """The smallest case whose result moves with the global state, with the two results seen there."""
    seen: dict[str, tuple] = {}

    def differs(candidate) -> bool:
        found = global_rng_difference(box, checker, candidate, tries=1)
        if found is not None:
            seen[repr(candidate)] = found
        return found is not None

    smallest = search(checker, differs)
    if smallest is None or repr(smallest) not in seen:
        return reproducibility_failure(checker, case, difference)
    return reproducibility_failure(checker, smallest, seen[repr(smallest)])


def generator_rules(checker: Checker, box: Sandbox, case, reseeded) -> Failure | None:
    """Every draw from ``generator``, on a case where every random path is taken: the same
    seed gives the same result whatever torch's global seed (shrunk to the smallest case
    that shows it), and another seed gives another result (for a correct solution the
    two outputs are equal with probability below 1e-20)."""
    first = call(box, checker, checker.args(case), global_seed=1).out
    second = call(box, checker, checker.args(case), global_seed=2).out
    if not _equal(first, second):
        return shrunk_reproducibility_failure(checker, box, case, (first, second))
    other = call(box, checker, checker.args(reseeded), global_seed=1).out
    if _equal(first, other):
        return checker.fail(
            GENERATOR_USED,
            case,
            L(
                f"generator seed {case[-1]} and seed {reseeded[-1]} both give {show(first, 100)}",
                f"generator 种子 {case[-1]} 和 {reseeded[-1]} 都给出 {show(first, 100)}",
            ),
            L(
                "other draws for another seed (a correct solution gives the same result for these two seeds less than once in 10^20 runs)",
                "换一个种子就得到不同的抽样（正确的实现在这两个种子上结果相同的概率不到 10^20 分之一）",
            ),
        )
    return None


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

    def diagnose(self, case, rule: Rule, mask: torch.Tensor, q: int, k: int) -> str | None:
        """A misconception the mask shows, beyond the square's own (inverted, transposed)."""
        return None

    def judge(self, case, out):
        ref = self.reference(case)
        n = ref.shape[-1]
        try:
            mask = tensor(out, "mask", (n, n), "bool")
        except Unfit as unfit:
            return self.unfit(case, unfit)
        if torch.equal(mask, ref):
            return None
        q, k = _mask_rule_cell(mask, ref)
        rule = self.rule_at(case, q, k)
        return self.fail(
            rule,
            case,
            f"mask[{q}, {k}] = {bool(mask[q, k])}\n{show(mask)}",
            same(f"mask[{q}, {k}] = {bool(ref[q, k])}\n{show(ref)}"),
            _classify_square(mask, ref) or self.diagnose(case, rule, mask, q, k),  # None: the rule's own
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
    "prefix-sees-continuation",
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

    def diagnose(self, case, rule, mask, q, k):
        if rule is PREFIX_FUTURE:
            if torch.equal(mask, torch.zeros_like(mask)):
                return "prefix-fully-bidirectional"
            # a prefix query seeing the continuation, or a continuation query seeing its future
            return "prefix-sees-continuation" if q < case[1] else "causal-sees-future"
        if rule is PREFIX_VISIBLE and torch.equal(mask, engine_masks.causal_mask(case[0])):
            return "prefix-ignored"
        return None


PADDING_KEYS = Rule(
    "padding-keys-blocked",
    L(
        "A padding key (attention_mask 0) is blocked for every query of its row.",
        "填充位置的键（attention_mask 为 0）对该行每个查询都遮盖。",
    ),
    "padding-attended",
)
PADDING_ONLY_KEYS = Rule(
    "padding-blocks-keys-only",
    L(
        "Padding blocks keys (columns), not queries: a real key k <= q stays visible, even to a padding query.",
        "填充遮盖的是键（列），不是查询：真实的键 k <= q 仍然可见，即使查询本身是填充。",
    ),
    "padding-blocks-queries",
)


class PaddedCausalMask(Checker):
    rules = (SHAPE, INPUTS_UNCHANGED, FUTURE, PADDING_KEYS, PADDING_ONLY_KEYS, PAST)

    def strategy(self):
        return _batches(st.integers(1, 3), st.integers(1, 7), st.integers(0, 1))

    def smoke(self):
        return [[1, 1, 1, 0], [1, 1, 0, 0]]

    def args(self, rows):
        return (torch.tensor(rows, dtype=torch.long),)

    def describe(self, rows):
        return "attention_mask =\n" + "\n".join(str(row) for row in rows)

    def judge(self, rows, out):
        attention = torch.tensor(rows, dtype=torch.long)
        b, n = attention.shape
        ref = engine_masks.with_key_padding(engine_masks.causal_mask(n), attention)
        try:
            mask = tensor(out, "mask", (b, n, n), "bool")
        except Unfit as unfit:
            return self.unfit(rows, unfit)
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
    rules = (SHAPE, LONG_IDS, INPUTS_UNCHANGED, INPUTS_DROP_LAST, LABELS_NEXT)

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
        return (torch.tensor(tokens, dtype=torch.long),)

    def describe(self, tokens):
        return f"tokens = {tokens}"

    def judge(self, tokens, out):
        ids = torch.tensor(tokens, dtype=torch.long)
        want_in, want_labels = engine_clm.shift_for_next_token(ids)
        try:
            inputs, labels = pair(out, ("inputs", "labels"))
            inputs = tensor(inputs, "inputs", tuple(want_in.shape))
            labels = tensor(labels, "labels", tuple(want_labels.shape))
        except Unfit as unfit:
            return self.unfit(tokens, unfit)
        yours = f"inputs = {show(inputs)}\nlabels = {show(labels)}"
        required = same(f"inputs = {show(want_in)}\nlabels = {show(want_labels)}")
        wrong_way = torch.equal(inputs, ids[..., 1:]) and torch.equal(labels, ids[..., :-1])
        if not torch.equal(inputs, want_in):
            return self.fail(
                INPUTS_DROP_LAST, tokens, yours, required, "shifted-wrong-way" if wrong_way else None
            )
        if not torch.equal(labels, want_labels):
            return self.fail(
                LABELS_NEXT, tokens, yours, required, None if torch.equal(labels, inputs) else ""
            )
        return None


LOGITS_DROP_LAST = Rule(
    "logits-drop-last",
    L(
        "The logits of position t meet the label of position t+1: keep logits[:, :-1] (the last position has nothing to predict).",
        "位置 t 的 logits 对应位置 t+1 的标签：保留 logits[:, :-1]（最后一个位置没有要预测的词）。",
    ),
    "labels-not-shifted",
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
        return _random_logits(seed, (b, n, v)), torch.tensor(rows, dtype=torch.long)

    def args(self, case):
        return self._inputs(case)


class LossSidePairs(LogitsChecker):
    rules = (SHAPE, LONG_IDS, INPUTS_UNCHANGED, LOGITS_DROP_LAST, LABELS_DROP_FIRST)

    def smoke(self):
        return ((1, 4, 3, 0), [[0, 1, 2, 1]])

    def describe(self, case):
        (b, n, v, _seed), ids = case
        return L(
            f"logits: shape ({b}, {n}, {v}), logits[0, t] differs for every t\ninput_ids = {ids}",
            f"logits：形状 ({b}, {n}, {v})，每个 t 的 logits[0, t] 都不同\ninput_ids = {ids}",
        )

    def judge(self, case, out):
        logits, ids = self._inputs(case)
        b, n, v = logits.shape
        try:
            got_logits, got_labels = pair(out, ("shifted_logits", "shifted_labels"))
            got_logits = tensor(got_logits, "shifted_logits", (b, n - 1, v), kind="float")
            got_labels = tensor(got_labels, "shifted_labels", (b, n - 1))
        except Unfit as unfit:
            return self.unfit(case, unfit)

        def positions(rows: torch.Tensor) -> list:
            found = []
            for t in range(rows.shape[1]):
                match = [s for s in range(n) if torch.equal(rows[0, t], logits[0, s])]
                found.append(match[0] if match else "?")
            return found

        wrong_way = torch.equal(got_logits, logits[:, 1:]) and torch.equal(got_labels, ids[:, :-1])
        diagnosis = "shifted-wrong-way" if wrong_way else None
        yours = L(
            f"logits of positions {positions(got_logits)}\nlabels = {show(got_labels)}",
            f"位置 {positions(got_logits)} 的 logits\nlabels = {show(got_labels)}",
        )
        pairs = engine_clm.loss_side_pairs(n)  # (logit position, label position)
        want_labels = ids[:, [label for _logit, label in pairs]]
        wanted = [logit for logit, _label in pairs]
        required = L(
            f"logits of positions {wanted}\nlabels = {show(want_labels)}",
            f"位置 {wanted} 的 logits\nlabels = {show(want_labels)}",
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
    "ignore-index-as-class",
)
LOSS_TENSOR = Rule(
    "loss-is-tensor",
    L(
        "The loss is a 0-d tensor that backpropagates to the logits: training calls loss.backward() on it.",
        "损失是一个能反向传播到 logits 的 0 维张量：训练时要对它调用 loss.backward()。",
    ),
    "loss-not-tensor",
)


def _ce(logits: torch.Tensor, labels: torch.Tensor) -> float:
    return float(engine_clm.causal_lm_loss(logits, labels))


class ClmLoss(LogitsChecker):
    rules = (SHAPE, INPUTS_UNCHANGED, IGNORE_INDEX_RULE, LOSS_EQUAL, LOSS_TENSOR)
    lengths, vocab = (2, 6), (2, 5)
    grad = True

    def cell(self, vocab):
        return st.one_of(st.just(IGNORE), st.integers(0, vocab - 1))

    def usable(self, rows):
        return any(v != IGNORE for row in rows for v in row[1:])  # at least one label in the loss

    def smoke(self):
        return ((1, 4, 3, 0), [[0, 1, 2, IGNORE]])

    def describe(self, case):
        (b, n, v, seed), labels = case
        return L(
            f"logits: shape ({b}, {n}, {v}), seed {seed}\nlabels = {labels}",
            f"logits：形状 ({b}, {n}, {v})，种子 {seed}\nlabels = {labels}",
        )

    def judge(self, case, out):
        logits, labels = self._inputs(case)
        want = float(engine_clm.loss_side_loss(logits, labels))
        if isinstance(out, torch.Tensor) and out.numel() == 1 and out.dtype.is_floating_point:
            value = float(out)
        elif isinstance(out, float):
            value = out  # judged for its value here; judge_call then asks for a tensor
        else:
            return self.fail(SHAPE, case, show(out), same("a 0-d float tensor"))
        if abs(value - want) <= 1e-4 * max(1.0, abs(want)):
            return None
        alternatives = {}  # the loss a known mistake gives, where it is defined
        if bool((labels[:, :-1] != IGNORE).any()):
            alternatives["shifted-wrong-way"] = _ce(logits[:, 1:], labels[:, :-1])
        if bool((labels != IGNORE).any()):
            alternatives["labels-not-shifted"] = _ce(logits, labels)
        shifted, targets = logits[:, :-1], labels[:, 1:]
        alternatives["mean-includes-ignored"] = float(
            F.cross_entropy(shifted.reshape(-1, shifted.shape[-1]), targets.reshape(-1), reduction="sum")
            / targets.numel()
        )
        diagnosis = next(
            (code for code, alt in alternatives.items() if abs(alt - value) <= 1e-4 * max(1.0, abs(alt))),
            None,
        )
        return self.fail(LOSS_EQUAL, case, f"loss = {value:.4f}", same(f"loss = {want:.4f}"), diagnosis)

    def judge_call(self, case, result):
        failure = super().judge_call(case, result)
        if failure is None and not result.connected:
            kind = "a Python float" if isinstance(result.out, float) else "a tensor cut off from the logits"
            kind_zh = "Python 的 float" if isinstance(result.out, float) else "与 logits 断开的张量"
            return self.fail(
                LOSS_TENSOR,
                case,
                L(f"loss = {show(result.out)}: {kind}", f"loss = {show(result.out)}：{kind_zh}"),
                L(
                    "the tensor F.cross_entropy returns, as it is (no .item(), float() or torch.tensor(...))",
                    "直接返回 F.cross_entropy 给出的张量（不要 .item()、float() 或 torch.tensor(...)）",
                ),
            )
        return failure

    def raised(self, case, error: LearnerError) -> Failure | None:
        if "out of bounds" in error.message or "Target -100" in error.message:
            return self.fail(
                IGNORE_INDEX_RULE, case, f"{error.name}: {error.message[:120]}", same("ignore_index=-100")
            )
        if "requires grad" in error.message:  # .numpy() on the logits, which require grad here
            return self.fail(
                LOSS_TENSOR,
                case,
                f"{error.name}: {error.message[:120]}",
                same("torch operations on the logits"),
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


def lesson_clm_losses(case: tuple[int, int, int], ref) -> dict[tuple[str, bool, str], float]:
    """The CLM run's loss under the draw orders and mistakes a learner can make:
    (order of the draws after input_ids, projection scaled, pairing) -> loss, with the
    sizes of the engine's run ``ref``. Only computed to name a mistake once the
    learner's loss differs from the engine's."""
    seed, batch, seq_len = case
    vocab, hidden_dim = ref.vocab_size, ref.hidden_dim
    losses = {}
    for order in ("projection-first", "hidden-first"):
        g = torch.Generator().manual_seed(seed)
        ids = torch.randint(0, vocab, (batch, seq_len), generator=g)
        first = torch.randn(hidden_dim, vocab, generator=g) if order == "projection-first" else None
        hidden = torch.randn(batch, seq_len, hidden_dim, generator=g)
        raw = first if first is not None else torch.randn(hidden_dim, vocab, generator=g)
        for scaled in (True, False):
            logits = hidden @ (raw / hidden_dim**0.5 if scaled else raw)
            pairings = {
                "shifted": (logits[:, :-1], ids[:, 1:]),
                "not-shifted": (logits, ids),
                "wrong-way": (logits[:, 1:], ids[:, :-1]),
            }
            for pairing, (x, y) in pairings.items():
                losses[(order, scaled, pairing)] = float(F.cross_entropy(x.reshape(-1, vocab), y.reshape(-1)))
    return losses


class LessonClmRun(Checker):
    examples = 25  # each call draws a 64 x 10000 projection, here and in the sandbox
    rules = (SHAPE, LONG_IDS, REPRODUCIBLE, SAME_DRAWS, LOSS_LESSON, DIAGONAL, FUTURE, PAST)
    random = True

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
                return self.unfit(case, problem)
            return self.fail(SHAPE, case, show(out, 80), same("(input_ids, loss as a float, mask)"))
        if not torch.equal(ids, ref.input_ids):
            return self.fail(
                SAME_DRAWS, case, f"input_ids = {show(ids)}", same(f"input_ids = {show(ref.input_ids)}")
            )
        if abs(loss - ref.loss) > 1e-4 * max(1.0, ref.loss):
            return self._loss_failure(case, loss, ref)
        if not torch.equal(mask, ref.causal_mask):
            q, k = _mask_rule_cell(mask, ref.causal_mask)
            rule = DIAGONAL if q == k else FUTURE if k > q else PAST
            return self.fail(
                rule, case, show(mask), same(show(ref.causal_mask)), _classify_square(mask, ref.causal_mask)
            )
        return None

    def _loss_failure(self, case, loss: float, ref) -> Failure:
        """Name the mistake whose loss the learner's is: a draw order first, then the scaling, then the pairing."""
        want = ref.loss
        match = next(
            (
                key
                for key, value in lesson_clm_losses(case, ref).items()
                if abs(loss - value) <= 1e-4 * max(1.0, value)
            ),
            None,
        )
        yours, required = f"loss = {loss:.4f}", same(f"loss = {want:.4f}")
        if match is not None and match[0] == "hidden-first":
            return self.fail(
                SAME_DRAWS,
                case,
                L(
                    f"{yours}: the loss that drawing hidden before projection gives",
                    f"{yours}：这正是先抽 hidden、后抽 projection 得到的损失",
                ),
                L(
                    f"loss = {want:.4f}: draw input_ids, then projection (64, 10000), then hidden (batch, seq_len, 64)",
                    f"loss = {want:.4f}：先抽 input_ids，再抽 projection (64, 10000)，最后抽 hidden (batch, seq_len, 64)",
                ),
            )
        if match is not None and not match[1]:
            return self.fail(LOSS_LESSON, case, yours, required, "scaling-bug-missed")
        diagnosis = {"not-shifted": "labels-not-shifted", "wrong-way": "shifted-wrong-way"}.get(
            match[2] if match else ""
        )
        return self.fail(LOSS_LESSON, case, yours, required, diagnosis)


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
    "random-word-special",
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
SHORT_ROWS = Rule(
    "selection-rate-short-rows",
    L(
        "Each eligible token is selected with probability p on its own, in short rows too: a row of 1 to 3 tokens is sometimes masked (an exact binomial test over many short rows).",
        "每个可选 token 各自以概率 p 被选中，短的行也一样：只有 1 到 3 个 token 的行有时也会被掩码（在许多短行上做精确二项检验）。",
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
)
RANDOM_UNIFORM = Rule(
    "random-uniform",
    L(
        "A random replacement is uniform over the non-special ids: every one of them is drawn equally often (exact binomial tests on a small vocabulary).",
        "随机替换词在所有非特殊 id 上均匀分布：每个 id 被抽到的机会相同（在小词表上做精确二项检验）。",
    ),
    "random-word-not-uniform",
)


# The rules of BERT's masking that judge_mlm and the statistics check, in the order a report lists them.
BERT_MASKING_RULES = (
    LABELS_OFF,
    SPECIALS,
    LABEL_ORIGINAL,
    UNSELECTED_KEPT,
    RANDOM_NOT_SPECIAL,
    ALL_SELECTED,
    SELECTION_RATE,
    SHORT_ROWS,
    SPLIT,
    RANDOM_UNIFORM,
)


def _special_mask(ids: torch.Tensor, specials: set[int]) -> torch.Tensor:
    if not specials or ids.numel() == 0:
        return torch.zeros(ids.shape, dtype=torch.bool)
    return torch.isin(ids, torch.tensor(sorted(specials), dtype=ids.dtype))


def _in_pool(values: torch.Tensor, specials: set[int], vocab_size: int) -> torch.Tensor:
    return (values >= 0) & (values < vocab_size) & ~_special_mask(values, specials)


def judge_mlm(
    checker: Checker,
    case,
    ids: torch.Tensor,
    out,
    specials: set[int],
    mask_id: int,
    vocab_size: int,
    p: float,
) -> Failure | None:
    """The masked-LM invariants, read from the output alone (selected = label != -100)."""
    try:
        input_ids, labels = pair(out, ("input_ids", "labels"))
        input_ids = tensor(input_ids, "input_ids", tuple(ids.shape))
        labels = tensor(labels, "labels", tuple(ids.shape))
    except Unfit as unfit:
        return checker.unfit(case, unfit)
    is_special = _special_mask(ids, specials)
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
    bad = (replaced & ~_in_pool(input_ids, specials, vocab_size)).nonzero()
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
    return st.one_of(st.sampled_from([0.0, 1.0, 0.15, 0.5]), st.floats(0.0, 1.0))


def _seeds():
    return st.integers(0, 2**31 - 1)


# -- statistics ----------------------------------------------------------------------


def _binomial(report: list[dict], name: str, count: int, trials: int, p: float, alpha: float = stats.ALPHA):
    """One exact two-sided test, recorded in the result's statistics; True when it passes."""
    value = stats.p_value(count, trials, p)
    low, high = stats.acceptance_region(trials, p, alpha)
    report.append(
        {
            "name": name,
            "count": count,
            "trials": trials,
            "p": p,
            "p_value": value,
            "alpha": alpha,
            "accepted": [low, high],
            "ok": value > alpha,
        }
    )
    return value > alpha


def _within(count: int, trials: int, p: float, alpha: float = 1e-3) -> bool:
    """Whether a count fits another hypothesis (used to name a mistake, never to fail one)."""
    if trials == 0:
        return count == 0
    low, high = stats.acceptance_region(trials, p, alpha)
    return low <= count <= high


def _rate_failure(rule: Rule, where: Said, entry: dict, what: Bilingual, diagnosis: str | None) -> Failure:
    count, trials, low, high = entry["count"], entry["trials"], *entry["accepted"]
    odds = f"{1 / entry['alpha']:,.0f}"
    share = f"{count / max(trials, 1):.1%}"
    return Failure(
        rule,
        where,
        L(f"{count} of {trials} ({share})", f"{trials} 个中有 {count} 个（{share}）"),
        L(
            f"{what['en']}: between {low} and {high} of {trials} (rate {entry['p']:.3f}); a correct solution lands outside less than once in {odds} runs",
            f"{what['zh']}：{trials} 个中应有 {low} 到 {high} 个（比例 {entry['p']:.3f}）；正确的实现落在范围外的概率不到 {odds} 分之一",
        ),
        diagnosis,
    )


def _read_mlm(out, shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
    input_ids, labels = pair(out, ("input_ids", "labels"))
    return tensor(input_ids, "input_ids", shape), tensor(labels, "labels", shape)


@dataclass(frozen=True)
class StatCall:
    """One large call of a statistics test: its arguments, the ids it masks and how to
    describe a row (or window) of it where a deterministic rule is broken."""

    args: tuple
    ids: torch.Tensor
    specials: set[int]
    mask_id: int
    vocab_size: int
    p: float
    title: Bilingual  # e.g. "a (200, 200) batch, p = 0.15, generator seed 12345"


def stat_call(checker: Checker, box: Sandbox, plan: StatCall) -> tuple[torch.Tensor, torch.Tensor] | Failure:
    """Make one large call; its (input_ids, labels), or the failure of a rule it breaks
    (shown on the first row, or window of 12 positions, that breaks it)."""
    out = call(box, checker, plan.args, limit=STAT_CALL_LIMIT_S, global_seed=7).out
    try:
        input_ids, labels = _read_mlm(out, tuple(plan.ids.shape))
    except Unfit as unfit:
        return Failure(unfit.rule, plan.title, unfit.yours, unfit.required, unfit.rule.diagnosis)
    ids = plan.ids
    special = _special_mask(ids, plan.specials)
    selected = labels != IGNORE
    changed = input_ids != ids
    replaced = selected & changed & (input_ids != plan.mask_id)
    bad = (
        (special & (selected | changed))
        | (selected & (labels != ids))
        | (~selected & changed)
        | (replaced & ~_in_pool(input_ids, plan.specials, plan.vocab_size))
    )
    if plan.p == 1.0:
        bad |= ~special & ~selected
    if not bool(bad.any()):
        return input_ids, labels
    first = tuple(int(v) for v in bad.nonzero()[0])
    if ids.dim() == 2:
        rows = slice(first[0], first[0] + 1)
        where = L(f"row {first[0]} of {plan.title['en']}", f"{plan.title['zh']}的第 {first[0]} 行")
    else:
        start = max(0, first[0] - 5)
        rows = slice(start, start + 12)
        last = min(start + 12, ids.shape[0]) - 1
        where = L(
            f"positions {start}..{last} of {plan.title['en']}", f"{plan.title['zh']}的位置 {start}..{last}"
        )
    window = (ids[rows], input_ids[rows], labels[rows])
    values = f"ids = {window[0].tolist()}\nspecial_ids = {sorted(plan.specials)}, mask_id = {plan.mask_id}, vocab_size = {plan.vocab_size}, p = {plan.p}"
    shown = Shown(L(f"{where['en']}\n{values}", f"{where['zh']}\n{values}"))
    failure = judge_mlm(
        checker,
        shown,
        window[0],
        (window[1], window[2]),
        plan.specials,
        plan.mask_id,
        plan.vocab_size,
        plan.p,
    )
    return failure or Failure(SHAPE, shown.text, show(window[1]), L("a masked row", "一行掩码后的结果"))


def selection_test(
    report: list[dict],
    name: str,
    chosen: int,
    trials: int,
    p: float,
    rule: Rule,
    where: Said,
    diagnosis=None,
) -> Failure | None:
    if _binomial(report, name, chosen, trials, p):
        return None
    what = L(f"selected at rate p = {p}", f"按概率 p = {p} 选中")
    return _rate_failure(rule, where, report[-1], what, diagnosis)


def short_rows_test(
    checker: Checker,
    box: Sandbox,
    report: list[dict],
    plans: list[tuple[tuple, tuple[int, ...]]],
    p: float,
    count: Callable[[tuple, torch.Tensor], tuple[int, list[int]]],
    where: Said,
    more: Callable[[list[list[int]]], list[tuple[str, float, float]]] | None = None,
) -> Failure | None:
    """Many calls on short inputs (rows of 1 to 3 eligible tokens, or 1 to 3 words): the
    selection rate, pooled over the calls, in one exact test. ``plans`` are each call's
    arguments and the shape of its output; ``count(args, labels)`` gives one call's
    selected units and each row's eligible units. When the test fails, the
    count a known mistake predicts names it: a fixed number per row or per call (that
    count exactly), or (``more``) p rescaled (within 3 standard deviations)."""
    chosen, per_call = 0, []
    for args, shape in plans:
        out = call(box, checker, args, limit=STAT_CALL_LIMIT_S).out
        try:
            _input_ids, labels = _read_mlm(out, shape)
        except Unfit as unfit:
            return Failure(unfit.rule, where, unfit.yours, unfit.required, unfit.rule.diagnosis)
        got, rows = count(args, labels)
        chosen += got
        per_call.append(rows)
    trials = sum(sum(rows) for rows in per_call)
    if _binomial(report, "selection, short rows", chosen, trials, p):
        return None
    predictions = fixed_count_predictions(per_call, p) + (more(per_call) if more else [])
    diagnosis = next((code for code, mean, sd in predictions if abs(chosen - mean) <= 3 * sd), None)
    what = L(f"selected at rate p = {p}, in short rows too", f"短行里也按概率 p = {p} 选中")
    return _rate_failure(SHORT_ROWS, where, report[-1], what, diagnosis)


def fixed_count_predictions(per_call: list[list[int]], p: float) -> list[tuple[str, float, float]]:
    """What selecting a fixed number per row (or per call) would count, exactly (a
    standard deviation of 0): round(p·n), floor, ceil, or at least one."""
    rows = [n for units in per_call for n in units if n]
    calls = [sum(units) for units in per_call if sum(units)]
    counts = (round, math.floor, math.ceil, lambda x: max(1, round(x)))
    return [
        ("selection-fixed-count", float(sum(rule(p * n) for n in units)), 0.0)
        for units in (rows, calls)
        for rule in counts
    ]


def split_test(
    report: list[dict],
    ids: torch.Tensor,
    input_ids: torch.Tensor,
    selected: torch.Tensor,
    mask_id: int,
    pool_size: int,
    where: Said,
) -> Failure | None:
    """The 80/10/10 of the selected tokens: three exact tests. A random draw gives the
    original back with probability 1/pool_size, which then looks unchanged."""
    n = int(selected.sum())
    masked = int((selected & (input_ids == mask_id)).sum())
    kept = int((selected & (input_ids == ids)).sum())
    randomised = n - masked - kept
    hit = 1.0 / pool_size
    to_mask, to_random, to_keep = engine_mlm.BERT_SPLIT
    rates = {"[MASK]": to_mask, "random": to_random * (1 - hit), "unchanged": to_keep + to_random * hit}
    counts = {"[MASK]": masked, "random": randomised, "unchanged": kept}
    if all(_binomial(report, f"split: {name}", counts[name], n, rates[name]) for name in rates):
        return None
    regions = {name: stats.acceptance_region(n, rate) for name, rate in rates.items()}
    zh_names = {"[MASK]": "[MASK]", "random": "随机词", "unchanged": "不变"}
    shares = ", ".join(f"{name} {counts[name]} ({counts[name] / max(n, 1):.1%})" for name in rates)
    shares_zh = "，".join(
        f"{zh_names[name]} {counts[name]}（{counts[name] / max(n, 1):.1%}）" for name in rates
    )
    wanted = ", ".join(f"{name} {rates[name]:.1%} ({regions[name][0]}–{regions[name][1]})" for name in rates)
    rest, misread = 1 - to_mask, to_random  # Hugging Face halves the rest (0.5); 0.1 there is a misreading
    alternatives = {  # (mask, random, unchanged) shares of a known mistake
        "random-excludes-original": (to_mask, to_random, to_keep),
        "split-rest-not-halved": (
            to_mask,
            rest * misread * (1 - hit),
            rest * (1 - misread) + rest * misread * hit,
        ),
    }
    diagnosis = next(
        (
            code
            for code, shares_ in alternatives.items()
            if all(_within(counts[name], n, share) for name, share in zip(rates, shares_, strict=True))
        ),
        "split-not-80-10-10",
    )
    return Failure(
        SPLIT,
        where,
        L(f"of {n} selected: {shares}", f"{n} 个被选中的 token 中：{shares_zh}"),
        L(
            f"{wanted} (a random draw gives the original back 1 time in {pool_size}: it then counts as unchanged); a correct solution lands outside less than once in {1 / stats.ALPHA:,.0f} runs per share",
            f"{wanted}（随机抽样有 1/{pool_size} 的机会抽回原词，这时算作不变）；正确的实现每一项落在范围外的概率不到 {1 / stats.ALPHA:,.0f} 分之一",
        ),
        diagnosis,
    )


def uniform_test(
    report: list[dict],
    ids: torch.Tensor,
    input_ids: torch.Tensor,
    selected: torch.Tensor,
    mask_id: int,
    pool: list[int],
    where: Said,
) -> Failure | None:
    """The random replacements are uniform over the pool. Among the positions changed to
    a random word (not [MASK], not the original), the word is uniform over the pool minus
    the original: for each pool id j, the positions whose original is not j show j at
    rate 1/(m-1). One exact test per id, at ALPHA/m each (the family costs one ALPHA).
    Conditional on being changed, so a wrong split (or never drawing the original back)
    does not show here: the split test names those."""
    m = len(pool)
    changed = selected & (input_ids != ids) & (input_ids != mask_id)
    for j in pool:
        trials = int((changed & (ids != j)).sum())
        count = int((changed & (ids != j) & (input_ids == j)).sum())
        if not _binomial(report, f"random word {j}", count, trials, 1 / (m - 1), stats.ALPHA / m):
            entry = report[-1]
            drawn = {k: int((changed & (input_ids == k)).sum()) for k in pool}
            low, high = entry["accepted"]
            return Failure(
                RANDOM_UNIFORM,
                where,
                L(
                    f"random words drawn (id: times) {drawn}; id {j}: {count} of {trials}",
                    f"抽到的随机词（id: 次数）{drawn}；id {j}：{trials} 个中有 {count} 个",
                ),
                L(
                    f"each of the {m} non-special ids equally often: id {j} between {low} and {high} of {trials} (rate 1/{m - 1}, the original excluded); a correct solution lands outside less than once in {1 / stats.ALPHA:,.0f} runs",
                    f"{m} 个非特殊 id 出现的机会相同：id {j} 在 {trials} 个中应有 {low} 到 {high} 个（比例 1/{m - 1}，不算原词）；正确的实现落在范围外的概率不到 {1 / stats.ALPHA:,.0f} 分之一",
                ),
                RANDOM_UNIFORM.diagnosis,
            )
    return None


def upper_half_test(
    report: list[dict], input_ids: torch.Tensor, selected: torch.Tensor, low: int, high: int, where: Said
) -> Failure | None:
    """For a vocabulary too large to test id by id: the originals all lie in the lower
    half of the pool [low, high), so a selected position shows an id of the upper half
    exactly when a random draw landed there: rate 0.1 * |upper| / |pool|."""
    middle = (low + high) // 2
    rate = engine_mlm.BERT_SPLIT[1] * (high - middle) / (high - low)
    n = int(selected.sum())
    count = int((selected & (input_ids >= middle) & (input_ids < high)).sum())
    if _binomial(report, f"random words in [{middle}, {high})", count, n, rate):
        return None
    what = L(
        f"random words in the upper half [{middle}, {high}) of the pool, as often as in the lower half",
        f"随机词落在词池上半部分 [{middle}, {high}) 的次数与下半部分一样多",
    )
    return _rate_failure(RANDOM_UNIFORM, where, report[-1], what, RANDOM_UNIFORM.diagnosis)


# Small vocabularies for the split and the replacement's distribution: a random word is
# one of five ids, so each is seen hundreds of times (specials spread through the vocabulary).
FATES_VOCAB, FATES_SPECIALS, FATES_MASK = 10, [0, 3, 4, 6, 8], 4
FATES_POOL = [i for i in range(FATES_VOCAB) if i not in FATES_SPECIALS]


def _with_specials(ids: torch.Tensor, specials: list[int], share: float, seed: int) -> torch.Tensor:
    """``ids`` with about ``share`` of the positions replaced by specials (fixed seed)."""
    g = torch.Generator().manual_seed(seed)
    where = torch.rand(ids.shape, generator=g) < share
    picks = torch.tensor(specials)[torch.randint(0, len(specials), ids.shape, generator=g)]
    return torch.where(where, picks, ids)


SHORT_VOCAB = 1000  # the short calls' vocabulary: selection does not depend on it, a pool of it is cheap


def _short_row(g: torch.Generator, width: int) -> list[int]:
    """[CLS], 1 to 3 ordinary tokens, [SEP], then [PAD] up to ``width``."""
    n = int(torch.randint(1, 4, (1,), generator=g))
    tokens = torch.randint(5, SHORT_VOCAB, (n,), generator=g).tolist()
    return [2, *tokens, 3] + [0] * (width - n - 2)


class BertMask(Checker):
    rules = (SHAPE, LONG_IDS, INPUTS_UNCHANGED, REPRODUCIBLE, GENERATOR_USED, *BERT_MASKING_RULES)
    random = True

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
                    _batches(st.integers(1, 3), st.integers(0, 10), st.integers(0, vocab - 1)),
                    _probabilities(),
                    _seeds(),
                )
            )

        return st.integers(3, 30).flatmap(build)

    def smoke(self):
        return (12, [0, 1, 2, 3, 4], 4, [[2, 5, 6, 7, 8, 9, 10, 11, 3]], 0.5, 0)

    def rich(self, seed: int):
        """A case where every random path is taken many times (generator_rules)."""
        return (30, [0, 3, 4], 4, _fixed_ints(4246, (4, 30), 0, 30).tolist(), 0.5, seed)

    def args(self, case):
        vocab, specials, mask_id, rows, p, seed = case
        ids = torch.tensor(rows, dtype=torch.long).reshape(len(rows), -1 if rows and rows[0] else 0)
        return (ids, list(specials), mask_id, vocab, p, Generator(seed))

    def describe(self, case):
        vocab, specials, mask_id, rows, p, seed = case
        return f"ids = {rows}\nspecial_ids = {specials}, mask_id = {mask_id}\nvocab_size = {vocab}, p = {p}, seed = {seed}"

    def judge(self, case, out):
        vocab, specials, mask_id, _rows, p, _seed = case
        return judge_mlm(self, case, self.args(case)[0], out, set(specials), mask_id, vocab, p)

    def extra(self, box, result):
        failure = generator_rules(self, box, self.rich(99), self.rich(100))
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
            out = call(box, self, self.args(case)).out
            exact = exact and _equal(tuple(out), (ref.input_ids, ref.labels))
        result.exact = exact
        return self.statistics(box, result.statistics)

    def statistics(self, box: Sandbox, report: list[dict]) -> Failure | None:
        g = torch.Generator().manual_seed(4242)
        vocab, mask_id, specials = 30000, 4, [0, 1, 2, 3, 4]
        ids = torch.randint(5, vocab, (200, 200), generator=g)
        ids[torch.rand(ids.shape, generator=g) < 0.1] = 0  # padding-like specials among the text
        plan = StatCall(
            (ids, specials, mask_id, vocab, 0.15, Generator(12345)),
            ids,
            set(specials),
            mask_id,
            vocab,
            0.15,
            L(
                "a (200, 200) batch: ids in [5, 30000) and [PAD] (0), special_ids [0, 1, 2, 3, 4], mask_id 4, vocab_size 30000, p = 0.15, generator seed 12345",
                "一个 (200, 200) 的批次：id 取自 [5, 30000) 和 [PAD]（0），special_ids [0, 1, 2, 3, 4]，mask_id 4，vocab_size 30000，p = 0.15，generator 种子 12345",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        eligible = ids >= 5
        failure = selection_test(
            report,
            "selection",
            int(((got[1] != IGNORE) & eligible).sum()),
            int(eligible.sum()),
            0.15,
            SELECTION_RATE,
            plan.title,
        )
        if failure:
            return failure
        g = torch.Generator().manual_seed(4247)
        plans = []
        for k in range(SHORT_CALLS):
            rows = torch.tensor([_short_row(g, 5)])  # one row a call: a fixed count per row or per call shows
            plans.append(((rows, specials, mask_id, SHORT_VOCAB, 0.15, Generator(20000 + k)), (1, 5)))

        def count(args, labels):
            eligible = args[0] >= 5
            return int(((labels != IGNORE) & eligible).sum()), eligible.sum(dim=1).tolist()

        failure = short_rows_test(
            self,
            box,
            report,
            plans,
            0.15,
            count,
            L(
                f"{SHORT_CALLS} calls, each on one row [CLS], 1 to 3 tokens, [SEP], [PAD]… (shape (1, 5)); special_ids [0, 1, 2, 3, 4], vocab_size {SHORT_VOCAB}, p = 0.15, generator seeds 20000–{20000 + SHORT_CALLS - 1}",
                f"{SHORT_CALLS} 次调用，每次一行：[CLS]、1 到 3 个 token、[SEP]、[PAD]…（形状 (1, 5)）；special_ids [0, 1, 2, 3, 4]，vocab_size {SHORT_VOCAB}，p = 0.15，generator 种子 20000–{20000 + SHORT_CALLS - 1}",
            ),
        )
        if failure:
            return failure
        return self.fates(box, report)

    def fates(self, box: Sandbox, report: list[dict]) -> Failure | None:
        pool = torch.tensor(FATES_POOL)
        ids = pool[_fixed_ints(4248, (100, 220), 0, len(FATES_POOL))]
        ids = _with_specials(ids, FATES_SPECIALS, 0.1, 4249)
        plan = StatCall(
            (ids, FATES_SPECIALS, FATES_MASK, FATES_VOCAB, 1.0, Generator(12346)),
            ids,
            set(FATES_SPECIALS),
            FATES_MASK,
            FATES_VOCAB,
            1.0,
            L(
                f"a (100, 220) batch over a vocabulary of {FATES_VOCAB}: special_ids {FATES_SPECIALS}, mask_id {FATES_MASK}, p = 1.0 (every ordinary token selected), generator seed 12346",
                f"词表大小为 {FATES_VOCAB} 的一个 (100, 220) 批次：special_ids {FATES_SPECIALS}，mask_id {FATES_MASK}，p = 1.0（每个普通 token 都被选中），generator 种子 12346",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        input_ids, labels = got
        selected = labels != IGNORE
        return split_test(
            report, ids, input_ids, selected, FATES_MASK, len(FATES_POOL), plan.title
        ) or uniform_test(report, ids, input_ids, selected, FATES_MASK, FATES_POOL, plan.title)


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
    rules = (SHAPE, LONG_IDS, REPRODUCIBLE, SAME_DRAWS, SAME_SELECTION, LABEL_ORIGINAL, SAME_FATES)
    random = True

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
            return self.unfit(case, unfit)
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
LESSON_VOCAB = 10000


class MaskContent(Checker):
    rules = (SHAPE, LONG_IDS, INPUTS_UNCHANGED, REPRODUCIBLE, GENERATOR_USED, CLS_SEP, *BERT_MASKING_RULES)
    random = True

    def strategy(self):
        return st.tuples(st.lists(st.integers(5, 9999), min_size=0, max_size=10), _probabilities(), _seeds())

    def smoke(self):
        return ([7715, 2736, 2941, 1766], 0.3, 0)

    def rich(self, seed: int):
        return (_fixed_ints(4250, (300,), 5, LESSON_VOCAB).tolist(), 0.5, seed)

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
            if "shape" in unfit.yours:
                return self.fail(CLS_SEP, case, unfit.yours, unfit.required)
            return self.unfit(case, unfit)
        if int(input_ids[0]) != 2 or int(input_ids[-1]) != 3:
            return self.fail(
                CLS_SEP,
                case,
                f"input_ids = {show(input_ids)}",
                same("input_ids[0] = 2, input_ids[-1] = 3"),
                "specials-selected",
            )
        return judge_mlm(self, case, ids, out, set(LESSON_SPECIALS), 4, LESSON_VOCAB, p)

    def extra(self, box, result):
        return generator_rules(self, box, self.rich(99), self.rich(100)) or self.statistics(
            box, result.statistics
        )

    def _plan(self, content: torch.Tensor, p: float, seed: int, title: Bilingual) -> StatCall:
        ids = torch.cat([torch.tensor([2]), content, torch.tensor([3])])
        return StatCall((content, p, Generator(seed)), ids, set(LESSON_SPECIALS), 4, LESSON_VOCAB, p, title)

    def statistics(self, box: Sandbox, report: list[dict]) -> Failure | None:
        content = _fixed_ints(4243, (40000,), 5, LESSON_VOCAB)
        plan = self._plan(
            content,
            0.3,
            12345,
            L(
                "a content of 40000 ids in [5, 10000), p = 0.3, generator seed 12345",
                "长度 40000 的内容，id 取自 [5, 10000)，p = 0.3，generator 种子 12345",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        failure = selection_test(
            report,
            "selection",
            int((got[1][1:-1] != IGNORE).sum()),
            len(content),
            0.3,
            SELECTION_RATE,
            plan.title,
        )
        if failure:
            return failure
        g = torch.Generator().manual_seed(4244)
        plans = []
        for k in range(SHORT_CALLS):
            n = int(torch.randint(1, 4, (1,), generator=g))
            short = torch.randint(5, LESSON_VOCAB, (n,), generator=g)
            plans.append(((short, 0.3, Generator(20000 + k)), (n + 2,)))

        def count(args, labels):
            return int((labels[1:-1] != IGNORE).sum()), [len(args[0])]

        def rescaled(per_call):  # p stretched by (L + 2) / L to make up for [CLS] and [SEP]
            rates = [(n, min(1.0, 0.3 * (n + 2) / n)) for units in per_call for n in units]
            mean = sum(n * q for n, q in rates)
            return [("p-rescaled", mean, math.sqrt(sum(n * q * (1 - q) for n, q in rates)))]

        failure = short_rows_test(
            self,
            box,
            report,
            plans,
            0.3,
            count,
            L(
                f"{SHORT_CALLS} calls on contents of 1 to 3 ids, p = 0.3, generator seeds 20000–{20000 + SHORT_CALLS - 1}",
                f"{SHORT_CALLS} 次调用，内容长度 1 到 3，p = 0.3，generator 种子 20000–{20000 + SHORT_CALLS - 1}",
            ),
            rescaled,
        )
        if failure:
            return failure
        # the fates: every content token selected; originals in the lower half of the pool
        middle = (5 + LESSON_VOCAB) // 2
        content = _fixed_ints(4245, (100000,), 5, middle)
        plan = self._plan(
            content,
            1.0,
            12346,
            L(
                f"a content of 100000 ids in [5, {middle}), p = 1.0 (every token selected), generator seed 12346",
                f"长度 100000 的内容，id 取自 [5, {middle})，p = 1.0（每个 token 都被选中），generator 种子 12346",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        input_ids, labels = got
        selected = labels != IGNORE
        return split_test(
            report, plan.ids, input_ids, selected, 4, LESSON_VOCAB - 5, plan.title
        ) or upper_half_test(report, input_ids, selected, 5, LESSON_VOCAB, plan.title)


WHOLE_WORDS = Rule(
    "whole-words",
    L(
        "All pieces of a word are selected together or not at all: their labels are all -100 or none is.",
        "一个词的所有子词要么一起被选中，要么都不选：它们的标签要么全是 -100，要么都不是。",
    ),
    "pieces-masked-separately",
)
WORD_FATES = Rule(
    "fate-per-piece",
    L(
        "Each selected piece gets its own fate: the pieces of one word are [MASK], random or unchanged independently (an exact binomial test on two-piece words).",
        "每个被选中的子词各自决定命运：同一个词的子词各自独立地变成 [MASK]、随机词或保持不变（在两个子词的词上做精确二项检验）。",
    ),
    "word-one-fate",
)


def _word_ids(lengths: list[int]) -> list[int]:
    words = [-1]
    for word, length in enumerate(lengths):
        words += [word] * length
    return [*words, -1]


def _first_pieces(words: torch.Tensor) -> torch.Tensor:
    previous = torch.cat([torch.tensor([-2]), words[:-1]])
    return (words >= 0) & (words != previous)


class WholeWordMask(Checker):
    rules = (
        SHAPE,
        LONG_IDS,
        INPUTS_UNCHANGED,
        REPRODUCIBLE,
        GENERATOR_USED,
        LABELS_OFF,
        SPECIALS,
        WHOLE_WORDS,
        LABEL_ORIGINAL,
        UNSELECTED_KEPT,
        RANDOM_NOT_SPECIAL,
        ALL_SELECTED,
        SELECTION_RATE,
        SHORT_ROWS,
        SPLIT,
        RANDOM_UNIFORM,
        WORD_FATES,
    )
    VOCAB, MASK, SPECIAL_IDS = 40, 4, [0, 1, 2, 3, 4]
    random = True

    def strategy(self):
        lengths = st.lists(st.integers(1, 3), min_size=0, max_size=5)
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

    def rich(self, seed: int):
        lengths = _fixed_ints(4251, (60,), 1, 4).tolist()
        return (lengths, _fixed_ints(4252, (sum(lengths),), 5, self.VOCAB).tolist(), 0.5, seed)

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
        return generator_rules(self, box, self.rich(99), self.rich(100)) or self.statistics(
            box, result.statistics
        )

    def _plan(self, lengths: list[int], ids: torch.Tensor, specials, vocab, p, seed, title) -> StatCall:
        words = torch.tensor(_word_ids(lengths))
        args = (ids, words, list(specials), self.MASK, vocab, p, Generator(seed))
        return StatCall(args, ids, set(specials), self.MASK, vocab, p, title)

    def statistics(self, box: Sandbox, report: list[dict]) -> Failure | None:
        g = torch.Generator().manual_seed(4244)
        lengths = torch.randint(1, 4, (20000,), generator=g).tolist()
        ids = torch.randint(5, 30000, (len(_word_ids(lengths)),), generator=g)
        ids[0], ids[-1] = 2, 3
        plan = self._plan(
            lengths,
            ids,
            self.SPECIAL_IDS,
            30000,
            0.15,
            12345,
            L(
                "20000 words of 1 to 3 pieces in [5, 30000) between [CLS] and [SEP], p = 0.15, generator seed 12345",
                "[CLS] 和 [SEP] 之间 20000 个词，每词 1 到 3 个子词，id 取自 [5, 30000)，p = 0.15，generator 种子 12345",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        first = _first_pieces(plan.args[1])
        failure = selection_test(
            report,
            "word selection",
            int(((got[1] != IGNORE) & first).sum()),
            int(first.sum()),
            0.15,
            SELECTION_RATE,
            plan.title,
        )
        if failure:
            return failure
        g = torch.Generator().manual_seed(4253)
        plans = []
        for k in range(SHORT_CALLS):
            short = torch.randint(1, 4, (int(torch.randint(1, 4, (1,), generator=g)),), generator=g).tolist()
            words = torch.tensor(_word_ids(short))
            pieces = torch.randint(5, SHORT_VOCAB, words.shape, generator=g)
            pieces[0], pieces[-1] = 2, 3
            args = (pieces, words, self.SPECIAL_IDS, self.MASK, SHORT_VOCAB, 0.15, Generator(20000 + k))
            plans.append((args, tuple(pieces.shape)))

        def count(args, labels):
            first = _first_pieces(args[1])
            return int(((labels != IGNORE) & first).sum()), [int(first.sum())]

        failure = short_rows_test(
            self,
            box,
            report,
            plans,
            0.15,
            count,
            L(
                f"{SHORT_CALLS} calls on 1 to 3 words of 1 to 3 pieces, p = 0.15, generator seeds 20000–{20000 + SHORT_CALLS - 1}",
                f"{SHORT_CALLS} 次调用，每次 1 到 3 个词，每词 1 到 3 个子词，p = 0.15，generator 种子 20000–{20000 + SHORT_CALLS - 1}",
            ),
        )
        return failure or self.fates(box, report)

    def fates(self, box: Sandbox, report: list[dict]) -> Failure | None:
        lengths = _fixed_ints(4254, (3000,), 1, 4).tolist()
        size = len(_word_ids(lengths))
        ids = torch.tensor(FATES_POOL)[_fixed_ints(4255, (size,), 0, len(FATES_POOL))]
        ids[0], ids[-1] = FATES_SPECIALS[0], FATES_SPECIALS[1]
        plan = self._plan(
            lengths,
            ids,
            FATES_SPECIALS,
            FATES_VOCAB,
            1.0,
            12346,
            L(
                f"3000 words of 1 to 3 pieces over a vocabulary of {FATES_VOCAB} (special_ids {FATES_SPECIALS}, mask_id {self.MASK}), p = 1.0, generator seed 12346",
                f"词表大小为 {FATES_VOCAB} 的 3000 个词，每词 1 到 3 个子词（special_ids {FATES_SPECIALS}，mask_id {self.MASK}），p = 1.0，generator 种子 12346",
            ),
        )
        got = stat_call(self, box, plan)
        if isinstance(got, Failure):
            return got
        input_ids, labels = got
        selected = labels != IGNORE
        failure = split_test(report, ids, input_ids, selected, self.MASK, len(FATES_POOL), plan.title)
        if failure is None:
            failure = uniform_test(report, ids, input_ids, selected, self.MASK, FATES_POOL, plan.title)
        if failure is not None:
            return failure
        # the first two pieces of each word of two or more: exactly one of them [MASK]
        words = plan.args[1]
        starts = (
            (_first_pieces(words) & torch.cat([words[1:] == words[:-1], torch.tensor([False])]))
            .nonzero()
            .flatten()
        )
        masked = input_ids == self.MASK
        one = int((masked[starts] ^ masked[starts + 1]).sum())
        share = engine_mlm.BERT_SPLIT[0]
        if _binomial(report, "one of two pieces [MASK]", one, len(starts), 2 * share * (1 - share)):
            return None
        what = L(
            "words whose two first pieces differ in being [MASK], as independent fates give",
            "前两个子词中恰好一个是 [MASK] 的词（各自独立决定命运时的比例）",
        )
        return _rate_failure(WORD_FATES, plan.title, report[-1], what, WORD_FATES.diagnosis)


# Span corruption ---------------------------------------------------------------------

SENTINELS = list(range(99, 59, -1))  # <extra_id_0> = 99, <extra_id_1> = 98, ... (T5 counts down)
EOS = 1


def engine_t5(tokens: list[int], spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The engine's T5 corruption of one sequence, as lists."""
    if not spans:  # nothing hidden (the engine asks for a span): the whole text is kept text, <extra_id_0>
        return [*tokens, EOS], [SENTINELS[0], EOS]
    result = engine_spans.corrupt_explicit(torch.tensor(tokens), spans, SENTINELS, pad_id=0, eos_id=EOS)
    return (
        result.inputs[: int(result.input_lengths)].tolist(),
        result.targets[: int(result.target_lengths)].tolist(),
    )


def t5_literal(tokens: list[int], spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """T5's own functions, transcribed: noise_span_to_unique_sentinel on the inputs and
    nonnoise_span_to_unique_sentinel (the same on the kept tokens) on the targets. They
    agree with the course's format whenever the text starts with kept text, which T5's
    random masks guarantee; on a span at position 0 the targets start with the span and
    pair every sentinel with the wrong span. Used to say so, not to grade."""
    noise = [any(start <= i < end for start, end in spans) for i in range(len(tokens))]

    def to_sentinels(hidden: list[bool]) -> list[int]:
        out, count, previous = [], 0, False
        for token, covered in zip(tokens, hidden, strict=True):
            if covered and not previous:
                out.append(SENTINELS[count])
                count += 1
            elif not covered:
                out.append(token)
            previous = covered
        return out

    return [*to_sentinels(noise), EOS], [*to_sentinels([not covered for covered in noise]), EOS]


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
    "eos-missing",
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
SENTINEL_FIRST = Rule(
    "sentinel-before-span",
    L(
        "In the targets each sentinel comes before the span it stands for, also when a span starts at position 0: the targets then start with <extra_id_0> and that span.",
        "targets 中每个哨兵都写在它代表的片段之前，片段从位置 0 开始时也一样：这时 targets 以 <extra_id_0> 和这个片段开头。",
    ),
)
SPAN_AT_START = L(
    "This is the course's convention, not a misconception: your code follows T5's own functions "
    "(noise_span_to_unique_sentinel, nonnoise_span_to_unique_sentinel), which number the kept stretches in "
    "the targets. That pairs each sentinel with its span only when the text starts with kept text, as T5's "
    "random masks always do. Here a span may start at position 0: put <extra_id_0> and that span first.",
    "这是本课程的约定，不是理解上的错误：你的代码照搬了 T5 自己的函数（noise_span_to_unique_sentinel、"
    "nonnoise_span_to_unique_sentinel），它们在 targets 里给保留的文本编号。只有当文本以保留的文本开头时，"
    "这样每个哨兵才对得上自己的片段，而 T5 的随机掩码总是如此。这里的片段可以从位置 0 开始："
    "请先写 <extra_id_0> 和这个片段。",
)


class SpanCorrupt(Checker):
    rules = (
        SHAPE,
        LONG_IDS,
        INPUTS_UNCHANGED,
        SENTINEL_FIRST,
        EOS_RULE,
        SENTINEL_ORDER,
        ONE_PER_SPAN,
        KEPT_TEXT,
        CLOSING,
        REBUILD,
    )

    def strategy(self):
        def spans_for(n):
            cuts = st.lists(st.integers(0, n), min_size=0, max_size=8, unique=True).map(sorted)
            return cuts.flatmap(
                lambda cs: st.lists(st.booleans(), min_size=len(cs) // 2, max_size=len(cs) // 2).map(
                    lambda keep, cs=cs: [(cs[2 * i], cs[2 * i + 1]) for i in range(len(cs) // 2) if keep[i]]
                )
            )

        def touching(spans):  # sometimes split a span in two touching halves
            return st.booleans().map(
                lambda split: (
                    [*spans[:-1], (spans[-1][0], spans[-1][0] + 1), (spans[-1][0] + 1, spans[-1][1])]
                    if split and spans and spans[-1][1] - spans[-1][0] >= 2
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
        return (torch.tensor(tokens, dtype=torch.long), [tuple(s) for s in spans], SENTINELS, EOS)

    def describe(self, case):
        tokens, spans = case
        values = f"ids   = {_spell(tokens)}\nspans = {spans}"
        return L(
            f"{values}\n(<k> is sentinel_ids[k], </s> is eos_id)",
            f"{values}\n（<k> 即 sentinel_ids[k]，</s> 即 eos_id）",
        )

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
            return self.unfit(case, unfit)
        got_in, got_tg = inputs.tolist(), targets.tolist()
        if got_in == want_in and got_tg == want_tg:
            return None
        yours = f"inputs  = {_spell(got_in)}\ntargets = {_spell(got_tg)}"
        required = same(f"inputs  = {_spell(want_in)}\ntargets = {_spell(want_tg)}")
        if (got_in, got_tg) == t5_literal(tokens, spans):
            return self.fail(SENTINEL_FIRST, case, yours, required, "", SPAN_AT_START)
        if not got_in or not got_tg or got_in[-1] != EOS or got_tg[-1] != EOS:
            return self.fail(EOS_RULE, case, yours, required)
        used = [v for v in got_in if v in SENTINELS]
        n_spans = sum(1 for v in want_in if v in SENTINELS)
        if len(used) != n_spans:
            noise = sum(e - s for s, e in spans)
            diagnosis = "one-sentinel-per-token" if len(used) == noise else ""
            if len(used) == len(spans):
                diagnosis = "touching-spans-split"
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
            diagnosis = "target-missing-final-sentinel" if closing_wanted else "target-extra-final-sentinel"
            return self.fail(CLOSING, case, yours, required, diagnosis)
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
THREE_NAMES = (
    "causal_inputs",
    "causal_labels",
    "masked_inputs",
    "masked_labels",
    "span_inputs",
    "span_target",
)
LESSON_NO_EOS = L(
    "The lesson's simplified span sample has no </s>: its target ends with '<extra_id_1>'. T5's full format "
    "adds </s> to both (that is task 12, span_corrupt).",
    "讲义里简化的片段样本没有 </s>：target 以 '<extra_id_1>' 结尾。T5 的完整格式才在两边都加 </s>"
    "（那是第 12 题 span_corrupt）。",
)


class ThreeSamples(Checker):
    rules = (SHAPE, INPUTS_UNCHANGED, CAUSAL_PAIR, MASKED_SAMPLE, SPAN_SAMPLE)

    def strategy(self):
        return st.lists(st.sampled_from(WORDS), min_size=2, max_size=8).flatmap(
            lambda toks: st.tuples(
                st.just(toks),
                st.lists(st.integers(0, len(toks) - 1), min_size=0, max_size=3, unique=True).map(sorted),
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
        start, end = span
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
        for name, value in zip(THREE_NAMES, out, strict=True):
            kind = dict if name == "masked_labels" else list
            if not isinstance(value, kind):
                return self.fail(
                    SHAPE,
                    case,
                    L(
                        f"{name} = {show(value, 100)}: a {type(value).__name__}",
                        f"{name} = {show(value, 100)}：一个 {type(value).__name__}",
                    ),
                    L(
                        f"{name}: a {kind.__name__}, as the lesson prints it (the task asks for lists of strings and a dict)",
                        f"{name}：一个 {kind.__name__}，与讲义打印的一样（题目要求字符串列表和一个字典）",
                    ),
                )
        ci, cl, mi, ml, si, st_ = out
        if [ci, cl] != [ref.causal_inputs, ref.causal_labels]:
            diagnosis = (
                "shifted-wrong-way"
                if ci == tokens[1:] and cl == tokens[:-1]
                else "labels-not-shifted"
                if cl == ci
                else "inputs-keep-last"
                if ci == tokens
                else ""
            )
            return self.fail(
                CAUSAL_PAIR, case, f"{ci}\n{cl}", same(f"{ref.causal_inputs}\n{ref.causal_labels}"), diagnosis
            )
        if mi != ref.masked_inputs or ml != ref.masked_labels:
            diagnosis = "label-is-mask" if "[MASK]" in ml.values() else None
            return self.fail(
                MASKED_SAMPLE,
                case,
                f"{mi}\n{ml}",
                same(f"{ref.masked_inputs}\n{ref.masked_labels}"),
                diagnosis,
            )
        if si != ref.span_inputs or st_ != ref.span_target:
            diagnosis, note = "", None
            if st_[:1] == ["<extra_id_1>"]:
                diagnosis = "sentinel-numbering-from-1"
            elif "</s>" in si[-1:] + st_[-1:]:
                note = LESSON_NO_EOS
            elif st_ == ref.span_target[:-1]:
                diagnosis = "target-missing-final-sentinel"
            elif st_ == ["<extra_id_0>", *tokens[start : end + 1], "<extra_id_1>"] or si == [
                *tokens[:start],
                "<extra_id_0>",
                *tokens[end + 1 :],
            ]:
                diagnosis = "span-end-inclusive"
            return self.fail(
                SPAN_SAMPLE,
                case,
                f"{si}\n{st_}",
                same(f"{ref.span_inputs}\n{ref.span_target}"),
                diagnosis,
                note,
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


def raised_words(error: LearnerError, line: int | None) -> Said:
    """What the learner's function raised, and on which line of their file."""
    said = f"{error.name}: {error.message[:200]}"
    return L(f"{said} (line {line})", f"{said}（第 {line} 行）") if line else said


def _read_source(path: Path) -> bytes:
    """The learner's file, bounded before it is read."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise LoadFailed("unreadable", f"{size} bytes; a task file may have at most {MAX_FILE_BYTES}")
    return path.read_bytes()


def _run_check(task, path, max_examples, call_limit, memory, start_limit) -> LabResult:
    task = BY_ID[task] if isinstance(task, str) else task
    path = Path(path)
    result = LabResult(task.id, "fail")
    began = time.perf_counter()
    try:
        source = _read_source(path)
    except (OSError, LoadFailed) as error:
        reason = error if isinstance(error, LoadFailed) else LoadFailed("unreadable", str(error))
        result.status, result.message = "invalid", _load_message(reason)
        result.seconds = time.perf_counter() - began
        return result
    result.digest = digest(source)
    with tempfile.TemporaryDirectory(prefix="objectives-lab-check-") as folder:
        probed = Path(folder) / path.name  # the same name: messages name the learner's file
        probed.write_bytes(source + probe_source(task.function).encode())
        _check_probed(
            task, probed, source.count(b"\n") + 1, result, max_examples, call_limit, memory, start_limit
        )
    result.seconds = time.perf_counter() - began
    return result


def _check_probed(task, probed, lines, result, max_examples, call_limit, memory, start_limit) -> None:
    checker = CHECKERS[task.id]()
    checker.params = parameters(task)
    options = {}
    if call_limit is not None:
        options["call_limit"] = call_limit
    if memory is not None:
        options["memory"] = memory
    if start_limit is not None:
        options["start_limit"] = start_limit
    box = Sandbox(probed, PROBE, **options)

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
    except SandboxStopped as error:
        result.status, result.message = "stopped", _stopped_message(error, box.call_limit)
    except LearnerError as error:  # raised in a statistics or reproducibility call
        result.failure = Failure(
            RUNS,
            L("a large batch (the statistics)", "一个大批次（统计检验）"),
            raised_words(error, theirs(error.line)),
            L("a result", "一个结果"),
        )
    finally:
        result.calls = box.calls
        result.printed = box.printed()
        box.close()


def diagnosis_text(code: str | None) -> Bilingual | None:
    if code is None:
        return None
    from exercises.grading.diagnoses import DIAGNOSES

    return DIAGNOSES.get(code)
