"""Grading that is strict on the misconception and fair to the learner (issue 9):
forms real learners write, caps on the target misconceptions, one story per
answer, feedback that marks without telling, fair variants, question pools."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from exercises.catalogue import EXERCISES, get
from exercises.grading import parsing
from exercises.grading.diagnoses import DIAGNOSES
from exercises.grading.marks import full_marks
from exercises.grading.model import UnknownPart
from exercises.items.choice import LETTERS, ChoiceExercise
from exercises.items.loss_sanity import verdict
from exercises.items.three_masks import bits
from exercises.learner import review
from exercises.learner.store import Attempt
from exercises.selfcheck import MIN_POOL, hint_states_answer, problems, question_problems
from tests.exercise_scripts import SCRIPTS

GRADED = [exercise for exercise in EXERCISES if exercise.graded]
CONCEPTS = [exercise for exercise in EXERCISES if isinstance(exercise, ChoiceExercise)]

# ---------------------------------------------------------------- forms people write

# (exercise, seed, part, text): each is right and must score 1.0 on that part.
RIGHT_FORMS = [
    ("loss-sanity", 0, "verdict", "没问题"),
    ("loss-sanity", 0, "verdict", "nothing is wrong"),
    ("loss-sanity", 0, "verdict", "Nothing is wrong."),
    ("loss-sanity", 0, "verdict", "正常。"),
    ("loss-sanity", 0, "verdict", "A"),
    ("loss-sanity", 0, "verdict", "选 A"),
    ("loss-sanity", 0, "verdict", "normal for an untrained model"),
    ("loss-sanity", 0, "verdict", "对未训练的模型来说正常"),
    ("loss-sanity", 0, "baseline", "-ln(1/10000)"),
    ("loss-sanity", 0, "baseline", "−ln(1/10000)"),
    ("loss-sanity", 0, "baseline", "ln(10000) ≈ 9.21"),
    ("loss-sanity", 0, "baseline", "ln 10000"),
    ("loss-sanity", 0, "baseline", "log(10000)"),
    ("loss-sanity", 0, "baseline", "9.21。"),
    ("loss-sanity", 0, "baseline", "9.21."),
    ("loss-sanity", 0, "baseline", "约 9.21"),
    ("loss-sanity", 0, "baseline", "９．２１"),
    ("loss-sanity", 0, "baseline", "9,21"),  # a decimal comma
    ("expected-counts", 0, "selected", "4.8"),
    ("expected-counts", 0, "selected", "4,8"),
    ("expected-counts", 0, "selected", "≈ 4.8 个"),
    ("expected-counts", 0, "selected", "32 × 0.15"),
    ("expected-counts", 0, "selected", "24/5"),
    ("expected-counts", 0, "mask", "3.84"),
    ("mlm-abcde", 0, "inputs", "A [MASK] C D X"),
    ("mlm-abcde", 0, "inputs", "A MASK C D X"),
    ("mlm-abcde", 0, "inputs", "A <mask> C D X"),
    ("mlm-abcde", 0, "inputs", "A mask C D X."),
    ("mlm-abcde", 0, "inputs", "A【MASK】C D X。"),
    ("mlm-abcde", 0, "inputs", "['A', '[MASK]', 'C', 'D', 'X']"),
    ("mlm-abcde", 0, "loss_positions", "1, 4"),
    ("mlm-abcde", 0, "loss_positions", "1, 4。"),
    ("mlm-abcde", 0, "loss_positions", "位置 1 和 4"),
    ("mlm-abcde", 0, "loss_positions", "B和E"),
    ("mlm-abcde", 0, "labels", "-100 B -100 -100 E"),
    ("mlm-abcde", 0, "labels", "[-100, B, -100, -100, E]"),
    ("mlm-abcde", 0, "labels", "位置1是B，位置4是E"),
    ("mlm-abcde", 0, "labels", "位置 1 的标签是 B，位置 4 的标签是 E"),
    ("mlm-abcde", 0, "labels", "B和E"),
    ("mlm-abcde", 0, "labels", "position 1 is B, position 4 is E."),
    ("mlm-abcde", 0, "labels", "1→B 4→E"),
    ("mlm-eligible", 0, "positions", "1-4, 6-8"),
    ("mlm-eligible", 0, "positions", "1~4，6~8"),
    ("mlm-eligible", 0, "positions", "1到4，6到8"),
    ("mlm-eligible", 0, "positions", "1至4和6至8"),
    ("mlm-eligible", 0, "positions", "1..4, 6..8"),
    ("mlm-eligible", 0, "positions", "1 to 4, 6 to 8."),
    ("mlm-eligible", 0, "positions", "1 2 3 4 6 7 8"),
    ("visibility", 0, "visible", "0-3"),
    ("visibility", 0, "visible", "位置0到3"),
    ("visibility", 0, "visible", "0 到 3 的所有位置"),
    ("visibility", 0, "visible", "0, 1, 2, 3。"),
    ("visibility", 0, "visible", "[0-3]"),
    ("mask-matrix", 0, "matrix", "0111;0011;0001;0000"),
    ("mask-matrix", 0, "matrix", "0 1 1 1\n0 0 1 1\n0 0 0 1\n0 0 0 0"),
    ("mask-matrix", 0, "matrix", "F T T T / F F T T / F F F T / F F F F"),
    # an option's whole text, as typed (a piece of it, such as "decoder-only", names no option)
    ("concept-architecture", 0, "choice", "a decoder-only stack with a causal mask"),
    ("concept-architecture", 0, "choice", "A Decoder Only stack, with a causal mask."),
    ("concept-architecture", 0, "choice", "带因果掩码的仅解码器结构"),
    ("concept-architecture", 0, "choice", "我选：带因果掩码的仅解码器结构"),
    ("perplexity", 0, "perplexity", "10000"),
    ("perplexity", 0, "perplexity", "10,000"),
    ("perplexity", 0, "perplexity", "e^9.2103"),
    ("perplexity", 0, "perplexity", "exp(9.2103) ≈ 10000"),
    ("perplexity", 0, "loss", "ln 20"),
    ("perplexity", 0, "loss", "ln(20) ≈ 3.00"),
    ("prefix-lm-labels", 0, "loss_positions", "6到7"),
    ("prefix-lm-labels", 0, "labels", "-100 -100 -100 -100 -100 -100 guten Morgen"),
    ("prefix-lm-labels", 0, "labels", "位置6是guten，位置7是Morgen"),
    ("three-masks", 0, "attention_mask", "1111110"),
    ("three-masks", 0, "attention_mask", "[1, 1, 1, 1, 1, 1, 0]"),
    ("three-masks", 0, "key_mask", "F F F F F F T"),
    ("bart-vs-t5", 0, "inputs", "transformer models MASK large text corpora."),
]


@pytest.mark.parametrize(("exercise_id", "seed", "part", "text"), RIGHT_FORMS)
def test_forms_learners_write_score_one(exercise_id, seed, part, text):
    exercise = get(exercise_id)
    variant = exercise.generate(seed)
    answer = {**exercise.solve(variant), part: text}
    result = exercise.grade(variant, answer)
    assert result.parts[part].score == 1.0 and result.correct, (text, result.to_json("en"))


def test_the_option_text_typed_in_any_case_or_language_is_read_for_every_concept():
    for exercise in CONCEPTS:
        for seed in range(12):
            variant = exercise.generate(seed)
            question = exercise.question(variant)
            right = next(option for option in question.options if option.correct)
            for text in (right.text["en"], right.text["zh"], right.text["en"].upper() + "."):
                assert exercise.grade(variant, {"choice": text}).correct, (exercise.id, text)


# (exercise, seed, part, text): cannot be read unambiguously -> invalid, no diagnosis.
UNREADABLE_FORMS = [
    ("loss-sanity", 0, "verdict", "正常？还是有问题？"),  # both
    ("loss-sanity", 0, "verdict", "maybe"),
    ("loss-sanity", 0, "baseline", "ln(10000) ≈ 7"),  # the two sides disagree
    ("loss-sanity", 0, "baseline", "9.21 or 6.9"),
    ("loss-sanity", 0, "baseline", "9**9**9"),
    ("mlm-eligible", 0, "positions", "4-1"),  # a backward range
    ("mlm-abcde", 0, "labels", "-100 B -100"),  # a label row of the wrong length
    ("concept-architecture", 0, "choice", "encoder"),  # names two options
    ("concept-architecture", 0, "choice", "I think a decoder"),
    ("three-masks", 0, "attention_mask", "1 1 1"),
]


@pytest.mark.parametrize(("exercise_id", "seed", "part", "text"), UNREADABLE_FORMS)
def test_unreadable_forms_are_invalid_with_the_format_and_no_misconception(exercise_id, seed, part, text):
    exercise = get(exercise_id)
    variant = exercise.generate(seed)
    result = exercise.grade(variant, {**exercise.solve(variant), part: text})
    assert not result.valid and not result.parts[part].valid
    assert result.diagnoses == []
    assert result.parts[part].feedback["en"] and result.parts[part].feedback["zh"]


@pytest.mark.parametrize(
    ("text", "good"),
    [
        ("没问题", True),
        ("没有问题", True),
        ("nothing is wrong", True),
        ("no problem", True),
        ("正常", True),
        ("不正常", False),
        ("not normal", False),
        ("abnormal", False),
        ("有问题", False),
        ("something is wrong", False),
        ("出了 bug", False),
        ("it's fine", True),
    ],
)
def test_judgement_understands_negation(text, good):
    assert (
        parsing.judgement(text, ("normal", "正常", "fine"), ("wrong", "问题", "bug", "abnormal", "problem"))
        is good
    )


@pytest.mark.parametrize(
    ("text", "near", "value"),
    [
        ("1,228.8", None, 1228.8),
        ("1,228", None, 1228.0),  # a thousands comma, as the course writes numbers
        ("1,228", 1.2, 1.228),  # ... unless the question is about a number near 1.2
        ("4,8", None, 4.8),  # a decimal comma
        ("0,125", None, 0.125),
        ("12,000,000", None, 12_000_000.0),
        ("−9.21", None, -9.21),
        ("-ln(1/10000)", None, math.log(10000)),
        ("exp(1)", None, math.e),
        ("2^10", None, 1024.0),
        ("15%", None, 0.15),
        ("the answer is 9.21", None, 9.21),
        ("10⁴", None, 10_000.0),  # NFKC once made it 104
        ("10⁻²", None, 0.01),
        ("10 000", None, 10_000.0),
        ("一万", None, 10_000.0),
        ("1万", None, 10_000.0),
        ("两千", None, 2000.0),
        ("一百零五", None, 105.0),
        ("4.8 × 10%", None, 0.48),
    ],
)
def test_number_reads_commas_by_context_and_the_lessons_notation(text, near, value):
    assert parsing.number(text, near=near) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1-4", [1, 2, 3, 4]),
        ("1~4", [1, 2, 3, 4]),
        ("1到4", [1, 2, 3, 4]),
        ("1至4", [1, 2, 3, 4]),
        ("1..4", [1, 2, 3, 4]),
        ("1 to 4", [1, 2, 3, 4]),
        ("位置0到6", [0, 1, 2, 3, 4, 5, 6]),
        ("0 到 6 的所有位置", [0, 1, 2, 3, 4, 5, 6]),
        ("0-2, 5", [0, 1, 2, 5]),
        ("all positions", [0, 1, 2, 3, 4, 5, 6, 7]),
        ("所有位置", [0, 1, 2, 3, 4, 5, 6, 7]),
        ("全部都能看到", [0, 1, 2, 3, 4, 5, 6, 7]),
        ("every position", [0, 1, 2, 3, 4, 5, 6, 7]),
        ("it can see all positions.", [0, 1, 2, 3, 4, 5, 6, 7]),
        ("none", []),
    ],
)
def test_ranges_and_words_for_positions(text, expected):
    assert parsing.positions(text, None, n=8) == expected


@pytest.mark.parametrize(
    "text",
    [
        "all but the last",
        "not all",
        "Under every mask here, yes.",
        "因果：只能看过去和自己。双向：全部。",
        "除了最后一个都能看",
    ],
)
def test_all_is_read_only_when_the_whole_answer_says_all(text):
    """A sentence that merely contains "all" is not the answer "all positions"."""
    assert parsing.positions(text, None, n=8) is None


READERS = {
    "clean": lambda text: parsing.clean(text),
    "token_list_candidates": lambda text: parsing.token_list_candidates(text),
    "integers": lambda text: parsing.integers(text),
    "positions": lambda text: parsing.positions(text, ["A", "B", "C"], n=5),
    "mapping": lambda text: parsing.mapping(text),
    "label_row": lambda text: parsing.label_row(text, 5),
    "labels": lambda text: parsing.labels(
        text, 5, (("A", "B", "C", "D", "E"), ("a", "[MASK]", "c", "d", "x"))
    ),
    "t5_text": lambda text: parsing.t5_text(text),
    "decimals_written": lambda text: parsing.decimals_written(text),
    "unwrap_printed": lambda text: parsing.unwrap_printed(text),
    "bare_tokens": lambda text: parsing.bare_tokens(text, 2),
    "matrix": lambda text: parsing.matrix(text, 3),
    "number": lambda text: parsing.number(text, near=9.21),
    "evaluate": lambda text: parsing.evaluate(text),
    "choice": lambda text: parsing.choice(text, 3, ["decoder-only", "encoder-only", "encoder-decoder"]),
    "judgement": lambda text: parsing.judgement(text, ("normal", "正常"), ("wrong", "问题")),
    "self_mark": lambda text: parsing.self_mark(text),
    "bits": lambda text: bits(text, 4),
}
# Characters learners and cheaters type: digits, operators, brackets, CJK, full-width, controls.
learner_text = st.lists(
    st.sampled_from(
        list("0123456789-+*/^().,;:=~ \n[]{}<>'\"abeglnpx")
        + list("到至和是的位置标签，。：【】（）−≈")
        + ["ln", "exp", "MASK"]
        # forms read since the session-3 walkthrough: powers, Chinese numbers, "all except", -100 pairs
        + list("⁰¹²³⁴⁻万千百一二两零%×V")
        + ["except", "除了", "以外", "所有位置", "全部", "-100", "(位置", "[CLS]", "10 000"]
        # issue 24's forms: choices in words, pasted prints, spaced conjunctions, T5's notations
        + ["选项", "我选", "答案是", "not ", "tensor(", "array(", "dtype=", "True", "False", "-inf", " 和 "]
        + [" at ", "<X>", "<y>", "</s>", "<extra_id_0>", "&", "约", "nats"]
    ),
    max_size=40,
).map("".join)


@pytest.mark.parametrize("reader", sorted(READERS))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(max_size=200), learner_text))
def test_no_reader_ever_raises(reader, text):
    READERS[reader](text)  # returns a reading or None, never raises


def test_readers_survive_hostile_lengths_and_numbers():
    for reader in READERS.values():
        for text in (
            "9" * 5000,
            "(" * 3000 + "1" + ")" * 3000,
            "ln " * 2000 + "2",
            "1e308*1e308",
            "2^2^2^2^2^2",
        ):
            reader(text)
    assert parsing.number("1e308*1e308") is None and parsing.number("2^2^2^2^2^2") is None


def test_readers_hand_back_a_fresh_reading_each_time():
    """What one caller does with its reading never reaches the next caller's (nothing
    read is shared: issue 25 removed the readers' memos, which saved no one time)."""
    from exercises.grading.scoring import read_tokens_certain
    from exercises.items.clm_shift import read_pairs

    readers = (
        lambda: read_tokens_certain("A [MASK] C", ["A", "B", "C"], ["A", "B", "C"])[0],
        lambda: parsing.positions("1, 3", ["A", "B", "C", "D"]),
        lambda: parsing.labels("1: B, 3: D", 5),
        lambda: read_pairs("0-1, 1-2", 3),
    )
    for read in readers:
        first = read()
        expected = type(first)(first)
        first.clear()
        assert read() == expected


