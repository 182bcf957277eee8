"""Tolerant readers for learners' answers. None of them ever raises: what they
cannot read comes back as ``None`` and the grader calls the part invalid.

Tolerated everywhere: full-width punctuation and digits (，【】：（）１２), quotes,
brackets, case in special tokens ([mask]), Chinese connectives ("位置 1 和 4").
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from fractions import Fraction

from engine.tokens import split_text

MAX_ANSWER_CHARS = 20_000  # a pasted novel is not an answer; read only its start

_BRACKETS = str.maketrans(
    {
        "【": "[",
        "】": "]",
        "〔": "[",
        "〕": "]",
        "［": "[",
        "］": "]",
        "〈": "<",
        "〉": ">",
        "《": "<",
        "》": ">",
        "＜": "<",
        "＞": ">",
        "、": ",",
        "；": ";",
        "　": " ",
        "“": " ",
        "”": " ",
        "‘": " ",
        "’": " ",
        "「": " ",
        "」": " ",
        "『": " ",
        "』": " ",
        '"': " ",
        "'": " ",
        "`": " ",
    }
)
_SPECIAL = re.compile(r"\[\s*(mask|cls|sep|pad|unk)\s*\]", re.IGNORECASE)
_SENTINEL = re.compile(r"<\s*extra[_\s-]*id[_\s-]*(\d{1,6})\s*>|\bextra_id_(\d{1,6})\b", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\ufeff]")


def clean(text: str) -> str:
    """Unify an answer's characters: NFKC (full-width to ASCII), brackets,
    quotes, invisible characters, and the spelling of special tokens."""
    if not isinstance(text, str):
        return ""
    text = _CONTROL.sub(" ", text[:MAX_ANSWER_CHARS])
    text = text.translate(_BRACKETS)
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_BRACKETS)
    text = _SPECIAL.sub(lambda m: f" [{m.group(1).upper()}] ", text)
    text = _SENTINEL.sub(lambda m: f" <extra_id_{int(m.group(1) or m.group(2))}> ", text)
    return text.strip()


def normalise_token(token: str) -> str:
    """How a reference token compares with a learner's (NFKC, special spellings)."""
    cleaned = clean(token)
    return cleaned if cleaned else token


def _strip_list_brackets(text: str) -> str:
    """Drop brackets around a whole list ("[A, B]", "(A B)") but not the
    brackets of special tokens ("[MASK] B [SEP]")."""
    hidden = _SPECIAL.sub(lambda m: "\x00" + m.group(1).upper() + "\x00", text.strip())
    while len(hidden) >= 2 and hidden[0] in "[({" and hidden[-1] in "])}":
        hidden = hidden[1:-1].strip()
    return re.sub("\x00([A-Z]+)\x00", r"[\1]", hidden)


def token_list_candidates(text: str) -> list[list[str]]:
    """Ways a token sequence may have been written; the grader keeps the best fit.

    "A [MASK] C", "A, [MASK], C", "['A', '[MASK]', 'C']" and "今天[MASK]气" all read.
    Commas and the Chinese "，" may be separators or tokens, so both readings are offered.
    """
    cleaned = _strip_list_brackets(clean(text))
    if not cleaned:
        return []
    candidates: list[list[str]] = []
    by_separators = [piece for piece in re.split(r"[\s,;|]+", cleaned) if piece]
    candidates.append(by_separators)
    by_space = split_text(cleaned)
    if by_space != by_separators:
        candidates.append(by_space)
    per_char = [token for piece in by_separators for token in split_text(piece)]
    if per_char not in candidates:
        candidates.append(per_char)
    return [candidate for candidate in candidates if candidate]


_NUMBER = re.compile(r"(?<!\d)-?\d{1,9}(?!\d)")  # longer digit runs are not positions


def integers(text: str) -> list[int] | None:
    """Every whole number in the text ("位置 1 和 4" -> [1, 4]); None if none."""
    found = [int(match) for match in _NUMBER.findall(clean(text))[:10_000]]
    return found or None


def positions(text: str, tokens: Sequence[str] | None = None) -> list[int] | None:
    """Positions written as numbers, or as tokens where each names one position.

    A learner may answer "B, E" for positions 1 and 4 when B and E occur once.
    """
    numbers = integers(text)
    if numbers is not None:
        return sorted(set(numbers))
    if not tokens:
        return None
    normalised = [normalise_token(token) for token in tokens]
    found: list[int] = []
    for candidate in token_list_candidates(text):
        picked = []
        for word in candidate:
            if normalised.count(word) != 1:
                break
            picked.append(normalised.index(word))
        else:
            found = sorted(set(picked))
            break
    return found or None


