"""Prefix LM: the prefix is read bidirectionally, the continuation causally,
and only the continuation is predicted."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from engine.clm import IGNORE_INDEX, shift_for_next_token
from engine.errors import InvalidInput
from engine.masks import prefix_mask


@dataclass(frozen=True)
class PrefixLMSample:
    inputs: torch.Tensor  # tokens[:-1]
    labels: torch.Tensor  # tokens[1:], -100 where the label lies inside the prefix
    mask: torch.Tensor  # (n-1, n-1) prefix-LM mask over the inputs
    prefix_len: int


def prefix_lm_sample(ids: torch.Tensor, prefix_len: int) -> PrefixLMSample:
    """Build the decoder-only prefix-LM sample of a 1-D token sequence.

    Position t predicts token t+1; the loss is taken only where token t+1 belongs
    to the continuation (t + 1 >= prefix_len), since every prefix token is visible
    to the whole prefix and predicting it would be copying.
    """
    if ids.dim() != 1:
        raise InvalidInput("bad-shape")
    n = int(ids.shape[0])
    if n < 2:
        raise InvalidInput(
            "sequence-too-short",
            n=n,
            need=2,
        )
    if not 0 <= prefix_len <= n - 1:
        raise InvalidInput(
            "prefix-out-of-range",
            prefix=prefix_len,
            n=n - 1,
        )
    inputs, labels = shift_for_next_token(ids)
    positions = torch.arange(n - 1)
    labels = labels.masked_fill(positions + 1 < prefix_len, IGNORE_INDEX)
    return PrefixLMSample(inputs, labels, prefix_mask(n - 1, prefix_len), prefix_len)


def random_prefix_length(n: int, generator: torch.Generator | None = None) -> int:
    """Where T5 cuts plain text for prefix-LM pretraining (``random_prefix_noise_mask`` at
    its density 0.5, t5/data/preprocessors.py): the prefix is the first k tokens, k drawn
    uniformly from 1 to n-1, so that both parts are non-empty."""
    if n < 2:
        raise InvalidInput("sequence-too-short", n=n, need=2)
    return int(torch.randint(1, n, (1,), generator=generator))