# ---------------------------------------------------------------- strict on the misconception


def _answer_with(exercise_id: str, seed: int, **parts: str):
    exercise = get(exercise_id)
    variant = exercise.generate(seed)
    return exercise.grade(variant, {**exercise.solve(variant), **parts})


@pytest.mark.parametrize(
    ("exercise_id", "parts", "code"),
    [
        ("mlm-eligible", {"positions": "0-9"}, "specials-selected"),
        ("mlm-eligible", {"positions": "1,2,3,4,5,6,7,8"}, "specials-selected"),
        ("mlm-abcde", {"inputs": "A [MASK] C D [MASK]"}, "random-shown-as-mask"),
        ("mlm-abcde", {"loss_positions": "1"}, "loss-omits-random"),
        ("mlm-abcde", {"labels": "1: B, 4: X"}, "label-is-replacement"),
        ("visibility", {"visible": "every position"}, "causal-sees-future"),
        ("visibility", {"visible": "0-5"}, "causal-sees-future"),
        ("mask-matrix", {"matrix": "0000;0000;0000;0000"}, "causal-sees-future"),  # nothing blocked
        ("three-masks", {"attention_mask": "0 0 0 0 0 0 1"}, "attention-polarity"),
        ("prefix-lm-labels", {"loss_positions": "7"}, "prefix-loss-starts-late"),
        ("perplexity", {"perplexity": "9.21"}, "perplexity-is-loss"),
        ("bart-vs-t5", {"targets": "learn patterns from"}, "bart-target-is-span"),
    ],
)
def test_the_target_misconception_scores_at_most_half(exercise_id, parts, code):
    result = _answer_with(exercise_id, 0, **parts)
    assert result.valid and code in result.diagnoses
    assert result.score <= 0.5, (result.score, result.to_json("en"))


def test_a_matrix_toggled_back_to_its_start_scores_at_most_half():
    """The matrix editor starts with every cell 0: untouched or toggled back, it
    is 'nothing blocked', for a causal and for a prefix mask alike."""
    exercise = get("mask-matrix")
    for seed in range(40):
        variant = exercise.generate(seed)
        n = variant.data["n"]
        start = "\n".join(" ".join("0" * n) for _ in range(n))
        result = exercise.grade(variant, {"matrix": start})
        assert result.score <= 0.5 and result.diagnoses, seed


CAPPED_SCRIPTS = [
    (exercise_id, code, script)
    for exercise_id, scripts in SCRIPTS.items()
    for code, script in scripts
    if code in dict(get(exercise_id).scoring().caps)
]


@pytest.mark.parametrize(
    ("exercise_id", "code", "script"), CAPPED_SCRIPTS, ids=[f"{e}:{c}" for e, c, _ in CAPPED_SCRIPTS]
)
def test_every_capped_misconception_stays_under_its_cap(exercise_id, code, script):
    exercise = get(exercise_id)
    cap = dict(exercise.scoring().caps)[code]
    diagnosed = 0
    for seed in range(80):
        variant = exercise.generate(seed)
        solution = exercise.solve(variant)
        wrong = script(variant, solution)
        if wrong is None:
            continue
        result = exercise.grade(variant, {**solution, **wrong})
        if code in result.diagnoses:
            diagnosed += 1
            assert result.score <= cap + 1e-9, (seed, wrong, result.score)
    assert diagnosed > 0, f"the script never made {code} on 80 variants: the cap was not tested"


def test_every_rubric_caps_known_codes_and_reads_in_both_languages():
    for exercise in EXERCISES:
        rubric = exercise.scoring()
        for code, limit in rubric.caps:
            assert code in DIAGNOSES and 0 <= limit < 1, (exercise.id, code)
        for lang in ("en", "zh"):
            data = rubric.to_json(lang)
            assert data["full"] and all(data["partial"]), exercise.id


# ---------------------------------------------------------------- one story per answer

