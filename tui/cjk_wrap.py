"""Line breaking for Chinese text, and for code and formulas inside prose.

Rich (and Textual, which wraps with Rich's ``divide_line``) breaks lines only at
whitespace, so a Chinese sentence is one enormous "word": it is pushed whole to
the next line and then chopped, leaving ragged half-empty lines. Chinese may
break between any two characters, except before closing punctuation (，。）)
or after opening punctuation (（【). ``install`` teaches Rich's word splitter
that, once per process.

Code and formulas in a sentence are kept whole where they are short (issue 23.5):
a bracket group without Chinese in it (``labels[:, 1:]``, ``P(w_t | w_<t)``, up to
``GROUP`` characters) is one word, spaces and all, and a superscript or subscript
keeps the word it raises (``e^损失`` is not broken after the ``^``).
"""

from __future__ import annotations

import re
from functools import cache

CJK = (
    "\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
)
IDEOGRAPHS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
OPENING = "（【「『《〈〔［｛“‘"
CLOSING = "，。、：；！？）】」』》〉〕］｝”’…·"
GROUP = 32  # the longest bracket group kept on one line
_BRACKETED = rf"\[[^\]\n{CJK}]{{0,{GROUP}}}\]|\([^)\n{CJK}]{{0,{GROUP}}}\)"
_LATIN = rf"(?:{_BRACKETED}|[^\s{CJK}{OPENING}{CLOSING}])+(?:(?<=[\^_])[{IDEOGRAPHS}]+)?"
_ATOM = rf"(?:[{CJK}]|{_LATIN})"
CJK_WORD = re.compile(rf"\s*[{OPENING}]*{_ATOM}[{CLOSING}]*\s*|\s*[{OPENING}{CLOSING}]+\s*")


def install() -> None:
    """Make Rich split CJK text per character (Latin words and short code stay whole)."""
    import rich._wrap

    rich._wrap.re_word = CJK_WORD


@cache
def _wide_and_full_width() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Compiled when a lesson's text is first joined, not on import: a class of the CJK
    ranges takes ~8 ms to compile, and the app's first frame needs neither."""
    return re.compile(rf"[{CJK}]"), re.compile(
        rf"[{OPENING}{CLOSING}\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]"
    )


def _no_space_between(before: str, after: str) -> bool:
    """Chinese on both sides, or full-width punctuation on either: no space. A Latin
    word beside a Chinese one keeps the space these lessons put there ("小 transformer")."""
    wide, full_width = _wide_and_full_width()
    both_wide = bool(wide.match(before) and wide.match(after))
    return both_wide or bool(full_width.match(before) or full_width.match(after))


_BLOCK_START = re.compile(r"\s*(?:[#>|]|[-*+]\s|\d+[.)]\s|```|~~~|$)")


def join_soft_breaks(markdown: str) -> str:
    """``markdown`` with a source line break inside a paragraph removed where Chinese
    meets it: Markdown reads that break as a space, which Chinese does not put between
    words ("文本窗口， 步数", "所以……； 英文版" in the training-lab lesson, issue 23).
    Code (fenced, or indented four spaces), tables, headings and hard breaks are left as
    they are; a break between two Latin words stays a space."""
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        opens_fence = line.lstrip().startswith(("```", "~~~"))
        previous = out[-1] if out else ""
        if (
            not fenced
            and not opens_fence
            and previous.strip()
            and not _BLOCK_START.match(line)
            and not previous.lstrip().startswith(("#", "|", "```", "~~~"))
            and not previous.endswith(("  ", "\\"))
            and not previous.startswith("    ")
            and not line.startswith("    ")
            and _no_space_between(previous.rstrip()[-1], line.lstrip()[0])
        ):
            out[-1] = previous.rstrip() + line.lstrip()
            continue
        if opens_fence:
            fenced = not fenced
        out.append(line)
    return "\n".join(out)
