"""mlm-abcde: the section “Self-supervision and LM objectives”'s exercise. A short sequence, some positions
selected with given fates; write the model's input, the loss positions and the
labels."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from engine.settings import BERT_SPLIT
from engine.tokens import MASK
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import (
    ONE_BASED_CAP,
    LabelComparison,
    grade_label_map,
    grade_position_set,
    grade_token_parts,
    read_tokens_certain,
    same_token,
)
from exercises.items.banks import (
    EN_REPLACEMENTS,
    LETTERS,
    ZH_REPLACEMENTS,
    first_tokens,
    language_note,
    rng_for,
    sentence_tokens,
)
from exercises.text import L, fmt

ID = "mlm-abcde"


def _fate_phrase(token: str, fate: str, replacement: str) -> dict[str, str]:
    if fate == "mask":
        return L(f"{token} → [MASK]", f"{token} → [MASK]")
    if fate == "random":
        return L(f"{token} → the random token {replacement}", f"{token} → 随机词 {replacement}")
    return L(f"{token} stays unchanged", f"{token} 保持不变")


def _draw(seed: int) -> dict:
    """The question's parameters (torch-free): tokens, selection, fates, replacement, and for
    seed 0 alone the lesson's masking probability (seed 000 states 20 %). Once the selection is
    given the rate plays no role, so the other variants do not state one (issue 32)."""
    if seed == 0:
        return {
            "tokens": list("ABCDE"),
            "selected": [1, 4],
            "fates": ["mask", "random"],
            "replacement": "X",
            "p": 0.2,
        }
    for attempt in range(100):
        rng = rng_for(ID, seed if attempt == 0 else f"{seed}/{attempt}")  # type: ignore[arg-type]
        kind = rng.choice(("letters", "words", "chars"))
        n = rng.randint(4, 10)
        if kind == "letters":
            tokens = list(LETTERS[:n])
            replacement = "X" if "X" not in tokens else "Z"
        else:
            tokens = first_tokens(sentence_tokens(rng, "zh" if kind == "chars" else "en"), n, 4, 10)
            bank = ZH_REPLACEMENTS if kind == "chars" else EN_REPLACEMENTS
            replacement = rng.choice([word for word in bank if word not in tokens])
        n = len(tokens)
        selected = sorted(rng.sample(range(n), rng.choice((2, 2, 3)) if n >= 8 else 2))
        fates = [rng.choices(("mask", "random", "keep"), weights=(5, 3, 2))[0] for _ in selected]
        if "mask" not in fates:
            fates[rng.randrange(len(fates))] = "mask"
        if all(fate == "mask" for fate in fates):  # random and kept tokens are the point
            fates[rng.randrange(len(fates))] = rng.choice(("random", "keep"))
        params = {
            "tokens": tokens,
            "selected": selected,
            "fates": fates,
            "replacement": replacement,
        }
        if _fair(params):
            return params
    raise AssertionError(f"{ID}: no fair variant for seed {seed}")


def _fair(params: dict) -> bool:
    """A fair question: every selected token is named once (no duplicate tokens
    to confuse positions with), the random word differs from every token and is
    used at most once, at least one token becomes [MASK], and at least one does
    not (a random word, or kept): the exercise exists to show that those are in the
    loss too."""
    tokens, selected, fates = params["tokens"], params["selected"], params["fates"]
    return (
        len(set(tokens)) == len(tokens)
        and params["replacement"] not in tokens
        and "mask" in fates
        and any(fate != "mask" for fate in fates)
        and fates.count("random") <= 1
        and len(selected) == len(set(selected)) == len(params["fates"]) >= 2
        and all(0 <= i < len(tokens) for i in selected)
    )


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    params = _draw(seed)
    tokens, selected, fates = params["tokens"], params["selected"], params["fates"]
    replacement = params["replacement"]
    rate = (
        L(f" Masking probability {params['p']:.0%}.", f"掩码概率为 {params['p']:.0%}。")
        if "p" in params
        else L("", "")
    )
    data = dict(params)
    data.update(_engine_answer(tokens, selected, fates, replacement))
    listing = ", ".join(tokens)
    choices = [fmt(L("position {i} ({t})", "位置 {i}（{t}）"), i=i, t=tokens[i]) for i in selected]
    chosen_en = ", ".join(c["en"] for c in choices[:-1]) + " and " + choices[-1]["en"]
    chosen_zh = "、".join(c["zh"] for c in choices[:-1]) + "和" + choices[-1]["zh"]
    phrases = [_fate_phrase(tokens[i], f, replacement) for i, f in zip(selected, fates, strict=True)]
    fate_en = "; ".join(phrase["en"] for phrase in phrases)
    fate_zh = "；".join(phrase["zh"] for phrase in phrases)

    to_mask, to_random, kept = BERT_SPLIT
    prompt = L(
        f"A sequence of {len(tokens)} tokens, positions counted from 0: [{listing}].{rate['en']} "
        f"Following BERT's rule ({to_mask:.0%} → [MASK], {to_random:.0%} → a random token, "
        f"{kept:.0%} unchanged), "
        f"{chosen_en} were selected: {fate_en}.\n"
        "1. What input sequence does the model see?\n"
        "2. Which positions enter the loss?\n"
        "3. What is the label at each of those positions?",
        f"一个长度为 {len(tokens)} 的序列，位置从 0 开始计数：[{listing}]。{rate['zh']}"
        f"按照 BERT 的 MLM 策略（{to_mask:.0%} 换成 [MASK]，{to_random:.0%} 换成随机词，{kept:.0%} 保持不变），"
        f"随机选中了{chosen_zh}：{fate_zh}。\n"
        "1. 模型的输入序列会变成什么？\n"
        "2. 计算损失时，哪些位置需要被计算？\n"
        "3. 这些位置的标签分别是什么？",
    )
    prompt = language_note(prompt, tokens, typed=True)
    return Variant(ID, seed, data, prompt, question_key_of(params))


def _engine_answer(tokens: list[str], selected: list[int], fates: list[str], replacement: str) -> dict:
    """The engine applies the fates: BERT's rule with the selection and fates fixed
    and the random draw confined to the stated replacement token."""
    from engine.samples import mlm_sample  # the engine (torch) only where it computes

    sample = mlm_sample(" ".join(tokens), positions=selected, fates=fates, replacements=[replacement])
    loss_positions = [i for i, label in enumerate(sample.labels) if label is not None]
    return {
        "inputs": sample.inputs,
        "loss_positions": loss_positions,
        "labels": {str(i): sample.labels[i] for i in loss_positions},
    }


class MaskedFill(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        return _fair(variant.data)

    def solve(self, variant: Variant) -> dict[str, str]:
        data = variant.data
        return {
            "inputs": " ".join(data["inputs"]),
            "loss_positions": ", ".join(str(i) for i in data["loss_positions"]),
            "labels": ", ".join(f"{i}: {token}" for i, token in data["labels"].items()),
        }

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        data = variant.data
        if part == "inputs":
            vocabulary = [*data["tokens"], data["replacement"], MASK]
            tokens, certain = read_tokens_certain(text, data["inputs"], vocabulary)
            return Parsed(tokens, certain=certain)
        if part == "loss_positions":
            return Parsed(parsing.positions(text, data["tokens"], n=len(data["tokens"])))
        # a row of every position is read as labels where it labels this sequence (or its inputs)
        found = parsing.labels(text, len(data["tokens"]), (tuple(data["tokens"]), tuple(data["inputs"])))
        if found is not None:
            return Parsed(found)
        bare = parsing.bare_tokens(text, len(data["loss_positions"]))
        if bare is not None:
            return Parsed(dict(zip(data["loss_positions"], bare, strict=True)))
        return Parsed(None)

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        results: dict[str, PartResult] = {}
        codes: list[str] = []
        fate_at = dict(zip(data["selected"], data["fates"], strict=True))
        results, codes = grade_token_parts(
            ("inputs",), parsed, data, lambda part, given: _diagnose_input(given, data, fate_at), _length_note
        )
        if "loss_positions" in parsed:
            counted = parsing.wrote_numbers(raw.get("loss_positions", ""))
            results["loss_positions"], found = _grade_positions(
                parsed["loss_positions"].value, data, fate_at, counted
            )
            codes += found
        if "labels" in parsed:
            results["labels"], found = _grade_labels(parsed["labels"].value, data, fate_at)
            codes += found
        return results, codes


def _diagnose_input(given: list[str], data: dict, fate_at: dict[int, str]) -> list[str]:
    tokens = data["tokens"]
    codes = []
    if len(given) == len(data["inputs"]):
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
    return codes


def _length_note(part: str, given: int, expected: int):
    return L(
        f"The input keeps the length of the sequence: {expected} tokens, you wrote {given}.",
        f"输入序列长度不变：应有 {expected} 个 token，你写了 {given} 个。",
    )


LOSS_RULE = L(
    "The loss is taken at every selected position, whatever its fate.",
    "损失在每个被选中的位置上计算，不论它被怎样处理。",
)
LABEL_RULE = L("A label is the token that was really there.", "标签是这个位置原本的 token。")


EVERY_TOKEN = "loss-on-every-token"  # the misconception the loss part targets


def loss_misconceptions(
    chosen: set[int], expected: set[int], fate_at: Mapping[int, str], content: set[int]
) -> list[str]:
    """What a wrong set of masked-LM loss positions shows, one story at most: every text
    position (the loss on every token, as an attention mask would have it); every [MASK]
    position named and selected ones that do not show [MASK] left out, nothing else named
    (each fate left out: the random word, the kept token); unselected positions added and
    none left out. A position named in place of another (one left out, one added) is a slip
    of the eye, and a [MASK] position left out ("none") shows no idea about the fates: no
    story. The one rule for mlm-abcde, three-masks and the MLM figure's prediction."""
    if content and content <= chosen and chosen != expected:
        return [EVERY_TOKEN]
    missing, extra = expected - chosen, chosen - expected
    if missing and not extra and all(fate_at.get(i) != "mask" for i in missing):
        fates = {fate_at.get(i) for i in missing}
        return [
            code
            for fate, code in (("random", "loss-omits-random"), ("keep", "loss-omits-kept"))
            if fate in fates
        ]
    if extra and not missing:
        return ["loss-includes-unselected"]
    return []