ONE_BASED = {
    "mlm-eligible": lambda v, s: {"positions": ", ".join(str(i + 1) for i in v.data["eligible"])},
    "visibility": lambda v, s: {"visible": ", ".join(str(i + 1) for i in v.data["visible"])},
    "mlm-abcde": lambda v, s: {"loss_positions": ", ".join(str(i + 1) for i in v.data["loss_positions"])},
    "three-masks": lambda v, s: {"loss_positions": ", ".join(str(i + 1) for i in v.data["loss_positions"])},
}


@pytest.mark.parametrize("exercise_id", sorted(ONE_BASED))
def test_counting_from_one_is_the_same_flat_half_and_the_only_story(exercise_id):
    exercise = get(exercise_id)
    for seed in range(60):
        variant = exercise.generate(seed)
        solution = exercise.solve(variant)
        result = exercise.grade(variant, {**solution, **ONE_BASED[exercise_id](variant, solution)})
        assert result.diagnoses == ["one-based-positions"], (seed, result.diagnoses)
        assert result.score == 0.5, (seed, result.score)


def test_labels_counted_from_one_are_the_same_half():
    result = _answer_with("mlm-abcde", 0, loss_positions="2, 5", labels="2: B, 5: E")
    assert result.diagnoses == ["one-based-positions"] and result.score == 0.5


def test_an_ambiguous_reading_names_no_misconception():
    exercise = get("mlm-abcde")
    variant = exercise.generate(0)
    parsed = exercise.parse("inputs", "A，[MASK]，C，D，[MASK]", variant)
    assert parsed.valid and parsed.certain  # commas as separators: one reading only
    result = exercise.grade(variant, {**exercise.solve(variant), "inputs": "A，[MASK]，C，D，[MASK]"})
    assert "random-shown-as-mask" in result.diagnoses


# ---------------------------------------------------------------- feedback teaches before it tells


@pytest.mark.parametrize(
    "exercise", [e for e in GRADED if not isinstance(e, ChoiceExercise)], ids=lambda e: e.id
)
def test_feedback_on_a_wrong_part_never_prints_the_expected_answer(exercise):
    for seed in range(25):
        variant = exercise.generate(seed)
        solution = exercise.solve(variant)
        for part, text in solution.items():
            wrong = {**solution, part: "0" if not text.startswith("0") else "1"}
            result = exercise.grade(variant, wrong)
            feedback = " ".join(p.feedback[lang] for p in result.parts.values() for lang in ("en", "zh"))
            if len(text) > 3:
                assert text not in feedback and text.replace(" ", "") not in feedback.replace(" ", ""), (
                    seed,
                    part,
                    text,
                    feedback,
                )


def test_wrong_positions_are_marked_by_position():
    result = _answer_with("mlm-abcde", 0, inputs="A [MASK] C D [MASK]")
    feedback = result.parts["inputs"].feedback
    assert "4" in feedback["en"] and "4" in feedback["zh"] and "X" not in feedback["en"]


@pytest.mark.parametrize(
    "exercise_id", ["span-corruption", "clm-shift", "bart-vs-t5", "prefix-lm-labels", "visibility"]
)
def test_no_hint_read_as_an_answer_gets_a_part_right(exercise_id):
    """A hint may point at the rule, never hand over a part in a form the grader accepts."""
    exercise = get(exercise_id)
    for seed in range(60):
        variant = exercise.generate(seed)
        for hint in exercise.hints(variant):
            assert not hint_states_answer(exercise, variant, hint), (seed, hint)


def test_the_self_check_catches_a_hint_that_restates_the_answer_in_another_form(monkeypatch):
    exercise = get("clm-shift")
    variant = next(
        exercise.generate(seed) for seed in range(1, 50) if exercise.generate(seed).data["layout"] == "loss"
    )
    slices = {
        "en": "The loss compares logits[:, :-1] with labels[:, 1:].",
        "zh": "损失比较 logits[:, :-1] 和 labels[:, 1:]。",
    }
    assert hint_states_answer(exercise, variant, slices)
    assert not any(hint_states_answer(exercise, variant, hint) for hint in exercise.hints(variant))


def test_the_self_check_catches_a_hint_that_states_the_answer(monkeypatch):
    exercise = get("mlm-eligible")
    variant = exercise.generate(0)
    answer = exercise.solve(variant)["positions"]
    assert hint_states_answer(exercise, variant, {"en": f"It is {answer}.", "zh": f"答案是 {answer}。"})
    assert not hint_states_answer(exercise, variant, exercise.hints(variant)[0])
    concept = get("concept-architecture")
    question = concept.question(concept.generate(0))
    right = next(o for o in question.options if o.correct)
    from dataclasses import replace

    told = replace(question, hints=(right.text,))  # each question carries its own hints
    monkeypatch.setattr(concept, "questions", tuple(told if q is question else q for q in concept.questions))
    assert any("a hint states the answer" in line for line in problems(range(1)))


# ---------------------------------------------------------------- pools and fair variants


def test_every_concept_check_has_a_pool_of_eight_without_tells():
    for exercise in CONCEPTS:
        assert exercise.pool_size() >= MIN_POOL, exercise.id
        for question in exercise.questions:
            assert question_problems(question) == [], (exercise.id, question.stem["en"])
            for option in question.options:
                assert option.correct or option.code in DIAGNOSES


def test_the_tell_detector_finds_tells():
    from exercises.items.concepts import ask, right, wrong

    longest = ask(
        "q",
        "问",
        right(
            "a long and careful answer that explains everything in detail",
            "一个很长很仔细、把一切都解释清楚的答案",
        ),
        wrong("short", "短", "w", "错", "objectives-ranked"),
        wrong("brief", "简", "w", "错", "objectives-ranked"),
    )
    assert any("longest" in problem for problem in question_problems(longest))
    absolute = ask(
        "q",
        "问",
        right("sometimes", "有时"),
        wrong("always true", "总是对的", "w", "错", "objectives-ranked"),
        wrong("never true", "从不对", "w", "错", "objectives-ranked"),
    )
    assert any("absolute" in problem for problem in question_problems(absolute))
    unknown = ask("q", "问", right("a", "甲"), wrong("b", "乙", "w", "错", "no-such-code"))
    assert any("diagnosis code" in problem for problem in question_problems(unknown))


def test_a_theme_always_wrong_across_a_bank_is_a_tell_whatever_its_words():
    """Issue 32: 9 of 16 wrong options of the misconceptions bank ranked the objectives in
    different words and no right one did. The check reads the options' theme tags: a theme
    only ever wrong may appear once; beside right options, at most twice as often wrong."""
    from dataclasses import replace

    from exercises.items.concepts import ask, right, wrong
    from exercises.selfcheck import theme_tells

    def ranked(en: str):
        return replace(wrong(en, "排名" + en, "w", "错", "objectives-ranked"), theme="ranking")

    bank = [
        ask(
            f"q{k}",
            f"问{k}",
            right(f"r{k}", f"对{k}"),
            ranked(f"x{k}"),
            wrong(f"y{k}", f"错{k}", "w", "错", "names-without-labels"),
        )
        for k in range(3)
    ]
    assert theme_tells(bank[:1]) == []  # once is allowed
    assert theme_tells(bank) and "'ranking'" in theme_tells(bank)[0]  # three times, never right
    themed_right = replace(bank[0].options[0], theme="ranking")
    balanced = [replace(bank[0], options=(themed_right, *bank[0].options[1:])), *bank[1:]]
    assert theme_tells(balanced[:2]) == []  # two wrong, one right: the chance rate
    assert theme_tells(balanced)  # three wrong, one right: more than twice as often


def test_the_banks_tag_the_themes_issue_32_names():
    """The check measures something only where options carry their themes: the ranking
    options of the misconceptions bank and the human-label options of the self-supervision
    and NSP banks are tagged (and so held to the rule by ``exercises --check``)."""
    themes = {
        exercise.id: {option.theme for question in exercise.questions for option in question.options}
        for exercise in EXERCISES
        if isinstance(exercise, ChoiceExercise)
    }
    assert "ranking" in themes["concept-misconceptions"]
    assert "human-labels" in themes["concept-self-supervision"] and "human-labels" in themes["concept-nsp"]


def distinct_questions(exercise, count: int) -> list[int]:
    """The first seed of each distinct question among seeds 0..count-1: seeds asking the same
    question make the same variant ("equal question key, equal question", test_quiz.py), so
    checking one of them checks all (a 20-question pool needs 20 checks, not 3,000)."""
    if exercise.draw is None:
        return list(range(count))
    first = {}
    for seed in range(count):
        first.setdefault(exercise.question_key(seed), seed)
    return sorted(first.values())


@pytest.mark.parametrize("exercise", GRADED, ids=lambda e: e.id)
def test_generators_make_only_fair_variants_over_thousands_of_seeds(exercise):
    seeds = distinct_questions(exercise, 3000)
    unfair = [seed for seed in seeds if not exercise.variant_is_fair(exercise.generate(seed))]
    assert unfair == [], (exercise.id, unfair[:10])


@pytest.mark.parametrize("exercise", GRADED, ids=lambda e: e.id)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**40))
def test_any_seed_gives_a_fair_variant(exercise, seed):
    assert exercise.variant_is_fair(exercise.generate(seed))


def test_the_fairness_predicates_refuse_what_the_issue_names():
    from exercises.items import mask_matrix, visibility

    assert not visibility._fair({"kind": "causal", "n": 6, "query": 5, "prefix": 0})  # the last position
    assert not visibility._fair({"kind": "prefix", "n": 6, "query": 0, "prefix": 1})  # prefix <= 1
    assert not visibility._fair({"kind": "prefix", "n": 6, "query": 4, "prefix": 3})  # = the causal answer
    assert visibility._fair({"kind": "prefix", "n": 6, "query": 1, "prefix": 4})
    assert not mask_matrix._fair({"kind": "prefix", "n": 5, "prefix": 1})
    for params in visibility.all_questions():
        answer = visibility.answer_for(params["kind"], params["n"], params["query"], params["prefix"])
        if params["kind"] == "prefix":
            assert answer != set(range(params["query"] + 1)) and answer != set(range(params["n"]))


