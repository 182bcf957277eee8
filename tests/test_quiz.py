"""Quizzes: definitions, per-student variants, regrading, gradebook and report."""

import csv
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exercises.catalogue import get
from exercises.classroom.quiz import (
    Quiz,
    QuizFileError,
    dump_toml,
    grade_class,
    gradebook_csv,
    loads,
    new_quiz,
    questions_for,
    report_markdown,
    seed_for,
)
from tui.cli import main

QUIZ = Quiz("quiz-test", "Week 7", "fixed-salt", ("mlm-abcde", "clm-shift", "mask-matrix"), 20)


def submission(quiz: Quiz, student: str, answers: dict[int, dict[str, str]], **extra) -> dict:
    return {
        "quiz": quiz.id,
        "student": student,
        "answers": {str(index): parts for index, parts in answers.items()},
        "timeline": {},
        **extra,
    }


def right_answers(quiz: Quiz, student: str) -> dict[int, dict[str, str]]:
    answers = {}
    for question in questions_for(quiz, student):
        exercise = get(question.exercise)
        answers[question.index] = exercise.solve(exercise.generate(question.seed))
    return answers


def test_toml_round_trip_and_new_quizzes_differ():
    assert loads(dump_toml(QUIZ)) == QUIZ
    first, second = new_quiz("A", ["clm-shift"]), new_quiz("A", ["clm-shift"])
    assert first.salt != second.salt and first.id != second.id


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            'id = "q"\ntitle = "t"\nsalt = "s"\n[[questions]]\nexercise = "nope"\n',
            "line 5: unknown exercise 'nope'",
        ),
        ('id = "q"\ntitle = "t"\nsalt = "s"\n[[questions]]\nexercise = "reflect-mlm-fill"\n', "self-marked"),
        ('id = "q"\ntitle = \nsalt = "s"\n', "line 2"),
        ('id = "q"\ntitle = "t"\nsalt = "s"\n', "[[questions]]"),
        (
            'id = "q"\ntitle = "t"\nsalt = "s"\ntime_limit_minutes = 0\n[[questions]]\nexercise = "clm-shift"\n',
            "line 4",
        ),
        (
            'id = "q"\ntitle = "t"\nsalt = "s"\ntime_limt_minutes = 15\n[[questions]]\nexercise = "clm-shift"\n',
            "line 4: unknown key 'time_limt_minutes'",
        ),
        ('id = "q"\ntitle = "t"\nsalt = ""\n[[questions]]\nexercise = "clm-shift"\n', "line 3: 'salt'"),
        (
            'id = "q"\ntitle = "t"\nsalt = "s"\ntime_limit_minutes = 100000000\n[[questions]]\nexercise = "clm-shift"\n',
            "1 to 1440",
        ),
    ],
)
def test_malformed_quiz_files_name_the_problem_and_line(text, fragment):
    with pytest.raises(QuizFileError) as error:
        loads(text)
    assert fragment in str(error.value)


@settings(max_examples=200)
@given(st.text(min_size=1, max_size=20).filter(str.strip), st.text(min_size=1, max_size=20).filter(str.strip))
def test_variants_are_deterministic_per_student_and_differ_between_students(student, other):
    seeds = [seed_for(QUIZ, student, index) for index in range(3)]
    assert seeds == [seed_for(QUIZ, student, index) for index in range(3)]
    if student.strip() != other.strip():
        assert seeds != [seed_for(QUIZ, other, index) for index in range(3)]


def test_neighbours_in_a_class_of_40_get_different_variants():
    variants = {tuple(q.seed for q in questions_for(QUIZ, f"s{n:03d}")) for n in range(40)}
    assert len(variants) == 40


