"""Line breaking for Chinese text.

Rich (and Textual, which wraps with Rich's ``divide_line``) breaks lines only at
whitespace, so a Chinese sentence is one enormous "word": it is pushed whole to
the next line and then chopped, leaving ragged half-empty lines. Chinese may
break between any two characters, except before closing punctuation (，。）)
or after opening punctuation (（【). ``install`` teaches Rich's word splitter
that, once per process.
"""

from __future__ import annotations

import re

CJK = (
    "\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
)
OPENING = "（【「『《〈〔［｛“‘"
CLOSING = "，。、：；！？）】」』》〉〕］｝”’…·"
_ATOM = rf"(?:[{CJK}]|[^\s{CJK}{OPENING}{CLOSING}]+)"
CJK_WORD = re.compile(rf"\s*[{OPENING}]*{_ATOM}[{CLOSING}]*\s*|\s*[{OPENING}{CLOSING}]+\s*")


def install() -> None:
    """Make Rich split CJK text per character (Latin words stay whole)."""
    import rich._wrap

    rich._wrap.re_word = CJK_WORD