def _attempt(exercise: str, seed: int, at: float) -> Attempt:
    return Attempt(exercise, "x", seed, {}, 1.0, True, True, True, at=at)


def test_mastery_counts_distinct_questions_not_reshuffled_options():
    exercise = get("concept-task")
    by_question: dict[str, list[int]] = {}
    for seed in range(400):
        by_question.setdefault(exercise.question_key(seed), []).append(seed)
    same = next(seeds for seeds in by_question.values() if len(seeds) >= 3)[:3]
    orders = {tuple(exercise.generate(seed).data["order"]) for seed in same}
    assert len(orders) >= 2 or len(same) == 3  # reshuffles of one question
    assert "concept-task" not in review.mastered([_attempt("concept-task", s, i) for i, s in enumerate(same)])
    distinct = [seeds[0] for seeds in list(by_question.values())[:3]]
    assert "concept-task" in review.mastered([_attempt("concept-task", s, i) for i, s in enumerate(distinct)])


def test_question_keys_are_torch_free_and_match_the_variants():
    """Mastery counts questions by key without the engine: in a fresh interpreter every
    exercise's keys load no torch, and they are the questions the variants ask."""
    seeds = (0, 1, 2, 99)
    code = (
        "import json, sys\n"
        "from exercises.catalogue import EXERCISES\n"
        f"keys = {{e.id: [e.question_key(s) for s in {seeds!r}] for e in EXERCISES}}\n"
        "print(json.dumps({'keys': keys, 'torch': 'torch' in sys.modules}))\n"
    )
    probe = json.loads(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    )
    assert probe["torch"] is False
    assert sorted(probe["keys"]) == sorted(exercise.id for exercise in EXERCISES)
    for exercise in EXERCISES:
        for seed, key in zip(seeds, probe["keys"][exercise.id], strict=True):
            variant = exercise.generate(seed)
            if exercise.draw is not None or isinstance(exercise, ChoiceExercise):
                assert key == variant.question, exercise.id


# ---------------------------------------------------------------- parts, aliases, the loss rule


def test_a_former_part_name_is_still_accepted():
    exercise = get("mlm-abcde")
    variant = exercise.generate(0)
    result = exercise.grade(
        variant, {"input": "A [MASK] C D X", "loss_positions": "1, 4", "labels": "1: B, 4: E"}
    )
    assert result.correct and set(result.parts) == {"inputs", "loss_positions", "labels"}
    with pytest.raises(UnknownPart):
        exercise.grade(variant, {"outputs": "A"})


def test_inputs_is_the_one_name_for_a_model_input_everywhere():
    names = {part.name for exercise in EXERCISES for part in exercise.parts}
    assert "input" not in names and "inputs" in names


def test_the_loss_verdict_is_one_rule():
    """5 nats above ln V, for the exercise's key and the causal-LM figure's "is this loss sane?"."""
    from tui.figures import clm as clm_figure

    assert verdict(9.6401, 10000) == "normal"  # the lesson's run
    assert verdict(29.86, 10000) == "scaling-bug"  # the same run without 1/sqrt(d)
    assert verdict(math.log(1000) + 2.5, 1000) == "normal"  # a small batch scatters
    assert verdict(math.log(1000) + 13, 1000) == "scaling-bug"
    assert verdict(math.log(8000) + 4.99, 8000) == "normal"
    assert verdict(math.log(8000) + 5.01, 8000) == "scaling-bug"
    assert clm_figure.loss_verdict is verdict  # the figure asks the same function
    exercise = get("loss-sanity")
    for seed in range(30):
        data = exercise.generate(seed).data
        # The rule written out again, and what the run was: 1/sqrt(d) scaled is normal.
        by_hand = "normal" if data["loss"] - math.log(data["vocab"]) < 5.0 else "scaling-bug"
        assert data["verdict"] == by_hand == ("normal" if data["scaled"] else "scaling-bug"), (seed, data)


def test_every_choice_option_is_graded_with_its_code():
    for exercise in CONCEPTS:
        variant = exercise.generate(3)
        question = exercise.question(variant)
        for slot, index in enumerate(variant.data["order"]):
            option = question.options[index]
            result = exercise.grade(variant, {"choice": LETTERS[slot]})
            assert result.diagnoses == ([] if option.correct else [option.code])


def test_rubric_and_pool_on_the_command_line(capsys):
    from tui.cli import main

    assert main(["exercise", "mlm-abcde", "--rubric", "--json"]) in (0, None)
    rubric = json.loads(capsys.readouterr().out)["rubric"]
    assert {k: v for k, v in rubric["caps"][0].items() if k != "misconception"} == {
        "code": "random-shown-as-mask",
        "max_score": 0.5,
    }
    assert main(["--lang", "zh", "exercise", "visibility", "--rubric"]) in (0, None)
    assert "最高得分" in capsys.readouterr().out
    assert main(["exercises", "--json"]) in (0, None)
    rows = {row["id"]: row for row in json.loads(capsys.readouterr().out)["exercises"]}
    assert all(rows[e.id]["pool_size"] >= MIN_POOL for e in CONCEPTS)
    # issue 24: padded bidirectional rows, no trivial causal ones
    assert rows["visibility"]["pool_size"] == 254


def test_wrong_positions_names_twelve_and_counts_them_all():
    from exercises.grading.scoring import wrong_positions

    note = wrong_positions(list(range(20)), 30)
    assert "(20 of 30)" in note["en"] and "错了 20 个" in note["zh"]
    assert "11, …" in note["en"] and "12" not in note["en"].split("(")[0]


def test_mlm_labels_one_position_late_are_counting_from_one():
    exercise = get("mlm-abcde")
    variant = exercise.generate(0)
    late = ", ".join(f"{int(i) + 1}: {token}" for i, token in variant.data["labels"].items())
    result = exercise.grade(variant, {**exercise.solve(variant), "labels": late})
    assert result.diagnoses == ["one-based-positions"] and result.parts["labels"].score == 0.5


@pytest.mark.parametrize(
    ("part", "text"),
    [
        ("loss_positions", "7, 8"),
        ("labels", "7: guten, 8: Morgen"),
        ("labels", "-100 -100 -100 -100 -100 -100 -100 guten"),
    ],
)
def test_prefix_labels_one_place_late_is_the_late_start_not_counting_from_one(part, text):
    """The prompt numbers the prefix from 0 (位置 0 到 6): writing the continuation tokens'
    own positions (7, 8) is the exercise's off-by-one; "you counted from 1" would mislead."""
    exercise = get("prefix-lm-labels")
    variant = exercise.generate(0)
    result = exercise.grade(variant, {**exercise.solve(variant), part: text})
    assert result.diagnoses == ["prefix-loss-starts-late"] and result.score == 0.5
    assert "from 1" not in result.parts[part].feedback["en"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("all except 0, 5 and 9", [1, 2, 3, 4, 6, 7, 8]),
        ("all but 0, 5, 9", [1, 2, 3, 4, 6, 7, 8]),
        ("除了 0、5、9 以外的所有位置", [1, 2, 3, 4, 6, 7, 8]),
        ("除了 [CLS] 和 [SEP] 以外的所有位置", [1, 2, 3, 4, 6, 7, 8]),
        ("除特殊符号外都可以", [1, 2, 3, 4, 6, 7, 8]),
        ("everything except the special tokens.", [1, 2, 3, 4, 6, 7, 8]),
        ("1到8，除了5", [1, 2, 3, 4, 6, 7, 8]),  # a range, then what it leaves out
        ("位置1到8，5除外", [1, 2, 3, 4, 6, 7, 8]),
        ("1-8 except 5", [1, 2, 3, 4, 6, 7, 8]),
    ],
)
def test_all_except_reads_as_the_complement(text, expected):
    """Learners name what is left out; once read as the positions named, "all except
    [CLS] and [SEP]" was marked wrong and told it had selected the specials."""
    exercise = get("mlm-eligible")
    variant = exercise.generate(0)
    tokens = variant.data["tokens"]
    assert parsing.positions(text, tokens, n=len(tokens)) == expected
    result = exercise.grade(variant, {"positions": text})
    assert result.correct and result.diagnoses == []


@pytest.mark.parametrize(
    "text",
    [
        "everything except [CLS], [SEP] and the padding",
        "all except the special tokens and padding",
        "除了 [CLS]、[SEP] 和填充以外的所有位置",
        "everything but [CLS], [SEP], [PAD]",
    ],
)
def test_all_except_the_padding_reads_the_pad_positions(text):
    """Tried by hand: "the padding" was not placed, so [PAD] stayed in and the learner was
    told "padding is not text", a misconception the answer does not hold."""
    exercise = get("mlm-eligible")
    variant = next(v for v in map(exercise.generate, range(200)) if "[PAD]" in v.data["tokens"])
    tokens = variant.data["tokens"]
    expected = [i for i, token in enumerate(tokens) if token not in {"[CLS]", "[SEP]", "[PAD]"}]
    assert parsing.positions(text, tokens, n=len(tokens)) == expected
    result = exercise.grade(variant, {"positions": text})
    assert result.correct and result.diagnoses == []


@pytest.mark.parametrize(
    "text", ["all but the last", "except 99", "除了 dog 以外", "all except the last word", "除了最后一个"]
)
def test_all_except_what_cannot_be_placed_is_unreadable(text):
    exercise = get("mlm-eligible")
    result = exercise.grade(exercise.generate(0), {"positions": text})
    assert not result.valid and result.diagnoses == []


def test_three_masks_a_loss_on_every_word_is_the_misconception_with_or_without_specials():
    exercise = get("three-masks")
    variant = exercise.generate(0)  # 0:[CLS] 1:self 2:supervision 3:[MASK] 4:labels 5:[SEP] 6:[PAD]
    for text in ("1, 2, 3, 4", "0, 1, 2, 3, 4, 5", "1, 2, 3, 4, 5", "0-4"):
        result = exercise.grade(variant, {**exercise.solve(variant), "loss_positions": text})
        assert result.diagnoses == ["loss-on-every-token"] and result.score <= 0.5, text


