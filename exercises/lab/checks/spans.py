"""T5 span corruption, graded against the engine; T5's own functions transcribed to
name the one case where they differ from the course's convention.
"""

from __future__ import annotations

import torch
from hypothesis import strategies as st

from engine import spans as engine_spans
from exercises.lab.checks.core import (
    INPUTS_UNCHANGED,
    LONG_IDS,
    SHAPE,
    Checker,
    Rule,
    Unfit,
    pair,
    same,
    tensor,
)
from exercises.text import L

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


def _renumbered(ids: list[int]) -> list[int]:
    """``ids`` with every sentinel moved one number down (<extra_id_k> to <extra_id_k-1>):
    the output of a file numbering its sentinels from <extra_id_1>, turned back."""
    return [SENTINELS[SENTINELS.index(v) - 1] if v in SENTINELS[1:] else v for v in ids]


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
        # a mistake that explains the whole output is named first, whichever rule it breaks first
        if (_renumbered(got_in), _renumbered(got_tg)) == (want_in, want_tg):
            return self.fail(SENTINEL_ORDER, case, yours, required, "sentinel-numbering-from-1")
        if got_in == want_in and got_tg == [*want_tg[:-2], EOS, want_tg[-2]] and want_tg[-2] in SENTINELS:
            return self.fail(EOS_RULE, case, yours, required, "eos-before-closing-sentinel")
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
