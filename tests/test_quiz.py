"""Quizzes from files: definitions, identity, signatures, clocks, integrity, safe
output, the report, and grading that never aborts. Every attack in issue 12 is a
test here (or in test_exam.py for the screen)."""

import ast
import csv
import io
import json
import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from exercises.catalogue import EXERCISES as ALL_EXERCISES
from exercises.catalogue import get
from exercises.classroom.exam import ExamError, ExamSession
from exercises.classroom.grading import grade_class
from exercises.classroom.identity import (
    QUIZ_PIN_BODY,
    Student,
    decode_roster,
    file_stem,
    load_teacher_file,
    lock_quiz,
    new_pin,
    normalise_pin,
    pin_matches_id,
    read_roster,
    sign,
)
from exercises.classroom.quiz import (
    Quiz,
    QuizFileError,
    dump_toml,
    loads,
    new_quiz,
    questions_for,
    seed_for,
    variant_fingerprint,
)
from exercises.classroom.report import discrimination, gradebook_csv, report_markdown
from exercises.classroom.safe import csv_cell, markdown, plain
from exercises.classroom.submission import SubmissionError, read_json
from tui.cli import main

# One worker runs this file: its module-scoped set-up is made once (see the Makefile).
pytestmark = pytest.mark.xdist_group("test_quiz")

QUIZ = Quiz("quiz-test", "Week 7", "fixed-salt", ("mlm-abcde", "clm-shift", "mask-matrix"), 20)
NOW = 1_800_000_000.0


def solution(quiz: Quiz, student: str, index: int) -> dict[str, str]:
    question = questions_for(quiz, student)[index]
    exercise = get(question.exercise)
    return exercise.solve(exercise.generate(question.seed))


def payload(quiz: Quiz, student: str, answers: dict[int, dict[str, str]], key=None, **extra) -> dict:
    """A submission as the exam writes it (format 2), signed when a student's key is given."""
    questions = questions_for(quiz, student)
    data = {
        "kind": "submission",
        "format": 2,
        "quiz": quiz.id,
        "quiz_hash": quiz.question_hash,
        "student": student,
        "answers": {
            str(i): {
                "exercise": questions[i].exercise,
                "seed": questions[i].seed,
                "variant": variant_fingerprint(get(questions[i].exercise).generate(questions[i].seed)),
                "parts": parts,
            }
            for i, parts in answers.items()
        },
        "timeline": {},
        "started_at": NOW - 600,
        "submitted_at": NOW - 60,
        "signature": None,
        **extra,
    }
    if key is not None:
        data["signature"] = sign(data, key)
    return data


def right(quiz: Quiz, student: str) -> dict[int, dict[str, str]]:
    return {i: solution(quiz, student, i) for i in range(len(quiz.exercises))}


def write(folder: Path, name: str, data) -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


# -- the quiz file ---------------------------------------------------------------


def test_toml_round_trip_and_new_quizzes_differ():
    assert loads(dump_toml(QUIZ)) == QUIZ
    full = replace(
        QUIZ,
        points=(2.0, 1.0, 0.5),
        max_points=3.0,
        opens_at=NOW,
        closes_at=NOW + 3600,
        results="after-release",
    )
    assert loads(dump_toml(full)) == full
    first, second = new_quiz("A", ["clm-shift"]), new_quiz("A", ["clm-shift"])
    assert first.salt != second.salt and first.id != second.id and first.created_at is not None


def test_a_bom_or_crlf_quiz_file_loads():
    text = dump_toml(QUIZ)
    assert loads("\ufeff" + text) == QUIZ
    assert loads(text.replace("\n", "\r\n")) == QUIZ
    assert loads("\ufeff" + text.replace("\n", "\r\n")) == QUIZ


HEAD = '# a title = "comment" and time_limit_minutes = 5 in a comment\nid = "q"\ntitle = "t"\nsalt = "s"\n'


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (HEAD + '[[questions]]\nexercise = "nope"\n', "line 6: unknown exercise 'nope'"),
        (
            HEAD + '[[questions]]\nexercise = "clm-shift"\n[[questions]]\nexercise = "mlm"\n',
            "line 8: unknown",
        ),
        (HEAD + '[[questions]]\nexercise = "reflect-mlm-fill"\n', "line 6: reflect-mlm-fill is self-marked"),
        ('# title = "x"\nid = "q"\ntitle = \nsalt = "s"\n', "line 3, column"),
        (HEAD, "[[questions]]"),
        (HEAD + 'time_limit_minutes = 0\n[[questions]]\nexercise = "clm-shift"\n', "line 5: the time limit"),
        (HEAD + 'time_limt_minutes = 15\n[[questions]]\nexercise = "clm-shift"\n', "line 5: unknown key"),
        (
            '# salt = "x"\nid = "q"\ntitle = "t"\nsalt = ""\n[[questions]]\nexercise = "clm-shift"\n',
            "line 4: 'salt'",
        ),
        (HEAD + 'time_limit_minutes = 100000000\n[[questions]]\nexercise = "clm-shift"\n', "1 to 1440"),
        (HEAD + '[[questions]]\nexercise = "clm-shift"\npoints = -1\n', "line 7: points"),
        (HEAD + '[[questions]]\nexercise = "clm-shift"\nweight = 2\n', "line 7: unknown key 'weight'"),
        (
            HEAD + 'opens_at = 2026-12-01T09:00:00\n[[questions]]\nexercise = "clm-shift"\n',
            "line 5: opens_at",
        ),
        (
            HEAD
            + "opens_at = 2026-12-01T09:00:00Z\ncloses_at = 2026-12-01T08:00:00Z\n"
            + '[[questions]]\nexercise = "clm-shift"\n',
            "line 6: closes_at must come after",
        ),
        (HEAD + 'results = "never"\n[[questions]]\nexercise = "clm-shift"\n', "line 5: results"),
        (
            'id = "q"\ntitle = "Week\\u001b[2J 7"\nsalt = "s"\n[[questions]]\nexercise = "clm-shift"\n',
            "line 2: 'title' holds",
        ),
    ],
)
def test_malformed_quiz_files_name_the_problem_and_line(text, fragment):
    with pytest.raises(QuizFileError) as error:
        loads(text)
    assert fragment in str(error.value)
    assert error.value.text["zh"] and error.value.text["zh"] != error.value.text["en"]  # zh too


@pytest.mark.parametrize("limit", ["0", "1441", "100000", "2.5", "-3", "ten", "1e3"])
def test_quiz_new_time_limit_refuses_what_the_quiz_file_refuses(tmp_path, limit, capsys):
    target = tmp_path / "quiz.toml"
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "quiz",
                "new",
                "--title",
                "T",
                "--exercises",
                "clm-shift",
                "--time-limit",
                limit,
                "-o",
                str(target),
            ]
        )
    assert exit_info.value.code == 2 and not target.exists()
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(("limit", "minutes"), [("1", 1), ("1440", 1440), ("３０", 30), (" 45 ", 45)])
def test_quiz_new_time_limit_accepts_what_take_accepts(tmp_path, limit, minutes, capsys):
    target = tmp_path / "quiz.toml"
    argv = [
        "quiz",
        "new",
        "--title",
        "T",
        "--exercises",
        "clm-shift",
        "--time-limit",
        limit,
        "-o",
        str(target),
    ]
    assert main(argv) == 0
    assert loads(target.read_text(encoding="utf-8")).time_limit_minutes == minutes


# -- identity --------------------------------------------------------------------


def test_variants_are_exact_per_id_and_neighbours_differ():
    variants = {tuple(q.seed for q in questions_for(QUIZ, f"s{n:03d}")) for n in range(40)}
    assert len(variants) == 40
    ids = ["Bob", "bob", "bob ", "li ming", "li_ming", "李明", "李 明"]
    assert len({tuple(seed_for(QUIZ, i, k) for k in range(3)) for i in ids}) == len(ids)


@settings(max_examples=300)
@given(st.text(min_size=1, max_size=30), st.text(min_size=1, max_size=30))
def test_two_ids_never_share_a_file_even_on_a_case_blind_file_system(first, second):
    if first != second:
        assert file_stem(first).lower() != file_stem(second).lower()
    assert re.fullmatch(r"[a-z0-9-]+-[0-9a-f]{10}", file_stem(first))


def test_sessions_of_look_alike_ids_keep_their_own_files(tmp_path):
    sessions = [
        ExamSession.open(QUIZ, student, tmp_path, now=NOW) for student in ("Bob", "bob", "li ming", "li_ming")
    ]
    for number, session in enumerate(sessions):
        session.set_answer(1, "inputs", f"answer {number}")
    for number, session in enumerate(sessions):
        saved = json.loads(session.autosave_path.read_text(encoding="utf-8"))
        assert (
            saved["student"] == session.student
            and saved["answers"]["1"]["parts"]["inputs"] == f"answer {number}"
        )
        session.close()
    assert len(list(tmp_path.glob("*.autosave.json"))) == 4


def test_pins_catch_typos_and_read_what_people_type():
    pin = new_pin("ann")
    assert pin_matches_id("ann", pin) and pin_matches_id("ann", pin.lower().replace("-", " "))
    full_width = "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in pin)
    assert normalise_pin(full_width) == pin.replace("-", "")
    others = sum(pin_matches_id(f"student{n}", pin) for n in range(400))
    assert others < 40  # about 1 in 32 by chance: the check character is tied to the id


def test_roster_reading():
    students = read_roster("\ufeffid,name\ns1,Ann\n\n  s2 , 李明 \n")
    assert [(s.id, s.name) for s in students] == [("s1", "Ann"), ("s2", "李明")]
    assert all(pin_matches_id(s.id, s.pin) for s in students)
    with pytest.raises(ValueError, match="line 3: student id 's1' is already on line 2"):
        read_roster("id,name\ns1,Ann\ns1,Bob\n")
    with pytest.raises(ValueError, match="no students"):
        read_roster("id,name\n")
    for sheet in ("学号;姓名\ns1;Ann\ns2;李明\n", "s1\tAnn\ns2\t李明\n", "s1，Ann\ns2，李明\n"):
        assert [(s.id, s.name) for s in read_roster(sheet)] == [("s1", "Ann"), ("s2", "李明")]
    assert decode_roster("学号,姓名\ns2,李明\n".encode("gb18030")) == "学号,姓名\ns2,李明\n"
    assert decode_roster("\ufeffs1,Ann".encode()) == "s1,Ann"


def test_quiz_new_with_a_roster_keeps_pins_out_of_the_handout(tmp_path, capsys):
    roster = write(tmp_path, "roster.csv", "id,name\ns1,Ann\ns2,Bob\n")
    handout = tmp_path / "quiz.toml"
    argv = [
        "quiz",
        "new",
        "--title",
        "W",
        "--exercises",
        "clm-shift",
        "--roster",
        str(roster),
        "-o",
        str(handout),
    ]
    assert main(argv) == 0
    teacher = tmp_path / "quiz.teacher.toml"
    quiz = loads(handout.read_text(encoding="utf-8"))
    students = load_teacher_file(teacher, quiz).students
    assert quiz.signed and [s.id for s in students] == ["s1", "s2"]
    text = handout.read_text(encoding="utf-8")
    assert all(s.pin not in text and s.pin.replace("-", "") not in text for s in students)
    assert oct(teacher.stat().st_mode & 0o777) == "0o600"


