"""T5 span corruption: spans of the text are replaced by sentinels in the
input, and the target spells each sentinel followed by the span it hides,
closed by one more sentinel only when kept text follows the last span (T5's
``noise_span_to_unique_sentinel`` for the inputs and
``nonnoise_span_to_unique_sentinel`` for the targets). The simplified function
of the course section "Pretraining methods", which always closes with a
sentinel, lives in ``engine.textbook``.

Spans are either given (``[(start, end), ...]``, end exclusive, as the lesson's
``tokens[start:end]``) or drawn with T5's random-span algorithm, vectorised over
a batch.
"""

from __future__ import annotations

import functools
import itertools
import struct
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from engine.blocks import row_blocks
from engine.errors import InvalidInput
from engine.settings import MEAN_SPAN, NOISE_DENSITY


@dataclass(frozen=True)
class SpanCorruption:
    noise_mask: torch.Tensor  # (B, N) bool: which tokens the spans cover
    inputs: torch.Tensor  # (B, width) padded with pad_id
    targets: torch.Tensor  # (B, width) padded with pad_id
    input_lengths: torch.Tensor  # (B,)
    target_lengths: torch.Tensor  # (B,)


def check_spans(spans: Sequence[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """Validate explicit spans and return them sorted by position."""
    ordered = sorted((int(start), int(end)) for start, end in spans)
    for start, end in ordered:
        if not 0 <= start < end <= length:
            raise InvalidInput(
                "span-out-of-range",
                start=start,
                end=end,
                n=length,
            )
    for (start_a, end_a), (start_b, end_b) in itertools.pairwise(ordered):
        if start_b < end_a:
            raise InvalidInput(
                "spans-overlap",
                first=f"{start_a}:{end_a}",
                second=f"{start_b}:{end_b}",
            )
    return ordered


def _float32(value: float) -> float:
    """``value`` rounded to the nearest float32, as TensorFlow holds it."""
    return struct.unpack("f", struct.pack("f", value))[0]


def span_counts(length: int, density: float, mean_span: float) -> tuple[int, int]:
    """T5's arithmetic: (noise tokens, noise spans) for a sequence of ``length``, computed
    as T5's ``random_spans_noise_mask`` does (t5/data/preprocessors.py).

    noise = round(N * density) clamped to [1, N - 1]; spans = max(round(noise / mean), 1).
    T5 multiplies and divides in float32 (``tf.cast(length, tf.float32) * noise_density``)
    and rounds half to even (``tf.round``), so these do too: in float64 a 190-token text at
    density 0.15 would get 28 noise tokens (28.499...), T5 gives it 29 (float32: 28.500001).
    Each float32 product or quotient is exact in float64 before its one rounding to float32,
    so the emulation is exact. A density of 0 is no noise at all: (0, 0), as T5 returns an
    all-kept mask then.

    Where the course differs from T5, and why: fewer than 2 tokens are refused (T5 pads the
    length to 2 and cuts the mask back: one token, never noise, which hides nothing), and
    spans never exceed either kind of token (T5 leaves that case undefined: its segmentation
    of fewer items than segments fails).
    """
    if length < 2:
        raise InvalidInput(
            "sequence-too-short",
            n=length,
            need=2,
        )
    if not 0.0 <= density <= 1.0:
        raise InvalidInput("density-out-of-range", density=density)
    if not mean_span > 0:
        raise InvalidInput("mean-span-out-of-range", mean=mean_span)
    if density == 0.0:
        return 0, 0
    noise = min(max(round(_float32(_float32(length) * _float32(density))), 1), length - 1)
    spans = max(round(_float32(_float32(noise) / _float32(mean_span))), 1)
    return noise, min(spans, noise, length - noise)


def _random_cuts(keys: torch.Tensor, segments: int) -> torch.Tensor:
    """(B, segments - 1) sorted cut points in 1..items-1 for ``items = keys.shape[1] + 1``:
    the gaps with the smallest random keys, i.e. a uniformly random choice of
    ``segments - 1`` of the gaps between items, so every split is equally likely."""
    cuts = keys.topk(segments - 1, dim=1, largest=False, sorted=False).indices
    return cuts.sort(dim=1).values + 1


def random_spans_noise_mask(
    batch: int,
    length: int,
    density: float = NOISE_DENSITY,
    mean_span: float = MEAN_SPAN,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """(B, N) noise masks with exactly T5's noise-token and span counts (``span_counts``).

    Kept and noise segments alternate, starting with a kept one, as in T5; each
    kind is cut into ``spans`` segments uniformly at random. Noise span j starts
    after j+1 kept segments and j noise segments, and ends after j+1 of each.
    The random numbers are torch's, not TensorFlow's: the same seed does not give
    T5's mask, but every mask is drawn from T5's set with T5's (uniform) odds.
    """
    noise, spans = span_counts(length, density, mean_span)
    if noise == 0:  # density 0: T5 returns an all-kept mask
        return torch.zeros(batch, length, dtype=torch.bool)
    keys = _segment_keys(batch, length, noise, generator)
    masks = [_Segments(keys[rows], length, noise, spans).noise_mask() for rows in row_blocks(batch, length)]
    return torch.cat(masks) if len(masks) > 1 else masks[0]


def _segment_keys(batch: int, length: int, noise: int, generator: torch.Generator | None) -> torch.Tensor:
    """The one draw a batch's segmentation is made of: a key per gap between noise tokens,
    then one per gap between kept tokens (every seeded mask depends on this order)."""
    return torch.rand(batch, noise - 1 + length - noise - 1, generator=generator)


class _Segments:
    """One block of rows cut as T5 cuts them: ``spans`` kept segments and ``spans`` noise
    segments, alternating from a kept one, as (B, spans) running counts."""

    def __init__(self, keys: torch.Tensor, length: int, noise: int, spans: int) -> None:
        rows, kept = keys.shape[0], length - noise
        if spans > 1:
            noise_cuts = _random_cuts(keys[:, : noise - 1], spans)
            kept_cuts = _random_cuts(keys[:, noise - 1 :], spans)
        else:
            noise_cuts = kept_cuts = torch.zeros(rows, 0, dtype=torch.long)
        self.length, self.kept, self.noise, self.spans = length, kept, noise, spans
        self.kept_cuts, self.noise_cuts = kept_cuts, noise_cuts
        # Kept tokens through segment j, noise tokens before span j, and the lengths of both.
        self.kept_through = torch.cat([kept_cuts, kept_cuts.new_full((rows, 1), kept)], dim=1)
        self.noise_before = torch.cat([noise_cuts.new_zeros(rows, 1), noise_cuts], dim=1)
        self.kept_lengths = self.kept_through.diff(dim=1, prepend=self.kept_through.new_zeros(rows, 1))
        self.noise_lengths = self.noise_before.diff(
            dim=1, append=self.noise_before.new_full((rows, 1), noise)
        )

    def noise_mask(self) -> torch.Tensor:
        """(B, N) bool: +1 where a span starts, -1 where one ends (the last ends the row), summed."""
        edges = torch.zeros(self.kept_cuts.shape[0], self.length, dtype=torch.int8)
        edges.scatter_(1, self.kept_through + self.noise_before, 1)
        edges.scatter_(1, self.kept_cuts + self.noise_cuts, -1)
        return edges.cumsum(dim=1, dtype=torch.int8).bool()


def corrupt(
    ids: torch.Tensor,
    noise_mask: torch.Tensor,
    sentinel_ids: Sequence[int],
    pad_id: int = 0,
    eos_id: int | None = None,
) -> SpanCorruption:
    """Replace every noise span by its sentinel and build the matching targets, as T5 does.

    A span is a maximal run of noise (T5 marks noise per token, so two spans
    that touch are one span with one sentinel). Sentinel k stands for span k in
    the input and comes before span k's tokens in the target. The target ends
    with one more sentinel only when kept text follows the last span (that is
    T5's ``nonnoise_span_to_unique_sentinel``: the sentinel stands for that kept
    text); a span that runs to the end closes the target itself. With
    ``eos_id``, both sequences end with it, as T5's ``add_eos`` features do.
    Vectorised: each kept token's destination is computed with cumsum and written
    with one scatter.
    """
    squeeze = ids.dim() == 1
    if squeeze:
        ids, noise_mask = ids.unsqueeze(0), noise_mask.unsqueeze(0)
    if noise_mask.shape != ids.shape:
        raise InvalidInput("shape-mismatch")
    # (.to() costs a call even when the mask is bool already.)
    noise = noise_mask if noise_mask.dtype == torch.bool else noise_mask.to(torch.bool)
    kept = ~noise  # (read only below)
    span_starts = noise.clone()
    span_starts[:, 1:].bitwise_and_(kept[:, :-1])

    batch, length = ids.shape
    extra = 0 if eos_id is None else 1
    span_number = span_starts.cumsum(dim=1)  # 1 on the first span, 2 on the second ...
    noise_through = noise.cumsum(dim=1)  # noise tokens up to and including here
    if length:
        n_spans, total_noise = span_number[:, -1], noise_through[:, -1].clone()
        closes = kept[:, -1]  # The closing sentinel stands for the kept text after the last span.
    else:
        n_spans = total_noise = torch.zeros(batch, dtype=torch.long)
        closes = torch.ones(batch, dtype=torch.bool)
    need = n_spans + closes
    input_lengths = (n_spans - total_noise).add_(length + extra)
    hidden = total_noise + n_spans  # the target's noise tokens and their sentinels
    target_lengths = (hidden + closes).add_(extra)
    # The three maxima in one reduction and one read.
    most, input_width, target_width = (
        torch.stack([need, input_lengths, target_lengths]).amax(dim=1).tolist() if batch else (0, 0, 0)
    )
    if most > len(sentinel_ids):
        raise _too_many_spans(int(n_spans.max()), most, len(sentinel_ids))
    # Destinations are 1-based so that column 0 can take every discarded write:
    # multiplying a destination by its keep-flag sends the rest there.
    span_sentinel = _sentinel_of_span(tuple(sentinel_ids), span_number, ids.dtype)
    # n_spans <= need <= len(sentinel_ids) (checked above): the table's last entry, pad, is the most it reads.
    closing = _closing_table(tuple(sentinel_ids), pad_id, ids.dtype).index_select(0, n_spans)

    # Inputs: non-noise tokens, plus the sentinel at the first token of each span.
    # (In-place fills: on a 128x512 batch each avoided allocation is visible.)
    keep_in_input = kept | span_starts
    input_values = torch.where(span_starts, span_sentinel, ids)
    input_place = keep_in_input.cumsum(dim=1).masked_fill_(~keep_in_input, 0)
    inputs = torch.full((batch, input_width + 1), pad_id, dtype=ids.dtype)
    inputs.scatter_(1, input_place, input_values)

    # Targets: for span k, its sentinel then its tokens; then the closing sentinel if kept text follows.
    token_place = noise_through.add_(span_number)  # 1-based place of a noise token in the target
    targets = torch.full((batch, target_width + 1), pad_id, dtype=ids.dtype)
    targets.scatter_(1, token_place.masked_fill(kept, 0), ids)
    targets.scatter_(1, token_place.sub_(1).masked_fill_(~span_starts, 0), span_sentinel)
    closing_place = (hidden + 1).mul_(closes)
    targets.scatter_(1, closing_place.view(-1, 1), closing.view(-1, 1))
    if eos_id is not None:
        inputs.scatter_(1, input_lengths.view(-1, 1), eos_id)
        targets.scatter_(1, target_lengths.view(-1, 1), eos_id)
    inputs, targets = inputs[:, 1:], targets[:, 1:]

    parts = (noise, inputs, targets, input_lengths, target_lengths)
    return SpanCorruption(*(t.squeeze(0) for t in parts) if squeeze else parts)


def _too_many_spans(spans: int, need: int, sentinels: int) -> InvalidInput:
    return InvalidInput(
        "too-many-spans",
        spans=spans,
        need=need,
        sentinels=sentinels,
    )


def _sentinel_of_span(
    sentinel_ids: tuple[int, ...], span_number: torch.Tensor, dtype: torch.dtype
) -> torch.Tensor:
    """The sentinel id of each position's span (span_number counts from 1).

    Sentinel ids usually run in steps of +1 or -1 (T5's count down from the
    top of the vocabulary), so arithmetic replaces a gather over every token.
    """
    progression = _progression(sentinel_ids)
    if progression is not None:
        first, step = progression
        scaled = span_number if step == 1 else span_number * step
        shifted = scaled + (first - step)
        return shifted if shifted.dtype == dtype else shifted.to(dtype)
    table = torch.as_tensor(sentinel_ids, dtype=dtype)
    return table[(span_number - 1).clamp(min=0)]


@functools.lru_cache(maxsize=32)
def _progression(sentinel_ids: tuple[int, ...]) -> tuple[int, int] | None:
    """(first, step) when the ids run in equal steps, else None (asked once per list of sentinels)."""
    first = sentinel_ids[0]
    step = sentinel_ids[1] - first if len(sentinel_ids) > 1 else 1
    if all(value == first + step * index for index, value in enumerate(sentinel_ids)):
        return first, step
    return None


@functools.lru_cache(maxsize=32)
def _closing_table(sentinel_ids: tuple[int, ...], pad_id: int, dtype: torch.dtype) -> torch.Tensor:
    """(Cached: only ever indexed, never written.) The closing sentinel after n spans, at index n;
    pad after the last sentinel."""
    return torch.as_tensor([*sentinel_ids, pad_id], dtype=dtype)


def corrupt_explicit(
    ids: torch.Tensor,
    spans: Sequence[tuple[int, int]],
    sentinel_ids: Sequence[int],
    pad_id: int = 0,
    eos_id: int | None = None,
) -> SpanCorruption:
    """The lessons' build: hide the given spans of one sequence.

    Spans that touch (``2:3, 3:4``) hide one run of tokens and so become one
    span with one sentinel, as in T5, which marks noise token by token.
    """
    if ids.dim() != 1:
        raise InvalidInput("bad-shape")
    return corrupt(ids, explicit_noise_mask(spans, int(ids.shape[0])), sentinel_ids, pad_id, eos_id)


def explicit_noise_mask(spans: Sequence[tuple[int, int]], length: int) -> torch.Tensor:
    """The (N,) noise mask of validated explicit spans."""
    ordered = check_spans(spans, length)
    if not ordered:
        raise InvalidInput("no-spans")
    noise = [False] * length
    for start, end in ordered:
        noise[start:end] = [True] * (end - start)
    return torch.tensor(noise, dtype=torch.bool)


def noise_runs(noise: Sequence[bool]) -> list[tuple[int, int]]:
    """The maximal runs of noise as (start, end) pairs, end excluded: the spans T5 sees."""
    runs: list[list[int]] = []
    for position, is_noise in enumerate(noise):
        if is_noise and runs and runs[-1][1] == position:
            runs[-1][1] = position + 1
        elif is_noise:
            runs.append([position, position + 1])
    return [(start, end) for start, end in runs]


def corrupt_random(
    ids: torch.Tensor,
    sentinel_ids: Sequence[int],
    density: float = NOISE_DENSITY,
    mean_span: float = MEAN_SPAN,
    pad_id: int = 0,
    generator: torch.Generator | None = None,
    eos_id: int | None = None,
) -> SpanCorruption:
    """T5's random span corruption of a (B, N) or (N,) batch: ``corrupt`` of a
    ``random_spans_noise_mask``, built straight from the segmentation.

    T5's masks have one shape: every row hides the same number of tokens in the same
    number of spans, kept text first and noise last (so spans never touch and no closing
    sentinel is needed), so every row has the same two widths and the columns of each
    segment are known from the running counts. Each block of rows (``row_blocks``) is
    then a few gathers and scatters, with no search for runs.
    """
    squeeze = ids.dim() == 1
    batch_ids = ids.unsqueeze(0) if squeeze else ids
    if batch_ids.dim() != 2:
        raise InvalidInput("bad-shape")
    batch, length = batch_ids.shape
    noise, spans = span_counts(length, density, mean_span)
    if noise == 0 or batch == 0:  # nothing hidden, or no rows: the general build
        mask = random_spans_noise_mask(batch, length, density, mean_span, generator)
        result = corrupt(batch_ids, mask, sentinel_ids, pad_id, eos_id)
    else:
        if spans > len(sentinel_ids):
            raise _too_many_spans(spans, spans, len(sentinel_ids))
        keys = _segment_keys(batch, length, noise, generator)
        sentinels = _closing_table(tuple(sentinel_ids), pad_id, batch_ids.dtype)[:spans]
        blocks = [
            _corrupt_segments(batch_ids[rows], _Segments(keys[rows], length, noise, spans), sentinels, eos_id)
            for rows in row_blocks(batch, length + 1)
        ]
        mask, inputs, targets = (
            torch.cat(parts) if len(blocks) > 1 else parts[0] for parts in zip(*blocks, strict=True)
        )
        extra = 0 if eos_id is None else 1
        result = SpanCorruption(
            mask,
            inputs,
            targets,
            torch.full((batch,), length - noise + spans + extra, dtype=torch.long),
            torch.full((batch,), noise + spans + extra, dtype=torch.long),
        )
    if squeeze:
        result = SpanCorruption(
            *(
                t.squeeze(0)
                for t in (
                    result.noise_mask,
                    result.inputs,
                    result.targets,
                    result.input_lengths,
                    result.target_lengths,
                )
            )
        )
    return result


def _corrupt_segments(
    ids: torch.Tensor, cut: _Segments, sentinels: torch.Tensor, eos_id: int | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(noise mask, inputs, targets) of one block of rows, as ``corrupt`` builds them.

    Inputs: kept segment j, then sentinel j, at column kept_through[j] + j. Targets:
    sentinel j, at column noise_before[j] + j, then span j. Along either row the position
    read runs with the column, one token per column, except where it skips what the
    other sequence holds: the inputs skip span j's tokens after sentinel j (a jump of its
    length less the sentinel's column), the targets kept segment j's at sentinel j. The
    sentinels, and </s> at the end, are then written over their columns.
    """
    rows = ids.shape[0]
    step = torch.arange(cut.spans)
    extra = 0 if eos_id is None else 1
    sentinels = sentinels.expand(rows, -1)
    input_place = cut.kept_through + step
    inputs = _read_with_jumps(ids, cut.kept + cut.spans + extra, input_place + 1, cut.noise_lengths - 1)
    inputs.scatter_(1, input_place, sentinels)
    target_place = cut.noise_before + step
    targets = _read_with_jumps(ids, cut.noise + cut.spans + extra, target_place, cut.kept_lengths - 1)
    targets.scatter_(1, target_place, sentinels)
    if eos_id is not None:
        inputs[:, -1] = eos_id
        targets[:, -1] = eos_id
    return cut.noise_mask(), inputs, targets


def _read_with_jumps(
    ids: torch.Tensor, width: int, places: torch.Tensor, jumps: torch.Tensor
) -> torch.Tensor:
    """(B, width) tokens: column c reads position c plus every jump placed at or before c.
    (A column whose position runs past the row is one the caller writes over.)"""
    rows, length = ids.shape
    offsets = torch.zeros(rows, width + 1, dtype=torch.long).scatter_(1, places, jumps)
    source = offsets.cumsum_(dim=1)[:, :width].add_(torch.arange(width)).clamp_(max=length - 1)
    return ids.gather(1, source)


def merge_back(
    inputs: Sequence[int], targets: Sequence[int], sentinel_ids: Sequence[int], eos_id: int | None = None
) -> list[int]:
    """Rebuild the original sequence from one corrupted input and its target
    (a trailing ``eos_id`` on either is dropped first)."""
    if eos_id is not None:
        inputs = inputs[:-1] if inputs and inputs[-1] == eos_id else inputs
        targets = targets[:-1] if targets and targets[-1] == eos_id else targets
    sentinel_set = set(sentinel_ids)
    fills: dict[int, list[int]] = {}
    current: int | None = None
    for token in targets:
        if token in sentinel_set:
            current = token
            fills.setdefault(current, [])
        elif current is not None:
            fills[current].append(token)
    merged: list[int] = []
    for token in inputs:
        merged.extend(fills.get(token, []) if token in sentinel_set else [token])
    return merged
