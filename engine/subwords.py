"""Subwords: a real WordPiece tokenizer, trained at run time on the course's own text.

BERT does not read whole words: its WordPiece vocabulary keeps frequent words whole and
cuts rarer ones into pieces, a piece that continues a word written ``##piece``
("corpora" -> ``cor ##p ##or ##a`` with this course's small vocabulary). Chinese BERT
puts a space around every CJK character before WordPiece runs, so Chinese is read one
character per token (``BasicTokenizer._tokenize_chinese_chars`` in Google's code; Hugging
Face's ``BertNormalizer(handle_chinese_chars=True)``, used here).

Whole-word masking (Google's ``--do_whole_word_mask``, 2019; Chinese BERT-wwm, Cui et al.,
arXiv:1906.08101) selects words, not pieces, and hides every piece of a selected word; each
piece is still predicted on its own and gets its own 80/10/10 fate. For Chinese, the words
come from a word segmenter (BERT-wwm used LTP): here, from the spaces the text is written
with, as the rest of the course reads Chinese (``engine.tokens.split_text``).

The tokenizer is Hugging Face's ``tokenizers``: its ``WordPieceTrainer`` on the text below
(nothing is downloaded), its ``WordPiece`` model, ``BertNormalizer`` and
``BertPreTokenizer``. The trainer alone is not reproducible from run to run
(huggingface/tokenizers issue #1794): it numbers each ``##`` continuation of a character
the first time it meets it while walking a hash map, and those numbers break ties between
merges of equal count. Declaring every continuation up front, in sorted order, numbers
them the same way in every process (the fix proposed upstream in pull request #2066), so
the same vocabulary size gives the same vocabulary on every machine.

Importing this module imports neither torch nor ``tokenizers``: the exercise's
torch-free draw reads the sentences below; training and masking import what they need.
"""

from __future__ import annotations

import functools
import unicodedata
from dataclasses import dataclass

from engine.errors import InvalidInput
from engine.settings import MASK_RATE
from engine.tokens import BASE_SPECIALS, CLS, LESSON_SENTENCE, SEP, UNK, is_cjk

CONTINUATION = "##"  # WordPiece's mark of a piece that continues the word before it
MAX_TEXT_CHARS = 400  # a sentence to look at, not a book: refused before anything is allocated
DEFAULT_VOCAB = 300  # where the course's sentence shows two words in pieces
# The figure's vocabulary sizes: the smallest the trainer makes (characters only), then merges.
VOCAB_STEPS = (0, 200, 250, 300, 350, 400, 450, 1000)

# The text the tokenizer learns from: written for this course about what it teaches.
# Each line is one training text. "corpus" is frequent, "corpora" rare: the vocabulary
# keeps the first whole and cuts the second.
EN_TEXT = (
    LESSON_SENTENCE,
    "a corpus is a collection of text, and a model is trained on a corpus.",
    "the corpus is split into tokens; the tokens are split into pieces.",
    "language models are pretrained on a large corpus before they are fine tuned",
    "pretraining uses no human labels and the labels are made from the text itself",
    "a causal language model predicts the next token from the tokens on its left",
    "a masked language model predicts the masked tokens from both sides",
    "masking selects some tokens and the selected tokens are masked",
    "a masked token is replaced by the mask token or by a random token or kept",
    "the model is trained to fill in the blanks and to predict the next word",
    "the tokenizer is trained on the corpus and splits rare words into pieces",
    "common words stay whole and rare words are split into several pieces",
    "whole word masking masks every piece of a selected word together",
    "span corruption replaces spans of text with sentinel tokens",
    "the encoder reads the whole sentence and the decoder writes the target",
    "attention lets every token look at the other tokens in the window",
    "training windows are cut from the documents of the corpus packed together",
    "each document ends with an end token and then the next document begins",
    "the cat sat quietly on the warm mat today!",
    "we pretrain small models on large text collections",
    "self supervision builds labels from the text itself",
    "summaries need a model that reads then writes",
    "an encoder reads the whole sentence at once",
    "a decoder continues text one token at a time",
    "masked tokens are filled in from both sides",
    "does the model learn to predict what is missing? it does: it reads the text.",
    "a transformer is a stack of attention layers and each layer transforms the tokens",
    "models learn from patterns in the text and the patterns they learn are useful",
    "learning the patterns of a language takes a lot of text and a lot of training",
    "the learned model transforms its input one layer at a time",
)

