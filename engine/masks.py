"""Attention masks for each objective.

Convention (the lessons'): a boolean mask is ``True`` where the query (row)
may NOT look at the key (column). Rows are query positions, columns key
positions, both counted from 0.
"""

from __future__ import annotations

import torch

from engine.errors import InvalidInput

KINDS = ("causal", "bidirectional", "prefix")


def _check_length(n: int) -> None:
    if n < 1:
        raise InvalidInput("length-too-small", n=n)


def causal_mask(n: int) -> torch.Tensor:
    """Decoder (GPT) mask: position q sees keys 0..q; the future is blocked."""
    _check_length(n)
    # torch.triu(ones, diagonal=1) holds the same cells, but its kernel starts the thread
    # pool even for a few cells: on a busy machine each call waits for a second core.
    positions = torch.arange(n)
    return positions > positions.view(n, 1)  # key (column) after query (row)


def bidirectional_mask(n: int) -> torch.Tensor:
    """Encoder (BERT) mask: every position sees every position."""
    _check_length(n)
    return torch.zeros(n, n, dtype=torch.bool)


def prefix_mask(n: int, prefix_len: int | torch.Tensor) -> torch.Tensor:
    """Prefix-LM mask: allowed(q, k) = k <= q or k < prefix_len.

    ``prefix_len`` may be one int, giving (n, n), or a tensor of shape (B,),
    one prefix per row, giving (B, n, n).
    """
    _check_length(n)
    if isinstance(prefix_len, int):  # one prefix: checked in Python, no tensor ops on a scalar
        if not 0 <= prefix_len <= n:
            raise InvalidInput(
                "prefix-out-of-range",
                prefix=prefix_len,
                n=n,
            )
        positions = torch.arange(n)
        # blocked = not (k <= q or k < prefix_len) = k > q and k >= prefix_len
        return (positions > positions.view(n, 1)) & (positions >= prefix_len)
    prefix = torch.as_tensor(prefix_len)
    if prefix.dim() > 1:
        raise InvalidInput("bad-prefix")
    low, high = (int(prefix.min()), int(prefix.max())) if prefix.numel() else (0, 0)
    if low < 0 or high > n:
        bad = low if low < 0 else high
        raise InvalidInput(
            "prefix-out-of-range",
            prefix=bad,
            n=n,
        )
    query = torch.arange(n).view(n, 1)
    key = torch.arange(n).view(1, n)
    if prefix.dim() == 0:
        return ~((key <= query) | (key < prefix))
    return ~((key <= query) | (key < prefix.view(-1, 1, 1)))


def mask_for(kind: str, n: int, prefix_len: int = 0) -> torch.Tensor:
    """The (n, n) boolean mask of one of ``KINDS`` by name."""
    if kind == "causal":
        return causal_mask(n)
    if kind == "bidirectional":
        return bidirectional_mask(n)
    if kind == "prefix":
        return prefix_mask(n, prefix_len)
    raise InvalidInput("unknown-mask-kind", kind=kind)


def with_key_padding(mask: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """Also block every key that is padding, per row: (B, n, n).

    Padding is read from ``attention_mask`` (1 = real token, 0 = padding), never
    from token values, so a pad id that doubles as EOS is not mistaken for padding.
    """
    if attention_mask.dim() != 2:
        raise InvalidInput("bad-attention-mask")
    n = attention_mask.shape[1]
    if mask.shape[-1] != n or mask.shape[-2] != n:
        raise InvalidInput(
            "shape-mismatch",
        )
    key_is_pad = attention_mask.to(torch.bool).logical_not().view(-1, 1, n)
    return mask.to(torch.bool) | key_is_pad


def to_additive(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """0 where allowed, -inf where blocked: the form added to attention scores."""
    zeros = torch.zeros(mask.shape, dtype=dtype)
    return zeros.masked_fill(mask.to(torch.bool), float("-inf"))


def visible_keys(mask: torch.Tensor, query: int) -> list[int]:
    """The key positions one query row may look at (the lesson's 'position i sees [...]')."""
    return [key for key, blocked in enumerate(mask[query].tolist()) if not blocked]
