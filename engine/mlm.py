"""BERT's masked-LM data preparation, vectorised over a batch.

Draw order (kept fixed so the run of the course section "Self-supervision and
LM objectives" is a special case of this function): one uniform number per position decides selection (``< p``), a second
per position decides the fate of a selected token (``< 0.8`` -> [MASK],
``< 0.9`` -> random token, else unchanged), then one random replacement id per
"random" position in row-major order.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import torch

from engine.blocks import row_blocks
from engine.clm import IGNORE_INDEX
from engine.errors import InvalidInput
from engine.settings import BERT_SPLIT, MASK_RATE

# Fate codes, one per position.
UNSELECTED, MASKED, RANDOM, KEPT = 0, 1, 2, 3
FATE_NAMES = {MASKED: "mask", RANDOM: "random", KEPT: "keep"}
# IGNORE_INDEX as a 0-d tensor (only ever read): torch.where takes it as it is, where a Python number
# is wrapped in a new tensor on every call; a 0-d tensor does not widen the ids' dtype, as a number does not.
_IGNORE = torch.tensor(IGNORE_INDEX)


@dataclass(frozen=True)
class MaskedLMBatch:
    """What masking did to every position, so a learner can see each decision."""

    original_ids: torch.Tensor
    input_ids: torch.Tensor
    labels: torch.Tensor  # the original id where selected, -100 elsewhere
    selected: torch.Tensor  # bool
    fates: torch.Tensor  # UNSELECTED / MASKED / RANDOM / KEPT

    def counts(self) -> dict[str, int]:
        return {name: int((self.fates == code).sum()) for code, name in FATE_NAMES.items()}


def _check_probabilities(p: float, split: tuple[float, float, float]) -> None:
    if not 0.0 <= p <= 1.0:
        raise InvalidInput("p-out-of-range", p=p)
    if len(split) != 3 or any(not 0.0 <= part <= 1.0 for part in split) or abs(sum(split) - 1.0) > 1e-6:
        raise InvalidInput(
            "bad-split",
            split=tuple(split),
        )


def replacement_pool(vocab_size: int, special_ids: Iterable[int]) -> torch.Tensor:
    """Every id a random replacement may take: the whole vocabulary minus specials."""
    return _pool(vocab_size, tuple(sorted({int(i) for i in special_ids if 0 <= int(i) < vocab_size})))


@functools.lru_cache(maxsize=32)
def _pool(vocab_size: int, specials: tuple[int, ...]) -> torch.Tensor:
    blocked = torch.zeros(vocab_size, dtype=torch.bool)
    if specials:
        blocked[torch.tensor(specials)] = True
    return torch.arange(vocab_size)[~blocked]


def _not_special(ids: torch.Tensor, specials: tuple[int, ...]) -> torch.Tensor:
    """True where a token is not special: one table lookup per token, not a search."""
    if not specials or ids.numel() == 0:
        return torch.ones(ids.shape, dtype=torch.bool)
    low, high = ids.aminmax()
    low, high = int(low), int(high)
    if low < 0:  # not ids a table can index; search instead
        return torch.isin(ids, torch.tensor(specials, dtype=ids.dtype), invert=True)
    # (index_select, not take(): take's kernel starts the thread pool on a few thousand ids.)
    return (
        _not_special_table(high + 1, specials)
        .index_select(0, _as(ids, torch.long).reshape(-1))
        .view(ids.shape)
    )


@functools.lru_cache(maxsize=64)
def _not_special_table(size: int, specials: tuple[int, ...]) -> torch.Tensor:
    """(Cached: only ever read, never written.) False at the special ids among 0..size-1
    (specials outside that range are no token's)."""
    table = torch.ones(size, dtype=torch.bool)
    inside = [i for i in specials if 0 <= i < size]
    if inside:
        table[torch.tensor(inside)] = False
    return table


def _as(tensor: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``tensor.to(dtype)``, without the call (a few microseconds each) when it already is."""
    return tensor if tensor.dtype == dtype else tensor.to(dtype)


def _word_starts(word_ids: torch.Tensor) -> torch.Tensor:
    """For each position, the index of the first piece of its word (pieces are contiguous)."""
    length = word_ids.shape[-1]
    positions = torch.arange(length).expand_as(word_ids)
    previous = torch.cat([torch.full_like(word_ids[..., :1], -2), word_ids[..., :-1]], dim=-1)
    starts = (word_ids != previous) | (word_ids < 0)
    return torch.where(starts, positions, torch.zeros_like(positions)).cummax(dim=-1).values


def mask_tokens(
    ids: torch.Tensor,
    *,
    mask_id: int,
    vocab_size: int,
    special_ids: Iterable[int],
    attention_mask: torch.Tensor | None = None,
    p: float = MASK_RATE,
    split: tuple[float, float, float] = BERT_SPLIT,
    word_ids: torch.Tensor | None = None,
    selected: torch.Tensor | None = None,
    fates: torch.Tensor | None = None,
    replacement_ids: torch.Tensor | None = None,
    generator: torch.Generator | None = None,
) -> MaskedLMBatch:
    """Apply BERT's rule to a batch of token ids of shape (B, L) (or (L,)).

    Special tokens and padding (``attention_mask == 0``) are never selected and
    never drawn as replacements. With ``word_ids`` (the word each piece belongs
    to, -1 for none) all pieces of a word are selected together; each piece
    still gets its own fate. ``selected`` and ``fates`` override the draws (the
    lessons' worked examples fix them by hand). ``replacement_ids`` narrows the
    pool random replacements are drawn from (default: every non-special id).
    """
    _check_probabilities(p, split)
    # Every step is elementwise or along the last dimension, so one sequence (L,) is
    # worked on as it is: the same draws, in the same order, as for a batch (1, L).
    if ids.dim() not in (1, 2):
        raise InvalidInput("bad-shape")
    for extra in (attention_mask, word_ids, selected, fates):
        if extra is not None and extra.shape != ids.shape:
            raise InvalidInput("shape-mismatch")

    specials = tuple(int(i) for i in special_ids)
    # One call draws what two calls of ids.shape each would: draws[0] the selection draw, then
    # draws[1] the fate draw (both made even when fixed, so the replacement draws stay the same).
    draws = torch.rand((2, *ids.shape), generator=generator)
    # Then the rows in blocks that torch works on in this thread (engine.blocks): each step
    # until the replacement draw is per row. One sequence (L,) is one block.
    blocks = row_blocks(ids.shape[0], ids.shape[1]) if ids.dim() == 2 else [slice(None)]
    parts = [
        _decide(
            ids[rows],
            draws[:, rows],
            specials,
            mask_id,
            p,
            split,
            *(
                None if extra is None else extra[rows]
                for extra in (attention_mask, word_ids, selected, fates)
            ),
        )
        for rows in blocks
    ]
    counts = [int(part[3].count_nonzero()) for part in parts]  # random replacements per block
    if sum(counts):
        pool = replacement_pool(vocab_size, specials) if replacement_ids is None else replacement_ids
        if pool.numel() == 0:
            raise InvalidInput("no-replacement")
        picks = torch.randint(0, pool.numel(), (sum(counts),), generator=generator)
        replacements = _as(pool.index_select(0, picks), ids.dtype).split(counts)
        for (_, _, block_ids, random_positions, _), block_replacements in zip(
            parts, replacements, strict=True
        ):
            # = block_ids[random_positions] = ..., in row-major order, without index_put's search
            block_ids.masked_scatter_(random_positions, block_replacements)
    chosen, fate, input_ids, _, labels = (
        torch.cat(part) if len(parts) > 1 else part[0] for part in zip(*parts, strict=True)
    )
    return MaskedLMBatch(ids, input_ids, labels, chosen, fate)


def _decide(
    ids: torch.Tensor,
    draws: torch.Tensor,
    specials: tuple[int, ...],
    mask_id: int,
    p: float,
    split: tuple[float, float, float],
    attention_mask: torch.Tensor | None,
    word_ids: torch.Tensor | None,
    selected: torch.Tensor | None,
    fates: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """One block's (selected, fates, input ids with [MASK] in, where random ids go, labels)."""
    eligible = _not_special(ids, specials)
    if attention_mask is not None:
        eligible &= attention_mask.to(torch.bool)
    if selected is None:
        selection_draw = draws[0]
        if word_ids is not None:
            selection_draw = selection_draw.gather(-1, _word_starts(word_ids))
        chosen = (selection_draw < p) & eligible
    else:
        chosen = _as(selected, torch.bool) & eligible

    if fates is None:
        # MASKED (1) below the mask share, RANDOM (2) below mask + random, KEPT (3) from there.
        # (Compared as float32, as torch compares a float32 draw with a number; not bucketize,
        # whose kernel starts the thread pool at 200 elements.)
        fate = (draws[1] >= split[0]).to(torch.int8).add_(draws[1] >= split[0] + split[1]).add_(MASKED)
    else:
        fate = _as(fates, torch.int8)
    fate = fate * chosen
    input_ids = ids.masked_fill(fate == MASKED, mask_id)
    labels = torch.where(chosen, ids, _IGNORE)
    return chosen, fate, input_ids, fate == RANDOM, labels


def expected_counts(
    batch: int, length: int, p: float, split: tuple[float, float, float] = BERT_SPLIT
) -> dict[str, float]:
    """How many tokens masking selects on average, and how they split."""
    _check_probabilities(p, split)
    selected = batch * length * p
    return {
        "selected": selected,
        "mask": selected * split[0],
        "random": selected * split[1],
        "keep": selected * split[2],
    }
