"""Causal language modelling: next-token labels and their loss.

Whatever the layout, the prediction made at position t is scored against
token t + 1 (the seeds say the labels are the inputs "shifted right by one").
Two layouts are both right:

* data-side (the second seed lesson): inputs = tokens[:-1], labels = tokens[1:];
* loss-side (the first seed lesson and Hugging Face): the model reads all n
  tokens, labels = input_ids, and the loss compares logits[:, :-1] with
  labels[:, 1:], so logit t meets label t + 1.

Padding is read from the attention mask, never from token values, so a pad id
equal to EOS keeps the EOS labels.
"""

from __future__ import annotations

import itertools
import math

import torch
import torch.nn.functional as F

from engine.errors import InvalidInput

IGNORE_INDEX = -100


def _check(ids: torch.Tensor, attention_mask: torch.Tensor | None) -> None:
    if ids.dim() not in (1, 2):
        raise InvalidInput("bad-shape")
    if ids.shape[-1] < 2:
        raise InvalidInput(
            "sequence-too-short",
            n=int(ids.shape[-1]),
            need=2,
        )
    if attention_mask is not None and attention_mask.shape != ids.shape:
        raise InvalidInput("shape-mismatch")


def shift_for_next_token(
    ids: torch.Tensor, attention_mask: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """The lesson's layout: inputs = ids[..., :-1], labels = ids[..., 1:].

    A label is -100 where the token it asks for, or the position asking, is padding.
    """
    _check(ids, attention_mask)
    inputs = ids[..., :-1]
    labels = ids[..., 1:].clone()
    if attention_mask is not None:
        real = attention_mask.to(torch.bool)
        labels[~(real[..., 1:] & real[..., :-1])] = IGNORE_INDEX
    return inputs, labels


def loss_side_pairs(length: int) -> list[tuple[int, int]]:
    """Which logit position meets which label position in the loss-side layout:
    logits[:, :-1] against labels[:, 1:], i.e. (t, t + 1) for t = 0 .. n - 2."""
    if length < 2:
        raise InvalidInput(
            "sequence-too-short",
            n=length,
            need=2,
        )
    return list(itertools.pairwise(torch.arange(length).tolist()))  # (logit position, label position)


def loss_side_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Hugging Face's causal-LM loss: labels = input_ids (n of them), shifted inside the loss."""
    if logits.shape[:-1] != labels.shape:
        raise InvalidInput(
            "shape-mismatch",
        )
    return causal_lm_loss(logits[..., :-1, :], labels[..., 1:])


def same_length_labels(ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
    """Labels aligned with the full input: labels[t] = ids[t + 1], the last one -100."""
    _, shifted = shift_for_next_token(ids, attention_mask)
    tail = torch.full((*ids.shape[:-1], 1), IGNORE_INDEX, dtype=shifted.dtype)
    return torch.cat([shifted, tail], dim=-1)


def causal_lm_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over the positions whose label is not -100."""
    if logits.shape[:-1] != labels.shape:
        raise InvalidInput(
            "shape-mismatch",
        )
    return F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=IGNORE_INDEX
    )


def uniform_baseline(vocab_size: int) -> float:
    """The loss of a model that has learnt nothing and guesses uniformly: ln V."""
    if vocab_size < 1:
        raise InvalidInput("bad-vocab-size")
    return math.log(vocab_size)
