"""Small scoring rules shared by the exercises."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.tokens import MASK  # torch-free
from exercises.grading.marks import full_marks
from exercises.grading.model import Parsed, PartResult
from exercises.grading.parsing import (
    by_separators,
    decimals_written,
    list_candidates,
    list_text,
    normalise_token,
)
from exercises.text import Bilingual, L, listing

ONE_BASED_CODE = "one-based-positions"
HALF = 0.5
ONE_BASED_CAP = (ONE_BASED_CODE, HALF)  # counting from 1: the same flat half credit in every exercise


def right() -> PartResult:
    return PartResult(1.0, True, L("Right.", "正确。"))


def counted_from_one() -> tuple[PartResult, list[str]]:
    """Half credit and the code: the idea was right, the counting convention not.
    (The exercise's rubric caps the whole answer at the same half.)"""
    note = L("Counted from 1: positions count from 0 here.", "你是从 1 开始数的：这里位置从 0 开始计数。")
    return PartResult(HALF, True, note), [ONE_BASED_CODE]


def is_one_based(given: set[int], expected: set[int]) -> bool:
    """The expected positions, each written one higher (and not also right as written)."""
    return bool(expected) and given != expected and given == {i + 1 for i in expected}


MAX_LISTED = 12  # wrong positions named one by one; the count covers them all


def wrong_positions(wrong: Sequence[int], total: int) -> Bilingual:
    """Which positions are wrong, without what belongs there: feedback that
    points at the mistake and leaves the correcting to the learner."""
    more = len(wrong) > MAX_LISTED
    named = listing(wrong[:MAX_LISTED]) + (", …" if more else "")
    named_zh = listing(wrong[:MAX_LISTED], "zh") + ("……" if more else "")
    return L(
        f"Not right at position(s) {named} ({len(wrong)} of {total}).",
        f"位置 {named_zh} 不对（共 {total} 个位置，错了 {len(wrong)} 个）。",
    )


def with_rule(note: Bilingual, rule: Bilingual | None) -> Bilingual:
    """A note on what is wrong, followed by the rule that puts it right."""
    if rule is None:
        return note
    return L(f"{note['en']} {rule['en']}", f"{note['zh']}{rule['zh']}")


# ---------------------------------------------------------------- token sequences

Diagnose = Callable[[str, list[str]], list[str]]  # (part, tokens given) -> diagnosis codes
LengthNote = Callable[[str, int, int], Bilingual]  # (part, tokens given, tokens expected) -> the note


def grade_token_parts(
    names: Sequence[str],
    parsed: Mapping[str, Parsed],
    expected: Mapping[str, Sequence[str]],
    diagnose: Diagnose,
    length_note: LengthNote,
) -> tuple[dict[str, PartResult], list[str]]:
    """The grading every token-sequence part shares (span, BART, CLM, MLM and
    prefix-LM inputs): the share of positions right; a diagnosis only where the
    answer was read one way (a misreading never names a misconception); the
    feedback names the wrong positions, or the wrong length, never the answer."""
    results: dict[str, PartResult] = {}
    codes: list[str] = []
    for name in names:
        if name not in parsed:
            continue
        given, want = parsed[name].value, expected[name]
        score = sequence_score(given, want)
        if full_marks(score):
            results[name] = right()
            continue
        if parsed[name].certain:
            codes += diagnose(name, given)
        note = (
            length_note(name, len(given), len(want))
            if len(given) != len(want)
            else wrong_positions(mismatches(given, want), len(want))
        )
        results[name] = PartResult(score, True, note)
    return results, codes


# ---------------------------------------------------------------- sets of positions


def grade_position_set(
    given: set[int],
    expected: set[int],
    diagnose: Callable[[set[int]], list[str]],
    rule: Bilingual | None = None,
    counted: bool = True,
) -> tuple[PartResult, list[str]]:
    """A set of positions: right, counted from 1 (the flat half and that story
    only), or the overlap with what the exercise's own ``diagnose`` names. ``counted``:
    the learner wrote numbers; positions named by their tokens ("B 和 E") were not
    counted at all, so they cannot have been counted from 1."""
    if given == expected:
        return right(), []
    if counted and is_one_based(given, expected):
        return counted_from_one()
    note = with_rule(set_difference_note(given, expected), rule)
    return PartResult(jaccard(given, expected), True, note), diagnose(given)


# ---------------------------------------------------------------- labels at positions


@dataclass(frozen=True)
class LabelComparison:
    """Labels given (position -> token) against the expected ones."""

    wrong: list[int]  # positions with a label, not the right one
    missing: list[int]  # positions that need a label and have none
    extra: list[int]  # positions given a label where none belongs (-100)
    matched: int  # positions with the right label

    @property
    def score(self) -> float:
        """Right labels ÷ (labels expected + labels given where none belongs)."""
        counted = self.matched + len(self.wrong) + len(self.missing) + len(self.extra)
        return self.matched / counted if counted else 1.0


def compare_labels(given: Mapping[int, str], expected: Mapping[int, str]) -> LabelComparison:
    wrong = [i for i in expected if i in given and not same_token(given[i], expected[i])]
    missing = sorted(set(expected) - set(given))
    extra = sorted(set(given) - set(expected))
    return LabelComparison(wrong, missing, extra, matched=len(expected) - len(wrong) - len(missing))


def labels_counted_from_one(given: Mapping[int, str], expected: Mapping[int, str]) -> bool:
    """Every label right but written one position late (counting from 1)."""
    shifted = {i - 1: token for i, token in given.items()}
    return (
        set(given) != set(expected)
        and set(shifted) == set(expected)
        and all(same_token(shifted[i], expected[i]) for i in expected)
    )


def grade_label_map(
    given: Mapping[int, str],
    expected: Mapping[int, str],
    diagnose: Callable[[LabelComparison], list[str]],
    rule: Bilingual | None = None,
    one_place_late: Callable[[], tuple[PartResult, list[str]]] = counted_from_one,
) -> tuple[PartResult, list[str]]:
    """Labels at positions (mlm-abcde, prefix-lm-labels): every label one place late is
    ``one_place_late`` (counting from 1 unless the exercise knows better); otherwise the
    share right, what is wrong, missing or extra, and the exercise's own ``diagnose``."""
    if _same_plain(given, expected):  # every label as written: nothing wrong, missing or extra
        found = LabelComparison([], [], [], matched=len(expected))
        return label_result(found, rule), diagnose(found)
    if labels_counted_from_one(given, expected):
        return one_place_late()
    found = compare_labels(given, expected)
    return label_result(found, rule), diagnose(found)


def label_result(found: LabelComparison, rule: Bilingual | None = None) -> PartResult:
    """Full marks, or which labels are wrong, missing or extra (never what they should be)."""
    if full_marks(found.score):
        return right()
    notes_en, notes_zh = [], []
    if found.wrong:
        notes_en.append(f"the label at {listing(found.wrong)} is not right")
        notes_zh.append(f"位置 {listing(found.wrong, 'zh')} 的标签不对")
    if found.missing:
        notes_en.append(f"{len(found.missing)} loss position(s) have no label")
        notes_zh.append(f"有 {len(found.missing)} 个参与损失的位置没给标签")
    if found.extra:
        notes_en.append(f"{listing(found.extra)} should have no label (-100)")
        notes_zh.append(f"位置 {listing(found.extra, 'zh')} 不该有标签（-100）")
    note = L("; ".join(notes_en).capitalize() + ".", "；".join(notes_zh) + "。")
    return PartResult(found.score, True, with_rule(note, rule))


def set_difference_note(given: set[int], expected: set[int]) -> Bilingual:
    """How a set of positions differs from the right one (how many missing, which
    extra), never the right set itself."""
    extra = sorted(given - expected)
    missing = len(expected - given)
    parts_en, parts_zh = [], []
    if extra:
        parts_en.append(f"{listing(extra)} should not be there")
        parts_zh.append(f"位置 {listing(extra, 'zh')} 不该在里面")
    if missing:
        parts_en.append(f"{missing} position(s) are missing")
        parts_zh.append(f"还少了 {missing} 个位置")
    return L("; ".join(parts_en).capitalize() + ".", "；".join(parts_zh) + "。")


def jaccard(given: set[int], expected: set[int]) -> float:
    """Overlap of two position sets: 1 only when they are equal."""
    if not given and not expected:
        return 1.0
    return len(given & expected) / len(given | expected)


def sequence_score(given: Sequence[str], expected: Sequence[str]) -> float:
    """Fraction of positions that match; a wrong length costs the missing or extra ones."""
    if not expected and not given:
        return 1.0
    if _same_plain(given, expected):  # the same tokens as written: every position matches
        return 1.0
    return _score_keys(_keys(given), _keys(expected))


def _score_keys(given: Sequence[str], expected: Sequence[str]) -> float:
    """``sequence_score`` on tokens already turned into their ``token_key``."""
    if not expected and not given:
        return 1.0
    matches = 0
    for a, b in zip(given, expected, strict=False):
        if a == b:
            matches += 1
    return matches / max(len(given), len(expected))


def _same_plain(given: object, expected: object) -> bool:
    """Equal lists of plain strings, or equal dicts with plain-string values: what
    ``same_token`` would find equal everywhere, seen at once."""
    if type(given) is list and type(expected) is list:
        values, others = given, expected
    elif type(given) is dict and type(expected) is dict:
        values, others = given.values(), expected.values()
    else:
        return False
    return (
        given == expected
        and all(type(value) is str for value in values)
        and all(type(value) is str for value in others)
    )


def token_key(token: str) -> str:
    """What ``same_token`` compares: the normalised token, casefolded."""
    return normalise_token(token).casefold()


def _keys(tokens: Sequence[str]) -> list[str]:
    return [token_key(token) for token in tokens]


def same_token(given: str, expected: str) -> bool:
    """Equal as written by a learner: full-width forms, special-token spellings and case
    ("Transformer" at the start of a sentence, "a b c" for "A B C") do not matter here:
    the exercises ask where tokens go, not how they are spelt."""
    if given == expected and type(given) is str and type(expected) is str:
        return True  # the same text normalises the same way
    return token_key(given) == token_key(expected)


def best_candidate(candidates: Sequence[Sequence[str]], expected: Sequence[str]) -> list[str]:
    """The reading of an answer that fits the expected tokens best."""
    return list(max(candidates, key=lambda candidate: sequence_score(candidate, expected)))


def read_tokens(text: str, expected: Sequence[str], vocabulary: Sequence[str]) -> list[str] | None:
    """A token-sequence answer, or None when nothing in it resembles the
    exercise's tokens (then it is unreadable, not wrong)."""
    return read_tokens_certain(text, expected, vocabulary)[0]


_BARE_MASKS = frozenset({"mask", "MASK", "Mask"})


def read_tokens_certain(
    text: str, expected: Sequence[str], vocabulary: Sequence[str]
) -> tuple[list[str] | None, bool]:
    """The best reading of a token-sequence answer, and whether it is the only
    reading that fits that well (a diagnosis needs a certain reading).

    "MASK" and "mask" written bare stand for [MASK] unless the exercise's own
    text has such a word."""
    return _read_tokens_certain(text, tuple(expected), tuple(vocabulary))


def _read_tokens_certain(
    text: str, expected: Sequence[str], vocabulary: Sequence[str]
) -> tuple[list[str] | None, bool]:
    expected_keys, known = _reference_keys(expected, vocabulary)
    bare_mask_is_special = not (_BARE_MASKS & known)
    cleaned = list_text(text)
    if not cleaned:
        return None, False
    written = by_separators(cleaned)
    if len(written) == len(expected_keys) and written:
        # The first reading fits exactly: it is the best, and no other reading can tie with it.
        first = (
            [MASK if token.lower() == "mask" else token for token in written]
            if bare_mask_is_special
            else written
        )
        if _keys(first) == list(expected_keys):
            return first, True
    candidates = list_candidates(cleaned, written)
    if not candidates:
        return None, False
    if bare_mask_is_special:
        candidates = [
            [MASK if token.lower() == "mask" else token for token in candidate] for candidate in candidates
        ]
    keys = [_keys(candidate) for candidate in candidates]
    scores = [_score_keys(candidate, expected_keys) for candidate in keys]
    top = max(scores)
    best_index = scores.index(top)  # the first reading that fits best, as ``best_candidate`` picks
    best, best_keys = candidates[best_index], keys[best_index]
    if not any(key in known for key in best_keys):
        return None, False
    rivals = [
        candidate
        for candidate, candidate_keys, score in zip(candidates, keys, scores, strict=True)
        if score == top and candidate_keys != best_keys
    ]
    return best, not rivals


def _reference_keys(
    expected: Sequence[str], vocabulary: Sequence[str]
) -> tuple[tuple[str, ...], frozenset[str]]:
    """The expected tokens' keys, and every key the exercise's own text has."""
    expected_keys = tuple(_keys(expected))
    return expected_keys, frozenset((*expected_keys, *_keys(vocabulary)))


def mismatches(given: Sequence[str], expected: Sequence[str]) -> list[int]:
    length = max(len(given), len(expected))
    return [
        index
        for index in range(length)
        if index >= len(given) or index >= len(expected) or not same_token(given[index], expected[index])
    ]


def close_enough(value: float, expected: float, relative: float = 0.01, absolute: float = 0.011) -> bool:
    return abs(value - expected) <= max(absolute, relative * abs(expected))


def misconception_near(
    value: float, wrong: Iterable[tuple[str, float]], relative: float = 0.01, absolute: float = 0.011
) -> list[str]:
    """The code of the first misconception whose number ``value`` is close to, in ``wrong``'s
    order ((code, the number it gives) pairs), as a list: empty when none is."""
    return next(([code] for code, number in wrong if close_enough(value, number, relative, absolute)), [])


# ---------------------------------------------------------------- precision


def precision_slip(text: str, value: float, expected: float, asked: int) -> bool:
    """Is ``value`` right to the decimals the learner wrote (rounded or cut), fewer than the
    ``asked`` ones? Then the answer is told the precision, never a misconception: "8.5" for
    ln 5000 = 8.517 is not a wrong idea (issue 23, 6)."""
    written = decimals_written(text)
    if written is None or written >= asked:
        return False
    scale = 10**written
    return any(
        abs(value - near) < 1e-9 for near in (round(expected, written), math.trunc(expected * scale) / scale)
    )


_DECIMALS_ZH = {1: "一", 2: "两", 3: "三"}


def fewer_decimals(asked: int) -> PartResult:
    """Half credit for a number right to fewer decimals than asked, and the precision wanted."""
    return PartResult(
        HALF,
        True,
        L(
            f"Right as far as it goes: {asked} decimals, please.",
            f"就你写的位数而言是对的：请保留{_DECIMALS_ZH.get(asked, asked)}位小数。",
        ),
    )
