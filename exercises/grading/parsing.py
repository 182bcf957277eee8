"""Tolerant readers for learners' answers. None of them ever raises: what they
cannot read comes back as ``None`` and the grader calls the part invalid.

Tolerated everywhere: full-width punctuation and digits (，【】：（）１２), quotes,
brackets, case in special tokens ([mask]), Chinese connectives ("位置 1 和 4").
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from fractions import Fraction

from engine.tokens import EOS, is_special, split_text
from exercises.text import L

MAX_ANSWER_CHARS = 20_000  # a pasted novel is not an answer; read only its start

_BRACKETS = str.maketrans(
    {
        "【": "[",
        "】": "]",
        "〔": "[",
        "〕": "]",
        "［": "[",
        "］": "]",
        "〈": "<",
        "〉": ">",
        "《": "<",
        "》": ">",
        "＜": "<",
        "＞": ">",
        "、": ",",
        "；": ";",
        "　": " ",
        "“": " ",
        "”": " ",
        "‘": " ",
        "’": " ",
        "「": " ",
        "」": " ",
        "『": " ",
        "』": " ",
        '"': " ",
        "'": " ",
        "`": " ",
    }
)
_BRACKET_CHARS = re.compile("[" + re.escape("".join(map(chr, _BRACKETS))) + "]")
_SPECIAL = re.compile(r"\[\s*(mask|cls|sep|pad|unk)\s*\]", re.IGNORECASE)
_ANGLE_MASK = re.compile(r"<\s*mask\s*>", re.IGNORECASE)  # RoBERTa's spelling
_MINUS = str.maketrans({"−": "-", "–": "-", "—": "-", "﹣": "-", "－": "-"})
_BRACKET_OR_MINUS_CHARS = re.compile("[" + re.escape("".join(map(chr, {**_BRACKETS, **_MINUS}))) + "]")
_TRAILING = re.compile(r"[\s.。!！?？;；,，、]+$")
# What _TRAILING drops, with whitespace (re's \s is str.isspace).
_TRAILING_MARKS = frozenset(".。!！?？;；,，、")
_SENTINEL = re.compile(r"<\s*extra[_\s-]*id[_\s-]*(\d{1,6})\s*>|\bextra_id_(\d{1,6})\b", re.IGNORECASE)
_EXTRA_ID = re.compile(r"extra_id_", re.IGNORECASE)  # what a _SENTINEL match without "<" holds
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\ufeff]")


def clean(text: str) -> str:
    """Unify an answer's characters: NFKC (full-width to ASCII), brackets,
    quotes, invisible characters, and the spelling of special tokens."""
    if not isinstance(text, str):
        return ""
    return _clean(text[:MAX_ANSWER_CHARS])


def _clean(text: str) -> str:
    text = _CONTROL.sub(" ", text)
    # str.translate is quick on ASCII text, which NFKC leaves as it is (so nothing new to translate);
    # on other text it looks every character up, so it runs only when there is one to translate.
    if text.isascii():
        text = text.translate(_BRACKETS)
    else:
        if _BRACKET_CHARS.search(text):
            text = text.translate(_BRACKETS)
        text = unicodedata.normalize("NFKC", text)
        if _BRACKET_OR_MINUS_CHARS.search(text):
            text = text.translate(_BRACKETS).translate(_MINUS)
    if "<" in text:  # each pattern below runs only where its own literal is in the text
        text = _ANGLE_MASK.sub(" [MASK] ", text)
    if "[" in text:
        text = _SPECIAL.sub(_spell_special, text)
    if "<" in text or _EXTRA_ID.search(text):
        text = _SENTINEL.sub(_spell_sentinel, text)
    if "(" in text or ":" in text or "=" in text:
        text = unwrap_printed(text.strip())
    return text.strip()


# What the lessons' code prints, pasted as an answer: "tensor([1, 4])", "array([[0, 1], [0, 0]])",
# "tensor(9.2103, grad_fn=<NllLossBackward0>)", "np.float64(9.21)", with or without the name it
# was printed under ("mask = tensor(...)", "causal labels : [...]"). A name has no digits, so
# "位置 1: B" and "1: B" keep their positions.
_PRINTED_NAME = r"(?:[A-Za-z_\u4e00-\u9fff][A-Za-z_ .\u4e00-\u9fff]{0,40}?\s*[:=]\s*)"
_PRINTED_HEAD = re.compile(
    _PRINTED_NAME + r"?(?:(?:torch|np|numpy)\.)?(?:tensor|array|float64|float32|float16|int64|int32|bool_)\(",
    re.IGNORECASE,
)
_PRINTED_KEYWORDS = re.compile(r",\s*(?:dtype|device|requires_grad|grad_fn|layout)\s*=")
_NAMED_VALUE = re.compile(_PRINTED_NAME + r"(?=[\[{(])")


def unwrap_printed(text: str) -> str:
    """The value inside a pasted print of a tensor, an array or a named list; other text as it is."""
    head = _PRINTED_HEAD.match(text)
    if head and text.endswith(")"):
        inner = text[head.end() : -1]
        keywords = _PRINTED_KEYWORDS.search(inner)
        return inner[: keywords.start()] if keywords else inner
    named = _NAMED_VALUE.match(text)
    if named and text[-1:] == _CLOSER[text[named.end()]]:  # the whole value in its brackets
        return text[named.end() :]
    return text


_CLOSER = {"[": "]", "{": "}", "(": ")"}


def _spell_special(match: re.Match[str]) -> str:
    return f" [{match.group(1).upper()}] "


def _spell_sentinel(match: re.Match[str]) -> str:
    return f" <extra_id_{int(match.group(1) or match.group(2))}> "


def without_trailing_punctuation(text: str) -> str:
    """ "corpora." and "1, 4。" end a sentence, not a token: drop what ends it."""
    if not text or not (text[-1] in _TRAILING_MARKS or text[-1].isspace()):
        return text  # the run _TRAILING drops ends the text: nothing to drop
    return _TRAILING.sub("", text)


def normalise_token(token: str) -> str:
    """How a reference token compares with a learner's (NFKC, special spellings)."""
    cleaned = clean(token)
    return cleaned if cleaned else token


