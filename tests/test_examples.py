"""Every example the course suggests is valid for what it feeds (issue 32).

- the Chinese text the tokenizer learns from is segmented as a segmenter would: no word
  mixes punctuation and characters ("，不" was one word: whole-word masking showed it);
- a Chinese sentence a lesson or a doc suggests typing into the subwords figure or
  ``show sample ... --whole-word`` reads without [UNK];
- the training lab's suggested probes (the lessons', the attention view's default) are
  sentences the toy language writes, built as the test set is (``toy_corpus.fits``)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from engine import subwords, toy_corpus
from exercises.curriculum import lesson_source
from exercises.training.table import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent


def _punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def test_no_segmented_word_mixes_punctuation_and_characters():
    for line in subwords.ZH_SEGMENTED:
        for word in line.split():
            kinds = {_punctuation(char) for char in word}
            assert len(kinds) == 1, (word, line)


def _suggested_chinese() -> list[str]:
    """Spaced Chinese in code spans of the subwords lessons and of the docs' commands."""
    texts = []
    for lang in ("zh", "en"):
        texts += re.findall(r"`([^`\n]+)`", lesson_source("subwords", lang))
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        texts += re.findall(r'--text "([^"\n]+)"', page.read_text(encoding="utf-8"))
    return sorted({text for text in texts if " " in text and re.fullmatch(r"[\u4e00-\u9fff ]+", text)})


def test_the_course_suggests_chinese_examples_at_all():
    assert _suggested_chinese()


@pytest.mark.parametrize("text", _suggested_chinese())
def test_a_suggested_chinese_example_reads_without_unknown_pieces(text):
    assert "[UNK]" not in subwords.tokenize(text).pieces


def _suggested_probes() -> list[tuple[str, str]]:
    found = [(corpus, text) for corpus, text in EXAMPLES.items() if corpus in ("zh", "en")]
    for lang in ("zh", "en"):
        source = lesson_source("train-lab", lang)
        for text in re.findall(r"`([^`\n]+)`", source) + re.findall(r'probe "([^"]+)"', source):
            corpus = "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
            if ("，" in text or "," in text) and "--" not in text:
                found.append((corpus, text))
    return sorted(set(found))


def test_the_lab_suggests_probes_at_all():
    assert len(_suggested_probes()) >= 4


@pytest.mark.parametrize(("corpus", "text"), _suggested_probes())
def test_a_suggested_probe_is_a_sentence_of_the_toy_language(corpus, text):
    assert toy_corpus.fits(corpus, text)


def test_fits_accepts_the_test_sets_sentences_and_refuses_one_counted_thing():
    for corpus in ("zh", "en"):
        joiner = "" if corpus == "zh" else " "
        for sentence in toy_corpus.sentences(corpus, 50, 1):
            tokens = sentence.tokens
            assert toy_corpus.fits(corpus, joiner.join(tokens[: sentence.continue_at]))
            blanked = ["_" if index == sentence.fill_at else token for index, token in enumerate(tokens)]
            assert toy_corpus.fits(corpus, joiner.join(blanked))
    assert not toy_corpus.fits("zh", "因为小明昨天买了三本书，")  # the lesson's old probe: one counted thing
    assert not toy_corpus.fits("zh", "因为小明昨天买了三_书，所以他很高兴。")
