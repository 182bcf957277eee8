"""The teacher's class commands (issue 15): class init, class quiz open|close|extend|
release|list and quiz grade --class, through the real command line (tui.cli.main):
rosters as teachers' spreadsheets write them, and as people trying to break them."""

from __future__ import annotations

import csv
import io
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exercises.catalogue import get
from exercises.classdb import answer_key
from exercises.classdb.folder import PIN_FILE, init_class, open_class
from exercises.classroom.identity import RosterError, decode_roster, read_roster
from exercises.classroom.quiz import dump_toml, new_quiz
from tests import pg_server
from tui.cli import main

T0 = 1_800_000_000.0


def run(argv, capsys) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


def pins_of(folder, name=PIN_FILE) -> dict[str, dict]:
    return {
        row["id"]: row for row in csv.DictReader(io.StringIO((folder / name).read_text(encoding="utf-8")))
    }


ROSTER = "\ufeff学号,姓名\r\ns001,张三\r\ns002,=cmd()\r\nS003,\r\n\r\n李四,李四\r\n".encode()


def test_init_makes_a_class_with_a_private_pin_file(tmp_path, capsys):
    (tmp_path / "roster.csv").write_bytes(ROSTER)
    status, _, err = run(
        ["class", "init", str(tmp_path / "c"), "--roster", str(tmp_path / "roster.csv")], capsys
    )
    assert (status, err) == (0, "")
    pin_file = tmp_path / "c" / PIN_FILE
    assert stat.S_IMODE(pin_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "c" / "class.db").stat().st_mode) == 0o600
    pins = pins_of(tmp_path / "c")
    assert list(pins) == ["s001", "s002", "S003", "李四", "teacher"]
    assert pins["s002"]["name"] == "'=cmd()"  # a spreadsheet shows it as text
    with open_class(tmp_path / "c") as store:
        assert [s.name for s in store.students()] == ["张三", "=cmd()", "", "李四", "teacher"]  # kept exactly
        for student_id, row in pins.items():
            assert store.sign_in(student_id, row["pin"], T0).ok
        assert store.sign_in("s001", pins["s002"]["pin"], T0).reason == "bad-pin"


def test_init_refuses_an_existing_class_and_never_rewrites_pins(tmp_path, capsys):
    (tmp_path / "roster.csv").write_bytes(ROSTER)
    argv = ["class", "init", str(tmp_path / "c"), "--roster", str(tmp_path / "roster.csv")]
    assert run(argv, capsys)[0] == 0
    before = (tmp_path / "c" / PIN_FILE).read_bytes()
    for lang, word in (("en", "already holds a class"), ("zh", "已有班级")):
        status, _, err = run([*argv, "--lang", lang], capsys)
        assert status == 2 and word in err and err.count("\n") == 1
    assert (tmp_path / "c" / PIN_FILE).read_bytes() == before
    # --add: only the new students, in a new file; the old PINs still work
    (tmp_path / "roster.csv").write_bytes(ROSTER + b"s004,New\r\n")
    status, _, _ = run([*argv, "--add"], capsys)
    assert status == 0
    added = [p for p in (tmp_path / "c").iterdir() if p.name.startswith("pins-added-")]
    assert len(added) == 1 and list(pins_of(tmp_path / "c", added[0].name)) == ["s004"]
    assert stat.S_IMODE(added[0].stat().st_mode) == 0o600
    assert (tmp_path / "c" / PIN_FILE).read_bytes() == before
    with open_class(tmp_path / "c") as store:
        assert store.sign_in("s001", pins_of(tmp_path / "c")["s001"]["pin"], T0).ok


@pytest.mark.parametrize(
    "roster, words",
    [
        (b"a,1\nb,2\na,3\n", "line 3"),  # a duplicate id names both lines
        (b"\n\n  \n", "no students"),
        (b"\xff\xfe\x00\x00" * 50 + b"\x81", "neither UTF-8 nor GB18030"),
        (b"teacher,Ms T\n", "--teacher-id"),
        (b"\x1b[2Jevil,x\n", "printable"),
        (b"x" * 300 + b",name\n", "200"),
        (b"ok,1\n,nameless\n", "line 2"),
    ],
)
def test_bad_rosters_are_one_line_and_make_nothing(tmp_path, capsys, roster, words):
    (tmp_path / "r.csv").write_bytes(roster)
    status, _, err = run(["class", "init", str(tmp_path / "c"), "--roster", str(tmp_path / "r.csv")], capsys)
    assert status == 2 and words in err and err.count("\n") == 1 and "Traceback" not in err
    assert "\x1b" not in err
    assert not (tmp_path / "c" / PIN_FILE).exists()


