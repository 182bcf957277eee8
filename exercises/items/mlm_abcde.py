"""mlm-abcde: the first lesson's exercise. A short sequence, some positions
selected with given fates; write the model's input, the loss positions and the
labels."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from engine.mlm import BERT_SPLIT
from engine.samples import mlm_sample
from engine.tokens import MASK
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Variant
from exercises.grading.scoring import (
    counted_from_one,
    jaccard,
    mismatches,
    read_tokens,
    right,
    same_token,
    sequence_score,
)
from exercises.items.banks import EN_REPLACEMENTS, LETTERS, ZH_REPLACEMENTS, rng_for, sentence_tokens
from exercises.text import L, fmt

ID = "mlm-abcde"


def _fate_phrase(token: str, fate: str, replacement: str) -> dict[str, str]:
    if fate == "mask":
        return L(f"{token} → [MASK]", f"{token} → [MASK]")
    if fate == "random":
        return L(f"{token} → the random token {replacement}", f"{token} → 随机词 {replacement}")
    return L(f"{token} stays unchanged", f"{token} 保持不变")


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    if seed == 0:
        tokens, selected, fates, replacement, p = list("ABCDE"), [1, 4], ["mask", "random"], "X", 0.2
    else:
        rng = rng_for(ID, seed)
        kind = rng.choice(("letters", "words", "chars"))
        n = rng.randint(4, 10)
        if kind == "letters":
            tokens = list(LETTERS[:n])
            replacement = "X" if "X" not in tokens else "Z"
        else:
            tokens = sentence_tokens(rng, "zh" if kind == "chars" else "en")[:n]
            bank = ZH_REPLACEMENTS if kind == "chars" else EN_REPLACEMENTS
            replacement = rng.choice([word for word in bank if word not in tokens])
        n = len(tokens)
        selected = sorted(rng.sample(range(n), rng.choice((2, 2, 3)) if n >= 8 else 2))
        fates = [rng.choices(("mask", "random", "keep"), weights=(5, 3, 2))[0] for _ in selected]
        if "mask" not in fates:
            fates[rng.randrange(len(fates))] = "mask"
        p = rng.choice((0.15, 0.2))
    data = {"tokens": tokens, "selected": selected, "fates": fates, "replacement": replacement, "p": p}
    data.update(_engine_answer(tokens, selected, fates, replacement))
    listing = ", ".join(tokens)
    choices = [fmt(L("position {i} ({t})", "位置 {i}（{t}）"), i=i, t=tokens[i]) for i in selected]
    chosen_en = ", ".join(c["en"] for c in choices[:-1]) + " and " + choices[-1]["en"]
    chosen_zh = "、".join(c["zh"] for c in choices[:-1]) + "和" + choices[-1]["zh"]
    fate_en = "; ".join(
        _fate_phrase(tokens[i], f, replacement)["en"] for i, f in zip(selected, fates, strict=True)
    )
    fate_zh = "；".join(
        _fate_phrase(tokens[i], f, replacement)["zh"] for i, f in zip(selected, fates, strict=True)
    )
    to_mask, to_random, kept = BERT_SPLIT  # stated from the engine (h4, issue 10)
    prompt = L(
        f"A sequence of {len(tokens)} tokens, positions counted from 0: [{listing}]. Masking probability "
        f"{p:.0%}. Following BERT's rule ({to_mask:.0%} → [MASK], {to_random:.0%} → a random token, "
        f"{kept:.0%} unchanged), "
        f"{chosen_en} were selected: {fate_en}.\n"
        "1. What input sequence does the model see?\n"
        "2. Which positions enter the loss?\n"
        "3. What is the label at each of those positions?",
        f"一个长度为 {len(tokens)} 的序列，位置从 0 开始计数：[{listing}]。掩码概率为 {p:.0%}。"
        f"按照 BERT 的 MLM 策略（{to_mask:.0%} 换成 [MASK]，{to_random:.0%} 换成随机词，{kept:.0%} 保持不变），"
        f"随机选中了{chosen_zh}：{fate_zh}。\n"
        "1. 模型的输入序列会变成什么？\n"
        "2. 计算损失时，哪些位置需要被计算？\n"
        "3. 这些位置的标签分别是什么？",
    )
    return Variant(ID, seed, data, prompt)


def _engine_answer(tokens: list[str], selected: list[int], fates: list[str], replacement: str) -> dict:
    """The engine applies the fates: BERT's rule with the selection and fates fixed
    and the random draw confined to the stated replacement token."""
    sample = mlm_sample(" ".join(tokens), positions=selected, fates=fates, replacements=[replacement])
    loss_positions = [i for i, label in enumerate(sample.labels) if label is not None]
    return {
        "inputs": sample.inputs,
        "loss_positions": loss_positions,
        "labels": {str(i): sample.labels[i] for i in loss_positions},
    }


class MaskedFill(Exercise):
    def solve(self, variant: Variant) -> dict[str, str]:
        data = variant.data
        return {
            "input": " ".join(data["inputs"]),
            "loss_positions": ", ".join(str(i) for i in data["loss_positions"]),
            "labels": ", ".join(f"{i}: {token}" for i, token in data["labels"].items()),
        }

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        data = variant.data
        if part == "input":
            vocabulary = [*data["tokens"], data["replacement"], MASK]
            return Parsed(read_tokens(text, data["inputs"], vocabulary))
        if part == "loss_positions":
            return Parsed(parsing.positions(text, data["tokens"]))
        pairs = parsing.mapping(text)
        if pairs is not None:
            return Parsed(pairs)
        bare = parsing.bare_tokens(text)
        if bare is not None and len(bare) == len(data["loss_positions"]):
            return Parsed(dict(zip(data["loss_positions"], bare, strict=True)))
        return Parsed(None)

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        results: dict[str, PartResult] = {}
        codes: list[str] = []
        fate_at = dict(zip(data["selected"], data["fates"], strict=True))
        if "input" in parsed:
            results["input"], found = _grade_input(parsed["input"].value, data, fate_at)
            codes += found
        if "loss_positions" in parsed:
            results["loss_positions"], found = _grade_positions(parsed["loss_positions"].value, data, fate_at)
            codes += found
        if "labels" in parsed:
            results["labels"], found = _grade_labels(parsed["labels"].value, data, fate_at)
            codes += found
        return results, codes


def _grade_input(given: list[str], data: dict, fate_at: dict[int, str]) -> tuple[PartResult, list[str]]:
    expected = data["inputs"]
    tokens = data["tokens"]
    score = sequence_score(given, expected)
    codes = []
    if len(given) == len(expected):
        for position, fate in fate_at.items():
            seen = given[position]
            if fate == "random" and same_token(seen, MASK):
                codes.append("random-shown-as-mask")
            elif fate == "random" and same_token(seen, tokens[position]):
                codes.append("random-not-applied")
            elif fate == "keep" and same_token(seen, MASK):
                codes.append("kept-shown-as-mask")
            elif fate == "mask" and same_token(seen, tokens[position]):
                codes.append("mask-not-applied")
    if score == 1.0:
        return right(), codes
    wrong = mismatches(given, expected)
    if len(given) != len(expected):
        note = L(
            f"The input keeps the length of the sequence: {len(expected)} tokens, you wrote {len(given)}.",
            f"输入序列长度不变：应有 {len(expected)} 个 token，你写了 {len(given)} 个。",
        )
    else:
        details = ", ".join(f"{i}: {expected[i]}" for i in wrong)
        note = L(
            f"Not right at position(s) {', '.join(map(str, wrong))} (expected {details}).",
            f"位置 {', '.join(map(str, wrong))} 不对（应为 {details}）。",
        )
    return PartResult(score, True, note), codes


def _grade_positions(given: list[int], data: dict, fate_at: dict[int, str]) -> tuple[PartResult, list[str]]:
    expected = set(data["loss_positions"])
    chosen = set(given)
    if chosen == expected:
        return right(), []
    if chosen == {i + 1 for i in expected}:
        return counted_from_one()
    codes = []
    missing = expected - chosen
    if any(fate_at[i] == "random" for i in missing):
        codes.append("loss-omits-random")
    if any(fate_at[i] == "keep" for i in missing):
        codes.append("loss-omits-kept")
    if chosen - expected:
        codes.append("loss-includes-unselected")
    expected_text = ", ".join(map(str, sorted(expected)))
    return (
        PartResult(
            jaccard(chosen, expected),
            True,
            L(
                f"The loss is taken at every selected position, whatever its fate: {expected_text}.",
                f"损失在每个被选中的位置上计算，不论它的命运如何：{expected_text}。",
            ),
        ),
        codes,
    )


def _grade_labels(given: dict[int, str], data: dict, fate_at: dict[int, str]) -> tuple[PartResult, list[str]]:
    expected = {int(i): token for i, token in data["labels"].items()}
    replacement = data["replacement"]
    codes: list[str] = []
    shifted = {i - 1: token for i, token in given.items()}
    if (
        given != expected
        and set(shifted) == set(expected)
        and all(same_token(shifted[i], expected[i]) for i in expected)
    ):
        return counted_from_one()
    matched = 0
    for position, label in expected.items():
        seen = given.get(position)
        if seen is None:
            continue
        if same_token(seen, label):
            matched += 1
        elif fate_at.get(position) == "random" and same_token(seen, replacement):
            codes.append("label-is-replacement")
        elif same_token(seen, MASK):
            codes.append("label-is-mask")
    extra = [i for i in given if i not in expected]
    if extra:
        codes.append("labels-for-unselected")
    score = matched / (len(expected) + len(extra))
    if score == 1.0:
        return right(), codes
    wanted = ", ".join(f"{i}: {expected[i]}" for i in sorted(expected))
    return (
        PartResult(
            score,
            True,
            L(
                f"Each selected position's label is its original token: {wanted}.",
                f"每个被选中位置的标签都是它的原始词：{wanted}。",
            ),
        ),
        codes,
    )


EXERCISES = (
    MaskedFill(
        id=ID,
        make_variant=_generate,
        kind="parts",
        title=L("BERT's 80/10/10 on a short sequence", "短序列上的 BERT 80/10/10"),
        parts=(
            Part(
                "input",
                L("the model's input", "模型的输入序列"),
                L("tokens separated by spaces", "用空格分隔的 token"),
            ),
            Part(
                "loss_positions",
                L("positions in the loss", "参与损失的位置"),
                L("positions, e.g. 0, 3", "位置，如 0, 3"),
            ),
            Part(
                "labels",
                L("label at each of them", "这些位置的标签"),
                L("position: token, e.g. 0: P, 3: Q", "位置: token，如 0: P, 3: Q"),
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "Only the selected positions change, and only in the way their fate says.",
                "只有被选中的位置会变化，并且按它的命运来变。",
            ),
            L(
                "The loss does not care what the input shows at a selected position: [MASK], a random word or the "
                "original all count.",
                "损失不管被选中位置的输入显示什么：[MASK]、随机词、原词都要计算。",
            ),
            L(
                "A label answers 'what was really here?' — so it is never [MASK] and never the random word.",
                "标签回答的是“这里原本是什么”——所以它既不是 [MASK]，也不是随机词。",
            ),
        ),
    ),
)