_HIDDEN_SPECIAL = re.compile("\x00([A-Z]+)\x00")


def _hide_special(match: re.Match[str]) -> str:
    return "\x00" + match.group(1).upper() + "\x00"


def _strip_list_brackets(text: str) -> str:
    """Drop brackets around a whole list ("[A, B]", "(A B)") but not the
    brackets of special tokens ("[MASK] B [SEP]")."""
    hidden = _SPECIAL.sub(_hide_special, text.strip()) if "[" in text else text.strip()
    while len(hidden) >= 2 and hidden[0] in "[({" and hidden[-1] in "])}":
        hidden = hidden[1:-1].strip()
    return _HIDDEN_SPECIAL.sub(_bracketed, hidden) if "\x00" in hidden else hidden


def _bracketed(match: re.Match[str]) -> str:
    return "[" + match.group(1) + "]"


_SEPARATORS = re.compile(r"[\s,;|]+")
# Conjunctions between names: "B和E", "B 和 E" (spaced, as many type it), "B and E", "B & E".
_SEPARATORS_AND_WORDS = re.compile(
    r"[\s,;|]+(?:(?:和|与|及|以及|跟|还有|and|&)[\s,;|]+)?|(?<=\S)(?:和|与|及|以及|跟|&)(?=\S)",
    re.IGNORECASE,
)


def _split_pieces(pieces: list[str]) -> list[str]:
    return [token for piece in pieces for token in split_text(piece)]


def token_list_candidates(text: str) -> list[list[str]]:
    """Ways a token sequence may have been written; the grader keeps the best fit.

    "A [MASK] C", "A, [MASK], C", "['A', '[MASK]', 'C']" and "今天[MASK]气" all read.
    Commas and the Chinese "，" may be separators or tokens, so both readings are offered.
    """
    return list_candidates(list_text(text))


def list_text(text: str) -> str:
    """The text ``token_list_candidates`` reads its tokens from (cleaned, brackets off)."""
    return _strip_list_brackets(without_trailing_punctuation(clean(text)))


def by_separators(cleaned: str) -> list[str]:
    """The first reading ``list_candidates`` offers (before dropping empty readings):
    the pieces between spaces, commas, semicolons and bars."""
    return [piece for piece in _SEPARATORS.split(cleaned) if piece]


def list_candidates(cleaned: str, first: list[str] | None = None) -> list[list[str]]:
    """``token_list_candidates`` of a text already through ``list_text``; ``first``,
    when given, is ``by_separators(cleaned)`` worked out already."""
    if not cleaned:
        return []
    candidates: list[list[str]] = []
    by_separators = first if first is not None else [piece for piece in _SEPARATORS.split(cleaned) if piece]
    candidates.append(by_separators)
    by_words = [piece for piece in _SEPARATORS_AND_WORDS.split(cleaned) if piece]
    if by_words != by_separators:
        candidates.append(by_words)
    by_space = split_text(cleaned)
    if by_space != by_separators:
        candidates.append(by_space)
    per_char = _split_pieces(by_separators)
    if per_char not in candidates:
        candidates.append(per_char)
    return [candidate for candidate in candidates if candidate]


_NUMBER = re.compile(r"(?<!\d)-?\d{1,9}(?!\d)")  # longer digit runs are not positions
_RANGE = re.compile(
    r"(?<![\d.-])(\d{1,6})\s*(?:-|~|\.\.\.?|…|到|至|\bto\b|\bthrough\b)\s*(\d{1,6})(?![\d.])",
    re.IGNORECASE,
)
MAX_RANGE = 10_000
# "-" alone is how the figures print an empty set of positions (the engine's own answer reads back)
_NONE_WORDS = re.compile(
    r"\b(?:none|nothing|no positions?)\b|^(?:无|没有|都不|一个也没有|-|–|—)$", re.IGNORECASE
)
_ALL_WORDS = re.compile(  # the whole answer says "all": "all positions", "全部都能看到" (not "all but the last")
    r"(?:it\s+(?:sees|can\s+see)\s+)?(?:all|every|each|everything)(?:\s+(?:of\s+them|one|the))?"
    r"(?:\s+(?:positions?|tokens?|keys?))?"
    r"|(?:能看到|可以看到|看得到|能看|可以看)?(?:所有|全部|每个|每一个|整个序列|整句|全)的?(?:位置|token|词|键)?"
    r"(?:都)?(?:要)?(?:能看到|可以看到|看得到|能看|可以看|可见|都行|参与(?:损失|计算)?|计算(?:损失)?|算)?"
    r"|(?:全)?都(?:能看到|可以看到|看得到|可见)",
    re.IGNORECASE,
)


def integers(text: str) -> list[int] | None:
    """Every whole number in the text ("位置 1 和 4" -> [1, 4]); None if none."""
    found = [int(match) for match in _NUMBER.findall(clean(text))[:10_000]]
    return found or None


def _expand_ranges(cleaned: str) -> str | None:
    """ "1-4", "1~4", "1到4", "1至4", "1..4", "1 to 4" -> "1 2 3 4" (a closed range,
    as people say it); None for a range that runs backwards or absurdly far, or for
    ranges that together name more than ``MAX_RANGE`` positions ("0-9999," pasted a
    thousand times once took ten seconds to read)."""
    broken = False
    total = 0

    def expand(match: re.Match[str]) -> str:
        nonlocal broken, total
        low, high = int(match.group(1)), int(match.group(2))
        total += high - low + 1
        if broken or high < low or total > MAX_RANGE:
            broken = True
            return " "
        return " " + " ".join(map(str, range(low, high + 1))) + " "

    expanded = _RANGE.sub(expand, cleaned)
    return None if broken else expanded


