"""The lesson's three samples of one sentence (task 1)."""

from __future__ import annotations

from hypothesis import strategies as st

from engine import textbook as engine_textbook
from exercises.lab.checks.core import (
    INPUTS_UNCHANGED,
    SHAPE,
    Checker,
    Rule,
    same,
    show,
)
from exercises.text import L

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