_PAIR = re.compile(r"(?<!\d)(-?\d{1,9})\s*(?::|=|->|→|=>|—>|-|：)\s*([^\s,;]+(?:\s*\])?)")


def mapping(text: str) -> dict[int, str] | None:
    """Position -> token pairs: "1: B, 4: E", "1→B 4→E", "{1: 'B', 4: 'E'}"."""
    cleaned = clean(text).replace("{", " ").replace("}", " ")
    cleaned = re.sub(r"\[\s*([A-Z]+)\s*\]", r"[\1]", cleaned)
    pairs = _PAIR.findall(cleaned)
    if not pairs:
        return None
    result: dict[int, str] = {}
    for key, value in pairs:
        value = value.strip().strip(",;")
        if value:
            result[int(key)] = value
    return result or None


def bare_tokens(text: str) -> list[str] | None:
    """Labels written without positions ("B, E")."""
    candidates = token_list_candidates(text)
    return candidates[0] if candidates else None


_CELL_WORDS = {"1": 1, "0": 0, "t": 1, "f": 0, "true": 1, "false": 0, "x": 1, ".": 0, "■": 1, "□": 0}


def matrix(text: str, n: int) -> list[list[int]] | None:
    """An n×n 0/1 matrix: rows on lines or separated by ; or /, cells by spaces,
    commas, or nothing ("0111"). True/False, T/F and x/. also read."""
    cleaned = clean(text).replace("[", " ").replace("]", " ")
    rows_text = [row for row in re.split(r"[\n;/|]+", cleaned) if row.strip()]
    if len(rows_text) == 1 and n > 1:
        cells = _cells(rows_text[0])
        if cells is not None and len(cells) == n * n:
            return [cells[i * n : (i + 1) * n] for i in range(n)]
        return None
    rows = [_cells(row) for row in rows_text]
    if len(rows) != n or any(row is None or len(row) != n for row in rows):
        return None
    return rows  # type: ignore[return-value]


def _cells(row: str) -> list[int] | None:
    words = [word for word in re.split(r"[\s,]+", row.strip().lower()) if word]
    if len(words) == 1 and re.fullmatch(r"[01]+", words[0]):
        return [int(char) for char in words[0]]
    cells = []
    for word in words:
        if word not in _CELL_WORDS:
            return None
        cells.append(_CELL_WORDS[word])
    return cells or None


_LOG = re.compile(r"^\s*(?:ln|log|loge|log_e)\s*\(?\s*(\d{1,12}(?:\.\d{1,12})?)\s*\)?\s*$", re.IGNORECASE)


def number(text: str) -> float | None:
    """One number: "4.8", "４．８", "≈ 4.8 个", "24/5", "4,8" (decimal comma), or a
    natural log written out ("ln 5000", "log(5000)"). None if there is not
    exactly one."""
    cleaned = clean(text).replace("≈", " ").replace("~", " ")
    written_log = _LOG.match(cleaned)
    if written_log:
        argument = float(written_log.group(1))
        return math.log(argument) if argument > 0 else None
    cleaned = re.sub(r"(\d),(\d)", r"\1.\2", cleaned)
    found = re.findall(
        r"-?\d{1,30}(?:\.\d{1,30})?(?:\s*/\s*\d{1,30}(?:\.\d{1,30})?)?(?:e-?\d{1,3})?%?", cleaned
    )
    if len(found) != 1:
        return None
    token = found[0].replace(" ", "")
    percent = token.endswith("%")
    token = token.rstrip("%")
    try:
        value = float(Fraction(token)) if "/" in token else float(token)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    if not math.isfinite(value):
        return None
    return value / 100 if percent else value


_CHOICE = re.compile(r"(?<![A-Za-z])([A-Fa-f])(?![A-Za-z])")


def choice(text: str, options: int) -> int | None:
    """A multiple-choice letter ("B", "(b)", "选 B", "答案：Ｂ") or number (1-based
    as printed, "2") -> the 0-based option index."""
    cleaned = clean(text)
    letters = {match.upper() for match in _CHOICE.findall(cleaned)}
    if len(letters) == 1:
        index = ord(letters.pop()) - ord("A")
        return index if index < options else None
    if not letters:
        numbers = integers(cleaned)
        if numbers and len(numbers) == 1 and 1 <= numbers[0] <= options:
            return numbers[0] - 1
    return None


def self_mark(text: str) -> float | None:
    """A reflection's self-assessment: yes / partly / no (or 是 / 部分 / 否)."""
    word = clean(text).lower()
    for score, words in (
        (1.0, ("yes", "y", "是", "对", "会", "full", "1")),
        (0.5, ("partly", "partial", "part", "部分", "一半", "0.5")),
        (0.0, ("no", "n", "否", "不", "不会", "0")),
    ):
        if word in words:
            return score
    return None
