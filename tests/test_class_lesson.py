"""What broke in a real lesson on the class server (issue 21), each as the teacher
or a student met it: the quiz closed while students answer, results released to
students, a roster name with brackets, a negative extension, a long answer. Pilot,
injected clocks, no sleeps."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from class_web_helpers import Clock as ServerClock
from class_web_helpers import make_class, open_quiz, quiz_text, signed_in


def Clock(now: float = 10_000.0) -> ServerClock:
    return ServerClock(now)


@pytest.fixture
def store(tmp_path):
    store = make_class(tmp_path / "class")
    yield store
    store.close()


def app_for(session, clock, lang="en"):
    from tui.classweb.student_app import ClassTutorApp

    return ClassTutorApp(session, lang=lang, clock=clock, load_engine=False, still=True)


def _visible(app) -> str:
    from textual.widgets import Static

    parts = []
    for widget in app.screen.query(Static):
        if widget.display and widget.visible:
            parts.append(str(widget.render()))
    return "\n".join(parts)


def released_quiz_text(minutes: int = 20) -> str:
    from dataclasses import replace

    from exercises.classroom.quiz import dump_toml, loads

    return dump_toml(replace(loads(quiz_text(minutes)), results="after-release"))


def open_released_quiz(store, now: float):
    from exercises.classdb.render import render_questions
    from exercises.classroom.quiz import loads

    text = released_quiz_text()
    students = [s.id for s in store.students() if s.role == "student"]
    return store.open_quiz(text, now, "Quiz 1", questions=render_questions(loads(text), students))


async def type_first_answer(pilot, text: str) -> None:
    await pilot.pause(0.2)
    await pilot.press(*text)
    await pilot.pause()


@pytest.mark.parametrize("lang, words", [("en", "teacher closed the quiz"), ("zh", "老师已关闭测验")])
async def test_closing_the_quiz_while_a_student_answers_submits_what_is_saved(store, lang, words):
    from tui.screens.exam import ExamScreen

    clock = Clock()
    opened = open_quiz(store, clock.now, minutes=20)
    session = signed_in(store, "s1", clock.now)
    app = app_for(session, clock, lang)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_first_answer(pilot, "12.5")
        clock.now += 30
        store.close_quiz(clock.now)
        clock.now += 10
        app.beat()
        app.screen._tick()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, ExamScreen) and app.ended is None  # no crash, not "signed in elsewhere"
        assert app.exam.submitted_at is not None
        shown = _visible(app)
        assert words in shown
        # results of an after-submit quiz are shown at once
        assert ("Your results" if lang == "en" else "你的成绩") in shown
    kept = session.exam(opened.quiz_id)
    assert list(kept.answers.values()) == ["12.5"]


def _student_s2_in_zh(store):
    """A released quiz opened, student s2 signed in, and their app in zh."""
    clock = Clock()
    opened = open_released_quiz(store, clock.now)
    session = signed_in(store, "s2", clock.now)
    return clock, opened, session, app_for(session, clock, "zh")


async def test_results_released_after_the_quiz_closed_reach_the_student_on_reload(store):
    clock, opened, session, app = _student_s2_in_zh(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_first_answer(pilot, "3")
        app.exam.submit()
        app.screen.show_results()
        await pilot.pause()
        assert "成绩由老师稍后发布" in _visible(app)
    again = _released_and_reloaded(store, opened, session, clock)
    async with again.run_test(size=(100, 30)) as pilot:
        await _settled(again, pilot)
        assert "你的成绩" in _visible(again)


def _released_and_reloaded(store, opened, session, clock):
    """The quiz closes, its results are released, the student reloads: a new app (a new
    process) on the same session."""
    store.close_quiz(clock.now + 60)
    store.release_results(opened.quiz_id, clock.now + 120)
    clock.now += 200
    return app_for(session, clock, "zh")


async def _settled(app, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_ctrl_l_redraws_a_past_exams_results(store):
    """Out of exam mode, Ctrl+L works on the results of a closed quiz seen again: they
    stayed in the language they were first drawn in."""
    clock, opened, session, app = _student_s2_in_zh(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_first_answer(pilot, "3")
        app.exam.submit()
    again = _released_and_reloaded(store, opened, session, clock)
    async with again.run_test(size=(100, 30)) as pilot:
        await _settled(again, pilot)
        assert "你的成绩" in _visible(again) and again.exam is None
        await pilot.press("ctrl+l")
        await _settled(again, pilot)
        shown = _visible(again)
        assert again.lang == "en" and "Your results" in shown and "你的成绩" not in shown, shown


async def test_results_released_while_the_quiz_is_still_open_reach_the_student(store):
    clock = Clock()
    opened = open_released_quiz(store, clock.now)
    session = signed_in(store, "s1", clock.now)
    app = app_for(session, clock, "en")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_first_answer(pilot, "7")
        app.exam.submit()
        app.screen.show_results()
        await pilot.pause()
        assert "Your results" not in _visible(app)
        store.release_results(opened.quiz_id, clock.now + 5)
        clock.now += 10
        app.beat()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Your results" in _visible(app)
    again = app_for(session, clock, "en")
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await again.workers.wait_for_complete()
        await pilot.pause()
        assert "Your results" in _visible(again)


async def test_a_roster_name_with_brackets_is_shown_as_written(store, tmp_path):
    from textual.widgets import DataTable

    from exercises.classdb import Student
    from tui.screens.dashboard import NAME_CELLS, DashboardApp, _fit

    names = ["Anne [b]", "[/]", "[@click=app.quit]Quit[/]", "王[red]五"]
    store.add_students([(Student(f"x{n}", name), "PIN-0000") for n, name in enumerate(names)])
    app = DashboardApp(store, tmp_path / "class", lang="en", clock=Clock())
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#students", DataTable)
        shown = [str(table.get_row(f"x{n}")[3]) for n in range(len(names))]  # the name column
        assert shown == [_fit(name, NAME_CELLS) for name in names]  # as written (a long one cut with "…")
        await pilot.click("#students", offset=(30, 6))
        await pilot.pause()
        assert app.is_running


def test_a_negative_extension_as_documented_takes_time_back(tmp_path, capsys):
    from tui.cli import main

    folder = tmp_path / "class"
    store = make_class(folder)
    open_quiz(store, 1_000.0, minutes=20)
    store.extend_time("s1", 0)
    store.close()
    try:
        status = main(["class", "quiz", "extend", "s1", "-2m", "--class", str(folder), "--lang", "en"])
    except SystemExit as exit_:
        status = exit_.code
    _out, err = capsys.readouterr()
    assert status == 0, err
    from exercises.classdb import open_class_store

    with open_class_store(folder) as again:
        (exam,) = [e for e in again.exams(again.current_quiz().quiz_id) if e.student == "s1"]
        assert exam.extension == -120


@pytest.mark.parametrize("lang, words", [("en", "20,001 characters long"), ("zh", "20,001 个字符")])
async def test_an_answer_too_long_is_refused_in_words_and_nothing_is_lost(store, lang, words):
    from textual.widgets import Input

    from exercises.classroom.submission import MAX_TEXT
    from tui.screens.exam import QuestionView

    clock = Clock()
    open_quiz(store, clock.now, minutes=20)
    session = signed_in(store, "s1", clock.now)
    app = app_for(session, clock, lang)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_first_answer(pilot, "12")
        box = app.screen.query(QuestionView).first().query(Input).first()
        box.value = "7" * (MAX_TEXT + 1)  # a paste
        await pilot.pause()
        assert words in str(app.screen.query_one("#exam-status").render())
        assert box.value == "7" * (MAX_TEXT + 1)  # every character still in the box
        assert list(session.exam().answers.values()) == ["12"]  # the last saved version stays
        box.value = "7" * MAX_TEXT  # shortened: saved, and the warning goes
        await pilot.pause()
        assert list(session.exam().answers.values()) == ["7" * MAX_TEXT]
        assert str(app.screen.query_one("#exam-status").render()) == ""


@pytest.mark.slow
async def test_the_dashboard_at_80x24_reaches_every_student_with_the_quiz_columns_in_view(store, tmp_path):
    from class_web_helpers import screen_lines

    from exercises.classdb import Student
    from tui.screens.dashboard import DashboardApp

    clock = Clock()
    store.add_students([(Student(f"s{n:03d}", "欧阳" + "学生" * 11), "PIN-0000") for n in range(60)])
    open_quiz(store, clock.now, minutes=20)
    last = store.session(store.start_session("s059", clock.now), clock.now)
    last.start_exam(clock.now)
    app = DashboardApp(store, tmp_path / "class", lang="zh", clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(70):
            await pilot.press("down")
        await pilot.pause()
        lines = screen_lines(app)
        row = next(line for line in lines if "s059" in line)
        assert "作答中" in row and "20:00" in row  # the quiz and the time left, on screen
        header = next(line for line in lines if "学号" in line)
        assert "测验" in header and "剩余" in header
        assert any("开放测验" in line or "o" in line for line in lines[-1:])  # the footer's keys


async def test_the_exams_own_answers_count_in_the_live_misconceptions(store, tmp_path):
    from textual.widgets import DataTable

    from tui.screens.dashboard import DashboardApp

    clock = Clock()
    opened = open_quiz(store, clock.now, minutes=20)
    session = signed_in(store, "s1", clock.now)
    exam = session.start_exam(clock.now)
    question = next(q for q in exam.questions if q.exercise == "perplexity")
    session.save_answer(f"{question.index}:perplexity", str(question.variant["data"]["loss"]), clock.now)
    app = DashboardApp(store, tmp_path / "class", lang="en", clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()  # the quiz graded in a worker
        app.screen.refresh_data()
        await pilot.pause()
        rows = [
            [str(c) for c in app.screen.query_one("#panel", DataTable).get_row(k)]
            for k in app.screen.query_one("#panel", DataTable).rows
        ]
        assert any(r[2] == "quiz" and r[0] == "1" and "loss" in r[4].lower() for r in rows), rows
        await pilot.press("v")  # the histograms
        await pilot.pause()
        text = str(app.screen.query_one("#histograms").render())
        assert "The class (1 who started)" in text and "0-20%" in text
    assert opened.quiz_id
