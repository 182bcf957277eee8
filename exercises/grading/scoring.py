"""Small scoring rules shared by the exercises."""

from __future__ import annotations

from collections.abc import Sequence

from exercises.grading.model import PartResult
from exercises.grading.parsing import normalise_token
from exercises.text import L

ONE_BASED_CODE = "one-based-positions"


def right() -> PartResult:
    return PartResult(1.0, True, L("Right.", "正确。"))


def counted_from_one() -> tuple[PartResult, list[str]]:
    """Half credit and the code: the idea was right, the counting convention not."""
    note = L("Counted from 1: positions count from 0 here.", "你是从 1 开始数的：这里位置从 0 开始计数。")
    return PartResult(0.5, True, note), [ONE_BASED_CODE]


def jaccard(given: set[int], expected: set[int]) -> float:
    """Overlap of two position sets: 1 only when they are equal."""
    if not given and not expected:
        return 1.0
    return len(given & expected) / len(given | expected)


def sequence_score(given: Sequence[str], expected: Sequence[str]) -> float:
    """Fraction of positions that match; a wrong length costs the missing or extra ones."""
    if not expected and not given:
        return 1.0
    matches = sum(1 for a, b in zip(given, expected, strict=False) if same_token(a, b))
    return matches / max(len(given), len(expected))


def same_token(given: str, expected: str) -> bool:
    return normalise_token(given) == normalise_token(expected)


def best_candidate(candidates: Sequence[Sequence[str]], expected: Sequence[str]) -> list[str]:
    """The reading of an answer that fits the expected tokens best."""
    return list(max(candidates, key=lambda candidate: sequence_score(candidate, expected)))


def read_tokens(text: str, expected: Sequence[str], vocabulary: Sequence[str]) -> list[str] | None:
    """A token-sequence answer, or None when nothing in it resembles the
    exercise's tokens (then it is unreadable, not wrong)."""
    from exercises.grading.parsing import token_list_candidates

    candidates = token_list_candidates(text)
    if not candidates:
        return None
    best = best_candidate(candidates, expected)
    known = {normalise_token(token) for token in (*expected, *vocabulary)}
    if not any(normalise_token(token) in known for token in best):
        return None
    return best


def mismatches(given: Sequence[str], expected: Sequence[str]) -> list[int]:
    length = max(len(given), len(expected))
    return [
        index
        for index in range(length)
        if index >= len(given) or index >= len(expected) or not same_token(given[index], expected[index])
    ]


def close_enough(value: float, expected: float, relative: float = 0.01, absolute: float = 0.011) -> bool:
    return abs(value - expected) <= max(absolute, relative * abs(expected))
