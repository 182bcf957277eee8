"""The engine's batch masking against plain-Python references that draw the same numbers.

engine.spans and engine.mlm are written for speed (issue 22: whole-batch tensor work, no
thread pool), so here each is compared, output for output, with a slow reference that
states the rule one token at a time: T5's span corruption (the transcription of T5's
``noise_span_to_unique_sentinel`` in tests/test_spans.py) after T5's segmentation drawn
from the same torch keys, and BERT's masking from the same two uniform draws per
position and the same replacement draws. The references consume the generator exactly
as the engine must, so a change to the draws (which would change every seeded output
the lessons and the exercises print) fails here too, as does any difference in merged
touching spans, sentinels, ``</s>``, the closing sentinel, padding, lengths or dtypes.
"""

from __future__ import annotations

import contextlib
import itertools
import struct
from unittest import mock

import pytest
import torch
from hypothesis import assume, example, given
from hypothesis import strategies as st

from engine import blocks
from engine.clm import IGNORE_INDEX
from engine.errors import InvalidInput
from engine.mlm import mask_tokens
from engine.spans import corrupt, corrupt_random, span_counts
from tests.test_spans import t5_noise_span_to_unique_sentinel, t5_nonnoise_span_to_unique_sentinel

# --- blocks of rows ---------------------------------------------------------------------------


def blocks_of(elements: int | None):
    """Work in blocks under ``elements`` as on a machine with 2 threads (None: as the machine is),
    so the blocked path is compared with the references on any machine."""
    if elements is None:
        return contextlib.nullcontext()
    stack = contextlib.ExitStack()
    stack.enter_context(mock.patch.object(blocks, "SERIAL_ELEMENTS", elements))
    stack.enter_context(mock.patch.object(blocks.torch, "get_num_threads", return_value=2))
    return stack


BLOCK_SIZES = st.sampled_from([None, 1, 7, 100])


@given(st.integers(0, 300), st.integers(0, 700), st.sampled_from([1, 7, 100, 32_768]))
def test_row_blocks_cover_every_row_once_in_blocks_below_the_size(rows, width, elements):
    with blocks_of(elements):
        parts = blocks.row_blocks(rows, width)
    assert [i for part in parts for i in range(rows)[part]] == list(range(rows))
    assert all(part.stop > part.start for part in parts) or rows == 0
    assert all((part.stop - part.start) * width < elements or part.stop - part.start == 1 for part in parts)
    sizes = [part.stop - part.start for part in parts]
    assert max(sizes) - min(sizes) <= 1  # even


# --- T5 span corruption ----------------------------------------------------------------------


class Ambiguous(Exception):
    """Two keys tie at the cut-off: which gap is cut is then torch's topk's choice, not a rule."""


def smallest_gaps(keys: list[float], count: int) -> list[int]:
    """The cut points (gap index + 1, ascending) of the ``count`` smallest keys."""
    if count == 0:
        return []
    order = sorted(range(len(keys)), key=keys.__getitem__)
    if count < len(keys) and keys[order[count - 1]] == keys[order[count]]:
        raise Ambiguous
    return sorted(index + 1 for index in order[:count])


def lengths_between(cuts: list[int], total: int) -> list[int]:
    bounds = [0, *cuts, total]
    return [end - start for start, end in itertools.pairwise(bounds)]


def reference_noise_masks(
    batch: int, length: int, density: float, mean: float, generator: torch.Generator
) -> list[list[bool]]:
    """T5's random_spans_noise_mask per row: the noise tokens and the kept tokens are each
    cut into ``spans`` segments, kept and noise alternate from a kept one. The cuts of a
    row are the gaps with the smallest keys of one ``torch.rand(batch, noise - 1 + kept - 1)``
    draw, the noise tokens' gaps first (the engine's contract with its seeds)."""
    noise, spans = span_counts(length, density, mean)
    if noise == 0:
        return [[False] * length for _ in range(batch)]
    kept = length - noise
    masks = []
    for keys in torch.rand(batch, noise - 1 + kept - 1, generator=generator).tolist():
        noise_lengths = lengths_between(smallest_gaps(keys[: noise - 1], spans - 1), noise)
        kept_lengths = lengths_between(smallest_gaps(keys[noise - 1 :], spans - 1), kept)
        mask: list[bool] = []
        for kept_run, noise_run in zip(kept_lengths, noise_lengths, strict=True):
            mask += [False] * kept_run + [True] * noise_run
        masks.append(mask)
    return masks