def test_a_missing_roster_and_a_file_for_a_folder(tmp_path, capsys):
    status, _, err = run(
        ["class", "init", str(tmp_path / "c"), "--roster", str(tmp_path / "none.csv")], capsys
    )
    assert status == 2 and "cannot read" in err
    (tmp_path / "r.csv").write_text("a,1\n")
    (tmp_path / "file").write_text("x")
    status, _, err = run(
        ["class", "init", str(tmp_path / "file"), "--roster", str(tmp_path / "r.csv")], capsys
    )
    assert status == 2 and "not a folder" in err


def test_ten_thousand_students(tmp_path):
    text = "id,name\r\n" + "".join(f"s{n:05d},学生{n}\r\n" for n in range(10_000))
    roster = read_roster(decode_roster(text.encode("gb18030")))
    assert len(roster) == 10_000 and roster[-1].id == "s09999"
    made = init_class(tmp_path / "c", roster, pin_cost=2**4)
    assert made.added == 10_001
    with open_class(tmp_path / "c") as store:
        students = store.students()
        assert len(students) == 10_001 and students[9_999].name == "学生9999"
        assert store.sign_in("s09999", roster[-1].pin, T0).ok


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.text(max_size=12), st.text(max_size=12)), min_size=0, max_size=4), st.booleans())
def test_any_roster_either_makes_a_class_or_says_why_in_one_line(tmp_path_factory, rows, crlf):
    folder = tmp_path_factory.mktemp("fuzz")
    end = "\r\n" if crlf else "\n"
    text = end.join(",".join(cell.replace(",", " ") for cell in row) for row in rows)
    try:
        roster = read_roster(decode_roster(text.encode("utf-8", "surrogatepass")))
    except RosterError as error:
        assert "\n" not in str(error)
        return
    try:
        made = init_class(folder / "c", roster, pin_cost=2**4, teacher_id="teacher-of-the-class")
    except Exception as error:  # the only acceptable failure is the one-line kind
        from exercises.classdb import ClassStoreError

        assert isinstance(error, ClassStoreError) and "\n" not in str(error)
        return
    with open_class(folder / "c") as store:
        assert [s.id for s in store.students()][:-1] == [s.id for s in roster]
        assert made.added == len(roster) + 1


# -- quizzes on the server ------------------------------------------------------------------


@pytest.fixture
def class_dir(tmp_path, capsys):
    (tmp_path / "roster.csv").write_text("s001,Ann\ns002,Bo\ns003,Cy\n", encoding="utf-8")
    assert (
        run(["class", "init", str(tmp_path / "c"), "--roster", str(tmp_path / "roster.csv")], capsys)[0] == 0
    )
    quiz = new_quiz("Week 1", ["clm-shift", "concept-80-10-10"], 10)
    (tmp_path / "q.toml").write_text(dump_toml(quiz), encoding="utf-8")
    return tmp_path / "c"


