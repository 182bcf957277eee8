"""mlm-eligible: which positions may BERT's masking select in a sequence with
[CLS], [SEP] and padding? (the section “Self-supervision and LM objectives”'s third action item.)"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from engine.tokens import CLS, PAD, SEP
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import (
    ONE_BASED_CAP,
    grade_position_set,
)
from exercises.items.banks import first_tokens, language_note, rng_for, sentence_tokens
from exercises.text import L

ID = "mlm-eligible"


def _draw(seed: int) -> dict:
    """The question's tokens (torch-free)."""
    if seed == 0:
        return {"tokens": [CLS, "my", "dog", "is", "cute", SEP, "he", "likes", "play", SEP]}
    rng = rng_for(ID, seed)
    language = rng.choice(("en", "zh"))
    first = first_tokens(sentence_tokens(rng, language), rng.randint(2, 5), 2, 5)
    tokens = [CLS, *first, SEP]
    if rng.random() < 0.5:
        tokens += [*first_tokens(sentence_tokens(rng, language), rng.randint(2, 4), 2, 4), SEP]
    tokens += [PAD] * rng.randint(0, 3)
    return {"tokens": tokens}


@functools.lru_cache(maxsize=1024)
def _eligible(text: str) -> tuple[int, ...]:
    """The positions the engine selects with p = 1, i.e. every eligible one: the judge.
    Once per text (seeds repeat some)."""
    from engine.samples import mlm_sample  # the engine (torch) only where it computes

    sample = mlm_sample(text, p=1.0, seed=0)
    return tuple(i for i, chosen in enumerate(sample.selected) if chosen)


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    params = _draw(seed)
    tokens = params["tokens"]
    eligible = list(_eligible(" ".join(tokens)))
    data = {"tokens": tokens, "eligible": eligible}
    listing = " ".join(f"{i}:{token}" for i, token in enumerate(tokens))
    prompt = L(
        f"The input is (position:token) {listing}. Before BERT's 15 % selection, which positions are eligible "
        "to be selected at all? List them.",
        f"输入为（位置：token）{listing}。在 BERT 做 15% 的随机选择之前，哪些位置“有资格”被选中？请列出。",
    )
    prompt = language_note(prompt, tokens)
    return Variant(ID, seed, data, prompt, question_key_of(params))


class Eligible(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        """Some tokens are content and some are not, so the answer is neither
        "every position" nor "none"."""
        eligible, n = variant.data["eligible"], len(variant.data["tokens"])
        return 0 < len(eligible) < n

    def solve(self, variant: Variant) -> dict[str, str]:
        return {"positions": ", ".join(map(str, variant.data["eligible"]))}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        tokens = variant.data["tokens"]
        return Parsed(parsing.positions(text, tokens, n=len(tokens)))

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        tokens = variant.data["tokens"]
        expected = set(variant.data["eligible"])

        def diagnose(given: set[int]) -> list[str]:  # after counting from 1 (one story, not also "specials")
            codes = []
            extra = given - expected
            if any(i < len(tokens) and tokens[i] in (CLS, SEP) for i in extra):
                codes.append("specials-selected")
            if any(i < len(tokens) and tokens[i] == PAD for i in extra):
                codes.append("padding-selected")
            return codes

        counted = parsing.wrote_numbers(raw.get("positions", ""))
        result, codes = grade_position_set(set(parsed["positions"].value), expected, diagnose, RULE, counted)
        return {"positions": result}, codes


RULE = L("Only content tokens may be selected.", "只有内容 token 才能被选中。")


RUBRIC = Rubric(
    full=L("Exactly the content tokens' positions.", "恰好是内容 token 的位置。"),
    partial=(L("Overlap with the right set: right ÷ all named.", "与正确集合的重合度：对的 ÷ 写出的全部。"),),
    caps=(("specials-selected", 0.5), ("padding-selected", 0.5), ONE_BASED_CAP),
)


EXERCISES = (
    Eligible(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Which positions may be selected?", "哪些位置可以被选中？"),
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