@pytest.mark.parametrize(
    ("exercise_id", "part", "text"),
    [
        ("loss-sanity", "baseline", "ln V = ln 10000 ≈ 9.21"),
        ("loss-sanity", "baseline", "ln(V)"),
        ("perplexity", "perplexity", "V"),
        ("perplexity", "perplexity", "V = 10000"),
    ],
)
def test_the_questions_own_v_reads_as_its_vocabulary(exercise_id, part, text):
    exercise = get(exercise_id)
    variant = exercise.generate(0)  # V = 10000 in both
    assert exercise.grade(variant, {**exercise.solve(variant), part: text}).correct


def test_span_targets_ending_the_wrong_way_are_capped_at_half():
    """A closing sentinel after a span that reaches the end (the seed's simplified rule),
    or none where kept text follows, is the very thing the span variants test."""
    exercise = get("span-corruption")
    seen = set()
    for seed in range(80):
        variant = exercise.generate(seed)
        solution = exercise.solve(variant)
        targets = solution["targets"].removesuffix(" </s>").split()
        n_spans = len(variant.data["merged"])
        if variant.data["closed"]:
            wrong = " ".join(targets[:-1])
            code = "target-missing-final-sentinel"
        else:
            wrong = " ".join([*targets, f"<extra_id_{n_spans}>"])
            code = "target-extra-final-sentinel"
        result = exercise.grade(variant, {**solution, "targets": wrong})
        assert code in result.diagnoses and result.score <= 0.5, (seed, wrong, result.diagnoses)
        seen.add(code)
    assert seen == {"target-missing-final-sentinel", "target-extra-final-sentinel"}


@pytest.mark.parametrize(
    ("seed", "answer"),
    [
        (0, {"pairs": "位置t对位置t"}),
        (0, {"inputs": "tokens[:-1]", "labels": "tokens[1:]"}),  # the lessons' own notation
        (3, {"pairs": "位置 t 的 logit 对位置 t+1 的标签"}),
        (3, {"pairs": "the logit at position t is scored against the label at position t+1"}),
        (3, {"labels": "同 inputs"}),
        (3, {"inputs": "tokens[:]"}),
    ],
)
def test_clm_shift_reads_rules_and_slices_as_learners_write_them(seed, answer):
    exercise = get("clm-shift")
    variant = exercise.generate(seed)  # seed 0 data-side, seed 3 loss-side
    result = exercise.grade(variant, {**exercise.solve(variant), **answer})
    assert result.correct, result.parts


def test_clm_shift_a_slice_that_copies_is_still_copying():
    exercise = get("clm-shift")
    variant = exercise.generate(0)
    result = exercise.grade(variant, {**exercise.solve(variant), "labels": "tokens[:-1]"})
    assert result.diagnoses == ["labels-not-shifted"] and result.score <= 0.5


@pytest.mark.parametrize(
    "template",
    [
        "{letter}",
        "（{letter}）",
        "【{letter}】",
        "选{letter}。",
        "答案是 {lower}",
        "{letter}. {zh}",
        "{zh}。",
        "{EN}",
    ],
)
def test_every_concept_question_reads_the_right_option_however_it_is_typed(template):
    """Over every pool: the letter as learners bracket it ("【B】" was unreadable), the option's
    own text in either language, and the letter with its text."""
    for exercise in CONCEPTS:
        for seed in range(exercise.pool_size() * 3):
            variant = exercise.generate(seed)
            question = exercise.question(variant)
            shown = [question.options[i] for i in variant.data["order"]]
            index = next(i for i, option in enumerate(shown) if option.correct)
            letter = "ABCDEF"[index]
            typed = template.format(
                letter=letter,
                lower=letter.lower(),
                zh=shown[index].text["zh"],
                EN=shown[index].text["en"].upper(),
            )
            assert exercise.grade(variant, {"choice": typed}).correct, (exercise.id, seed, typed)


@pytest.mark.parametrize("text", ["0111，0011，0001，0000", "0111, 0011, 0001, 0000", "0111 0011 0001 0000"])
def test_mask_rows_written_as_bit_strings_between_commas_read(text):
    exercise = get("mask-matrix")
    assert exercise.grade(exercise.generate(0), {"matrix": text}).correct


@pytest.mark.parametrize(
    "text",
    [
        "0: -100, 1: B, 2: -100, 3: -100, 4: E",  # every position, -100 off the loss (a dict as HF prints it)
        '{0: -100, 1: "B", 2: -100, 3: -100, 4: "E"}',
        "B（位置1），E（位置4）",  # was misread, and marked wrong at 1 and 4
        "B (position 1), E (position 4)",
    ],
)
def test_mlm_labels_with_every_position_spelt_out_or_the_position_after_the_token(text):
    exercise = get("mlm-abcde")
    variant = exercise.generate(0)
    assert exercise.grade(variant, {**exercise.solve(variant), "labels": text}).correct


@pytest.mark.parametrize(
    ("exercise_id", "part", "text"),
    [
        ("mlm-abcde", "inputs", "a [mask] c d x"),
        ("bart-vs-t5", "targets", "Transformer models learn patterns from large text corpora."),  # a sentence
        ("prefix-lm-labels", "labels", "-100 -100 -100 -100 -100 -100 Guten morgen"),
        ("clm-shift", "labels", "Models learn patterns from large text corpora"),
    ],
)
def test_case_does_not_make_a_token_wrong(exercise_id, part, text):
    """A capital at the start of a sentence cost a position; "Guten morgen" scored 0."""
    exercise = get(exercise_id)
    variant = exercise.generate(0)
    assert exercise.grade(variant, {**exercise.solve(variant), part: text}).correct


@pytest.mark.parametrize(
    "text",
    ["1,2,3,4,6,7,8（0、5、9 是特殊符号）", "1-4, 6-8 (0, 5 and 9 are [CLS]/[SEP])", "(1, 2, 3, 4, 6, 7, 8)"],
)
def test_a_bracketed_remark_is_not_part_of_the_positions(text):
    """The remark named 0, 5 and 9: read as chosen, the answer was told it had selected the specials."""
    exercise = get("mlm-eligible")
    result = exercise.grade(exercise.generate(0), {"positions": text})
    assert result.correct and result.diagnoses == []


# ---------------------------------------------------------------- read what learners write (issue 24)
# Each reader against the forms people write (tests/reading_forms.py), then generated forms
# (hypothesis) built from a known answer: the reading must be that answer.

from tests import reading_forms as forms  # noqa: E402


@pytest.mark.parametrize(("text", "expected"), forms.CHOICE)
def test_a_choice_as_people_phrase_it(text, expected):
    assert parsing.choice(text, 4) == expected


@pytest.mark.parametrize(("text", "expected"), forms.OPTION_TEXT)
def test_an_option_is_named_by_its_whole_text_never_a_fragment(text, expected):
    assert parsing.choice(text, 3, forms.OPTIONS_80_10_10) == expected


@pytest.mark.parametrize(("text", "arguments", "expected"), forms.POSITIONS)
def test_positions_as_people_write_and_paste_them(text, arguments, expected):
    tokens, n = arguments
    assert parsing.positions(text, tokens, n) == expected


@pytest.mark.parametrize(("text", "length", "expected"), forms.LABELS)
def test_labels_as_people_write_them(text, length, expected):
    assert parsing.labels(text, length, (tuple(forms.ABCDE[:length]),)) == expected


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(2, 9),
    data=st.data(),
    joiner=st.sampled_from([" ", ", ", "，", "、", ""]),
)
def test_a_row_that_labels_nothing_is_not_read_as_a_label_on_every_position(n, data, joiner):
    """A row of labels is read only where it labels the sequence: "答案是 B" on a four-token
    question, a pasted matrix, the words of a sentence are no labels (issue 24: never guess)."""
    sequence = tuple(data.draw(st.lists(st.sampled_from(forms.ABCDE), min_size=n, max_size=n)))
    pieces = data.draw(
        st.lists(
            st.sampled_from(["答", "案", "是", "所有", "位置", "0:", "[0", "1]", "none", "X", "Y"]),
            min_size=n,
            max_size=n,
        )
    )
    found = parsing.labels(joiner.join(pieces), n, (sequence,))
    assert found is None or len(found) < n, (pieces, found)


@pytest.mark.parametrize(("text", "expected"), forms.MATRIX)
def test_a_mask_as_people_write_and_paste_it(text, expected):
    assert parsing.matrix(text, 4) == expected


@pytest.mark.parametrize(("text", "expected"), forms.BITS)
def test_a_padding_mask_as_people_write_and_paste_it(text, expected):
    assert bits(text, 4) == expected


@pytest.mark.parametrize(("text", "expected"), forms.NUMBERS)
def test_a_number_as_torch_and_numpy_print_it(text, expected):
    assert parsing.number(text) == pytest.approx(expected)


@pytest.mark.parametrize(("text", "expected"), forms.SPAN_TOKENS)
def test_t5_tokens_in_the_papers_notation(text, expected):
    assert parsing.t5_text(text).split() == expected


@pytest.mark.parametrize(("text", "expected"), forms.DECIMALS)
def test_the_decimals_a_learner_wrote(text, expected):
    assert parsing.decimals_written(text) == expected


CHOICE_TEMPLATES = [
    "{L}",
    "选项{L}。",
    "选{L}",
    "答案是 {L}",
    "我选{L}",
    "{L}选项",
    "应该选 {L} 吧",
    "正确答案：（{L}）",
    "答：{L}",
    "the answer is {L}",
    "I'd pick ({L}).",
    "option {L}",
    "{L} is correct",
]
NEGATED_CHOICE = ["不是{L}", "{L}不对", "not {L}", "{L} 错", "除了{L}"]
FULL_WIDTH = str.maketrans({chr(c): chr(c + 0xFEE0) for c in range(0x21, 0x7F)})


