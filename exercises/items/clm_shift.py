"""clm-shift: write the causal-LM inputs and labels of a sentence (seed 0: the
second lesson's sentence)."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from exercises.grading.model import Exercise, Parsed, Part, PartResult, Variant
from exercises.grading.scoring import mismatches, read_tokens, right, same_token, sequence_score
from exercises.items.banks import LESSON_SENTENCE, rng_for, sentence_tokens
from exercises.text import L

ID = "clm-shift"


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    if seed == 0:
        tokens = LESSON_SENTENCE.split()
    else:
        rng = rng_for(ID, seed)
        tokens = sentence_tokens(rng, rng.choice(("en", "zh")))
        tokens = tokens[: rng.randint(4, min(9, len(tokens)))]
    from engine.samples import clm_sample  # the engine (torch) only where it computes

    sample = clm_sample(" ".join(tokens))
    data = {"tokens": tokens, "inputs": sample.inputs, "labels": sample.labels}
    listing = ", ".join(tokens)
    prompt = L(
        f"Causal LM on the sentence [{listing}] ({len(tokens)} tokens). Lay it out as the lesson does: "
        "one list of inputs and one list of labels, so that each input position is trained to predict its "
        "label.\n1. The inputs?\n2. The labels?",
        f"对句子 [{listing}]（{len(tokens)} 个 token）做因果语言建模。按讲义的方式排列："
        "一列输入、一列标签，使每个输入位置学习预测它对应的标签。\n1. 输入是什么？\n2. 标签是什么？",
    )
    return Variant(ID, seed, data, prompt)


class ClmShift(Exercise):
    def solve(self, variant: Variant) -> dict[str, str]:
        return {"inputs": " ".join(variant.data["inputs"]), "labels": " ".join(variant.data["labels"])}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        return Parsed(read_tokens(text, variant.data[part], variant.data["tokens"]))

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        tokens = variant.data["tokens"]
        results: dict[str, PartResult] = {}
        codes: list[str] = []
        for part in ("inputs", "labels"):
            if part not in parsed:
                continue
            given, expected = parsed[part].value, variant.data[part]
            score = sequence_score(given, expected)
            if score == 1.0:
                results[part] = right()
                continue
            if part == "inputs" and _same(given, tokens):
                codes.append("inputs-keep-last")
            elif part == "inputs" and _same(given, tokens[1:]):
                codes.append("shifted-wrong-way")
            elif part == "labels" and (_same(given, tokens) or _same(given, tokens[:-1])):
                codes.append("labels-not-shifted")
            wrong = mismatches(given, expected)
            if len(given) != len(expected):
                name = {"en": part, "zh": "输入" if part == "inputs" else "标签"}
                results[part] = PartResult(
                    score,
                    True,
                    L(
                        f"The {name['en']} have {len(expected)} tokens (one fewer than the sentence); you wrote {len(given)}.",
                        f"{name['zh']}应有 {len(expected)} 个 token（比句子少一个）；你写了 {len(given)} 个。",
                    ),
                )
                continue
            results[part] = PartResult(
                score,
                True,
                L(
                    f"{len(wrong)} of {len(expected)} positions differ; the {part} are: {' '.join(expected[:3])} ...",
                    f"{len(expected)} 个位置中有 {len(wrong)} 个不对；{'输入' if part == 'inputs' else '标签'}开头应为："
                    f"{' '.join(expected[:3])} ……",
                ),
            )
        return results, codes


def _same(given: list[str], expected: list[str]) -> bool:
    return len(given) == len(expected) and all(same_token(a, b) for a, b in zip(given, expected, strict=True))


EXERCISES = (
    ClmShift(
        id=ID,
        make_variant=_generate,
        kind="parts",
        title=L("Causal LM: labels are the next tokens", "因果 LM：标签是下一个词"),
        parts=(
            Part("inputs", L("inputs", "输入"), L("tokens separated by spaces", "用空格分隔的 token")),
            Part("labels", L("labels", "标签"), L("tokens separated by spaces", "用空格分隔的 token")),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "Each position predicts the token that comes right after it.",
                "每个位置预测紧跟在它后面的那个 token。",
            ),
            L(
                "The last token has nothing after it, and the first has nothing before it.",
                "最后一个 token 后面没有词，第一个 token 前面也没有词。",
            ),
            L(
                "Both lists are one token shorter than the sentence.",
                "两个列表都比句子短一个 token。",
            ),
        ),
    ),
)
