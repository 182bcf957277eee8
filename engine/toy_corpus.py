"""The training lab's toy languages, generated from a seed (nothing is downloaded).

Each language is built so that two tasks need opposite directions of context:

* **continue**: the token right after the comma is decided by the connective at
  the start of the sentence (因为 … ，所以 …; "because … , so …"): only the left
  context knows it, so a model trained to continue text can learn it;
* **fill the middle**: the measure word is decided by the noun after it
  (三_书 → 本; "three _ of tea" → cups): the left context says nothing about it,
  so only a model that reads the right context can fill it.

Chinese is one token per character, English one token per word (punctuation is
a word of its own). The arithmetic language ("3+4=7;") is the contrast case:
the answer after "=" is decided on the left, and the blank in "3+_=7;" by both sides.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field

from engine.errors import InvalidInput
from engine.tokens import BASE_SPECIALS, EOS, MASK, UNK, Vocab, sentinel, split_characters

CORPORA = ("zh", "en", "arith")
N_SENTINELS = 4  # span corruption hides at most a few spans of a 32-token window


@dataclass(frozen=True)
class Sentence:
    """One generated sentence, with where its two test targets stand."""

    tokens: tuple[str, ...]
    continue_at: int  # index of the token decided by the left context
    fill_at: int  # index of the token decided by the right context
    cue_left: int  # index of the token that decides ``continue_at``
    cue_right: int  # index of the token that decides ``fill_at``


@dataclass(frozen=True)
class Grammar:
    """The rules of one toy language, as data (a learner can print them)."""

    name: str
    pairs: tuple[tuple[str, str], ...]  # first connective -> the one after the comma
    measures: tuple[tuple[str, tuple[str, ...]], ...]  # measure word -> the nouns it counts
    subjects: tuple[str, ...] = ()
    times: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()
    endings: tuple[str, ...] = ()
    joiner: str = ""  # between tokens when shown as text
    phrases: int = 2  # counted things per sentence ("三本书和两杯茶"): twice the practice for the blank
    extra_tokens: tuple[str, ...] = field(default=())

    def measure_of(self, noun: str) -> str:
        return next(measure for measure, nouns in self.measures if noun in nouns)

    def follower_of(self, opener: str) -> str:
        return dict(self.pairs)[opener]

    @property
    def continue_choices(self) -> tuple[str, ...]:
        return tuple(self._first(second) for _, second in self.pairs)

    @property
    def fill_choices(self) -> tuple[str, ...]:
        return tuple(measure for measure, _ in self.measures)

    def _first(self, word: str) -> str:
        return self.split(word)[0]

    def split(self, text: str) -> list[str]:
        """Tokens of a phrase: characters for Chinese, words for English."""
        return split_characters(text) if self.joiner == "" else text.split()

    def sentence(self, rng: random.Random) -> Sentence:
        opener, follower = rng.choice(self.pairs)
        subject, time, verb = rng.choice(self.subjects), rng.choice(self.times), rng.choice(self.verbs)
        ending = rng.choice(self.endings)
        split = self.split
        chinese = self.joiner == ""
        # 因为 小明 昨天 买了 三 本 书 [和 两 杯 茶] ， 所以 大家很高兴 。
        # because tom bought three cups of tea [and two bowls of rice] yesterday , so everyone smiled .
        clause = [*split(opener), *split(subject), *(split(time) if chinese else []), *split(verb)]
        for index in range(self.phrases):
            if index:
                clause.append("和" if chinese else "and")
            measure, nouns = rng.choice(self.measures)
            clause.append(rng.choice(self.numbers))
            fill_at = len(clause)  # the last phrase's measure word is the blank
            clause += [measure, rng.choice(nouns)] if chinese else [measure, "of", rng.choice(nouns)]
            cue_right = len(clause) - 1
        if not chinese:
            clause += split(time)
        continue_at = len(clause) + 1
        comma, stop = ("，", "。") if chinese else (",", ".")
        tokens = [*clause, comma, *split(follower), *split(ending), stop]
        return Sentence(tuple(tokens), continue_at, fill_at, 0, cue_right)

    def rules(self) -> dict[str, object]:
        return {
            "name": self.name,
            "continue": {opener: follower for opener, follower in self.pairs},
            "fill": {measure: list(nouns) for measure, nouns in self.measures},
            "example": None,
        }


ZH = Grammar(
    name="zh",
    pairs=(("因为", "所以"), ("虽然", "但是"), ("如果", "那么"), ("不但", "而且")),
    measures=(
        ("本", ("书",)),
        ("杯", ("茶", "水")),
        ("只", ("猫", "狗")),
        ("辆", ("车",)),
        ("把", ("伞", "刀")),
        ("张", ("纸", "票")),
        ("条", ("鱼", "裙")),
        ("双", ("鞋", "筷")),
    ),
    subjects=("小明", "小红", "老师", "妈妈", "我们"),
    times=("昨天", "今天", "明天"),
    verbs=("买了", "要了", "拿了", "看了"),
    numbers=tuple("两三四五六"),
    endings=("大家很高兴", "我们回家", "大家笑了", "大家都走了"),  # no 他/她: any subject fits
)

EN = Grammar(
    name="en",
    pairs=(("because", "so"), ("although", "yet"), ("if", "then"), ("since", "thus")),
    measures=(
        ("cups", ("tea", "coffee")),
        ("bottles", ("milk", "water")),
        ("slices", ("cake", "pizza")),
        ("pairs", ("shoes", "socks")),
        ("bowls", ("rice", "soup")),
        ("boxes", ("pens", "eggs")),
        ("loaves", ("bread",)),
        ("sheets", ("paper",)),
    ),
    subjects=("tom", "anna", "mum", "we", "they"),
    times=("yesterday", "today", "again"),
    verbs=("bought", "wanted", "got", "saw"),
    numbers=("two", "three", "four", "five", "six"),
    endings=("everyone was happy", "we went home", "everyone smiled", "everyone left"),
    joiner=" ",
)


class Arithmetic:
    """ "a+b=c;" with one-digit a and b, one token per character.

    The answer after "=" is decided by the left (a and b); the blank b in
    "a+_=c;" is decided by a on the left and c on the right together."""

    name = "arith"
    joiner = ""
    continue_choices = tuple("0123456789")
    fill_choices = tuple("0123456789")

    def sentence(self, rng: random.Random) -> Sentence:
        a, b = rng.randrange(10), rng.randrange(10)
        tokens = [str(a), "+", str(b), "=", *str(a + b), ";"]
        return Sentence(tuple(tokens), 4, 2, 0, 4)

    def split(self, text: str) -> list[str]:
        return [char for char in text if not char.isspace()]

    def rules(self) -> dict[str, object]:
        return {"name": "arith", "continue": "c = a + b", "fill": "b = c - a", "example": None}


LANGUAGES = {"zh": ZH, "en": EN, "arith": Arithmetic()}


def grammar(name: str) -> Grammar | Arithmetic:
    if name not in LANGUAGES:
        raise InvalidInput("unknown-corpus", corpus=name)
    return LANGUAGES[name]


def sentences(name: str, count: int, seed: int) -> list[Sentence]:
    """``count`` sentences of a language; the same seed gives the same list everywhere."""
    language = grammar(name)
    rng = random.Random(f"{name}:{seed}")
    return [language.sentence(rng) for _ in range(count)]


@functools.lru_cache(maxsize=8)
def vocabulary(name: str) -> Vocab:
    """(Cached: treat it as read-only.) Every token the language can produce, after the specials, T5's sentinels
    and </s>: the same ids for every objective and every seed."""
    language = grammar(name)
    vocab = Vocab(list(BASE_SPECIALS))
    for index in range(N_SENTINELS):
        vocab.add(sentinel(index))
    vocab.n_sentinels = N_SENTINELS
    vocab.add(EOS)
    rng = random.Random(0)
    seen: set[str] = set()
    tokens: list[str] = []
    for _ in range(4000):  # every rule is drawn many times over: all tokens appear
        for token in language.sentence(rng).tokens:
            if token not in seen:
                seen.add(token)
                tokens.append(token)
    for token in sorted(tokens):
        vocab.add(token)
    return vocab


def tokenize(name: str, text: str) -> list[str]:
    """A learner's text as the language's tokens (unknown ones become [UNK] on encoding).

    Chinese: one token per character (full-width ，。 kept; ASCII , . read as them);
    English: lower-case words, with , . ; as words of their own; arithmetic: characters.
    Written [MASK] / _ / ＿ mark a blank.
    """
    language = grammar(name)
    text = text.replace("[MASK]", "\0").replace("＿", "\0").replace("_", "\0")
    if name == "zh":
        text = text.replace(",", "，").replace(".", "。")
        tokens = [char for char in text if not char.isspace()]
    elif name == "en":
        for mark in ",.;":
            text = text.replace(mark, f" {mark} ")
        tokens = text.lower().replace("\0", " \0 ").split()
    else:
        tokens = language.split(text.replace("\0", " \0 ").replace(" ", ""))
    return ["[MASK]" if token == "\0" else token for token in tokens]


def _pattern(language: Grammar) -> tuple[list[tuple[str, ...]], int]:
    """A sentence of ``language`` as slots, each the tuple of token sequences it may hold
    (joined by spaces): what ``Grammar.sentence`` writes, read back as a pattern; and the
    slot of the last counted thing's measure word (the test set's blank)."""
    chinese = language.joiner == ""

    def words(options) -> tuple[str, ...]:
        return tuple(" ".join(language.split(option)) for option in options)

    phrase = [words(language.numbers), tuple(m for m, _ in language.measures)]
    phrase += [] if chinese else [("of",)]
    phrase += [tuple(noun for _, nouns in language.measures for noun in nouns)]
    slots = [words(opener for opener, _ in language.pairs), words(language.subjects)]
    slots += [words(language.times)] if chinese else []
    slots += [words(language.verbs)]
    for index in range(language.phrases):
        slots += [("和" if chinese else "and",)] if index else []
        blank = len(slots) + 1
        slots += phrase
    slots += [] if chinese else [words(language.times)]
    slots += [("，" if chinese else ",",), words(f for _, f in language.pairs), words(language.endings)]
    return [*slots, ("。" if chinese else ".",)], blank


def fits(name: str, text: str) -> bool:
    """Whether a probe is one the models were tested on: a continue probe is the start of a
    sentence of the language up to its comma; a fill probe is a whole sentence with its
    last counted thing's measure word as the one blank (where the test set puts it), the
    rest as the language writes it. A probe outside this is fair to type, but it asks the
    models about text they never saw (the lesson says so)."""
    language = grammar(name)
    if not isinstance(language, Grammar):
        return False
    tokens = tokenize(name, text)
    slots, blank_slot = _pattern(language)
    blank = tokens.count(MASK)
    comma = len(slots) - 4
    if blank == 0:
        ending = slots[: comma + 1]
    elif blank == 1:
        ending = slots
    else:
        return False
    at = 0
    for index, options in enumerate(ending):
        for option in sorted(options, key=len, reverse=True):
            size = len(option.split())
            piece = tokens[at : at + size]
            if " ".join(piece) == option or (piece == [MASK] and index == blank_slot):
                at += size
                break
        else:
            return False
    return at == len(tokens)


def unknown(vocab: Vocab, tokens: list[str]) -> list[str]:
    """The tokens of ``tokens`` that the vocabulary does not know (they read as [UNK])."""
    return [token for token in tokens if token != UNK and vocab.id_of(token) == vocab.id_of(UNK)]
