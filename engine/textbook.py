"""The lessons' own runs, reproduced.

Each function draws random numbers in exactly the order the lesson's code does
(from a ``torch.Generator`` seeded like ``torch.manual_seed``), so seed 0 and
the lesson's sizes print the lesson's numbers, and any other seed, size or
probability gives what the lesson's code would give.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from engine.clm import causal_lm_loss, shift_for_next_token, uniform_baseline
from engine.errors import InvalidInput
from engine.masks import bidirectional_mask, causal_mask, visible_keys
from engine.mlm import MASKED, MaskedLMBatch, mask_tokens
from engine.settings import MASK_RATE
from engine.spans import check_spans
from engine.tokens import LESSON_SENTENCE, Vocab, sentinel, split_text

LESSON_SPECIALS = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
FIRST_ORDINARY_ID = 5  # the lesson draws ordinary tokens from [5, vocab)


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _check_size(name: str, value: int, low: int) -> None:
    if value < low:
        raise InvalidInput("size-too-small", name=name, value=value, low=low)


@dataclass(frozen=True)
class ClmRun:
    input_ids: torch.Tensor
    labels: torch.Tensor  # data-side labels: input_ids[:, 1:]
    loss: float
    loss_unscaled: float  # the same run with the projection not divided by sqrt(d)
    logit_variance: float  # mean over positions of the logits' variance across the vocabulary
    baseline: float  # ln V
    causal_mask: torch.Tensor
    vocab_size: int
    hidden_dim: int
    counted_positions: int


def _clm_draws(seed: int, batch: int, seq_len: int, vocab_size: int, hidden_dim: int):
    """The CLM demo's random draws, in the lesson's order: ids, projection, hidden states."""
    _check_size("batch", batch, 1)
    _check_size("seq_len", seq_len, 2)
    _check_size("vocab_size", vocab_size, 2)
    _check_size("hidden_dim", hidden_dim, 1)
    generator = _generator(seed)
    input_ids = torch.randint(0, vocab_size, (batch, seq_len), generator=generator)
    raw_projection = torch.randn(hidden_dim, vocab_size, generator=generator)
    hidden = torch.randn(batch, seq_len, hidden_dim, generator=generator)
    return input_ids, raw_projection, hidden


def _clm_logits(hidden: torch.Tensor, raw_projection: torch.Tensor, scaled: bool) -> torch.Tensor:
    projection = raw_projection / hidden.shape[-1] ** 0.5 if scaled else raw_projection
    return torch.matmul(hidden, projection)[:, :-1, :]


def clm_demo_loss(seed: int = 0, vocab_size: int = 10000, scaled: bool = True) -> float:
    """``clm_run(seed, vocab_size=...).loss`` (or ``.loss_unscaled``), bit for bit, without the
    other half of the run: a quiz regenerates one per student (loss-sanity), and the unused
    matmul and variance were half of that question's cost."""
    input_ids, raw_projection, hidden = _clm_draws(seed, 2, 8, vocab_size, 64)
    _, labels = shift_for_next_token(input_ids)
    return float(causal_lm_loss(_clm_logits(hidden, raw_projection, scaled), labels))


def clm_run(
    seed: int = 0, batch: int = 2, seq_len: int = 8, vocab_size: int = 10000, hidden_dim: int = 64
) -> ClmRun:
    """The CLM demo of "Self-supervision and LM objectives": random ids, a random projection scaled by 1/sqrt(d),
    random hidden states, shifted cross-entropy."""
    input_ids, raw_projection, hidden = _clm_draws(seed, batch, seq_len, vocab_size, hidden_dim)
    _, labels = shift_for_next_token(input_ids)
    logits = _clm_logits(hidden, raw_projection, scaled=True)
    logits_unscaled = _clm_logits(hidden, raw_projection, scaled=False)
    return ClmRun(
        input_ids=input_ids,
        labels=labels,
        loss=float(causal_lm_loss(logits, labels)),
        loss_unscaled=float(causal_lm_loss(logits_unscaled, labels)),
        logit_variance=float(logits.var(dim=-1).mean()),
        baseline=uniform_baseline(vocab_size),
        causal_mask=causal_mask(seq_len),
        vocab_size=vocab_size,
        hidden_dim=hidden_dim,
        counted_positions=batch * (seq_len - 1),
    )