# Chinese, written as a word segmenter would cut it (spaces between words). The tokenizer
# learns from them with the spaces taken out, as Chinese is written; whole-word masking
# reads the words from the spaces.
ZH_SEGMENTED = (
    "模型 根据 上文 预测 下一个 词 。",
    "自监督 从 文本 本身 造出 标签",
    "编码器 一次 读完 整个 句子",
    "解码器 只能 看到 过去 的 内容",
    "我们 用 大量 文本 预训练 模型",
    "填空题 要 看 左右 两边 的 词",
    "续写 只 看 前面 的 文字",
    "整词 掩码 把 一个 词 的 所有 字 一起 遮住",
    "中文 BERT 把 每个 汉字 当作 一个 token ， 不 切 成 更 小 的 片",
    "分词器 先 把 句子 切 成 词",
)

TRAINING_TEXT: tuple[str, ...] = (*EN_TEXT, *("".join(line.split()) for line in ZH_SEGMENTED))


@dataclass(frozen=True)
class Pieces:
    """A text as WordPiece pieces, with the word each piece belongs to (-1: a special token)."""

    pieces: tuple[str, ...]
    words: tuple[int, ...]

    def word_count(self) -> int:
        return len({word for word in self.words if word >= 0})

    def spaced(self) -> str:
        """The pieces as the course's whole-word reader takes them (``engine.samples.
        pieces_with_words``): ``##`` pieces join the word before, a Chinese word's
        characters are written together, everything else is spaced."""
        out: list[str] = []
        for index, piece in enumerate(self.pieces):
            joined = (
                index > 0
                and self.words[index] >= 0
                and self.words[index] == self.words[index - 1]
                and _cjk_piece(piece)
                and _cjk_piece(self.pieces[index - 1])
            )
            if joined:
                out[-1] += piece
            else:
                out.append(piece)
        return " ".join(out)


def _cjk_piece(piece: str) -> bool:
    """A Chinese (Japanese, Korean) character: a letter of a word, not punctuation such as ，。"""
    return len(piece) == 1 and is_cjk(piece) and unicodedata.category(piece) == "Lo"


def _pipeline():
    from tokenizers import normalizers, pre_tokenizers

    return (
        normalizers.BertNormalizer(lowercase=True, handle_chinese_chars=True),
        pre_tokenizers.BertPreTokenizer(),
    )


@functools.lru_cache(maxsize=len(VOCAB_STEPS) + 4)
def _trained_vocabulary(vocab_size: int) -> tuple[tuple[str, int], ...]:
    """WordPiece's trainer on ``TRAINING_TEXT`` up to ``vocab_size`` entries: the vocabulary,
    (piece, id) pairs, kept per size as an immutable tuple. Training takes tens of
    milliseconds and the figure redraws on every key typed (benchmarks/subwords.py)."""
    from tokenizers import Tokenizer, models, trainers

    normalizer, pre_tokenizer = _pipeline()
    continuations: set[str] = set()
    for text in TRAINING_TEXT:
        for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(text)):
            continuations.update(CONTINUATION + char for char in word[1:])
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size,
        special_tokens=[*BASE_SPECIALS, *sorted(continuations)],  # numbered up front: see the docstring
        continuing_subword_prefix=CONTINUATION,
        show_progress=False,
    )
    trained = Tokenizer(models.WordPiece(unk_token=UNK, continuing_subword_prefix=CONTINUATION))
    trained.normalizer, trained.pre_tokenizer = normalizer, pre_tokenizer
    trained.train_from_iterator(TRAINING_TEXT, trainer)
    return tuple(sorted(trained.get_vocab().items(), key=lambda item: item[1]))


