import collections

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidInput
from engine.spans import (
    corrupt_explicit,
    corrupt_random,
    merge_back,
    noise_runs,
    random_spans_noise_mask,
    span_counts,
)

SENTINELS = list(range(1000, 1600))  # enough for 512 tokens cut into 256 spans


EOS = 1


def _rows(result):
    for row in range(result.inputs.shape[0]):
        yield (
            result.inputs[row, : int(result.input_lengths[row])].tolist(),
            result.targets[row, : int(result.target_lengths[row])].tolist(),
        )


# An independent reference: a plain-Python transcription of T5's preprocessors
# (google-research/text-to-text-transfer-transformer, t5/data/preprocessors.py):
# noise_span_to_unique_sentinel gives the inputs, nonnoise_span_to_unique_sentinel
# (the same function on the inverted mask) the targets, and the task's output
# features append EOS to both. Sentinel k is the k-th entry of the list
# (T5 counts ids down from the vocabulary's top; the order is what matters).
def t5_noise_span_to_unique_sentinel(tokens, noise_mask, sentinels):
    out, previous, used = [], False, 0
    for token, noise in zip(tokens, noise_mask, strict=True):
        if noise and not previous:
            out.append(sentinels[used])
            used += 1
        elif not noise:
            out.append(token)
        previous = noise
    return out


def t5_nonnoise_span_to_unique_sentinel(tokens, noise_mask, sentinels):
    return t5_noise_span_to_unique_sentinel(tokens, [not bit for bit in noise_mask], sentinels)


def t5_reference(tokens, noise_mask, sentinels):
    return (
        [*t5_noise_span_to_unique_sentinel(tokens, noise_mask, sentinels), EOS],
        [*t5_nonnoise_span_to_unique_sentinel(tokens, noise_mask, sentinels), EOS],
    )


@given(
    st.integers(1, 4),
    st.integers(2, 512),
    st.floats(0.0, 1.0, exclude_min=True),  # density 0 hides nothing: its own test
    st.floats(0.5, 10.0),
    st.integers(0, 2**31 - 1),
)
def test_random_spans_have_exact_counts_and_match_t5(batch, n, density, mean, seed):
    ids = torch.randint(5, 900, (batch, n), generator=torch.Generator().manual_seed(seed))
    noise_count, span_count = span_counts(n, density, mean)
    assert 1 <= noise_count <= n - 1
    assert 1 <= span_count <= min(noise_count, n - noise_count)
    result = corrupt_random(
        ids, SENTINELS, density, mean, generator=torch.Generator().manual_seed(seed), eos_id=EOS
    )
    assert (result.noise_mask.sum(dim=1) == noise_count).all()
    starts = result.noise_mask & ~torch.cat(
        [torch.zeros(batch, 1, dtype=torch.bool), result.noise_mask[:, :-1]], 1
    )
    assert (starts.sum(dim=1) == span_count).all()
    assert not result.noise_mask[:, 0].any()  # T5 starts with a non-noise segment
    assert result.noise_mask[:, -1].all()  # ... and ends with a noise one
    for row, (inputs, targets) in enumerate(_rows(result)):
        mask = result.noise_mask[row].tolist()
        assert (inputs, targets) == t5_reference(ids[row].tolist(), mask, SENTINELS)
        assert merge_back(inputs, targets, SENTINELS, eos_id=EOS) == ids[row].tolist()
        assert [t for t in inputs if t in SENTINELS] == SENTINELS[:span_count]  # in order, no reuse
        # The last span runs to the end: the target ends with it, no closing sentinel.
        assert [t for t in targets if t in SENTINELS] == SENTINELS[:span_count]
        assert len(inputs) == n - noise_count + span_count + 1
        assert len(targets) == noise_count + span_count + 1