def engine_target(tokens, mask, sentinels):
    """Each span's sentinel, then the span; then the closing sentinel when kept text follows
    the last span. T5 numbers the kept runs instead, which is the same when a row starts
    with kept text, as T5's masks do; for a span at position 0 the engine keeps this
    pairing (tests/test_spans.py)."""
    target, used = [], 0
    for i, (token, noise) in enumerate(zip(tokens, mask, strict=True)):
        if noise and (i == 0 or not mask[i - 1]):
            target.append(sentinels[used])
            used += 1
        if noise:
            target.append(token)
    # The closing sentinel stands for kept text after the last span; an empty row has
    # no span and counts as ending in kept text (the engine's rule for length 0).
    return [*target, sentinels[used]] if not mask or not mask[-1] else target


def reference_corrupt(rows, masks, sentinels, pad_id, eos_id):
    """(inputs, targets, input lengths, target lengths) as lists, padded with ``pad_id`` to
    the batch's widest row; InvalidInput when a row needs more sentinels than there are."""
    inputs, targets = [], []
    for tokens, mask in zip(rows, masks, strict=True):
        spans = sum(noise and (i == 0 or not mask[i - 1]) for i, noise in enumerate(mask))
        closes = not mask or not mask[-1]
        if spans + closes > len(sentinels):
            raise InvalidInput("too-many-spans", spans=spans, need=spans + closes, sentinels=len(sentinels))
        source = t5_noise_span_to_unique_sentinel(tokens, mask, sentinels)
        target = engine_target(tokens, mask, sentinels)
        if mask and not mask[0]:  # T5's own masks start with kept text: then the target is T5's
            assert target == t5_nonnoise_span_to_unique_sentinel(tokens, mask, sentinels)
        end = [] if eos_id is None else [eos_id]
        inputs.append(source + end)
        targets.append(target + end)
    input_lengths = [len(row) for row in inputs]
    target_lengths = [len(row) for row in targets]
    input_width, target_width = max(input_lengths, default=0), max(target_lengths, default=0)
    return (
        [row + [pad_id] * (input_width - len(row)) for row in inputs],
        [row + [pad_id] * (target_width - len(row)) for row in targets],
        input_lengths,
        target_lengths,
    )


def assert_same_corruption(result, rows, masks, sentinels, pad_id, eos_id, dtype, squeeze=False):
    inputs, targets, input_lengths, target_lengths = reference_corrupt(rows, masks, sentinels, pad_id, eos_id)
    if squeeze:
        masks, inputs, targets = masks[0], inputs[0], targets[0]
        input_lengths, target_lengths = input_lengths[0], target_lengths[0]
    assert result.noise_mask.dtype == torch.bool and result.noise_mask.tolist() == masks
    assert result.inputs.dtype == dtype and result.inputs.tolist() == inputs
    assert result.targets.dtype == dtype and result.targets.tolist() == targets
    assert result.input_lengths.dtype == torch.int64 and result.input_lengths.tolist() == input_lengths
    assert result.target_lengths.dtype == torch.int64 and result.target_lengths.tolist() == target_lengths
    if not squeeze:
        assert result.inputs.shape == (len(rows), max(input_lengths, default=0))
        assert result.targets.shape == (len(rows), max(target_lengths, default=0))


# T5's count down from the top of its vocabulary, a count up, and ids in no order (no arithmetic shortcut).
SENTINEL_LISTS = st.sampled_from(
    [
        [32099 - k for k in range(100)],
        list(range(1000, 1600)),
        [977, 5000, 31, 1200, 64, 9999, 12, 4242, 3001, 7],
    ]
)


