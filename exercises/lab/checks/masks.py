"""The attention masks: causal, prefix LM, padding combined with the causal mask."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from engine import masks as engine_masks
from exercises.lab.checks.core import (
    INPUTS_UNCHANGED,
    SHAPE,
    Checker,
    Rule,
    Unfit,
    batches_of,
    same,
    show,
    tensor,
)
from exercises.text import L


def first_wrong_cell(out: torch.Tensor, ref: torch.Tensor) -> tuple[int, ...]:
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


def square_misconception(out: torch.Tensor, ref: torch.Tensor) -> str | None:
    if out.shape[-1] < 2:  # one cell cannot tell an inverted mask from a blocked diagonal
        return None
    if torch.equal(out, ~ref):
        return "mask-inverted"
    if torch.equal(out, ref.transpose(-1, -2)):
        return "mask-transposed"
    return None


def smallest_telling(largest: int) -> st.SearchStrategy[int]:
    """Mask sizes 1 to ``largest``, shrinking to 2, not 1: a 1 x 1 mask has one cell, where
    an inverted mask and a blocked diagonal are the same output, so a mistake is shown on
    the smallest mask that tells them apart (and gets the one name it has, in every task).
    1 is still searched, and shown when only 1 fails."""
    return st.one_of(st.integers(2, largest), st.just(1))


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
        q, k = first_wrong_cell(mask, ref)
        rule = self.rule_at(case, q, k)
        return self.fail(
            rule,
            case,
            f"mask[{q}, {k}] = {bool(mask[q, k])}\n{show(mask)}",
            same(f"mask[{q}, {k}] = {bool(ref[q, k])}\n{show(ref)}"),
            square_misconception(mask, ref) or self.diagnose(case, rule, mask, q, k),  # None: the rule's own
        )


class CausalMask(SquareMaskChecker):
    rules = (SHAPE, DIAGONAL, FUTURE, PAST)

    def strategy(self):
        return smallest_telling(12)

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
        return smallest_telling(10).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))

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
        return batches_of(st.integers(1, 3), smallest_telling(7), st.integers(0, 1))

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
        row, q, k = first_wrong_cell(mask, ref)
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
            square_misconception(mask, ref),  # None: the rule's own
        )
