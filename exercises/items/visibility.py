"""visibility: which positions may position i attend to, under a causal,
bidirectional or prefix-LM mask? (the section “Self-supervision and LM objectives”'s CLM-vs-MLM comparison.)"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import (
    ONE_BASED_CAP,
    grade_position_set,
)
from exercises.items.banks import rng_for
from exercises.text import L

ID = "visibility"
KIND_NAMES = {
    "causal": L("a causal mask (decoder, CLM)", "因果掩码（解码器，CLM）"),
    "bidirectional": L("a bidirectional mask (encoder, MLM)", "双向掩码（编码器，MLM）"),
    "prefix": L("a prefix-LM mask with prefix length {prefix}", "前缀长度为 {prefix} 的前缀语言模型掩码"),
}


RULES = {
    "causal": L(
        "Under a causal mask a position sees itself and every earlier position.",
        "因果掩码下，位置能看到自己和它之前的所有位置。",
    ),
    "bidirectional": L(
        "Under a bidirectional mask every position sees every real position; padding is blocked.",
        "双向掩码下，每个位置都能看到所有真实的位置；填充被挡住。",
    ),
    "prefix": L(
        "Under a prefix-LM mask a position sees the whole prefix, and causally after it.",
        "前缀语言模型掩码下，位置能看到整个前缀，前缀之后则按因果方式看。",
    ),
}


def answer_for(kind: str, n: int, query: int, prefix: int, pad: int = 0) -> set[int]:
    """The rule in one line (the engine's mask is what grades; this serves the
    fairness test, which compares the three kinds). ``pad``: the last positions are
    [PAD], blocked as keys."""
    if kind == "bidirectional":
        return set(range(n - pad))
    return set(range(max(query + 1, prefix if kind == "prefix" else 0)))


def _fair(params: dict) -> bool:
    """The question tests the kind it names, and its answer is not one a learner can give
    without reading the mask: a causal question asks neither about position 0 (it sees
    only itself) nor about the last position (there causal and bidirectional agree); a
    bidirectional question is a padded row (the answer is not just "everything") asked
    of a real token; a prefix question has a prefix of at least 2 and an answer unlike
    both the causal and the bidirectional one."""
    kind, n, query, prefix = params["kind"], params["n"], params["query"], params["prefix"]
    pad = params.get("pad", 0)
    if not 0 <= query < n:
        return False
    if kind == "prefix":
        answer = answer_for("prefix", n, query, prefix)
        return (
            pad == 0 and 2 <= prefix < n and answer not in (answer_for("causal", n, query, 0), set(range(n)))
        )
    if kind == "bidirectional":
        return prefix == 0 and 1 <= pad <= n - 3 and query < n - pad
    return prefix == 0 and pad == 0 and 1 <= query < n - 1


def _draw(seed: int) -> dict:
    if seed == 0:
        return {"kind": "causal", "n": 6, "query": 3, "prefix": 0, "pad": 0}
    rng = rng_for(ID, seed)
    kind = rng.choice(("causal", "causal", "bidirectional", "prefix", "prefix"))
    n = rng.randint(4, 10)
    prefix = pad = 0
    if kind == "prefix":
        prefix = rng.randint(2, n - 1)
        query = rng.randrange(prefix - 1)  # inside the prefix, before its last position
    elif kind == "bidirectional":
        pad = rng.randint(1, min(3, n - 3))  # a padded batch row: [PAD] at the end
        query = rng.randrange(n - pad)
    else:
        query = rng.randint(1, n - 2)
    return {"kind": kind, "n": n, "query": query, "prefix": prefix, "pad": pad}


def all_questions() -> list[dict]:
    """Every question the generator can ask (the pool)."""
    found = []
    for n in range(4, 11):
        for query in range(n):
            found.append({"kind": "causal", "n": n, "query": query, "prefix": 0, "pad": 0})
            found += [
                {"kind": "bidirectional", "n": n, "query": query, "prefix": 0, "pad": k} for k in range(1, 4)
            ]
            found += [{"kind": "prefix", "n": n, "query": query, "prefix": p, "pad": 0} for p in range(2, n)]
    return [params for params in found if _fair(params)]


@functools.lru_cache(maxsize=1024)
def _visible(kind: str, n: int, query: int, prefix: int, pad: int = 0) -> tuple[int, ...]:
    """The keys the engine's mask lets ``query`` see, once per question (seeds repeat them)."""
    import torch  # the engine (torch) only where it computes

    from engine.masks import mask_for, visible_keys, with_key_padding

    mask = mask_for(kind, n, prefix)
    if pad:
        real = torch.tensor([[1] * (n - pad) + [0] * pad])  # Hugging Face's attention_mask: 0 = padding
        mask = with_key_padding(mask, real)[0]
    return tuple(visible_keys(mask, query))


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    params = _draw(seed)
    kind, n, query, prefix, pad = (params[key] for key in ("kind", "n", "query", "prefix", "pad"))
    visible = list(_visible(kind, n, query, prefix, pad))
    data = {"kind": kind, "n": n, "query": query, "prefix": prefix, "pad": pad, "visible": visible}
    name = {lang: text.format(prefix=prefix) for lang, text in KIND_NAMES[kind].items()}
    pads = f"{n - 1}" if pad == 1 else f"{n - pad} to {n - 1}"
    pads_zh = f"{n - 1}" if pad == 1 else f"{n - pad} 到 {n - 1}"
    padded = (
        L(
            f" The batch row was padded: position{'s' if pad > 1 else ''} {pads} {'are' if pad > 1 else 'is'} "
            "[PAD], and a padding mask blocks [PAD] keys.",
            f"这一行补齐过：位置 {pads_zh} 是 [PAD]，填充掩码把 [PAD] 键挡住。",
        )
        if pad
        else L("", "")
    )
    prompt = L(
        f"A sequence of {n} positions (0 to {n - 1}) under {name['en']}.{padded['en']} Which positions may "
        f"position {query} attend to? List them all.",
        f"长度为 {n} 的序列（位置 0 到 {n - 1}），使用{name['zh']}。{padded['zh']}位置 {query} 可以注意（看到）"
        "哪些位置？请全部列出。",
    )
    return Variant(ID, seed, data, prompt, question_key_of(params))


