"""Readers of command-line values shared by every command: what a learner types,
full-width digits and punctuation (２：５，７、８) included, read as argparse types.
A value they cannot read raises ``Refusal``: argparse keeps only its English
``str()``, tui/cli.py finds the Refusal itself and says it in the learner's language."""

from __future__ import annotations

import argparse
import re
import unicodedata

from exercises.text import Bilingual, pick
from tui.i18n import MESSAGES


class Refusal(argparse.ArgumentTypeError):
    """A value an argparse type refuses, with its sentence in both languages. Any
    command's type function may raise one (``Refusal(L(en, zh), **params)``, or a
    ``usage-*`` message of tui/i18n.py)."""

    def __init__(self, text: Bilingual, **params: object) -> None:
        self.text, self.params = text, params
        super().__init__(self.said("en"))

    def said(self, lang: str) -> str:
        return pick(self.text, lang).format(**self.params)


def normalise(text: str) -> str:
    """Full-width digits and punctuation (２：５，７) read as their ASCII twins."""
    return unicodedata.normalize("NFKC", text).strip()


def whole_number(text: str) -> int:
    try:
        return int(normalise(text))
    except ValueError:
        raise Refusal(MESSAGES["usage-whole-number"], value=repr(text)) from None


def probability(text: str) -> float:
    """0.15 or 15%."""
    value = normalise(text)
    try:
        return float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        raise Refusal(MESSAGES["usage-number"], value=repr(text)) from None


def number(text: str) -> float:
    try:
        return float(normalise(text))
    except ValueError:
        raise Refusal(MESSAGES["usage-number"], value=repr(text)) from None


def positions(text: str) -> list[int]:
    """Positions listed with commas or 、: "1,4", "1、4"."""
    parts = [part for part in normalise(text).replace("、", ",").split(",") if part.strip()]
    try:
        return [int(part) for part in parts]
    except ValueError:
        raise Refusal(MESSAGES["usage-positions"], value=repr(text)) from None


def names(text: str) -> list[str]:
    """Names listed with commas, 、 or spaces, in lower case: "CLM，MLM" -> ["clm", "mlm"]."""
    return [part.lower() for part in re.split(r"[,\s]+", normalise(text).replace("、", ",")) if part]


def spans(text: str) -> list[tuple[int, int]]:
    """Spans written start:end (end exclusive) or start-end: "2:5,7:8"."""
    found = []
    for part in normalise(text).replace("、", ",").split(","):
        if not part.strip():
            continue
        bounds = part.replace("-", ":").split(":")
        try:
            start, end = (int(bound) for bound in bounds)
        except ValueError:
            raise Refusal(MESSAGES["usage-spans"], value=repr(text)) from None
        found.append((start, end))
    return found