_ASIDE = re.compile(r"\((?=[^()]*[^\d\s,;.()~-])[^()]*\)")  # a bracketed remark with words in it
_EXCEPT = re.compile(
    r"\b(?:except(?:\s+for)?|(?:all|everything)\s+but|but\s+not|other\s+than|apart\s+from|excluding|not\s+counting)\b"
    r"|除了|除去|除开|除|以外|之外|不包括|不含|排除",
    re.IGNORECASE,
)
_SPECIALS_WORDS = re.compile(
    r"\bspecial\s+tokens?\b|\bspecials\b|特殊符号|特殊\s*token|特殊标记|特殊词", re.IGNORECASE
)


_PADDING_WORDS = re.compile(r"\bpad(?:s|ding)?\b|填充|补齐|补位", re.IGNORECASE)
# What an excluded part may hold besides positions and tokens: "the", "and", "两个" ... Anything
# else ("the last word", "最后一个") names something this reader cannot place, and guessing would
# risk telling a learner they hold a misconception they do not.
_EXCLUSION_FILLER = re.compile(
    r"\b(?:the|and|or|both|all|its?|their|also|positions?|tokens?|symbols?|marks?|ones?)\b"
    r"|[和与及或跟、的个两三第位置符号所有全部都还有以及]|token|词元",
    re.IGNORECASE,
)


_EXCLUDED_BETWEEN = re.compile(r"(?:除了|除去|除开|除)(?!外)(?P<out>.*?)(?:以外|之外|外)")  # 除了 0、5 以外
_EXCLUDED_BEFORE = re.compile(r"(?P<out>[^,;]*?)(?:以外|之外|除外)")  # 0到3以外, 5除外
_EXCLUDED_AFTER = re.compile(r"(?:除了|除去|除开|除)(?P<out>.*)$")  # 1到8，除了5


def _split_exclusion(cleaned: str) -> tuple[str, str]:
    """(the base, the excluded part) of "1到8，除了5", "除了 0、5 以外的所有位置",
    "0到3以外", "all except 0 and 5": Chinese names what is left out after 除 or before
    以外, English after "except"."""
    for pattern in (_EXCLUDED_BETWEEN, _EXCLUDED_BEFORE, _EXCLUDED_AFTER):
        match = pattern.search(cleaned)
        if match:
            return cleaned[: match.start()] + " " + cleaned[match.end() :], match.group("out")
    match = _EXCEPT.search(cleaned)
    assert match is not None  # the caller found one
    return cleaned[: match.start()], cleaned[match.end() :]


def _named_positions(text: str, tokens: Sequence[str] | None) -> set[int] | None:
    expanded = _expand_ranges(text)
    if expanded is None:
        return None
    named = {int(match) for match in _NUMBER.findall(expanded)}
    if tokens:
        normalised = [normalise_token(token) for token in tokens]
        words = set(re.findall(r"\[[A-Z]+\]|<[^<>\s]+>", text))
        named |= {i for i, token in enumerate(normalised) if token in words}
        if _SPECIALS_WORDS.search(text):
            named |= {i for i, token in enumerate(normalised) if is_special(token)}
        if _PADDING_WORDS.search(text):
            named |= {i for i, token in enumerate(normalised) if token == "[PAD]"}
    return named


def _placed_everything(out_text: str) -> bool:
    """Does the excluded part name only what ``_named_positions`` can place?"""
    rest = re.sub(r"\[[A-Za-z]+\]|<[^<>\s]+>", " ", out_text)
    for pattern in (_SPECIALS_WORDS, _PADDING_WORDS, _EXCLUSION_FILLER, _NUMBER):
        rest = pattern.sub(" ", rest)
    return not re.search(r"[^\W\d_]", rest)  # no letters (Latin or CJK) left over


def _all_except(cleaned: str, tokens: Sequence[str] | None, n: int | None) -> list[int] | None:
    """ "all except 0, 5 and 9", "除了 [CLS]、[SEP] 以外的所有位置", "除特殊符号外都可以",
    "1到8，除了5": the positions named first (all of them when none are) but the ones left
    out (by number, by special token, or "special tokens"); None when the length is
    unknown or nothing left out can be placed."""
    length = n if n is not None else len(tokens) if tokens else None
    if length is None:
        return None
    base_text, out_text = _split_exclusion(cleaned)
    if not _placed_everything(out_text):
        return None
    left_out = _named_positions(out_text, tokens)
    base = _named_positions(base_text, None)
    if not left_out or base is None or any(i < 0 or i >= length for i in left_out | base):
        return None
    return sorted((base or set(range(length))) - left_out)


def wrote_numbers(text: str) -> bool:
    """Did the learner count (write a number), rather than name tokens ("B 和 E") or say
    "all"? Only counted positions can be counted from 1."""
    return isinstance(text, str) and bool(_NUMBER.search(clean(text[:MAX_ANSWER_CHARS])))


def positions(text: str, tokens: Sequence[str] | None = None, n: int | None = None) -> list[int] | None:
    """Positions written as numbers or ranges ("1, 4", "0到6", "0 到 6 的所有位置"),
    as tokens where each names one position ("B, E" for 1 and 4 when B and E occur
    once), "none" (an empty list) or, when the length ``n`` is known, "all positions"
    and "all except 0 and 5" / "除了 [CLS] 和 [SEP] 以外的所有位置".
    """
    return _positions(text, None if tokens is None else tuple(tokens), n)


def _positions(text: str, tokens: Sequence[str] | None, n: int | None) -> list[int] | None:
    cleaned = without_trailing_punctuation(clean(text))
    aside = _ASIDE.sub(" ", cleaned) if "(" in cleaned else cleaned
    if aside != cleaned and _NUMBER.search(aside) and not re.search(r"[\[(<]\s*$", aside):
        cleaned = aside  # "1, 2, 4 (0 and 3 are [CLS] and [SEP])": the remark in brackets names no answer
    if _EXCEPT.search(cleaned):
        return _all_except(cleaned, tokens, n)
    expanded = _expand_ranges(cleaned)
    if expanded is None:
        return None
    numbers = [int(match) for match in _NUMBER.findall(expanded)[:10_000]]
    if any(number < 0 for number in numbers):
        return None  # "-1", "1, -100": no position is negative, so this is not a list of positions
    if numbers:
        return sorted(set(numbers))
    if _NONE_WORDS.search(cleaned):
        return []
    if n is not None and _ALL_WORDS.fullmatch(cleaned):
        return list(range(n))
    if not tokens:
        return None
    normalised = [normalise_token(token) for token in tokens]
    found: list[int] = []
    for candidate in token_list_candidates(text):
        picked = []
        for word in candidate:
            if normalised.count(word) != 1:
                break
            picked.append(normalised.index(word))
        else:
            found = sorted(set(picked))
            break
    return found or None


