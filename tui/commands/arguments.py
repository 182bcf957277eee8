"""The command line's rules, one for every command, and the readers of values they share.

The rules (docs/learner.md, "The command line", states them for learners):

1. Every number has a range, stated in its option's --help. A value outside it, NaN or
   infinity is refused while argparse reads the line, before anything is computed or
   allocated (``whole``, ``real``, ``listing``, ``span_list``).
2. Every text has a length limit; a text that must say something may not be blank
   (``text``).
3. Every option is given at most once: ``--seed 1 --seed 2`` is refused, not "the last
   wins" (``OneLineParser`` in tui/cli.py registers the actions below for every parser).
4. An option that does not apply to what was asked is refused, never ignored
   (``refuse_inapplicable``).
5. Every word of the command line is UTF-8 text (``refuse_undecodable``, before argparse).

A refusal is one line on stderr in the learner's language, exit 2. What learners type
is read as they type it: full-width digits and punctuation (２：５，７、８) as ASCII.

Any command's parser uses these (``type=whole(1, 64)``, ``type=text(200)``...), or raises
``Refusal`` from a type of its own. Everything is said in the command line's language
(``speaking``): argparse's own sentences through its gettext hook, a Refusal in its pair.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar

from exercises.text import Bilingual, pick
from tui.errors import UsageError
from tui.i18n import ARGPARSE, MESSAGES

# Stated here so that --help imports nothing heavy; tests/test_cli_bounds.py checks each
# against the module that enforces it.
MAX_SEED = 2**32 - 1  # exercises.learner.progress.MAX_SEED, the training lab's LabSettings.check
MAX_ANSWER_CHARS = 20_000  # exercises.grading.parsing.MAX_ANSWER_CHARS: a part's answer
MAX_SHOWN = 40  # characters of a refused value quoted back in the one-line error


# -- the language the command line speaks ---------------------------------------------

_SPOKEN: ContextVar[str] = ContextVar("the command line's language", default="en")


def gettext(msgid: str) -> str:
    """argparse's ``_()``: its English msgid in the command line's language (tui/i18n.py's
    ARGPARSE). A msgid not there is a mistake in building a parser: it stays English."""
    text = ARGPARSE.get(msgid)
    return pick(text, _SPOKEN.get()) if text else msgid


def said(text: Bilingual | str | None) -> str | None:
    """A parser's own text (an option's ``help=``, a command's ``description=``, given as an
    ``L(en, zh)`` pair) in the command line's language: OneLineParser in tui/cli.py picks
    it while the parser is built, inside ``speaking``. A plain str (argparse.SUPPRESS) is
    kept as it is."""
    return pick(text, _SPOKEN.get()) if isinstance(text, dict) else text


def ngettext(singular: str, plural: str, n: int) -> str:
    """argparse's ``ngettext()``: the English form for ``n``, then its translation."""
    return gettext(singular if n == 1 else plural)


@contextlib.contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Inside, the command line speaks ``lang``: argparse's sentences and every Refusal.

    argparse (3.11) calls ``_``/``ngettext`` from its module globals each time it says
    something (``_('usage: ')``, ``_('expected one argument')``...): gettext's hook, for
    which we are the catalogue. Some are said while a parser is built (the help's
    headings), others while it reads a line, so build and parse inside. Put back after;
    outside (and in another thread) our functions say argparse's English."""
    token = _SPOKEN.set(lang)
    saved = argparse._, argparse.ngettext
    argparse._, argparse.ngettext = gettext, ngettext
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved
        _SPOKEN.reset(token)


class ArgumentsError(UsageError):
    """A command line that cannot be read, its sentence already in the command line's
    language (``speaking``); tui/cli.py's ``usage_line`` frames it."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(f"{prog}: {message} (see --help)")
        self.prog, self.message = prog, message


class Refusal(argparse.ArgumentTypeError):
    """A value refused, with its sentence in both languages. Any command's type
    function may raise one (``Refusal(L(en, zh), **params)``, or a ``usage-*``
    message of tui/i18n.py); a parameter may itself be bilingual. argparse quotes
    ``str()`` of it, which is said in the command line's language."""

    def __init__(self, text: Bilingual, **params: object) -> None:
        self.text, self.params = text, params
        super().__init__(self.said("en"))

    def __str__(self) -> str:
        return self.said(_SPOKEN.get())

    def said(self, lang: str) -> str:
        params = {
            name: pick(value, lang) if isinstance(value, dict) else value
            for name, value in self.params.items()
        }
        return pick(self.text, lang).format(**params)


