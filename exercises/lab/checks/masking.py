"""BERT's masking rules read from one output (judge_mlm), shared by the MLM tasks."""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from engine import mlm as engine_mlm
from engine.settings import MASK_RATE
from exercises.lab.checks.core import (
    IGNORE,
    Checker,
    Failure,
    Rule,
    Unfit,
    pair,
    same,
    show,
    tensor,
)
from exercises.text import L

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
        "A random replacement is a non-special id in [0, vocab_size): never [MASK], [CLS], [SEP] or any other special. This is the course's rule: Google's BERT code and Hugging Face's collator draw from the whole vocabulary, specials included.",
        "随机替换词是 [0, vocab_size) 中的非特殊 id：永远不会是 [MASK]、[CLS]、[SEP] 或其他特殊符号。这是本课程的规定：Google 的 BERT 代码和 Hugging Face 的 collator 都从整个词表里抽，特殊符号也包括在内。",
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
INDEPENDENT = Rule(
    "selection-independent",
    L(
        "Each token is selected on its own: two rows (or two neighbouring positions) are selected independently, so both are selected at rate p² (an exact binomial test on disjoint pairs).",
        "每个 token 各自决定是否被选中：两行（或相邻的两个位置）相互独立地被选中，两者同时被选中的比例是 p²（在互不重叠的配对上做精确二项检验）。",
    ),
    "rows-masked-together",
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
    INDEPENDENT,
    SPLIT,
    RANDOM_UNIFORM,
)


def special_mask(ids: torch.Tensor, specials: set[int]) -> torch.Tensor:
    if not specials or ids.numel() == 0:
        return torch.zeros(ids.shape, dtype=torch.bool)
    return torch.isin(ids, torch.tensor(sorted(specials), dtype=ids.dtype))


def in_pool(values: torch.Tensor, specials: set[int], vocab_size: int) -> torch.Tensor:
    return (values >= 0) & (values < vocab_size) & ~special_mask(values, specials)


def read_mlm(out, shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
    """A masked LM's output, (input_ids, labels), each a tensor of ``shape``; ``Unfit`` if not."""
    input_ids, labels = pair(out, ("input_ids", "labels"))
    return tensor(input_ids, "input_ids", shape), tensor(labels, "labels", shape)


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
        input_ids, labels = read_mlm(out, tuple(ids.shape))
    except Unfit as unfit:
        return checker.unfit(case, unfit)
    is_special = special_mask(ids, specials)
    selected = labels != IGNORE
    yours = f"input_ids = {show(input_ids)}\nlabels    = {show(labels)}"

    def at(position: tuple[int, ...]) -> str:
        return "[" + ", ".join(str(i) for i in position) + "]"

    if p == 0.0 and bool(selected.any()):
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
    unlabelled = ~selected & (input_ids != ids)
    bad = unlabelled.nonzero()
    if len(bad):
        pos = tuple(int(v) for v in bad[0])
        # a [MASK] with no label, or any change at p = 0, is an unselected token changed:
        # the split applied to every token; random words alone without labels are the
        # random ones left out of the loss
        everywhere = p == 0.0 or bool((input_ids[unlabelled] == mask_id).any())
        diagnosis = "split-of-all-tokens" if everywhere else "loss-omits-random"
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
    bad = (replaced & ~in_pool(input_ids, specials, vocab_size)).nonzero()
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


def probabilities():
    return st.one_of(st.sampled_from([0.0, 1.0, MASK_RATE, 0.5]), st.floats(0.0, 1.0))


def seeds():
    return st.integers(0, 2**31 - 1)