@given(
    batch=st.integers(0, 5),
    length=st.one_of(st.integers(2, 40), st.integers(2, 600)),
    density=st.one_of(st.sampled_from([0.0, 1e-9, 0.15, 0.5, 1 - 1e-9, 1.0]), st.floats(0.0, 1.0)),
    mean=st.one_of(st.sampled_from([0.01, 1.0, 3.0, 1e6]), st.floats(0.1, 50.0)),
    seed=st.integers(0, 2**63 - 1),
    sentinels=SENTINEL_LISTS,
    pad_id=st.sampled_from([0, -1, 5]),
    eos_id=st.sampled_from([None, 1]),
    dtype=st.sampled_from([torch.int64, torch.int32]),
    one_row=st.booleans(),
    block=BLOCK_SIZES,
)
@example(
    128, 512, 0.15, 3.0, 0, [32099 - k for k in range(100)], 0, 1, torch.int64, False, None
)  # the benchmark's
@example(3, 2, 1.0, 3.0, 1, list(range(1000, 1600)), 0, 1, torch.int64, False, 1)  # 1 noise, 1 kept
@example(2, 600, 1.0, 0.01, 2, list(range(1000, 1600)), 0, None, torch.int64, False, 100)  # 1 kept token
def test_random_corruption_is_the_reference_token_for_token(
    batch, length, density, mean, seed, sentinels, pad_id, eos_id, dtype, one_row, block
):
    batch = 1 if one_row else batch
    ids = torch.randint(5, 900, (batch, length), generator=torch.Generator().manual_seed(seed % 1000)).to(
        dtype
    )
    given_ids = ids[0] if one_row else ids
    try:
        masks = reference_noise_masks(batch, length, density, mean, torch.Generator().manual_seed(seed))
        expected = reference_corrupt(ids.tolist(), masks, sentinels, pad_id, eos_id)
    except Ambiguous:
        assume(False)
    except InvalidInput as error:
        expected = error
    generator = torch.Generator().manual_seed(seed)
    if isinstance(expected, InvalidInput):
        with pytest.raises(InvalidInput) as raised, blocks_of(block):
            corrupt_random(given_ids, sentinels, density, mean, pad_id, generator, eos_id)
        assert raised.value.code == expected.code
        return
    with blocks_of(block):
        result = corrupt_random(given_ids, sentinels, density, mean, pad_id, generator, eos_id)
    assert_same_corruption(result, ids.tolist(), masks, sentinels, pad_id, eos_id, dtype, squeeze=one_row)


@st.composite
def noise_masks(draw):
    """Any noise masks: ragged (rows hiding different amounts), touching spans, all noise,
    all kept, a span at position 0 or at the end, rows of 0 and 1 tokens."""
    batch = draw(st.integers(0, 5))
    length = draw(st.one_of(st.integers(0, 3), st.integers(0, 70)))
    seed = draw(st.integers(0, 2**31 - 1))
    generator = torch.Generator().manual_seed(seed)
    rate = torch.rand(batch, 1, generator=generator) * draw(st.sampled_from([0.0, 0.3, 1.0, 1.01]))
    mask = torch.rand(batch, length, generator=generator) < rate
    ids = torch.randint(5, 900, (batch, length), generator=generator)
    return ids, mask


@given(
    case=noise_masks(),
    sentinels=SENTINEL_LISTS,
    pad_id=st.sampled_from([0, 7]),
    eos_id=st.sampled_from([None, 1]),
    as_int=st.booleans(),
)
def test_corrupting_any_mask_is_the_reference_token_for_token(case, sentinels, pad_id, eos_id, as_int):
    ids, mask = case
    masks = mask.tolist()
    given_mask = mask.to(torch.int64) if as_int else mask  # a 0/1 mask means the same
    try:
        expected = reference_corrupt(ids.tolist(), masks, sentinels, pad_id, eos_id)
    except InvalidInput as error:
        with pytest.raises(InvalidInput) as raised:
            corrupt(ids, given_mask, sentinels, pad_id, eos_id)
        assert raised.value.code == error.code
        return
    assert expected is not None
    result = corrupt(ids, given_mask, sentinels, pad_id, eos_id)
    assert_same_corruption(result, ids.tolist(), masks, sentinels, pad_id, eos_id, ids.dtype)
    if ids.shape[0] == 1:  # one sequence (N,) is worked on as the batch (1, N)
        alone = corrupt(ids[0], given_mask[0], sentinels, pad_id, eos_id)
        assert_same_corruption(alone, ids.tolist(), masks, sentinels, pad_id, eos_id, ids.dtype, squeeze=True)


