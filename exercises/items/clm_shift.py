"""clm-shift: lay out a sentence for causal LM, in the layout the variant names.

Whatever the layout, the logit at position t is scored against token t + 1
(both seeds call the labels the inputs "shifted right by one"). Two layouts are
right, and each variant names the one it asks for:

* data-side (seed 002's ``build_causal_example``; seed 0 is its sentence):
  inputs = tokens[:-1], labels = tokens[1:], and logit t meets label t;
* loss-side (seed 000's code, Hugging Face): the model reads all n tokens,
  labels = input_ids, and the loss compares logits[:, :-1] with labels[:, 1:],
  so logit t meets label t + 1.

So "labels = inputs" is right in the loss-side layout and is the copying
misconception in the data-side one; "logit t meets label t" is right in the
data-side layout and copying in the loss-side one. What the three parts train
together decides: every logit scored against the token read at its own position is
copying, whichever layout each part looks like; the whole other layout is
``wrong-layout``.

The rubric (``RUBRIC``, shown by ``exercise clm-shift --rubric``): each part is
a third of the score; an answer that makes the model copy its own input
(``labels-not-shifted``) scores at most 50 %.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Mapping

from exercises.grading.marks import full_marks
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant
from exercises.grading.scoring import (
    grade_token_parts,
    jaccard,
    read_tokens_certain,
    right,
    same_token,
)
from exercises.items.banks import LESSON_SENTENCE, first_tokens, language_note, rng_for, sentence_tokens
from exercises.text import L

ID = "clm-shift"
LAYOUTS = ("data", "loss")
COPYING = "labels-not-shifted"  # the misconception this exercise targets
WRONG_LAYOUT = "wrong-layout"  # the whole answer in the layout the question did not ask for
CAP = 0.5

RUBRIC = Rubric(
    full=L(
        "Inputs, labels and logit-label pairs exactly as the named layout has them.",
        "输入、标签和 logit-标签配对都和题目指定的排法完全一致。",
    ),
    partial=(
        L(
            "Three parts, a third each: inputs and labels by the share of positions right, the pairs by "
            "overlap with the right pairs.",
            "三部分各占三分之一：输入和标签按对的位置比例计分，配对按与正确配对的重合度计分。",
        ),
    ),
    caps=((COPYING, CAP), (WRONG_LAYOUT, CAP)),
)


def _draw(seed: int) -> dict:
    """The question without the engine: the sentence and the layout."""
    if seed == 0:
        return {"tokens": LESSON_SENTENCE.split(), "layout": "data"}
    rng = rng_for(ID, seed)
    layout = rng.choice(LAYOUTS)
    while True:  # a token equal to the next one would make copying right there
        tokens = sentence_tokens(rng, rng.choice(("en", "zh")))
        tokens = first_tokens(tokens, rng.randint(4, min(9, len(tokens))), 4, 9)
        if all(a != b for a, b in itertools.pairwise(tokens)):
            return {"tokens": tokens, "layout": layout}


@functools.lru_cache(maxsize=1024)
def _sample(text: str):
    """The engine's causal-LM sample of a text, once per text: the bank's sentences recur
    across seeds (a class of 500 draws about 170 distinct ones). Read only: callers copy."""
    from engine.samples import clm_sample

    return clm_sample(text)


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    params = _draw(seed)
    tokens, layout = params["tokens"], params["layout"]
    sample = _sample(" ".join(tokens))
    if layout == "data":
        inputs, labels = list(sample.inputs), list(sample.labels)
        pairs = [[t, t] for t in range(len(tokens) - 1)]
    else:
        inputs, labels = list(sample.loss_side_inputs), list(sample.loss_side_labels)
        pairs = [list(pair) for pair in sample.loss_pairs]
    data = {"tokens": tokens, "layout": layout, "inputs": inputs, "labels": labels, "pairs": pairs}
    return Variant(ID, seed, data, language_note(_prompt(tokens, layout), tokens, typed=True))


def _prompt(tokens: list[str], layout: str):
    listing = ", ".join(tokens)
    n = len(tokens)
    if layout == "data":
        return L(
            f"Causal LM on the sentence [{listing}] ({n} tokens), in the DATA-SIDE layout (build_causal_example in "
            "the course section “Pretraining methods”): the shift is done when the sample is built, so the model reads "
            "one list and the loss compares it position by position with a list of labels.\n"
            "1. The inputs the model reads?\n2. The labels?\n"
            "3. Which logit position is scored against which label position? (pairs logit-label)",
            f"对句子 [{listing}]（{n} 个 token）做因果语言建模，用“数据端错位”的排法（《预训练方法》一节的 "
            "build_causal_example）：构造样本时就错开一位，模型读一列输入，损失把它和一列标签逐位比较。\n"
            "1. 模型读的输入是什么？\n2. 标签是什么？\n3. 哪个位置的 logit 和哪个位置的标签比较？（写成 logit-标签 的配对）",
        )
    return L(
        f"Causal LM on the sentence [{listing}] ({n} tokens), in the LOSS-SIDE layout (the code of the course "
        "section “Self-supervision and LM objectives”, Hugging Face's models): the sample is not shifted; the shift happens inside the loss "
        "function.\n1. The inputs the model reads?\n2. The labels given to the model (Hugging Face's labels argument)?\n"
        "3. Which logit position is scored against which label position? (pairs logit-label)",
        f"对句子 [{listing}]（{n} 个 token）做因果语言建模，用“损失端错位”的排法（《自监督与语言建模目标》一节的代码、"
        "Hugging Face 的模型）：样本本身不错位，错位发生在损失函数里。\n"
        "1. 模型读的输入是什么？\n2. 交给模型的标签（Hugging Face 的 labels 参数）是什么？\n3. 哪个位置的 logit 和哪个位置的标签比较？（写成 logit-标签 的配对）",
    )


_SLICE = re.compile(r"\[\s*(?::\s*,\s*)?(-?\d*)\s*:\s*(-?\d*)\s*\]")
_RULE = re.compile(r"\bt\s*(?:->|→|=>|—>|-|:|对|和|与|vs\.?|,)\s*t\s*(?:([+-])\s*(\d+))?\b", re.IGNORECASE)
_FILLER = re.compile(  # "位置 t 的 logit 对位置 t+1 的标签", "logit at position t vs label at t+1"
    r"位置|的|上的|处的|logits?|标签|labels?|\bpositions?\b|\bat\b|\bof\b|\bthe\b|\bis\b|\bscored\b|\bagainst\b",
    re.IGNORECASE,
)
_RULE_SPOKEN = re.compile(
    r"\bt\s*(?:->|→|=>|—>|-|:|对|和|与|vs\.?|,|\s)\s*t\s*(?:([+-])\s*(\d+))?\b", re.IGNORECASE
)
_TOKEN_SLICE = re.compile(
    r"^(?:tokens|input_ids)\s*\[\s*(?::\s*,\s*)?(-?\d*)\s*:\s*(-?\d*)\s*\]$", re.IGNORECASE
)
_T = re.compile("t", re.IGNORECASE)  # what every _RULE_SPOKEN match holds
_INT = re.compile(r"(?<!\d)\d{1,4}(?!\d)")  # longer digit runs are not positions


def read_pairs(text: str, n: int) -> list[tuple[int, int]] | None:
    """Which logit meets which label, read from what learners write; ``n`` is the length
    of the sequence the model reads (n - 1 tokens data-side, n loss-side), so a rule
    or a slice covers exactly the positions that exist.

    Forms: explicit pairs ("0-1, 1-2", "0→1 1→2", "(0,1) (1,2)"), a rule
    ("t -> t+1", "t→t"), or the slices of the loss ("logits[:, :-1] vs
    labels[:, 1:]"). None when nothing can be read.
    """
    from exercises.grading.parsing import clean

    cleaned = clean(text)[:2000]
    if not cleaned:
        return None
    slices = _SLICE.findall(cleaned)
    if len(slices) == 2:
        logit_range = range(n)[slice(*(int(v) if v else None for v in slices[0]))]
        label_range = range(n)[slice(*(int(v) if v else None for v in slices[1]))]
        if len(logit_range) == len(label_range):
            return list(zip(logit_range, label_range, strict=True))
        return None
    rule = _RULE.search(cleaned) or (
        _RULE_SPOKEN.search(_FILLER.sub(" ", cleaned)) if _T.search(cleaned) else None
    )  # a rule names t; without one, no need to drop the filler words
    if rule:
        shift = int(rule.group(2) or 0) * (-1 if rule.group(1) == "-" else 1)
        return [(t, t + shift) for t in range(n) if 0 <= t + shift < n]
    numbers = [int(value) for value in _INT.findall(cleaned)]
    if not numbers or len(numbers) % 2:
        return None
    return [(numbers[i], numbers[i + 1]) for i in range(0, len(numbers), 2)]


_SAME_AS_INPUTS = re.compile(
    r"(?:labels?\s*=+\s*)?(?:input_ids|inputs?|the\s+inputs?|same\s+as\s+(?:the\s+)?(?:inputs?|input_ids)"
    r"|(?:标签)?(?:等于|=|同|和|跟|与)\s*(?:输入|inputs?|input_ids)\s*(?:一样|相同)?|同输入|与输入相同|和输入一样)",
    re.IGNORECASE,
)


def _shift_of(pairs: list[tuple[int, int]]) -> int | None:
    """The one offset all pairs share (label - logit), or None."""
    shifts = {label - logit for logit, label in pairs}
    return shifts.pop() if len(shifts) == 1 else None


class ClmShift(Exercise):
    def solve(self, variant: Variant) -> dict[str, str]:
        data = variant.data
        return {
            "inputs": " ".join(data["inputs"]),
            "labels": " ".join(data["labels"]),
            "pairs": ", ".join(f"{logit}-{label}" for logit, label in data["pairs"]),
        }

    def variant_is_fair(self, variant: Variant) -> bool:
        """A fair variant tells the layouts and the copying answer apart: a named layout, at
        least 3 tokens, and no token equal to the next one (else copying is right somewhere)."""
        data = variant.data
        tokens = data["tokens"]
        return (
            data["layout"] in LAYOUTS
            and len(tokens) >= 3
            and all(not same_token(a, b) for a, b in itertools.pairwise(tokens))
        )

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        if part == "pairs":
            pairs = read_pairs(text, len(variant.data["inputs"]))
            return Parsed(pairs, None if pairs is not None else _pairs_format())
        if part == "labels" and _SAME_AS_INPUTS.fullmatch(text.strip().rstrip(".。").strip()):
            return Parsed(list(variant.data["inputs"]))  # "labels = input_ids", said in words
        sliced = _TOKEN_SLICE.fullmatch(text.strip().rstrip(".。").strip())
        if sliced:  # the lessons' notation: tokens[:-1], tokens[1:], input_ids[:, 1:]
            bounds = (int(value) if value else None for value in sliced.groups())
            return Parsed(list(variant.data["tokens"][slice(*bounds)]))
        tokens, certain = read_tokens_certain(text, variant.data[part], variant.data["tokens"])
        return Parsed(tokens, certain=certain)

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        tokens, layout = data["tokens"], data["layout"]
        results: dict[str, PartResult] = {}
        found: dict[str, list[str]] = {}  # each part's misconceptions
        for part in ("inputs", "labels"):
            result, found[part] = grade_token_parts(
                (part,),
                parsed,
                data,
                lambda part, given: _diagnose_tokens(part, layout, given, tokens),
                _length_note,
            )
            results.update(result)
        if "pairs" in parsed:
            given_pairs = parsed["pairs"].value
            expected_pairs = {tuple(pair) for pair in data["pairs"]}
            score = jaccard(set(given_pairs), expected_pairs)
            if full_marks(score):
                results["pairs"] = right()
            else:
                found["pairs"] = _diagnose_pairs(layout, given_pairs)
                results["pairs"] = PartResult(score, True, _pairs_feedback(given_pairs, expected_pairs))
        codes = [code for codes in found.values() for code in codes]
        if _trains_copying(parsed):  # whatever layout each part looks like (issue 23's walk)
            return results, [*dict.fromkeys([COPYING, *codes])]
        other = layout_answer(tokens, "loss" if layout == "data" else "data")
        in_other = [
            part
            for part, reading in parsed.items()
            if not full_marks(results[part].score) and _as_in(part, reading.value, other[part])
        ]
        if len(in_other) >= 2:  # the other layout, consistently: one mistake, not a story per part
            return results, [
                WRONG_LAYOUT,
                *(code for part in found if part not in in_other for code in found[part]),
            ]
        return results, codes


def _trains_copying(parsed: dict[str, Parsed]) -> bool:
    """Do the three parts together train the model to copy: every logit scored against
    the label at a position whose token is the very token the model read there?"""
    if not all(part in parsed for part in ("inputs", "labels", "pairs")):
        return False
    inputs, labels, pairs = (parsed[part].value for part in ("inputs", "labels", "pairs"))
    if not inputs or not labels or not pairs:
        return False
    in_range = [(i, j) for i, j in pairs if 0 <= i < len(inputs) and 0 <= j < len(labels)]
    return len(in_range) == len(pairs) and all(same_token(labels[j], inputs[i]) for i, j in in_range)


def layout_answer(tokens: list[str], layout: str) -> dict:
    """The right answer in ``layout`` (the rule the engine's sample follows, written out to
    recognise an answer given in the layout the question did not ask for)."""
    n = len(tokens)
    if layout == "data":
        return {"inputs": tokens[:-1], "labels": tokens[1:], "pairs": [(t, t) for t in range(n - 1)]}
    return {"inputs": tokens, "labels": tokens, "pairs": [(t, t + 1) for t in range(n - 1)]}


def _as_in(part: str, given: list, answer: list) -> bool:
    """Is this part as the other layout has it? Pairs by their rule (the one shift they
    share): a learner answering data-side writes t->t over their own n-1 positions, which the
    reader spreads over the question's n (clm-shift --seed 3 named copying beside the layout)."""
    if part == "pairs":
        return bool(given) and _shift_of(given) == _shift_of(answer)
    return _same(given, answer)


def _same(given: list[str], expected: list[str]) -> bool:
    return len(given) == len(expected) and all(same_token(a, b) for a, b in zip(given, expected, strict=True))


def _diagnose_tokens(part: str, layout: str, given: list[str], tokens: list[str]) -> list[str]:
    if layout == "data":
        if part == "inputs" and _same(given, tokens):
            return ["inputs-keep-last"]
        if part == "inputs" and _same(given, tokens[1:]):
            return ["shifted-wrong-way"]
        if part == "labels" and (_same(given, tokens[:-1]) or _same(given, tokens)):
            return [COPYING]  # label t = token t: the model would learn to copy
        return []
    if part == "inputs" and _same(given, tokens[:-1]):
        return ["loss-side-inputs-cut"]
    if part == "labels" and _same(given, tokens[1:]):
        return ["labels-shifted-twice"]
    return []


def label_misconceptions(named: int, position: int) -> list[str]:
    """Data-side, the label at input position t is token t+1: naming token t is copying the
    input (labels not shifted), naming token t-1 the shift the wrong way. ``_diagnose_tokens``'
    data-side rule for one position: the causal-LM figure's prediction asks for one label."""
    if named == position:
        return [COPYING]
    if named == position - 1:
        return ["shifted-wrong-way"]
    return []


def _diagnose_pairs(layout: str, pairs: list[tuple[int, int]]) -> list[str]:
    shift = _shift_of(pairs)
    if shift == 0 and layout == "loss":
        return [COPYING]  # labels = input_ids and logit t meets label t: copying
    if shift == 1 and layout == "data":
        return ["labels-shifted-twice"]
    if shift is not None and shift < 0:
        return ["shifted-wrong-way"]
    return []


def _length_note(part: str, given: int, expected: int):
    name = {"en": part, "zh": "输入" if part == "inputs" else "标签"}
    return L(
        f"The {name['en']} should have {expected} tokens; you wrote {given}.",
        f"{name['zh']}应有 {expected} 个 token；你写了 {given} 个。",
    )


def _pairs_feedback(given: list[tuple[int, int]], expected: set[tuple[int, int]]):
    wrong = [f"{a}-{b}" for a, b in given if (a, b) not in expected][:8]
    missing = len(expected - set(given))
    return L(
        f"{len(expected)} pairs are scored. Not scored this way: {', '.join(wrong) or 'none'}; "
        f"{missing} right pair(s) missing.",
        f"一共比较 {len(expected)} 对。不成立的配对：{'、'.join(wrong) or '无'}；还缺 {missing} 对正确的配对。",
    )


def _pairs_format():
    return L(
        "Could not read the pairs. Write logit-label pairs (0-3, 1-4) or a rule (t->t+2).",
        "读不出配对。请写成 0-3, 1-4 这样的 logit-标签配对，或 t->t+2 这样的规则。",
    )


EXERCISES = (
    ClmShift(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Causal LM: labels are the next tokens", "因果语言建模：标签是下一个 token"),
        parts=(
            Part("inputs", L("inputs", "输入"), L("tokens separated by spaces", "用空格分隔的 token")),
            Part("labels", L("labels", "标签"), L("tokens separated by spaces", "用空格分隔的 token")),
            Part(
                "pairs",
                L("logit-label pairs", "logit-标签配对"),
                L(
                    "logit-label pairs (0-3, 1-4) or a rule (t->t+2)",
                    "logit-标签配对（0-3, 1-4）或规则（t->t+2）",
                ),
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "At position t the model has read the tokens up to t; its guess is scored against the "
                "token that comes next in the sentence.",
                "模型在位置 t 读过了位置 0 到 t 的 token；它的猜测要和句子里紧随其后的那个 token 比较。",
            ),
            L(
                "Ask where the shift by one happens: in the lists you build (data-side), or inside the "
                "loss (loss-side). Loss-side, the loss drops one logit and one label before it compares: "
                "which ones?",
                "先问错开一位发生在哪里：在你构造的两列里（数据端），还是在损失函数里（损失端）。"
                "损失端的损失函数在比较之前各去掉一个 logit 和一个标签：去掉的是哪两个？",
            ),
            L(
                "n tokens give n-1 predictions: the logit at the last position has no next token to meet.",
                "n 个 token 只有 n-1 次预测：最后一个位置的 logit 后面没有 token 可比。",
            ),
        ),
    ),
)