def normalise(text: str) -> str:
    """Full-width digits and punctuation (２：５，７) read as their ASCII twins."""
    return unicodedata.normalize("NFKC", text).strip()


def shown(text: str) -> str:
    """A value quoted back in an error, as Python writes it (control characters escaped),
    cut to MAX_SHOWN characters: a pasted page is not echoed back whole."""
    quoted = repr(text)
    return quoted if len(quoted) <= MAX_SHOWN else quoted[: MAX_SHOWN - 1] + "…"


# -- rule 1 and 2: bounded types -------------------------------------------------------


class Bounded:
    """An argparse type that states its limits. ``limits`` belongs in the option's
    --help; ``at_limit`` and ``past_limit`` are typed values just inside and just outside
    them, for the tests that walk every parser (tests/test_cli_bounds.py)."""

    limits: str
    limits_zh: str  # the same limits in Chinese, for the zh --help

    def at_limit(self) -> str:
        raise NotImplementedError

    def past_limit(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:  # argparse names the type by repr in a few messages
        return f"{type(self).__name__}({self.limits})"


_WHOLE = re.compile(r"[+-]?\d+(?:_\d+)*")


class whole(Bounded):  # lower case: read as a type, like int
    """A whole number from ``low`` to ``high`` (full-width digits, ``1_000``)."""

    def __init__(self, low: int, high: int, *, cases: str = "") -> None:
        self.low, self.high, self.cases = low, high, cases  # cases: the limits of each case, said too
        self.limits = self.limits_zh = f"{low}..{high}"

    def __call__(self, typed: str) -> int:
        value = normalise(typed)
        if not _WHOLE.fullmatch(value):
            raise Refusal(MESSAGES["usage-whole-number"], value=shown(typed))
        digits = value.lstrip("+-").replace("_", "").lstrip("0")
        if len(digits) > len(str(max(abs(self.low), abs(self.high)))):  # never converted: no 5000-digit int
            raise self.refusal(value)
        number = int(value)
        if not self.low <= number <= self.high:
            raise self.refusal(value)
        return number

    def refusal(self, value: object) -> Refusal:
        said = str(value)
        said = said if len(said) <= MAX_SHOWN else said[: MAX_SHOWN - 1] + "…"
        if self.cases:
            return Refusal(
                MESSAGES["usage-out-of-range-cases"],
                low=self.low,
                high=self.high,
                value=said,
                cases=self.cases,
            )
        return Refusal(MESSAGES["usage-out-of-range"], low=self.low, high=self.high, value=said)

    def at_limit(self) -> str:
        return str(self.high)

    def past_limit(self) -> str:
        return str(self.high + 1)

    def below_limit(self) -> str:
        return str(self.low - 1)


class real(Bounded):
    """A finite number from ``low`` to ``high``; with ``percent``, 15% reads as 0.15."""

    def __init__(self, low: float, high: float, *, percent: bool = False) -> None:
        self.low, self.high, self.percent = low, high, percent
        self.limits = self.limits_zh = f"{low:g}..{high:g}"

    def __call__(self, typed: str) -> float:
        value = normalise(typed)
        scale = 100.0 if self.percent and value.endswith("%") else 1.0
        try:
            number = float(value[:-1] if scale != 1.0 else value) / scale
        except ValueError:
            raise Refusal(MESSAGES["usage-number"], value=shown(typed)) from None
        if not (math.isfinite(number) and self.low <= number <= self.high):  # NaN fails here too
            said = value if len(value) <= MAX_SHOWN else value[: MAX_SHOWN - 1] + "…"
            raise Refusal(
                MESSAGES["usage-out-of-range"], low=f"{self.low:g}", high=f"{self.high:g}", value=said
            )
        return number

    def at_limit(self) -> str:
        return repr(float(self.high))

    def past_limit(self) -> str:
        return repr(math.nextafter(float(self.high), math.inf))

    def below_limit(self) -> str:
        return repr(math.nextafter(float(self.low), -math.inf))


class text(Bounded):
    """At most ``limit`` characters; blank (empty or only spaces) refused unless ``blank``."""

    def __init__(self, limit: int, *, blank: bool = False) -> None:
        self.limit, self.blank = limit, blank
        self.limits, self.limits_zh = f"at most {limit} characters", f"最多 {limit} 个字符"

    def __call__(self, typed: str) -> str:
        if len(typed) > self.limit:
            raise Refusal(MESSAGES["usage-too-long"], limit=self.limit, count=len(typed))
        if not self.blank and not typed.strip():
            raise Refusal(MESSAGES["usage-blank"])
        return typed

    def at_limit(self) -> str:
        return "x" * self.limit

    def past_limit(self) -> str:
        return "x" * (self.limit + 1)


class listing(Bounded):
    """At most ``most`` items separated by commas or 、 (and spaces, with ``spaces``),
    each read by ``item``: it raises Refusal, or ValueError when the item is not in the
    list's ``form`` (then the form is what the error says)."""

    def __init__(
        self,
        item: Callable[[str], object],
        most: int,
        *,
        form: Bilingual | None = None,
        example: str = "x",
        spaces: bool = False,
    ) -> None:
        self.item, self.most, self.form, self.example, self.spaces = item, most, form, example, spaces
        self.limits, self.limits_zh = f"at most {most}", f"最多 {most} 个"

    def __call__(self, typed: str) -> list:
        value = normalise(typed).replace("、", ",")
        if self.spaces:
            value = re.sub(r"\s+", ",", value)
        parts = [part.strip() for part in value.split(",") if part.strip()]
        if len(parts) > self.most:
            raise Refusal(MESSAGES["usage-too-many"], limit=self.most, count=len(parts))
        try:
            return [self.item(part) for part in parts]
        except ValueError:
            raise Refusal(self.form or MESSAGES["usage-number"], value=shown(typed)) from None

    def at_limit(self) -> str:
        return ",".join([self.example] * self.most)

    def past_limit(self) -> str:
        return ",".join([self.example] * (self.most + 1))


SEED = whole(0, MAX_SEED)  # every command's --seed: one rule, one type
PORT = whole(1, 65535)  # `serve --port`, `class serve --port`


def positions(length: int) -> listing:
    """Positions in a text of at most ``length`` tokens, listed with commas or 、: "1,4", "1、4"."""
    position = whole(0, length - 1)

    def read(part: str) -> int:
        if not _WHOLE.fullmatch(part):
            raise ValueError(part)
        return position(part)

    reader = listing(read, length, form=MESSAGES["usage-positions"], example=str(position.high))
    reader.limits = f"at most {length}, each {position.limits}"
    reader.limits_zh = f"最多 {length} 个，每个 {position.limits}"
    return reader


def span_list(length: int) -> listing:
    """Spans of a text of at most ``length`` tokens, written start:end (end exclusive) or
    start-end: "2:5,7:8"."""
    end = whole(0, length)

    def read(part: str) -> tuple[int, int]:
        bounds = [bound.strip() for bound in part.replace("-", ":").split(":")]
        if len(bounds) != 2 or not all(_WHOLE.fullmatch(bound) for bound in bounds):
            raise ValueError(part)
        return end(bounds[0]), end(bounds[1])

    reader = listing(read, length, form=MESSAGES["usage-spans"], example=f"0:{end.high}")
    reader.limits = f"at most {length}, ends {end.limits}"
    reader.limits_zh = f"最多 {length} 段，端点 {end.limits}"
    return reader


class named_text(Bounded):  # lower case: read as a type, like int
    """NAME=TEXT (a full-width ＝ too), the text at most ``limit`` characters: ("name", "text")."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.limits, self.limits_zh = f"at most {limit} characters", f"最多 {limit} 个字符"

    def __call__(self, typed: str) -> tuple[str, str]:
        separator = "=" if "=" in typed else "＝" if "＝" in typed else None
        if separator is None:
            raise Refusal(MESSAGES["usage-answer-form"], value=shown(typed))
        name, value = typed.split(separator, 1)
        if len(value) > self.limit:
            raise Refusal(MESSAGES["usage-too-long"], limit=self.limit, count=len(value))
        return name.strip(), value

    def at_limit(self) -> str:
        return "part=" + "x" * self.limit

    def past_limit(self) -> str:
        return "part=" + "x" * (self.limit + 1)


def names(most: int) -> listing:
    """Names listed with commas, 、 or spaces, in lower case: "CLM，MLM" -> ["clm", "mlm"]."""
    return listing(str.lower, most, spaces=True)


# -- rule 3: every option at most once -------------------------------------------------

_GIVEN = "given:"  # namespace attributes "given:<dest>" name the options typed (never an identifier)


class _Once:
    """Records the option as typed, and refuses it the second time (``append`` records only)."""

    repeatable = False

    def __call__(self, parser, namespace, values, option_string=None):
        if self.option_strings:
            key = _GIVEN + self.dest
            if hasattr(namespace, key) and not self.repeatable:
                raise argparse.ArgumentError(self, str(Refusal(MESSAGES["usage-twice"])))
            setattr(namespace, key, max(self.option_strings, key=len))
        super().__call__(parser, namespace, values, option_string)


class _Store(_Once, argparse._StoreAction):
    pass


class _StoreConst(_Once, argparse._StoreConstAction):
    pass


class _StoreTrue(_Once, argparse._StoreTrueAction):
    pass


class _StoreFalse(_Once, argparse._StoreFalseAction):
    pass


class _Append(_Once, argparse._AppendAction):
    repeatable = True


ACTIONS = {
    None: _Store,
    "store": _Store,
    "store_const": _StoreConst,
    "store_true": _StoreTrue,
    "store_false": _StoreFalse,
    "append": _Append,
}


def given(args: argparse.Namespace) -> dict[str, str]:
    """The options the learner typed: dest -> the option's name (``--seq-len``)."""
    return {key[len(_GIVEN) :]: value for key, value in vars(args).items() if key.startswith(_GIVEN)}


# -- rule 4: an option that does not apply is refused ----------------------------------


def refuse_inapplicable(
    args: argparse.Namespace, prog: str, rules: Iterable[tuple[str, bool, Bilingual | str]]
) -> None:
    """Each rule is (dest, does it apply here, where it applies): an option typed where
    it does not apply is refused, naming where it does."""
    typed = given(args)
    for dest, applies, where in rules:
        if dest in typed and not applies:
            refusal = Refusal(MESSAGES["usage-not-applicable"], option=typed[dest], where=where)
            raise ArgumentsError(prog, str(refusal))


def refuse_out_of_range(prog: str, option: str, bounds: whole, value: int) -> None:
    """A value argparse accepted for every case, checked against the bounds of the case
    asked for (``textbook clm`` allows a shorter ``--seq-len`` than ``visibility``)."""
    if not bounds.low <= value <= bounds.high:
        refusal = bounds.refusal(value)
        raise ArgumentsError(
            prog,
            gettext("argument %(argument_name)s: %(message)s")
            % {"argument_name": option, "message": refusal},
        )


# -- rule 5: UTF-8 ---------------------------------------------------------------------


def refuse_undecodable(prog: str, argv: Sequence[str]) -> None:
    """Python hands bytes that are not UTF-8 over as lone surrogates: refuse them before
    they reach a file, a JSON document or a terminal."""
    for index, word in enumerate(argv, 1):
        try:
            word.encode("utf-8")
        except UnicodeEncodeError:
            raw = os.fsencode(word)
            said = repr(raw) if len(repr(raw)) <= MAX_SHOWN else repr(raw)[: MAX_SHOWN - 1] + "…"
            refusal = Refusal(MESSAGES["usage-not-utf8"], index=index, value=said)
            raise ArgumentsError(prog, str(refusal)) from None
