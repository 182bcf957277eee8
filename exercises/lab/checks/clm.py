"""Causal LM: the data-side shift, the loss-side pairs, the loss, the lesson's CLM run."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from hypothesis import strategies as st

from engine import clm as engine_clm
from engine import textbook as engine_textbook
from exercises.lab.checks.core import (
    IGNORE,
    INPUTS_UNCHANGED,
    LONG_IDS,
    REPRODUCIBLE,
    SHAPE,
    Checker,
    Failure,
    Rule,
    Unfit,
    batch_of,
    close,
    close_tensors,
    finite,
    pair,
    same,
    show,
    tensor,
)
from exercises.lab.checks.masks import (
    DIAGONAL,
    FUTURE,
    PAST,
    first_wrong_cell,
    square_misconception,
)
from exercises.lab.sandbox import LearnerError
from exercises.text import L

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
            lambda d: st.tuples(st.just(d), batch_of(d[0], d[1], self.cell(d[2])).filter(self.usable))
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


def loss_mistake(logits: torch.Tensor, labels: torch.Tensor, value: float) -> str | None:
    """The misconception whose loss ``value`` is, on these logits and loss-side labels:
    each known mistake's loss computed here, where it is defined."""
    shifted, targets = logits[:, :-1], labels[:, 1:]
    flat, flat_targets = shifted.reshape(-1, shifted.shape[-1]), targets.reshape(-1)
    kept = targets != IGNORE
    alternatives = {}
    if bool((labels[:, :-1] != IGNORE).any()):
        alternatives["shifted-wrong-way"] = _ce(logits[:, 1:], labels[:, :-1])
    if bool((labels != IGNORE).any()):
        alternatives["labels-not-shifted"] = _ce(logits, labels)
    alternatives["mean-includes-ignored"] = float(
        F.cross_entropy(flat, flat_targets, reduction="sum") / targets.numel()
    )
    alternatives["loss-nll-on-logits"] = float(F.nll_loss(flat, flat_targets, ignore_index=IGNORE))
    rows = kept.any(dim=1)
    if int(rows.sum()) > 1:  # the mean of each row's mean: another weighting of the same terms
        per_token = F.cross_entropy(flat, flat_targets, reduction="none").reshape(targets.shape)
        row_means = (per_token * kept).sum(dim=1)[rows] / kept.sum(dim=1)[rows]
        alternatives["loss-mean-per-row"] = float(row_means.mean())
    alternatives["loss-summed"] = float(F.cross_entropy(flat, flat_targets, reduction="sum"))
    return next((code for code, alt in alternatives.items() if close(value, alt)), None)


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
            value = finite(out)
        elif isinstance(out, float):
            value = finite(out)  # judged for its value here; judge_call then asks for a tensor
        else:
            return self.fail(SHAPE, case, show(out), same("a 0-d float tensor"))
        if close(value, want):
            return None
        shown = show(out) if value is None else f"{value:.4f}"
        diagnosis = None if value is None else loss_mistake(logits, labels, value)
        return self.fail(LOSS_EQUAL, case, f"loss = {shown}", same(f"loss = {want:.4f}"), diagnosis)

    def judge_call(self, case, result):
        """The value first; then the gradient the probe sent back (plain numbers) against
        the reference loss's gradient with respect to the logits, computed here: a result
        cut off from the logits has none, whatever its requires_grad flag says."""
        failure = super().judge_call(case, result)
        if failure is not None:
            return failure
        logits, labels = self._inputs(case)
        leaf = logits.clone().requires_grad_(True)
        engine_clm.loss_side_loss(leaf, labels).backward()
        got = result.grads[0] if result.grads else None
        if close_tensors(got, leaf.grad):
            return None
        if got is None:
            kind = "a Python float" if isinstance(result.out, float) else "a tensor cut off from the logits"
            kind_zh = "Python 的 float" if isinstance(result.out, float) else "与 logits 断开的张量"
        else:
            kind = "its gradient with respect to the logits is not the loss's"
            kind_zh = "它对 logits 的梯度不是这个损失的梯度"
        return self.fail(
            LOSS_TENSOR,
            case,
            L(f"loss = {show(result.out)}: {kind}", f"loss = {show(result.out)}：{kind_zh}"),
            L(
                "the tensor F.cross_entropy returns, as it is (no .item(), float() or torch.tensor(...)): loss.backward() must reach the logits",
                "直接返回 F.cross_entropy 给出的张量（不要 .item()、float() 或 torch.tensor(...)）：loss.backward() 必须传回到 logits",
            ),
        )

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
        except Unfit as unfit:
            return self.unfit(case, unfit)
        if not (isinstance(loss, float) or (isinstance(loss, torch.Tensor) and loss.dim() == 0)):
            return self.fail(
                SHAPE,
                case,
                f"loss = {show(loss, 80)}",
                L(
                    "loss: a Python float (loss.item()) or a 0-d float tensor",
                    "loss：一个 Python float（loss.item()）或 0 维浮点张量",
                ),
            )
        value = finite(loss)
        if value is None:  # NaN, ±inf, or a 0-d tensor of integers
            return self.fail(
                LOSS_LESSON,
                case,
                f"loss = {show(loss, 80)}",
                same(f"loss = {ref.loss:.4f} (a finite number)"),
            )
        loss = value
        if not torch.equal(ids, ref.input_ids):
            return self.fail(
                SAME_DRAWS, case, f"input_ids = {show(ids)}", same(f"input_ids = {show(ref.input_ids)}")
            )
        if not close(loss, ref.loss):
            return self._loss_failure(case, loss, ref)
        if not torch.equal(mask, ref.causal_mask):
            q, k = first_wrong_cell(mask, ref.causal_mask)
            rule = DIAGONAL if q == k else FUTURE if k > q else PAST
            return self.fail(
                rule,
                case,
                show(mask),
                same(show(ref.causal_mask)),
                square_misconception(mask, ref.causal_mask),
            )
        return None

    def _loss_failure(self, case, loss: float, ref) -> Failure:
        """Name the mistake whose loss the learner's is: a draw order first, then the scaling, then the pairing."""
        want = ref.loss
        match = next(
            (key for key, value in lesson_clm_losses(case, ref).items() if close(loss, value)),
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