# -- grading never aborts ------------------------------------------------------------

BAD = {
    "superscript key": lambda q: {**payload(q, "x1", {}), "answers": {"²": {"inputs": "a"}}},
    "circled key": lambda q: {**payload(q, "x2", {}), "answers": {"①": {"inputs": "a"}}},
    "5000-digit key": lambda q: {**payload(q, "x3", {}), "answers": {"9" * 5000: {"inputs": "a"}}},
    "parts a list": lambda q: {**payload(q, "x4", {}), "answers": {"0": ["a"]}},
    "part not text": lambda q: {**payload(q, "x5", {}), "answers": {"0": {"inputs": 5}}},
    "seed text": lambda q: {
        **payload(q, "x6", {}),
        "answers": {"1": {"exercise": "clm-shift", "seed": "1", "parts": {}}},
    },
    "started text": lambda q: payload(q, "x7", {}, started_at="yesterday"),
    "student number": lambda q: {**payload(q, "x8", {}), "student": 8},
    "timeline junk": lambda q: payload(q, "x9", {}, timeline={"0": [{"at": "now"}]}),
    "top list": lambda q: [1, 2],
    "infinite": lambda q: payload(q, "x10", {}, started_at=float("inf")),
}


def test_every_bad_form_is_one_rejected_file_and_the_rest_are_graded(tmp_path):
    paths = [write(tmp_path, "good.json", payload(QUIZ, "ann", right(QUIZ, "ann")))]
    for number, (_name, make) in enumerate(BAD.items()):
        paths.append(write(tmp_path, f"bad{number}.json", make(QUIZ)))
    paths.append(write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000))
    paths.append(write(tmp_path, "digits.json", '{"quiz": ' + "1" * 5000 + "}"))
    huge = tmp_path / "huge.json"
    huge.write_text('{"pad": "' + "x" * 3_000_000 + '"}', encoding="utf-8")
    paths += [huge, tmp_path / "missing.json", write(tmp_path, "latin1.json", "")]
    (tmp_path / "latin1.json").write_bytes('{"student": "Jos\xe9"}'.encode("latin-1"))
    result = grade_class(QUIZ, paths, now=NOW)
    assert [g.student for g in result.graded] == ["ann"] and result.graded[0].percent == 100.0
    assert len(result.rejected) == len(paths) - 1
    reasons = dict(result.rejected)
    assert "not a question number" in reasons[str(tmp_path / "bad0.json")]
    assert "larger than 2 MB" in reasons[str(huge)]
    assert "nesting too deep" in reasons[str(tmp_path / "deep.json")]
    assert all(zh for _, text in result.rejected_text for zh in [text["zh"]])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=20,
    ),
    st.sampled_from(["answers", "timeline", "student", "started_at", "quiz", None]),
)
def test_grade_never_aborts_on_arbitrary_json(tmp_path, junk, field):
    base = payload(QUIZ, "ann", right(QUIZ, "ann"))
    data = junk if field is None else {**base, field: junk}
    paths = [
        write(tmp_path, "ok.json", payload(QUIZ, "bob", right(QUIZ, "bob"))),
        write(tmp_path, "junk.json", data),
    ]
    result = grade_class(QUIZ, paths, now=NOW)
    assert "bob" in [g.student for g in result.graded]
    assert len(result.graded) + len(result.rejected) == 2


def test_quiz_grade_writes_the_gradebook_and_exits_1_when_a_file_was_rejected(tmp_path, capsys):
    quiz_file = write(tmp_path, "quiz.toml", dump_toml(QUIZ))
    good = write(tmp_path, "ann.json", payload(QUIZ, "ann", right(QUIZ, "ann")))
    bad = write(tmp_path, "bad.json", {**payload(QUIZ, "x", {}), "answers": {"²": {}}})
    autosave = write(
        tmp_path, "cat-0.quiz-test.autosave.json", {**payload(QUIZ, "cat", {}), "kind": "autosave"}
    )
    book = tmp_path / "grades.csv"
    status = main(["quiz", "grade", str(quiz_file), str(good), str(bad), str(autosave), "--csv", str(book)])
    err = capsys.readouterr().err
    assert status == 1 and "rejected" in err and "bad.json" in err and "skipped" in err and "autosave" in err
    assert rows_of(book.read_text(encoding="utf-8"))[1][:5] == ["ann", "", "3", "3", "100.0"]
    assert main(["quiz", "grade", str(quiz_file), str(good), "--lang", "zh"]) == 0


def test_a_folder_is_its_json_files(tmp_path, capsys):
    quiz_file = write(tmp_path, "quiz.toml", dump_toml(QUIZ))
    folder = tmp_path / "in"
    folder.mkdir()
    write(folder, "a.json", payload(QUIZ, "ann", right(QUIZ, "ann")))
    write(folder, "notes.txt", "hello")
    assert main(["quiz", "grade", str(quiz_file), str(folder), "--csv", str(tmp_path / "g.csv")]) == 0
    assert len(rows_of((tmp_path / "g.csv").read_text(encoding="utf-8"))) == 2


# -- roster, signatures, conflicts -------------------------------------------------------

SIGNED_QUIZ, ROSTER = lock_quiz(
    QUIZ,
    [
        Student(s, name, new_pin(s, QUIZ_PIN_BODY))
        for s, name in (("s1", "Ann"), ("s2", "Bob"), ("s3", "Cat"))
    ],
)


def test_a_student_cannot_submit_as_someone_else(tmp_path):
    ann, bob = ROSTER[0], ROSTER[1]
    real = write(tmp_path, "ann.json", payload(QUIZ, "s1", {1: {"inputs": "x"}}, key=ann.key))
    forged = write(tmp_path, "forged.json", payload(QUIZ, "s1", right(QUIZ, "s1"), key=bob.key))  # Bob's key
    unsigned = write(tmp_path, "unsigned.json", payload(QUIZ, "s1", right(QUIZ, "s1")))
    edited_data = payload(QUIZ, "s2", {1: {"inputs": "x"}}, key=bob.key)
    edited_data["answers"] = {"0": edited_data["answers"].get("0", {})} | payload(
        QUIZ, "s2", right(QUIZ, "s2")
    )["answers"]
    edited = write(tmp_path, "edited.json", edited_data)  # answers changed after signing
    stranger = write(tmp_path, "stranger.json", payload(QUIZ, "s9", {}, key="ab" * 32))
    result = grade_class(QUIZ, [real, forged, unsigned, edited, stranger], ROSTER, now=NOW)
    reasons = {Path(path).name: why for path, why in result.rejected}
    assert set(reasons) == {"forged.json", "unsigned.json", "edited.json", "stranger.json"}
    assert "signature does not match s1's PIN" in reasons["forged.json"]
    assert "not on the roster" in reasons["stranger.json"]
    rows = {g.student: g for g in result.grades}
    assert rows["s1"].status == "submitted" and rows["s1"].percent < 100  # the real file, not the forgery
    assert rows["s2"].status == "rejected" and "signature" in rows["s2"].why["en"]  # its only file failed
    assert rows["s3"].status == "did not submit"
    assert [g.student for g in result.grades] == ["s1", "s2", "s3"]  # every roster student, in roster order


def test_two_different_submissions_for_one_student_are_a_conflict(tmp_path):
    ann = ROSTER[0]
    one = write(tmp_path, "one.json", payload(QUIZ, "s1", {1: {"inputs": "x"}}, key=ann.key))
    two = write(tmp_path, "two.json", payload(QUIZ, "s1", right(QUIZ, "s1"), key=ann.key))
    copy = write(tmp_path, "copy.json", json.loads(two.read_text(encoding="utf-8")))
    result = grade_class(QUIZ, [one, two, copy], ROSTER, now=NOW)
    assert result.conflicts == [("s1", (str(one), str(two), str(copy)))]
    row = rows_of(gradebook_csv(QUIZ, result.grades))[1]
    assert row[:6] == ["s1", "Ann", "", "3", "", "conflict"] and str(one) in row[-2]
    assert "one.json" in report_markdown(QUIZ, result)
    same = grade_class(QUIZ, [two, copy], ROSTER, now=NOW)  # the same file twice is no conflict
    assert same.conflicts == [] and same.grades[0].percent == 100.0


def test_without_a_roster_duplicates_are_conflicts_too(tmp_path):
    one = write(tmp_path, "one.json", payload(QUIZ, "ann", {}))
    two = write(tmp_path, "two.json", payload(QUIZ, "ann", right(QUIZ, "ann")))
    result = grade_class(QUIZ, [one, two], now=NOW)
    assert result.conflicts and result.graded == []


# -- time ------------------------------------------------------------------------------


def test_lateness_and_the_window_are_flagged_with_the_teachers_grace(tmp_path):
    quiz = replace(QUIZ, opens_at=NOW - 3600, closes_at=NOW, created_at=NOW - 7200)  # 20-minute limit
    cases = {
        "ontime": (NOW - 1500, NOW - 400),  # 18 minutes 20
        "late": (NOW - 1500, NOW - 200),  # 21 minutes 40: late with 1 minute of grace, not with 2
        "early": (NOW - 4000, NOW - 3500),
        "after": (NOW - 600, NOW + 300),
        "backwards": (NOW - 100, NOW - 900),
    }
    paths = [
        write(tmp_path, f"{s}.json", payload(quiz, s, {}, started_at=a, submitted_at=b))
        for s, (a, b) in cases.items()
    ]
    paths.append(write(tmp_path, "none.json", payload(quiz, "none", {}, started_at=None)))
    flags = {g.student: g.flags for g in grade_class(quiz, paths, grace_minutes=1, now=NOW + 400).grades}
    assert flags == {
        "ontime": (),
        "late": ("late",),
        "early": ("before-open",),
        "after": ("after-close",),
        "backwards": ("clock-implausible",),
        "none": ("no-times",),
    }
    generous = {g.student: g.flags for g in grade_class(quiz, paths, grace_minutes=2, now=NOW + 400).grades}
    assert generous["late"] == ()
    result = grade_class(quiz, paths, grace_minutes=1, now=NOW + 400)
    assert "**late** × 1" in report_markdown(quiz, result)
    assert {row[0]: row[6] for row in rows_of(gradebook_csv(quiz, result.grades))[1:]}["late"] == "late"


def test_the_clock_starts_when_the_quiz_opens_and_is_saved_then(tmp_path):
    session = ExamSession.open(QUIZ, "ann", tmp_path, now=NOW)
    saved = json.loads(session.autosave_path.read_text(encoding="utf-8"))
    assert saved["started_at"] == NOW and saved["kind"] == "autosave"
    session.close()
    again = ExamSession.open(QUIZ, "ann", tmp_path, now=NOW + 500)
    assert again.started_at == NOW and again.seconds_left(NOW + 500) == 20 * 60 - 500
    again.close()


