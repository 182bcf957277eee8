import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from engine.clm import (
    IGNORE_INDEX,
    causal_lm_loss,
    same_length_labels,
    shift_for_next_token,
    uniform_baseline,
)
from engine.errors import InvalidInput


@given(st.integers(1, 4), st.integers(2, 300), st.integers(0, 2**31 - 1))
def test_shift_pairs_each_position_with_the_next_token(batch, n, seed):
    ids = torch.randint(0, 1000, (batch, n), generator=torch.Generator().manual_seed(seed))
    inputs, labels = shift_for_next_token(ids)
    assert torch.equal(inputs, ids[:, :-1])
    assert torch.equal(labels, ids[:, 1:])
    same = same_length_labels(ids)
    assert same.shape == ids.shape
    assert torch.equal(same[:, :-1], ids[:, 1:])
    assert (same[:, -1] == IGNORE_INDEX).all()


def test_padding_from_attention_mask_keeps_eos_labels_when_pad_equals_eos():
    eos = pad = 2
    ids = torch.tensor([[5, 6, 7, eos, pad, pad]])
    attention = torch.tensor([[1, 1, 1, 1, 0, 0]])
    _, labels = shift_for_next_token(ids, attention)
    assert labels.tolist() == [[6, 7, eos, IGNORE_INDEX, IGNORE_INDEX]]


def test_left_padding_never_asks_a_pad_position_to_predict():
    ids = torch.tensor([[0, 0, 5, 6]])
    attention = torch.tensor([[0, 0, 1, 1]])
    _, labels = shift_for_next_token(ids, attention)
    assert labels.tolist() == [[IGNORE_INDEX, IGNORE_INDEX, 6]]


def test_loss_ignores_minus_100_and_matches_cross_entropy():
    generator = torch.Generator().manual_seed(1)
    logits = torch.randn(2, 3, 7, generator=generator)
    labels = torch.tensor([[1, IGNORE_INDEX, 3], [IGNORE_INDEX, 0, 6]])
    kept = labels != IGNORE_INDEX
    expected = torch.nn.functional.cross_entropy(logits[kept], labels[kept])
    assert torch.allclose(causal_lm_loss(logits, labels), expected)


def test_uniform_logits_give_ln_v():
    logits = torch.zeros(1, 4, 10000)
    labels = torch.tensor([[1, 2, 3, 4]])
    assert causal_lm_loss(logits, labels).item() == pytest.approx(math.log(10000), abs=1e-5)
    assert uniform_baseline(10000) == pytest.approx(9.2103, abs=1e-4)


def test_one_token_is_too_short():
    with pytest.raises(InvalidInput) as error:
        shift_for_next_token(torch.tensor([3]))
    assert error.value.code == "sequence-too-short"
