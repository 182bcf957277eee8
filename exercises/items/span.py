"""span-corruption: write T5's corrupted input and target for given spans
(seed 0: the second seed lesson's span 2:5).

The answer is T5's (``noise_span_to_unique_sentinel`` for the input,
``nonnoise_span_to_unique_sentinel`` for the target, ``</s>`` after both):
one sentinel per span, numbered from 0; spans that touch are one span; the
target closes with one more sentinel only when kept text follows the last
span. A trailing ``</s>`` may be written or left out; the seed lesson's
always-closing target is wrong where the last span reaches the end.

Variants come in four kinds: one span inside the text, two spans, a last span
that reaches the end, and a span given as two touching pieces.

The rubric (``RUBRIC``, ``exercise span-corruption --rubric``): input and
target are half the score each; one sentinel per token, or the span left in the
input, scores at most 50 %.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping

from engine.tokens import EOS, sentinel
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import (
    grade_token_parts,
    read_tokens_certain,
    same_token,
)
from exercises.items.banks import LESSON_SENTENCE, language_note, rng_for, sentence_tokens
from exercises.items.bart_t5 import bart_infilling
from exercises.text import L

ID = "span-corruption"
KINDS = ("inside", "two", "end", "touching")

RUBRIC = Rubric(
    full=L(
        "T5's input and target exactly; a trailing </s> may be written or left out.",
        "和 T5 的输入、目标序列完全一致；结尾的 </s> 写不写都可以。",
    ),
    partial=(
        L(
            "Two parts, half each, by the share of positions that are right.",
            "两部分各占一半，按对的位置比例计分。",
        ),
    ),
    caps=(
        ("one-sentinel-per-token", 0.5),
        ("span-kept-in-input", 0.5),
        # what the 'end' and 'touching' variants exist to test (issue 9, content 2)
        ("target-extra-final-sentinel", 0.5),
        ("target-missing-final-sentinel", 0.5),
        ("touching-spans-split", 0.5),
        ("t5-as-bart", 0.5),
    ),
)


def _spans_for(kind: str, n: int, rng) -> list[tuple[int, int]]:
    """Spans of one kind for n tokens; every span starts at 1 or later (T5's texts start kept)."""
    if kind == "end":
        start = rng.randint(max(1, n - 3), n - 1)
        if n >= 6 and rng.random() < 0.5:
            first = rng.randint(1, start - 2)
            return [(first, first + 1), (start, n)]
        return [(start, n)]
    if kind == "touching":
        start = rng.randint(1, n - 4)
        middle = start + rng.randint(1, 2)
        return [(start, middle), (middle, min(middle + rng.randint(1, 2), n - 1))]
    if kind == "two":
        first = rng.randint(1, n // 2 - 1)
        first_end = rng.randint(first + 1, min(first + 2, n // 2))
        second = rng.randint(first_end + 1, n - 2)
        return [(first, first_end), (second, rng.randint(second + 1, n - 1))]
    start = rng.randint(1, n - 2)
    return [(start, rng.randint(start + 1, min(start + 3, n - 1)))]


def _draw(seed: int) -> dict:
    """The question without the engine: the sentence, the spans and their kind."""
    if seed == 0:
        return {"tokens": LESSON_SENTENCE.split(), "spans": [[2, 5]], "kind": "inside"}
    rng = rng_for(ID, seed)
    tokens = sentence_tokens(rng, rng.choice(("en", "zh")))
    kind = KINDS[seed % len(KINDS)]
    if kind == "two" and len(tokens) < 7:
        kind = "inside"
    return {
        "tokens": tokens,
        "spans": [list(span) for span in _spans_for(kind, len(tokens), rng)],
        "kind": kind,
    }


@functools.lru_cache(maxsize=1024)
def _sample(text: str, spans: tuple[tuple[int, int], ...]):
    """The engine's span corruption of a text, once per question (seeds repeat some).
    Read only: callers copy."""
    from engine.samples import span_sample

    return span_sample(text, spans=spans)


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    params = _draw(seed)
    tokens, kind = params["tokens"], params["kind"]
    spans = [tuple(span) for span in params["spans"]]
    sample = _sample(" ".join(tokens), tuple(spans))  # both end with </s>
    data = {
        "tokens": tokens,
        "kind": kind,
        "spans": [list(span) for span in spans],
        "merged": [list(span) for span in sample.spans],
        "closed": sample.closed,
        "inputs": sample.inputs[:-1],  # the answer; </s> after it is optional
        "targets": sample.targets[:-1],
    }
    listing = ", ".join(tokens)
    hidden_en = " and ".join(f"{s}:{e} ({' '.join(tokens[s:e])})" for s, e in spans)
    hidden_zh = "、".join(f"{s}:{e}（{' '.join(tokens[s:e])}）" for s, e in spans)
    prompt = L(
        f"T5 span corruption of [{listing}] (positions from 0). Hide {hidden_en}. A span is written "
        "start:end, end excluded, like tokens[start:end]; the sentinels are <extra_id_0>, <extra_id_1>, ... "
        "as in T5. T5 ends both sequences with </s>: write it or leave it out.\n"
        "1. The corrupted input?\n2. The target?",
        f"按 T5 的做法对 [{listing}] 做片段破坏（位置从 0 开始）。要遮住：{hidden_zh}。片段写作“起点：终点”，"
        "不含终点，和 tokens[start:end] 一样；哨兵用 <extra_id_0>、<extra_id_1>……。T5 在两个序列末尾都加 </s>，"
        "写不写都可以。\n1. 破坏后的输入是什么？\n2. 目标序列是什么？",
    )
    prompt = language_note(prompt, tokens, typed=True)
    return Variant(ID, seed, data, prompt, question_key_of(params))  # (not drawn a second time by generate)


_VOCABULARY_SPECIALS = (*(sentinel(i) for i in range(4)), EOS)  # what an answer may hold besides the tokens


class SpanCorruptionExercise(Exercise):
    def solve(self, variant: Variant) -> dict[str, str]:
        data = variant.data
        return {"inputs": " ".join([*data["inputs"], EOS]), "targets": " ".join([*data["targets"], EOS])}

    def variant_is_fair(self, variant: Variant) -> bool:
        """T5's answer is defined and the variant tests what its kind names: spans start at 1 or
        later and keep text between them; a 'touching' variant's pieces touch and merge; an 'end'
        variant's last span reaches the end (no closing sentinel), the others' does not."""
        data = variant.data
        n, spans = len(data["tokens"]), [tuple(span) for span in data["spans"]]
        if not spans or any(not 1 <= start < end <= n for start, end in spans):
            return False
        touching = any(a_end == b_start for (_, a_end), (b_start, _) in itertools.pairwise(spans))
        if (data["kind"] == "touching") != touching or (
            data["kind"] == "touching" and len(data["merged"]) != 1
        ):
            return False
        return (data["kind"] == "end") == (not data["closed"])

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        tokens, certain = read_t5(text, [*variant.data[part], EOS], variant.data["tokens"])
        if tokens and same_token(tokens[-1], EOS):
            tokens = tokens[:-1]
        return Parsed(
            tokens, certain=certain, note=parsing.PAPER_NOTE if parsing.in_papers_notation(text) else None
        )

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


def read_t5(text: str, expected: list[str], words: list[str]) -> tuple[list[str] | None, bool]:
    """T5 tokens as a learner writes them (``normalise_t5``), read against ``expected``: the
    reader of span-corruption and of the span figure's prediction."""
    return read_tokens_certain(parsing.t5_text(text), expected, [*words, *_VOCABULARY_SPECIALS])


def _is_sentinel(token: str) -> bool:
    return token.startswith("<extra_id_")


def t5_layout(tokens: list[str], spans: list[list[int]], per_token: bool = False) -> dict[str, list[str]]:
    """T5's input and target for ``spans`` taken as they are (not merged), without </s>;
    ``per_token``: one sentinel per hidden token, as if every token were its own span."""
    inputs: list[str] = []
    targets: list[str] = []
    position = count = 0
    for start, end in spans:
        inputs += tokens[position:start]
        pieces = [[token] for token in tokens[start:end]] if per_token else [tokens[start:end]]
        for piece in pieces:
            inputs.append(sentinel(count))
            targets += [sentinel(count), *piece]
            count += 1
        position = max(position, end)
    inputs += tokens[position:]
    if position < len(tokens):
        targets.append(sentinel(count))
    return {"inputs": inputs, "targets": targets}


def _stories(data: dict) -> list[tuple[str, dict[str, list[str]]]]:
    """The whole answer of each misunderstanding the exercise names, to recognise one exactly
    (one story per answer): the pieces of touching spans given their own sentinels, one
    sentinel per token, each span's end taken in, and BART's format ([MASK] in, the text out)."""
    tokens, merged = data["tokens"], data["merged"]
    n = len(tokens)
    stories = []
    if data["kind"] == "touching":
        stories.append(("touching-spans-split", t5_layout(tokens, data["spans"])))
    if sum(end - start for start, end in merged) > len(merged):
        stories.append(("one-sentinel-per-token", t5_layout(tokens, merged, per_token=True)))
    if merged[-1][1] < n:
        stories.append(("span-end-inclusive", t5_layout(tokens, [[start, end + 1] for start, end in merged])))
    inputs, targets = bart_infilling(tokens, merged)
    stories.append(("t5-as-bart", {"inputs": inputs, "targets": targets}))
    return stories


def _same(given: list[str], expected: list[str]) -> bool:
    return len(given) == len(expected) and all(same_token(a, b) for a, b in zip(given, expected, strict=True))


def sentinel_misconceptions(given: list[str], part: str = "targets") -> list[str]:
    """What the sentinels of an answer show on their own: numbered from 1, or (a target)
    none at all. The one rule for this exercise and the span figure's prediction (which
    asks for the start of the target)."""
    sentinels = [token for token in given if _is_sentinel(token)]
    if part == "targets" and not sentinels:
        return ["target-without-sentinels"]
    if sentinels and sentinels[0] == sentinel(1) and sentinel(0) not in sentinels:
        return ["sentinel-numbering-from-1"]
    return []


def _diagnose(part: str, given: list[str], data: dict) -> list[str]:
    for code, answer in _stories(data):
        if _same(given, answer[part]):
            return [code]
    tokens = data["tokens"]
    n_spans = len(data["merged"])
    sentinels_given = [token for token in given if _is_sentinel(token)]
    codes = []
    if len(sentinels_given) != len(set(sentinels_given)):
        codes.append("sentinel-reused")
    codes += sentinel_misconceptions(given, part)
    if data["kind"] == "touching" and len(sentinels_given) == len(data["spans"]) + (
        part == "targets" and data["closed"]
    ):
        codes.append("touching-spans-split")
    if part == "inputs":
        hidden = sum(end - start for start, end in data["merged"])
        hidden_tokens = [tokens[i] for start, end in data["merged"] for i in range(start, end)]
        kept = all(given.count(token) >= hidden_tokens.count(token) for token in set(hidden_tokens))
        if len(given) == len(tokens) and len(sentinels_given) == hidden > n_spans:
            codes.append("one-sentinel-per-token")
        elif kept and len(given) in (len(tokens), len(tokens) + n_spans):
            codes.append("span-kept-in-input")
        return codes
    expected = data["targets"]
    if "target-without-sentinels" in codes:
        return codes
    if not data["closed"] and given == [*expected, sentinel(n_spans)]:
        codes.append("target-extra-final-sentinel")
    elif data["closed"] and (given == expected[:-1] or stops_before_kept_text(given, True, n_spans)):
        codes.append("target-missing-final-sentinel")
    return codes


def stops_before_kept_text(given: list[str], closed: bool, n_spans: int) -> bool:
    """A whole target (before its </s>) that ends on a span's token although kept text
    follows the last span (``closed``): the closing sentinel left out. The rule of
    "target-missing-final-sentinel" for this exercise's target and for the span figure's
    prediction, when the learner ends it with </s>."""
    sentinels = [token for token in given if _is_sentinel(token)]
    return closed and bool(given) and len(sentinels) == n_spans and not _is_sentinel(given[-1])


def _length_note(part: str, given: int, expected: int):
    name = {"en": "input" if part == "inputs" else "target", "zh": "输入" if part == "inputs" else "目标序列"}
    return L(
        f"The {name['en']} should have {expected} tokens before </s>; you wrote {given}.",
        f"{name['zh']}在 </s> 之前应有 {expected} 个 token；你写了 {given} 个。",
    )


EXERCISES = (
    SpanCorruptionExercise(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Span corruption with sentinels", "带哨兵的片段破坏"),
        parts=(
            Part(
                "inputs",
                L("corrupted input", "破坏后的输入"),
                L("tokens and sentinels (a <extra_id_0> d)", "token 和哨兵（a <extra_id_0> d）"),
            ),
            Part(
                "targets",
                L("target", "目标序列"),
                L("tokens and sentinels separated by spaces", "用空格分隔的 token 和哨兵"),
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "A whole span, and two spans that touch, become a single sentinel in the input.",
                "整个片段（包括首尾相接的两段）在输入里只变成一个哨兵。",
            ),
            L(
                "The target lists each sentinel followed by the tokens it hid, in order.",
                "目标序列依次写出每个哨兵，后面跟着它遮住的 token。",
            ),
            L(
                "Does kept text follow the last span? Only then does the target end with one more sentinel.",
                "最后一个片段后面还有保留的文本吗？只有那样，目标序列才以再多一个哨兵结尾。",
            ),
        ),
    ),
)
