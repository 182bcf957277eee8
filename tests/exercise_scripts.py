"""Scripted wrong answers: each stands for one misconception and must be
diagnosed with its code. A script returns None where the variant cannot show
that mistake (e.g. no 'random' fate to forget)."""

from __future__ import annotations

from collections.abc import Callable

from exercises.grading.model import Variant

Script = Callable[[Variant, dict[str, str]], dict[str, str] | None]


def _with(solution: dict[str, str], **changes: str) -> dict[str, str]:
    return {**solution, **changes}


def _positions_of(variant: Variant, fate: str) -> list[int]:
    return [i for i, f in zip(variant.data["selected"], variant.data["fates"], strict=True) if f == fate]


def _mlm_input_with(variant: Variant, fate: str, shown: Callable[[int], str]) -> dict[str, str] | None:
    positions = _positions_of(variant, fate)
    if not positions:
        return None
    inputs = list(variant.data["inputs"])
    for position in positions:
        inputs[position] = shown(position)
    return {"inputs": " ".join(inputs)}


def _loss_without(variant: Variant, fate: str) -> dict[str, str] | None:
    dropped = set(_positions_of(variant, fate))
    if not dropped:
        return None
    kept = [i for i in variant.data["loss_positions"] if i not in dropped]
    return {"loss_positions": ", ".join(map(str, kept)) or "none"}


def _mlm_labels(variant: Variant, label_of: Callable[[int, str], str]) -> str:
    return ", ".join(f"{i}: {label_of(int(i), token)}" for i, token in variant.data["labels"].items())


def _random_label(variant: Variant) -> dict[str, str] | None:
    if not _positions_of(variant, "random"):
        return None
    replacement = variant.data["replacement"]
    fates = dict(zip(variant.data["selected"], variant.data["fates"], strict=True))
    return {"labels": _mlm_labels(variant, lambda i, token: replacement if fates[i] == "random" else token)}


def _mlm_unselected(variant: Variant) -> dict[str, str] | None:
    others = [i for i in range(len(variant.data["tokens"])) if i not in variant.data["selected"]]
    return {"loss_positions": ", ".join(map(str, sorted([*variant.data["loss_positions"], others[0]])))}


MLM_ABCDE: list[tuple[str, Script]] = [
    ("random-shown-as-mask", lambda v, s: _mlm_input_with(v, "random", lambda i: "[MASK]")),
    ("random-not-applied", lambda v, s: _mlm_input_with(v, "random", lambda i: v.data["tokens"][i])),
    ("kept-shown-as-mask", lambda v, s: _mlm_input_with(v, "keep", lambda i: "[MASK]")),
    ("mask-not-applied", lambda v, s: _mlm_input_with(v, "mask", lambda i: v.data["tokens"][i])),
    ("loss-omits-random", lambda v, s: _loss_without(v, "random")),
    ("loss-omits-kept", lambda v, s: _loss_without(v, "keep")),
    ("loss-includes-unselected", lambda v, s: _mlm_unselected(v)),
    ("label-is-replacement", lambda v, s: _random_label(v)),
    (
        "label-is-mask",
        lambda v, s: (
            {"labels": _mlm_labels(v, lambda i, token: "[MASK]")} if _positions_of(v, "mask") else None
        ),
    ),
    (
        "one-based-positions",
        lambda v, s: {"loss_positions": ", ".join(str(i + 1) for i in v.data["loss_positions"])},
    ),
]


def _data_side(answer: Callable[[Variant], dict[str, str]]) -> Script:
    return lambda v, s: answer(v) if v.data["layout"] == "data" else None


def _loss_side(answer: Callable[[Variant], dict[str, str]]) -> Script:
    return lambda v, s: answer(v) if v.data["layout"] == "loss" else None


CLM_SHIFT: list[tuple[str, Script]] = [
    ("labels-not-shifted", _data_side(lambda v: {"labels": " ".join(v.data["tokens"][:-1])})),
    ("labels-not-shifted", _loss_side(lambda v: {"pairs": "t->t"})),
    ("shifted-wrong-way", _data_side(lambda v: {"inputs": " ".join(v.data["tokens"][1:])})),
    ("inputs-keep-last", _data_side(lambda v: {"inputs": " ".join(v.data["tokens"])})),
    ("loss-side-inputs-cut", _loss_side(lambda v: {"inputs": " ".join(v.data["tokens"][:-1])})),
    ("labels-shifted-twice", _loss_side(lambda v: {"labels": " ".join(v.data["tokens"][1:])})),
    ("labels-shifted-twice", _data_side(lambda v: {"pairs": "logits[:, :-1] vs labels[:, 1:]"})),
]