@given(st.integers(2, 60), st.data())
def test_explicit_spans_match_t5_and_merge_back(n, data):
    """Any mask that starts with kept text (T5's own masks always do): the engine is T5."""
    cuts = sorted(data.draw(st.sets(st.integers(1, n), min_size=2, max_size=min(n, 12))))
    spans = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]
    ids = torch.arange(5, 5 + n)
    result = corrupt_explicit(ids, spans, SENTINELS, eos_id=EOS)
    inputs, targets = result.inputs.tolist(), result.targets.tolist()
    mask = result.noise_mask.tolist()
    assert (inputs, targets) == t5_reference(ids.tolist(), mask, SENTINELS)
    assert merge_back(inputs, targets, SENTINELS, eos_id=EOS) == ids.tolist()
    runs = len(noise_runs(mask))
    assert [t for t in inputs if t in SENTINELS] == SENTINELS[:runs]
    closed = spans[-1][1] < n
    assert [t for t in targets if t in SENTINELS] == SENTINELS[: runs + closed]
    assert targets[-2] == (SENTINELS[runs] if closed else ids[spans[-1][1] - 1].item())


@given(st.integers(2, 40), st.data())
def test_touching_spans_are_one_span(n, data):
    """Spans given as touching pieces hide the same tokens as their union: one sentinel."""
    start = data.draw(st.integers(1, n - 1))
    end = data.draw(st.integers(start + 1, n))
    pieces = (
        sorted(data.draw(st.sets(st.integers(start + 1, end - 1), max_size=4))) if end - start > 1 else []
    )
    edges = [start, *pieces, end]
    split = [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]
    ids = torch.arange(5, 5 + n)
    together = corrupt_explicit(ids, [(start, end)], SENTINELS, eos_id=EOS)
    apart = corrupt_explicit(ids, split, SENTINELS, eos_id=EOS)
    assert apart.inputs.tolist() == together.inputs.tolist()
    assert apart.targets.tolist() == together.targets.tolist()
    assert sum(t in SENTINELS for t in apart.inputs.tolist()) == 1


@given(st.integers(2, 40), st.data())
def test_a_span_at_position_0_still_pairs_sentinel_k_with_span_k(n, data):
    """T5's own masks never start with noise; for a span given at 0 the engine keeps the
    pairing its targets have everywhere else: each sentinel, then the span it hides."""
    end = data.draw(st.integers(1, n - 1))
    ids = torch.arange(5, 5 + n)
    result = corrupt_explicit(ids, [(0, end)], SENTINELS, eos_id=EOS)
    assert result.inputs.tolist() == [SENTINELS[0], *range(5 + end, 5 + n), EOS]
    assert result.targets.tolist() == [SENTINELS[0], *range(5, 5 + end), SENTINELS[1], EOS]


def test_the_lessons_span_as_t5_builds_it():
    ids = torch.arange(8)
    result = corrupt_explicit(ids, [(2, 5)], [100, 101], eos_id=99)
    assert result.inputs.tolist() == [0, 1, 100, 5, 6, 7, 99]
    assert result.targets.tolist() == [100, 2, 3, 4, 101, 99]


def test_a_last_span_that_reaches_the_end_closes_the_target_itself():
    result = corrupt_explicit(torch.arange(8), [(1, 2), (6, 8)], [100, 101, 102])
    assert result.inputs.tolist() == [0, 100, 2, 3, 4, 5, 101]
    assert result.targets.tolist() == [100, 1, 101, 6, 7]


def test_touching_spans_share_one_sentinel():
    result = corrupt_explicit(torch.arange(6), [(2, 3), (3, 4)], [100, 101, 102])
    assert result.inputs.tolist() == [0, 1, 100, 4, 5]
    assert result.targets.tolist() == [100, 2, 3, 101]


@pytest.mark.parametrize(
    ("spans", "code"),
    [
        ([(2, 5), (4, 6)], "spans-overlap"),
        ([(3, 9)], "span-out-of-range"),
        ([(3, 3)], "span-out-of-range"),
        ([(-1, 2)], "span-out-of-range"),
        ([], "no-spans"),
    ],
)
def test_bad_spans_are_refused(spans, code):
    with pytest.raises(InvalidInput) as error:
        corrupt_explicit(torch.arange(8), spans, SENTINELS)
    assert error.value.code == code


def test_more_spans_than_sentinels_is_an_error_not_a_reuse():
    with pytest.raises(InvalidInput) as error:
        corrupt_explicit(torch.arange(8), [(0, 1), (2, 3), (4, 5)], [100, 101])
    assert error.value.code == "too-many-spans"