@pytest.mark.parametrize(
    "started",
    [None, "noon", [], {"t": 1}, True, NOW + 10 * 86400, 5.0, -1e300],
    ids=["null", "text", "list", "object", "bool", "future", "before-quiz", "huge-negative"],
)
def test_implausible_autosave_times_keep_answers_and_count_from_the_first_plausible_time(tmp_path, started):
    quiz = replace(QUIZ, created_at=NOW - 86400)
    session = ExamSession.open(quiz, "ann", tmp_path, now=NOW - 300)
    session.answers = {1: {"inputs": "a b"}}
    session.timeline = {
        "1": [
            {"at": NOW - 250, "part": "inputs", "length": 3},
            {"at": NOW - 200, "part": "inputs", "length": 3},
        ]
    }
    session._autosave()
    session.close()
    data = json.loads(session.autosave_path.read_text(encoding="utf-8"))
    data["started_at"] = started
    write(tmp_path, session.autosave_path.name, data)
    again = ExamSession.open(quiz, "ann", tmp_path, now=NOW)
    assert again.answers == {1: {"inputs": "a b"}}
    assert again.started_at == NOW - 250  # the first plausible time on record, not now
    assert again.notice and list(tmp_path.glob("*.autosave.json.*.bad"))
    again.close()


@pytest.mark.parametrize("content", ["[]", "null", '"text"', "{half", '{"quiz": 5}', "[" * 50_000])
def test_an_autosave_of_the_wrong_shape_is_kept_aside_and_never_crashes(tmp_path, content):
    session = ExamSession.open(QUIZ, "eve", tmp_path, now=NOW)
    session.close()
    session.autosave_path.write_text(content, encoding="utf-8")
    os.utime(session.autosave_path, (NOW - 100, NOW - 100))
    again = ExamSession.open(QUIZ, "eve", tmp_path, now=NOW)
    assert again.answers == {} and again.notice and "kept as" in again.notice["en"] and again.notice["zh"]
    assert again.started_at == NOW - 100  # counted from the file's time, not restarted now
    bad = list(tmp_path.glob("*.autosave.json.*.bad"))
    assert len(bad) == 1 and bad[0].read_text(encoding="utf-8") == content  # kept, not overwritten
    again.close()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=15,
    ),
    st.sampled_from(["answers", "timeline", "started_at", "submitted_at", "student", None]),
)
def test_opening_never_crashes_on_an_arbitrary_autosave(tmp_path, junk, field):
    folder = tmp_path / str(time.perf_counter_ns())
    session = ExamSession.open(QUIZ, "fuzz", folder, now=NOW)
    session.set_answer(0, "inputs", "A B")
    session.close()
    base = json.loads(session.autosave_path.read_text(encoding="utf-8"))
    write(folder, session.autosave_path.name, junk if field is None else {**base, field: junk})
    again = ExamSession.open(QUIZ, "fuzz", folder, now=NOW)
    assert isinstance(again.started_at, float) and again.started_at <= NOW
    assert all(isinstance(k, int) for k in again.answers)
    again.close()


def test_the_quiz_window_is_kept_by_take(tmp_path):
    later = replace(QUIZ, opens_at=NOW + 3600)
    with pytest.raises(ExamError, match="opens at"):
        ExamSession.open(later, "ann", tmp_path, now=NOW)
    closed = replace(QUIZ, closes_at=NOW - 1)
    with pytest.raises(ExamError, match="closed at"):
        ExamSession.open(closed, "ann", tmp_path, now=NOW)
    ending = replace(QUIZ, closes_at=NOW + 300)  # 20-minute limit, but the quiz closes in 5
    session = ExamSession.open(ending, "ann", tmp_path, now=NOW)
    assert session.deadline() == NOW + 300
    session.close()


# -- one window, one submission ------------------------------------------------------------


def test_one_quiz_open_twice_is_refused(tmp_path):
    first = ExamSession.open(QUIZ, "ann", tmp_path, now=NOW)
    with pytest.raises(ExamError, match="open in another window") as error:
        ExamSession.open(QUIZ, "ann", tmp_path, now=NOW)
    assert "另一个窗口" in error.value.text["zh"]
    other = ExamSession.open(QUIZ, "bob", tmp_path, now=NOW)  # another student is fine
    first.close()
    ExamSession.open(QUIZ, "ann", tmp_path, now=NOW).close()
    other.close()


def test_a_submitted_quiz_cannot_be_reopened_and_resubmitted(tmp_path):
    session = ExamSession.open(QUIZ, "ann", tmp_path, now=NOW)
    session.set_answer(1, "inputs", "first")
    path = session.submit()
    handed_in, written = path.read_bytes(), path.stat().st_mtime_ns
    session.close()
    time.sleep(0.01)
    again = ExamSession.open(QUIZ, "ann", tmp_path, now=NOW + 60)
    assert again.submitted_at is not None
    again.set_answer(1, "inputs", "second")
    again.submit()
    assert path.read_bytes() == handed_in and again.answers[1]["inputs"] == "first"
    assert path.stat().st_mtime_ns == written  # not even rewritten
    again.close()
    session.autosave_path.unlink()  # deleting the autosave does not reopen it either
    third = ExamSession.open(QUIZ, "ann", tmp_path, now=NOW + 120)
    assert third.submitted_at is not None and third.answers == {1: {"inputs": "first"}}
    third.close()


def _wrong_pins_that_pass_the_check_character(student: str, pin: str, count: int) -> list[str]:
    """PINs of the right length, not ``pin``, whose check character fits ``student``: the
    1 in 32 that a check character alone lets through."""
    from exercises.classroom.identity import PIN_ALPHABET

    right = normalise_pin(pin)
    found = []
    for number in range(100_000):
        body = "".join(PIN_ALPHABET[(number * 7 + i * 13) % 32] for i in range(len(right) - 1))
        for check in PIN_ALPHABET:
            if body + check != right and pin_matches_id(student, body + check):
                found.append(body + check)
        if len(found) >= count:
            return found
    raise AssertionError("no such PIN found")


def test_a_wrong_pin_is_refused_before_the_quiz_starts_every_time(tmp_path):
    """The check character let 1 wrong PIN in 32 through; the handout's scrypt check lets none."""
    ann = ROSTER[0]
    wrong = _wrong_pins_that_pass_the_check_character("s1", ann.pin, 6)
    for pin in [*wrong, ROSTER[1].pin, "", "ABCD"]:
        with pytest.raises(ExamError) as error:
            ExamSession.open(SIGNED_QUIZ, "s1", tmp_path, pin=pin, now=NOW)
        assert "PIN" in error.value.text["en"] and "PIN" in error.value.text["zh"]
    assert list(tmp_path.iterdir()) == []  # no clock started, no autosave, no lock left
    with pytest.raises(ExamError, match="not on this quiz's roster"):
        ExamSession.open(SIGNED_QUIZ, "s9", tmp_path, pin=ann.pin, now=NOW)
    typed = ann.pin.lower().replace("-", " ")  # as people type it
    session = ExamSession.open(SIGNED_QUIZ, "s1", tmp_path, pin=typed, now=NOW)
    session.set_answer(1, "inputs", "x")
    path = session.submit()
    session.close()
    assert grade_class(SIGNED_QUIZ, [path], ROSTER, now=NOW + 60).grades[0].status == "submitted"


def test_the_handout_checks_pins_without_holding_them(tmp_path, monkeypatch):
    """The handout has a slow salted hash per student, keyed by a hash of the id: no PIN, no
    key, no roster; a check asking for absurd work, or garbage, opens nothing and runs no
    scrypt at all (a handout is the student's to edit: it must not make quiz take hog memory)."""
    import exercises.classroom.identity as identity
    from exercises.classroom.identity import MAX_SCRYPT_N, pin_slot, unlock_pin

    text = dump_toml(SIGNED_QUIZ)
    assert loads(text) == SIGNED_QUIZ
    for student in ROSTER:
        assert normalise_pin(student.pin) not in text.replace("-", "") and student.key not in text
        assert f'"{student.id}"' not in text and pin_slot(SIGNED_QUIZ, student.id) in text
    check = dict(SIGNED_QUIZ.pins)[pin_slot(SIGNED_QUIZ, "s1")]
    assert check.startswith("scrypt$8192$8$") and unlock_pin(check, ROSTER[0].pin) == ROSTER[0].key
    _kind, n, r, salt, verifier = check.split("$")
    for forged in (
        f"scrypt${MAX_SCRYPT_N * 2}${r}${salt}${verifier}",  # a handout asking for gigabytes
        f"scrypt$1000${r}${salt}${verifier}",  # not a power of two
        f"bcrypt${n}${r}${salt}${verifier}",
        "scrypt$$$$",
        "x" * 300,
    ):
        monkeypatch.setattr(
            identity, "_scrypt", lambda *work, forged=forged: pytest.fail(f"scrypt run for {forged[:30]!r}")
        )
        assert unlock_pin(forged, ROSTER[0].pin) is None


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80))
def test_unlocking_never_raises_on_any_check_or_pin(text):
    from exercises.classroom.identity import unlock_pin

    assert unlock_pin(text, text) is None or len(unlock_pin(text, text)) == 64
    assert unlock_pin(dict(SIGNED_QUIZ.pins)[next(iter(dict(SIGNED_QUIZ.pins)))], text) in (
        None,
        *(s.key for s in ROSTER),
    )


# -- integrity of the questions ---------------------------------------------------------------


def test_an_edited_quiz_is_detected_and_answers_meet_the_questions_the_student_saw(tmp_path):
    answers = right(QUIZ, "ann")
    path = write(tmp_path, "ann.json", payload(QUIZ, "ann", answers))
    grown = replace(QUIZ, exercises=(*QUIZ.exercises, "visibility"))  # a question added after hand-out
    grade = grade_class(grown, [path], now=NOW).grades[0]
    assert grade.flags == ("quiz-edited",) and [q.score for q in grade.questions] == [1.0, 1.0, 1.0, 0.0]
    swapped = replace(QUIZ, exercises=("mlm-abcde", "span-corruption", "mask-matrix"))
    result = grade_class(swapped, [path], now=NOW)
    assert result.graded == [] and "question 2 as the student saw it (clm-shift" in result.rejected[0][1]
    assert "edited after hand-out" in result.rejected[0][1]


def test_a_question_that_changed_since_the_student_saw_it_is_detected(tmp_path):
    data = payload(QUIZ, "ann", right(QUIZ, "ann"), app_version="0.3.0")
    data["answers"]["1"]["variant"] = "0" * 16  # as if clm-shift's generator had changed since
    result = grade_class(QUIZ, [write(tmp_path, "ann.json", data)], now=NOW)
    why = result.rejected[0][1]
    assert "question 2 (clm-shift) is no longer the one the student saw" in why and "0.3.0" in why
    assert result.graded == []


def test_an_answer_claiming_another_variant_is_rejected(tmp_path):
    data = payload(QUIZ, "ann", right(QUIZ, "ann"))
    data["answers"]["1"]["seed"] = 7  # a variant whose answer the student happens to know
    result = grade_class(QUIZ, [write(tmp_path, "ann.json", data)], now=NOW)
    assert "claims clm-shift seed 7" in result.rejected[0][1]


def test_the_quiz_hash_covers_what_decides_the_questions():
    assert replace(QUIZ, title="Other", time_limit_minutes=5).question_hash == QUIZ.question_hash
    assert replace(QUIZ, salt="x").question_hash != QUIZ.question_hash
    assert replace(QUIZ, exercises=QUIZ.exercises[::-1]).question_hash != QUIZ.question_hash


# -- safe output ---------------------------------------------------------------------------------

