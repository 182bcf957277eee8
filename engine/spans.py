"""T5 span corruption: spans of the text are replaced by sentinels in the
input, and the target spells each sentinel followed by the span it hides,
ending with the next sentinel (the second lesson's format).

Spans are either given (``[(start, end), ...]``, end exclusive, as the lesson's
``tokens[start:end]``) or drawn with T5's random-span algorithm, vectorised over
a batch.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from engine.errors import InvalidInput


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
                f"span {start}:{end} is empty or outside the sequence of {length} tokens (need 0 <= start < end <= {length})",
                start=start,
                end=end,
                n=length,
            )
    for (start_a, end_a), (start_b, end_b) in itertools.pairwise(ordered):
        if start_b < end_a:
            raise InvalidInput(
                "spans-overlap",
                f"spans {start_a}:{end_a} and {start_b}:{end_b} overlap",
                first=f"{start_a}:{end_a}",
                second=f"{start_b}:{end_b}",
            )
    return ordered


def span_counts(length: int, density: float, mean_span: float) -> tuple[int, int]:
    """T5's arithmetic: (noise tokens, noise spans) for a sequence of ``length``.

    noise = round(N * density) clamped to [1, N - 1]; spans = max(round(noise /
    mean), 1), and never more than either kind of token can be cut into (T5
    itself leaves that degenerate case undefined).
    """
    if length < 2:
        raise InvalidInput(
            "sequence-too-short",
            f"span corruption needs at least 2 tokens (one hidden, one kept), got {length}",
            n=length,
            need=2,
        )
    if not 0.0 <= density <= 1.0:
        raise InvalidInput(
            "density-out-of-range", f"noise density must be in [0, 1], got {density}", density=density
        )
    if not mean_span > 0:
        raise InvalidInput(
            "mean-span-out-of-range", f"mean span length must be positive, got {mean_span}", mean=mean_span
        )
    noise = min(max(round(length * density), 1), length - 1)
    spans = max(round(noise / mean_span), 1)
    return noise, min(spans, noise, length - noise)


def _random_segment_lengths(
    total: int, segments: int, batch: int, generator: torch.Generator | None
) -> torch.Tensor:
    """(B, segments) positive lengths adding up to ``total``, every split equally likely.

    Choose ``segments - 1`` of the ``total - 1`` gaps between items uniformly at
    random (the smallest keys of a random permutation) and cut there.
    """
    if segments == 1:
        return torch.full((batch, 1), total, dtype=torch.long)
    keys = torch.rand(batch, total - 1, generator=generator)
    cuts = keys.topk(segments - 1, dim=1, largest=False).indices + 1
    cuts = cuts.sort(dim=1).values
    edges = torch.cat(
        [torch.zeros(batch, 1, dtype=torch.long), cuts, torch.full((batch, 1), total, dtype=torch.long)],
        dim=1,
    )
    return edges.diff(dim=1)


def random_spans_noise_mask(
    batch: int,
    length: int,
    density: float = 0.15,
    mean_span: float = 3.0,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """(B, N) noise masks with exactly T5's noise-token and span counts.

    Non-noise and noise segments alternate, starting with non-noise, as in T5.
    """
    noise, spans = span_counts(length, density, mean_span)
    noise_lengths = _random_segment_lengths(noise, spans, batch, generator)
    keep_lengths = _random_segment_lengths(length - noise, spans, batch, generator)
    interleaved = torch.stack([keep_lengths, noise_lengths], dim=2).reshape(batch, 2 * spans)
    boundaries = interleaved.cumsum(dim=1)[:, :-1]
    starts = torch.zeros(batch, length, dtype=torch.long)
    starts.scatter_(1, boundaries, 1)
    return starts.cumsum(dim=1) % 2 == 1


def corrupt(
    ids: torch.Tensor,
    noise_mask: torch.Tensor,
    sentinel_ids: Sequence[int],
    pad_id: int = 0,
    span_starts: torch.Tensor | None = None,
) -> SpanCorruption:
    """Replace every noise span by its sentinel and build the matching targets.

    ``span_starts`` marks where a span begins; by default a span is a maximal run
    of noise. Vectorised: each kept token's destination is computed with cumsum
    and written with one scatter.
    """
    squeeze = ids.dim() == 1
    if squeeze:
        ids, noise_mask = ids.unsqueeze(0), noise_mask.unsqueeze(0)
        span_starts = None if span_starts is None else span_starts.unsqueeze(0)
    if noise_mask.shape != ids.shape:
        raise InvalidInput("shape-mismatch", "noise_mask must have the same shape as the token ids")
    noise = noise_mask.to(torch.bool)
    if span_starts is None:
        previous = torch.cat([torch.zeros_like(noise[:, :1]), noise[:, :-1]], dim=1)
        span_starts = noise & ~previous
    span_starts = span_starts.to(torch.bool) & noise

    n_spans = span_starts.sum(dim=1)
    most = int(n_spans.max()) if n_spans.numel() else 0
    if most + 1 > len(sentinel_ids):
        raise InvalidInput(
            "too-many-spans",
            f"{most} spans need {most + 1} sentinels (the target ends with the next one), but only {len(sentinel_ids)} exist",
            spans=most,
            need=most + 1,
            sentinels=len(sentinel_ids),
        )
    sentinels = torch.as_tensor(list(sentinel_ids), dtype=ids.dtype)
    span_index = span_starts.long().cumsum(dim=1) - 1  # which span a noise token belongs to
    batch = ids.shape[0]

    # Inputs: non-noise tokens, plus the sentinel at the first token of each span.
    keep_in_input = ~noise | span_starts
    input_values = torch.where(span_starts, sentinels[span_index.clamp(min=0)], ids)
    input_lengths = keep_in_input.sum(dim=1)
    input_dest = keep_in_input.long().cumsum(dim=1) - 1
    inputs = _scatter_rows(input_values, keep_in_input, input_dest, input_lengths, pad_id)

    # Targets: for span k, its sentinel then its tokens; then the closing sentinel.
    noise_before = noise.long().cumsum(dim=1) - noise.long()
    token_dest = noise_before + span_index + 1
    sentinel_dest = noise_before + span_index
    total_noise = noise.sum(dim=1)
    target_lengths = total_noise + n_spans + 1
    width = int(target_lengths.max()) if batch else 0
    targets = torch.full((batch, width + 1), pad_id, dtype=ids.dtype)
    rows = torch.arange(batch).view(-1, 1).expand_as(ids)
    targets[rows[noise], token_dest[noise]] = ids[noise]
    targets[rows[span_starts], sentinel_dest[span_starts]] = sentinels[span_index[span_starts]]
    targets[torch.arange(batch), target_lengths - 1] = sentinels[n_spans]
    targets = targets[:, :width]

    result = SpanCorruption(noise, inputs, targets, input_lengths, target_lengths)
    if squeeze:
        result = SpanCorruption(
            *(t.squeeze(0) for t in (noise, inputs, targets, input_lengths, target_lengths))
        )
    return result


def _scatter_rows(
    values: torch.Tensor, keep: torch.Tensor, dest: torch.Tensor, lengths: torch.Tensor, pad_id: int
) -> torch.Tensor:
    batch = values.shape[0]
    width = int(lengths.max()) if batch else 0
    out = torch.full((batch, width), pad_id, dtype=values.dtype)
    rows = torch.arange(batch).view(-1, 1).expand_as(values)
    out[rows[keep], dest[keep]] = values[keep]
    return out


def corrupt_explicit(
    ids: torch.Tensor, spans: Sequence[tuple[int, int]], sentinel_ids: Sequence[int], pad_id: int = 0
) -> SpanCorruption:
    """The lesson's build: hide the given spans of one sequence (each its own
    sentinel, even when two spans touch)."""
    if ids.dim() != 1:
        raise InvalidInput("bad-shape", "explicit spans apply to one sequence (1-D token ids)")
    length = int(ids.shape[0])
    ordered = check_spans(spans, length)
    if not ordered:
        raise InvalidInput("no-spans", "give at least one span to hide")
    noise = torch.zeros(length, dtype=torch.bool)
    starts = torch.zeros(length, dtype=torch.bool)
    for start, end in ordered:
        noise[start:end] = True
        starts[start] = True
    return corrupt(ids, noise, sentinel_ids, pad_id, span_starts=starts)


def corrupt_random(
    ids: torch.Tensor,
    sentinel_ids: Sequence[int],
    density: float = 0.15,
    mean_span: float = 3.0,
    pad_id: int = 0,
    generator: torch.Generator | None = None,
) -> SpanCorruption:
    """T5's random span corruption of a (B, N) or (N,) batch."""
    squeeze = ids.dim() == 1
    batch_ids = ids.unsqueeze(0) if squeeze else ids
    if batch_ids.dim() != 2:
        raise InvalidInput("bad-shape", "token ids must have shape (length,) or (batch, length)")
    noise = random_spans_noise_mask(batch_ids.shape[0], batch_ids.shape[1], density, mean_span, generator)
    result = corrupt(batch_ids, noise, sentinel_ids, pad_id)
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


def merge_back(inputs: Sequence[int], targets: Sequence[int], sentinel_ids: Sequence[int]) -> list[int]:
    """Rebuild the original sequence from one corrupted input and its target."""
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
