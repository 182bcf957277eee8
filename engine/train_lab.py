"""The training lab: one tiny transformer trained once per objective, then tested
on the two tasks the toy languages were built for.

Everything but the objective is shared: the same vocabulary, the same initial
weights, the same training windows in the same order, the same steps, batch
size and learning rate. Each objective is only a different way of turning a
window into (inputs, which keys each position may see, labels), using the
engine's own sample builders: ``shift_for_next_token`` (causal LM),
``mask_tokens`` (BERT's 15 % and 80/10/10), ``prefix_lm_sample`` (prefix LM) and
``corrupt_random`` (T5's span corruption, read by this decoder-only model with
a prefix mask over the corrupted input, as UL2 does).

Training windows are ``context`` tokens long and always end at a sentence end;
that is the one placement the models ever see (see the training-lab note).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace

import torch
import torch.nn.functional as F

from engine import toy_corpus
from engine.clm import IGNORE_INDEX, shift_for_next_token
from engine.errors import InvalidInput
from engine.masks import causal_mask, prefix_mask
from engine.mlm import mask_tokens
from engine.prefix_lm import prefix_lm_sample
from engine.settings import MASK_RATE, MEAN_SPAN, NOISE_DENSITY
from engine.spans import corrupt_random, span_counts
from engine.tiny_lm import TinyLM
from engine.tokens import EOS, MASK, Vocab, sentinel
from engine.train_lab_spec import DEFAULT_STEPS, MAX_STEPS, OBJECTIVES, ModelShape


@dataclass(frozen=True)
class LabSettings:
    """Everything that decides a run; two runs with equal settings give equal models on CPU."""

    corpus: str = "zh"
    objectives: tuple[str, ...] = ("clm", "mlm")
    steps: int = DEFAULT_STEPS
    seed: int = 0
    batch: int = 32
    lr: float = 5e-3
    warmup: int = 30
    schedule: str = "constant"  # or "cosine" (decays to 10 % by the last step)
    mask_p: float = MASK_RATE
    span_density: float = NOISE_DENSITY
    span_mean: float = MEAN_SPAN
    model: ModelShape = field(default_factory=ModelShape)
    train_sentences: int = 4000
    eval_sentences: int = 300
    threads: int = 1
    device: str = "cpu"

    def __post_init__(self) -> None:
        if isinstance(self.model, dict):  # LabSettings(**settings.to_json()) round-trips
            object.__setattr__(self, "model", ModelShape.from_json(self.model))

    @property
    def context(self) -> int:
        """Tokens per training window: the model's context."""
        return self.model.context

    def to_json(self) -> dict:
        data = asdict(self)
        data["objectives"] = list(self.objectives)
        return data

    @classmethod
    def from_json(cls, data: dict) -> LabSettings:
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        if "objectives" in known:
            known["objectives"] = tuple(known["objectives"])
        if "model" in known:
            known["model"] = ModelShape.from_json(known["model"])
        return cls(**known)

    def check(self) -> LabSettings:
        toy_corpus.grammar(self.corpus)
        if not self.objectives:
            raise InvalidInput("no-objectives")
        for name in self.objectives:
            if name not in OBJECTIVES:
                raise InvalidInput(
                    "unknown-objective",
                    objective=name,
                )
        if len(set(self.objectives)) != len(self.objectives):
            raise InvalidInput("repeated-objective")
        if not 1 <= self.steps <= MAX_STEPS:
            raise InvalidInput(
                "steps-out-of-range",
                steps=self.steps,
            )
        if not 0 <= self.seed < 2**32:
            raise InvalidInput("seed-out-of-range")
        if not 1 <= self.threads <= 64:
            raise InvalidInput("threads-out-of-range")
        if self.schedule not in ("constant", "cosine"):
            raise InvalidInput("bad-schedule")
        return self


# -- data ------------------------------------------------------------------------


