"""three-masks: in Chinese all three are "掩码", and that is the top confusion.
One padded masked-LM example, three masks: the attention mask (padding), in two
libraries' polarities, and the loss mask (-100); the [MASK] token is none of them.

Every variant selects at least one token that does NOT become [MASK] (a random
word, or the token kept unchanged): the loss positions are the selected ones, so
they differ from the [MASK] positions, which is the confusion the exercise exists
to catch. The prompt names every selected position and its fate, and says no
other position was selected, so the loss mask can be worked out.

Polarity (one statement, as in the glossary and the lesson "visibility"): this app
and the boolean attn_mask / key_padding_mask of PyTorch's nn.MultiheadAttention and
nn.Transformer use 1/True = blocked; Hugging Face's attention_mask and the boolean
attn_mask of F.scaled_dot_product_attention use 1/True = may attend.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from engine.tokens import CLS, MASK, PAD, SEP
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import (
    ONE_BASED_CAP,
    grade_position_set,
    right,
    wrong_positions,
)
from exercises.items.banks import (
    EN_REPLACEMENTS,
    ZH_REPLACEMENTS,
    first_tokens,
    language_note,
    rng_for,
    sentence_tokens,
)
from exercises.items.mlm_abcde import loss_misconceptions
from exercises.text import L, fmt

ID = "three-masks"
CONVENTIONS = {  # how part 2 asks for the key row: "The same padding {en}" / "同样的填充，{zh}"
    "blocked": L(
        "in this app's convention (as the boolean key_padding_mask of PyTorch's nn.MultiheadAttention: "
        "1 = blocked, 0 = may attend)",
        "按本应用的约定写（与 PyTorch nn.MultiheadAttention 的布尔 key_padding_mask 相同：1 表示被遮盖，0 表示可以看）",
    ),
    "sdpa": L(
        "in the convention of the boolean attn_mask of PyTorch's scaled_dot_product_attention "
        "(SDPA: 1 (True) = may attend, 0 = blocked)",
        "按 PyTorch scaled_dot_product_attention（SDPA）布尔 attn_mask 的约定写（1 即 True 表示可以看，0 表示被遮盖）",
    ),
}
FATES = ("mask", "random", "keep")


def _draw(seed: int) -> dict:
    if seed == 0:  # the row seed 0 always showed, with a kept token besides the [MASK]
        return {
            "tokens": [CLS, "self", "supervision", "builds", "labels", SEP, PAD],
            "selected": [1, 3],
            "fates": ["keep", "mask"],
            "replacement": "river",
            "convention": "blocked",
        }
    for attempt in range(100):
        rng = rng_for(ID, seed if attempt == 0 else f"{seed}/{attempt}")  # type: ignore[arg-type]
        language = rng.choice(("en", "zh"))
        words = first_tokens(sentence_tokens(rng, language), rng.randint(3, 6), 3, 6)
        content = list(range(1, len(words) + 1))
        selected = sorted(rng.sample(content, rng.randint(2, min(3, len(content)))))
        fates = [rng.choices(FATES, weights=(5, 3, 2))[0] for _ in selected]
        bank = ZH_REPLACEMENTS if language == "zh" else EN_REPLACEMENTS
        params = {
            "tokens": [CLS, *words, SEP, *[PAD] * rng.randint(1, 3)],
            "selected": selected,
            "fates": fates,
            "replacement": rng.choice([word for word in bank if word not in words]),
            "convention": "blocked" if seed == 0 else rng.choice(("blocked", "sdpa")),
        }
        if _fair(params):
            return params
    raise AssertionError(f"{ID}: no fair variant for seed {seed}")


def _fair(params: dict) -> bool:
    """Each mask has something to show: padding to block, a [MASK] that must not be
    blocked, content outside the loss (so the loss mask is not the attention mask),
    and a selected token that does not show [MASK] (so the loss mask is not the set
    of [MASK] positions either)."""
    tokens, selected, fates = params["tokens"], params["selected"], params["fates"]
    content = [i for i, token in enumerate(tokens) if token not in (CLS, SEP, PAD)]
    return (
        PAD in tokens
        and len(selected) == len(set(selected)) == len(fates) >= 2
        and set(selected) < set(content)
        and "mask" in fates
        and any(fate != "mask" for fate in fates)
        and fates.count("random") <= 1  # one replacement word, stated once
        and len(set(tokens[i] for i in content)) == len(content)
        and params["replacement"] not in tokens
    )


def _fate_phrase(position: int, token: str, fate: str, replacement: str) -> dict[str, str]:
    if fate == "mask":
        return fmt(L("{i} ({t}), replaced by [MASK]", "{i}（{t}），换成 [MASK]"), i=position, t=token)
    if fate == "random":
        return fmt(
            L("{i} ({t}), replaced by the random token {r}", "{i}（{t}），换成随机词 {r}"),
            i=position,
            t=token,
            r=replacement,
        )
    return fmt(L("{i} ({t}), kept unchanged", "{i}（{t}），保持不变"), i=position, t=token)


@functools.lru_cache(maxsize=1024)
def _generate(seed: int) -> Variant:
    import torch  # the engine (torch) only where it computes

    from engine.masks import bidirectional_mask, with_key_padding
    from engine.samples import mlm_sample

    params = _draw(seed)
    tokens, selected, fates = params["tokens"], params["selected"], params["fates"]
    real = [t for t in tokens if t != PAD]
    sample = mlm_sample(" ".join(real), positions=selected, fates=fates, replacements=[params["replacement"]])
    inputs = [*sample.inputs, *[PAD] * (len(tokens) - len(real))]
    attention = [0 if token == PAD else 1 for token in tokens]  # Hugging Face: 1 = a real token
    blocked = with_key_padding(bidirectional_mask(len(tokens)), torch.tensor([attention]))[0, 0].to(torch.int)
    blocked_row = blocked.tolist()
    key_mask = blocked_row if params["convention"] == "blocked" else [1 - cell for cell in blocked_row]
    loss_positions = [i for i, label in enumerate(sample.labels) if label is not None]
    data = {
        **params,
        "inputs": inputs,
        "attention_mask": attention,
        "key_mask": key_mask,
        "loss_positions": loss_positions,
    }
    original = " ".join(f"{i}:{token}" for i, token in enumerate(tokens))
    listing = " ".join(f"{i}:{token}" for i, token in enumerate(inputs))
    phrases = [
        _fate_phrase(i, tokens[i], fate, params["replacement"])
        for i, fate in zip(selected, fates, strict=True)
    ]
    convention = CONVENTIONS[params["convention"]]
    prompt = L(
        f"A masked-LM batch row, padded to {len(tokens)} positions (position:token): {original}. "
        f"BERT's rule selected {len(phrases)} positions: {'; '.join(phrase['en'] for phrase in phrases)}. No other "
        f"position was selected. The model's input is {listing}. Three different things are called a mask here.\n"
        "1. Hugging Face's attention_mask for this row (1 = attend, 0 = padding), one digit per position?\n"
        f"2. The same padding {convention['en']}: one digit per key position?\n"
        "3. Which positions have a label other than -100 (the loss mask)?",
        f"一行掩码语言建模的批次数据，填充到 {len(tokens)} 个位置（位置：token）：{original}。"
        f"按 BERT 的规则选中了 {len(phrases)} 个位置：{'；'.join(phrase['zh'] for phrase in phrases)}。其他位置都没有被选中。"
        f"模型的输入是 {listing}。这里有三样东西都叫“掩码”。\n"
        "1. 这一行的 Hugging Face attention_mask（1 表示参与注意力，0 表示填充），每个位置一位？\n"
        f"2. 同样的填充，{convention['zh']}：每个键位置一位？\n"
        "3. 哪些位置的标签不是 -100（损失掩码）？",
    )
    prompt = language_note(prompt, tokens)
    return Variant(ID, seed, data, prompt, question_key_of(params))


def bits(text: str, n: int) -> list[int] | None:
    """n digits 0/1 ("1 1 1 0", "1110", "[1, 1, 1, 0]", "T T T F", "True, False")."""
    cleaned = parsing.without_trailing_punctuation(parsing.clean(text)).replace("[", " ").replace("]", " ")
    cleaned = cleaned.replace("(", " ").replace(")", " ")
    words = [word for word in re.split(r"[\s,]+", cleaned.lower()) if word]
    if len(words) == 1 and re.fullmatch(r"[01]+", words[0]):
        cells = [int(char) for char in words[0]]
    else:
        lookup = {"1": 1, "0": 0, "t": 1, "f": 0, "true": 1, "false": 0}
        if not words or any(word not in lookup for word in words):
            return None
        cells = [lookup[word] for word in words]
    return cells if len(cells) == n else None


class ThreeMasks(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        """The engine's sample agrees with the stated fates, and the loss positions (the
        selected ones) are not the [MASK] positions."""
        data = variant.data
        masked = [i for i, token in enumerate(data["inputs"]) if token == MASK]
        stated = [i for i, fate in zip(data["selected"], data["fates"], strict=True) if fate == "mask"]
        return (
            _fair(data)
            and masked == stated
            and data["loss_positions"] == data["selected"]
            and masked != data["loss_positions"]
        )

    def solve(self, variant: Variant) -> dict[str, str]:
        data = variant.data
        return {
            "attention_mask": " ".join(map(str, data["attention_mask"])),
            "key_mask": " ".join(map(str, data["key_mask"])),
            "loss_positions": ", ".join(map(str, data["loss_positions"])),
        }

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        n = len(variant.data["tokens"])
        if part == "loss_positions":
            return Parsed(parsing.positions(text, None, n=n))
        return Parsed(
            bits(text, n),
            L(f"{n} digits, 1 or 0, e.g. 1 1 0 (or 110).", f"{n} 位，每位 1 或 0，如 1 1 0（或 110）。"),
        )

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        results: dict[str, PartResult] = {}
        codes: list[str] = []
        masked = {i for i, token in enumerate(data["inputs"]) if token == MASK}  # shown as [MASK]
        pads = {i for i, token in enumerate(data["tokens"]) if token == PAD}
        for part, attend_is in (
            ("attention_mask", 1),
            ("key_mask", 1 if data["convention"] == "sdpa" else 0),
        ):
            if part not in parsed:
                continue
            given, expected = parsed[part].value, data[part]
            wrong = [i for i, (a, b) in enumerate(zip(given, expected, strict=True)) if a != b]
            if not wrong:
                results[part] = right()
                continue
            if all(a != b for a, b in zip(given, expected, strict=True)):
                codes.append("attention-polarity")
            elif set(wrong) == masked:
                codes.append("mask-token-blocked")
            elif set(wrong) <= pads and all(given[i] == attend_is for i in wrong):
                codes.append("padding-attended")
            elif set(wrong) <= masked | pads and masked <= set(wrong):
                codes.append("mask-token-blocked")
            results[part] = PartResult(
                1 - len(wrong) / len(expected), True, wrong_positions(wrong, len(expected))
            )
        if "loss_positions" in parsed:
            content = {i for i, token in enumerate(data["tokens"]) if token not in (CLS, SEP, PAD)}
            fate_at = dict(zip(data["selected"], data["fates"], strict=True))

            def diagnose(given: set[int]) -> list[str]:
                if given & pads:
                    return ["padding-selected"]
                # every word (with or without [CLS] and [SEP]), or only where the input shows
                # [MASK] (the confusion this exercise targets): masked LM's one rule
                return loss_misconceptions(given, set(data["loss_positions"]), fate_at, content)

            results["loss_positions"], found = grade_position_set(
                set(parsed["loss_positions"].value), set(data["loss_positions"]), diagnose
            )
            codes += found
        return results, codes


RUBRIC = Rubric(
    full=L(
        "Both padding masks in their library's polarity, and exactly the selected positions in the loss "
        "([MASK], random or kept alike).",
        "两个填充掩码都按各自库的约定写对，损失位置恰好是被选中的位置（换成 [MASK]、换成随机词、保持不变的都算）。",
    ),
    partial=(
        L("Each of the three parts counts a third.", "三个部分各占三分之一。"),
        L("Masks: the share of digits right.", "掩码：按写对的位数比例给分。"),
        L("Loss positions: overlap with the right set.", "损失位置：与正确集合的重合度。"),
    ),
    caps=(
        ("attention-polarity", 0.5),
        ("mask-token-blocked", 0.5),
        ("loss-on-every-token", 0.5),
        ("loss-omits-random", 0.5),
        ("loss-omits-kept", 0.5),
        ONE_BASED_CAP,
    ),
)

EXERCISES = (
    ThreeMasks(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Three things called a mask", "三种都叫“掩码”的东西"),
        parts=(
            Part(
                "attention_mask",
                L("Hugging Face attention_mask", "Hugging Face 的 attention_mask"),
                L("one digit per position, e.g. 1 1 0", "每个位置一位，如 1 1 0"),
            ),
            Part(
                "key_mask",
                L("the same padding, in the asked polarity", "同样的填充，按题目给的约定"),
                L("one digit per position, e.g. 0 0 1", "每个位置一位，如 0 0 1"),
            ),
            Part(
                "loss_positions",
                L("positions with a label (loss mask)", "有标签的位置（损失掩码）"),
                L("positions, e.g. 2, 5", "位置，如 2, 5"),
            ),
        ),
        hint_texts=(
            L(
                "Attention masks say which keys a position may read; the loss mask says where a label is taken; "
                "[MASK] is an ordinary token in the input, which every position may read.",
                "注意力掩码说明一个位置能读哪些键；损失掩码说明哪些位置有标签、计入损失；[MASK] 是输入里的一个普通 token，"
                "每个位置都可以读它。",
            ),
            L(
                "Ask of each library: does its 1 mean 'look' or 'do not look'?",
                "对每个库都问一句：它的 1 表示“看”还是“不看”？",
            ),
            L(
                "A selected token that kept its word, or shows a random one: does it have a label?",
                "被选中、却保留了原词或换成了随机词的 token：它有标签吗？",
            ),
        ),
    ),
)
