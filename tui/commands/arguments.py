"""Readers of command-line values shared by every command: what a learner types,
full-width digits and punctuation (２：５，７、８) included, read as argparse types.
A value they cannot read raises ArgumentTypeError with the English side of a
``usage-*`` message, which tui/cli.py reads back into the learner's language."""

from __future__ import annotations

import argparse
import re
import unicodedata

from tui.i18n import t


def normalise(text: str) -> str:
    """Full-width digits and punctuation (２：５，７) read as their ASCII twins."""
    return unicodedata.normalize("NFKC", text).strip()


def whole_number(text: str) -> int:
    try:
        return int(normalise(text))
    except ValueError:
        raise argparse.ArgumentTypeError(t("usage-whole-number", "en", value=repr(text))) from None


def probability(text: str) -> float:
    """0.15 or 15%."""
    value = normalise(text)
    try:
        return float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(t("usage-number", "en", value=repr(text))) from None


def number(text: str) -> float:
    try:
        return float(normalise(text))
    except ValueError:
        raise argparse.ArgumentTypeError(t("usage-number", "en", value=repr(text))) from None


def positions(text: str) -> list[int]:
    """Positions listed with commas or 、: "1,4", "1、4"."""
    parts = [part for part in normalise(text).replace("、", ",").split(",") if part.strip()]
    try:
        return [int(part) for part in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(t("usage-positions", "en", value=repr(text))) from None


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
            raise argparse.ArgumentTypeError(t("usage-spans", "en", value=repr(text))) from None
        found.append((start, end))
    return found