@dataclass
class LabData:
    """The shared material: vocabulary, the training stream and the test examples."""

    corpus: str
    vocab: Vocab
    stream: torch.Tensor  # every training sentence, one after another
    ends: torch.Tensor  # stream positions just after a sentence, usable as window ends
    fill_windows: torch.Tensor  # (N, context): test windows, each ending at a sentence end, as in training
    continue_at: (
        torch.Tensor
    )  # (N,) where the continue target is in each window (the prompt is what precedes it)
    continue_targets: torch.Tensor  # (N,)
    fill_at: torch.Tensor  # (N,) where the blank is in each fill window
    fill_targets: torch.Tensor  # (N,)
    continue_choices: list[int]
    fill_choices: list[int]
    majority: dict[str, int]  # the most frequent target of each task in the training text
    stop_ids: list[int] = field(default_factory=list)


def _encode_stream(vocab: Vocab, sentences: Sequence[toy_corpus.Sentence]) -> tuple[list[int], list[int]]:
    ids: list[int] = []
    starts: list[int] = []
    for sentence in sentences:
        starts.append(len(ids))
        ids.extend(vocab.encode(list(sentence.tokens)))
    return ids, starts


def build_data(settings: LabSettings) -> LabData:
    corpus, context = settings.corpus, settings.context
    vocab = toy_corpus.vocabulary(corpus)
    language = toy_corpus.grammar(corpus)
    train = toy_corpus.sentences(corpus, settings.train_sentences, settings.seed)
    ids, starts = _encode_stream(vocab, train)
    ends = [start + len(sentence.tokens) for start, sentence in zip(starts, train, strict=True)]
    stream = torch.tensor(ids)
    ends_tensor = torch.tensor([end for end in ends if end >= context])

    # Held-out text: its own seed stream, so the test sentences are new draws.
    test = toy_corpus.sentences(corpus, settings.eval_sentences + 8, settings.seed + 1_000_003)
    test_ids, test_starts = _encode_stream(vocab, test)
    test_stream = torch.tensor(test_ids)
    c_at, c_targets, f_windows, f_at, f_targets = [], [], [], [], []
    for start, sentence in zip(test_starts, test, strict=True):
        end = start + len(sentence.tokens)
        if end - context < 0:
            continue
        c_at.append(context - (len(sentence.tokens) - sentence.continue_at))
        c_targets.append(int(test_stream[start + sentence.continue_at]))
        f_windows.append(test_stream[end - context : end])
        f_at.append(context - (len(sentence.tokens) - sentence.fill_at))
        f_targets.append(int(test_stream[start + sentence.fill_at]))
    c_at, c_targets = c_at[: settings.eval_sentences], c_targets[: settings.eval_sentences]
    f_windows, f_at = f_windows[: settings.eval_sentences], f_at[: settings.eval_sentences]
    f_targets = f_targets[: settings.eval_sentences]

    def most_common(values: list[int]) -> int:
        return max(sorted(set(values)), key=values.count)

    train_continue = [vocab.id_of(sentence.tokens[sentence.continue_at]) for sentence in train]
    train_fill = [vocab.id_of(sentence.tokens[sentence.fill_at]) for sentence in train]
    stops = [vocab.id_of(token) for token in ("。", ".", ";") if token in vocab.tokens]
    return LabData(
        corpus=corpus,
        vocab=vocab,
        stream=stream,
        ends=ends_tensor,
        fill_windows=torch.stack(f_windows),
        continue_at=torch.tensor(c_at),
        continue_targets=torch.tensor(c_targets),
        fill_at=torch.tensor(f_at),
        fill_targets=torch.tensor(f_targets),
        continue_choices=vocab.encode(list(language.continue_choices)),
        fill_choices=vocab.encode(list(language.fill_choices)),
        majority={"continue": most_common(train_continue), "fill": most_common(train_fill)},
        stop_ids=stops,
    )


def training_windows(data: LabData, settings: LabSettings) -> Callable[[], torch.Tensor]:
    """A fresh source of (batch, context) windows: the same order for every objective."""
    generator = torch.Generator().manual_seed(settings.seed)
    offsets = torch.arange(-settings.context, 0)

    def next_batch() -> torch.Tensor:
        picks = torch.randint(0, data.ends.numel(), (settings.batch,), generator=generator)
        return data.stream[data.ends[picks].view(-1, 1) + offsets]

    return next_batch


# -- objectives: a window batch -> (inputs, blocked, labels) ------------------------