_PAIR = re.compile(
    r"(?<!\d)(-?\d{1,9})\s*(?::|=|->|→|=>|—>|-|：|是|为)\s*"
    r"(\[[A-Z]+\]|<extra_id_\d+>|[^\s,;和与及:=]+?)(?=$|[\s,;和与及]|\d+\s*(?::|是|为))"
)
_SPOKEN_POSITION = re.compile(
    r"(?:位置|第)\s*(-?\d{1,9})\s*(?:个位置|位|个)?\s*(?:的|上的|处的)?\s*(?:标签|label)?\s*(?:应该|应)?\s*(?:是|为|:|=)"
    r"|\bpos(?:ition)?\s*(-?\d{1,9})(?:'s)?\s*(?:label)?\s*(?:is|:|=|->)",
    re.IGNORECASE,
)
_TOKEN_AT_POSITION = re.compile(
    r"([^\s,;:()]{1,40})\s*\(\s*(?:位置|第|position|pos\.?)?\s*(\d{1,9})\s*(?:位)?\s*\)", re.IGNORECASE
)
_TOKEN_AT_WORDS = re.compile(  # "B at 1", "E at position 4", "B 在位置 1", "B在1": the token, then where
    r"(?<![^\s,;])([^\s,;:()]{1,40}?)\s*(?:\s(?:at|@)\s+(?:the\s+)?|在|位于)"
    r"\s*(?:position\s*|pos\.?\s*|位置\s*|第\s*)?(\d{1,9})\s*(?:号位?|位|个)?(?:位置)?(?:上)?(?![\d:])",
    re.IGNORECASE,
)
_AT_HINT = re.compile(r"\sat\s|@|在|位于", re.IGNORECASE)  # what every _TOKEN_AT_WORDS match holds
_SPOKEN_HINT = re.compile(r"位置|第|pos", re.IGNORECASE)  # what every _SPOKEN_POSITION match holds
_SPACED_SPECIAL = re.compile(r"\[\s*([A-Z]+)\s*\]")
_LABEL_ROW_MARK = re.compile(r"(?<![\w:])-100(?![\w:])")
_OFF_THE_LOSS = re.compile(r"(?<!\d)(\d{1,9})\s*(?::|=|->|→|=>|是|为)\s*-100(?![\w])")
IGNORED_LABELS = frozenset({"-100", "none", "null", "_", "-", "·"})


def mapping(text: str) -> dict[int, str] | None:
    """Position -> token pairs: "1: B, 4: E", "1→B 4→E", "{1: 'B', 4: 'E'}",
    "位置1是B，位置4是E", "位置 1 的标签是 B", "position 1 is B", "B（位置 1）", and
    pairs that spell out the positions off the loss ("0: -100, 1: B")."""
    cleaned = without_trailing_punctuation(clean(text)).replace("{", " ").replace("}", " ")
    # Each rewrite below runs only where its pattern's own literal is in the text (the same result, sooner).
    if "(" in cleaned:
        cleaned = _TOKEN_AT_POSITION.sub(lambda m: f" {m.group(2)}: {m.group(1)} ", cleaned)
    if _AT_HINT.search(cleaned):
        cleaned = _TOKEN_AT_WORDS.sub(lambda m: f" {m.group(2)}: {m.group(1)} ", cleaned)
    if _SPOKEN_HINT.search(cleaned):
        cleaned = _SPOKEN_POSITION.sub(lambda m: f" {m.group(1) or m.group(2)}: ", cleaned)
    if "[" in cleaned:
        cleaned = _SPACED_SPECIAL.sub(_bracketed, cleaned)
    if "-100" in cleaned:
        cleaned = _OFF_THE_LOSS.sub(lambda m: f"{m.group(1)}: \x01", cleaned)  # "0: -100": no label at 0
        if _LABEL_ROW_MARK.search(cleaned):
            return None  # a label row (of the wrong length), not pairs
    pairs = _PAIR.findall(cleaned)
    if not pairs or any(int(key) < 0 for key, _ in pairs):
        return None
    result: dict[int, str] = {}
    for key, value in pairs:
        value = without_trailing_punctuation(value.strip())
        if not value or value == "\x01":
            continue
        if int(key) in result and result[int(key)] != value:
            return None  # one position given two labels: no single reading
        result[int(key)] = value
    return result or None


def label_row(text: str, length: int) -> dict[int, str] | None:
    """A label row in the lessons' layout, one entry per position with -100 where
    no loss is taken ("-100 B -100 -100 E", "[-100, B, -100, -100, E]")."""
    cleaned = list_text(text)
    lowered = cleaned.lower()
    if not any(label in lowered for label in IGNORED_LABELS):
        return None  # every token is a piece of the text: none of them can be an ignored label
    for candidate in list_candidates(cleaned):
        if len(candidate) == length and any(token.lower() in IGNORED_LABELS for token in candidate):
            return {i: token for i, token in enumerate(candidate) if token.lower() not in IGNORED_LABELS}
    return None


