"""mlm-eligible: which positions may BERT's masking select in a sequence with
[CLS], [SEP] and padding? (The first lesson's third action item.)"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from engine.samples import mlm_sample
from engine.tokens import CLS, PAD, SEP
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Variant
from exercises.grading.scoring import jaccard, right
from exercises.items.banks import rng_for, sentence_tokens
from exercises.text import L

ID = "mlm-eligible"


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    if seed == 0:
        tokens = [CLS, "my", "dog", "is", "cute", SEP, "he", "likes", "play", SEP]
    else:
        rng = rng_for(ID, seed)
        language = rng.choice(("en", "zh"))
        first = sentence_tokens(rng, language)[: rng.randint(2, 5)]
        tokens = [CLS, *first, SEP]
        if rng.random() < 0.5:
            tokens += [*sentence_tokens(rng, language)[: rng.randint(2, 4)], SEP]
        tokens += [PAD] * rng.randint(0, 3)
    # The engine is the judge: with p = 1 every eligible token is selected.
    sample = mlm_sample(" ".join(tokens), p=1.0, seed=0)
    eligible = [i for i, chosen in enumerate(sample.selected) if chosen]
    data = {"tokens": tokens, "eligible": eligible}
    listing = " ".join(f"{i}:{token}" for i, token in enumerate(tokens))
    prompt = L(
        f"The input is (position:token) {listing}. Before BERT's 15 % selection, which positions are eligible "
        "to be selected at all? List them.",
        f"输入为（位置:token）{listing}。在 BERT 做 15% 的随机选择之前，哪些位置“有资格”被选中？请列出。",
    )
    return Variant(ID, seed, data, prompt)


class Eligible(Exercise):
    def solve(self, variant: Variant) -> dict[str, str]:
        return {"positions": ", ".join(map(str, variant.data["eligible"]))}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        return Parsed(parsing.positions(text, variant.data["tokens"]))

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        tokens = variant.data["tokens"]
        given, expected = set(parsed["positions"].value), set(variant.data["eligible"])
        if given == expected:
            return {"positions": right()}, []
        codes = []
        if given == {i + 1 for i in expected}:
            codes.append("one-based-positions")
        extra = given - expected
        if any(i < len(tokens) and tokens[i] in (CLS, SEP) for i in extra):
            codes.append("specials-selected")
        if any(i < len(tokens) and tokens[i] == PAD for i in extra):
            codes.append("padding-selected")
        score = 0.5 if codes == ["one-based-positions"] else jaccard(given, expected)
        listing = ", ".join(map(str, sorted(expected)))
        return {
            "positions": PartResult(
                score, True, L(f"The content tokens are at {listing}.", f"内容 token 位于 {listing}。")
            )
        }, codes


EXERCISES = (
    Eligible(
        id=ID,
        make_variant=_generate,
        kind="parts",
        title=L("[CLS] and [SEP] are never masked", "[CLS] 和 [SEP] 从不被掩码"),
        parts=(
            Part(
                "positions",
                L("eligible positions", "可被选中的位置"),
                L("positions, e.g. 2, 3, 7", "位置，如 2, 3, 7"),
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "Masking asks the model to recover text. Which tokens are not text?",
                "掩码是让模型还原文本。哪些 token 不是文本？",
            ),
            L(
                "[CLS], [SEP] and [PAD] are added by the tokenizer, not written by anyone.",
                "[CLS]、[SEP]、[PAD] 是分词器加上的，不是谁写出来的。",
            ),
            L("Count positions from 0: [CLS] is position 0.", "位置从 0 开始数：[CLS] 是位置 0。"),
        ),
    ),
)
