"""Text from a student's file on its way out: into a spreadsheet, a Markdown
report or the teacher's terminal. Student ids and names are chosen by students,
so each sink gets the escaping it needs and none receives control characters."""

from __future__ import annotations

import re
import unicodedata

# C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a reader sees.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATES = re.compile("[\ud800-\udfff]")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]#|<>~&])")
_LINE_START = re.compile(r"^(\s*)([-+=]|\d+[.)])")  # would start a list or a heading underline


def plain(text: object, limit: int = 200) -> str:
    """One printable line: escape sequences, controls and bidi overrides shown as
    ``\\xNN`` escapes, line breaks as spaces, a lone surrogate (JSON's ``\\ud800``, which
    no terminal can be sent) as U+FFFD, cut to ``limit`` characters."""
    value = _SURROGATES.sub("\ufffd", str(text)).replace("\r\n", " ").replace("\n", " ")
    value = _CONTROLS.sub(lambda match: f"\\x{ord(match.group()):02x}", value)
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return value


def printable_lines(text: object) -> str:
    """Text of many lines (a learner's output, an exception, a value) for a terminal or a
    widget: its lines kept, tabs as spaces, every other control character, escape
    sequence and bidi override shown as a ``\\xNN`` escape, a lone surrogate (which no
    terminal can be sent) as U+FFFD."""
    value = _SURROGATES.sub("\ufffd", str(text)).replace("\r\n", "\n").replace("\t", "    ")
    return "\n".join(
        _CONTROLS.sub(lambda match: f"\\x{ord(match.group()):02x}", line) for line in value.split("\n")
    )


def csv_cell(value: object) -> str:
    """OWASP's CSV-injection rule: a cell a spreadsheet would read as a formula
    (starting with = + - @ tab or CR) is prefixed with a quote; controls become spaces."""
    text = str(value)
    prefix = "'" if text.startswith(_FORMULA_START) else ""
    return prefix + _CONTROLS.sub(" ", text)


def markdown(text: object, limit: int = 200) -> str:
    """Text that stays text in Markdown (and in the HTML it becomes): every character
    with a meaning is backslash-escaped and ``<``/``&`` become entities."""
    value = plain(text, limit)
    value = _MARKDOWN_SPECIAL.sub(r"\\\1", value)
    value = _LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), value)
    return value.replace("\\<", "&lt;").replace("\\>", "&gt;").replace("\\&", "&amp;")


def is_printable_line(text: str) -> bool:
    """True when ``text`` holds nothing a terminal would act on."""
    return not _CONTROLS.search(text) and all(unicodedata.category(c) != "Cc" for c in text)