def full_row(text: str, length: int, like: Sequence[Sequence[str]] = ()) -> dict[int, str] | None:
    """A label on every one of ``length`` positions ("A B C D E"): a row with no -100 in it, as
    a learner who takes the loss everywhere writes it. It is read only as a labelling of the
    sequence: at least half its entries are the token that one of the ``like`` rows (the
    sequence, the model's inputs) holds at that place. Any other ``length`` pieces ("答案是 B"
    on four tokens, a pasted matrix, "0:，A,，2:，C") are no row of labels and read as nothing.
    A number is never a label: "1 2 3 4" are positions, and "-101 -101 labels from" is a
    slip of -100 (unreadable), not a label on the prefix."""
    rows = [[_row_key(token) for token in row] for row in like if len(row) == length]
    if not rows:
        return None
    for candidate in list_candidates(list_text(text)):
        if len(candidate) != length or any(re.fullmatch(r"-?\d+", token) for token in candidate):
            continue
        keys = [_row_key(token) for token in candidate]
        if any(2 * sum(map(str.__eq__, keys, row)) >= length for row in rows):
            return dict(enumerate(candidate))
    return None


def _row_key(token: str) -> str:
    return normalise_token(token).casefold()


def labels(text: str, length: int, like: tuple[tuple[str, ...], ...] = ()) -> dict[int, str] | None:
    """Labels at positions, every way the lessons and learners write them: a label row of
    ``length`` entries with -100 off the loss, position: token pairs ("1: B", "B at 1"), or a
    row of ``length`` labels with none off the loss that labels the sequence (``full_row``:
    ``like`` holds the rows it may resemble)."""
    row = label_row(text, length)
    if row is not None:
        return row
    pairs = mapping(text)
    return pairs if pairs is not None else full_row(text, length, like)


def bare_tokens(text: str, count: int | None = None) -> list[str] | None:
    """Labels written without positions ("B, E", "B和E"); with ``count``, the
    reading that has that many labels."""
    candidates = token_list_candidates(text)
    if count is not None:
        candidates = [candidate for candidate in candidates if len(candidate) == count]
    return candidates[0] if candidates else None


_CELL_WORDS = {
    **{"1": 1, "0": 0, "t": 1, "f": 0, "true": 1, "false": 0, "x": 1, ".": 0, "■": 1, "□": 0},
    **{"1.": 1, "0.": 0, "1.0": 1, "0.0": 0, "-inf": 1},  # float masks as torch prints them; -inf blocks
}
_ROW_IN_BRACKETS = re.compile(r"\[([^\[\]]*)\]")


def matrix(text: str, n: int) -> list[list[int]] | None:
    """An n×n 0/1 matrix: rows on lines or separated by ; or /, cells by spaces,
    commas, or nothing ("0111"). True/False, T/F and x/. also read, and the matrix
    pasted as torch or numpy print it (``tensor([[False,  True], ...])``, ``[[0 1]
    [0 0]]``, an additive mask of 0. and -inf): one row per inner bracket."""
    cleaned = clean(text)
    if "[" in cleaned and re.search(r"\[\s*\[", cleaned):  # nested brackets: a printed matrix
        rows = [_cells(row) for row in _ROW_IN_BRACKETS.findall(cleaned)]
        if len(rows) != n or any(row is None or len(row) != n for row in rows):
            return None
        return rows  # type: ignore[return-value]
    cleaned = cleaned.replace("[", " ").replace("]", " ")
    rows_text = [row for row in re.split(r"[\n;/|]+", cleaned) if row.strip()]
    if len(rows_text) == 1 and n > 1:
        pieces = [piece for piece in re.split(r"[\s,]+", rows_text[0]) if piece]
        if len(pieces) == n and all(re.fullmatch(rf"[01]{{{n}}}", piece) for piece in pieces):
            rows_text = pieces  # "0111, 0011, 0001, 0000": rows written as bit strings, commas between
    if len(rows_text) == 1 and n > 1:
        cells = _cells(rows_text[0])
        if cells is not None and len(cells) == n * n:
            return [cells[i * n : (i + 1) * n] for i in range(n)]
        return None
    rows = [_cells(row) for row in rows_text]
    if len(rows) != n or any(row is None or len(row) != n for row in rows):
        return None
    return rows  # type: ignore[return-value]


def _cells(row: str) -> list[int] | None:
    words = [word for word in re.split(r"[\s,]+", row.strip().lower()) if word]
    if len(words) == 1 and re.fullmatch(r"[01]+", words[0]):
        return [int(char) for char in words[0]]
    cells = []
    for word in words:
        if word not in _CELL_WORDS:
            return None
        cells.append(_CELL_WORDS[word])
    return cells or None


# T5's special tokens as learners write them.
_EOS_FORMS = re.compile(r"<\s*[/\\]\s*s\s*>|\[\s*eos\s*\]|<\s*eos\s*>|(?<![\w<])eos(?![\w>])", re.IGNORECASE)
_BRACKETED_SENTINEL = re.compile(r"[\[(]\s*(<extra_id_\d+>)\s*[\])]")
_PAPER_SENTINEL = re.compile(r"<\s*([XYZxyz])\s*>")  # the T5 paper's Figure 2 writes <X>, <Y>, <Z>
PAPER_NOTE = L(
    "(The T5 paper writes its sentinels <X>, <Y>, <Z>; its code, and this course, <extra_id_0>, "
    "<extra_id_1>, <extra_id_2>: read that way.)",
    "（T5 论文把哨兵写作 <X>、<Y>、<Z>；它的代码和本课程写作 <extra_id_0>、<extra_id_1>、<extra_id_2>：已按此读。）",
)


def t5_text(text: str) -> str:
    """An answer in T5's tokens, its special tokens spelt the one way: </S>, <eos>, EOS, [EOS]
    for </s>; a sentinel in brackets ("【extra_id_0】" reads as "[ <extra_id_0> ]") for the
    sentinel; the T5 paper's <X>, <Y>, <Z> for <extra_id_0>, <extra_id_1>, <extra_id_2>."""
    cleaned = _EOS_FORMS.sub(f" {EOS} ", clean(text))
    cleaned = _PAPER_SENTINEL.sub(lambda m: f" <extra_id_{'xyz'.index(m.group(1).lower())}> ", cleaned)
    return _BRACKETED_SENTINEL.sub(r" \1 ", cleaned)


