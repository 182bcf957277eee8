"""visibility: which positions may position i attend to, under a causal,
bidirectional or prefix-LM mask? (The first lesson's CLM-vs-MLM comparison.)"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from engine.masks import mask_for, visible_keys
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Variant
from exercises.grading.scoring import jaccard, right
from exercises.items.banks import rng_for
from exercises.text import L

ID = "visibility"
KIND_NAMES = {
    "causal": L("a causal mask (decoder, CLM)", "因果掩码（解码器，CLM）"),
    "bidirectional": L("a bidirectional mask (encoder, MLM)", "双向掩码（编码器，MLM）"),
    "prefix": L("a prefix-LM mask with prefix length {prefix}", "前缀长度为 {prefix} 的前缀 LM 掩码"),
}


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    if seed == 0:
        kind, n, query, prefix = "causal", 6, 3, 0
    else:
        rng = rng_for(ID, seed)
        kind = rng.choice(("causal", "causal", "bidirectional", "prefix", "prefix"))
        n = rng.randint(4, 10)
        prefix = rng.randint(1, n - 2) if kind == "prefix" else 0
        query = rng.randrange(n)
    mask = mask_for(kind, n, prefix)
    visible = visible_keys(mask, query)
    data = {"kind": kind, "n": n, "query": query, "prefix": prefix, "visible": visible}
    name = {lang: text.format(prefix=prefix) for lang, text in KIND_NAMES[kind].items()}
    prompt = L(
        f"A sequence of {n} positions (0 to {n - 1}) under {name['en']}. Which positions may position {query} "
        "attend to? List them all.",
        f"长度为 {n} 的序列（位置 0 到 {n - 1}），使用{name['zh']}。位置 {query} 可以注意（看到）哪些位置？请全部列出。",
    )
    return Variant(ID, seed, data, prompt)


class Visibility(Exercise):
    def solve(self, variant: Variant) -> dict[str, str]:
        return {"visible": ", ".join(map(str, variant.data["visible"]))}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        return Parsed(_positions(text, variant.data["n"]))

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        given, expected = set(parsed["visible"].value), set(data["visible"])
        n, query, kind = data["n"], data["query"], data["kind"]
        if given == expected:
            return {"visible": right()}, []
        codes = []
        causal = set(range(query + 1))
        if given == {i + 1 for i in expected}:
            codes.append("one-based-positions")
        elif kind != "bidirectional" and given == expected - {query}:
            codes.append("causal-excludes-self")
        elif kind == "causal" and given == set(range(n)):
            codes.append("causal-sees-future")
        elif kind == "bidirectional" and given == causal:
            codes.append("bidirectional-as-causal")
        elif kind == "prefix" and given == causal:
            codes.append("prefix-ignored")
        elif kind == "prefix" and given == set(range(n)):
            codes.append("prefix-fully-bidirectional")
        score = 0.5 if codes == ["one-based-positions"] else jaccard(given, expected)
        listing = ", ".join(map(str, sorted(expected)))
        return {
            "visible": PartResult(
                score,
                True,
                L(f"Position {query} sees {listing}.", f"位置 {query} 能看到 {listing}。"),
            )
        }, codes


def _positions(text: str, n: int) -> list[int] | None:
    """Positions, or a range written as 0-3 / 0..3 / [0, 3] (a closed range)."""
    cleaned = parsing.clean(text)
    span = re.fullmatch(r"\[?\s*(\d+)\s*(?:-|\.\.|~|到|至|…)\s*(\d+)\s*\]?", cleaned)
    if span:
        low, high = int(span.group(1)), int(span.group(2))
        if low <= high <= 10 * n:
            return list(range(low, high + 1))
    numbers = parsing.integers(text)
    if numbers is None:
        return [] if any(word in cleaned.lower() for word in ("none", "nothing", "无", "没有")) else None
    return sorted(set(numbers))


EXERCISES = (
    Visibility(
        id=ID,
        make_variant=_generate,
        kind="parts",
        title=L("Who may position i look at?", "位置 i 能看到谁？"),
        parts=(
            Part(
                "visible",
                L("visible positions", "可见位置"),
                L("positions, e.g. 0, 2, 5", "位置，如 0, 2, 5"),
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "Rows are the position asking (query); columns the positions it may read (keys).",
                "行是提问的位置（查询），列是它可以读的位置（键）。",
            ),
            L(
                "Causal: only the past and itself. Bidirectional: everything. Prefix LM: the whole prefix, plus causal "
                "after it.",
                "因果：只能看过去和自己。双向：全部。前缀 LM：整个前缀，再加上前缀之后的因果部分。",
            ),
            L(
                "Does a position see itself? Under every mask here, yes.",
                "位置能看到自己吗？这里的每种掩码下都能。",
            ),
        ),
    ),
)
