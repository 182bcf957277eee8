"""Packing documents into windows, against a plain-Python transcription of GPT-style
packing (each document followed by </s>, one stream, cut every L tokens) and of Hugging
Face's run_clm ``group_texts`` (the short tail dropped, labels shifted inside the row)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidInput
from engine.packing import MAX_TOKENS, MAX_WINDOW, MIN_WINDOW, pack_documents, pack_text
from engine.tokens import EOS, PAD


def reference(documents, window, drop_last=True):
    """(windows, labels, owners, dropped) written out the way the sources do it."""
    stream = [(token, d) for d, document in enumerate(documents) for token in (*document, EOS)]
    usable = len(stream) // window * window
    dropped = [token for token, _ in stream[usable:]]
    if not drop_last and usable < len(stream):
        stream += [(PAD, -1)] * (usable + window - len(stream))
        usable, dropped = len(stream), []
    rows = [stream[start : start + window] for start in range(0, usable, window)]
    windows = [[token for token, _ in row] for row in rows]
    owners = [[d for _, d in row] for row in rows]
    labels = []
    for row in rows:
        # position t predicts t + 1 of the same row; none at the end, none to or from padding
        labels.append(
            [
                row[t + 1][0] if t + 1 < window and row[t][1] >= 0 and row[t + 1][1] >= 0 else None
                for t in range(window)
            ]
        )
    return windows, labels, owners, dropped


words = st.sampled_from(["a", "b", "cat", "sat", "狗", "叫", "[MASK]", "the"])
corpora = st.lists(st.lists(words, min_size=1, max_size=9), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(corpora, st.integers(MIN_WINDOW, MAX_WINDOW), st.booleans())
def test_packing_matches_the_reference(documents, window, drop_last):
    total = sum(len(d) + 1 for d in documents)
    if drop_last and total < window:
        with pytest.raises(InvalidInput):
            pack_documents(documents, window, drop_last=drop_last)
        return
    packed = pack_documents(documents, window, drop_last=drop_last)
    windows, labels, owners, dropped = reference(documents, window, drop_last)
    assert packed.windows == windows
    assert packed.labels == labels
    assert packed.document_of == owners
    assert packed.dropped == dropped
    assert packed.padded == sum(row.count(-1) for row in owners)
    crossing = [d for d in range(len(documents)) if len({w for w, row in enumerate(owners) if d in row}) > 1]
    assert packed.crossing() == crossing


@settings(max_examples=50, deadline=None)
@given(corpora, st.integers(0, 10**6))
def test_a_seed_shuffles_the_documents_the_same_way_every_time(documents, seed):
    window = MIN_WINDOW
    first = pack_documents(documents, window, seed=seed)
    assert sorted(first.order) == list(range(len(documents)))
    assert first.documents == [documents[i] for i in first.order]
    assert pack_documents(documents, window, seed=seed) == first
    assert first.windows == reference(first.documents, window)[0]


def test_the_lessons_corpus():
    packed = pack_text("the cat sat | dogs bark at night | birds sing", 6)
    assert packed.windows == [
        ["the", "cat", "sat", EOS, "dogs", "bark"],
        ["at", "night", EOS, "birds", "sing", EOS],
    ]
    assert packed.labels[0] == ["cat", "sat", EOS, "dogs", "bark", None]  # across the boundary
    assert packed.crossing() == [1] and packed.dropped == []
    chinese = pack_text("猫在睡觉 | 下雨了 | 我们去公园", 6)
    assert chinese.windows[0] == ["猫", "在", "睡", "觉", EOS, "下"]
    assert chinese.dropped == ["公", "园", EOS]


@pytest.mark.parametrize(
    ("documents", "window"),
    [
        ([["a"]], MIN_WINDOW - 1),
        ([["a"]], MAX_WINDOW + 1),
        ([["a"] * MAX_TOKENS], 4),  # with its </s>, one token more than packed
        ([["a"]], 4),  # shorter than one window, the tail dropped: nothing left
        ([], 2),
    ],
)
def test_what_cannot_be_packed_is_refused(documents, window):
    with pytest.raises(InvalidInput):
        pack_documents(documents, window)
