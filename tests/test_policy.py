"""The practice rules (exercises/grading/policy.py), without any widget."""

from hypothesis import given
from hypothesis import strategies as st

from exercises.catalogue import get
from exercises.grading.policy import (
    HINT_POLICIES,
    Practice,
    hint_refusal,
    matrix_corrections,
    model_answer,
    reflection_step,
)


def graded(exercise_id: str, answer: dict[str, str], seed: int = 0):
    exercise = get(exercise_id)
    return exercise.grade(exercise.generate(seed), answer)


def test_hint_policies():
    assert [hint_refusal(policy, tried=False) for policy in HINT_POLICIES] == [
        None,
        "hints-locked",
        "hints-off",
    ]
    assert [hint_refusal(policy, tried=True) for policy in HINT_POLICIES] == [None, None, "hints-off"]


def test_hints_come_one_at_a_time_and_stop_at_the_last():
    practice = Practice()
    assert practice.next_hint("after-first-try", available=2) == "hints-locked" and practice.hints_shown == 0
    practice.graded(graded("visibility", {"visible": "?!"}))  # unreadable, but a try all the same
    for _ in range(3):
        assert practice.next_hint("after-first-try", available=2) is None
    assert practice.hints_shown == 2


def test_the_solution_comes_on_request_or_after_the_second_wrong_try():
    solution = get("clm-shift").solve(get("clm-shift").generate(0))
    wrong = graded("clm-shift", {**solution, "labels": solution["inputs"]})
    unreadable = graded("clm-shift", {name: "" for name in solution})
    assert wrong.valid and not wrong.correct and not unreadable.valid
    practice = Practice()
    practice.graded(wrong)
    assert not practice.shows_solution  # never at the first wrong try
    practice.graded(unreadable)
    assert not practice.shows_solution  # an unreadable try is not a wrong try
    practice.graded(wrong)
    assert practice.shows_solution
    asked = Practice(solution_asked=True)
    assert asked.shows_solution


@given(st.lists(st.sampled_from(["right", "wrong", "unreadable"]), max_size=8))
def test_the_solution_shows_exactly_from_the_second_wrong_try(tries):
    exercise = get("visibility")
    variant = exercise.generate(0)
    right = exercise.solve(variant)
    answers = {"right": right, "wrong": {"visible": "99"}, "unreadable": {"visible": "?!"}}
    practice = Practice()
    for number, kind in enumerate(tries, start=1):
        practice.graded(exercise.grade(variant, answers[kind]))
        assert practice.shows_solution == (tries[:number].count("wrong") >= 2)


def test_a_reflection_goes_write_compare_marked():
    exercise = get("reflect-clm-generation")
    assert reflection_step(exercise, {}) == "write"
    assert reflection_step(exercise, {"answer": "  "}) == "write"
    assert reflection_step(exercise, {"self_mark": "yes"}) == "write"  # no marking before writing
    assert reflection_step(exercise, {"answer": "the past only"}) == "compare"
    assert reflection_step(exercise, {"answer": "the past only", "self_mark": "no"}) == "marked"
    shown = model_answer(exercise, exercise.generate(0))
    assert shown["zh"].startswith("对照参考答案") and exercise.model_answer["zh"] in shown["zh"]
    assert model_answer(get("clm-shift"), get("clm-shift").generate(0)) is None


def test_matrix_corrections_name_each_wrong_cell_and_its_value():
    exercise = get("mask-matrix")
    variant = exercise.generate(0)
    solution = exercise.solve(variant)["matrix"]
    rows = [row.split() for row in solution.splitlines()]
    assert matrix_corrections(exercise, variant, "matrix", solution) == {}
    rows[2][2] = "1"  # block the diagonal: should be 0
    rows[0][3] = "0" if rows[0][3] == "1" else "1"
    flipped = "\n".join(" ".join(row) for row in rows)
    expected = {(2, 2): 0, (0, 3): int(solution.splitlines()[0].split()[3])}
    assert matrix_corrections(exercise, variant, "matrix", flipped) == expected
    assert matrix_corrections(exercise, variant, "matrix", "not a matrix") == {}


def test_parts_describe_how_they_are_answered():
    choice = get("concept-architecture")
    (part,) = choice.parts
    assert part.kind == "choice"
    options = choice.options(part, choice.generate(0))
    assert [option.value for option in options] == ["A", "B", "C"][: len(options)]
    assert all(option.key == option.value.lower() for option in options)
    reflection = get("reflect-mlm-fill")
    mark = next(part for part in reflection.parts if part.kind == "self-mark")
    assert [(o.value, o.key) for o in reflection.options(mark, reflection.generate(0))] == [
        ("yes", "y"),
        ("partly", "p"),
        ("no", "x"),
    ]
    for option in mark.options:  # each value reads back as the mark it stands for
        assert reflection.parse("self_mark", option.value, reflection.generate(0)).valid
    matrix = get("mask-matrix")
    assert matrix.parts[0].kind == "matrix" and matrix.matrix_size(matrix.generate(0)) == 4
    assert {part.kind for part in get("mlm-abcde").parts} == {"text"}


def test_the_answer_checked_last_is_a_repeat_spaces_aside_and_nothing_else():
    practice = Practice()
    assert not practice.repeats({"loss": "3.00"})  # nothing checked yet
    practice.graded(
        graded("perplexity", {"perplexity": "10000", "loss": "4"}), {"perplexity": "10000", "loss": "4"}
    )
    assert practice.repeats({"perplexity": " 10000", "loss": "4 "})
    assert not practice.repeats({"perplexity": "10000", "loss": "3.00"})
    assert not practice.repeats({"perplexity": "10000"})
    practice.graded(
        graded("perplexity", {"perplexity": "10000", "loss": "3.00"}), {"perplexity": "10000", "loss": "3.00"}
    )
    assert practice.repeats({"perplexity": "10000", "loss": "3.00"})
    assert not practice.repeats({"perplexity": "10000", "loss": "4"})  # only the last one