def mlm_run(
    seed: int = 0, batch: int = 4, seq_len: int = 8, p: float = MASK_RATE, vocab_size: int = 10000
) -> MaskedLMBatch:
    """The MLM data preparation of "Self-supervision and LM objectives": ids in [5, V), select with p, 80/10/10."""
    _check_size("batch", batch, 1)
    _check_size("seq_len", seq_len, 1)
    _check_size("vocab_size", vocab_size, FIRST_ORDINARY_ID + 1)
    generator = _generator(seed)
    original = torch.randint(FIRST_ORDINARY_ID, vocab_size, (batch, seq_len), generator=generator)
    return mask_tokens(
        original,
        mask_id=LESSON_SPECIALS["[MASK]"],
        vocab_size=vocab_size,
        special_ids=LESSON_SPECIALS.values(),
        p=p,
        generator=generator,
    )


@dataclass(frozen=True)
class VisibilityRun:
    causal_mask: torch.Tensor
    full_mask: torch.Tensor
    causal_visible: list[list[int]]
    full_visible: list[list[int]]


def visibility_run(seq_len: int = 6) -> VisibilityRun:
    """The CLM-vs-MLM comparison of "Self-supervision and LM objectives": what each position may look at."""
    _check_size("seq_len", seq_len, 1)
    causal, full = causal_mask(seq_len), bidirectional_mask(seq_len)
    return VisibilityRun(
        causal,
        full,
        [visible_keys(causal, i) for i in range(seq_len)],
        [visible_keys(full, i) for i in range(seq_len)],
    )


@dataclass(frozen=True)
class ThreeSamples:
    tokens: list[str]
    causal_inputs: list[str]
    causal_labels: list[str]
    masked_inputs: list[str]
    masked_labels: dict[int, str]
    span_inputs: list[str]
    span_target: list[str]
    mask_positions: tuple[int, ...]
    span: tuple[int, int]


def default_positions(n: int) -> tuple[tuple[int, ...], tuple[int, int]]:
    """The lesson's choices (mask 2 and 5, hide 2..5) fitted to a sentence of n tokens."""
    if n >= 6:
        return (2, 5), (2, 5)
    masks = tuple(sorted({min(2, n - 1), n - 1}))
    start = min(1, n - 1)
    return masks, (start, min(start + 2, n))


def lesson_span_corruption(tokens: list[str], start: int, end: int) -> tuple[list[str], list[str]]:
    """The simplified span corruption of "Pretraining methods", kept as it prints.

    One span, ``<extra_id_0>`` in its place, and a target that always closes
    with ``<extra_id_1>`` and has no ``</s>``. T5 differs in two ways (see
    ``engine.spans.corrupt``): it closes the target with a sentinel only when
    kept text follows the span, and it ends inputs and targets with ``</s>``.
    """
    check_spans([(start, end)], len(tokens))
    hidden = tokens[start:end]
    corrupted = [*tokens[:start], sentinel(0), *tokens[end:]]
    return corrupted, [sentinel(0), *hidden, sentinel(1)]


def three_samples(
    text: str = LESSON_SENTENCE,
    mask_positions: tuple[int, ...] | None = None,
    span: tuple[int, int] | None = None,
) -> ThreeSamples:
    """The run of "Pretraining methods": one sentence as a CLM, an MLM and a span-corruption sample."""
    tokens = split_text(text)
    if len(tokens) < 2:
        raise InvalidInput(
            "sequence-too-short",
            n=len(tokens),
            need=2,
        )
    default_masks, default_span = default_positions(len(tokens))
    mask_positions = default_masks if mask_positions is None else tuple(mask_positions)
    span = default_span if span is None else span
    for position in mask_positions:
        if not 0 <= position < len(tokens):
            raise InvalidInput(
                "position-out-of-range",
                position=position,
                n=len(tokens),
            )
    vocab = Vocab.from_tokens(tokens)
    ids = torch.tensor(vocab.encode(tokens))

    causal_inputs, causal_labels = shift_for_next_token(ids)
    chosen = torch.zeros(len(tokens), dtype=torch.bool)
    chosen[list(mask_positions)] = True
    masked = mask_tokens(
        ids,
        mask_id=vocab.mask_id,
        vocab_size=len(vocab),
        special_ids=[],  # the lesson masks exactly where it is told
        selected=chosen,
        fates=torch.full_like(ids, MASKED),
        generator=_generator(0),
    )
    span_inputs, span_target = lesson_span_corruption(tokens, *span)
    return ThreeSamples(
        tokens=tokens,
        causal_inputs=vocab.decode(causal_inputs),
        causal_labels=vocab.decode(causal_labels),
        masked_inputs=vocab.decode(masked.input_ids),
        masked_labels={int(i): tokens[int(i)] for i in masked.selected.nonzero().flatten()},
        span_inputs=span_inputs,
        span_target=span_target,
        mask_positions=tuple(sorted(set(mask_positions))),
        span=span,
    )