def in_papers_notation(text: str) -> bool:
    """Does the answer write T5's sentinels as the paper does (<X>, <Y>, <Z>)?"""
    return isinstance(text, str) and "<" in clean(text) and bool(_PAPER_SENTINEL.search(clean(text)))


_PLAIN_DECIMAL = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,15})?")
_NUMBER_TEXT = re.compile(r"-?\d{1,30}(?:\.\d{1,30})?(?:\s*/\s*\d{1,30}(?:\.\d{1,30})?)?(?:e-?\d{1,3})?%?")
_THOUSANDS = re.compile(r"(?<![\d.,])([1-9]\d{0,2}(?:,\d{3})+)(?=\.\d|(?![\d,]))")
_DECIMAL_COMMA = re.compile(r"(?<![\d,])(\d+),(\d+)(?![\d,])")
_APPROX = re.compile(
    r"≈|≃|~|=|约等于|约为|约|等于|大约|\bapproximately\b|\bapprox\b\.?|\babout\b|\bis\b", re.IGNORECASE
)


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUPERSCRIPT_RUN = re.compile(r"[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+")
_SPACED_THOUSANDS = re.compile(r"^-?[1-9]\d{0,2}(?:[ \u2009\u202f]\d{3})+(?:\.\d+)?$")
_CJK_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CJK_UNITS = {"十": 10, "百": 100, "千": 1000}
_CJK_NUMBER = re.compile(r"^(?:(\d+(?:\.\d+)?)|([零〇一二两三四五六七八九十百千]+))?\s*(万|亿)?(?:个)?$")


def _chinese_integer(text: str) -> int | None:
    """一 .. 九千九百九十九 ("十二", "两千", "一百零五"); None for anything else."""
    total, digit = 0, None
    for char in text:
        if char in "零〇" and total:
            continue  # 一百零五: the zero only marks a skipped place
        if char in _CJK_DIGITS:
            if digit is not None:
                return None  # two digits in a row ("一二") are not a number
            digit = _CJK_DIGITS[char]
        elif char in _CJK_UNITS:
            total += (1 if digit is None else digit) * _CJK_UNITS[char]
            digit = None
        else:
            return None
    return total + (digit or 0)


def _chinese_number(text: str) -> float | None:
    """ "一万", "1万", "两千", "2.5万", "十亿": numbers as Chinese writes them."""
    match = _CJK_NUMBER.match(text.strip())
    if not match or not any(match.groups()):
        return None
    digits, words, unit = match.groups()
    if digits is not None:
        base: float | None = float(digits) if unit else None  # plain digits are read elsewhere
    elif words is not None:
        base = _chinese_integer(words)
    else:
        return None  # "万" alone is no number
    if base is None:
        return None
    return float(base) * {None: 1, "万": 10_000, "亿": 100_000_000}[unit]


def number(text: str, near: float | None = None, symbols: Mapping[str, float] | None = None) -> float | None:
    """One number, as learners write it: "4.8", "４．８", "≈ 4.8 个", "24/5", "15%",
    "1,228.8" (a thousands comma), "4,8" (a decimal comma), "−9.21" (Unicode minus),
    an expression in the lessons' notation ("ln 10000", "-ln(1/10000)", "log(1e4)",
    "exp(2.3)") or a chain of them ("ln(10000) ≈ 9.21": its sides must agree, the
    last is the learner's number). "1,228" could be either comma: ``near`` (the
    size the question is about) decides. Also "10⁴" (a superscript power), "10 000"
    (spaced thousands), "一万", "1万", "4.8 × 10%", and the question's own symbols
    (``symbols={"V": 10000}`` reads "ln V"). None if it cannot be read as one number."""
    if not isinstance(text, str):
        return None
    if not symbols and _PLAIN_DECIMAL.fullmatch(text):
        return float(text)  # "19.2", "4": what every reading below comes to, read at once
    for name, value in (symbols or {}).items():
        text = re.sub(
            rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", f"({value!r})", text[:MAX_ANSWER_CHARS]
        )
    text = _SUPERSCRIPT_RUN.sub(
        lambda m: "^(" + m.group(0).translate(_SUPERSCRIPTS) + ")", text[:MAX_ANSWER_CHARS]
    )
    cleaned = without_trailing_punctuation(clean(text)).replace("，", ",")
    chinese = _chinese_number(cleaned)
    if chinese is not None:
        return chinese
    if _SPACED_THOUSANDS.match(cleaned):
        cleaned = re.sub(r"[ \u2009\u202f]", "", cleaned)
    if not cleaned or len(cleaned) > 400:
        return None
    sides = [side.strip() for side in _APPROX.split(cleaned) if side.strip()]
    values = [_one_number(side, near) for side in sides]
    if not values or any(value is None for value in values):
        single = _one_number(cleaned.replace("≈", " "), near)
        return single
    first = values[0]
    if all(close(value, first) for value in values):  # type: ignore[arg-type]
        return values[-1]
    return None


_WRITTEN_DECIMAL = re.compile(r"^-?\d{1,30}(?:([.,])(\d{1,30}))?\s*(?:个|nats?|nat|%)?$", re.IGNORECASE)


def decimals_written(text: str) -> int | None:
    """How many decimals the number a learner wrote has ("8.5" -> 1, "约 8.52" -> 2, "9" -> 0);
    None when the answer is not a plain number ("ln 5000" is exact). "8,5" has one (a decimal
    comma), "1,228" none (a thousands comma)."""
    if not isinstance(text, str):
        return None
    cleaned = without_trailing_punctuation(clean(text[:400])).replace("，", ",")
    sides = [side.strip() for side in _APPROX.split(cleaned) if side.strip()]
    match = _WRITTEN_DECIMAL.match(sides[-1]) if sides else None
    if not match:
        return None
    separator, digits = match.groups()
    return 0 if digits is None or (separator == "," and len(digits) == 3) else len(digits)


def close(a: float, b: float) -> bool:
    """Equal to the precision people round to (1 %, or 0.011)."""
    return abs(a - b) <= max(0.011, 0.01 * max(abs(a), abs(b)))


