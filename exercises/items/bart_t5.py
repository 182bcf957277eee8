"""bart-vs-t5: the same hidden spans, two denoising objectives. T5 (span
corruption) replaces each span with a numbered sentinel and its target lists
only the hidden spans; BART (text infilling, Lewis et al. 2019) replaces each
span with ONE [MASK] and its decoder rebuilds the whole original text."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping

from engine.tokens import MASK
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import (
    grade_token_parts,
    read_tokens_certain,
    same_token,
)
from exercises.items.banks import LESSON_SENTENCE, language_note, rng_for, sentence_tokens, shown
from exercises.text import L

ID = "bart-vs-t5"
BOUNDARIES = ("<s>", "</s>")


def bart_infilling(tokens: list[str], spans: list[list[int]]) -> tuple[list[str], list[str]]:
    """BART's text infilling with the spans given: each span becomes one [MASK];
    the target is the original text."""
    inputs: list[str] = []
    position = 0
    for start, end in spans:
        inputs += [*tokens[position:start], MASK]
        position = end
    return [*inputs, *tokens[position:]], list(tokens)


def _draw(seed: int) -> dict:
    if seed == 0:
        # the span of the section “Pretraining methods”
        return {"tokens": LESSON_SENTENCE.split(), "spans": [[2, 5]]}
    for attempt in range(100):
        rng = rng_for(ID, seed if attempt == 0 else f"{seed}/{attempt}")  # type: ignore[arg-type]
        tokens = sentence_tokens(rng, rng.choice(("en", "zh")))
        n = len(tokens)
        start = rng.randrange(0, n - 2)
        spans = [[start, rng.randint(start + 2, min(start + 3, n))]]
        if rng.random() < 0.5 and spans[0][1] + 2 < n:
            second = rng.randrange(spans[0][1] + 1, n - 1)
            spans.append([second, rng.randint(second + 1, min(second + 2, n))])
        params = {"tokens": tokens, "spans": spans}
        if _fair(params):
            return params
    raise AssertionError(f"{ID}: no fair variant for seed {seed}")


def _fair(params: dict) -> bool:
    """Spans in order, apart (touching spans would be one span), one of them at
    least two tokens long so that one [MASK] per span and one per token differ."""
    tokens, spans = params["tokens"], params["spans"]
    ordered = all(a[1] < b[0] for a, b in itertools.pairwise(spans))
    inside = all(0 <= start < end <= len(tokens) for start, end in spans)
    return (
        ordered
        and inside
        and any(end - start >= 2 for start, end in spans)
        and len(set(tokens)) == len(tokens)
    )


@functools.lru_cache(maxsize=1024)
def _generate(seed: int) -> Variant:
    from engine.samples import span_sample  # the engine (torch) only where it computes

    params = _draw(seed)
    tokens, spans = params["tokens"], params["spans"]
    t5 = span_sample(" ".join(tokens), spans=[tuple(span) for span in spans])
    inputs, targets = bart_infilling(tokens, spans)
    data = {**params, "inputs": inputs, "targets": targets, "t5_inputs": t5.inputs, "t5_targets": t5.targets}
    hidden = "; ".join(shown(tokens[start:end]) for start, end in spans)
    prompt = L(
        f"The sentence [{shown(tokens)}] with the span(s) [{hidden}] hidden. T5's span corruption gives\n"
        f"  input:  {shown(t5.inputs)}\n  target: {shown(t5.targets)}\n"
        "BART's text infilling hides the same spans. Write BART's\n1. input (tokens and [MASK])?\n2. target?",
        f"句子 [{shown(tokens)}]，遮住片段 [{hidden}]。T5 的片段破坏得到\n"
        f"  输入：{shown(t5.inputs)}\n  目标：{shown(t5.targets)}\n"
        "BART 的文本填充遮住同样的片段。写出 BART 的\n1. 输入（token 和 [MASK]）？\n2. 目标？",
    )
    prompt = language_note(prompt, tokens, typed=True)
    return Variant(ID, seed, data, prompt, question_key_of(params))


class BartVsT5(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        data = variant.data
        return _fair(data) and data["inputs"].count(MASK) == len(data["spans"])

    def solve(self, variant: Variant) -> dict[str, str]:
        return {"inputs": " ".join(variant.data["inputs"]), "targets": " ".join(variant.data["targets"])}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        data = variant.data
        vocabulary = [*data["tokens"], MASK, *data["t5_inputs"], *data["t5_targets"]]
        tokens, certain = read_tokens_certain(parsing.t5_text(text), data[part], vocabulary)
        if tokens is not None:  # BART's tokenizer wraps a text in <s> … </s>: written or not, both are right
            tokens = [token for token in tokens if token not in BOUNDARIES] or tokens
        return Parsed(tokens, certain=certain)

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        return grade_token_parts(
            ("inputs", "targets"),
            parsed,
            data,
            lambda part, given: _diagnose(part, given, data),
            _length_note,
        )


def _length_note(part: str, given: int, expected: int):
    return L(f"{given} tokens where {expected} belong.", f"写了 {given} 个 token，应有 {expected} 个。")


def _diagnose(part: str, given: list[str], data: dict) -> list[str]:
    sentinels = [token for token in given if token.startswith("<extra_id_")]
    masks = sum(same_token(token, MASK) for token in given)
    hidden = sum(end - start for start, end in data["spans"])
    if sentinels:
        return ["bart-sentinels"] if part == "inputs" else ["bart-target-is-span"]
    if part == "inputs":
        if masks == hidden > len(data["spans"]):
            return ["bart-mask-per-token"]
        if masks == 0 and len(given) >= len(data["tokens"]):
            return ["span-kept-in-input"]
        return []
    hidden_tokens = [token for start, end in data["spans"] for token in data["tokens"][start:end]]
    written = [token for token in given if not same_token(token, MASK)]
    if len(written) == len(hidden_tokens) and all(map(same_token, written, hidden_tokens)):
        return ["bart-target-is-span"]  # only the hidden tokens: T5's target without its sentinels
    return []


RUBRIC = Rubric(
    full=L(
        "BART's input with one [MASK] per hidden span, and the whole original text as the target.",
        "BART 的输入里每个被遮住的片段只有一个 [MASK]，目标是完整的原文。",
    ),
    partial=(
        L(
            "Each part counts a half; within a part, the share of tokens right.",
            "两个部分各占一半；部分内按写对的 token 比例给分。",
        ),
    ),
    caps=(("bart-target-is-span", 0.5), ("bart-sentinels", 0.5), ("bart-mask-per-token", 0.5)),
)

EXERCISES = (
    BartVsT5(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("BART's target vs T5's", "BART 的目标与 T5 的目标"),
        parts=(
            Part(
                "inputs",
                L("BART's input", "BART 的输入"),
                L("tokens and [MASK], e.g. a [MASK] d", "token 和 [MASK]，如 a [MASK] d"),
            ),
            Part(
                "targets",
                L("BART's target", "BART 的目标"),
                L("tokens separated by spaces", "用空格分隔的 token"),
            ),
        ),
        hint_texts=(
            L(
                "BART has no numbered sentinels: how does it mark a hidden span?",
                "BART 没有带编号的哨兵：它怎样标出被遮住的片段？",
            ),
            L(
                "From one [MASK] the model cannot tell how many tokens are missing: that is part of BART's task.",
                "只看一个 [MASK]，模型看不出缺了几个 token：判断这一点也是 BART 的任务。",
            ),
            L(
                "BART's decoder is trained to rebuild the document, not to list the gaps.",
                "BART 的解码器练的是重建整篇文本，而不是列出空缺。",
            ),
        ),
    ),
)