def tokenizer(vocab_size: int = DEFAULT_VOCAB):
    """Hugging Face's WordPiece trained on ``TRAINING_TEXT`` up to ``vocab_size`` entries (the
    smallest vocabulary, characters alone, when that is larger), the same on every machine.
    A new ``Tokenizer`` each call, built from the kept vocabulary: a caller that changes it
    changes only its own."""
    if not 0 <= vocab_size <= 100_000:
        raise InvalidInput(
            "vocab-out-of-range",
            size=vocab_size,
        )
    from tokenizers import Tokenizer, models

    vocabulary = dict(_trained_vocabulary(vocab_size))
    result = Tokenizer(
        models.WordPiece(vocab=vocabulary, unk_token=UNK, continuing_subword_prefix=CONTINUATION)
    )
    result.normalizer, result.pre_tokenizer = _pipeline()
    result.add_special_tokens(list(BASE_SPECIALS))  # only BERT's five tokens are special
    return result


def vocabulary_size(vocab_size: int = DEFAULT_VOCAB) -> int:
    """How many entries the trained vocabulary really has (the trainer stops when the text
    has nothing left to merge, and never goes below its characters)."""
    return tokenizer(vocab_size).get_vocab_size()


def tokenize(text: str, vocab_size: int = DEFAULT_VOCAB, add_cls_sep: bool = False) -> Pieces:
    """``text`` as the course's WordPiece pieces, each with its word.

    A word is a piece and the ``##`` pieces after it. Chinese characters are one token each
    (as Chinese BERT reads them); consecutive characters written without a space form one
    word when the text is written with spaces (segmented), and are one word each when it is
    not (no segmenter has cut it)."""
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(
            "text-too-long",
            n=len(text),
            limit=MAX_TEXT_CHARS,
        )
    encoding = tokenizer(vocab_size).encode(text, add_special_tokens=False)
    segmented = any(char.isspace() for char in text.strip())
    pieces: list[str] = []
    words: list[int] = []
    word = -1
    previous_end = -1
    for piece, (start, end) in zip(encoding.tokens, encoding.offsets, strict=True):
        if piece in BASE_SPECIALS:  # [UNK] too: a word the vocabulary cannot spell, never masked
            pieces.append(piece)
            words.append(-1)
            previous_end = -1
            continue
        continues = piece.startswith(CONTINUATION) and words and words[-1] >= 0
        same_chinese_word = (
            segmented
            and _cjk_piece(piece)
            and pieces
            and _cjk_piece(pieces[-1])
            and words[-1] >= 0
            and start == previous_end  # written right after it: no space between
        )
        if not (continues or same_chinese_word):
            word += 1
        pieces.append(piece)
        words.append(word)
        previous_end = end
    if add_cls_sep:
        pieces, words = [CLS, *pieces, SEP], [-1, *words, -1]
    return Pieces(tuple(pieces), tuple(words))


@dataclass(frozen=True)
class MaskingCompared:
    """One sentence's pieces under BERT's original masking (each piece drawn on its own)
    and under whole-word masking, with the same seed: the same draws, read per piece or
    per word (a word is selected when its first piece's draw is below p)."""

    pieces: Pieces
    per_piece: object  # engine.samples.MlmSample
    whole_word: object  # engine.samples.MlmSample


def compare_masking(
    text: str,
    *,
    vocab_size: int = DEFAULT_VOCAB,
    seed: int = 0,
    p: float = MASK_RATE,
    add_cls_sep: bool = True,
) -> MaskingCompared:
    """Mask ``text``'s pieces both ways with the engine's masking (``engine.mlm``)."""
    from engine.samples import mlm_sample, pieces_with_words  # torch, only where masking is computed

    pieces = tokenize(text, vocab_size)
    if not pieces.pieces:
        raise InvalidInput("sequence-too-short", n=0, need=1)
    per_piece = mlm_sample(" ".join(pieces.pieces), seed=seed, p=p, add_cls_sep=add_cls_sep)
    whole_word = mlm_sample(pieces.spaced(), seed=seed, p=p, add_cls_sep=add_cls_sep, whole_word=True)
    if pieces_with_words(pieces.spaced()) != (list(pieces.pieces), list(pieces.words)):
        raise AssertionError("the whole-word reader cut the words differently")  # a bug, never input
    shown = Pieces((CLS, *pieces.pieces, SEP), (-1, *pieces.words, -1)) if add_cls_sep else pieces
    return MaskingCompared(shown, per_piece, whole_word)
