"""One sentence turned into a training sample, token by token.

These are the views a learner reads (the command line's ``show sample`` and
the app's live figures): token strings in, token strings out, with the ids,
masks and per-position decisions the engine took on the way.

Only Python values leave a builder, so each runs its tensor work under
``torch.inference_mode()``: the same ops and draws, without autograd's
bookkeeping on every one of its many tiny ops. The masking and span builders
memoise that work on the token ids (what it depends on), so sentences of the
same shape (same length, same repeats) share it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import torch

from engine.clm import IGNORE_INDEX, loss_side_pairs, shift_for_next_token
from engine.errors import InvalidInput
from engine.masks import causal_mask
from engine.mlm import FATE_NAMES, KEPT, MASKED, RANDOM, mask_tokens
from engine.prefix_lm import prefix_lm_sample
from engine.settings import BERT_SPLIT, MASK_RATE, MEAN_SPAN, NOISE_DENSITY
from engine.spans import (
    SpanCorruption,
    check_spans,
    corrupt_explicit,
    corrupt_random,
    noise_runs,
    span_counts,
)
from engine.tokens import CLS, EOS, SEP, Vocab, is_special, split_characters, split_text

FATE_CODES = {"mask": MASKED, "random": RANDOM, "keep": KEPT}


def _tokens(text: str, need: int, objective: str) -> list[str]:
    tokens = split_text(text)
    if len(tokens) < need:
        raise InvalidInput(
            "sequence-too-short",
            n=len(tokens),
            need=need,
        )
    return tokens


def _label_tokens(labels: torch.Tensor, vocab: Vocab) -> list[str | None]:
    tokens = vocab.tokens
    return [None if label == IGNORE_INDEX else tokens[label] for label in labels.tolist()]


def _as_lists(mask: torch.Tensor) -> list[list[int]]:
    return mask.to(torch.int).tolist()


@dataclass(frozen=True)
class ClmSample:
    """One sentence as a causal-LM sample, in both layouts.

    Data-side (the second seed lesson): ``inputs`` = tokens[:-1], ``labels`` =
    tokens[1:], ``mask`` the causal mask over the inputs. Loss-side (the first
    seed lesson, Hugging Face): the model reads all tokens, ``loss_side_labels``
    equal them, and ``loss_pairs`` lists which logit position meets which label
    position (t, t + 1).
    """

    tokens: list[str]
    inputs: list[str]
    labels: list[str | None]
    mask: list[list[int]]
    loss_side_inputs: list[str]
    loss_side_labels: list[str]
    loss_pairs: list[list[int]]

    def to_json(self) -> dict:
        return {"objective": "clm", **asdict(self)}


@torch.inference_mode()
def clm_sample(text: str) -> ClmSample:
    tokens = _tokens(text, 2, "causal LM")
    vocab = Vocab.from_tokens(tokens, n_sentinels=0)
    ids = torch.tensor(vocab.encode(tokens))
    inputs, labels = shift_for_next_token(ids)
    return ClmSample(
        tokens,
        vocab.decode(inputs),
        _label_tokens(labels, vocab),
        _as_lists(causal_mask(len(tokens) - 1)),
        loss_side_inputs=vocab.decode(ids),
        loss_side_labels=vocab.decode(ids.clone()),
        loss_pairs=[list(pair) for pair in loss_side_pairs(len(tokens))],
    )


@dataclass(frozen=True)
class MlmSample:
    tokens: list[str]
    inputs: list[str]
    labels: list[str | None]
    selected: list[int]
    fates: list[str | None]
    counts: dict[str, int]
    eligible: list[int]

    def to_json(self) -> dict:
        return {"objective": "mlm", **asdict(self)}


def parse_fates(names: Sequence[str]) -> list[int]:
    codes = []
    for name in names:
        if name not in FATE_CODES:
            raise InvalidInput("unknown-fate", fate=name)
        codes.append(FATE_CODES[name])
    return codes


def mlm_sample(
    text: str,
    *,
    seed: int = 0,
    p: float = MASK_RATE,
    split: tuple[float, float, float] = BERT_SPLIT,
    positions: Sequence[int] | None = None,
    fates: Sequence[str] | None = None,
    whole_word: bool = False,
    add_cls_sep: bool = False,
    replacements: Sequence[str] | None = None,
) -> MlmSample:
    """BERT's masking of one sentence.

    ``positions`` fixes the selection (as the lessons' worked examples do) and
    ``fates`` the fate of each fixed position (default: all [MASK]); otherwise
    both are drawn from ``seed``. ``whole_word`` selects the pieces of a word
    together, as Chinese BERT-wwm does: a Chinese word written between spaces
    is split into its characters, and a WordPiece-style ``##piece`` continues the
    word before it.
    """
    if whole_word:
        tokens, word_list = pieces_with_words(text)
    else:
        tokens, word_list = _tokens(text, 1, "masked LM"), None
    if not tokens:
        raise InvalidInput("sequence-too-short", n=0, need=1)
    if add_cls_sep:
        tokens = [CLS, *tokens, SEP]
        word_list = None if word_list is None else [-1, *word_list, -1]
    vocab = Vocab.from_tokens([*tokens, *(replacements or ())], n_sentinels=0)
    pool = None if not replacements else tuple(vocab.encode(list(replacements)))
    chosen = fate_codes = None
    if positions is not None:
        chosen, fate_codes = _fixed_choice(tokens, positions, fates)
    elif fates is not None:
        raise InvalidInput("fates-without-positions")
    input_ids, labels, selected, fate_codes = _masked(
        tuple(vocab.encode(tokens)),
        vocab.mask_id,
        len(vocab),
        tuple(vocab.special_ids()),
        p,
        tuple(split),
        None if word_list is None else tuple(word_list),
        chosen,
        fate_codes,
        pool,
        seed,
    )
    names = vocab.tokens
    return MlmSample(
        tokens=tokens,
        inputs=[names[index] for index in input_ids],
        labels=[None if label == IGNORE_INDEX else names[label] for label in labels],
        selected=[int(chosen) for chosen in selected],
        fates=[FATE_NAMES.get(code) for code in fate_codes],
        counts={name: fate_codes.count(code) for code, name in FATE_NAMES.items()},
        eligible=[0 if is_special(token) else 1 for token in tokens],
    )


@functools.lru_cache(maxsize=1024)
@torch.inference_mode()
def _masked(
    ids: tuple[int, ...],
    mask_id: int,
    vocab_size: int,
    special_ids: tuple[int, ...],
    p: float,
    split: tuple[float, float, float],
    word_ids: tuple[int, ...] | None,
    selected: tuple[bool, ...] | None,
    fates: tuple[int, ...] | None,
    replacement_ids: tuple[int, ...] | None,
    seed: int,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[bool, ...], tuple[int, ...]]:
    """``mask_tokens`` on one sequence of ids, read back: (input ids, labels, selected, fates).

    Memoised (its results are tuples, never written): masking depends on the ids, not on the
    words behind them, so texts of the same shape share it (a class's mlm-eligible questions
    are ~400 texts but ~120 id sequences; mlm-abcde's ~480 and ~350).
    """
    tensor = torch.tensor
    batch = mask_tokens(
        tensor(ids),
        mask_id=mask_id,
        vocab_size=vocab_size,
        special_ids=special_ids,
        p=p,
        split=split,
        word_ids=None if word_ids is None else tensor(word_ids),
        selected=None if selected is None else tensor(selected, dtype=torch.bool),
        fates=None if fates is None else tensor(fates, dtype=torch.int8),
        replacement_ids=None if replacement_ids is None else tensor(replacement_ids),
        generator=torch.Generator().manual_seed(seed),
    )
    return tuple(
        tuple(tensor.tolist()) for tensor in (batch.input_ids, batch.labels, batch.selected, batch.fates)
    )


def _fixed_choice(
    tokens: list[str], positions: Sequence[int], fates: Sequence[str] | None
) -> tuple[tuple[bool, ...], tuple[int, ...]]:
    """The selection and fate codes the learner fixed, one per token, validated."""
    n = len(tokens)
    for position in positions:
        if not 0 <= position < n:
            raise InvalidInput(
                "position-out-of-range",
                position=position,
                n=n,
            )
        if is_special(tokens[position]):
            raise InvalidInput(
                "special-selected",
                position=position,
                token=tokens[position],
            )
    if fates is not None and len(fates) != len(positions):
        raise InvalidInput(
            "fates-count",
        )
    codes = parse_fates(fates) if fates is not None else [MASKED] * len(positions)
    chosen = [False] * n
    fate_codes = [0] * n
    for position, code in zip(positions, codes, strict=True):
        chosen[position] = True
        fate_codes[position] = code
    return tuple(chosen), tuple(fate_codes)


def pieces_with_words(text: str) -> tuple[list[str], list[int]]:
    """Tokens for whole-word masking, with the word each belongs to (-1: special).

    Each whitespace-separated word is split per CJK character; ``##x`` joins the
    word before it.
    """
    pieces: list[str] = []
    word_ids: list[int] = []
    word = -1
    for token in split_text(text):
        if is_special(token):
            pieces.append(token)
            word_ids.append(-1)
            continue
        if not (token.startswith("##") and word_ids and word_ids[-1] >= 0):
            word += 1
        for piece in split_characters(token):
            pieces.append(piece)
            word_ids.append(word)
    return pieces, word_ids


@dataclass(frozen=True)
class SpanSample:
    """One sentence under T5's span corruption.

    ``inputs`` and ``targets`` end with ``</s>`` as T5's do; ``spans`` are the
    hidden runs (touching spans given by hand come back merged); ``closed`` says
    whether the target carries a closing sentinel (kept text follows the last
    span). For random spans, ``noise_tokens`` and ``span_count`` are T5's
    arithmetic for this length (None for spans given by hand).
    """

    tokens: list[str]
    inputs: list[str]
    targets: list[str]
    spans: list[list[int]]
    closed: bool
    noise_tokens: int | None = None
    span_count: int | None = None

    def to_json(self) -> dict:
        return {"objective": "span", **asdict(self)}


def span_sample(
    text: str,
    *,
    spans: Sequence[tuple[int, int]] | None = None,
    density: float = NOISE_DENSITY,
    mean_span: float = MEAN_SPAN,
    seed: int = 0,
) -> SpanSample:
    """Span corruption of one sentence as T5 builds it: the given spans, or T5's random ones."""
    tokens = _tokens(text, 2, "span corruption")
    vocab = Vocab.from_tokens(tokens)
    eos_id = vocab.add(EOS)
    ids = tuple(vocab.encode(tokens))
    sentinel_ids = tuple(vocab.sentinel_ids())
    counts: tuple[int, int] | tuple[None, None] = (None, None)
    if spans:
        # Validated here, as corrupt_explicit would, so that the memo's key holds plain (start, end) ints.
        ordered = tuple(check_spans(spans, len(ids)))
        inputs, targets, noise = _explicit_corruption(ids, ordered, sentinel_ids, vocab.pad_id, eos_id)
    else:
        inputs, targets, noise = _random_corruption(
            ids, density, mean_span, seed, sentinel_ids, vocab.pad_id, eos_id
        )
        counts = span_counts(len(tokens), density, mean_span)
    names = vocab.tokens
    return SpanSample(
        tokens=tokens,
        inputs=[names[index] for index in inputs],
        targets=[names[index] for index in targets],
        spans=[[start, end] for start, end in noise_runs(noise)],
        closed=not noise[-1],
        noise_tokens=counts[0],
        span_count=counts[1],
    )


# The two memos below hold what corruption of one sequence of ids reads back: (inputs, targets,
# noise mask), inputs and targets without their padding, all tuples (never written). Corruption
# depends on the ids, not on the words behind them, so texts of the same shape share one (a
# class's span-corruption questions are ~420 texts and spans but ~280 id sequences and spans).


@functools.lru_cache(maxsize=1024)
@torch.inference_mode()
def _explicit_corruption(
    ids: tuple[int, ...],
    spans: tuple[tuple[int, int], ...],
    sentinel_ids: tuple[int, ...],
    pad_id: int,
    eos_id: int,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
    return _read_back(corrupt_explicit(torch.tensor(ids), spans, sentinel_ids, pad_id, eos_id=eos_id))


@functools.lru_cache(maxsize=1024)
@torch.inference_mode()
def _random_corruption(
    ids: tuple[int, ...],
    density: float,
    mean_span: float,
    seed: int,
    sentinel_ids: tuple[int, ...],
    pad_id: int,
    eos_id: int,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
    generator = torch.Generator().manual_seed(seed)
    return _read_back(
        corrupt_random(torch.tensor(ids), sentinel_ids, density, mean_span, pad_id, generator, eos_id=eos_id)
    )


def _read_back(result: SpanCorruption) -> tuple[tuple[int, ...], tuple[int, ...], tuple[bool, ...]]:
    return (
        tuple(result.inputs.tolist()[: int(result.input_lengths)]),
        tuple(result.targets.tolist()[: int(result.target_lengths)]),
        tuple(result.noise_mask.tolist()),
    )


@dataclass(frozen=True)
class PrefixSample:
    tokens: list[str]
    prefix: int
    inputs: list[str]
    labels: list[str | None]
    mask: list[list[int]]

    def to_json(self) -> dict:
        return {"objective": "prefix", **asdict(self)}


@torch.inference_mode()
def prefix_sample(text: str, prefix: int | None = None) -> PrefixSample:
    """Prefix LM of one sentence; the default prefix is the first half."""
    tokens = _tokens(text, 2, "prefix LM")
    prefix = len(tokens) // 2 if prefix is None else prefix
    vocab = Vocab.from_tokens(tokens, n_sentinels=0)
    sample = prefix_lm_sample(torch.tensor(vocab.encode(tokens)), prefix)
    return PrefixSample(
        tokens,
        prefix,
        vocab.decode(sample.inputs),
        _label_tokens(sample.labels, vocab),
        _as_lists(sample.mask),
    )
