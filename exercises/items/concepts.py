"""The concept checks, read from data: one TOML file per bank in ``exercises/concepts/``
(shipped as package data), each question with its stem, its own hints and its options in
English and Chinese side by side; every wrong option names the misconception a learner who
picks it holds. ``exercises --check`` (``exercises.selfcheck``) holds each bank to the
rules a question writer can break: one right option, a known misconception on every wrong
one, hints that do not state the answer, and no tells (a phrase found only in wrong
options across the bank, the right option usually the longest, two options saying the
same).

A bank file is text, not code: it is read with ``tomllib`` and checked here, field by
field, before anything is built from it; a malformed bank stops the import with the file
and the question named (a developer's mistake, caught by every test run).

The file format (``docs/contributing.md`` shows a whole question)::

    id = "concept-nsp"
    title.en = "..."          title.zh = "..."
    [[question]]              en = "...", zh = "..."   (the stem)
    [[question.hint]]         en = "...", zh = "..."   (1 to 3, in order)
    [[question.option]]       en, zh, why.en, why.zh, and either right = true
                              or misconception = "<diagnosis code>"; optionally
                              theme = "<name>" (what it is about: "ranking")

The facts follow the lessons and the papers each file names in its comments."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

from exercises.items.choice import ChoiceExercise, Option, Question, choice_exercise
from exercises.text import Bilingual, L

RIGHT = L("Right.", "正确。")  # the feedback of a right option that says nothing more
FOLDER = "concepts"  # inside the ``exercises`` package

_BANK_KEYS = {"id", "title", "question"}
_QUESTION_KEYS = {"en", "zh", "hint", "option"}
_OPTION_KEYS = {"en", "zh", "why", "right", "misconception", "theme"}


class BankError(ValueError):
    """A concept bank file that cannot be read as one (names the file and the place)."""


def right(en: str, zh: str, why: Bilingual = RIGHT) -> Option:
    return Option(L(en, zh), True, why)


def wrong(en: str, zh: str, why_en: str, why_zh: str, code: str) -> Option:
    return Option(L(en, zh), False, L(why_en, why_zh), code)


def ask(en: str, zh: str, *options: Option, hints: tuple[Bilingual, ...] = ()) -> Question:
    return Question(L(en, zh), options, hints)


def _text(value: Any, where: str) -> Bilingual:
    """An {en, zh} table of two non-empty strings."""
    if not isinstance(value, dict) or set(value) != {"en", "zh"}:
        raise BankError(
            f"{where}: want exactly en and zh, got {sorted(value) if isinstance(value, dict) else value!r}"
        )
    if not all(isinstance(value[lang], str) and value[lang].strip() for lang in ("en", "zh")):
        raise BankError(f"{where}: en and zh must both be non-empty text")
    return L(value["en"], value["zh"])


def _keys(table: Any, allowed: set[str], where: str) -> dict:
    if not isinstance(table, dict):
        raise BankError(f"{where}: want a table")
    unknown = set(table) - allowed
    if unknown:
        raise BankError(f"{where}: unknown keys {sorted(unknown)}")
    return table


def _option(table: Any, where: str) -> Option:
    table = _keys(table, _OPTION_KEYS, where)
    text = _text({lang: table.get(lang) for lang in ("en", "zh")}, where)
    is_right = table.get("right", False)
    if not isinstance(is_right, bool):
        raise BankError(f"{where}: right must be true or left out")
    code = table.get("misconception")
    if is_right == (code is not None):
        raise BankError(f"{where}: a right option has no misconception; a wrong one names one")
    if code is not None and not isinstance(code, str):
        raise BankError(f"{where}: misconception must be a diagnosis code")
    why = _text(table["why"], f"{where} why") if "why" in table else None
    if why is None and not is_right:
        raise BankError(f"{where}: a wrong option says why it is wrong (why.en, why.zh)")
    theme = table.get("theme")
    if theme is not None and not (isinstance(theme, str) and theme.strip()):
        raise BankError(f"{where}: theme must be a short name")
    return Option(text, is_right, why or RIGHT, code, theme)


def _question(table: Any, where: str) -> Question:
    table = _keys(table, _QUESTION_KEYS, where)
    stem = _text({lang: table.get(lang) for lang in ("en", "zh")}, where)
    hints = table.get("hint", [])
    options = table.get("option", [])
    if not isinstance(hints, list) or not isinstance(options, list) or len(options) < 2:
        raise BankError(f"{where}: want [[question.hint]] tables and at least two [[question.option]] tables")
    return Question(
        stem,
        tuple(_option(option, f"{where} option {o}") for o, option in enumerate(options)),
        tuple(_text(hint, f"{where} hint {h}") for h, hint in enumerate(hints)),
    )


def parse_bank(text: str, name: str) -> ChoiceExercise:
    """One bank from the text of its TOML file (``name`` says where, in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BankError(f"{name}: not TOML ({error})") from None
    _keys(data, _BANK_KEYS, name)
    if not isinstance(data.get("id"), str) or not isinstance(data.get("question"), list):
        raise BankError(f"{name}: want an id and [[question]] tables")
    title = _text(data.get("title"), f"{name} title")
    questions = tuple(_question(table, f"{name} question {q}") for q, table in enumerate(data["question"]))
    return choice_exercise(data["id"], title, questions)


def load_banks() -> tuple[ChoiceExercise, ...]:
    """Every bank file, in file-name order (the curriculum orders the exercises)."""
    folder = resources.files("exercises") / FOLDER
    files = sorted(
        (entry for entry in folder.iterdir() if entry.name.endswith(".toml")), key=lambda e: e.name
    )
    return tuple(parse_bank(entry.read_text(encoding="utf-8"), f"{FOLDER}/{entry.name}") for entry in files)


EXERCISES = load_banks()
