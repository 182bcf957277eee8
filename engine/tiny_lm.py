"""The training lab's model: one tiny transformer, whatever the objective.

Two pre-norm layers, width 64, 4 heads, rotary positions (relative, so a
window placed anywhere reads the same) and the output layer tied to the token
embeddings. The objective only changes two things from outside: which keys each
query may see (the attention mask) and which positions are scored (the labels).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engine.train_lab_spec import ModelShape


def _rotary_tables(length: int, head_width: int) -> tuple[torch.Tensor, torch.Tensor]:
    half = head_width // 2
    frequencies = 1.0 / (10000 ** (torch.arange(half, dtype=torch.float32) / half))
    angles = torch.arange(length, dtype=torch.float32).view(-1, 1) * frequencies.view(1, -1)
    return angles.cos(), angles.sin()


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    first, second = x[..., :half], x[..., half:]
    return torch.cat([first * cos - second * sin, first * sin + second * cos], dim=-1)


def _attention_weights(
    q: torch.Tensor, k: torch.Tensor, allowed: torch.Tensor | None, causal: bool
) -> torch.Tensor:
    """softmax(q·kᵀ/√d) with blocked keys at -inf: what SDPA computes inside, as
    (B, heads, L, L). A blocked key gets exactly 0 (exp(-inf)), not a small number."""
    scores = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    length = q.shape[-2]
    if causal:
        allowed = torch.ones(length, length, dtype=torch.bool, device=q.device).tril()
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    return scores.softmax(dim=-1)


class Block(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(
        self,
        x: torch.Tensor,
        cos: torch.Tensor,
        sin: torch.Tensor,
        allowed: torch.Tensor | None,
        causal: bool,
        weights: list[torch.Tensor] | None = None,
    ) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(batch, length, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        if weights is None:  # training and answering: PyTorch's fused attention
            attended = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, is_causal=causal)
        else:  # the attention view: the same arithmetic written out, keeping the weights
            share = _attention_weights(q, k, allowed, causal)
            weights.append(share)
            attended = share @ v
        x = x + self.out(attended.transpose(1, 2).reshape(batch, length, width))
        return x + self.mlp(self.norm2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab_size: int, shape: ModelShape | None = None) -> None:
        super().__init__()
        shape = shape or ModelShape()
        self.vocab_size, self.shape = vocab_size, shape
        self.embed = nn.Embedding(vocab_size, shape.width)
        nn.init.normal_(self.embed.weight, std=shape.width**-0.5)
        self.blocks = nn.ModuleList(Block(shape.width, shape.heads) for _ in range(shape.layers))
        self.norm = nn.LayerNorm(shape.width)
        # Learned absolute positions beside the rotary ones: they let a model tell
        # where the window ends (every training window ends at a sentence end).
        self.absolute = nn.Embedding(2 * shape.context, shape.width) if shape.absolute else None
        if self.absolute is not None:
            nn.init.normal_(self.absolute.weight, std=shape.width**-0.5)
        cos, sin = _rotary_tables(4 * shape.context, shape.width // shape.heads)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(
        self,
        ids: torch.Tensor,
        blocked: torch.Tensor | str | None = None,
        offset: int = 0,
        weights: list[torch.Tensor] | None = None,
    ) -> torch.Tensor:
        """Logits (B, L, V). ``blocked``: None (every token sees every token),
        "causal", or a boolean mask (L, L) or (B, L, L), True = may not look
        (the lessons' convention; SDPA wants the opposite, so it is flipped here).
        ``offset`` shifts the absolute positions (a short text placed where a
        window's end would be). ``weights``, when given, receives each layer's
        attention weights (B, heads, L, L), in order."""
        length = ids.shape[1]
        if length > self.cos.shape[0]:
            cos, sin = _rotary_tables(length, self.cos.shape[1] * 2)
        else:
            cos, sin = self.cos[:length], self.sin[:length]
        causal = isinstance(blocked, str)
        allowed = None
        if isinstance(blocked, torch.Tensor):
            allowed = ~blocked if blocked.dim() == 2 else (~blocked).unsqueeze(1)
        x = self.embed(ids)
        if self.absolute is not None:
            where = torch.arange(length, device=ids.device) + offset
            x = x + self.absolute(where.clamp(0, self.absolute.num_embeddings - 1))
        x = x * self.shape.width**0.5
        for block in self.blocks:
            x = block(x, cos, sin, allowed, causal, weights)
        return self.norm(x) @ self.embed.weight.T