@settings(max_examples=300, deadline=None)
@given(
    count=st.integers(2, 6),
    data=st.data(),
    template=st.sampled_from(CHOICE_TEMPLATES),
    lower=st.booleans(),
    wide=st.booleans(),
)
def test_any_phrasing_of_a_letter_is_that_option(count, data, template, lower, wide):
    index = data.draw(st.integers(0, count - 1))
    letter = "ABCDEF"[index].lower() if lower else "ABCDEF"[index]
    text = template.format(L=letter)
    assert parsing.choice(text.translate(FULL_WIDTH) if wide else text, count) == index


@settings(max_examples=150, deadline=None)
@given(count=st.integers(2, 6), data=st.data(), template=st.sampled_from(NEGATED_CHOICE))
def test_a_negated_letter_names_no_option(count, data, template):
    index = data.draw(st.integers(0, count - 1))
    assert parsing.choice(template.format(L="ABCDEF"[index]), count) is None


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_fragment_of_an_option_never_names_it(data):
    """Issue 24: "inf" (inside "…appears in fine-tuning…") scored 1.0. An option is named by
    its whole text; a piece of it reads as nothing more than it would without the options."""
    exercise = data.draw(st.sampled_from(CONCEPTS))
    variant = exercise.generate(data.draw(st.integers(0, 200)))
    question = exercise.question(variant)
    texts = [question.options[i].text for i in variant.data["order"]]
    lang = data.draw(st.sampled_from(["en", "zh"]))
    option = data.draw(st.sampled_from(texts))[lang]
    start = data.draw(st.integers(0, len(option) - 2))
    end = data.draw(st.integers(start + 1, len(option) - (start == 0)))
    fragment = option[start:end]
    assume(parsing._squashed(fragment) != parsing._squashed(option))  # all its words: the whole text
    assert parsing.choice(fragment, len(texts), [t[lang] for t in texts]) == parsing.choice(
        fragment, len(texts)
    )


CONJUNCTIONS = [" 和 ", "和", " 与 ", "与", " 及 ", "、", "，", ", ", " ", " and ", " & ", " 以及 ", " 跟 "]


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.lists(
        st.sampled_from([*"ABCDEFGH", "天", "气", "cat", "[MASK]"]), min_size=3, max_size=8, unique=True
    ),
    data=st.data(),
)
def test_tokens_named_with_any_conjunction_are_their_positions(tokens, data):
    chosen = data.draw(
        st.lists(st.sampled_from(range(len(tokens))), min_size=1, max_size=len(tokens), unique=True)
    )
    joiner = data.draw(st.sampled_from(CONJUNCTIONS))
    if joiner == "" or (joiner in ("和", "与") and any(len(tokens[i]) > 1 for i in chosen)):
        joiner = " 和 "
    text = joiner.join(tokens[i] for i in chosen)
    assert parsing.positions(text, tokens, len(tokens)) == sorted(chosen)


PRINTED_LIST = ["tensor([{}])", "tensor([{}], dtype=torch.int64)", "array([{}])", "[{}]", "positions = [{}]"]


@settings(max_examples=200, deadline=None)
@given(
    chosen=st.lists(st.integers(0, 9), min_size=1, max_size=10, unique=True),
    form=st.sampled_from(PRINTED_LIST),
)
def test_positions_pasted_as_a_printed_list(chosen, form):
    text = form.format(", ".join(map(str, sorted(chosen))))
    assert parsing.positions(text, None, 10) == sorted(chosen)


def _printed(matrix: list[list[int]], style: str) -> str:
    """A 0/1 matrix as the lessons' code (torch, numpy) would print it."""
    import numpy
    import torch

    tensor = torch.tensor(matrix)
    if style == "bool":
        return str(tensor.bool())
    if style == "float":
        return str(tensor.float())
    if style == "additive":
        return str(torch.zeros(tensor.shape).masked_fill(tensor.bool(), float("-inf")))
    if style == "int32":
        return str(tensor.to(torch.int32))
    if style == "numpy-repr":
        return repr(numpy.array(matrix))
    if style == "numpy-str":
        return str(numpy.array(matrix))
    return str(matrix)  # a Python list


MATRIX_STYLES = ["bool", "float", "additive", "int32", "numpy-repr", "numpy-str", "list"]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(2, 12), data=st.data(), style=st.sampled_from(MATRIX_STYLES))
def test_a_mask_printed_by_torch_or_numpy_reads_as_that_mask(n, data, style):
    matrix = data.draw(st.lists(st.lists(st.integers(0, 1), min_size=n, max_size=n), min_size=n, max_size=n))
    assert parsing.matrix(_printed(matrix, style), n) == matrix


@settings(max_examples=150, deadline=None)
@given(
    cells=st.lists(st.integers(0, 1), min_size=2, max_size=12),
    style=st.sampled_from(["bool", "int", "batch", "numpy"]),
)
def test_a_padding_mask_printed_by_torch_or_numpy_reads(cells, style):
    import numpy
    import torch

    text = {
        "bool": lambda: str(torch.tensor(cells).bool()),
        "int": lambda: str(torch.tensor(cells)),
        "batch": lambda: str(torch.tensor([cells])),
        "numpy": lambda: repr(numpy.array(cells)),
    }[style]()
    assert bits(text, len(cells)) == cells


@settings(max_examples=200, deadline=None)
@given(
    pairs=st.dictionaries(
        st.integers(0, 9), st.sampled_from(["B", "E", "learn", "天", "[MASK]", "cat"]), min_size=1, max_size=4
    ),
    form=st.sampled_from(
        ["{t} at {i}", "{t} at position {i}", "{t} 在位置 {i}", "{t}在{i}", "{i}: {t}", "位置{i}是{t}"]
    ),
    joiner=st.sampled_from([", ", "，", " and ", "；", "; "]),
)
def test_labels_at_positions_in_any_spoken_form(pairs, form, joiner):
    text = joiner.join(form.format(t=token, i=i) for i, token in sorted(pairs.items()))
    assert parsing.labels(text, 10) == pairs


# ------------------------------------------------ the same forms, graded (each failed before issue 24)

CHINESE_CHOICES = ["选项{L}。", "我选{L}", "{L}选项", "答案应该是{L}", "正确答案：{L}", "选择 {L} 吧"]


@pytest.mark.parametrize("template", CHINESE_CHOICES)
def test_every_concept_question_reads_a_letter_in_chinese_words(template):
    for exercise in CONCEPTS:
        for seed in range(exercise.pool_size()):
            variant = exercise.generate(seed)
            letter = exercise.solve(variant)["choice"]
            assert exercise.grade(variant, {"choice": template.format(L=letter)}).correct, (exercise.id, seed)


def test_a_word_that_is_no_option_is_unreadable_not_right():
    exercise = get("concept-80-10-10")
    result = exercise.grade(exercise.generate(0), {"choice": "inf"})
    assert not result.valid and result.score == 0.0 and result.diagnoses == []


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), style=st.sampled_from(MATRIX_STYLES))
def test_the_engines_mask_pasted_from_torch_scores_one(seed, style):
    exercise = get("mask-matrix")
    variant = exercise.generate(seed)
    assert exercise.grade(variant, {"matrix": _printed(variant.data["mask"], style)}).correct


@pytest.mark.parametrize(
    ("part", "text"), [("loss_positions", "B 和 E"), ("labels", "B 和 E"), ("labels", "B at 1, E at 4")]
)
def test_mlm_abcde_token_names_with_spaced_conjunctions(part, text):
    result = _answer_with("mlm-abcde", 0, **{part: text})
    assert result.correct, result.to_json("en")


@pytest.mark.parametrize(
    "answer",
    [
        {"loss_positions": "all positions"},
        {"loss_positions": "every position"},
        {"loss_positions": "所有位置"},
        {"loss_positions": "0,1,2,3,4", "labels": "0: A, 1: B, 2: C, 3: D, 4: E"},
        {"labels": "A B C D E"},
        {"loss_positions": "0-4", "labels": "A B C D E"},
    ],
)
def test_mlm_abcde_the_loss_on_every_token_is_its_misconception_capped(answer):
    """Issue 24: 'all positions' was unreadable, and the loss on every token with every label
    scored 60 %: it is the misconception the exercise targets, one story, at most half."""
    result = _answer_with("mlm-abcde", 0, **answer)
    assert result.valid and result.diagnoses == ["loss-on-every-token"], result.to_json("en")
    assert result.score <= 0.5


def test_mlm_abcde_every_token_of_any_variant_is_one_story_under_the_cap():
    exercise = get("mlm-abcde")
    for seed in range(60):
        variant = exercise.generate(seed)
        tokens = variant.data["tokens"]
        answer = {
            **exercise.solve(variant),
            "loss_positions": ", ".join(map(str, range(len(tokens)))),
            "labels": " ".join(tokens),
        }
        result = exercise.grade(variant, answer)
        assert result.valid and result.diagnoses == ["loss-on-every-token"] and result.score <= 0.5, seed


def _prefix_rows(variant):
    tokens, prefix = variant.data["tokens"], variant.data["prefix"]
    return {
        "whole sequence": " ".join(tokens),  # one label per token of the whole sequence
        "every input position": " ".join(tokens[1:]),  # the next token everywhere, prefix included
        "loss-side right": " ".join(
            ["-100"] * prefix + tokens[prefix:]
        ),  # labels = input_ids, -100 on the prefix
    }


def test_prefix_lm_labels_a_row_of_the_whole_sequence_is_read_and_diagnosed():
    """Issue 23, 19 and issue 24: one label per token of the whole sequence was 'could not
    read', yet scored and named a misconception. It is the exercise's misconception."""
    exercise = get("prefix-lm-labels")
    for seed in range(40):
        variant = exercise.generate(seed)
        rows = _prefix_rows(variant)
        for name in ("whole sequence", "every input position"):
            result = exercise.grade(variant, {**exercise.solve(variant), "labels": rows[name]})
            assert result.valid, (seed, name, result.to_json("en"))
            assert result.diagnoses == ["prefix-loss-everywhere"] and result.score <= 0.5, (seed, name)
        right = exercise.grade(variant, {**exercise.solve(variant), "labels": rows["loss-side right"]})
        assert right.correct, (seed, right.to_json("en"))
        assert "input_ids" in right.parts["labels"].feedback["en"]  # the layout it was read in is said


