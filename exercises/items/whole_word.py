"""whole-word-masking: a sentence as the course's WordPiece tokenizer cuts it (English) or
as Chinese BERT reads it, one character per token, with a word segmenter's words (Chinese).
Whole-word masking selected the words some pieces belong to: which positions does it
select, and what is the label at each?

The pieces and the words are the engine's (``engine.subwords``: Hugging Face's WordPiece
trained on the course's text); so are the selection and the labels (``engine.mlm``'s
whole-word masking, every selected piece given the [MASK] fate). What it targets: masking
whole words selects every piece of a word together (not the one piece named), and each
piece keeps its own label (the piece, not the word)."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from engine.subwords import CONTINUATION, DEFAULT_VOCAB, EN_TEXT, ZH_SEGMENTED
from engine.tokens import CLS, SEP
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import (
    HALF,
    ONE_BASED_CAP,
    LabelComparison,
    grade_label_map,
    grade_position_set,
    same_token,
)
from exercises.items.banks import language_note, rng_for
from exercises.text import L, listing

ID = "whole-word-masking"
PIECE_ONLY = "wwm-piece-only"
WHOLE_WORD_LABEL = "wwm-label-whole-word"

# Short lines of the tokenizer's own text, each with at least one word it cuts into pieces
# (tests/test_subwords.py checks it), and the Chinese sentences as a segmenter cut them.
EN_SENTENCES = tuple(EN_TEXT[i] for i in (0, 6, 10, 19, 22, 24, 28))
SENTENCES = (*EN_SENTENCES, *ZH_SEGMENTED)
BIG = 1000  # the draw's numbers, reduced modulo the counts the tokenizer gives


def _draw(seed: int) -> dict:
    """The sentence and the numbers that pick the selected words (torch- and tokenizer-free)."""
    if seed == 0:  # the course sentence; "corpora", named by its second piece
        return {"sentence": 0, "word": 1, "piece": 0, "extra": None}
    rng = rng_for(ID, seed)
    return {
        "sentence": rng.randrange(len(SENTENCES)),
        "word": rng.randrange(BIG),
        "piece": rng.randrange(BIG),
        "extra": rng.randrange(BIG) if rng.random() < 0.5 else None,
    }


@functools.lru_cache(maxsize=64)
def _pieces(sentence: str):
    from engine.subwords import tokenize

    return tokenize(sentence, DEFAULT_VOCAB, add_cls_sep=True)


@functools.lru_cache(maxsize=1024)
def _masked(spaced: str, named: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[str | None, ...]]:
    """The engine's masking of the pieces with the named pieces' whole words selected (the
    words as its whole-word masking reads them, ``engine.samples.pieces_with_words``), every
    selected piece [MASK]ed: the fates are not what is asked. (selected positions, labels)"""
    from engine.samples import mlm_sample, pieces_with_words

    words = pieces_with_words(spaced)[1]  # [CLS] and [SEP] included: no word (-1)
    chosen = [i for i, word in enumerate(words) if word >= 0 and word in {words[n] for n in named}]
    sample = mlm_sample(spaced, positions=chosen, whole_word=True)
    return tuple(i for i, selected in enumerate(sample.selected) if selected), tuple(sample.labels)


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    params = _draw(seed)
    sentence = SENTENCES[params["sentence"]]
    pieces = _pieces(sentence)
    tokens, words = list(pieces.pieces), list(pieces.words)
    members = {w: [i for i, x in enumerate(words) if x == w] for w in sorted(set(words)) if w >= 0}
    multi = [w for w, at in members.items() if len(at) > 1]
    word = multi[params["word"] % len(multi)]
    named = [members[word][1:][params["piece"] % (len(members[word]) - 1)]]  # a piece after the first
    if params["extra"] is not None:
        others = [w for w in members if w != word and _is_word(tokens[members[w][0]])]
        if others:
            other = others[params["extra"] % len(others)]
            named.append(members[other][params["piece"] % len(members[other])])
    named.sort()
    selected, labels = _masked(pieces.spaced(), tuple(named))
    data = {
        **params,
        "tokens": tokens,
        "words": words,
        "named": named,
        "selected": list(selected),
        "labels": {str(i): labels[i] for i in selected},
        "chinese": any(_chinese(token) for token in tokens),
    }
    return Variant(ID, seed, data, _prompt(data, sentence), question_key_of(params))


def _is_word(piece: str) -> bool:
    return any(char.isalnum() for char in piece)


def _chinese(token: str) -> bool:
    from engine.tokens import is_cjk

    return len(token) == 1 and is_cjk(token) and token.isalpha()


def _prompt(data: dict, sentence: str):
    tokens = data["tokens"]
    table = " ".join(f"{i}:{token}" for i, token in enumerate(tokens))
    named = listing(data["named"])
    words = " / ".join(sentence.split())
    if data["chinese"]:
        setting = L(
            f"Chinese BERT reads one character per token: {table}. A word segmenter (Chinese BERT-wwm used "
            f"LTP) cut the sentence into the words “{words}”.",  # quoted: the sentence's own 。 is a word
            f"中文 BERT 按字读，一个汉字一个 token：{table}。分词器（中文 BERT-wwm 用的是 LTP）把句子切成了这些词："
            f"“{words}”。",
        )
    else:
        setting = L(
            f"BERT reads this sentence as WordPiece pieces (the course's tokenizer, vocabulary {DEFAULT_VOCAB}; "
            f"{CONTINUATION} marks a piece that continues the word before it): {table}.",
            f"BERT 把这句话读成 WordPiece 子词（本课的分词器，词表 {DEFAULT_VOCAB}；{CONTINUATION} 表示这一片接着前一片，"
            f"属于同一个词）：{table}。",
        )
    prompt = L(
        f"{setting['en']} Whole-word masking selected the word(s) that position(s) {named} belong to.\n"
        "1. Which positions are selected?\n2. The label at each selected position (position: token)?",
        f"{setting['zh']}整词掩码选中了位置 {listing(data['named'], 'zh')} 所在的词。\n"
        "1. 哪些位置被选中？\n2. 每个被选中位置的标签是什么？（位置：token）",
    )
    return language_note(prompt, tokens, typed=True)


class WholeWord(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        """A selected word of several pieces, named by a piece that is not its first, and
        positions left unselected: neither "the named pieces" nor "everything" is right."""
        data = variant.data
        words, selected = data["words"], set(data["selected"])
        content = [i for i, w in enumerate(words) if w >= 0]
        return set(data["named"]) < selected and len(selected) < len(content)

    def solve(self, variant: Variant) -> dict[str, str]:
        data = variant.data
        return {
            "positions": ", ".join(map(str, data["selected"])),
            "labels": ", ".join(f"{i}: {data['labels'][str(i)]}" for i in data["selected"]),
        }

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        tokens = variant.data["tokens"]
        if part == "positions":
            return Parsed(parsing.positions(text, None, n=len(tokens)))
        return Parsed(
            parsing.labels(text, len(tokens)),
            L(
                "Position: token pairs (e.g. 2: play, 3: ##ing), or a label row with -100 where no label is.",
                "“位置：token”（如 2: play, 3: ##ing），或一行标签，没有标签处写 -100。",
            ),
        )

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        tokens, words = data["tokens"], data["words"]
        expected = set(data["selected"])
        named = set(data["named"])
        results: dict[str, PartResult] = {}
        codes: list[str] = []

        def diagnose(given: set[int]) -> list[str]:
            found = []
            if named <= given < expected:
                found.append(PIECE_ONLY)
            if any(i < len(tokens) and tokens[i] in (CLS, SEP) for i in given - expected):
                found.append("specials-selected")
            return found

        if "positions" in parsed:
            results["positions"], found = grade_position_set(
                set(parsed["positions"].value), expected, diagnose, RULE
            )
            codes += found
        if "labels" in parsed:
            given = _with_continuations(parsed["labels"].value, data["labels"])
            want = {int(i): token for i, token in data["labels"].items()}

            def diagnose_labels(found: LabelComparison) -> list[str]:
                out = []
                word_of = {
                    i: "".join(
                        t.removeprefix(CONTINUATION) for j, t in enumerate(tokens) if words[j] == words[i]
                    )
                    for i in want
                }
                if any(
                    same_token(given[i], word_of[i]) for i in found.wrong if len(word_of[i]) > len(tokens[i])
                ):
                    out.append(WHOLE_WORD_LABEL)
                if found.missing and named <= set(given) and not found.extra:
                    out.append(PIECE_ONLY)
                if found.extra:
                    out.append("labels-for-unselected")
                return out

            results["labels"], found = grade_label_map(given, want, diagnose_labels, LABEL_RULE)
            codes += found
        return results, codes


def _with_continuations(given: dict[int, str], expected: Mapping[str, str]) -> dict[int, str]:
    """A piece written without its ## ("p" for "##p") is that piece: the exercise asks where
    the labels go and what they are, not how WordPiece marks them."""
    out = dict(given)
    for i, token in given.items():
        want = expected.get(str(i))
        if want and want.startswith(CONTINUATION) and same_token(CONTINUATION + token, want):
            out[i] = want
    return out


RULE = L(
    "Every piece of a selected word is selected, and nothing else.",
    "被选中的词，它的每一片都被选中；别的都不选。",
)
LABEL_RULE = L(
    "Each selected piece is predicted at its own position: its label is that piece.",
    "每个被选中的片在自己的位置上被预测：标签就是这一片。",
)

RUBRIC = Rubric(
    full=L(
        "Every piece of the selected words, and at each its own piece as the label.",
        "选中词的每一片都选上，每个位置的标签是它自己那一片。",
    ),
    partial=(
        L("Each part counts half.", "两部分各占一半。"),
        L("Positions: overlap with the right set.", "位置：与正确集合的重合度。"),
        L(
            "Labels: right labels ÷ (labels expected + labels given where none belongs).",
            "标签：写对的标签 ÷（应有的标签数 + 多写的标签数）。",
        ),
    ),
    caps=((PIECE_ONLY, HALF), (WHOLE_WORD_LABEL, HALF), ("specials-selected", HALF), ONE_BASED_CAP),
)

EXERCISES = (
    WholeWord(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Whole-word masking: which pieces go together", "整词掩码：哪些片一起遮"),
        parts=(
            Part(
                "positions",
                L("selected positions", "被选中的位置"),
                L("positions, e.g. 2, 3", "位置，如 2, 3"),
            ),
            Part(
                "labels",
                L("labels", "标签"),
                L("position: token pairs, e.g. 2: play, 3: ##ing", "“位置：token”，如 2: play, 3: ##ing"),
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                f"A piece starting with {CONTINUATION} belongs to the same word as the piece before it.",
                f"以 {CONTINUATION} 开头的片和它前面那一片属于同一个词。",
            ),
            L(
                "Whole-word masking decides per word: a word is hidden entirely or not at all.",
                "整词掩码按词决定：一个词要么整个遮住，要么完全不遮。",
            ),
            L(
                "The model predicts pieces, one per position, as before; only the choice of positions changed.",
                "模型照旧在每个位置预测一片；变的只是选哪些位置。",
            ),
        ),
    ),
)