def _one_number(text: str, near: float | None) -> float | None:
    expression = evaluate(text)
    if expression is not None:
        return expression
    readings = {_plain_number(_THOUSANDS.sub(lambda m: m.group(1).replace(",", ""), text))}
    readings.add(_plain_number(_DECIMAL_COMMA.sub(r"\1.\2", text)))
    readings.discard(None)
    if len(readings) == 1:
        return readings.pop()
    if len(readings) > 1 and near is not None:
        best = min(readings, key=lambda value: abs(value - near))  # type: ignore[operator]
        return best
    if len(readings) > 1:  # "1,228": a thousands comma in the course's own usage
        return _plain_number(_THOUSANDS.sub(lambda m: m.group(1).replace(",", ""), text))
    return None


def _plain_number(text: str) -> float | None:
    found = _NUMBER_TEXT.findall(text)
    if len(found) != 1:
        return None
    token = found[0].replace(" ", "")
    percent = token.endswith("%")
    token = token.rstrip("%")
    try:
        value = float(Fraction(token)) if "/" in token else float(token)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    if not math.isfinite(value):
        return None
    return value / 100 if percent else value


_EXPRESSION_TOKEN = re.compile(
    r"\s*(?:(\d+(?:\.\d*)?(?:e[+-]?\d{1,3})?%?|\.\d+%?)|(ln|log_?e|log10|log2|log|exp|sqrt)|(\*\*|[-+*/^()×÷·])|(e|π|pi))",
    re.IGNORECASE,
)
_FUNCTIONS = {
    "ln": math.log,
    "log": math.log,  # the lessons' log is the natural one
    "loge": math.log,
    "log_e": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": math.exp,
    "sqrt": math.sqrt,
}


def evaluate(text: str) -> float | None:
    """A small arithmetic expression (numbers, + - * / ^, parentheses, ln/log/exp/
    sqrt, e, pi); None when it is not one. Never evaluates anything else, and
    refuses results that are not finite."""
    tokens = _expression_tokens(text)
    if tokens is None or (
        not any(kind == "fn" for kind, _ in tokens)
        and not any(value in "*/^()×÷·" or value == "**" for kind, value in tokens if kind == "op")
    ):
        return None  # a plain number (or a slash fraction) is read elsewhere
    parser = _Expression(tokens)
    try:
        value = parser.sum()
        if parser.position != len(tokens):
            return None
    except (ValueError, ZeroDivisionError, OverflowError, IndexError, TypeError):
        return None
    return value if isinstance(value, float) and math.isfinite(value) else None


def _expression_tokens(text: str) -> list[tuple[str, str]] | None:
    tokens: list[tuple[str, str]] = []
    position = 0
    text = text.strip()
    while position < len(text):
        match = _EXPRESSION_TOKEN.match(text, position)
        if not match or match.end() == position:
            return None
        number_text, function, operator, constant = match.groups()
        if number_text is not None:  # "10%" is 0.1 inside an expression too
            percent = number_text.endswith("%")
            value = number_text.rstrip("%")
            tokens.append(("num", repr(float(value) / 100) if percent else value))
        elif function is not None:
            tokens.append(("fn", function.lower().replace("_", "")))
        elif operator is not None:
            tokens.append(("op", {"×": "*", "·": "*", "÷": "/", "**": "^"}.get(operator, operator)))
        else:
            tokens.append(("num", str(math.e) if constant.lower() == "e" else str(math.pi)))
        position = match.end()
        if len(tokens) > 60:
            return None
    return tokens or None