def test_random_spans_beyond_the_sentinels_are_refused():
    ids = torch.arange(5, 205).view(1, 200)
    with pytest.raises(InvalidInput) as error:
        corrupt_random(ids, list(range(1000, 1099)), density=0.5, mean_span=1.0)  # 100 spans
    assert error.value.code == "too-many-spans"


def test_too_short_and_bad_parameters():
    for args, code in [
        ((1, 0.5, 3), "sequence-too-short"),
        ((10, 1.5, 3), "density-out-of-range"),
        ((10, 0.5, 0), "mean-span-out-of-range"),
    ]:
        with pytest.raises(InvalidInput) as error:
            span_counts(*args)
        assert error.value.code == code


def t5_random_spans_noise_mask(length, noise_density, mean_noise_span_length, rng):
    """A NumPy transcription of T5's ``random_spans_noise_mask`` (random_roll off, one
    row), line by line: float32 arithmetic, ``tf.round`` (half to even), the length
    raised to 2 and the mask cut back, ``_random_segmentation`` by shuffling a 0/1
    vector of segment starts. Only the random stream differs (NumPy's, not TF's)."""
    if noise_density == 0.0:
        return np.zeros(length, dtype=bool)
    orig_length = length
    length = max(length, 2)
    num_noise_tokens = int(np.round(np.float32(length) * np.float32(noise_density)))
    num_noise_tokens = min(max(num_noise_tokens, 1), length - 1)
    num_noise_spans = int(np.round(np.float32(num_noise_tokens) / np.float32(mean_noise_span_length)))
    num_noise_spans = max(num_noise_spans, 1)
    num_nonnoise_tokens = length - num_noise_tokens

    def _random_segmentation(num_items, num_segments):
        first_in_segment = np.pad(
            rng.permutation((np.arange(num_items - 1) < num_segments - 1).astype(int)), [1, 0]
        )
        segment_id = np.cumsum(first_in_segment)
        return np.bincount(segment_id)  # tf.math.segment_sum(ones, segment_id)

    noise_span_lengths = _random_segmentation(num_noise_tokens, num_noise_spans)
    nonnoise_span_lengths = _random_segmentation(num_nonnoise_tokens, num_noise_spans)
    interleaved = np.stack([nonnoise_span_lengths, noise_span_lengths], axis=1).reshape(num_noise_spans * 2)
    span_starts = np.cumsum(interleaved)[:-1]
    span_start_indicator = np.zeros(length, dtype=int)
    np.add.at(span_start_indicator, span_starts, 1)  # tf.math.unsorted_segment_sum
    span_num = np.cumsum(span_start_indicator)
    return (span_num % 2 == 1)[:orig_length]


DENSITIES = (0.05, 0.1, 0.15, 0.2, 0.3, 0.5)


@pytest.mark.slow
def test_noise_and_span_counts_are_t5s_float32_arithmetic():
    """T5 rounds float32(N) * density: 190 tokens at 0.15 give 29 noise tokens (float32
    28.500001), not 28 (float64 28.499999...). 57 lengths up to 2048 differ between the
    two over these densities; every one must be T5's."""
    rng = np.random.default_rng(0)
    assert span_counts(190, 0.15, 3.0) == (29, 10)
    for density in DENSITIES:
        for n in range(2, 2049):
            mask = t5_random_spans_noise_mask(n, density, 3.0, rng)
            noise = int(mask.sum())
            spans = int((mask & ~np.concatenate([[False], mask[:-1]])).sum())
            assert span_counts(n, density, 3.0) == (noise, spans), (n, density)


def test_t5_arithmetic_for_the_default_setting():
    # 512 tokens, density 0.15, mean 3: round(76.8) = 77 noise tokens in round(25.67) = 26 spans.
    assert span_counts(512, 0.15, 3.0) == (77, 26)
    # T5's own pretraining examples (span_corruption, random_spans_helper): 568 raw tokens make
    # a corrupted input of exactly 512 (568 - 85 + 28 sentinels + </s>) and a target of 114.
    noise, spans = span_counts(568, 0.15, 3.0)
    assert (noise, spans) == (85, 28)
    assert (568 - noise + spans + 1, noise + spans + 1) == (512, 114)
    assert span_counts(10, 0.01, 3.0) == (1, 1)  # clamped to at least one noise token
    assert span_counts(10, 1.0, 3.0) == (9, 1)  # and at least one kept token


