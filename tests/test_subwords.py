"""The course's WordPiece tokenizer: trained offline, the same in every process, cutting
words as WordPiece does and Chinese one character per token; whole-word masking over it."""

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import subwords
from engine.errors import InvalidInput
from engine.tokens import BASE_SPECIALS, UNK

ROOT = Path(__file__).resolve().parent.parent

# Each process trains every vocabulary size of the figure and prints the vocabularies. No
# socket may be opened (nothing is downloaded) and Hugging Face's hub is told to stay offline.
TRAIN_EVERYWHERE = """
import json, socket, sys

def refuse(*args, **kwargs):
    raise OSError("the tokenizer tried to reach the network")

socket.socket.connect = socket.socket.connect_ex = refuse
socket.create_connection = refuse
from engine import subwords
print(json.dumps({size: subwords.tokenizer(size).get_vocab() for size in subwords.VOCAB_STEPS}))
"""


def _vocabularies_in_a_fresh_process(hash_seed: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", TRAIN_EVERYWHERE],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=ROOT,
    ).stdout
    return {int(size): vocab for size, vocab in json.loads(out).items()}


def test_training_is_the_same_in_every_process_and_downloads_nothing():
    """tokenizers' trainer numbers ## pieces in hash-map order (issue #1794): without the
    continuations declared up front, two processes train different vocabularies."""
    here = {size: subwords.tokenizer(size).get_vocab() for size in subwords.VOCAB_STEPS}
    for hash_seed in ("1", "2", "3"):
        assert _vocabularies_in_a_fresh_process(hash_seed) == here


def test_the_vocabulary_grows_with_the_size_asked_and_stops_at_the_text():
    sizes = [subwords.vocabulary_size(size) for size in subwords.VOCAB_STEPS]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    smallest = subwords.vocabulary_size(0)
    assert all(size >= smallest for size in sizes)
    assert subwords.vocabulary_size(200) == 200  # the size asked, when the text has that much to merge
    assert subwords.vocabulary_size(100_000) == subwords.vocabulary_size(1000)  # nothing left to merge


def test_a_frequent_word_stays_whole_and_a_rare_one_is_cut():
    pieces = subwords.tokenize(subwords.EN_TEXT[0]).pieces
    assert "corpus" in subwords.tokenize("corpus").pieces  # frequent in the text: one entry
    assert pieces[-4:] == ("cor", "##p", "##or", "##a")
    assert subwords.tokenize("corpora", 1000).pieces == ("corpora",)  # a larger vocabulary keeps it


def test_the_smallest_vocabulary_spells_every_word_by_its_characters():
    pieces = subwords.tokenize("corpora", 0).pieces
    assert pieces == ("c", "##o", "##r", "##p", "##o", "##r", "##a")


def test_chinese_is_one_character_per_token_and_words_come_from_the_spaces():
    segmented = subwords.tokenize("整词 掩码 把 一个 词")
    assert segmented.pieces == tuple("整词掩码把一个词")
    assert segmented.words == (0, 0, 1, 1, 2, 3, 3, 4)
    unsegmented = subwords.tokenize("整词掩码把一个词")
    assert unsegmented.pieces == segmented.pieces
    assert unsegmented.words == tuple(range(8))  # no segmenter has cut it: each character alone


def test_every_exercise_sentence_has_a_word_cut_into_pieces():
    from exercises.items.whole_word import SENTENCES

    for sentence in SENTENCES:
        words = subwords.tokenize(sentence).words
        assert any(words.count(word) > 1 for word in set(words) if word >= 0), sentence


def test_each_line_of_the_training_text_is_within_what_a_learner_may_type():
    assert all(len(line) <= subwords.MAX_TEXT_CHARS for line in subwords.TRAINING_TEXT)


def test_bounds_are_refused_before_anything_is_trained():
    with pytest.raises(InvalidInput):
        subwords.tokenize("x" * (subwords.MAX_TEXT_CHARS + 1))
    with pytest.raises(InvalidInput):
        subwords.tokenizer(-1)
    with pytest.raises(InvalidInput):
        subwords.tokenizer(100_001)


def test_a_caller_cannot_change_the_kept_tokenizer():
    first = subwords.tokenizer(subwords.DEFAULT_VOCAB)
    first.add_tokens(["corpora"])
    assert subwords.tokenize("corpora").pieces == ("cor", "##p", "##or", "##a")


def _normalized(text: str) -> str:
    """BERT's normalizer, written out (Hugging Face's BertNormalizer with lowercase, strip
    accents, clean text): lower-case, accents dropped, control characters removed."""
    out = []
    for char in unicodedata.normalize("NFD", text.lower()):
        if unicodedata.category(char) == "Mn":
            continue
        if char in "\t\n\r" or char.isspace():
            out.append(" ")
        elif char == "\x00" or char == "\ufffd" or unicodedata.category(char).startswith("C"):
            continue
        else:
            out.append(char)
    return "".join(out)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_the_pieces_spell_the_text_and_words_start_without_a_mark(text):
    """Any text: the pieces, ## taken off, spell the normalized text without its spaces
    (where nothing is [UNK]); a word's first piece has no ## and the others do (English)."""
    pieces = subwords.tokenize(text)
    assert len(pieces.pieces) == len(pieces.words)
    if UNK not in pieces.pieces:
        spelled = "".join(piece.removeprefix(subwords.CONTINUATION) for piece in pieces.pieces)
        assert spelled == "".join(_normalized(text).split())
    for index, (piece, word) in enumerate(zip(pieces.pieces, pieces.words, strict=True)):
        if word < 0:
            assert piece in BASE_SPECIALS
            continue
        starts = index == 0 or pieces.words[index - 1] != word
        if piece.startswith(subwords.CONTINUATION) and len(piece) > 2:
            assert not starts
    words = [word for word in pieces.words if word >= 0]
    assert words == sorted(words)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(subwords.TRAINING_TEXT + subwords.ZH_SEGMENTED),
    st.integers(0, 10_000),
    st.sampled_from([0.15, 0.3, 0.6]),
)
def test_whole_word_masking_selects_words_by_the_same_draws(text, seed, p):
    """Per piece and per word with one seed: a word is selected whole exactly when its first
    piece was selected per piece, and each selected piece's label is that piece."""
    compared = subwords.compare_masking(text, seed=seed, p=p)
    words = compared.pieces.words
    per, whole = compared.per_piece, compared.whole_word
    for index, word in enumerate(words):
        if word < 0:
            assert not whole.selected[index]
            continue
        first = words.index(word)
        assert whole.selected[index] == per.selected[first], (index, word)
        if whole.selected[index]:
            assert whole.labels[index] == compared.pieces.pieces[index]
