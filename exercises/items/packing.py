"""packing-windows: documents packed GPT-style into fixed-length windows. Write one
window's tokens and its causal-LM label row.

The packing is the engine's (``engine.packing``): every document followed by ``</s>``,
concatenated in the given order, cut into windows of L tokens, the tail shorter than L
dropped (Hugging Face's ``group_texts``); inside a window position t is trained to predict
the token at t + 1 of that window, across a document boundary too, and the window's last
position has no label. What the exercise targets: documents run across windows, the
separator is a token like any other, and the labels shift inside a packed window."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from engine.tokens import EOS, PAD
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import (
    HALF,
    ONE_BASED_CAP,
    ONE_BASED_CODE,
    LabelComparison,
    grade_label_map,
    grade_token_parts,
    read_tokens_certain,
    same_token,
)
from exercises.items.banks import language_note, rng_for
from exercises.text import L

ID = "packing-windows"
NO_SEPARATOR = "packing-no-separator"
ONE_PER_WINDOW = "packing-one-document-per-window"
BOUNDARY_DROPPED = "packing-boundary-label-dropped"
SKIPS_SEPARATOR = "packing-label-skips-separator"
CROSSES_WINDOW = "packing-label-crosses-window"
NOT_SHIFTED = "labels-not-shifted"

# Short documents, no token twice in a row (copying the input is then wrong everywhere).
EN_DOCUMENTS = (
    "the cat sat",
    "dogs bark at night",
    "birds sing",
    "rain fell all day",
    "we read books",
    "the train left early",
    "tea is hot",
    "she wrote a long letter",
    "stars shine",
    "my phone rang twice",
)
ZH_DOCUMENTS = (
    "猫在睡觉",
    "下雨了",
    "我们去公园",
    "鸟在唱歌",
    "他写了一封信",
    "茶很热",
    "星星亮了",
    "火车开走了",
)
LESSON_DOCUMENTS = ("the cat sat", "dogs bark at night", "birds sing")  # seed 0, the lesson's figure


def _split(document: str) -> list[str]:
    return document.split() if " " in document else list(document)


def _draw(seed: int) -> dict:
    """The documents (in packing order), the window length and which window is asked."""
    if seed == 0:
        return {"documents": list(LESSON_DOCUMENTS), "window": 6, "ask": 1}
    rng = rng_for(ID, seed)
    bank = EN_DOCUMENTS if rng.random() < 0.5 else ZH_DOCUMENTS
    while True:
        documents = rng.sample(bank, rng.randint(3, 4))
        window = rng.randint(4, 8)
        candidates = [w for w in range(_window_count(documents, window)) if _fair(documents, window, w)]
        if candidates:
            return {"documents": documents, "window": window, "ask": rng.choice(candidates)}


def _stream(documents: list[str]) -> list[tuple[str, int]]:
    """(token, document) along the packed stream, each document followed by </s> (torch-free,
    for the draw; the variant itself is the engine's)."""
    return [(token, d) for d, text in enumerate(documents) for token in (*_split(text), EOS)]


def _window_count(documents: list[str], window: int) -> int:
    return len(_stream(documents)) // window


def _fair(documents: list[str], window: int, ask: int) -> bool:
    """The asked window holds a separator before its last position (a label across a
    document boundary to write) and a document that crosses a window edge (it starts
    mid-document, or its last document runs on)."""
    stream = _stream(documents)
    cells = stream[ask * window : (ask + 1) * window]
    separator_inside = any(token == EOS for token, _ in cells[:-1])
    starts_inside = ask > 0 and stream[ask * window - 1][0] != EOS
    runs_on = cells[-1][0] != EOS and (ask + 1) * window < len(stream)
    return separator_inside and (starts_inside or runs_on)


@functools.lru_cache(maxsize=1024)
def _pack(documents: tuple[str, ...], window: int):
    from engine.packing import pack_documents  # the engine (torch) only where it computes

    return pack_documents([_split(d) for d in documents], window)


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    params = _draw(seed)
    documents, window, ask = params["documents"], params["window"], params["ask"]
    packed = _pack(tuple(documents), window)
    tokens = packed.windows[ask]
    labels = {str(i): label for i, label in enumerate(packed.labels[ask]) if label is not None}
    following = packed.windows[ask + 1][0] if ask + 1 < len(packed.windows) else None
    data = {
        **params,
        "tokens": tokens,
        "labels": labels,
        "windows": packed.windows,
        "document_of": packed.document_of[ask],
        "following": following,
        "vocabulary": sorted({t for d in documents for t in _split(d)} | {EOS}),
    }
    listing_en = "; ".join(f"({n}) {d}" for n, d in enumerate(documents))
    listing_zh = "；".join(f"（{n}）{d}" for n, d in enumerate(documents))
    prompt = L(
        f"GPT-style packing: each document is followed by {EOS}, the documents are concatenated in this order and "
        f"the stream is cut into windows of L = {window} tokens (a tail shorter than L is dropped, as Hugging "
        f"Face's group_texts does). Documents: {listing_en}.\n"
        f"1. The {window} tokens of window {ask} (windows and positions count from 0)?\n"
        f"2. The label row of window {ask}: the token each position is trained to predict, -100 where none?",
        f"GPT 式打包：每篇文档后面接一个 {EOS}，按这个顺序首尾相连，再切成每段 L = {window} 个 token 的窗口"
        f"（最后不足 L 的尾巴丢掉，和 Hugging Face 的 group_texts 一样）。文档：{listing_zh}。\n"
        f"1. 窗口 {ask} 的 {window} 个 token 是什么？（窗口和位置都从 0 开始数）\n"
        f"2. 窗口 {ask} 的标签行：每个位置学习预测的 token，没有就写 -100。",
    )
    prompt = language_note(prompt, [t for d in documents for t in _split(d)], typed=True)
    return Variant(ID, seed, data, prompt, question_key_of(params))


class Packing(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        data = variant.data
        return _fair(data["documents"], data["window"], data["ask"])

    def solve(self, variant: Variant) -> dict[str, str]:
        data = variant.data
        row = [data["labels"].get(str(i), "-100") for i in range(data["window"])]
        return {"window": " ".join(data["tokens"]), "labels": " ".join(row)}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        data = variant.data
        if part == "window":
            tokens, certain = read_tokens_certain(text, data["tokens"], data["vocabulary"])
            return Parsed(tokens, certain=certain)
        return Parsed(
            _label_row(text, data["window"]),
            L(
                f"A label row of {data['window']} entries with -100 where no label is (e.g. b c {EOS} -100), "
                "or position: token pairs (e.g. 0: b, 1: c).",
                f"一行 {data['window']} 项的标签，没有标签处写 -100（如 b c {EOS} -100），"
                "或“位置：token”（如 0: b, 1: c）。",
            ),
        )

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        results, codes = grade_token_parts(
            ("window",),
            parsed,
            {"window": data["tokens"]},
            lambda part, given: _window_story(given, data),
            _length_note,
        )
        if "window" in results and ONE_BASED_CODE in codes:
            results["window"] = PartResult(HALF, True, results["window"].feedback)
        if "labels" in parsed:
            result, found = _grade_labels(parsed["labels"].value, data)
            results["labels"] = result
            codes += found
        return results, codes


def _label_row(text: str, window: int) -> dict[int, str] | None:
    """The label row either way the lessons write it, or a row of exactly ``window`` tokens
    with no -100 at all: a learner who gives the last position the next window's first
    token (or copies the inputs) writes one, and that is a mistake to name, not unreadable."""
    found = parsing.labels(text, window)
    if found is not None:
        return found
    row = parsing.bare_tokens(text, count=window)
    return dict(enumerate(row)) if row is not None else None


def _same(given: list[str], expected: list[str]) -> bool:
    return len(given) == len(expected) and all(same_token(a, b) for a, b in zip(given, expected, strict=True))


def _window_story(given: list[str], data: dict) -> list[str]:
    """What a wrong window says about the packing the learner had in mind."""
    window, ask = data["window"], data["ask"]
    plain = [t for d in data["documents"] for t in _split(d)]  # no separators
    if _same(given, plain[ask * window : (ask + 1) * window]):
        return [NO_SEPARATOR]
    if ask > 0 and _same(given, data["windows"][ask - 1]):
        return [ONE_BASED_CODE]
    # One document per row: window k would be document k (with its </s>), padded or cut.
    if ask < len(data["documents"]):
        own = [*_split(data["documents"][ask]), EOS]
        real = [t for t in given if not same_token(t, PAD) and t not in ("-100", "-")]
        if real and _same(real, own[:window]):
            return [ONE_PER_WINDOW]
    return []


def _length_note(part: str, given: int, expected: int):
    return L(
        f"A window holds exactly {expected} tokens; you wrote {given}.",
        f"一个窗口正好 {expected} 个 token；你写了 {given} 个。",
    )


LABEL_RULE = L(
    "Each position predicts the next token of the same window, whichever document it belongs to.",
    "每个位置预测同一窗口里的下一个 token，不管它属于哪篇文档。",
)


def _grade_labels(given: dict[int, str], data: dict) -> tuple[PartResult, list[str]]:
    expected = {int(i): token for i, token in data["labels"].items()}
    tokens, window = data["tokens"], data["window"]
    separators = [i for i, token in enumerate(tokens) if token == EOS]
    boundary = {i for s in separators for i in (s - 1, s) if 0 <= i < window - 1}
    last = window - 1

    def diagnose(found: LabelComparison) -> list[str]:
        codes = []
        if found.wrong and all(same_token(given[i], tokens[i]) for i in found.wrong):
            codes.append(NOT_SHIFTED)
        if found.missing and set(found.missing) <= boundary:
            codes.append(BOUNDARY_DROPPED)
        skipped = [s - 1 for s in separators if s - 1 >= 0 and s + 1 < window and s - 1 in found.wrong]
        if any(same_token(given[i], tokens[i + 2]) for i in skipped):
            codes.append(SKIPS_SEPARATOR)
        if last in found.extra and data["following"] and same_token(given[last], data["following"]):
            codes.append(CROSSES_WINDOW)
        return codes

    return grade_label_map(given, expected, diagnose, LABEL_RULE)


RUBRIC = Rubric(
    full=L(
        "The window's tokens, separators included, and each position's label the next token of the window.",
        "窗口里的 token（分隔符也算）和每个位置的标签（窗口里的下一个 token）都对。",
    ),
    partial=(
        L("Each part counts half.", "两部分各占一半。"),
        L("Window: the share of positions right.", "窗口：按写对的位置比例给分。"),
        L(
            "Labels: right labels ÷ (labels expected + labels given where -100 belongs).",
            "标签：写对的标签 ÷（应有的标签数 + 多写的标签数）。",
        ),
    ),
    caps=(
        (NO_SEPARATOR, HALF),
        (ONE_PER_WINDOW, HALF),
        (NOT_SHIFTED, HALF),
        ONE_BASED_CAP,
    ),
)

EXERCISES = (
    Packing(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Packing documents into windows", "把文档打包成窗口"),
        parts=(
            Part(
                "window",
                L("window tokens", "窗口里的 token"),
                L("tokens separated by spaces", "用空格分隔的 token"),
            ),
            Part(
                "labels",
                L("label row", "标签行"),
                L(f"one entry per position, e.g. b c {EOS} -100", f"每个位置一项，如 b c {EOS} -100"),
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                f"Write the whole stream first, {EOS} after every document, then count off L tokens at a time.",
                f"先把整条流写出来，每篇文档后面都有 {EOS}，再每 L 个 token 数一段。",
            ),
            L(
                f"{EOS} is a token of the stream: it takes a position, and it is predicted like any other token.",
                f"{EOS} 是流里的一个 token：它占一个位置，也像别的 token 一样被预测。",
            ),
            L(
                "A window is one row of the batch: its last position has nothing after it in that row.",
                "一个窗口是批次里的一行：它的最后一个位置在这一行里后面没有 token 了。",
            ),
        ),
    ),
)