def test_density_zero_hides_nothing_as_in_t5():
    """T5 returns an all-kept mask at density 0; its target is then one sentinel standing
    for the whole (kept) text."""
    assert span_counts(10, 0.0, 3.0) == (0, 0)
    mask = random_spans_noise_mask(3, 10, 0.0, 3.0, torch.Generator().manual_seed(0))
    assert not mask.any()
    ids = torch.arange(5, 15)
    result = corrupt_random(ids, SENTINELS, 0.0, 3.0, generator=torch.Generator().manual_seed(0), eos_id=EOS)
    assert (result.inputs.tolist(), result.targets.tolist()) == t5_reference(
        ids.tolist(), [False] * 10, SENTINELS
    )
    assert result.targets.tolist() == [SENTINELS[0], EOS]


@pytest.mark.parametrize(("n", "density", "mean"), [(12, 0.3, 2.0), (9, 0.4, 1.5), (16, 0.15, 3.0)])
def test_random_masks_are_drawn_from_t5s_set_with_t5s_odds(n, density, mean):
    """Every mask the engine draws is one T5's code can draw, each about equally often
    (T5: "all masks are equally likely"). Seeded: never flakes."""
    draws = 6000
    rng = np.random.default_rng(1)
    t5 = collections.Counter(
        tuple(t5_random_spans_noise_mask(n, density, mean, rng).tolist()) for _ in range(draws)
    )
    ours = collections.Counter(
        map(
            tuple, random_spans_noise_mask(draws, n, density, mean, torch.Generator().manual_seed(1)).tolist()
        )
    )
    assert set(ours) == set(t5)
    share = 1 / len(t5)
    for mask in t5:
        assert ours[mask] / draws == pytest.approx(share, abs=0.35 * share + 0.01)


def test_span_lengths_follow_uniform_segmentation():
    """T5 cuts the noise tokens into spans uniformly at random: with 77 noise tokens in
    26 spans, a span's length L has P(L = l) = C(76 - l, 24) / C(76, 25). Seeded: never flakes."""
    from math import comb

    mask = random_spans_noise_mask(2000, 512, 0.15, 3.0, torch.Generator().manual_seed(0))
    lengths = collections.Counter()
    for row in mask.tolist():
        run = 0
        for bit in [*row, False]:
            if bit:
                run += 1
            elif run:
                lengths[run] += 1
                run = 0
    total = sum(lengths.values())
    assert total == 2000 * 26
    mean = sum(length * count for length, count in lengths.items()) / total
    assert mean == pytest.approx(77 / 26, abs=0.02)
    for length in (1, 2, 3, 5, 8):
        expected = comb(76 - length, 24) / comb(76, 25)
        assert lengths[length] / total == pytest.approx(expected, abs=0.01)


def test_random_spans_are_seeded():
    first = random_spans_noise_mask(3, 40, 0.3, 2.0, torch.Generator().manual_seed(5))
    second = random_spans_noise_mask(3, 40, 0.3, 2.0, torch.Generator().manual_seed(5))
    assert torch.equal(first, second)


@given(st.integers(1, 6), st.integers(2, 80), st.integers(0, 2**31 - 1))
def test_ragged_batches_pack_each_row_like_a_single_sequence(batch, n, seed):
    """Rows hiding different numbers of tokens take the padded path; each row must
    equal the same row corrupted alone."""
    from engine.spans import corrupt

    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, 900, (batch, n), generator=generator)
    noise = torch.rand(batch, n, generator=generator) < torch.rand(batch, 1, generator=generator)
    together = corrupt(ids, noise, SENTINELS, pad_id=0)
    for row in range(batch):
        alone = corrupt(ids[row], noise[row], SENTINELS, pad_id=0)
        width, target_width = int(together.input_lengths[row]), int(together.target_lengths[row])
        assert together.inputs[row, :width].tolist() == alone.inputs.tolist()
        assert together.targets[row, :target_width].tolist() == alone.targets.tolist()
        assert (together.inputs[row, width:] == 0).all() and (together.targets[row, target_width:] == 0).all()
        assert merge_back(alone.inputs.tolist(), alone.targets.tolist(), SENTINELS) == ids[row].tolist()