def test_a_quiz_opened_taken_closed_and_graded_from_the_database(class_dir, tmp_path, capsys):
    where = ["--class", str(class_dir)]
    status, out, err = run(["class", "quiz", "open", str(tmp_path / "q.toml"), *where], capsys)
    assert status == 0 and "3 students" in out
    status, _, err = run(["class", "quiz", "open", str(tmp_path / "q.toml"), *where, "--lang", "zh"], capsys)
    assert status == 2 and "仍在进行" in err
    pins = pins_of(class_dir)
    with open_class(class_dir) as store:
        for number, student in enumerate(("s001", "s002")):
            assert store.sign_in(student, pins[student]["pin"], T0).ok
            session = store.session(store.start_session(student, T0), T0)
            exam = session.start_exam(T0)
            assert [q.exercise for q in exam.questions] == ["clm-shift", "concept-80-10-10"]
            for question in exam.questions:  # s001 answers with the engine's solution, s002 leaves q2
                if number == 1 and question.index == 1:
                    continue
                solution = get(question.exercise).solve(question.to_variant())
                for part, text in solution.items():
                    session.save_answer(answer_key(question.index, part), text, T0 + 5)
            if number == 0:
                session.submit(T0 + 10)
    assert run(["class", "quiz", "extend", "s003", "5m", *where], capsys)[0] == 0
    status, out, _ = run(["class", "quiz", "close", *where], capsys)
    assert status == 0 and "2 started, 1 submitted" in out
    status, _, err = run(["class", "quiz", "close", *where], capsys)
    assert status == 2 and "no quiz is open" in err
    book = tmp_path / "book.csv"
    status, out, err = run(
        ["quiz", "grade", *where, "--csv", str(book), "--report", str(tmp_path / "r.md")], capsys
    )
    assert status == 0, err
    rows = {row["student_id"]: row for row in csv.DictReader(io.StringIO(book.read_text(encoding="utf-8")))}
    assert (rows["s001"]["points"], rows["s001"]["status"]) == ("2", "submitted")
    assert (rows["s002"]["points"], rows["s002"]["status"]) == ("1", "taken at close")
    assert rows["s003"]["status"] == "did not submit"
    assert "Week 1" in (tmp_path / "r.md").read_text(encoding="utf-8")
    assert run(["class", "quiz", "release", *where], capsys)[0] == 0
    status, out, _ = run(["class", "quiz", "list", *where], capsys)
    assert "closed · results released; 2 started, 1 submitted" in out


@pytest.mark.parametrize("given, minutes", [("5m", "5"), ("９０", "1.5"), ("1h", "60"), ("300s", "5")])
def test_extend_reads_times_as_people_write_them(class_dir, tmp_path, capsys, given, minutes):
    where = ["--class", str(class_dir)]
    with open_class(class_dir) as store:
        store.open_quiz((tmp_path / "q.toml").read_text(), T0)
    status, out, err = run(["class", "quiz", "extend", "s002", given, *where], capsys)
    assert status == 0 and f"+{minutes} minutes in all" in out, err


@pytest.mark.parametrize("given", ["abc", "5 days", "9" * 5000, "1e9", "--", "nan"])
def test_extend_refuses_what_is_not_a_time(class_dir, capsys, given):
    status, _, err = run(["class", "quiz", "extend", "s002", given, "--class", str(class_dir)], capsys)
    assert status == 2 and err.count("\n") == 1


def test_commands_on_a_folder_without_a_class_say_so(tmp_path, capsys):
    for argv in (
        ["class", "quiz", "close", "--class", str(tmp_path)],
        ["class", "quiz", "list", "--class", str(tmp_path / "nope")],
        ["quiz", "grade", "--class", str(tmp_path)],
    ):
        status, _, err = run(argv, capsys)
        assert status == 2 and "class init" in err and err.count("\n") == 1


def test_a_bad_quiz_file_is_refused_before_anything_opens(class_dir, tmp_path, capsys):
    (tmp_path / "bad.toml").write_bytes(b"\xff\xfe not text")
    (tmp_path / "worse.toml").write_text('id = "x"\n[[questions]]\nexercise = "no-such"\n')
    for name in ("bad.toml", "worse.toml", "missing.toml"):
        status, _, err = run(
            ["class", "quiz", "open", str(tmp_path / name), "--class", str(class_dir)], capsys
        )
        assert status == 2 and err.count("\n") == 1
    with open_class(class_dir) as store:
        assert store.current_quiz() is None