def _visible(kind: str, answer: Callable[[Variant], list[int]]) -> Script:
    def script(variant: Variant, solution: dict[str, str]) -> dict[str, str] | None:
        if variant.data["kind"] != kind:
            return None
        given = answer(variant)
        if set(given) == set(variant.data["visible"]):
            return None  # the mistake makes no difference on this variant
        return {"visible": ", ".join(map(str, given)) or "none"}

    return script


VISIBILITY: list[tuple[str, Script]] = [
    ("causal-excludes-self", _visible("causal", lambda v: list(range(v.data["query"])))),
    ("causal-sees-future", _visible("causal", lambda v: list(range(v.data["n"])))),
    ("bidirectional-as-causal", _visible("bidirectional", lambda v: list(range(v.data["query"] + 1)))),
    ("prefix-ignored", _visible("prefix", lambda v: list(range(v.data["query"] + 1)))),
    ("prefix-fully-bidirectional", _visible("prefix", lambda v: list(range(v.data["n"])))),
    ("one-based-positions", lambda v, s: {"visible": ", ".join(str(i + 1) for i in v.data["visible"])}),
    # The positions after i where those before i were asked: the query's column, not its row.
    ("visible-reversed", _visible("causal", lambda v: list(range(v.data["query"], v.data["n"])))),
]


def _matrix(rows: list[list[int]]) -> str:
    return "\n".join(" ".join(map(str, row)) for row in rows)


def _mask_script(kind: str | None, build: Callable[[Variant], list[list[int]]]) -> Script:
    def script(variant: Variant, solution: dict[str, str]) -> dict[str, str] | None:
        if kind is not None and variant.data["kind"] != kind:
            return None
        rows = build(variant)
        return None if rows == variant.data["mask"] else {"matrix": _matrix(rows)}

    return script


MASK_MATRIX: list[tuple[str, Script]] = [
    ("mask-transposed", _mask_script(None, lambda v: [list(r) for r in zip(*v.data["mask"], strict=True)])),
    ("mask-inverted", _mask_script(None, lambda v: [[1 - c for c in r] for r in v.data["mask"]])),
    (
        "mask-blocks-diagonal",
        _mask_script(
            "causal", lambda v: [[int(c >= r) for c in range(v.data["n"])] for r in range(v.data["n"])]
        ),
    ),
    (
        "prefix-ignored",
        _mask_script(
            "prefix", lambda v: [[int(c > r) for c in range(v.data["n"])] for r in range(v.data["n"])]
        ),
    ),
]


def _span_inputs_inclusive(variant: Variant) -> dict[str, str]:
    tokens, spans = variant.data["tokens"], variant.data["merged"]
    out: list[str] = []
    position = 0
    for index, (start, end) in enumerate(spans):
        out += [*tokens[position:start], f"<extra_id_{index}>"]
        position = end + 1
    return {"inputs": " ".join(out + tokens[position:])}


def _span_reused(variant: Variant) -> dict[str, str] | None:
    if len(variant.data["merged"]) < 2:
        return None
    return {"inputs": " ".join(t.replace("<extra_id_1>", "<extra_id_0>") for t in variant.data["inputs"])}


def _span_one_per_token(variant: Variant) -> dict[str, str] | None:
    if variant.data["kind"] == "touching" and all(end - start == 1 for start, end in variant.data["spans"]):
        return None  # one token per touching piece: the same answer as the pieces split, that variant's story
    tokens = list(variant.data["tokens"])
    counter = 0
    for start, end in variant.data["merged"]:
        for position in range(start, end):
            tokens[position] = f"<extra_id_{counter}>"
            counter += 1
    return {"inputs": " ".join(tokens)}


def _span_touching_split(variant: Variant) -> dict[str, str] | None:
    """Each touching piece given its own sentinel, as if the pieces were separate spans."""
    if variant.data["kind"] != "touching":
        return None
    tokens = variant.data["tokens"]
    out: list[str] = []
    position = 0
    for index, (start, end) in enumerate(variant.data["spans"]):
        out += [*tokens[position:start], f"<extra_id_{index}>"]
        position = end
    return {"inputs": " ".join(out + tokens[position:])}


def _renumbered(tokens: list[str]) -> str:
    import re

    return " ".join(
        re.sub(r"<extra_id_(\d+)>", lambda m: f"<extra_id_{int(m.group(1)) + 1}>", t) for t in tokens
    )


SPAN: list[tuple[str, Script]] = [
    (
        "target-missing-final-sentinel",
        lambda v, s: {"targets": " ".join(v.data["targets"][:-1])} if v.data["closed"] else None,
    ),
    (
        "target-extra-final-sentinel",
        lambda v, s: (
            None
            if v.data["closed"]
            else {"targets": " ".join([*v.data["targets"], f"<extra_id_{len(v.data['merged'])}>"])}
        ),
    ),
    ("touching-spans-split", lambda v, s: _span_touching_split(v)),
    (
        "target-without-sentinels",
        lambda v, s: {"targets": " ".join(t for t in v.data["targets"] if not t.startswith("<"))},
    ),
    (
        "span-end-inclusive",
        lambda v, s: _span_inputs_inclusive(v) if v.data["merged"][-1][1] < len(v.data["tokens"]) else None,
    ),
    ("span-kept-in-input", lambda v, s: {"inputs": " ".join(v.data["tokens"])}),
    ("sentinel-reused", lambda v, s: _span_reused(v)),
    ("sentinel-numbering-from-1", lambda v, s: {"targets": _renumbered(v.data["targets"])}),
    (
        "one-sentinel-per-token",
        lambda v, s: (
            _span_one_per_token(v)
            if sum(e - b for b, e in v.data["merged"]) > len(v.data["merged"])
            else None
        ),
    ),
]


def _eligible_with(variant: Variant, extra: set[str]) -> dict[str, str] | None:
    added = [i for i, token in enumerate(variant.data["tokens"]) if token in extra]
    if not added:
        return None
    return {"positions": ", ".join(map(str, sorted({*variant.data["eligible"], *added})))}


ELIGIBLE: list[tuple[str, Script]] = [
    ("specials-selected", lambda v, s: _eligible_with(v, {"[CLS]", "[SEP]"})),
    ("padding-selected", lambda v, s: _eligible_with(v, {"[PAD]"})),
    ("one-based-positions", lambda v, s: {"positions": ", ".join(str(i + 1) for i in v.data["eligible"])}),
]


def _counts(variant: Variant, part: str, value: float) -> dict[str, str]:
    return {part: f"{value:g}"}


EXPECTED_COUNTS: list[tuple[str, Script]] = [
    (
        "forgot-batch",
        lambda v, s: (
            _counts(v, "selected", v.data["counts"]["selected"] / v.data["batch"])
            if v.data["batch"] > 1
            else None
        ),
    ),
    ("p-as-percent", lambda v, s: _counts(v, "selected", v.data["counts"]["selected"] * 100)),
    ("split-of-all-tokens", lambda v, s: _counts(v, "mask", v.data["batch"] * v.data["length"] * 0.8)),
]

LOSS_SANITY: list[tuple[str, Script]] = [
    ("log-base-10", lambda v, s: {"baseline": f"{__import__('math').log10(v.data['vocab']):.2f}"}),
    ("log-base-2", lambda v, s: {"baseline": f"{__import__('math').log2(v.data['vocab']):.2f}"}),
    ("baseline-is-probability", lambda v, s: {"baseline": f"1/{v.data['vocab']}"}),
    (
        "scaling-bug-missed",
        lambda v, s: {"verdict": "A"} if v.data["verdict"] == "scaling-bug" else None,
    ),
    ("false-alarm", lambda v, s: {"verdict": "B"} if v.data["verdict"] == "normal" else None),
]

# issue 24: packing documents into windows


def _packing_row(variant: Variant, label_at) -> dict[str, str] | None:
    """The right label row with some positions changed by ``label_at(i, right)`` (None: leave)."""
    data = variant.data
    row = [data["labels"].get(str(i), "-100") for i in range(data["window"])]
    changed = [label_at(i, token) for i, token in enumerate(row)]
    if all(new is None for new in changed):
        return None
    return {
        "labels": " ".join(token if new is None else new for token, new in zip(row, changed, strict=True))
    }


def _packing_without_separator(variant: Variant) -> dict[str, str]:
    data = variant.data
    plain = [t for d in data["documents"] for t in (d.split() if " " in d else list(d))]
    window, ask = data["window"], data["ask"]
    return {"window": " ".join(plain[ask * window : (ask + 1) * window])}


def _packing_one_per_window(variant: Variant) -> dict[str, str] | None:
    data = variant.data
    if data["ask"] >= len(data["documents"]):
        return None
    document = data["documents"][data["ask"]]
    own = [*(document.split() if " " in document else list(document)), "</s>"][: data["window"]]
    answer = " ".join(own + ["[PAD]"] * (data["window"] - len(own)))
    if own == data["tokens"] or answer == _packing_without_separator(variant)["window"]:
        return None  # the same answer tells another story
    return {"window": answer}