NASTY = [
    '=HYPERLINK("http://x","y")',
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "\t=1",
    "\r=1",
    "Ann\x1b[2J\x1b]0;owned\x07",
    "<script>alert(1)</script>",
    "**bold** | pipe",
    "rtl\u202egnp.exe",
]


@pytest.mark.parametrize("text", NASTY)
def test_the_sinks_neutralise_what_a_student_writes(text):
    assert not csv_cell(text).startswith(("=", "+", "-", "@", "\t", "\r"))
    shown = plain(text)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown and "\r" not in shown
    escaped = markdown(text)
    assert (
        "<script" not in escaped
        and "**" not in escaped
        and "\x1b" not in escaped
        and re.search(r"(?<!\\)\|", escaped) is None
    )


def test_names_reach_no_formula_html_or_escape_sequence(tmp_path, capsys):
    _, roster = lock_quiz(
        QUIZ,
        [Student(text, text, new_pin(text)) for text in ("=cmd|' /C calc'!A0", "Eve\x1b[31m", "<b>Mal</b>")],
    )
    paths = [write(tmp_path, f"{n}.json", payload(QUIZ, s.id, {}, key=s.key)) for n, s in enumerate(roster)]
    result = grade_class(QUIZ, paths, roster, now=NOW)
    book = gradebook_csv(QUIZ, result.grades)
    for row in rows_of(book)[1:]:
        assert all(not cell.startswith(("=", "+", "-", "@")) for cell in row)
        assert "\x1b" not in "".join(row)
    report = report_markdown(QUIZ, result)
    assert "<b>" not in report and "\x1b" not in report
    quiz_file = write(tmp_path, "quiz.toml", dump_toml(QUIZ))
    evil = write(tmp_path, "evil.json", payload(QUIZ, "\x1b]52;c;cHduZWQ=\x07\x1b[2J", {}))
    main(["quiz", "grade", str(quiz_file), str(evil), str(write(tmp_path, "x\x1b[31m.json", "[]"))])
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "\x07" not in captured.out + captured.err


# -- the report --------------------------------------------------------------------------------

CHOICE_QUIZ = Quiz("quiz-rep", "Report", "rep-salt", ("concept-task", "clm-shift"), None, (2.0, 1.0))


def _class(tmp_path, size: int) -> tuple[list[Path], dict[str, int]]:
    """Students s000..: a third right on both, a third right on question 2 only, the rest
    swap inputs and labels (labels-not-shifted) and pick the first option."""
    paths, expected_right = [], {}
    for number in range(size):
        student = f"s{number:03d}"
        answers = right(CHOICE_QUIZ, student)
        if number % 3 == 1:
            answers[0] = {"choice": "ABCD"[("ABCD".index(answers[0]["choice"]) + 1) % 4]}
        elif number % 3 == 2:
            answers = {
                0: {"choice": "A"},
                1: {"inputs": answers[1]["inputs"], "labels": answers[1]["inputs"]},
            }
        paths.append(write(tmp_path, f"{student}.json", payload(CHOICE_QUIZ, student, answers)))
    return paths, expected_right


def test_the_report_per_question(tmp_path):
    paths, _ = _class(tmp_path, 30)
    result = grade_class(CHOICE_QUIZ, paths, now=NOW)
    totals = {g.student: g.total for g in result.graded}
    right_first = [g.student for g in result.graded if g.questions[0].score == 1]
    # independent reference for the discrimination index: sort by total, 27 % of 30 = 8
    ranked = sorted(result.graded, key=lambda g: g.total)
    upper, lower = ranked[-8:], ranked[:8]
    reference = sum(g.questions[0].score for g in upper) / 8 - sum(g.questions[0].score for g in lower) / 8
    report = report_markdown(CHOICE_QUIZ, result)
    mean_first = 2 * len(right_first) / 30
    assert f"| 1 | concept-task | 2 | {mean_first:.2f} | {len(right_first)}/30 | {reference:+.2f} |" in report
    picks = {}
    for number, g in enumerate(result.graded):
        picks[g.questions[0].choice] = picks.get(g.questions[0].choice, 0) + 1
        assert g.student == f"s{number:03d}"
    options_line = next(line for line in report.splitlines() if line.startswith("Options picked"))
    for letter, count in picks.items():
        assert f"{letter} {count}" in options_line
    # who slipped, found by grading each answer directly (not through the report's code)
    slipped = {}
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        answer = data["answers"].get("1")
        if answer:
            exercise = get("clm-shift")
            graded = exercise.grade(exercise.generate(answer["seed"]), answer["parts"])
            for code in graded.diagnoses:
                slipped.setdefault(code, []).append(data["student"])
    assert slipped, "the class should slip somewhere on question 2"
    section = report.split("### Question 2")[1]
    for code, students in slipped.items():
        shown = ", ".join(students[:5]) + (f", +{len(students) - 5} more" if len(students) > 5 else "")
        assert f"**{code}** × {len(students)}" in section and shown in section
    full = report_markdown(CHOICE_QUIZ, result, show_all=True)
    last = max(slipped.items(), key=lambda item: len(item[1]))[1][-1]
    assert last in full.split("### Question 2")[1] and "more" not in full.split("### Question 2")[1]
    assert max(totals.values()) == 3.0


def test_discrimination_index_against_a_hand_computed_class():
    # 4 students: 27 % of 4 rounds to 1: top (total 9) scored 1, bottom (total 1) scored 0
    assert discrimination([(9, 1.0), (5, 0.0), (3, 1.0), (1, 0.0)]) == 1.0
    assert discrimination([(9, 0.0), (1, 1.0)]) == -1.0
    assert discrimination([(1, 1.0)]) is None


def test_five_hundred_students_stay_readable(tmp_path):
    paths, _ = _class(tmp_path, 500)
    result = grade_class(CHOICE_QUIZ, paths, now=NOW)
    report = report_markdown(CHOICE_QUIZ, result)
    small = report_markdown(CHOICE_QUIZ, grade_class(CHOICE_QUIZ, paths[:30], now=NOW))
    assert (
        abs(len(report.splitlines()) - len(small.splitlines())) <= 3
    )  # counts and bars, no line per student
    assert len(report.splitlines()) < 90
    assert max(len(line) for line in report.splitlines()) < 400
    counts = [int(n) for n in re.findall(r"\*\* × (\d+)", report)]
    more = [int(n) for n in re.findall(r"\+(\d+) more \(", report)]
    assert more and all(m == c - 5 for m, c in zip(more, [c for c in counts if c > 5], strict=True))


def test_points_weights_and_max_in_the_gradebook(tmp_path):
    quiz = replace(CHOICE_QUIZ, max_points=2.5)
    paths = [write(tmp_path, "a.json", payload(quiz, "s000", right(quiz, "s000")))]
    paths.append(write(tmp_path, "b.json", payload(quiz, "s001", {0: right(quiz, "s001")[0]})))
    rows = rows_of(gradebook_csv(quiz, grade_class(quiz, paths, now=NOW).grades))
    assert rows[0][:5] == ["student_id", "name", "points", "max", "percent"]
    assert rows[1][:5] == ["s000", "", "3", "2.5", "120.0"] and rows[2][:5] == [
        "s001",
        "",
        "2",
        "2.5",
        "80.0",
    ]
    assert rows[1][7:9] == ["2.00", "1.00"]


# -- release -----------------------------------------------------------------------------------


def _after_release_quiz(tmp_path) -> tuple[Quiz, Path]:
    """A quiz made by `quiz new --results after-release`: the handout and the teacher file."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    quiz_file = tmp_path / "quiz.toml"
    argv = ["quiz", "new", "--title", "R", "--exercises", "clm-shift", "--results", "after-release"]
    assert main([*argv, "-o", str(quiz_file)]) == 0
    assert oct((tmp_path / "quiz.teacher.toml").stat().st_mode & 0o777) == "0o600"
    return loads(quiz_file.read_text(encoding="utf-8")), quiz_file


def test_results_wait_for_the_teachers_release(tmp_path, capsys):
    quiz, quiz_file = _after_release_quiz(tmp_path)
    inbox = tmp_path / "inbox"
    session = ExamSession.open(quiz, "ann", inbox, now=time.time())
    assert not session.results_visible()
    session.submit()
    assert not session.results_visible()
    assert main(["quiz", "release", str(quiz_file), "--out", str(inbox)]) == 0
    assert session.results_visible()
    session.close()
    assert main(["quiz", "grade", str(quiz_file), str(inbox)]) == 0  # the release file is no submission
    shown = ExamSession.open(replace(QUIZ, results="after-submit"), "bob", tmp_path / "b", now=NOW)
    shown.submit()
    assert shown.results_visible()
    shown.close()


def test_a_release_file_a_student_makes_shows_nothing(tmp_path, capsys):
    """`touch` the release file, write one by hand, or copy another quiz's: none is a release.
    Only the teacher file's secret is; without it `quiz release` says so."""
    from exercises.classroom.release import release_stem

    quiz, quiz_file = _after_release_quiz(tmp_path)
    other, _ = _after_release_quiz(tmp_path / "other")
    inbox = tmp_path / "inbox"
    session = ExamSession.open(quiz, "ann", inbox, now=time.time())
    session.submit()
    target = inbox / release_stem(quiz)
    target.touch()  # what the old check believed
    assert not session.results_visible()
    guesses = (
        {"kind": "release", "quiz": quiz.id, "released_at": 1.0},
        {"kind": "release", "quiz": quiz.id, "secret": quiz.release_check},  # the public hash is no secret
        {"kind": "release", "quiz": quiz.id, "secret": "00" * 32},
        {"kind": "release", "quiz": quiz.id, "secret": ["a"]},
        [1, 2],
    )
    for guess in guesses:
        target.write_text(json.dumps(guess), encoding="utf-8")
        assert not session.results_visible(), guess
    other_inbox = tmp_path / "other" / "inbox"
    other_inbox.mkdir()
    other_file = tmp_path / "other" / "quiz.toml"
    assert main(["quiz", "release", str(other_file), "--out", str(other_inbox)]) == 0
    copied = json.loads((other_inbox / release_stem(other)).read_text(encoding="utf-8"))
    target.write_text(json.dumps({**copied, "quiz": quiz.id}), encoding="utf-8")  # another quiz's secret
    assert not session.results_visible()
    (tmp_path / "quiz.teacher.toml").rename(tmp_path / "elsewhere.toml")
    capsys.readouterr()
    assert exit_code(["--lang", "en", "quiz", "release", str(quiz_file), "--out", str(inbox)]) == 2
    assert "quiz.teacher.toml" in capsys.readouterr().err
    wrong = ["--teacher", str(tmp_path / "other" / "quiz.teacher.toml")]
    assert exit_code(["--lang", "en", "quiz", "release", str(quiz_file), "--out", str(inbox), *wrong]) == 2
    assert "for quiz" in capsys.readouterr().err  # another quiz's teacher file
    right = ["--teacher", str(tmp_path / "elsewhere.toml")]
    assert main(["quiz", "release", str(quiz_file), "--out", str(inbox), *right]) == 0
    assert session.results_visible()
    session.close()