def test_an_answer_with_an_unread_part_says_how_its_score_counts():
    result = _answer_with("prefix-lm-labels", 0, labels="what?", loss_positions="0-7")
    assert not result.valid and 0 < result.score < 1
    for lang in ("en", "zh"):
        assert f"{result.score:.0%}" in result.feedback[lang]


def _diagonal_blocked(n: int, prefix: int = 0, keep_first: bool = False) -> str:
    rows = [
        [int((c > r and c >= prefix) or (c == r and not (keep_first and r == 0))) for c in range(n)]
        for r in range(n)
    ]
    return "\n".join(" ".join(map(str, row)) for row in rows)


def test_a_mask_with_its_diagonal_blocked_is_diagnosed():
    exercise = get("mask-matrix")
    found = {"causal": 0, "prefix": 0}
    for seed in range(60):
        variant = exercise.generate(seed)
        data = variant.data
        answers = [
            _diagonal_blocked(data["n"], data["prefix"]),
            _diagonal_blocked(data["n"], data["prefix"], True),
        ]
        if data["kind"] == "causal":
            import torch

            answers.append(str(torch.triu(torch.ones(data["n"], data["n"]))))  # diagonal=1 forgotten
        for answer in answers:
            result = exercise.grade(variant, {"matrix": answer})
            assert result.diagnoses == ["mask-blocks-diagonal"] and result.score <= 0.5, (seed, answer)
        found[data["kind"]] += 1
    assert min(found.values()) >= 5


def _one_sentinel_per_token(variant) -> dict[str, str]:
    tokens, merged = variant.data["tokens"], variant.data["merged"]
    inputs, targets, count, position = [], [], 0, 0
    for start, end in merged:
        inputs += tokens[position:start]
        for token in tokens[start:end]:
            inputs.append(f"<extra_id_{count}>")
            targets += [f"<extra_id_{count}>", token]
            count += 1
        position = end
    inputs += tokens[position:]
    if variant.data["closed"]:
        targets.append(f"<extra_id_{count}>")
    return {"inputs": " ".join(inputs), "targets": " ".join(targets)}


def test_span_one_sentinel_per_token_is_one_story():
    exercise = get("span-corruption")
    seen = 0
    for seed in range(80):
        variant = exercise.generate(seed)
        if sum(end - start for start, end in variant.data["merged"]) <= len(variant.data["merged"]):
            continue
        if variant.data["kind"] == "touching" and all(
            end - start == 1 for start, end in variant.data["spans"]
        ):
            continue  # one token per touching piece: the same answer as the pieces split, that variant's story
        result = exercise.grade(variant, _one_sentinel_per_token(variant))
        assert result.diagnoses == ["one-sentinel-per-token"], (seed, result.diagnoses)
        seen += 1
    assert seen >= 20


def test_span_in_barts_format_is_named_as_barts_infilling():
    from exercises.items.bart_t5 import bart_infilling

    exercise = get("span-corruption")
    for seed in range(40):
        variant = exercise.generate(seed)
        inputs, targets = bart_infilling(variant.data["tokens"], variant.data["merged"])
        result = exercise.grade(variant, {"inputs": " ".join(inputs), "targets": " ".join(targets)})
        assert result.valid and result.diagnoses == ["t5-as-bart"] and result.score <= 0.5, (
            seed,
            result.diagnoses,
        )
        assert "BART" in result.feedback["en"] and "BART" in result.feedback["zh"]


def test_span_in_the_t5_papers_notation_is_right():
    """The T5 paper writes its sentinels <X>, <Y>, <Z>: scored 72 % as 'target without sentinels'."""
    exercise = get("span-corruption")
    letters = "XYZ"
    for seed in range(40):
        variant = exercise.generate(seed)
        if len(variant.data["merged"]) + variant.data["closed"] > 3:
            continue
        paper = {
            part: " ".join(
                f"<{letters[int(token[10:-1])]}>" if token.startswith("<extra_id_") else token
                for token in text.split()
            )
            for part, text in exercise.solve(variant).items()
        }
        result = exercise.grade(variant, paper)
        assert result.correct and result.diagnoses == [], (seed, paper, result.to_json("en"))


def test_clm_shift_in_the_other_layout_is_one_mistake():
    """Issue 24: a loss-side question answered consistently data-side got three diagnoses,
    two of them contradicting each other. It is one mistake: the layout not asked for."""
    exercise = get("clm-shift")
    seen = set()
    for seed in range(60):
        variant = exercise.generate(seed)
        tokens = variant.data["tokens"]
        n = len(tokens)
        if variant.data["layout"] == "loss":
            other = {
                "inputs": " ".join(tokens[:-1]),
                "labels": " ".join(tokens[1:]),
                "pairs": ", ".join(f"{t}-{t}" for t in range(n - 1)),
            }
        else:
            other = {
                "inputs": " ".join(tokens),
                "labels": " ".join(tokens),
                "pairs": ", ".join(f"{t}-{t + 1}" for t in range(n - 1)),
            }
        result = exercise.grade(variant, other)
        assert result.valid and result.diagnoses == ["wrong-layout"] and result.score <= 0.5, (
            seed,
            result.diagnoses,
        )
        seen.add(variant.data["layout"])
    assert seen == {"data", "loss"}


def test_the_first_misconception_near_a_number_is_named_and_only_it():
    from exercises.grading.scoring import misconception_near

    wrong = (("a", 10.0), ("b", 10.05), ("c", 20.0))
    assert misconception_near(10.04, wrong) == ["a"]  # within 1 % of 10 and of 10.05: the first
    assert misconception_near(10.04, wrong[1:]) == ["b"]
    assert misconception_near(20.3, wrong) == []  # 1.5 % off 20
    assert misconception_near(20.3, wrong, relative=0.02) == ["c"]
    assert misconception_near(0.5, (("p", 0.505),), relative=0.0, absolute=0.001) == []
    assert misconception_near(0.5, ()) == []


@pytest.mark.parametrize(
    ("exercise_id", "part", "text"),
    [
        ("loss-sanity", "baseline", "8.5"),  # V = 5000: ln 5000 = 8.517 (issue 23, 6)
        ("loss-sanity", "baseline", "9"),
        ("perplexity", "loss", "1.4"),  # ln 4 = 1.386
    ],
)
def test_a_number_right_to_fewer_decimals_is_told_the_precision(exercise_id, part, text):
    exercise = get(exercise_id)
    for seed in range(200):
        variant = exercise.generate(seed)
        solution = exercise.solve(variant)
        expected = float(solution[part])
        given = float(text)
        decimals = len(text.split(".")[1]) if "." in text else 0
        if round(expected, decimals) != given or expected == given:
            continue
        result = exercise.grade(variant, {**solution, part: text})
        assert result.valid and result.diagnoses == [], (seed, result.diagnoses)
        assert (
            "2 decimals" in result.parts[part].feedback["en"]
            and "两位小数" in result.parts[part].feedback["zh"]
        )
        assert 0 < result.parts[part].score < 1
        return
    pytest.fail(f"no variant of {exercise_id} with {part} {text}")


# -- the same categories, generated (hypothesis): every variant, every way of writing it --------

ROW_JOINERS = [" ", ", ", "，", "、", " | ", "  "]


