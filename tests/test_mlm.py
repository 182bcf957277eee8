import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from engine.clm import IGNORE_INDEX
from engine.errors import InvalidInput
from engine.mlm import KEPT, MASKED, RANDOM, UNSELECTED, expected_counts, mask_tokens

MASK_ID, VOCAB = 4, 50
SPECIALS = [0, 1, 2, 3, 4]


@st.composite
def batches(draw):
    """Token batches with specials anywhere and random padding."""
    batch = draw(st.integers(1, 4))
    n = draw(st.integers(1, 512))
    seed = draw(st.integers(0, 2**31 - 1))
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, VOCAB, (batch, n), generator=generator)
    attention = (torch.rand(batch, n, generator=generator) < 0.9).long()
    p = draw(st.floats(0.0, 1.0))
    return ids, attention, p, seed


@given(batches())
def test_labels_are_original_exactly_on_selected_and_minus_100_elsewhere(case):
    ids, attention, p, seed = case
    out = mask_tokens(
        ids,
        mask_id=MASK_ID,
        vocab_size=VOCAB,
        special_ids=SPECIALS,
        attention_mask=attention,
        p=p,
        generator=torch.Generator().manual_seed(seed),
    )
    assert torch.equal(out.labels[out.selected], ids[out.selected])
    assert (out.labels[~out.selected] == IGNORE_INDEX).all()
    assert torch.equal(out.input_ids[~out.selected], ids[~out.selected])  # unselected unchanged
    special = torch.isin(ids, torch.tensor(SPECIALS))
    assert not out.selected[special].any()  # specials never selected
    assert not out.selected[attention == 0].any()  # padding never selected
    assert (out.input_ids[out.fates == MASKED] == MASK_ID).all()
    assert torch.equal(out.input_ids[out.fates == KEPT], ids[out.fates == KEPT])
    randoms = out.input_ids[out.fates == RANDOM]
    assert not torch.isin(randoms, torch.tensor(SPECIALS)).any()  # never a special as replacement
    assert torch.equal(out.fates != UNSELECTED, out.selected)
    assert sum(out.counts().values()) == int(out.selected.sum())


@given(st.integers(0, 10_000))
def test_same_seed_same_result(seed):
    ids = torch.arange(5, 45).view(2, 20)
    first = mask_tokens(
        ids,
        mask_id=4,
        vocab_size=50,
        special_ids=SPECIALS,
        p=0.5,
        generator=torch.Generator().manual_seed(seed),
    )
    second = mask_tokens(
        ids,
        mask_id=4,
        vocab_size=50,
        special_ids=SPECIALS,
        p=0.5,
        generator=torch.Generator().manual_seed(seed),
    )
    assert torch.equal(first.input_ids, second.input_ids)
    assert torch.equal(first.fates, second.fates)


def test_p_extremes():
    ids = torch.arange(5, 25).view(1, 20)
    none = mask_tokens(ids, mask_id=4, vocab_size=30, special_ids=SPECIALS, p=0.0)
    assert not none.selected.any()
    everything = mask_tokens(ids, mask_id=4, vocab_size=30, special_ids=SPECIALS, p=1.0)
    assert everything.selected.all()


@pytest.mark.parametrize("p", [-0.1, 1.5, float("nan")])
def test_p_outside_unit_interval_is_refused(p):
    with pytest.raises(InvalidInput) as error:
        mask_tokens(torch.tensor([5, 6]), mask_id=4, vocab_size=10, special_ids=SPECIALS, p=p)
    assert error.value.code == "p-out-of-range"


def test_split_must_add_up_to_one():
    with pytest.raises(InvalidInput):
        mask_tokens(
            torch.tensor([5, 6]), mask_id=4, vocab_size=10, special_ids=SPECIALS, split=(0.8, 0.1, 0.2)
        )


def test_selection_rate_and_80_10_10_on_many_tokens():
    """Seeded, so it never flakes; tolerances are > 6 standard deviations."""
    ids = torch.randint(5, 30000, (256, 512), generator=torch.Generator().manual_seed(7))  # 131,072 tokens
    out = mask_tokens(
        ids,
        mask_id=4,
        vocab_size=30000,
        special_ids=SPECIALS,
        p=0.15,
        generator=torch.Generator().manual_seed(11),
    )
    n = ids.numel()
    selected = int(out.selected.sum())
    assert abs(selected / n - 0.15) < 0.006
    counts = out.counts()
    assert abs(counts["mask"] / selected - 0.8) < 0.02
    assert abs(counts["random"] / selected - 0.1) < 0.015
    assert abs(counts["keep"] / selected - 0.1) < 0.015


def test_custom_split_and_p():
    ids = torch.randint(5, 1000, (128, 512), generator=torch.Generator().manual_seed(3))
    out = mask_tokens(
        ids,
        mask_id=4,
        vocab_size=1000,
        special_ids=SPECIALS,
        p=0.3,
        split=(0.5, 0.0, 0.5),
        generator=torch.Generator().manual_seed(5),
    )
    counts = out.counts()
    assert counts["random"] == 0
    assert abs(int(out.selected.sum()) / ids.numel() - 0.3) < 0.01
    assert abs(counts["mask"] / int(out.selected.sum()) - 0.5) < 0.02


def test_whole_word_selects_all_pieces_together():
    word_ids = torch.tensor([[-1] + [w for w in range(60) for _ in range(3)] + [-1]])
    ids = torch.randint(5, 100, word_ids.shape, generator=torch.Generator().manual_seed(0))
    ids[0, 0], ids[0, -1] = 2, 3
    for seed in range(20):
        out = mask_tokens(
            ids,
            mask_id=4,
            vocab_size=100,
            special_ids=SPECIALS,
            p=0.3,
            word_ids=word_ids,
            generator=torch.Generator().manual_seed(seed),
        )
        pieces = out.selected[0, 1:-1].view(60, 3)
        assert (pieces.all(dim=1) | ~pieces.any(dim=1)).all()  # all or none per word
        assert not out.selected[0, 0] and not out.selected[0, -1]


def test_fixed_selection_and_fates_override_the_draws():
    ids = torch.tensor([10, 11, 12, 13, 14])
    selected = torch.tensor([False, True, False, False, True])
    fates = torch.tensor([0, MASKED, 0, 0, RANDOM])
    out = mask_tokens(
        ids,
        mask_id=4,
        vocab_size=20,
        special_ids=SPECIALS,
        selected=selected,
        fates=fates,
        generator=torch.Generator().manual_seed(0),
    )
    assert out.input_ids[1] == 4
    assert out.input_ids[4] >= 5
    assert out.labels.tolist() == [-100, 11, -100, -100, 14]


def test_expected_counts():
    assert expected_counts(4, 8, 0.15) == pytest.approx(
        {"selected": 4.8, "mask": 3.84, "random": 0.48, "keep": 0.48}
    )
    assert expected_counts(4, 8, 0.3)["selected"] == pytest.approx(9.6)