@dataclass(frozen=True)
class Batch:
    inputs: torch.Tensor
    blocked: torch.Tensor | str | None  # see TinyLM.forward
    labels: torch.Tensor


def clm_batch(windows: torch.Tensor, vocab: Vocab, settings: LabSettings, generator) -> Batch:
    inputs, labels = shift_for_next_token(windows)
    return Batch(inputs, "causal", labels)


def mlm_batch(windows: torch.Tensor, vocab: Vocab, settings: LabSettings, generator) -> Batch:
    masked = mask_tokens(
        windows,
        mask_id=vocab.mask_id,
        vocab_size=len(vocab),
        special_ids=vocab.special_ids(),
        p=settings.mask_p,
        generator=generator,
    )
    return Batch(masked.input_ids, None, masked.labels)


def prefix_batch(windows: torch.Tensor, vocab: Vocab, settings: LabSettings, generator) -> Batch:
    length = windows.shape[1]
    prefixes = torch.randint(1, length - 1, (windows.shape[0],), generator=generator)
    samples = [prefix_lm_sample(row, int(prefix)) for row, prefix in zip(windows, prefixes, strict=True)]
    return Batch(
        torch.stack([s.inputs for s in samples]),
        torch.stack([s.mask for s in samples]),
        torch.stack([s.labels for s in samples]),
    )


def span_batch(windows: torch.Tensor, vocab: Vocab, settings: LabSettings, generator) -> Batch:
    eos = vocab.id_of(EOS)
    result = corrupt_random(
        windows,
        vocab.sentinel_ids(),
        settings.span_density,
        settings.span_mean,
        vocab.pad_id,
        generator,
        eos_id=eos,
    )
    # Every window has the same length, so every corrupted input has the same length.
    read = int(result.input_lengths[0])
    sequence = torch.cat([result.inputs[:, :read], result.targets], dim=1)
    inputs, labels = shift_for_next_token(sequence)
    position = torch.arange(labels.shape[1]).view(1, -1)
    target_end = read - 1 + result.target_lengths.view(-1, 1)
    labels = labels.masked_fill((position < read - 1) | (position >= target_end), IGNORE_INDEX)
    return Batch(inputs, prefix_mask(inputs.shape[1], read), labels)


BUILDERS = {"clm": clm_batch, "mlm": mlm_batch, "prefix": prefix_batch, "span": span_batch}


# -- training ----------------------------------------------------------------------


@dataclass
class TrainedModel:
    objective: str
    model: TinyLM
    losses: list[float]
    seconds: float
    steps_done: int
    cancelled: bool = False


def warm_up() -> None:
    """Import ahead what pressing Train would import: torch builds its first optimizer
    behind ``torch._disable_dynamo``, which imports torch._dynamo, about 3 s of CPU
    (torch 2.13) between the press and the first loss point. The app calls this in a
    background thread when the training lab opens."""
    import torch._dynamo  # noqa: F401


def initial_model(vocab: Vocab, settings: LabSettings) -> TinyLM:
    torch.manual_seed(settings.seed)
    return TinyLM(len(vocab), settings.model)