def test_a_handout_edited_to_show_results_at_once_is_flagged(tmp_path):
    """A student's own copy obeys an edit (results after-submit, a longer clock): the
    submission records the rules it ran under, and grading flags the difference."""
    quiz, _ = _after_release_quiz(tmp_path)
    edited = replace(quiz, results="after-submit", time_limit_minutes=300)
    session = ExamSession.open(edited, "ann", tmp_path / "inbox", now=time.time())
    session.set_answer(0, "inputs", "x")
    assert session.submit() and session.results_visible()  # the edit worked on the student's machine
    session.close()
    honest = ExamSession.open(quiz, "bob", tmp_path / "inbox", now=time.time())
    honest.submit()
    honest.close()
    result = grade_class(quiz, sorted((tmp_path / "inbox").glob("*.submission.json")), now=time.time() + 60)
    flags = {g.student: g.flags for g in result.grades}
    assert flags == {"ann": ("handout-edited",), "bob": ()}
    assert "handout-edited" in report_markdown(quiz, result)


def test_every_quiz_message_has_zh():
    from tui.i18n import MESSAGES

    keys = [key for key in MESSAGES if key.startswith(("quiz-", "exam-"))]
    assert len(keys) > 30
    assert all(
        MESSAGES[key].get("zh") and MESSAGES[key]["zh"] != MESSAGES[key]["en"]
        for key in keys
        if key != "exam-done"
    )


@pytest.mark.parametrize(
    ("text", "zh"),
    [
        ('{"quiz": "q" "student": "s"}', "这里少了逗号"),
        ('{"quiz" "q"}', "这里少了冒号"),
        ("{quiz: 1}", "键名要用双引号括起来"),
        ('{"quiz": "q', "字符串没有结束引号"),
        ('{"quiz": }', "这里应当是一个值"),
        ("{} {}", "JSON 结束后还有多余内容"),
        ('{"a": "\\q"}', "无效的转义"),
    ],
)
def test_a_broken_json_file_is_told_in_chinese_with_its_place(tmp_path, text, zh):
    path = tmp_path / "s.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SubmissionError) as raised:
        read_json(path)
    said = raised.value.text
    assert said["zh"].startswith("不是有效的 JSON：第 1 行第 ") and said["zh"].endswith(zh)
    assert "not valid JSON" in said["en"] and not re.search("[A-Za-z]{4,}", said["zh"].replace("JSON", ""))


def test_read_json_reads_a_bom(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes('\ufeff{"a": 1}'.encode())
    assert read_json(path) == {"a": 1}
    path.write_text("{", encoding="utf-8")
    with pytest.raises(SubmissionError, match="line 1, column 2"):
        read_json(path)


# -- variants of equal difficulty -------------------------------------------------------------

QUIZZABLE = tuple(exercise.id for exercise in ALL_EXERCISES if exercise.graded)
EVERYTHING = Quiz("quiz-fair", "Fair", "fair-salt", QUIZZABLE)


@pytest.fixture(scope="module")
def one_thread():
    """Tiny tensors: torch's thread pool only costs time, a lot of it on a busy machine."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("exercise_id", QUIZZABLE)
@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(student=st.text(min_size=1, max_size=24))
def test_every_students_variant_tests_the_same_skill(one_thread, exercise_id, student):
    """Each exercise's own predicate (exercise.variant_is_fair, e.g. prefix-LM answers
    that differ from causal and bidirectional) holds for the variant every student gets.
    The seeds a quiz gives students reach the generators checked question by question
    over 3,000 seeds in test_grading.py; 200 students per exercise here (it was 2,000,
    40,000 checks repeating that sweep)."""
    index = QUIZZABLE.index(exercise_id)
    exercise = get(exercise_id)
    variant = exercise.generate(seed_for(EVERYTHING, student, index))
    assert exercise.variant_is_fair(variant), (exercise_id, variant.seed)


# -- speed: the fast path grades exactly as the plain one ----------------------------------------

SPEED_QUIZ = Quiz(
    "quiz-speed",
    "Speed",
    "speed-salt",
    ("mask-matrix", "concept-task", "clm-shift", "loss-sanity", "visibility"),
    None,
    (1.0, 2.0, 1.0, 1.5, 1.0),
)


def _speed_class(folder: Path, size: int) -> list[Path]:
    """Right, one slip, blank, unreadable and half-answered, so both memo hits (same variant,
    same answer) and misses happen; a duplicate and a tampered file among them."""
    paths = []
    for number in range(size):
        student = f"v{number:03d}"
        answers = right(SPEED_QUIZ, student)
        kind = number % 5
        if kind == 1:
            answers = {i: {p: t + " 1" for p, t in parts.items()} for i, parts in answers.items()}
        elif kind == 2:
            answers = {0: answers[0]}
        elif kind == 3:
            answers = {i: {p: "？？【】" for p in parts} for i, parts in answers.items()}
        elif kind == 4:
            answers[3] = {"baseline": "", "verdict": "B"}
        paths.append(write(folder, f"{student}.json", payload(SPEED_QUIZ, student, answers)))
    paths.append(write(folder, "dup.json", payload(SPEED_QUIZ, "v001", right(SPEED_QUIZ, "v001"))))
    forged = {
        **payload(SPEED_QUIZ, "v002", right(SPEED_QUIZ, "v002")),
        "student": "x999",
    }  # not x999's questions
    paths.append(write(folder, "forged.json", forged))
    paths.append(write(folder, "v003b.json", payload(SPEED_QUIZ, "v003", {0: {"matrix": "0"}})))
    return paths


def test_worker_processes_grade_exactly_as_this_process(tmp_path):
    """Chunked forked workers (what a lab quiz gets) change the time, never a grade: 300
    students of a text quiz, forced onto two workers, against this process."""
    paths = _speed_class(tmp_path, 300)
    here = grade_class(SPEED_QUIZ, paths, now=NOW, workers=1)
    spread = grade_class(SPEED_QUIZ, paths, now=NOW, workers=2)
    assert len(here.graded) == 298 and len(here.rejected) == 1 and len(here.conflicts) == 2
    assert gradebook_csv(SPEED_QUIZ, spread.grades) == gradebook_csv(SPEED_QUIZ, here.grades)
    assert report_markdown(SPEED_QUIZ, spread, "zh", True) == report_markdown(SPEED_QUIZ, here, "zh", True)
    assert spread.grades == here.grades  # feedback and diagnoses too, not only what the CSV shows


def test_only_lab_quizzes_are_spread_over_the_cores(monkeypatch):
    """Text answers are graded here (workers saved no time a teacher feels: docs/
    architecture.md); lab files run seconds each in the sandbox: every core, at most 4."""
    import exercises.classroom.schedule as schedule

    for cores, expected in (({0}, 1), ({0, 1}, 2), (set(range(16)), 4)):
        monkeypatch.setattr(schedule.os, "sched_getaffinity", lambda _pid, cores=cores: cores)
        assert schedule.default_workers(SPEED_QUIZ) == 1
        lab_quiz = replace(SPEED_QUIZ, exercises=("lab:causal_mask", "clm-shift"))
        assert schedule.default_workers(lab_quiz) == expected


def test_grading_leaves_the_garbage_collector_as_it_found_it(tmp_path):
    """Grading once froze, disabled and unfroze the collector around itself: the unfreeze
    undid the warm class server's gc.freeze (its pages shared copy-on-write by every
    session). A frozen heap stays frozen, an enabled collector enabled."""
    import gc

    paths = _speed_class(tmp_path, 8)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0 and gc.isenabled()
        result = grade_class(SPEED_QUIZ, paths, now=NOW)
        assert len(result.graded) == 6
        assert gc.get_freeze_count() >= frozen and gc.isenabled()
    finally:
        gc.unfreeze()


def test_shared_results_are_placed_at_each_students_own_question(tmp_path):
    """Two students with the same mask-matrix variant and answer share one grading, and each
    grade still carries that student's seed and the question's points."""
    from exercises.classroom.grading import grade_all
    from exercises.classroom.submission import parse_submission

    quiz = Quiz("quiz-share", "Share", "share-salt", ("mask-matrix",), None, (3.0,))
    key = get("mask-matrix").question_key
    by_key: dict[str, list[str]] = {}
    for number in range(200):
        student = f"m{number}"
        by_key.setdefault(key(questions_for(quiz, student)[0].seed), []).append(student)
    twins = next(group for group in by_key.values() if len(group) >= 2)[:2]
    subs = [parse_submission(payload(quiz, s, right(quiz, s))) for s in twins]
    grades = grade_all(quiz, subs)
    assert [g.questions[0].seed for g in grades] == [questions_for(quiz, s)[0].seed for s in twins]
    assert [g.questions[0].points for g in grades] == [3.0, 3.0]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), vocab=st.sampled_from((2, 7, 1000, 5000, 10000)), scaled=st.booleans())
def test_the_lean_loss_is_the_runs_loss(seed, vocab, scaled):
    """loss-sanity's variant uses clm_demo_loss; it must be the lesson run's own loss (to
    float32 rounding: a matmul's last bits may differ by kernel and CPU, not by run)."""
    from engine.textbook import clm_demo_loss, clm_run

    run = clm_run(seed=seed, vocab_size=vocab)
    expected = run.loss if scaled else run.loss_unscaled
    assert clm_demo_loss(seed, vocab, scaled) == pytest.approx(expected, rel=1e-5, abs=0)


# -- a lab task in a quiz (issue 13) --------------------------------------------------------------

LAB_ROSTER = "id,name\nalice,Alice\nbob,Bob\ncarol,Carol\ndan,Dan\nerin,Erin\n"


def _lab_files() -> dict[str, str]:
    from exercises.lab.tasks import BY_ID
    from exercises.lab.tasks import solution as reference

    right_file = reference(BY_ID["causal_mask"])
    assert "diagonal=1" in right_file
    return {
        "alice": right_file,
        "bob": right_file.replace("diagonal=1", "diagonal=0"),  # the diagonal blocked: a rule broken
        "carol": "import torch\n\ndef causal_mask(n):\n    while True:\n        pass\n",
        "dan": "def causal_mask(n):\n    return (\n",
    }


@pytest.mark.slow
def test_a_lab_task_round_trip_attach_submit_sign_grade_report(tmp_path, capsys):
    """quiz new accepts lab:<task> in any spelling; each student attaches a file in the exam;
    quiz grade runs it in the sandbox: pass, a rule, stopped, invalid; did-not-submit;
    a file whose source was changed after signing is rejected; the report counts rules."""
    (tmp_path / "roster.csv").write_text(LAB_ROSTER, encoding="utf-8")
    quiz_file = tmp_path / "quiz.toml"
    roster = str(tmp_path / "roster.csv")
    new = ["quiz", "new", "--title", "Lab", "--exercises", "LAB：10，mask-matrix", "--roster", roster]
    code = main(["--lang", "en", *new, "-o", str(quiz_file)])
    assert code == 0
    quiz = loads(quiz_file.read_text(encoding="utf-8"))
    assert quiz.exercises == ("lab:causal_mask", "mask-matrix") and 'exercise = "lab:causal_mask"' in (
        quiz_file.read_text(encoding="utf-8")
    )
    pins = {s.id: s.pin for s in load_teacher_file(tmp_path / "quiz.teacher.toml", quiz).students}
    folder = tmp_path / "subs"
    for student, text in _lab_files().items():
        (tmp_path / f"{student}.py").write_text(text, encoding="utf-8")
        session = ExamSession.open(quiz, student, folder, pin=pins[student], now=time.time())
        attached = session.attach(0, str(tmp_path / f"{student}.py"))
        assert attached.size == len(text.encode()) and (attached.problem is None) == (student != "dan")
        session.submit()
        session.close()
    submitted = {p.name.split("-")[0]: p for p in folder.glob("*.submission.json")}
    data = json.loads(submitted["bob"].read_text(encoding="utf-8"))
    assert data["answers"]["0"]["parts"]["source"] == _lab_files()["bob"] and data["signature"]
    forged = dict(data, answers={"0": dict(data["answers"]["0"], parts={"source": _lab_files()["alice"]})})
    write(folder, "bob-forged.json", forged)  # the right file swapped in after signing
    csv_path, report_path = tmp_path / "grades.csv", tmp_path / "report.md"
    capsys.readouterr()
    teacher = ["--teacher", str(tmp_path / "quiz.teacher.toml")]
    outputs = ["--csv", str(csv_path), "--report", str(report_path)]
    code = main(["--lang", "en", "quiz", "grade", str(quiz_file), str(folder), *teacher, *outputs])
    out, err = capsys.readouterr()
    assert code == 1 and "bob-forged.json" in err and "signature" in err
    rows = {row[0]: row for row in rows_of(csv_path.read_text(encoding="utf-8"))}
    header = rows["student_id"]
    rule = header.index("q1 rule")
    assert {s: rows[s][rule] for s in ("alice", "bob", "carol", "dan", "erin")} == {
        "alice": "pass",
        "bob": "diagonal-visible",
        "carol": "stopped",
        "dan": "invalid",
        "erin": "",
    }
    assert rows["alice"][header.index("q1 lab:causal_mask")] == "1.00" and rows["erin"][5] == "did not submit"
    assert rows["bob"][5] == "submitted"  # the real file is graded, the forged one rejected
    report = report_path.read_text(encoding="utf-8")
    assert "Files that pass every rule: 1 of 4 handed in" in report
    for line in ("**diagonal-visible** × 1 (bob)", "**stopped** × 1 (carol)", "**invalid** × 1 (dan)"):
        assert line in report
    assert "mask-blocks-diagonal" in report  # the misconception named by the broken rule
    table = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert "q1: passed" in table["alice"] and "q1: diagonal-visible" in table["bob"]
    assert "q1: stopped" in table["carol"] and "q1: cannot be run" in table["dan"]


def test_a_lab_answer_claiming_another_task_version_is_rejected(tmp_path):
    quiz = Quiz("quiz-labv", "Lab", "labv-salt", ("lab:causal_mask",))
    question = questions_for(quiz, "ann")[0]
    data = payload(quiz, "ann", {})
    data["answers"] = {
        "0": {
            "exercise": question.exercise,
            "seed": question.seed,
            "variant": "0" * 16,
            "parts": {"source": "x"},
        }
    }
    result = grade_class(quiz, [write(tmp_path, "ann.json", data)], now=NOW)
    assert result.rejected and "changed since" in result.rejected[0][1]


@pytest.mark.parametrize(
    "make, fragment",
    [
        (lambda d: d / "missing.py", "there is no file"),
        (lambda d: d, "is a folder"),
        (lambda d: _fifo(d), "not a plain file"),
        (lambda d: Path("/dev/zero"), "not a plain file"),
        (lambda d: _file(d, "e.py", b"  \n"), "is empty"),
        (lambda d: _file(d, "gbk.py", "# 注释\n".encode("gbk")), "not UTF-8"),
        (lambda d: _file(d, "big.py", b"#" * 100_001), "longer than 100000"),
        (lambda d: _file(d, "wide.py", "的".encode() * 100_001), "longer than 100000"),
    ],
)
def test_attaching_what_is_not_a_usable_file_says_why_and_keeps_the_earlier_file(tmp_path, make, fragment):
    quiz = Quiz("quiz-laba", "Lab", "laba-salt", ("lab:causal_mask",))
    good = _file(tmp_path, "good.py", b"def causal_mask(n):\n    return None\n")
    session = ExamSession.open(quiz, "ann", tmp_path / "out", now=time.time())
    session.attach(0, str(good))
    with pytest.raises(ExamError, match=fragment) as caught:
        session.attach(0, str(make(tmp_path)))
    assert caught.value.text["zh"] and "\n" not in caught.value.text["en"]
    assert (
        session.answers[0]["source"] == good.read_text() and session.attached(0).size == good.stat().st_size
    )
    session.close()


def _fifo(folder: Path) -> Path:
    path = folder / "pipe.py"
    os.mkfifo(path)  # opening it would wait for a writer: the exam must not
    return path


def _file(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300))
@example(text="")
@example(text="a\nb")
@example(text="def f():\n    return 1\n")
@example(text="x = (\n")
@example(text="\x00")
def test_describing_any_file_never_raises(text):
    from exercises.classroom.exam import describe_source

    described = describe_source(text)
    assert described.size == len(text.encode("utf-8"))
    assert described.lines == len(text.split("\n")) - text.endswith("\n")  # "a\nb" 2, "a\n" 1
    try:  # Python's own verdict, asked again: nothing is run either way
        compile(text, "<attached>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        assert described.problem is not None
    else:
        assert described.problem is None


def test_deeply_nested_source_is_described_not_crashed():
    from exercises.classroom.exam import describe_source

    assert describe_source("x = " + "(" * 100_000 + ")" * 100_000).problem is not None


def test_a_quiz_that_cannot_open_leaves_no_lock_behind(tmp_path):
    """Opening fails (closed quiz): trying again gives the same reason, not 'open in another window'."""
    closed = Quiz("quiz-closed", "Closed", "closed-salt", ("clm-shift",), closes_at=NOW - 60)
    with pytest.raises(ExamError, match="closed at") as first:
        ExamSession.open(closed, "ann", tmp_path, now=NOW)
    with pytest.raises(ExamError, match="closed at"):  # while the first failure (and its frames) lives on
        ExamSession.open(closed, "ann", tmp_path, now=NOW)
    assert first.value.text["zh"]


@pytest.mark.parametrize("grace", ["abc", "-1", "1441", "nan", "inf", ""])
def test_a_bad_grace_is_one_line_in_the_users_language(tmp_path, grace, capsys):
    quiz_file = write(tmp_path, "q.toml", dump_toml(QUIZ))
    with pytest.raises(SystemExit) as exit_info:
        main(["--lang", "zh", "quiz", "grade", str(quiz_file), str(tmp_path), "--grace", grace])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "宽限必须是" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "typed",
    [
        "lab:causal_mask",
        "lab:10",
        "LAB：10",
        "lab:１０",
        " lab: 10_causal_mask.py ",
        "Lab:10_causal_mask",
        "lab:causal_mask.py",
    ],
)
def test_a_lab_task_is_named_the_ways_teachers_type_it(typed):
    from exercises.classroom.quiz import canonical_exercise

    assert new_quiz("L", [typed, "clm-shift"]).exercises == ("lab:causal_mask", "clm-shift")
    assert canonical_exercise(typed) == "lab:causal_mask"


