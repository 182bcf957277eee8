"""Text to tokens, and a vocabulary built from the text itself.

The lessons work on whole words ("transformer models learn ...".split()); a
Chinese sentence has no spaces, so it is taken a character at a time. Special
tokens written in the text ([CLS], [SEP], [MASK], [PAD], [UNK], <extra_id_N>)
are recognised wherever they stand.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
EOS = "</s>"  # T5's end of sequence, appended to its inputs and targets
# The ids of the course section "Self-supervision and LM objectives": [PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3, [MASK]=4.
BASE_SPECIALS: tuple[str, ...] = (PAD, UNK, CLS, SEP, MASK)
DEFAULT_SENTINELS = 100  # T5 ships 100 sentinel tokens
# The example sentence of the course section "Pretraining methods": every default and seed-0 variant uses it.
LESSON_SENTENCE = "transformer models learn patterns from large text corpora"

_SPECIAL_PATTERN = re.compile(r"(\[(?:PAD|UNK|CLS|SEP|MASK)\]|<extra_id_\d+>|</s>)")
_SENTINEL_PATTERN = re.compile(r"<extra_id_(\d+)>")
_WHITESPACE = re.compile(r"\s")  # str.isspace's characters, found in C


def sentinel(index: int) -> str:
    """The T5 sentinel that stands for span number ``index``."""
    return f"<extra_id_{index}>"


@functools.cache
def _sentinels(count: int) -> tuple[str, ...]:
    """The first ``count`` sentinels, in order (the same names every time: written once)."""
    return tuple(sentinel(index) for index in range(count))


_NAMED_SPECIALS = frozenset((*BASE_SPECIALS, EOS))


def is_special(token: str) -> bool:
    return token in _NAMED_SPECIALS or (
        token.startswith("<extra_id_") and _SENTINEL_PATTERN.fullmatch(token) is not None
    )


def is_cjk(char: str) -> bool:
    """True for characters a Chinese/Japanese text writes without spaces.

    Covers the CJK ideograph blocks, kana, Hangul and the full-width
    punctuation (，。【】：) that such text uses between characters.
    """
    code = ord(char)
    if (
        0x3000 <= code <= 0x30FF  # CJK punctuation, kana
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF
        or 0xF900 <= code <= 0xFAFF
        or 0xFE30 <= code <= 0xFE4F
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0x20000 <= code <= 0x2FA1F
    ):
        return True
    return unicodedata.east_asian_width(char) in ("W", "F") and not char.isspace()


def split_characters(chunk: str) -> list[str]:
    """One token per CJK character; runs of other characters stay together."""
    if chunk.isascii():  # no ASCII character is CJK: just the runs between whitespace
        return chunk.split()
    pieces: list[str] = []
    run = ""
    for char in chunk:
        if char.isspace():
            if run:
                pieces.append(run)
                run = ""
        elif is_cjk(char):
            if run:
                pieces.append(run)
                run = ""
            pieces.append(char)
        else:
            run += char
    if run:
        pieces.append(run)
    return pieces


def split_text(text: str) -> list[str]:
    """Split a learner's sentence into tokens.

    Text with whitespace splits into whitespace-separated words (so a Chinese
    sentence written with spaces keeps its words); text without whitespace that
    contains CJK characters splits per character. Special tokens are always
    tokens of their own.
    """
    spaced = _WHITESPACE.search(text) is not None
    tokens: list[str] = []
    # The pattern's one group puts each special token at an odd index, the text between at even ones.
    for index, part in enumerate(_SPECIAL_PATTERN.split(text)):
        if not part:
            continue
        if index % 2:
            tokens.append(part)
        elif spaced:
            tokens.extend(part.split())
        else:
            tokens.extend(split_characters(part))
    return tokens


@dataclass
class Vocab:
    """Token <-> id table: the lesson's five specials first, then the text's tokens,
    then the sentinels, so a learner's own sentence always has ids."""

    tokens: list[str] = field(default_factory=lambda: list(BASE_SPECIALS))
    n_sentinels: int = 0

    def __post_init__(self) -> None:
        self._ids = {token: index for index, token in enumerate(self.tokens)}

    @classmethod
    def from_tokens(cls, tokens: Iterable[str], n_sentinels: int = DEFAULT_SENTINELS) -> Vocab:
        # A dict keeps each token where it first came: specials, then the text's tokens, then sentinels.
        return cls(list(dict.fromkeys((*BASE_SPECIALS, *tokens, *_sentinels(n_sentinels)))), n_sentinels)

    def add(self, token: str) -> int:
        if token not in self._ids:
            self._ids[token] = len(self.tokens)
            self.tokens.append(token)
        return self._ids[token]

    def __len__(self) -> int:
        return len(self.tokens)

    def id_of(self, token: str) -> int:
        return self._ids.get(token, self._ids[UNK])

    def encode(self, tokens: Sequence[str]) -> list[int]:
        unknown = self._ids.get(UNK)
        if unknown is None:  # no [UNK]: id_of raises, as it should
            return [self.id_of(token) for token in tokens]
        get = self._ids.get
        return [get(token, unknown) for token in tokens]

    def decode(self, ids: Iterable[int]) -> list[str]:
        to_list = getattr(ids, "tolist", None)  # a tensor: one conversion, not one per element
        return [self.tokens[int(index)] for index in (ids if to_list is None else to_list())]

    @property
    def pad_id(self) -> int:
        return self._ids[PAD]

    @property
    def mask_id(self) -> int:
        return self._ids[MASK]

    def special_ids(self) -> list[int]:
        return [index for index, token in enumerate(self.tokens) if is_special(token)]

    def sentinel_ids(self) -> list[int]:
        # (One dict.get per sentinel, mapped in C: T5 has 100 of them.)
        return [index for index in map(self._ids.get, _sentinels(self.n_sentinels)) if index is not None]