def learning_rate(step: int, settings: LabSettings) -> float:
    if step < settings.warmup:
        return settings.lr * (step + 1) / settings.warmup
    if settings.schedule == "constant":
        return settings.lr
    progress = (step - settings.warmup) / max(settings.steps - settings.warmup, 1)
    return settings.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train_objective(
    objective: str,
    data: LabData,
    settings: LabSettings,
    initial_state: dict | None = None,
    on_step: Callable[[int, float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    build: Callable[[torch.Tensor, Vocab, LabSettings, torch.Generator], Batch] | None = None,
) -> TrainedModel:
    """Train one model with one objective. ``on_step(step, loss)`` is called after
    every step; ``should_stop()`` returning True ends training early (cancelled).
    ``build`` replaces the objective's batch builder (a learner's own code, run in
    the code lab's sandbox: exercises.training.own_code); all else stays the same."""
    torch.set_num_threads(settings.threads)
    model = initial_model(data.vocab, settings)
    if initial_state is not None:
        model.load_state_dict(initial_state)
    device = torch.device(settings.device)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=0.01)
    next_windows = training_windows(data, settings)
    generator = torch.Generator().manual_seed(settings.seed + 17)
    build = build or BUILDERS[objective]
    losses: list[float] = []
    started = time.perf_counter()
    cancelled = False
    for step in range(settings.steps):
        if should_stop is not None and should_stop():
            cancelled = True
            break
        batch = build(next_windows(), data.vocab, settings, generator)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, settings)
        blocked = batch.blocked.to(device) if isinstance(batch.blocked, torch.Tensor) else batch.blocked
        logits = model(batch.inputs.to(device), blocked)
        loss = F.cross_entropy(
            logits.reshape(-1, logits.shape[-1]),
            batch.labels.to(device).reshape(-1),
            ignore_index=IGNORE_INDEX,
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        value = float(loss.detach())
        losses.append(value if math.isfinite(value) else float("nan"))
        if on_step is not None:
            on_step(step, value)
    model.eval()
    return TrainedModel(objective, model, losses, time.perf_counter() - started, len(losses), cancelled)


# -- evaluation ---------------------------------------------------------------------


def span_shape(context: int) -> tuple[int, int, int]:
    """(noise tokens, spans, input length with its </s>) of every corrupted training
    window: T5's counts are a function of the length alone (``span_counts``), so on
    windows of ``context`` tokens every input hides the same number of tokens in the
    same number of spans, the last one always at the window's end."""
    defaults = LabSettings()
    noise, spans = span_counts(context, defaults.span_density, defaults.span_mean)
    return noise, spans, context - noise + spans + 1


def _span_offset(model: TinyLM, corrupted: torch.Tensor) -> int:
    return span_shape(model.shape.context)[2] - (corrupted.shape[1] + 1)


def _span_prompt(vocab: Vocab, corrupted: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Input (ending in </s>) then the target's first sentinel: the next logit is the span."""
    rows = corrupted.shape[0]
    eos = torch.full((rows, 1), vocab.id_of(EOS))
    first = torch.full((rows, 1), vocab.id_of(sentinel(0)))
    sequence = torch.cat([corrupted, eos, first], dim=1)
    return sequence, prefix_mask(sequence.shape[1], corrupted.shape[1] + 1)


def span_fill_input(vocab: Vocab, windows: torch.Tensor, at: int, context: int) -> tuple[torch.Tensor, int]:
    """The blank at ``at`` of each window (B, L) as T5 hid spans in training, and the
    position offset that puts the input where training inputs stood.

    The blank is span 0 (<extra_id_0>); the window's last tokens are span 1, so that
    the test hides as many tokens in as many spans as every training input did (on
    32-token windows: 5 tokens in 2 spans, the last at the end). Hiding only the
    blank and one token would tell a model that counts (and this one does) that the
    blank holds the other 3: it then fills 三_书 with a phrase ("杯茶和两"), not a
    word. The tail stops one token short of the blank, so the spans never touch."""
    noise, _spans, _length = span_shape(context)
    length = windows.shape[1]
    tail = max(0, min(noise - 1, length - at - 2))
    hidden = windows.clone()
    hidden[:, at] = vocab.id_of(sentinel(0))
    if tail:
        hidden = torch.cat(
            [hidden[:, : length - tail], torch.full((hidden.shape[0], 1), vocab.id_of(sentinel(1)))], 1
        )
    offset = span_shape(context)[2] - (hidden.shape[1] + 1)
    if offset < 0:  # longer than any input it met: drop the oldest tokens
        hidden, offset = hidden[:, -offset:], 0
    return hidden, offset


@torch.no_grad()
def next_token_logits(objective: str, model: TinyLM, windows: torch.Tensor, vocab: Vocab) -> torch.Tensor:
    """Each model's best attempt at the token after ``windows`` (B, L): (B, V) logits.

    CLM reads causally; prefix LM reads the whole text as its prefix; MLM is
    given one [MASK] appended at the end (it was never trained on that);
    span corruption gets the end as its one hidden span.
    """
    device = next(model.parameters()).device
    windows = windows.to(device)
    rows = windows.shape[0]
    if objective == "clm":
        return model(windows, "causal")[:, -1]
    if objective == "prefix":
        return model(windows, None)[:, -1]
    if objective == "mlm":
        # The text ends where every text it met ended: at the end of the window.
        masked = torch.cat([windows, torch.full((rows, 1), vocab.mask_id, device=device)], dim=1)
        return model(masked, None, offset=model.shape.context - masked.shape[1])[:, -1]
    hidden = torch.cat([windows, torch.full((rows, 1), vocab.id_of(sentinel(0)), device=device)], dim=1)
    sequence, blocked = _span_prompt(vocab, hidden.cpu())
    return model(sequence.to(device), blocked.to(device), offset=_span_offset(model, hidden))[:, -1]


@torch.no_grad()
def blank_logits(
    objective: str, model: TinyLM, windows: torch.Tensor, at: torch.Tensor, vocab: Vocab, offset: int = 0
) -> torch.Tensor:
    """(B, V) logits for the blank at ``at`` in each window, each model its own way:
    MLM reads [MASK] with both sides; span corruption hides the blank as a span;
    CLM and prefix LM read only the left context (the text after the blank is
    invisible to a next-token predictor)."""
    device = next(model.parameters()).device
    out = torch.empty(windows.shape[0], len(vocab), device=device)
    for position in sorted({int(a) for a in at}):
        rows = (at == position).nonzero().view(-1)
        group = windows[rows].to(device)
        if objective == "mlm":
            group = group.clone()
            group[:, position] = vocab.mask_id
            out[rows.to(device)] = model(group, None, offset=offset)[:, position]
        elif objective == "span":
            hidden, span_offset = span_fill_input(vocab, group.cpu(), position, model.shape.context)
            sequence, blocked = _span_prompt(vocab, hidden)
            out[rows.to(device)] = model(sequence.to(device), blocked.to(device), offset=span_offset)[:, -1]
        else:
            left = group[:, :position]
            out[rows.to(device)] = model(left, "causal" if objective == "clm" else None, offset=offset)[:, -1]
    return out.cpu()


@torch.no_grad()
def sentence_scores(model: TinyLM, windows: torch.Tensor, offset: int = 0) -> torch.Tensor:
    """The log-probability a causal LM gives each whole window (B,)."""
    device = next(model.parameters()).device
    windows = windows.to(device)
    logits = model(windows[:, :-1], "causal", offset=offset).log_softmax(-1)
    return logits.gather(-1, windows[:, 1:].unsqueeze(-1)).squeeze(-1).sum(-1).cpu()


@torch.no_grad()
def fill_by_scoring(
    model: TinyLM, windows: torch.Tensor, at: torch.Tensor, candidates: Sequence[int], offset: int = 0
) -> torch.Tensor:
    """A causal LM filling a blank with the right context too: write each candidate
    into the blank, score every whole sentence, keep the likeliest. One forward
    pass per candidate per sentence."""
    rows = torch.arange(windows.shape[0])
    scores = []
    for candidate in candidates:
        filled = windows.clone()
        filled[rows, at] = candidate
        scores.append(sentence_scores(model, filled, offset))
    best = torch.stack(scores, dim=1).argmax(dim=1)
    return torch.tensor(list(candidates))[best]


def accuracy(predictions: torch.Tensor, targets: torch.Tensor) -> float:
    return round(float((predictions == targets).float().mean()), 4)


@dataclass(frozen=True)
class Scores:
    continue_: float
    fill: float
    fill_scored: float | None  # CLM only: scoring every candidate sentence
    continue_passes: int  # forward passes per answer
    fill_passes: int
    fill_scored_passes: int | None


def evaluate(objective: str, model: TinyLM, data: LabData) -> Scores:
    continued = torch.empty_like(data.continue_targets)
    for position in sorted({int(a) for a in data.continue_at}):
        rows = (data.continue_at == position).nonzero().view(-1)
        prompts = data.fill_windows[rows, :position]
        continued[rows] = next_token_logits(objective, model, prompts, data.vocab).argmax(-1).cpu()
    filled = blank_logits(objective, model, data.fill_windows, data.fill_at, data.vocab).argmax(-1)
    scored = None
    if objective == "clm":
        scored = accuracy(
            fill_by_scoring(model, data.fill_windows, data.fill_at, data.fill_choices), data.fill_targets
        )
    return Scores(
        accuracy(continued, data.continue_targets),
        accuracy(filled, data.fill_targets),
        scored,
        1,
        1,
        len(data.fill_choices) if objective == "clm" else None,
    )


def baselines(data: LabData) -> dict[str, dict[str, float]]:
    """What an untrained guesser scores: chance (a uniform guess among the
    possible answers), majority (always the most frequent answer in the
    training text) and the untrained loss ln V."""
    return {
        "continue": {
            "chance": round(1 / len(set(data.continue_choices)), 4),
            "majority": accuracy(
                torch.full_like(data.continue_targets, data.majority["continue"]), data.continue_targets
            ),
        },
        "fill": {
            "chance": round(1 / len(set(data.fill_choices)), 4),
            "majority": accuracy(
                torch.full_like(data.fill_targets, data.majority["fill"]), data.fill_targets
            ),
        },
        "loss": {"untrained": round(math.log(len(data.vocab)), 4)},
    }


# -- probes: a learner's own text ---------------------------------------------------


TOP = 5  # a fill probe's likeliest tokens shown


@dataclass(frozen=True)
class Probe:
    """What one model made of a learner's text."""

    objective: str
    tokens: list[str]  # the answer: continuation tokens, or the one filled token
    method: str  # how it was asked (see the methods in LabRun.to_json)
    passes: int  # forward passes it took
    scored: list[str] | None = None  # CLM only: the fill found by scoring every candidate
    top: list[tuple[str, float]] | None = None  # fill: the blank's likeliest tokens, with probabilities


def _ids(vocab: Vocab, tokens: Sequence[str], context: int) -> torch.Tensor:
    return torch.tensor([vocab.encode(list(tokens))[-context:]])


@torch.no_grad()
def probe_continue(
    objective: str, model: TinyLM, vocab: Vocab, tokens: Sequence[str], *, most: int = 12, stops=()
) -> Probe:
    """Greedy continuation, one token at a time, each model asked its own way
    (the MLM: a [MASK] appended, read, kept, and a new [MASK] appended)."""
    context = model.shape.context
    text = list(tokens)
    out: list[str] = []
    passes = 0
    if objective == "span":
        window = _ids(vocab, text, context - 2)
        hidden = torch.cat([window, torch.tensor([[vocab.id_of(sentinel(0))]])], dim=1)
        sequence, _ = _span_prompt(vocab, hidden)
        read = hidden.shape[1] + 1
        for _ in range(most):
            blocked = prefix_mask(sequence.shape[1], read)
            token = int(model(sequence, blocked, offset=_span_offset(model, hidden))[0, -1].argmax())
            passes += 1
            if token in vocab.sentinel_ids() or vocab.tokens[token] == EOS:
                break
            out.append(vocab.tokens[token])
            sequence = torch.cat([sequence, torch.tensor([[token]])], dim=1)
            if token in stops:
                break
        return Probe(objective, out, "sentinel", passes)
    for _ in range(most):
        window = _ids(vocab, text, context - 1)
        token = int(next_token_logits(objective, model, window, vocab)[0].argmax())
        passes += 1
        out.append(vocab.tokens[token])
        text.append(vocab.tokens[token])
        if token in stops:
            break
    method = "mask-appended" if objective == "mlm" else "next-token"
    return Probe(objective, out, method, passes)


@torch.no_grad()
def probe_fill(objective: str, model: TinyLM, vocab: Vocab, tokens: Sequence[str]) -> Probe:
    """Fill the one [MASK] in ``tokens``. The CLM answers twice: from the left
    context alone, and by scoring the whole sentence with every ordinary token
    of the vocabulary written into the blank (one pass per candidate)."""
    if list(tokens).count(MASK) != 1:
        raise InvalidInput("one-blank")
    context = model.shape.context
    window = _ids(vocab, tokens, context)
    at = int((window[0] == vocab.mask_id).nonzero()[0])
    if at == 0 and objective in ("clm", "prefix"):
        raise InvalidInput("blank-first")
    # The sentence sits where a sentence end sits in every training window: at the end.
    offset = max(context - window.shape[1], 0)
    logits = blank_logits(objective, model, window, torch.tensor([at]), vocab, offset)[0]
    answer = [vocab.tokens[int(logits.argmax())]]
    method = {"mlm": "mask", "span": "sentinel"}.get(objective, "left-context")
    chances, ids = logits.float().softmax(-1).topk(min(TOP, logits.shape[-1]))  # the cloze view (#24)
    top = [(vocab.tokens[int(index)], round(float(p), 4)) for p, index in zip(chances, ids, strict=True)]
    if objective != "clm":
        return Probe(objective, answer, method, 1, top=top)
    special = set(vocab.special_ids())
    candidates = [index for index in range(len(vocab)) if index not in special]
    best = fill_by_scoring(model, window, torch.tensor([at]), candidates, offset)
    return Probe(objective, answer, method, 1 + len(candidates), [vocab.tokens[int(best[0])]], top)


@dataclass(frozen=True)
class AttentionMap:
    """What one model looked at while reading a learner's text.

    ``weights`` (layers, heads, L, L): row = the query position, column = the key, each
    row sums to 1; ``mask`` (L, L): the mask the model was trained with, laid over this
    text (True = blocked, the lessons' convention); ``answer_row``: the row whose output
    answers the probe (the blank, or the next token), or None."""

    objective: str
    tokens: list[str]
    weights: torch.Tensor
    mask: torch.Tensor
    answer_row: int | None
    prefix: int | None  # prefix LM and span: the bidirectional block's length

    @property
    def layers(self) -> int:
        return self.weights.shape[0]

    @property
    def heads(self) -> int:
        return self.weights.shape[1]

    def matrix(self, layer: int | None = None, head: int | None = None) -> torch.Tensor:
        """(L, L) weights of one layer (0-based; None = the last) and one head (None =
        the mean of the heads, which keeps every row summing to 1 and every blocked
        cell at exactly 0)."""
        chosen = self.weights[self.layers - 1 if layer is None else layer]
        return chosen.mean(dim=0) if head is None else chosen[head]

    def top(
        self, row: int, layer: int | None = None, head: int | None = None, most: int = 3
    ) -> list[tuple[int, float]]:
        """The keys row ``row`` weighs most: (column, weight), heaviest first."""
        values = self.matrix(layer, head)[row]
        order = sorted(range(values.shape[0]), key=lambda column: (-float(values[column]), column))
        return [(column, float(values[column])) for column in order[:most]]

    def to_json(self, layer: int | None = None, head: int | None = None) -> dict:
        return {
            "tokens": list(self.tokens),
            "attention": [[round(float(value), 6) for value in row] for row in self.matrix(layer, head)],
            "mask": self.mask.int().tolist(),
            "layer": (self.layers if layer is None else layer + 1),
            "head": "mean" if head is None else head + 1,
            "answer_row": self.answer_row,
            "prefix": self.prefix,
        }


def default_prefix(tokens: Sequence[str]) -> int:
    """Where the prefix LM's prefix ends on a text: at its blank, else after its first
    comma (the clause that decides the continuation), else half-way."""
    if MASK in tokens:
        return max(list(tokens).index(MASK), 1)
    for index, token in enumerate(tokens[:-1]):
        if token in ("，", ","):
            return index + 1
    return max(len(tokens) // 2, 1)


@torch.no_grad()
def attention_map(objective: str, model: TinyLM, vocab: Vocab, tokens: Sequence[str]) -> AttentionMap:
    """Run ``tokens`` (at most one blank, written [MASK]) through one trained model,
    keeping every layer's attention weights, with the mask the model was trained with.

    The causal, masked and prefix models read the text itself (the blank as [MASK];
    the prefix ends at the blank or after the first comma); the span model reads what
    it reads when asked: the blank (or the continuation) hidden behind sentinels, </s>,
    then <extra_id_0>, whose row predicts the hidden span. A text is placed where
    training put text: ending at the window's end."""
    tokens = list(tokens)
    if tokens.count(MASK) > 1:
        raise InvalidInput("one-blank")
    if not tokens:
        raise InvalidInput("empty-text")
    context = model.shape.context
    ids = _ids(vocab, tokens, context)
    blank = int((ids[0] == vocab.mask_id).nonzero()[0]) if MASK in tokens else None
    length = ids.shape[1]
    offset = max(context - length, 0)
    prefix: int | None = None
    if objective == "clm":
        mask = causal_mask(length)
        answer = length - 1 if blank is None else max(blank - 1, 0)
    elif objective == "mlm":
        mask = torch.zeros(length, length, dtype=torch.bool)
        answer = blank
    elif objective == "prefix":
        prefix = min(default_prefix(vocab.decode(ids[0].tolist())), length)
        mask = prefix_mask(length, prefix)
        answer = length - 1 if blank is None else max(blank - 1, 0)
    elif objective == "span":
        if blank is not None:
            hidden, offset = span_fill_input(vocab, ids, blank, context)
        else:
            hidden = torch.cat([ids[:, -(context - 2) :], torch.tensor([[vocab.id_of(sentinel(0))]])], dim=1)
            offset = max(_span_offset(model, hidden), 0)
        ids, mask = _span_prompt(vocab, hidden)
        prefix = hidden.shape[1] + 1
        answer = ids.shape[1] - 1
    else:
        raise InvalidInput("unknown-objective", objective=objective)
    weights: list[torch.Tensor] = []
    device = next(model.parameters()).device
    model(ids.to(device), mask.to(device), offset=offset, weights=weights)
    return AttentionMap(
        objective,
        vocab.decode(ids[0].tolist()),
        torch.stack([layer[0] for layer in weights]).cpu(),
        mask,
        answer,
        prefix,
    )


# -- a whole run --------------------------------------------------------------------


def model_fields(score: Scores | None, losses: list[float], seconds: float, steps: int) -> dict[str, object]:
    """The fields of one trained model's row in a run's JSON, written here once for the
    reference run's rows (``LabRun``) and the own-code rows
    (``exercises.training.own_code.OwnRun``): the two tables read the same."""
    return {
        "continue": None if score is None else score.continue_,
        "fill": None if score is None else score.fill,
        "loss": [round(value, 4) for value in losses],
        "final_loss": round(losses[-1], 4) if losses else None,
        "seconds": round(seconds, 3),
        "steps": steps,
    }


@dataclass
class LabRun:
    settings: LabSettings
    data: LabData
    models: dict[str, TrainedModel]
    scores: dict[str, Scores]

    def to_json(self) -> dict:
        objectives = {}
        for name, trained in self.models.items():
            score = self.scores.get(name)
            entry: dict[str, object] = {
                **model_fields(score, trained.losses, trained.seconds, trained.steps_done),
                "steps_per_second": round(trained.steps_done / trained.seconds, 2)
                if trained.seconds
                else None,
                "cancelled": trained.cancelled,
                "fill_method": "mask" if name == "mlm" else "sentinel" if name == "span" else "left-context",
                "continue_method": "mask-appended"
                if name == "mlm"
                else "sentinel"
                if name == "span"
                else "next-token",
            }
            if score is not None and score.fill_scored is not None:
                entry["fill_scored"] = score.fill_scored
                entry["fill_scored_passes"] = score.fill_scored_passes
            objectives[name] = entry
        return {
            "objectives": objectives,
            "baselines": baselines(self.data),
            "settings": self.settings.to_json(),
            "vocab_size": len(self.data.vocab),
            "test_examples": int(self.data.continue_targets.numel()),
        }


def run_lab(
    settings: LabSettings,
    on_step: Callable[[str, int, float], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    data: LabData | None = None,
) -> LabRun:
    """Train every objective of ``settings`` in turn from the same start, then test each."""
    settings.check()
    data = data or build_data(settings)
    start = initial_model(data.vocab, settings).state_dict()
    models: dict[str, TrainedModel] = {}
    scores: dict[str, Scores] = {}
    for objective in settings.objectives:
        trained = train_objective(
            objective,
            data,
            settings,
            start,
            None if on_step is None else (lambda step, loss, name=objective: on_step(name, step, loss)),
            should_stop,
        )
        models[objective] = trained
        if trained.cancelled:
            break
        scores[objective] = evaluate(objective, trained.model, data)
    return LabRun(settings, data, models, scores)


def with_objectives(settings: LabSettings, objectives: Sequence[str]) -> LabSettings:
    return replace(settings, objectives=tuple(objectives))


__all__ = [
    "MASK",
    "OBJECTIVES",
    "LabRun",
    "LabSettings",
    "run_lab",
]