class _Expression:
    """Recursive descent over the tokens: sum -> product -> unary -> power -> atom."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.position = 0
        self.depth = 0

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _take(self) -> tuple[str, str]:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def sum(self) -> float:
        value = self.product()
        while (token := self._peek()) and token in (("op", "+"), ("op", "-")):
            self._take()
            value = value + self.product() if token[1] == "+" else value - self.product()
        return value

    def product(self) -> float:
        value = self.unary()
        while (token := self._peek()) and token in (("op", "*"), ("op", "/")):
            self._take()
            value = value * self.unary() if token[1] == "*" else value / self.unary()
        return value

    def unary(self) -> float:
        token = self._peek()
        if token == ("op", "-"):
            self._take()
            return -self.unary()
        if token == ("op", "+"):
            self._take()
            return self.unary()
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self._peek() == ("op", "^"):
            self._take()
            exponent = self.unary()
            if abs(exponent) > 1000 or abs(base) > 1e100:
                raise OverflowError
            return float(base**exponent)
        return base

    def atom(self) -> float:
        self.depth += 1
        if self.depth > 50:
            raise ValueError("too deep")
        kind, value = self._take()
        if kind == "num":
            return float(value)
        if kind == "fn":
            function = _FUNCTIONS[value]
            argument = self.atom() if self._peek() == ("op", "(") else self.power()
            if function is math.exp and argument > 700:
                raise OverflowError
            return float(function(argument))
        if (kind, value) == ("op", "("):
            inner = self.sum()
            if self._take() != ("op", ")"):
                raise ValueError("unbalanced")
            return inner
        raise ValueError(f"unexpected {value}")


# A choice said in words around its letter: "选项B。", "我选 B 吧", "答案应该是（B）", "B 是对的",
# "the answer is B", "I'd pick (b)". The words below carry no choice of their own; once they are
# gone, what is left must be one letter. A negation anywhere ("不是B", "not B") names no option.
_CHOICE_WORDS_ZH = re.compile(
    r"我的|我们|我|选择|选项|选|正确|答案|答|应该|应当|应|就是|肯定|当然|觉得|认为|是|为|的|吧|呢|啊|呀|哦|了|对|个|项"
)
_CHOICE_WORDS_EN = re.compile(
    # (an apostrophe reads as a space: "I'd" is "i d", "it's" is "it s")
    r"\b(?:i(?:\s+(?:d|ll|m))?|it(?:\s+s)?|that(?:\s+s)?|my|me|we|go|going|with|choose|chose|pick|picked|"
    r"select|selected|answer|option|choice|letter|the|is|its|would|will|say|think|guess|correct|right|"
    r"final|be|should|must|probably|definitely|surely|maybe|perhaps|one)\b",
    re.IGNORECASE,
)
_CHOICE_NEGATION = re.compile(
    r"不|没|非|否|错|别|除|\b(?:not|no|never|wrong|incorrect|except|neither|nor)\b|n\s*t\b", re.IGNORECASE
)
_BECAUSE = re.compile(r"[\s,，;；:：]+(?:because|since|因为|由于)", re.IGNORECASE)
_LETTER_AND_TEXT = re.compile(r"^[(（]?([A-Fa-f])[)）.:：、,，]\s*(.+)$")
_SQUASH = re.compile(r"[\s\W_]+", re.UNICODE)


def _squashed(text: str) -> str:
    return _SQUASH.sub("", clean(text).lower())


def _letter_said(cleaned: str) -> int | None:
    """The 0-based letter a choice said in words names, or None (a negation, another word)."""
    if len(cleaned) > 80 or _CHOICE_NEGATION.search(cleaned):
        return None
    rest = _CHOICE_WORDS_ZH.sub("", _CHOICE_WORDS_EN.sub(" ", cleaned.lower()))
    rest = _SQUASH.sub("", rest)
    return ord(rest) - ord("a") if len(rest) == 1 and "a" <= rest <= "f" else None


def _negations(text: str) -> int:
    return len(_CHOICE_NEGATION.findall(text))


def choice(text: str, options: int, option_texts: Sequence[str] | None = None) -> int | None:
    """A multiple-choice answer -> the 0-based option index: a letter, alone or said in words
    ("B", "(b)", "选项B。", "答案是 B", "I'd pick B", "B, because ..."), a number as printed
    ("2"), or an option's whole text typed out, alone or with its letter ("B. 仅编码器")
    or with words around it ("I choose <the text>"). A piece of an option's text is no
    option ("inf" inside "…appears in fine-tuning…"). None when it names no single option."""
    cleaned = without_trailing_punctuation(clean(text))
    if not cleaned:
        return None
    because = _BECAUSE.search(cleaned)
    said = _letter_said(cleaned[: because.start()] if because else cleaned)
    if said is not None:
        return said if said < options else None
    if option_texts:
        found = _option_named(cleaned, options, option_texts)
        if found is not None:
            return found
    numbers = integers(cleaned)
    if numbers and len(numbers) == 1 and re.fullmatch(r"[(（]?\d+[)）.]?", cleaned):
        return numbers[0] - 1 if 1 <= numbers[0] <= options else None
    return None


def _option_named(cleaned: str, options: int, option_texts: Sequence[str]) -> int | None:
    """The option whose whole text the answer types (with its own letter, or words around it)."""
    typed = _squashed(cleaned)
    written = [_squashed(option) for option in option_texts]
    leading = _LETTER_AND_TEXT.match(cleaned)
    if leading:  # "B) encoder-only" or "B. 仅编码器": the letter and its text must agree
        index = ord(leading.group(1).upper()) - ord("A")
        rest = _squashed(leading.group(2))
        if index < options and rest and (rest in written[index] or written[index] in rest):
            return index
    if not typed:
        return None
    exact = [i for i, option in enumerate(written) if option == typed]
    if len(exact) == 1:
        return exact[0]
    around = [i for i, option in enumerate(written) if option and option in typed]
    if len(around) == 1 and _negations(cleaned) <= _negations(option_texts[around[0]]):
        return around[0]  # "I choose <the option's text>", never "not <the option's text>"
    return None


_NEGATION = re.compile(
    r"(?:\b(?:not|no|nothing|never|isn't|isnt|aren't|doesn't|without)\b(?:\s+\w+){0,2}\s*$)"
    r"|(?:不|没|没有|无|并非|并不|不是|没什么|没啥)\s*$",
    re.IGNORECASE,
)


def judgement(text: str, good: Sequence[str], bad: Sequence[str]) -> bool | None:
    """A yes/no judgement in words, negation understood: with good = ("normal",
    "正常") and bad = ("wrong", "问题"), "没问题" and "nothing is wrong" are good,
    "不正常" and "not normal" are bad. True (good), False (bad) or None when the
    words say neither or both."""
    cleaned = without_trailing_punctuation(clean(text)).lower()
    verdicts: set[bool] = set()
    for words, polarity in ((good, True), (bad, False)):
        for word in words:
            pattern = re.escape(word.lower())
            if word.isascii():
                pattern = rf"(?<![a-z]){pattern}(?![a-z])"
            for match in re.finditer(pattern, cleaned):
                negated = _NEGATION.search(cleaned[max(0, match.start() - 24) : match.start()]) is not None
                verdicts.add(polarity != negated)
    return verdicts.pop() if len(verdicts) == 1 else None


_SELF_MARKS = (
    (
        1.0,
        ("yes", "y", "是", "对", "会", "full", "1", "答对了", "对了", "全对", "had it", "i had it", "right"),
    ),
    (
        0.5,
        (
            "partly",
            "partial",
            "part",
            "p",
            "half",
            "部分",
            "一半",
            "有一半",
            "部分对",
            "对了一半",
            "半对",
            "0.5",
            "50%",
        ),
    ),
    (
        0.0,
        (
            "no",
            "n",
            "x",
            "否",
            "不",
            "不会",
            "0",
            "没答对",
            "答错了",
            "错了",
            "不对",
            "没对",
            "missed",
            "missed it",
            "wrong",
        ),
    ),
)


def self_mark(text: str) -> float | None:
    """A reflection's self-assessment: yes / partly / no (是 / 部分 / 否), the app's keys
    y / p / x, and how people say it ("答对了", "有一半", "没答对", "Yes.")."""
    word = re.sub(r"\s+", " ", without_trailing_punctuation(clean(text)).lower())
    for score, words in _SELF_MARKS:
        if word in words:
            return score
    return None