def _grade_positions(
    given: list[int], data: dict, fate_at: dict[int, str], counted: bool
) -> tuple[PartResult, list[str]]:
    expected = set(data["loss_positions"])
    content = set(range(len(data["tokens"])))

    def diagnose(chosen: set[int]) -> list[str]:
        return loss_misconceptions(chosen, expected, fate_at, content)

    return grade_position_set(set(given), expected, diagnose, LOSS_RULE, counted)


def _grade_labels(given: dict[int, str], data: dict, fate_at: dict[int, str]) -> tuple[PartResult, list[str]]:
    expected = {int(i): token for i, token in data["labels"].items()}

    def diagnose(found: LabelComparison) -> list[str]:
        codes = []
        for position in found.wrong:
            if fate_at.get(position) == "random" and same_token(given[position], data["replacement"]):
                codes.append("label-is-replacement")
            elif same_token(given[position], MASK):
                codes.append("label-is-mask")
        if found.extra and set(given) >= set(range(len(data["tokens"]))):
            codes.append(EVERY_TOKEN)  # a label on every position: the loss on every token
        elif found.extra and not found.missing:
            codes.append("labels-for-unselected")  # (one added, one left out: a misplaced label, no story)
        return codes

    return grade_label_map(given, expected, diagnose, LABEL_RULE)


