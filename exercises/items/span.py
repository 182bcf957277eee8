"""span-corruption: write the corrupted input and the target with sentinels
(seed 0: the second lesson's span 2..5)."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from engine.tokens import sentinel
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Variant
from exercises.grading.scoring import read_tokens, right, sequence_score
from exercises.items.banks import LESSON_SENTENCE, rng_for, sentence_tokens
from exercises.text import L

ID = "span-corruption"


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    if seed == 0:
        tokens, spans = LESSON_SENTENCE.split(), [(2, 5)]
    else:
        rng = rng_for(ID, seed)
        tokens = sentence_tokens(rng, rng.choice(("en", "zh")))
        n = len(tokens)
        if rng.random() < 0.5 or n < 7:
            start = rng.randrange(0, n - 1)
            spans = [(start, rng.randint(start + 1, min(start + 3, n)))]
        else:
            first = rng.randrange(0, n // 2 - 1)
            first_end = rng.randint(first + 1, min(first + 2, n // 2))
            second = rng.randrange(first_end + 1, n - 1)
            spans = [(first, first_end), (second, rng.randint(second + 1, min(second + 2, n)))]
    from engine.samples import span_sample  # the engine (torch) only where it computes

    sample = span_sample(" ".join(tokens), spans=spans)
    data = {
        "tokens": tokens,
        "spans": [list(span) for span in spans],
        "inputs": sample.inputs,
        "targets": sample.targets,
    }
    listing = ", ".join(tokens)
    hidden_en = " and ".join(f"{s}:{e} ({' '.join(tokens[s:e])})" for s, e in spans)
    hidden_zh = "和".join(f"{s}:{e}（{' '.join(tokens[s:e])}）" for s, e in spans)
    prompt = L(
        f"T5-style span corruption of [{listing}] (positions from 0). Hide the span(s) {hidden_en} "
        "(start:end, end excluded, like tokens[start:end]), using the sentinels <extra_id_0>, <extra_id_1>, ...\n"
        "1. The corrupted input?\n2. The target?",
        f"对 [{listing}] 做 T5 式片段破坏（位置从 0 开始）。遮盖片段 {hidden_zh}（写作 起点:终点，终点不含，"
        "和 tokens[start:end] 一样），使用哨兵 <extra_id_0>、<extra_id_1>……\n1. 破坏后的输入是什么？\n2. 目标序列是什么？",
    )
    return Variant(ID, seed, data, prompt)


class SpanCorruptionExercise(Exercise):
    def solve(self, variant: Variant) -> dict[str, str]:
        return {"inputs": " ".join(variant.data["inputs"]), "targets": " ".join(variant.data["targets"])}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        vocabulary = [*variant.data["tokens"], *(sentinel(i) for i in range(4))]
        return Parsed(read_tokens(text, variant.data[part], vocabulary))

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        results: dict[str, PartResult] = {}
        codes: list[str] = []
        n_spans = len(data["spans"])
        for part in ("inputs", "targets"):
            if part not in parsed:
                continue
            given, expected = parsed[part].value, data[part]
            score = sequence_score(given, expected)
            if score == 1.0:
                results[part] = right()
                continue
            codes += _diagnose(part, given, data, n_spans)
            results[part] = PartResult(
                score,
                True,
                L(f"Expected: {' '.join(expected)}", f"应为：{' '.join(expected)}"),
            )
        return results, codes


def _diagnose(part: str, given: list[str], data: dict, n_spans: int) -> list[str]:
    tokens = data["tokens"]
    sentinels_given = [token for token in given if token.startswith("<extra_id_")]
    codes = []
    if len(sentinels_given) != len(set(sentinels_given)):
        codes.append("sentinel-reused")
    if sentinels_given and sentinels_given[0] == sentinel(1) and sentinel(0) not in sentinels_given:
        codes.append("sentinel-numbering-from-1")
    if part == "inputs":
        hidden = sum(end - start for start, end in data["spans"])
        hidden_tokens = [tokens[i] for start, end in data["spans"] for i in range(start, end)]
        kept = all(given.count(token) >= hidden_tokens.count(token) for token in set(hidden_tokens))
        if len(given) == len(tokens) and len(sentinels_given) == hidden > n_spans:
            codes.append("one-sentinel-per-token")
        elif kept and len(given) in (len(tokens), len(tokens) + n_spans):
            codes.append("span-kept-in-input")
        elif len(given) == len(data["inputs"]) - n_spans:
            codes.append("span-end-inclusive")
    else:
        if not sentinels_given:
            codes.append("target-without-sentinels")
        elif (
            len(sentinels_given) == n_spans and given and not given[-1].startswith("<extra_id_")
        ) or given == data["targets"][:-1]:
            codes.append("target-missing-final-sentinel")
        elif len(given) == len(data["targets"]) + n_spans:
            codes.append("span-end-inclusive")
    return codes


EXERCISES = (
    SpanCorruptionExercise(
        id=ID,
        make_variant=_generate,
        kind="parts",
        title=L("Span corruption with sentinels", "带哨兵的片段破坏"),
        parts=(
            Part(
                "inputs",
                L("corrupted input", "破坏后的输入"),
                L("tokens and sentinels, e.g. a <extra_id_0> d", "token 和哨兵，如 a <extra_id_0> d"),
            ),
            Part(
                "targets",
                L("target", "目标序列"),
                L("tokens and sentinels separated by spaces", "用空格分隔的 token 和哨兵"),
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L("A whole span becomes a single sentinel in the input.", "整个片段在输入里只变成一个哨兵。"),
            L(
                "The target lists each sentinel followed by the tokens it hid, in order.",
                "目标序列依次写出每个哨兵，后面跟着它遮住的 token。",
            ),
            L(
                "end is excluded, and the target closes with one more sentinel than there are spans.",
                "终点不包含在内；目标序列最后再多写一个哨兵收尾。",
            ),
        ),
    ),
)
