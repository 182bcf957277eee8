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
