"""expected-counts: how many tokens BERT's masking selects on average for a
batch, and how they split 80/10/10 (the section “Self-supervision and LM objectives”'s mask_prob 0.15 -> 0.3
action item)."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from engine.settings import BERT_SPLIT, MASK_RATE
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import misconception_near, right
from exercises.items.banks import rng_for
from exercises.text import L

ID = "expected-counts"
PARTS = ("selected", "mask", "random", "keep")


def _draw(seed: int) -> dict:
    if seed == 0:
        return {"batch": 4, "length": 8, "p": MASK_RATE}  # the lesson's MLM run
    rng = rng_for(ID, seed)
    return {
        "batch": rng.choice((2, 4, 8, 16, 32)),
        "length": rng.choice((8, 16, 32, 64, 128, 512)),
        "p": rng.choice((MASK_RATE, MASK_RATE, 0.3, 0.2, 0.1)),
    }


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    from engine.mlm import expected_counts  # the engine (torch) only where it computes

    params = _draw(seed)
    batch, length, p = params["batch"], params["length"], params["p"]
    counts = expected_counts(batch, length, p)
    data = {"batch": batch, "length": length, "p": p, "counts": {k: round(v, 4) for k, v in counts.items()}}
    prompt = L(
        f"A batch of {batch} sequences of {length} ordinary tokens (no specials), selection probability "
        f"p = {p:g}, then BERT's 80/10/10. On average:\n1. how many tokens are selected?\n"
        "2. how many become [MASK]?\n3. how many a random token?\n4. how many stay unchanged?",
        f"一个批次有 {batch} 条序列，每条 {length} 个普通 token（没有特殊符号），选择概率 p = {p:g}，"
        "然后按 BERT 的 80/10/10 处理。平均而言：\n1. 有多少个 token 被选中？\n2. 多少个变成 [MASK]？\n"
        "3. 多少个变成随机词？\n4. 多少个保持不变？",
    )
    return Variant(ID, seed, data, prompt, question_key_of(params))


def _accepts(value: float, expected: float) -> bool:
    """Exact to two decimals, or rounded to one decimal, or (for counts of ten
    and more) to the nearest whole token."""
    return (
        abs(value - expected) < 0.011
        or abs(value - round(expected, 1)) < 1e-9
        or (expected >= 10 and value == round(expected))
    )


class ExpectedCounts(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        """Forgetting the batch must change the answer (batch >= 2)."""
        return variant.data["batch"] >= 2 and 0 < variant.data["p"] < 1

    def pool_size(self) -> int:
        return 5 * 6 * 4  # batch sizes × lengths × values of p

    def solve(self, variant: Variant) -> dict[str, str]:
        return {part: f"{variant.data['counts'][part]:g}" for part in PARTS}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        return Parsed(parsing.number(text, near=variant.data["counts"][part]))

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        total_tokens = data["batch"] * data["length"]
        counts = data["counts"]
        results: dict[str, PartResult] = {}
        codes: list[str] = []
        share = {"selected": 1.0, **dict(zip(("mask", "random", "keep"), BERT_SPLIT, strict=True))}
        for part in PARTS:
            if part not in parsed:
                continue
            value, expected = parsed[part].value, counts[part]
            if _accepts(value, expected):
                results[part] = right()
                continue
            wrong = [("forgot-batch", expected / data["batch"]), ("p-as-percent", expected * 100)]
            if part != "selected":
                wrong.append(("split-of-all-tokens", total_tokens * share[part]))
            codes += misconception_near(value, wrong)
            results[part] = PartResult(
                0.0,
                True,
                L(
                    "Not the average count: how many tokens are in the whole batch, and what share of them ends up here?",
                    "不是这个平均数：整个批次一共有多少个 token？其中多大比例落在这一项？",
                ),
            )
        return results, codes


RUBRIC = Rubric(
    full=L(
        "Each average exact to 2 decimals, or rounded to 1 decimal, or (from 10 up) to a whole token.",
        "每个平均数精确到两位小数，或四舍五入到一位小数，或（10 及以上）到整数个 token。",
    ),
    partial=(L("Each of the four counts a quarter.", "四个数各占四分之一。"),),
    caps=(("split-of-all-tokens", 0.5),),
)


EXERCISES = (
    ExpectedCounts(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("How many tokens does masking touch?", "掩码平均会动多少个 token？"),
        parts=(
            Part("selected", L("selected", "被选中"), L("a number, e.g. 12.5", "一个数，如 12.5")),
            Part("mask", L("become [MASK]", "变成 [MASK]"), L("a number, e.g. 12.5", "一个数，如 12.5")),
            Part(
                "random",
                L("become a random token", "变成随机词"),
                L("a number, e.g. 12.5", "一个数，如 12.5"),
            ),
            Part("keep", L("stay unchanged", "保持不变"), L("a number, e.g. 12.5", "一个数，如 12.5")),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "Every token of the batch is a candidate, independently.",
                "批次里的每个 token 都独立地是候选。",
            ),
            L(
                "The expected number selected is (number of tokens) × p.",
                "被选中的期望数量 =（token 总数）× p。",
            ),
            L("80/10/10 applies to the selected tokens only.", "80/10/10 只作用在被选中的 token 上。"),
        ),
    ),
)
