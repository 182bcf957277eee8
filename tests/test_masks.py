import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidInput
from engine.masks import (
    bidirectional_mask,
    causal_mask,
    mask_for,
    prefix_mask,
    to_additive,
    visible_keys,
    with_key_padding,
)

lengths = st.integers(min_value=1, max_value=512)


@given(lengths)
def test_causal_mask_blocks_exactly_above_the_diagonal(n):
    mask = causal_mask(n)
    q = torch.arange(n).view(-1, 1)
    k = torch.arange(n).view(1, -1)
    assert mask.dtype == torch.bool
    assert torch.equal(mask, k > q)
    assert torch.equal(mask, mask.triu(diagonal=1))  # strictly upper-triangular where blocked


@given(lengths)
def test_bidirectional_mask_blocks_nothing(n):
    assert not bidirectional_mask(n).any()


@given(st.data(), st.integers(min_value=1, max_value=128))
def test_prefix_mask_follows_its_formula(data, n):
    prefix = data.draw(st.integers(min_value=0, max_value=n))
    mask = prefix_mask(n, prefix)
    for q in range(n):
        for k in range(n):
            assert mask[q, k].item() == (not (k <= q or k < prefix))


@given(st.integers(min_value=1, max_value=64))
def test_prefix_zero_is_causal_and_full_prefix_is_bidirectional(n):
    assert torch.equal(prefix_mask(n, 0), causal_mask(n))
    assert torch.equal(prefix_mask(n, n), bidirectional_mask(n))


def test_prefix_mask_batched_one_prefix_per_row():
    masks = prefix_mask(5, torch.tensor([0, 2, 5]))
    assert masks.shape == (3, 5, 5)
    assert torch.equal(masks[0], causal_mask(5))
    assert torch.equal(masks[1], prefix_mask(5, 2))
    assert torch.equal(masks[2], bidirectional_mask(5))


@pytest.mark.parametrize("prefix", [-1, 7])
def test_prefix_outside_the_sequence_is_refused(prefix):
    with pytest.raises(InvalidInput) as error:
        prefix_mask(6, prefix)
    assert error.value.code == "prefix-out-of-range"


@given(st.integers(min_value=1, max_value=6), st.integers(min_value=1, max_value=40), st.data())
def test_key_padding_comes_from_the_attention_mask(batch, n, data):
    attention = torch.tensor(
        data.draw(
            st.lists(st.lists(st.integers(0, 1), min_size=n, max_size=n), min_size=batch, max_size=batch)
        )
    )
    combined = with_key_padding(causal_mask(n), attention)
    assert combined.shape == (batch, n, n)
    for b in range(batch):
        for k in range(n):
            if attention[b, k] == 0:
                assert combined[b, :, k].all()
            else:
                assert torch.equal(combined[b, :, k], causal_mask(n)[:, k])


def test_padding_is_not_read_from_token_values():
    # A pad id that doubles as EOS: only the attention mask decides.
    attention = torch.tensor([[1, 1, 1, 0]])
    combined = with_key_padding(bidirectional_mask(4), attention)
    assert combined[0, :, :3].logical_not().all()
    assert combined[0, :, 3].all()


def test_additive_form_is_zero_or_minus_infinity():
    additive = to_additive(causal_mask(4))
    assert additive.dtype == torch.float32
    assert torch.equal(additive == float("-inf"), causal_mask(4))
    assert (additive[~causal_mask(4)] == 0).all()


def test_visible_keys_match_the_lessons_listing():
    assert [visible_keys(causal_mask(6), i) for i in range(6)] == [list(range(i + 1)) for i in range(6)]
    assert visible_keys(bidirectional_mask(6), 0) == list(range(6))


def test_mask_for_names_and_bad_input():
    assert torch.equal(mask_for("prefix", 4, 2), prefix_mask(4, 2))
    with pytest.raises(InvalidInput):
        mask_for("diagonal", 4)
    with pytest.raises(InvalidInput):
        causal_mask(0)