@pytest.mark.parametrize(("lang", "words"), [("en", "code-lab"), ("zh", "代码实验")])
def test_a_quiz_with_a_lab_task_is_refused_on_the_class_server(class_dir, tmp_path, capsys, lang, words):
    """Tried by hand: opening it crashed in the rendering ("no exercise 'lab:causal_mask'"). A
    lab answer is a file on the student's machine, out of a browser session's reach."""
    quiz = new_quiz("Week 2", ["clm-shift", "lab:causal_mask"], 10)
    (tmp_path / "lab.toml").write_text(dump_toml(quiz), encoding="utf-8")
    status, _, err = run(
        ["--lang", lang, "class", "quiz", "open", str(tmp_path / "lab.toml"), "--class", str(class_dir)],
        capsys,
    )
    assert status == 2 and err.count("\n") == 1 and words in err and "lab:causal_mask" in err
    with open_class(class_dir) as store:
        assert store.current_quiz() is None


def test_quiz_grade_without_files_or_a_class_is_a_usage_error(capsys):
    status, _, err = run(["quiz", "grade"], capsys)
    assert status == 2 and "--class" in err


def test_a_postgresql_class_needs_its_url_every_time(tmp_path, capsys, monkeypatch, postgres_url):
    (tmp_path / "r.csv").write_text("s001,Ann\n")
    with pg_server.fresh_url(postgres_url) as url:
        assert (
            run(
                ["class", "init", str(tmp_path / "c"), "--roster", str(tmp_path / "r.csv"), "--db", url],
                capsys,
            )[0]
            == 0
        )
        assert not (tmp_path / "c" / "class.db").exists()
        status, _, err = run(["class", "quiz", "list", "--class", str(tmp_path / "c")], capsys)
        assert status == 2 and "--db" in err
        status, out, _ = run(["class", "quiz", "list", "--class", str(tmp_path / "c"), "--db", url], capsys)
        assert status == 0 and "no quiz yet" in out
        monkeypatch.setenv("OBJECTIVES_TUTOR_DB", url)  # the URL kept out of the process list
        status, out, _ = run(["class", "quiz", "list", "--class", str(tmp_path / "c")], capsys)
        assert status == 0 and "no quiz yet" in out
        pin = pins_of(tmp_path / "c")["s001"]["pin"]
        with open_class(tmp_path / "c", url) as store:
            assert store.sign_in("s001", pin, T0).ok


def test_students_added_while_a_quiz_is_open_get_their_questions(class_dir, tmp_path, capsys):
    where = ["--class", str(class_dir)]
    assert run(["class", "quiz", "open", str(tmp_path / "q.toml"), *where], capsys)[0] == 0
    with open_class(class_dir) as store:
        quiz_id = store.current_quiz().quiz_id
        before = store.questions(quiz_id, "s001")
    (tmp_path / "roster.csv").write_text("s001,Ann\ns002,Bo\ns003,Cy\ns004,Di\n", encoding="utf-8")
    argv = ["class", "init", str(class_dir), "--roster", str(tmp_path / "roster.csv"), "--add"]
    assert run(argv, capsys)[0] == 0
    with open_class(class_dir) as store:
        assert store.questions(quiz_id, "s001") == before
        from exercises.classroom.quiz import loads, questions_for

        expected = questions_for(loads((tmp_path / "q.toml").read_text()), "s004")
        got = store.questions(quiz_id, "s004")
        assert [(q.exercise, q.seed) for q in got] == [(q.exercise, q.seed) for q in expected]
        assert store.add_questions(quiz_id, {"s004": [], "s001": []}) == 0  # stored ones never change


@pytest.mark.parametrize(
    "typed, found", [("ｓ００２", True), (" S002 ", True), ("s0002", False), ("\x1b[2J", False)]
)
def test_extend_finds_the_student_as_sign_in_does(class_dir, tmp_path, capsys, typed, found):
    with open_class(class_dir) as store:
        store.open_quiz((tmp_path / "q.toml").read_text(), T0)
    status, out, err = run(["class", "quiz", "extend", typed, "2m", "--class", str(class_dir)], capsys)
    if found:
        assert status == 0 and "s002: +2 minutes in all" in out
    else:
        assert status == 2 and "no single student" in err and "\x1b" not in err


def test_the_class_commands_that_compute_nothing_import_no_torch(class_dir, tmp_path):
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from tui.cli import main\n"
        f"for argv in (['class', 'quiz', 'list', '--class', {str(class_dir)!r}],\n"
        f"             ['class', 'quiz', 'close', '--class', {str(class_dir)!r}]):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted(m for m in ('torch', 'textual') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr
