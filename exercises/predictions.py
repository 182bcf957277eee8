"""Predict, then reveal: before a live figure shows the engine's answer, the learner
says what is about to appear, then sees the figure with the guess marked.

One question per figure, each about the figure's own point:

- visibility (the causal, bidirectional or prefix mask): which positions row i sees;
- causal LM: the data-side label at position i (the inputs shifted by one);
- masked LM: which positions enter the loss (every selected one: [MASK], random, kept);
- span corruption: what the target starts with (the first sentinel, then its span);
- prefix LM: where the loss begins (one before the first continuation token).

The questions and their checks live here, beside the exercises: the engine computes
the answer (torch only through it), and the answer is read by the same tolerant
parsing as the exercises ("1到4", "位置0到6", "0, 1, 2", "none", full-width
punctuation). A figure only asks, hides what would give the answer away, and marks
the guess. A prediction is recorded as an attempt of its own kind
(``exercises.learner.store.PREDICTION``): lesson progress, never mastery or review.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from exercises.grading import parsing, scoring
from exercises.learner.review import PREDICTION_PREFIX
from exercises.text import Bilingual, L, listing

FIGURES = ("visibility", "clm", "mlm", "span", "prefix")

TITLES: dict[str, Bilingual] = {
    "visibility": L("Prediction: which positions a row sees", "预测：这一行能看到哪些位置"),
    "clm": L("Prediction: a causal-LM label", "预测：因果语言建模的标签"),
    "mlm": L("Prediction: which positions enter the MLM loss", "预测：哪些位置参与 MLM 损失"),
    "span": L("Prediction: how the span target starts", "预测：片段目标序列的开头"),
    "prefix": L("Prediction: where the prefix-LM loss begins", "预测：前缀语言模型的损失从哪里开始"),
}

PREFIX = PREDICTION_PREFIX


def exercise_id(figure: str) -> str:
    """The id a prediction is stored under (never an exercise's id)."""
    return PREFIX + figure


def title(stored_id: str) -> Bilingual | None:
    """A stored prediction's title in words (None: not a prediction's id)."""
    return TITLES.get(stored_id.removeprefix(PREFIX)) if stored_id.startswith(PREFIX) else None


@dataclass(frozen=True)
class Question:
    """One question, with the engine's answer. ``shape`` says how an answer is read:
    "positions" (a set), "position" (one), "number" (one whole number) or "tokens"."""

    figure: str
    text: Bilingual
    form: Bilingual  # how to write the answer, with an example
    shape: str
    expected: tuple
    seed: int = 0
    tokens: tuple[str, ...] = ()  # the sequence: positions may be named by their token
    row: int | None = None  # the row or position the question is about
    context: tuple = ()  # the figure's settings it was asked under

    @property
    def exercise_id(self) -> str:
        return exercise_id(self.figure)

    def expected_text(self, lang: str = "en") -> str:
        """The engine's answer as the learner would type it in English; in a Chinese
        sentence (``lang`` zh) positions are listed with 、."""
        if self.shape == "tokens":
            return " ".join(map(str, self.expected))
        return listing(self.expected, lang) if self.expected else "-"


@dataclass(frozen=True)
class Verdict:
    """``valid``: the answer could be read (unreadable is not wrong); ``given``: the
    reading, so the figure can mark the guess beside the engine's answer."""

    valid: bool
    correct: bool
    feedback: Bilingual
    diagnoses: tuple[str, ...] = ()
    given: tuple = field(default=())
    answer: str = ""  # what the learner typed (stripped), as the figure shows it beside the engine's


def pick_row(n: int, round_number: int) -> int:
    """Which of n rows the question asks about, the same on every machine for the
    same round; each round may ask another row, and row 0 only when there are few."""
    if n <= 2:
        return random.Random(f"row:{n}:{round_number}").randrange(max(n, 1))
    return 1 + random.Random(f"row:{n}:{round_number}").randrange(n - 1)  # row 0 asks too little


_KIND_NAMES = {
    "causal": L("causal", "因果"),
    "bidirectional": L("bidirectional", "双向"),
    "prefix": L("prefix-LM", "前缀语言模型"),
}


# -- the questions -------------------------------------------------------------


def visibility(kind: str, n: int, prefix: int, row: int) -> Question:
    """Row ``row`` of the mask: which key positions may it look at?"""
    from engine.masks import mask_for, visible_keys

    mask = mask_for(kind, n, prefix)
    name = _KIND_NAMES[kind]
    with_prefix_en = f", prefix {prefix}" if kind == "prefix" else ""
    with_prefix_zh = f"，前缀长度 {prefix}" if kind == "prefix" else ""
    return Question(
        figure="visibility",
        text=L(
            f"The {name['en']} mask over {n} positions{with_prefix_en}: which positions does row {row} see?",
            f"{n} 个位置的{name['zh']}掩码{with_prefix_zh}：第 {row} 行能看到哪些位置？",
        ),
        form=L("Positions from 0, e.g. 0, 1, 2 or 0-2 or none", "位置从 0 数，例如 0, 1, 2 或 0到2 或 无"),
        shape="positions",
        expected=tuple(visible_keys(mask, row)),
        row=row,
        context=(kind, n, prefix, row),
    )


def clm_label(input_ids: Sequence[int], labels: Sequence[int], position: int, seed: int) -> Question:
    """The data-side layout of the lesson's CLM run: the label at ``position``.
    ``input_ids``/``labels`` are row 0 of the engine's run (labels = ids shifted by one)."""
    return Question(
        figure="clm",
        text=L(
            f"Data-side layout: position {position} has input {input_ids[position]}. What is its label?",
            f"数据端排法：位置 {position} 的输入是 {input_ids[position]}。它的标签是多少？",
        ),
        form=L("A token id, e.g. 4821", "一个 token id，例如 4821"),
        shape="number",
        expected=(int(labels[position]),),
        seed=seed,
        tokens=tuple(str(v) for v in input_ids),
        row=position,
        context=(seed, len(input_ids), position),
    )


def mlm_loss(text: str, seed: int, p: float, wrapped: bool) -> Question:
    """The figure's sample, fates shown, labels hidden: which positions enter the loss?"""
    from engine.samples import mlm_sample

    sample = mlm_sample(text, seed=seed, p=p, add_cls_sep=wrapped)
    return Question(
        figure="mlm",
        text=L(
            "Each position's fate is shown, its label is not. Which positions enter the loss (label ≠ -100)?",
            "每个位置的处理方式已列出，标签没有。哪些位置参与损失（标签 ≠ -100）？",
        ),
        form=L("Positions from 0, e.g. 1, 4 or none", "位置从 0 数，例如 1, 4 或 无"),
        shape="positions",
        expected=tuple(i for i, label in enumerate(sample.labels) if label is not None),
        seed=seed,
        tokens=tuple(sample.tokens),
        context=(text, seed, p, wrapped),
    )


def span_start(
    text: str, spans: Sequence[tuple[int, int]] | None, density: float, mean: float, seed: int
) -> Question:
    """The figure's first sample, input shown, target hidden: its first tokens (the
    first sentinel and the first hidden span)."""
    from engine.samples import span_sample

    if spans is not None:
        sample = span_sample(text, spans=spans)
    else:
        sample = span_sample(text, density=density, mean_span=mean, seed=seed)
    start, end = sample.spans[0]
    count = 1 + end - start
    return Question(
        figure="span",
        text=L(
            f"The input is shown, the target is not. What are the target's first {count} tokens?",
            f"输入已列出，目标序列没有。目标序列的前 {count} 个 token 是什么？",
        ),
        form=L(
            "Tokens separated by spaces, e.g. <extra_id_0> C D", "用空格分开的 token，例如 <extra_id_0> C D"
        ),
        shape="tokens",
        expected=tuple(sample.targets[:count]),
        seed=seed,
        tokens=tuple(sample.tokens),
        context=(text, tuple(map(tuple, spans)) if spans is not None else None, density, mean, seed),
    )


def prefix_loss_start(text: str, prefix: int) -> Question:
    """The figure's sample, labels hidden: at which position does the loss begin?"""
    from engine.samples import prefix_sample

    sample = prefix_sample(text, prefix)
    loss = tuple(i for i, label in enumerate(sample.labels) if label is not None)
    return Question(
        figure="prefix",
        text=L(
            f"The prefix is {prefix} tokens long and the labels are hidden. "
            "At which position does the loss begin (the first label ≠ -100)?",
            f"前缀有 {prefix} 个 token，标签已隐藏。损失从哪个位置开始（第一个标签 ≠ -100 的位置）？",
        ),
        form=L("One position from 0, e.g. 3", "一个位置，从 0 数，例如 3"),
        shape="position",
        expected=loss[:1],
        tokens=tuple(sample.inputs),
        row=prefix,
        context=(text, prefix),
    )


# -- the check -------------------------------------------------------------------


def grade(question: Question, answer: str) -> Verdict:
    """Read the learner's answer as the question's shape and compare it with the
    engine's; name the misconception where one is recognised."""
    reader = {
        "positions": _grade_positions,
        "position": _grade_position,
        "number": _grade_number,
        "tokens": _grade_tokens,
    }[question.shape]
    text = answer if isinstance(answer, str) else ""
    return replace(reader(question, text), answer=text.strip())


def _unreadable(question: Question) -> Verdict:
    return Verdict(
        False,
        False,
        L(
            f"Could not read that as an answer. {question.form['en']}.",
            f"没能读懂这个答案。{question.form['zh']}。",
        ),
    )


def _outside(question: Question, n: int) -> Verdict:
    """A position the sequence does not have: not a guess about this figure."""
    return Verdict(
        False,
        False,
        L(f"The positions here go from 0 to {n - 1}.", f"这里的位置是 0 到 {n - 1}。"),
    )


def _right(question: Question, given: tuple) -> Verdict:
    return Verdict(True, True, L("Right: the figure agrees.", "对了：图和你的预测一致。"), (), given)


def _wrong(question: Question, given: tuple, codes: list[str], note: Bilingual | None = None) -> Verdict:
    from exercises.grading.diagnoses import explain

    parts = [note] if note is not None else []
    parts += [explain(code) for code in codes]
    en = " ".join(
        [f"Not quite: the engine says {question.expected_text('en')}."] + [part["en"] for part in parts]
    )
    zh = "".join([f"不对：引擎给出的是 {question.expected_text('zh')}。"] + [part["zh"] for part in parts])
    return Verdict(True, False, L(en, zh), tuple(codes), given)


def _grade_positions(question: Question, answer: str) -> Verdict:
    n = len(question.tokens) if question.tokens else _context_length(question)
    read = parsing.positions(answer, question.tokens or None, n)
    if read is None:
        return _unreadable(question)
    if n is not None and any(not 0 <= position < n for position in read):
        return _outside(question, n)
    given, expected = set(read), set(question.expected)
    if given == expected:
        return _right(question, tuple(read))
    return _wrong(
        question, tuple(read), _position_codes(question, given, expected, parsing.wrote_numbers(answer))
    )


def _context_length(question: Question) -> int | None:
    return question.context[1] if question.figure == "visibility" else None


def _position_codes(question: Question, given: set[int], expected: set[int], counted: bool) -> list[str]:
    """The misconception a wrong set of positions shows, by the rule of the exercise that
    asks the same question (visibility, mlm-abcde): counting from 1 first (numbers only), as there."""
    if counted and scoring.is_one_based(given, expected):
        return [scoring.ONE_BASED_CODE]
    if question.figure == "visibility":
        from exercises.items.visibility import misconceptions

        kind, n, _prefix, row = question.context
        return misconceptions(kind, n, row, given, expected)
    if question.figure == "mlm":
        from engine.samples import mlm_sample
        from engine.tokens import is_special
        from exercises.items.mlm_abcde import loss_misconceptions

        text, seed, p, wrapped = question.context
        fates = mlm_sample(text, seed=seed, p=p, add_cls_sep=wrapped).fates
        content = {i for i, token in enumerate(question.tokens) if not is_special(token)}
        return loss_misconceptions(given, expected, dict(enumerate(fates)), content)
    return []


def _grade_position(question: Question, answer: str) -> Verdict:
    """One position; the whole set of loss positions ("2到4") is read as where it begins.
    A start is the loss over it and every later position: prefix-lm-labels' rule names
    what it shows (one place late, or the whole prefix)."""
    from exercises.items.prefix_labels import loss_misconceptions

    read = parsing.positions(answer, question.tokens or None)
    if not read:
        return _unreadable(question)
    if any(not 0 <= position < len(question.tokens) for position in read):
        return _outside(question, len(question.tokens))
    (expected,) = question.expected
    first = read[0]
    if len(read) > 1 and read != list(range(first, read[-1] + 1)):
        return _unreadable(question)  # "2, 5": no single place where it begins
    if first == expected:
        return _right(question, (first,))
    last = len(question.tokens) - 1  # the loss runs to the last position that predicts a token
    has_prefix = question.context[1] > 0  # without one, no prefix position can be left out
    codes = (
        loss_misconceptions(set(range(first, last)), set(range(expected, last)))
        if expected < last and has_prefix
        else []
    )
    return _wrong(question, (first,), codes)


def _grade_number(question: Question, answer: str) -> Verdict:
    """One whole number; the position the question names may be written beside it
    ("位置3的标签是 4821")."""
    numbers = parsing.integers(answer)
    if not numbers:
        return _unreadable(question)
    if len(numbers) > 1:
        numbers = [number for number in numbers if number != question.row]
    if len(set(numbers)) != 1:
        return _unreadable(question)
    given = numbers[0]
    (expected,) = question.expected
    if given == expected:
        return _right(question, (given,))
    from exercises.items.clm_shift import label_misconceptions

    ids = [int(token) for token in question.tokens]
    row = question.row or 0
    named = [i for i in (row, row - 1) if i >= 0 and ids[i] == given]  # which input token was named
    codes = label_misconceptions(named[0], row) if named else []
    return _wrong(question, (given,), codes)


def _grade_tokens(question: Question, answer: str) -> Verdict:
    """The start of a T5 target, read and diagnosed as span-corruption reads its targets."""
    from engine.tokens import EOS
    from exercises.items.span import read_t5, sentinel_misconceptions

    expected = list(question.expected)
    read, _certain = read_t5(answer, expected, list(question.tokens))
    ended = bool(read) and scoring.same_token(read[-1], EOS)
    if ended:
        read = read[:-1]  # </s> after the start: the exercise takes it or leaves it too
    if not read:
        return _unreadable(question)
    given = tuple(read)
    if len(read) == len(expected) and not scoring.mismatches(read, expected):
        return _right(question, given)
    codes = sentinel_misconceptions(read)
    if ended and not codes and len(read) < len(expected):
        # </s> among the tokens asked for: the learner's target ends there, a whole target
        # that the exercise's rule reads (kept text follows, and no sentinel closes it).
        from engine.samples import span_sample
        from exercises.items.span import stops_before_kept_text

        text, spans, density, mean, seed = question.context
        sample = (
            span_sample(text, spans=spans)
            if spans is not None
            else span_sample(text, density=density, mean_span=mean, seed=seed)
        )
        if stops_before_kept_text(read, sample.closed, len(sample.spans)):
            codes = ["target-missing-final-sentinel"]
    return _wrong(question, given, codes)