def test_the_reference_segmentation_is_t5s():
    """The reference itself, by hand: one row of 10 tokens, 3 noise in 2 spans, with keys
    chosen so that noise gap 1 and kept gap 3 are cut: kept 3, noise 1, kept 4, noise 2."""
    assert span_counts(10, 0.3, 1.5) == (3, 2)
    keys = [0.9, 0.1, 0.8, 0.7, 0.05, 0.6, 0.95, 0.99]  # noise gaps 0-1, kept gaps 0-5
    assert smallest_gaps(keys[:2], 1) == [2]
    assert smallest_gaps(keys[2:], 1) == [3]
    assert lengths_between([2], 3) == [2, 1] and lengths_between([3], 7) == [3, 4]
    with pytest.raises(Ambiguous):
        smallest_gaps([0.5, 0.5, 0.7], 1)


# --- BERT masking ----------------------------------------------------------------------------


def float32(value: float) -> float:
    """The float32 nearest ``value``: torch compares a float32 draw with a Python number in float32."""
    return struct.unpack("f", struct.pack("f", value))[0]


def reference_mask_tokens(
    ids,
    *,
    mask_id,
    vocab_size,
    special_ids,
    attention_mask,
    p,
    split,
    word_ids,
    selected,
    fates,
    replacement_ids,
    generator,
):
    """BERT's rule one position at a time, drawing what the engine draws: one
    ``torch.rand((2, *shape))`` (selection draws, then fate draws), then one
    ``torch.randint(0, pool, (n_random,))`` for the random replacements in row-major order.
    Returns (input ids, labels, selected, fates) as flat lists."""
    shape = tuple(ids.shape)
    draws = torch.rand((2, *shape), generator=generator).view(2, -1).tolist()
    tokens = ids.flatten().tolist()
    width = shape[-1] if shape and shape[-1] else 1
    specials = {int(i) for i in special_ids}
    attention = [1] * len(tokens) if attention_mask is None else attention_mask.flatten().tolist()
    words = None if word_ids is None else word_ids.flatten().tolist()
    fixed_selection = None if selected is None else selected.flatten().bool().tolist()
    fixed_fates = None if fates is None else fates.flatten().to(torch.int8).tolist()
    chosen, fate = [], []
    for i, token in enumerate(tokens):
        eligible = token not in specials and attention[i] != 0
        if fixed_selection is not None:
            pick = fixed_selection[i] and eligible
        else:
            start = i
            if words is not None:  # the selection draw of the word's first piece
                while start % width and words[start] >= 0 and words[start - 1] == words[start]:
                    start -= 1
            pick = draws[0][start] < float32(p) and eligible
        if fixed_fates is not None:
            code = fixed_fates[i]
        else:
            draw = draws[1][i]
            code = 1 + (draw >= float32(split[0])) + (draw >= float32(split[0] + split[1]))
        chosen.append(pick)
        fate.append(code if pick else 0)
    inputs = [mask_id if code == 1 else token for token, code in zip(tokens, fate, strict=True)]
    randoms = [i for i, code in enumerate(fate) if code == 2]
    if randoms:
        if replacement_ids is None:
            pool = [i for i in range(vocab_size) if i not in specials]
        else:
            pool = replacement_ids.tolist()
        if not pool:
            raise InvalidInput("no-replacement")
        picks = torch.randint(0, len(pool), (len(randoms),), generator=generator).tolist()
        for position, pick in zip(randoms, picks, strict=True):
            inputs[position] = pool[pick]
    labels = [token if pick else IGNORE_INDEX for token, pick in zip(tokens, chosen, strict=True)]
    return inputs, labels, chosen, fate