def _separator_positions(variant: Variant) -> list[int]:
    return [i for i, token in enumerate(variant.data["tokens"]) if token == "</s>"]


def _packing_boundary_dropped(variant: Variant):
    last = variant.data["window"] - 1
    separators = [s for s in _separator_positions(variant) if s < last]
    return _packing_row(variant, lambda i, token: "-100" if i in separators else None)


def _packing_skips_separator(variant: Variant):
    tokens, last = variant.data["tokens"], variant.data["window"] - 1
    before = {s - 1: tokens[s + 1] for s in _separator_positions(variant) if s >= 1 and s + 1 <= last}
    return _packing_row(variant, lambda i, token: before.get(i))


def _packing_crosses_window(variant: Variant):
    following, last = variant.data["following"], variant.data["window"] - 1
    if following is None:
        return None
    return _packing_row(variant, lambda i, token: following if i == last else None)


def _packing_copies(variant: Variant):
    tokens, last = variant.data["tokens"], variant.data["window"] - 1
    return _packing_row(variant, lambda i, token: tokens[i] if i < last else None)


PACKING: list[tuple[str, Script]] = [
    ("packing-no-separator", lambda v, s: _packing_without_separator(v)),
    ("packing-one-document-per-window", lambda v, s: _packing_one_per_window(v)),
    ("packing-boundary-label-dropped", lambda v, s: _packing_boundary_dropped(v)),
    ("packing-label-skips-separator", lambda v, s: _packing_skips_separator(v)),
    ("packing-label-crosses-window", lambda v, s: _packing_crosses_window(v)),
    ("labels-not-shifted", lambda v, s: _packing_copies(v)),
]


# issue 24: whole-word masking


def _wwm_named_only(variant: Variant) -> dict[str, str]:
    named = variant.data["named"]
    return {
        "positions": ", ".join(map(str, named)),
        "labels": ", ".join(f"{i}: {variant.data['tokens'][i]}" for i in named),
    }


def _wwm_whole_word_labels(variant: Variant) -> dict[str, str]:
    tokens, words = variant.data["tokens"], variant.data["words"]

    def word(i: int) -> str:
        return "".join(t.removeprefix("##") for j, t in enumerate(tokens) if words[j] == words[i])

    return {"labels": ", ".join(f"{i}: {word(i)}" for i in variant.data["selected"])}


def _wwm_with_cls(variant: Variant) -> dict[str, str]:
    return {"positions": ", ".join(map(str, [0, *variant.data["selected"]]))}


WHOLE_WORD: list[tuple[str, Script]] = [
    ("wwm-piece-only", lambda v, s: _wwm_named_only(v)),
    ("wwm-label-whole-word", lambda v, s: _wwm_whole_word_labels(v)),
    ("specials-selected", lambda v, s: _wwm_with_cls(v)),
]


def _only(objective: str, answer: Callable[[Variant], dict[str, str]]) -> Script:
    return lambda v, s: answer(v) if v.data["objective"] == objective else None


WHICH_OBJECTIVE: list[tuple[str, Script]] = [
    ("prefix-lm-is-causal", _only("prefix", lambda v: {"objective": "causal LM"})),
    ("span-for-single-tokens", _only("span", lambda v: {"objective": "masked LM"})),
    ("names-without-labels", _only("clm", lambda v: {"objective": "prefix LM"})),
    ("mlm-signal-every-token", _only("mlm", lambda v: {"trained": str(len(v.data["inputs"]))})),
    ("teacher-forcing-one-position", _only("clm", lambda v: {"trained": "1"})),
    ("prefix-loss-everywhere", _only("prefix", lambda v: {"trained": str(len(v.data["inputs"]))})),
    ("prefix-loss-starts-late", _only("prefix", lambda v: {"trained": str(v.data["trained"] - 1)})),
]


SCRIPTS: dict[str, list[tuple[str, Script]]] = {
    "which-objective": WHICH_OBJECTIVE,
    "mlm-abcde": MLM_ABCDE,
    "clm-shift": CLM_SHIFT,
    "visibility": VISIBILITY,
    "mask-matrix": MASK_MATRIX,
    "span-corruption": SPAN,
    "mlm-eligible": ELIGIBLE,
    "expected-counts": EXPECTED_COUNTS,
    "loss-sanity": LOSS_SANITY,
    "packing-windows": PACKING,
    "whole-word-masking": WHOLE_WORD,
}