def _row(tokens, joiner: str, bracketed: bool) -> str:
    text = joiner.join(tokens)
    return f"[{text}]" if bracketed else text


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    joiner=st.sampled_from(ROW_JOINERS),
    bracketed=st.booleans(),
    positions=st.sampled_from(["{all}", "0-{last}", "all positions", "所有位置", "every position"]),
)
def test_mlm_abcde_a_label_on_every_token_in_any_form_is_the_misconception(
    seed, joiner, bracketed, positions
):
    exercise = get("mlm-abcde")
    variant = exercise.generate(seed)
    tokens = variant.data["tokens"]
    where = positions.format(all=", ".join(map(str, range(len(tokens)))), last=len(tokens) - 1)
    answer = {**exercise.solve(variant), "loss_positions": where, "labels": _row(tokens, joiner, bracketed)}
    result = exercise.grade(variant, answer)
    assert result.valid and result.diagnoses == ["loss-on-every-token"] and result.score <= 0.5, (
        answer,
        result.to_json("en"),
    )


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    joiner=st.sampled_from(ROW_JOINERS),
    bracketed=st.booleans(),
    row=st.sampled_from(["whole sequence", "every input position"]),
)
def test_prefix_lm_labels_a_row_over_the_whole_sequence_in_any_form_is_the_misconception(
    seed, joiner, bracketed, row
):
    exercise = get("prefix-lm-labels")
    variant = exercise.generate(seed)
    tokens = _prefix_rows(variant)[row].split()
    answer = {**exercise.solve(variant), "labels": _row(tokens, joiner, bracketed)}
    result = exercise.grade(variant, answer)
    assert result.valid and result.diagnoses == ["prefix-loss-everywhere"] and result.score <= 0.5, (
        answer,
        result.to_json("en"),
    )


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**6), keep_first=st.booleans(), style=st.sampled_from([*MATRIX_STYLES, "plain"]))
def test_a_blocked_diagonal_in_any_form_is_diagnosed(seed, keep_first, style):
    exercise = get("mask-matrix")
    variant = exercise.generate(seed)
    text = _diagonal_blocked(variant.data["n"], variant.data["prefix"], keep_first)
    if style != "plain":
        text = _printed([[int(cell) for cell in row.split()] for row in text.splitlines()], style)
    result = exercise.grade(variant, {"matrix": text})
    assert result.valid and result.diagnoses == ["mask-blocks-diagonal"] and result.score <= 0.5, (
        variant.data,
        text,
    )


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    form=st.sampled_from(["<{}>", "《{}》", "< {} >", "〈{}〉"]),
    lower=st.booleans(),
)
def test_span_in_the_papers_notation_any_variant_is_right(seed, form, lower):
    exercise = get("span-corruption")
    variant = exercise.generate(seed)
    assume(len(variant.data["merged"]) + variant.data["closed"] <= 3)
    letters = "xyz" if lower else "XYZ"
    paper = {
        part: " ".join(
            form.format(letters[int(token[10:-1])]) if token.startswith("<extra_id_") else token
            for token in text.split()
        )
        for part, text in exercise.solve(variant).items()
    }
    result = exercise.grade(variant, paper)
    assert result.correct and result.diagnoses == [], (paper, result.to_json("en"))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_span_in_barts_format_any_variant_is_barts_infilling_alone(seed):
    from exercises.items.bart_t5 import bart_infilling

    exercise = get("span-corruption")
    variant = exercise.generate(seed)
    inputs, targets = bart_infilling(variant.data["tokens"], variant.data["merged"])
    result = exercise.grade(variant, {"inputs": " ".join(inputs), "targets": " ".join(targets)})
    assert result.valid and result.diagnoses == ["t5-as-bart"] and result.score <= 0.5, result.diagnoses


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_span_one_sentinel_per_token_any_variant_is_one_story(seed):
    exercise = get("span-corruption")
    variant = exercise.generate(seed)
    merged = variant.data["merged"]
    assume(sum(end - start for start, end in merged) > len(merged))
    assume(not (variant.data["kind"] == "touching" and all(e - s == 1 for s, e in variant.data["spans"])))
    result = exercise.grade(variant, _one_sentinel_per_token(variant))
    assert result.diagnoses == ["one-sentinel-per-token"], result.diagnoses


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), joiner=st.sampled_from([" ", ", ", "，"]))
def test_clm_shift_the_other_layout_any_variant_is_one_mistake(seed, joiner):
    exercise = get("clm-shift")
    variant = exercise.generate(seed)
    tokens = variant.data["tokens"]
    n = len(tokens)
    if variant.data["layout"] == "loss":  # answered data-side
        other = (tokens[:-1], tokens[1:], [f"{t}-{t}" for t in range(n - 1)])
    else:  # answered loss-side
        other = (tokens, tokens, [f"{t}-{t + 1}" for t in range(n - 1)])
    answer = dict(zip(("inputs", "labels", "pairs"), (joiner.join(part) for part in other), strict=True))
    result = exercise.grade(variant, answer)
    assert result.valid and result.diagnoses == ["wrong-layout"] and result.score <= 0.5, (
        answer,
        result.diagnoses,
    )


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    where=st.sampled_from([("loss-sanity", "baseline"), ("perplexity", "loss")]),
    decimals=st.integers(0, 1),
    cut=st.booleans(),
    form=st.sampled_from(["{}", "约 {}", "≈{}", "{} nats", "{}。"]),
)
def test_any_number_right_to_fewer_decimals_is_told_the_precision(seed, where, decimals, cut, form):
    """Issue 23, 6, generally: right to the decimals written (rounded or cut), fewer than asked,
    is told the precision, never a misconception."""
    exercise_id, part = where
    exercise = get(exercise_id)
    variant = exercise.generate(seed)
    solution = exercise.solve(variant)
    expected = parsing.number(solution[part])
    scale = 10**decimals
    value = math.trunc(expected * scale) / scale if cut else round(expected, decimals)
    assume(abs(value - expected) > 0.011)  # within the rounding people do, it is simply right
    text = form.format(f"{value:.{decimals}f}")
    result = exercise.grade(variant, {**solution, part: text})
    assert result.valid and result.diagnoses == [], (text, expected, result.to_json("en"))
    assert (
        "2 decimals" in result.parts[part].feedback["en"] and "两位小数" in result.parts[part].feedback["zh"]
    )
    assert 0 < result.parts[part].score < 1


@pytest.mark.parametrize("text", ["B 和 E", "B和E", "B and E", "B, E"])
def test_tokens_named_one_place_late_are_not_counted_from_one(text):
    """Issue 23, 7: mlm-abcde seed 40 selects A and D; naming the tokens B and E got "counted
    from 1", a story the answer cannot show (nothing was counted). Numbers can show it."""
    exercise = get("mlm-abcde")
    variant = exercise.generate(40)
    assert variant.data["tokens"][:5] == forms.ABCDE and variant.data["selected"] == [0, 3]
    named = exercise.grade(variant, {**exercise.solve(variant), "loss_positions": text})
    assert named.valid and "one-based-positions" not in named.diagnoses, named.diagnoses
    counted = exercise.grade(variant, {**exercise.solve(variant), "loss_positions": "1, 4"})
    assert counted.diagnoses == ["one-based-positions"]


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**6), joiner=st.sampled_from([" 和 ", "和", " and ", ", ", "、"]))
def test_positions_named_by_tokens_are_never_counted_from_one(seed, joiner):
    exercise = get("mlm-abcde")
    variant = exercise.generate(seed)
    tokens = variant.data["tokens"]
    late = [i + 1 for i in variant.data["loss_positions"]]
    assume(all(i < len(tokens) and tokens.count(tokens[i]) == 1 for i in late))
    text = joiner.join(tokens[i] for i in late)
    result = exercise.grade(variant, {**exercise.solve(variant), "loss_positions": text})
    assert "one-based-positions" not in result.diagnoses, (text, result.diagnoses)
    numbers = exercise.grade(
        variant, {**exercise.solve(variant), "loss_positions": ", ".join(map(str, late))}
    )
    assert numbers.diagnoses == ["one-based-positions"]


def test_no_loss_position_at_all_shows_no_idea_about_the_fates():
    """three-masks and mlm-abcde share one rule (issue 25). "none" leaves every selected
    position out, [MASK] ones too: it says nothing about the random or kept token, so it
    names neither (it was "loss-omits-random" and capped at half). Leaving out exactly the
    positions that do not show [MASK] is the story."""
    for exercise_id in ("three-masks", "mlm-abcde"):
        exercise = get(exercise_id)
        for seed in range(30):
            variant = exercise.generate(seed)
            solution = exercise.solve(variant)
            nothing = exercise.grade(variant, {**solution, "loss_positions": "none"})
            assert not {"loss-omits-random", "loss-omits-kept"} & set(nothing.diagnoses), (exercise_id, seed)
            fates = dict(zip(variant.data["selected"], variant.data["fates"], strict=True))
            shown = sorted(i for i, fate in fates.items() if fate == "mask")
            if len(shown) < len(fates):
                only_mask = exercise.grade(
                    variant, {**solution, "loss_positions": ", ".join(map(str, shown))}
                )
                assert {"loss-omits-random", "loss-omits-kept"} & set(only_mask.diagnoses), (
                    exercise_id,
                    seed,
                )


@pytest.mark.parametrize(
    ("seed", "labels"),
    [
        (38, "-100 learn patterns from large text corpora 1"),  # the right row, a stray "1" after it
        (0, "-100 -100 -100 -100 -100 -100 guten Morgen 1"),
    ],
)
def test_prefix_lm_labels_a_stray_entry_is_no_layout(seed, labels):
    """The fingerprint found these read as the loss-side layout (shifted by one), one of them
    named prefix-loss-everywhere: a row whose labels are not the sequence's tokens at their
    places is unreadable."""
    result = _answer_with("prefix-lm-labels", seed, labels=labels)
    assert not result.parts["labels"].valid and result.diagnoses == []


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), joiner=st.sampled_from([" ", ", ", "，"]))
def test_clm_shift_an_answer_that_trains_the_model_to_copy_is_copying_in_any_layout(seed, joiner):
    """The model reads every token and each logit meets the label at its own position, the
    label being the token it reads: whatever layout the parts look like, the model would
    learn to copy. The 2 December walk answered the data-side variant 0 so (all 8 tokens,
    the same 8 as labels, t->t) and was told it used the other layout, which is right."""
    exercise = get("clm-shift")
    variant = exercise.generate(seed)
    tokens = variant.data["tokens"]
    copying = (tokens, tokens, [f"{t}-{t}" for t in range(len(tokens))])
    answer = dict(zip(("inputs", "labels", "pairs"), (joiner.join(part) for part in copying), strict=True))
    result = exercise.grade(variant, answer)
    assert result.valid and "labels-not-shifted" in result.diagnoses, (answer, result.diagnoses)
    assert "wrong-layout" not in result.diagnoses and result.score <= 0.5


def _combined_mistakes(exercise_id: str, seeds: range):
    """Every pair of the exercise's known mistakes that touch different parts, applied
    together to the engine's solution, with the seed and the two codes."""
    scripts = SCRIPTS[exercise_id]
    exercise = get(exercise_id)
    for seed in seeds:
        variant = exercise.generate(seed)
        solution = exercise.solve(variant)
        made = [(code, script(variant, solution)) for code, script in scripts]
        made = [(code, wrong) for code, wrong in made if wrong is not None]
        yield from ((seed, variant, (code, None), wrong) for code, wrong in made)
        for (code_a, a), (code_b, b) in itertools.combinations(made, 2):
            if not set(a) & set(b):
                yield seed, variant, (code_a, code_b), {**a, **b}


@pytest.mark.parametrize("exercise_id", sorted(SCRIPTS))
def test_every_known_mistake_alone_or_two_combined_names_a_misconception(exercise_id):
    """Issue 32: some wrong answers scored with no misconception named (two known mistakes
    combined; the positions after i where those before i were asked). The sweep makes every
    known mistake and every pair of them on different parts over 30 seeds: whatever loses
    marks names at least one misconception."""
    exercise = get(exercise_id)
    silent = []
    for seed, variant, codes, wrong in _combined_mistakes(exercise_id, range(30)):
        result = exercise.grade(variant, {**exercise.solve(variant), **wrong})
        if result.valid and not full_marks(result.score) and not result.diagnoses:
            silent.append((seed, codes, result.score))
    assert silent == [], silent[:5]