RUBRIC = Rubric(
    full=L(
        "The input with each fate applied, every selected position in the loss, and each label the original token.",
        "按各自的处理改写后的输入、所有被选中的位置都参与损失、每个标签都是原词。",
    ),
    partial=(
        L("Each of the three parts counts a third.", "三个部分各占三分之一。"),
        L("Inputs: the share of positions right.", "输入：按写对的位置比例给分。"),
        L(
            "Loss positions: overlap with the right set (right ÷ all named).",
            "损失位置：与正确集合的重合度（对的 ÷ 写出的全部）。",
        ),
        L(
            "Labels: right labels ÷ (labels expected + labels given where none belongs).",
            "标签：写对的标签 ÷（应有的标签数 + 多写的标签数）。",
        ),
    ),
    caps=(
        ("random-shown-as-mask", 0.5),
        ("loss-omits-random", 0.5),
        ("loss-omits-kept", 0.5),
        ("label-is-replacement", 0.5),
        ("label-is-mask", 0.5),
        (EVERY_TOKEN, 0.5),
        ONE_BASED_CAP,
    ),
)


EXERCISES = (
    MaskedFill(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("BERT's 80/10/10 on a short sequence", "短序列上的 BERT 80/10/10"),
        parts=(
            Part(
                "inputs",
                L("the model's input", "模型的输入序列"),
                L("tokens separated by spaces", "用空格分隔的 token"),
                aliases=("input",),
            ),
            Part(
                "loss_positions",
                L("positions in the loss", "参与损失的位置"),
                L("positions, e.g. 0, 3", "位置，如 0, 3"),
            ),
            Part(
                "labels",
                L("label at each of them", "这些位置的标签"),
                L("position: token, e.g. 0: P, 3: Q", "位置：token，如 0: P, 3: Q"),
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "Only the selected positions change, and only in the way their fate says.",
                "只有被选中的位置会变化，并且按给它定的处理来变。",
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