def test_round_trip_with_the_exact_gradebook_and_report(tmp_path):
    good = tmp_path / "ann.submission.json"
    good.write_text(json.dumps(submission(QUIZ, "ann", right_answers(QUIZ, "ann"))), encoding="utf-8")
    bob_questions = questions_for(QUIZ, "bob")
    bob_variant = get("mlm-abcde").generate(bob_questions[0].seed)
    random_positions = [
        i
        for i, f in zip(bob_variant.data["selected"], bob_variant.data["fates"], strict=True)
        if f != "random"
    ]
    classic = {
        0: {
            "input": " ".join(bob_variant.data["tokens"]),
            "loss_positions": ", ".join(map(str, random_positions)),
            "labels": "0: zzz",
        },
        2: {
            "matrix": "\n".join(
                " ".join(str(1 - c) for c in row)
                for row in get("mask-matrix").generate(bob_questions[2].seed).data["mask"]
            )
        },
    }
    bad = tmp_path / "bob.submission.json"
    bad.write_text(json.dumps(submission(QUIZ, "bob", classic, score=1.0, percent=100)), encoding="utf-8")
    result = grade_class(QUIZ, [good, bad])
    assert result.rejected == []
    ann, bob = sorted(result.grades, key=lambda g: g.student)
    assert ann.total == 3.0 and ann.percent == 100.0
    assert bob.questions[1].score == 0.0 and not bob.questions[1].valid  # unanswered
    assert bob.total < 1.5  # the forged score changed nothing
    rows = list(csv.reader(io.StringIO(gradebook_csv(QUIZ, result.grades))))
    assert rows[0] == ["student", "q1 mlm-abcde", "q2 clm-shift", "q3 mask-matrix", "total", "percent"]
    assert rows[1] == ["ann", "1.00", "1.00", "1.00", "3.00", "100.0"]
    assert rows[2][0] == "bob" and rows[2][2] == "0.00"
    report = report_markdown(QUIZ, result)
    assert "| 2 | clm-shift | 0.50 | 1/2 |" in report
    assert "**mask-inverted** × 1" in report and "(students: bob)" in report
    assert "Question 2 (clm-shift): 1/2" in report


def test_bad_files_are_rejected_one_by_one_and_the_rest_graded(tmp_path):
    files = {
        "ok.json": json.dumps(submission(QUIZ, "ann", right_answers(QUIZ, "ann"))),
        "again.json": json.dumps(submission(QUIZ, "ann", {})),
        "other.json": json.dumps({**submission(QUIZ, "cat", {}), "quiz": "quiz-other"}),
        "broken.json": "{not json",
        "shape.json": json.dumps({"quiz": QUIZ.id, "student": "dan", "answers": ["x"]}),
    }
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(tmp_path / name)
    result = grade_class(QUIZ, paths)
    assert [g.student for g in result.grades] == ["ann"]
    reasons = dict((path.rsplit("/", 1)[-1], why) for path, why in result.rejected)
    assert "already submitted" in reasons["again.json"]
    assert "quiz-other" in reasons["other.json"]
    assert (
        "not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2"
        in reasons["broken.json"]
    )
    assert "answers" in reasons["shape.json"]


def test_quiz_commands_end_to_end(tmp_path, capsys):
    quiz_file = tmp_path / "quiz.toml"
    assert (
        main(["quiz", "new", "--title", "Week 7", "--exercises", "mlm-abcde,clm-shift", "-o", str(quiz_file)])
        == 0
    )
    capsys.readouterr()
    assert main(["quiz", "key", str(quiz_file), "--student", "ann", "--json"]) == 0
    key = json.loads(capsys.readouterr().out)
    assert [q["index"] for q in key["questions"]] == [0, 1]
    answers = {str(q["index"]): q["solution"] for q in key["questions"]}
    from exercises.classroom.quiz import load

    quiz = load(quiz_file)
    sub = tmp_path / "ann.submission.json"
    sub.write_text(json.dumps({"quiz": quiz.id, "student": "ann", "answers": answers}), encoding="utf-8")
    broken = tmp_path / "x.json"
    broken.write_text("[]", encoding="utf-8")
    gradebook, report = tmp_path / "grades.csv", tmp_path / "report.md"
    status = main(
        [
            "quiz",
            "grade",
            str(quiz_file),
            str(sub),
            str(broken),
            "--csv",
            str(gradebook),
            "--report",
            str(report),
        ]
    )
    captured = capsys.readouterr()
    assert status == 1  # one file was rejected
    assert "rejected" in captured.err and "x.json" in captured.err
    assert gradebook.read_text().splitlines()[1] == "ann,1.00,1.00,2.00,100.0"
    assert report.read_text().startswith("# Week 7")


def test_quiz_new_refuses_to_overwrite(tmp_path):
    target = tmp_path / "quiz.toml"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["quiz", "new", "--title", "T", "--exercises", "clm-shift", "-o", str(target)])
    assert exit_info.value.code == 2 and target.read_text() == "keep me"
