"""Bilingual strings: every learner-facing string exists in zh and en."""

from __future__ import annotations

LANGS = ("zh", "en")

Bilingual = dict[str, str]


def L(en: str, zh: str) -> Bilingual:
    """A string in both languages (English first, as the code reads)."""
    return {"en": en, "zh": zh}


def pick(text: Bilingual, lang: str) -> str:
    return text.get(lang) or text["en"]


def fmt(text: Bilingual, **params: object) -> Bilingual:
    """Fill the same parameters into both languages."""
    return {lang: value.format(**params) for lang, value in text.items()}


def join(*texts: Bilingual, sep: str = " ") -> Bilingual:
    return {lang: sep.join(text[lang] for text in texts if text.get(lang)) for lang in LANGS}