@pytest.mark.parametrize(
    "typed",
    ["lab:", "lab:99", "lab:../../etc/passwd", "lab:causal_mask; rm -rf ~", "lab:=1+1", "lab:\x1b[31m"],
)
def test_an_unknown_lab_task_is_refused_in_both_languages(typed):
    with pytest.raises(QuizFileError, match="unknown lab task") as error:
        new_quiz("L", [typed])
    assert "没有代码实验题" in error.value.text["zh"]


def test_a_quiz_file_with_a_lab_task_names_the_line_of_an_unknown_one():
    text = 'id = "q"\ntitle = "t"\nsalt = "s"\n[[questions]]\nexercise = "lab:nothing"\n'
    with pytest.raises(QuizFileError, match="line 5: unknown lab task"):
        loads(text)
    ok = loads(text.replace("lab:nothing", "LAB：13"))
    assert (
        ok.exercises == ("lab:prefix_lm_mask",)
        and ok.question_hash == loads(text.replace("lab:nothing", "lab:prefix_lm_mask")).question_hash
    )


def test_the_key_of_a_lab_question_is_the_reference_file(tmp_path, capsys):
    from exercises.lab.tasks import BY_ID
    from exercises.lab.tasks import solution as reference

    quiz_file = write(
        tmp_path, "q.toml", dump_toml(Quiz("quiz-k", "K", "k-salt", ("clm-shift", "lab:causal_mask")))
    )
    capsys.readouterr()
    assert main(["--lang", "zh", "quiz", "key", str(quiz_file), "--student", "ann", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["questions"]
    assert rows[1]["exercise"] == "lab:causal_mask" and rows[1]["solution"] == {
        "source": reference(BY_ID["causal_mask"])
    }
    assert "因果掩码" in rows[1]["prompt"]


@pytest.mark.parametrize("exercise_id", QUIZZABLE)
def test_seeds_with_the_same_shown_question_show_the_same_question(one_thread, exercise_id):
    """The grading memo keys a variant by shown_question: two seeds that share it must show
    the same content (data and prompt), or one student's grade would be another's."""
    from exercises.classroom.grading import shown_question

    exercise = get(exercise_id)
    seen: dict[str, str] = {}
    for seed in range(0, 400 if exercise_id == "loss-sanity" else 1500):
        variant = exercise.generate(seed)
        content = json.dumps([variant.data, variant.prompt], sort_keys=True, default=str)
        assert seen.setdefault(shown_question(exercise, variant), content) == content, (exercise_id, seed)


def test_a_lab_file_in_a_submission_is_capped_at_its_own_limit(tmp_path):
    from exercises.classroom.submission import parse_submission

    quiz = Quiz("quiz-cap", "Cap", "cap-salt", ("lab:causal_mask", "clm-shift"))
    question = questions_for(quiz, "ann")[0]

    def with_source(text: str, part: str = "source") -> dict:
        data = payload(quiz, "ann", {})
        data["answers"] = {"0": {"exercise": question.exercise, "seed": question.seed, "parts": {part: text}}}
        return data

    assert parse_submission(with_source("#" * 100_000)).answers[0].parts["source"]
    for too_long in (with_source("#" * 100_001), with_source("#" * 20_001, part="file")):
        with pytest.raises(SubmissionError, match="too long"):
            parse_submission(too_long)


_PARENT = os.getpid()
_GRADE_HERE = __import__("exercises.classroom.grading", fromlist=["grade_here"]).grade_here


def _dies_in_a_worker(quiz, submissions):
    """grade_here, except in a forked worker, which it kills at once."""
    if os.getpid() != _PARENT:
        os._exit(9)
    return _GRADE_HERE(quiz, submissions)


def test_a_grading_worker_that_dies_costs_time_not_grades(tmp_path, monkeypatch):
    """A worker killed mid-run (out of memory, say): its students are graded in this process."""
    import exercises.classroom.grading as grading

    paths = [p for p in _speed_class(tmp_path, 20) if p.name != "forged.json"]  # all gradable
    expected = gradebook_csv(SPEED_QUIZ, grade_class(SPEED_QUIZ, paths, now=NOW, workers=1).grades)
    monkeypatch.setattr(grading, "grade_here", _dies_in_a_worker)
    result = grade_class(SPEED_QUIZ, paths, now=NOW, workers=2)
    assert gradebook_csv(SPEED_QUIZ, result.grades) == expected


def test_chunks_a_broken_pool_refuses_are_graded_here(tmp_path, monkeypatch):
    """Once a worker has died the pool refuses new chunks; those are graded here too."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    paths = [p for p in _speed_class(tmp_path, 20) if p.name != "forged.json"]
    expected = gradebook_csv(SPEED_QUIZ, grade_class(SPEED_QUIZ, paths, now=NOW, workers=1).grades)
    submitted = []
    real_submit = ProcessPoolExecutor.submit

    def broken_after_the_first(self, *args, **kwargs):
        submitted.append(args)
        if len(submitted) > 1:
            raise BrokenProcessPool("a child process terminated abruptly")
        return real_submit(self, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", broken_after_the_first)
    result = grade_class(SPEED_QUIZ, paths, now=NOW, workers=2)
    assert len(submitted) > 1
    assert gradebook_csv(SPEED_QUIZ, result.grades) == expected


def test_a_reworded_lab_statement_keeps_the_fingerprint_a_new_signature_does_not(monkeypatch):
    import exercises.lab.grading as lab_grading
    from exercises.lab.tasks import BY_ID

    task = BY_ID["causal_mask"]
    before = lab_grading.task_fingerprint("lab:causal_mask")
    reworded = replace(
        task, statement={"en": task.statement["en"] + " (typo fixed)", "zh": task.statement["zh"]}
    )
    monkeypatch.setattr(lab_grading, "task_of", lambda _id: reworded)
    assert lab_grading.task_fingerprint("lab:causal_mask") == before
    import exercises.lab.tasks as lab_tasks

    # a new signature: the one read from a changed starter file
    monkeypatch.setattr(lab_grading, "task_of", lambda _id: task)
    monkeypatch.setattr(lab_tasks, "_signature", lambda _file, _function: "def causal_mask(n, k):")
    assert task.signature == "def causal_mask(n, k):"
    assert lab_grading.task_fingerprint("lab:causal_mask") != before


# -- issue 21: files only their owner reads, the PIN off the command line ---------------------


def test_autosave_submission_and_lock_are_readable_by_their_owner_only(tmp_path):
    """On a shared machine the default 0644 handed every account a classmate's answers."""
    old = os.umask(0o022)  # the usual umask: files would be 0644
    try:
        session = ExamSession.open(QUIZ, "ann", tmp_path, now=NOW)
        session.set_answer(1, "inputs", "secret answer")
        session.submit()
        session.close()
        (tmp_path / "stale.lock").write_text("", encoding="utf-8")
        stale = ExamSession.open(QUIZ, "bob", tmp_path, now=NOW)
        stale.close()
    finally:
        os.umask(old)
    made = {
        path.name: oct(path.stat().st_mode & 0o777) for path in tmp_path.iterdir() if "stale" not in path.name
    }
    assert len(made) == 5 and set(made.values()) == {"0o600"}, (
        made
    )  # ann: autosave, submission, lock; bob too
    assert {name.rsplit(".", 2)[-2] if name.endswith(".json") else "lock" for name in made} == {
        "autosave",
        "submission",
        "lock",
    }


def test_an_older_wider_lock_file_is_narrowed_and_a_planted_symlink_is_not_followed(tmp_path):
    session = ExamSession.open(QUIZ, "ann", tmp_path, now=NOW)
    lock = session.path("lock")
    session.close()
    lock.chmod(0o644)
    ExamSession.open(QUIZ, "ann", tmp_path, now=NOW).close()
    assert oct(lock.stat().st_mode & 0o777) == "0o600"
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", encoding="utf-8")
    bob = ExamSession.open(QUIZ, "bob", tmp_path / "b", now=NOW)
    bob.close()
    temporary = bob.autosave_path.with_name(bob.autosave_path.name + ".tmp")
    temporary.symlink_to(victim)
    again = ExamSession.open(QUIZ, "bob", tmp_path / "b", now=NOW)
    with pytest.raises(OSError):
        again.set_answer(1, "inputs", "x")  # refused, not written through the link
    again.close()
    assert victim.read_text(encoding="utf-8") == "keep"


def exit_code(argv: list[str]) -> int:
    """What the command exits with (main returns 0/1, or exits 2 on bad input)."""
    try:
        return main(argv)
    except SystemExit as done:
        return done.code


def _signed_handout(tmp_path) -> tuple[Path, dict[str, str]]:
    roster = write(tmp_path, "roster.csv", "id,name\ns1,Ann\ns2,Bob\n")
    quiz_file = tmp_path / "quiz.toml"
    argv = ["quiz", "new", "--title", "W", "--exercises", "clm-shift", "--roster", str(roster)]
    assert main([*argv, "-o", str(quiz_file)]) == 0
    quiz = loads(quiz_file.read_text(encoding="utf-8"))
    pins = {s.id: s.pin for s in load_teacher_file(tmp_path / "quiz.teacher.toml", quiz).students}
    return quiz_file, pins


def test_pin_on_the_command_line_is_refused_with_the_way_that_is_not_in_ps(tmp_path, capsys, monkeypatch):
    quiz_file, pins = _signed_handout(tmp_path)
    monkeypatch.delenv("OBJECTIVES_TUTOR_PIN", raising=False)
    take = ["quiz", "take", str(quiz_file), "--student", "s1", "--out", str(tmp_path / "in")]
    capsys.readouterr()
    for lang, words in (("en", "ps"), ("zh", "ps")):
        assert exit_code(["--lang", lang, *take, "--pin", pins["s1"]]) == 2
        err = capsys.readouterr().err
        assert (
            words in err and "OBJECTIVES_TUTOR_PIN" in err and pins["s1"] not in err and err.count("\n") == 1
        )
    assert not (tmp_path / "in").exists()  # nothing started
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    assert exit_code(["--lang", "en", *take]) == 2  # no terminal to ask, no variable: told how
    assert "OBJECTIVES_TUTOR_PIN" in capsys.readouterr().err
    wrong = _wrong_pins_that_pass_the_check_character("s1", pins["s1"], 1)[0]
    monkeypatch.setenv("OBJECTIVES_TUTOR_PIN", wrong)  # a wrong PIN, from the environment
    assert exit_code(["--lang", "zh", *take]) == 2
    assert "PIN 不对" in capsys.readouterr().err and not (tmp_path / "in").exists()


def test_the_pin_is_read_without_echo_and_a_typo_may_be_typed_again(tmp_path, capsys, monkeypatch):
    import getpass

    import tui.app

    quiz_file, pins = _signed_handout(tmp_path)
    monkeypatch.delenv("OBJECTIVES_TUTOR_PIN", raising=False)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    typed = iter(["nope", pins["s2"], pins["s1"].lower()])
    monkeypatch.setattr(getpass, "getpass", lambda prompt: next(typed))
    started = []
    monkeypatch.setattr(tui.app, "run_app", lambda lang, exam: started.append(exam))
    out = tmp_path / "in"
    assert main(["--lang", "en", "quiz", "take", str(quiz_file), "--student", "s1", "--out", str(out)]) == 0
    assert started[0].student == "s1" and started[0].key
    assert capsys.readouterr().err.count("PIN") == 2  # two refusals, then the quiz
    typed = iter(["nope"] * 3)
    assert (
        exit_code(["--lang", "en", "quiz", "take", str(quiz_file), "--student", "s2", "--out", str(out)]) == 2
    )
    assert not list(out.glob(f"{file_stem('s2')}*"))


def test_the_pin_from_the_environment_is_read_once_and_not_passed_on(tmp_path, monkeypatch):
    """The quiz opens with $OBJECTIVES_TUTOR_PIN, and by then the variable is gone from the
    environment: nothing the exam starts (the lab's sandbox) inherits the PIN."""
    import tui.app

    quiz_file, pins = _signed_handout(tmp_path)
    monkeypatch.setenv("OBJECTIVES_TUTOR_PIN", pins["s1"])
    seen = []
    monkeypatch.setattr(
        tui.app,
        "run_app",
        lambda lang, exam: seen.append((exam.student, os.environ.get("OBJECTIVES_TUTOR_PIN"))),
    )
    argv = ["quiz", "take", str(quiz_file), "--student", "s1", "--out", str(tmp_path / "in")]
    assert main(argv) == 0
    assert seen == [("s1", None)]


def test_ps_never_shows_the_pin_of_a_running_quiz_take(tmp_path):
    """The real binary, PIN from the environment: the quiz opens (no terminal needed) and
    its command line holds no PIN."""
    import subprocess

    quiz_file, pins = _signed_handout(tmp_path)
    env = {**os.environ, "OBJECTIVES_TUTOR_PIN": pins["s1"], "TERM": "dumb"}
    argv = [sys.executable, "-m", "tui.cli", "quiz", "take", str(quiz_file), "--student", "s1"]
    process = subprocess.Popen(
        [*argv, "--out", str(tmp_path / "in")],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list((tmp_path / "in").glob("*.autosave.json")):
            time.sleep(0.05)
        assert list((tmp_path / "in").glob("*.autosave.json")), "the quiz did not open"
        cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes().decode()
        assert normalise_pin(pins["s1"]) not in normalise_pin(cmdline) and "--pin" not in cmdline
    finally:
        process.kill()
        process.wait()


# -- issue 21: the gradebook's status, and what an LMS imports -------------------------------------


def test_a_rejected_file_is_rejected_in_the_gradebook_never_did_not_submit(tmp_path):
    """Signed with a wrong key, unreadable JSON named after a student, an edited answer: each
    is that student's `rejected` row with the reason, in every format; junk naming nobody
    adds no row."""
    bob = ROSTER[1]
    forged = write(tmp_path, "forged.json", payload(QUIZ, "s1", right(QUIZ, "s1"), key=bob.key))
    broken = write(tmp_path, f"{file_stem('s2')}.{QUIZ.id}.submission.json", '{"student": ')
    junk = write(tmp_path, "junk.json", '{"student": "nobody-here", "quiz": 5}')
    result = grade_class(QUIZ, [forged, broken, junk], ROSTER, now=NOW)
    rows = {g.student: g for g in result.grades}
    assert [g.student for g in result.grades] == ["s1", "s2", "s3"]
    assert (rows["s1"].status, rows["s2"].status, rows["s3"].status) == (
        "rejected",
        "rejected",
        "did not submit",
    )
    assert "signature" in rows["s1"].why["en"] and "JSON" in rows["s2"].why["en"]
    plain_rows = {row[0]: row for row in rows_of(gradebook_csv(QUIZ, result.grades))}
    assert (
        plain_rows["s1"][5] == "rejected"
        and "forged.json" in plain_rows["s1"][-2]
        and plain_rows["s1"][2] == ""
    )
    assert "signature" in plain_rows["s1"][-1]
    moodle = {row[0]: row for row in rows_of(gradebook_csv(QUIZ, result.grades, "moodle", "zh"))}
    assert moodle["s1"][2] == "-" and moodle["s1"][-1] == "rejected" and "被拒收" in moodle["s1"][3]
    assert "Rejected" in report_markdown(QUIZ, result) and "s1" in report_markdown(QUIZ, result)
    unsigned_no_roster = grade_class(
        QUIZ, [junk, write(tmp_path, "x.json", {"student": "zed", "quiz": "other"})]
    )
    assert [(g.student, g.status) for g in unsigned_no_roster.grades] == [  # without a roster ids are claims
        ("nobody-here", "rejected"),
        ("zed", "rejected"),
    ]


def _canvas_accepts(text: str) -> tuple[list[str], dict[str, dict[str, str]], dict[str, str]]:
    """What Canvas's gradebook importer (app/models/gradebook_importer.rb) reads: the header
    checks, the student columns, the assignment columns, the Points Possible row. An
    independent re-reading of its rules, to hold our file to them."""
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1]
    assert re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3])
    student_columns = 5
    assert "Section" in header[student_columns - 1]  # the last student column must be Section
    reserved = {
        "Current Score",
        "Current Points",
        "Current Grade",
        "Final Score",
        "Final Points",
        "Final Grade",
    }
    assignments = [name for name in header[student_columns:] if not any(r in name for r in reserved)]
    points, grades = {}, {}
    for row in rows[1:]:
        if "Points Possible" in row[0]:
            points = dict(zip(header[student_columns:], row[student_columns:], strict=True))
            continue
        grades[row[2]] = dict(zip(header[student_columns:], row[student_columns:], strict=True))
    return assignments, grades, points