@st.composite
def mlm_cases(draw):
    """Batches of any shape (a row, an empty batch, empty rows), specials inside and outside
    the vocabulary (negative too), padding, words, fixed choices, narrowed pools, any p."""
    seed = draw(st.integers(0, 2**63 - 1))
    generator = torch.Generator().manual_seed(seed % 10_000)
    vocab = draw(st.integers(1, 60))
    if draw(st.booleans()):
        shape = (draw(st.integers(0, 80)),)
    else:
        shape = (draw(st.integers(0, 5)), draw(st.one_of(st.integers(0, 3), st.integers(0, 80))))
    low = draw(st.sampled_from([0, 0, 0, -3]))  # negative ids: the engine's search path
    ids = torch.randint(low, vocab, shape, generator=generator).to(
        draw(st.sampled_from([torch.int64, torch.int32]))
    )
    specials = draw(st.lists(st.integers(-5, vocab + 5), max_size=8))
    extra = {}
    if draw(st.booleans()):
        extra["attention_mask"] = (torch.rand(shape, generator=generator) < 0.8).to(torch.int64)
    if draw(st.booleans()):  # pieces of one word are contiguous; -1 is no word
        steps = (torch.rand(shape, generator=generator) < 0.4).to(torch.int64).cumsum(-1)
        extra["word_ids"] = torch.where(torch.rand(shape, generator=generator) < 0.1, -1, steps)
    if draw(st.booleans()):
        extra["selected"] = torch.rand(shape, generator=generator) < 0.5
    if draw(st.booleans()):
        extra["fates"] = torch.randint(0, 4, shape, generator=generator)
    if draw(st.booleans()):
        extra["replacement_ids"] = torch.randint(0, vocab, (draw(st.integers(0, 6)),), generator=generator)
    p = draw(st.one_of(st.sampled_from([0.0, 0.15, 1.0]), st.floats(0.0, 1.0)))
    split = draw(
        st.sampled_from([(0.8, 0.1, 0.1), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.3, 0.3, 0.4)])
    )
    return ids, vocab, specials, extra, p, split, seed


@given(mlm_cases(), BLOCK_SIZES)
def test_masking_is_the_reference_position_for_position(case, block):
    ids, vocab, specials, extra, p, split, seed = case
    arguments = dict(mask_id=vocab + 1, vocab_size=vocab, special_ids=specials, p=p, split=split)
    reference_extra = {
        name: extra.get(name)
        for name in ("attention_mask", "word_ids", "selected", "fates", "replacement_ids")
    }
    try:
        expected = reference_mask_tokens(
            ids, **arguments, **reference_extra, generator=torch.Generator().manual_seed(seed)
        )
    except InvalidInput as error:
        with pytest.raises(InvalidInput) as raised, blocks_of(block):
            mask_tokens(ids, **arguments, **extra, generator=torch.Generator().manual_seed(seed))
        assert raised.value.code == error.code
        return
    with blocks_of(block):
        out = mask_tokens(ids, **arguments, **extra, generator=torch.Generator().manual_seed(seed))
    inputs, labels, chosen, fate = expected
    assert out.original_ids is ids
    assert out.input_ids.shape == ids.shape and out.input_ids.dtype == ids.dtype
    assert out.input_ids.flatten().tolist() == inputs
    assert out.labels.dtype == ids.dtype and out.labels.flatten().tolist() == labels
    assert out.selected.dtype == torch.bool and out.selected.flatten().tolist() == chosen
    assert out.fates.dtype == torch.int8 and out.fates.flatten().tolist() == fate


def test_the_reference_draws_what_the_lesson_draws():
    """The reference's draw order by hand: with p = 1 every non-special token is selected,
    and a fate draw below 0.8 gives [MASK], at or above 0.9 keeps the token."""
    ids = torch.tensor([[0, 7, 8, 9]])
    draws = torch.rand((2, 1, 4), generator=torch.Generator().manual_seed(3))
    inputs, labels, chosen, fate = reference_mask_tokens(
        ids,
        mask_id=99,
        vocab_size=20,
        special_ids=[0],
        attention_mask=None,
        p=1.0,
        split=(0.8, 0.1, 0.1),
        word_ids=None,
        selected=None,
        fates=None,
        replacement_ids=None,
        generator=torch.Generator().manual_seed(3),
    )
    assert chosen == [False, True, True, True] and labels == [IGNORE_INDEX, 7, 8, 9]
    for position, draw in enumerate(draws[1, 0].tolist()[1:], start=1):
        assert fate[position] == (1 if draw < 0.8 else 2 if draw < 0.9 else 3)
        if fate[position] == 1:
            assert inputs[position] == 99