def misconceptions(kind: str, n: int, query: int, given: set[int], expected: set[int]) -> list[str]:
    """What a wrong answer to "whom may position ``query`` see?" shows, one story at most
    (counting from 1 is told apart before this). One rule for the exercise and for any
    other place that asks the same question (the figure's predictions)."""
    causal = set(range(query + 1))
    if kind == "bidirectional" and expected != set(range(n)) and given == set(range(n)):
        return ["padding-attended"]  # a padded row: every position named, the [PAD] keys too
    if kind != "bidirectional" and given == expected - {query}:
        return ["causal-excludes-self"]
    if kind == "causal" and given == set(range(n)):
        return ["causal-sees-future"]
    if kind == "bidirectional" and given == causal:
        return ["bidirectional-as-causal"]
    if kind == "prefix" and given == causal:
        return ["prefix-ignored"]
    if kind == "prefix" and given == set(range(n)):
        return ["prefix-fully-bidirectional"]
    if kind == "causal" and given in (set(range(query, n)), set(range(query + 1, n))):
        return ["visible-reversed"]  # the query's column (who sees it), not its row (whom it sees)
    return []


class Visibility(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        data = variant.data
        return _fair(data) and set(data["visible"]) == answer_for(
            data["kind"], data["n"], data["query"], data["prefix"], data.get("pad", 0)
        )

    def pool_size(self) -> int:
        return len(all_questions())

    def solve(self, variant: Variant) -> dict[str, str]:
        return {"visible": ", ".join(map(str, variant.data["visible"]))}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        return Parsed(parsing.positions(text, None, n=variant.data["n"]))

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        expected = set(data["visible"])
        n, query, kind = data["n"], data["query"], data["kind"]

        def diagnose(given: set[int]) -> list[str]:
            return misconceptions(kind, n, query, given, expected)

        result, codes = grade_position_set(set(parsed["visible"].value), expected, diagnose, RULES[kind])
        return {"visible": result}, codes


RUBRIC = Rubric(
    full=L(
        "Exactly the positions the mask lets the query position see.",
        "恰好是掩码允许该查询位置看到的那些位置。",
    ),
    partial=(L("Overlap with the right set: right ÷ all named.", "与正确集合的重合度：对的 ÷ 写出的全部。"),),
    caps=(
        ("causal-sees-future", 0.5),
        ("causal-excludes-self", 0.5),
        ("bidirectional-as-causal", 0.5),
        ("prefix-ignored", 0.5),
        ("prefix-fully-bidirectional", 0.5),
        ("padding-attended", 0.5),
        ("visible-reversed", 0.5),
        ONE_BASED_CAP,
    ),
)


EXERCISES = (
    Visibility(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
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
                "Causal: only the past and itself. Bidirectional: every real token, [PAD] keys blocked. Prefix LM: "
                "the whole prefix, plus causal after it.",
                "因果：只能看过去和自己。双向：所有真实的 token，[PAD] 键被挡住。前缀语言模型：整个前缀，再加上前缀之后的因果部分。",
            ),
            L(
                "Does a position see itself? Under every mask here, yes.",
                "位置能看到自己吗？这里的每种掩码下都能。",
            ),
        ),
    ),
)