def _server_like_class() -> list:
    """Statuses from every source: submitted, taken at close, extended, rejected, missing."""
    from exercises.classroom.grading import MISSING, REJECTED, StudentGrade, handed_in_status

    base = grade_class(QUIZ, [write_tmp_payload("ann", right(QUIZ, "ann"))], now=NOW).grades[0]
    return [
        replace(base, student="s1", name="Ann", status=handed_in_status(True, False)),
        replace(base, student="s2", name="李明", status=handed_in_status(False, False)),
        replace(base, student="s3", name="=Cat", status=handed_in_status(True, True)),
        StudentGrade("s4", base.questions, base.maximum, "Dan", REJECTED, why={"en": "bad", "zh": "坏"}),
        StudentGrade("s5", base.questions, base.maximum, "Eve", MISSING),
    ]


def write_tmp_payload(student: str, answers) -> Path:
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="quiz-status-"))
    return write(folder, f"{student}.json", payload(QUIZ, student, answers))


def test_the_canvas_gradebook_is_what_canvas_imports():
    grades = _server_like_class()
    text = gradebook_csv(QUIZ, grades, "canvas")
    assignments, imported, points = _canvas_accepts(text)
    assert assignments == ["Week 7"]  # exactly one assignment column: nothing else becomes one
    assert points == {"Week 7": "3"}
    assert imported["s1"]["Week 7"] == imported["s2"]["Week 7"] == imported["s3"]["Week 7"] == "3"
    assert imported["s4"]["Week 7"] == imported["s5"]["Week 7"] == ""  # no score: Canvas changes nothing
    rows = rows_of(text)
    assert rows[4][0] == "'=Cat"  # a spreadsheet still cannot read a name as a formula


