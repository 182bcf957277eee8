"""What every task's checker shares: rules and failures, showing values, calling the
learner's function through the probe, the search, the rules on arguments and draws.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

import torch
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from exercises.lab.sandbox import Generator, LearnerError, Sandbox
from exercises.lab.tasks import Task
from exercises.text import Bilingual, L

IGNORE = -100
MAX_EXAMPLES = 80


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


def batch_of(b: int, n: int, cell: st.SearchStrategy) -> st.SearchStrategy[list[list]]:
    """A batch of ``b`` rows of ``n`` values drawn from ``cell``."""
    return st.lists(st.lists(cell, min_size=n, max_size=n), min_size=b, max_size=b)


def batches_of(sizes: st.SearchStrategy[int], lengths: st.SearchStrategy[int], cell) -> st.SearchStrategy:
    """Batches of any size and row length the two strategies give."""
    return sizes.flatmap(lambda b: lengths.flatmap(lambda n: batch_of(b, n, cell)))


def fixed_ints(seed: int, shape: tuple[int, ...], low: int, high: int) -> torch.Tensor:
    """Integers in [low, high) from a fixed seed: the large inputs of the statistics."""
    return torch.randint(low, high, shape, generator=torch.Generator().manual_seed(seed))


# -- calling the learner's function ------------------------------------------------

PROBE = "__objectives_lab_call__"


def probe_source(function: str) -> str:
    """Appended to a copy of the learner's file: calls their function and returns
    (result, the arguments afterwards, the gradient of the result with respect to each
    float argument). With ``grad`` the float arguments require grad first (a leaf kept
    here, then multiplied by 1.0, so writing into the argument stays possible and is
    seen), and a one-element float result is backpropagated: the gradients come back as
    plain numbers, which the parent compares with the reference's gradient, so a result
    cut off from the logits (``torch.tensor(loss.item(), requires_grad=True)``) gives no
    gradient whatever its flags say. Nothing is trusted here but plain data. Defined only
    when their function is, so a missing function is still reported as missing. No
    triple quotes: an unterminated string at the end of their file stays unterminated."""
    return (
        "\n\n\n# -- added by the lab's checks to a copy of your file: calls your function --\n"
        f"if callable(globals().get({function!r})):\n\n"
        f"    def {PROBE}(grad, *args):\n"
        "        import torch as lab_torch\n\n"
        "        leaves = []\n"
        "        if grad:\n"
        "            sent = []\n"
        "            for a in args:\n"
        "                if isinstance(a, lab_torch.Tensor) and a.is_floating_point():\n"
        "                    leaf = a.detach().clone().requires_grad_(True)\n"
        "                    leaves.append(leaf)\n"
        "                    a = leaf * 1.0\n"
        "                sent.append(a)\n"
        "            args = tuple(sent)\n"
        f"        out = {function}(*args)\n"
        "        after = [None if isinstance(a, lab_torch.Generator) else a for a in args]\n"
        "        grads = []\n"
        "        if leaves and isinstance(out, lab_torch.Tensor) and out.numel() == 1 and out.requires_grad:\n"
        "            try:\n"
        "                out.reshape(()).backward()\n"
        "            except Exception:\n"
        "                pass\n"
        "        grads = [None if leaf.grad is None else leaf.grad.detach() for leaf in leaves]\n"
        "        return (out, after, grads)\n"
    )


@dataclass
class Call:
    out: object  # what the learner's function returned
    args: list | None  # its arguments after the call (None: not reported)
    grads: list = field(default_factory=list)  # d result / d each float argument (with Checker.grad), or None


def call(
    box: Sandbox, checker: Checker, args: tuple, *, limit: float | None = None, global_seed: int = 0
) -> Call:
    """One call through the probe; LearnerError and SandboxStopped pass through."""
    raw = box.call(checker.grad, *args, limit=limit, global_seed=global_seed)
    if isinstance(raw, tuple) and len(raw) == 3 and isinstance(raw[1], list) and isinstance(raw[2], list):
        return Call(raw[0], raw[1], raw[2])
    return Call(raw, None)  # only if their file replaced the probe: judged as a plain result


def parameters(task: Task) -> tuple[str, ...]:
    """The parameter names of the task's signature (our own text), to name an argument."""
    tree = ast.parse(task.signature + "\n    pass\n")
    return tuple(arg.arg for arg in tree.body[0].args.args)


def finite(value) -> float | None:
    """A number the parent can compare: a Python float or int (not a bool, not a string:
    ``float("nan")`` reads a string) or a one-element float tensor, as a float; None for
    anything else and for NaN and ±inf, which no comparison may accept (``abs(nan - x) >
    tol`` is never true)."""
    if isinstance(value, torch.Tensor):
        if value.numel() != 1 or not value.dtype.is_floating_point:
            return None
        number = float(value.detach().reshape(()))
    elif isinstance(value, (float, int)) and not isinstance(value, bool):
        number = float(value)
    else:
        return None
    return number if math.isfinite(number) else None


def close(value: float | None, want: float, rel: float = 1e-4) -> bool:
    """``value`` equals ``want`` to ``rel`` (relative, absolute below 1), both finite."""
    if value is None or not math.isfinite(value) or not math.isfinite(want):
        return False
    return abs(value - want) <= rel * max(1.0, abs(want))


def close_tensors(value, want: torch.Tensor, rel: float = 1e-3, absolute: float = 1e-6) -> bool:
    """Two float tensors of one shape equal within tolerance, every entry finite."""
    if not isinstance(value, torch.Tensor) or tuple(value.shape) != tuple(want.shape):
        return False
    if not value.dtype.is_floating_point or not bool(torch.isfinite(value).all()):
        return False
    return bool(torch.allclose(value.to(want.dtype), want, rtol=rel, atol=absolute))


def same_value(a, b) -> bool:
    """Equal as values: same type, shape, dtype and entries, NaN equal to NaN (a result
    that is NaN twice did not change between the calls)."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.is_floating_point or a.dtype.is_complex:
            return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all())
        return bool(torch.equal(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def changed_argument(checker: Checker, case, sent: tuple, after: list | None) -> Failure | None:
    """The inputs-unchanged rule: each argument compared with what was sent."""
    if after is None or len(after) != len(sent):
        return None
    for index, (before, now) in enumerate(zip(sent, after, strict=True)):
        if isinstance(before, Generator) or same_value(before, now):
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
        if not same_value(first, second):
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
    if not same_value(first, second):
        return shrunk_reproducibility_failure(checker, box, case, (first, second))
    other = call(box, checker, checker.args(reseeded), global_seed=1).out
    if same_value(first, other):
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