def test_the_moodle_gradebook_maps_by_id_number_with_the_status_as_feedback():
    grades = _server_like_class()
    rows = rows_of(gradebook_csv(QUIZ, grades, "moodle", "en"))
    header = rows[0]
    assert header[:2] == ["ID number", "Full name"] and header[3:] == ["Feedback", "status"]
    by_id = {row[0]: row for row in rows[1:]}
    assert [by_id[s][4] for s in ("s1", "s2", "s3", "s4", "s5")] == [
        "submitted",
        "taken at close",
        "extended",
        "rejected",
        "did not submit",
    ]
    for student, row in by_id.items():  # Moodle's rule: a number, or "-"/empty for no grade
        assert row[2] == "-" or float(row[2]) >= 0, student
    assert by_id["s4"][2] == by_id["s5"][2] == "-" and by_id["s1"][2] == "3"
    assert by_id["s2"][3] == "taken at close" and by_id["s4"][3] == "rejected; bad"
    zh = {row[0]: row for row in rows_of(gradebook_csv(QUIZ, grades, "moodle", "zh"))[1:]}
    assert zh["s2"][3] == "截止时收卷" and zh["s5"][3] == "未提交"


def test_the_plain_gradebook_separates_every_status():
    rows = {row[0]: row for row in rows_of(gradebook_csv(QUIZ, _server_like_class()))[1:]}
    assert [rows[s][5] for s in ("s1", "s2", "s3", "s4", "s5")] == [
        "submitted",
        "taken at close",
        "extended",
        "rejected",
        "did not submit",
    ]
    assert rows["s2"][2] == "3" and rows["s4"][2] == "" and rows["s4"][-1] == "bad"


def test_quiz_grade_format_writes_each_and_refuses_an_unknown_one(tmp_path, capsys):
    quiz_file = write(tmp_path, "quiz.toml", dump_toml(QUIZ))
    sub = write(tmp_path, "ann.json", payload(QUIZ, "ann", right(QUIZ, "ann")))
    for fmt, first in (("canvas", "Student"), ("moodle", "ID number"), ("plain", "student_id")):
        out = tmp_path / f"{fmt}.csv"
        assert main(["quiz", "grade", str(quiz_file), str(sub), "--format", fmt, "--csv", str(out)]) == 0
        assert out.read_text(encoding="utf-8").startswith(first)
    capsys.readouterr()
    assert exit_code(["--lang", "zh", "quiz", "grade", str(quiz_file), str(sub), "--format", "excel"]) == 2
    assert "canvas" in capsys.readouterr().err


def test_server_exams_are_submitted_taken_at_close_extended_or_rejected(tmp_path):
    """A quiz on the class server: who handed in, whose exam the close took, who had more
    time; `quiz grade --class`'s grading says which."""
    sys.path.insert(0, str(Path(__file__).parent))
    from class_web_helpers import PINS, make_class, open_quiz

    from exercises.classdb import Student as ClassStudent
    from exercises.classdb.grading import grade_from_store

    store = make_class(tmp_path / "class")
    try:
        store.add_student(ClassStudent("s3", "Cat", "student"), "pin-three-3", 1_000.0)
        opened = open_quiz(store, 2_000.0, minutes=20)
        sessions = {}
        for student, pin in (("s1", PINS["s1"]), ("s2", PINS["s2"]), ("s3", "pin-three-3")):
            assert store.sign_in(student, pin, 2_000.0, "test").ok
            sessions[student] = store.session(store.start_session(student, 2_000.0), 2_000.0)
            sessions[student].start_exam(2_010.0)
            sessions[student].save_answer("0:answer", "1", 2_020.0)
        store.extend_time("s3", 300)
        sessions["s1"].submit(2_100.0)
        sessions["s3"].submit(2_150.0)
        store.close_quiz(2_200.0)  # s2 never handed in: the close took what was saved
        _quiz, result = grade_from_store(store, opened.quiz_id)
        statuses = {g.student: g.status for g in result.grades}
        assert statuses == {"s1": "submitted", "s2": "taken at close", "s3": "extended"}
        assert all(g.graded for g in result.grades)
    finally:
        store.close()


# -- issue 21: score distributions a teacher reads at a glance ------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=100), max_size=60))
def test_score_bins_count_every_student_once_in_the_right_bin(percents):
    from exercises.classroom.histogram import bar_lines, score_bins

    bins = score_bins(percents)
    full = [p >= 100 - 1e-9 for p in percents]  # 99.99999999999999 is full marks summed in floats
    assert [b.count for b in bins] == [
        sum(
            1
            for p, f in zip(percents, full, strict=True)
            if (f if n == 10 else not f and 10 * n <= p < 10 * n + 10)
        )
        for n in range(11)
    ]
    lines = bar_lines(bins)
    assert len(lines) == 11 and all(len(line) <= 80 for line in lines)
    most = max((b.count for b in bins), default=0)
    for line, entry in zip(lines, bins, strict=True):
        cells = line.split("│", 1)[1]
        drawn = sum(1 for c in cells if c == "█") + sum(
            (" ▏▎▍▌▋▊▉".index(c)) / 8 for c in cells if c in "▏▎▍▌▋▊▉"
        )
        assert (drawn > 0) == (entry.count > 0)
        if most:
            assert abs(drawn - 50 * entry.count / most) <= 1 / 8 + 1e-9


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=500), min_size=4, max_size=4), st.integers(8, 40))
def test_a_stacked_bar_is_exactly_its_width_and_shows_every_kind_present(counts, width):
    from exercises.classroom.histogram import SHADES, stacked_bar

    drawn = stacked_bar(counts, width)
    assert len(drawn) == width
    if sum(counts):
        for shade, count in zip(SHADES, counts, strict=True):
            assert (shade in drawn) == (count > 0)
            assert abs(drawn.count(shade) - width * count / sum(counts)) <= len(
                counts
            )  # rare kinds take a cell


def test_the_report_and_the_terminal_show_the_distributions_in_both_languages(tmp_path, capsys):
    from exercises.classroom.histogram import columns

    paths, _ = _class(tmp_path, 30)
    quiz_file = write(tmp_path, "quiz.toml", dump_toml(CHOICE_QUIZ))
    for lang, heading, legend in (("en", "Score distribution", "█ right"), ("zh", "分数分布", "█ 全对")):
        report = tmp_path / f"report-{lang}.md"
        capsys.readouterr()
        argv = ["--lang", lang, "quiz", "grade", str(quiz_file), *map(str, paths), "--report", str(report)]
        assert main(argv) == 0
        out = capsys.readouterr().out
        text = report.read_text(encoding="utf-8")
        assert f"## {heading}" in text and legend in text and legend in out
        assert "```text\n" in text  # bars in a code block: Markdown keeps them as drawn
        block = text.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
        assert len(block) == 11 and block[-1].startswith("   100 │")
        book = rows_of(gradebook_csv(CHOICE_QUIZ, grade_class(CHOICE_QUIZ, paths, now=NOW).grades))
        percents = [float(row[4]) for row in book[1:]]
        assert block[-1].split("│")[1].split()[-2] == str(sum(1 for p in percents if p == 100))
        bars = [line for line in out.splitlines() if "│" in line]
        assert len(bars) == 11 + len(CHOICE_QUIZ.exercises)
        assert all(columns(line) <= 80 for line in out.splitlines()), max(out.splitlines(), key=columns)
        for index, worth in enumerate((2.0, 1.0)):  # each question's counts against the gradebook's points
            points = [float(row[7 + index]) for row in book[1:]]
            expected = [
                sum(1 for p in points if p == worth),
                sum(1 for p in points if 0 < p < worth),
                sum(1 for p in points if p == 0),
                0,
            ]
            line = next(line for line in bars if line.startswith(f"q{index + 1} "))
            assert [int(n) for n in line.split("│")[-1].split()] == expected, line


def test_a_touched_release_file_or_a_broken_autosave_is_skipped_not_rejected(tmp_path):
    """Neither is a submission, readable or not: the teacher's exit status stays 0."""
    quiz, quiz_file = _after_release_quiz(tmp_path)
    from exercises.classroom.release import release_stem

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / release_stem(quiz)).touch()
    write(inbox, f"{file_stem('ann')}.{quiz.id}.autosave.json", "{broken")
    write(inbox, "ann.json", payload(quiz, "ann", {}))
    result = grade_class(quiz, sorted(inbox.iterdir()), now=NOW)
    assert result.rejected == [] and len(result.skipped) == 2
    assert [(g.student, g.status) for g in result.grades] == [("ann", "submitted")]
    assert main(["quiz", "grade", str(quiz_file), str(inbox)]) == 0
