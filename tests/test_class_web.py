"""The class server's student app (Pilot, injected clock): each student on their own
rows, the exam lock-down when a quiz opens, answers on the server as typed, the
server's clock, a resumed exam, and one session per student."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from class_web_helpers import PINS, make_class, open_quiz

from exercises.classdb import SessionEnded


class Clock:
    """The server's clock, moved by the test."""

    def __init__(self, now: float = 10_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def signed_in(store, student: str, now: float):
    assert store.sign_in(student, PINS[student], now, "test").ok
    return store.session(store.start_session(student, now), now)


@pytest.fixture
def store(tmp_path):
    store = make_class(tmp_path / "class")
    yield store
    store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request, tmp_path):
    """The same class on either database."""
    if request.param == "sqlite":
        store = make_class(tmp_path / "class")
        yield store
        store.close()
        return
    import pg_server

    with pg_server.fresh_url(request.getfixturevalue("postgres_url")) as url:
        store = make_class(tmp_path / "class", db_url=url)
        yield store
        store.close()


def app_for(session, clock, lang="en"):
    from tui.classweb.student_app import ClassTutorApp

    return ClassTutorApp(session, lang=lang, clock=clock, load_engine=False, still=True)


async def test_a_quiz_opened_mid_lesson_takes_over_and_answers_reach_the_server(any_store):
    store = any_store
    from tui.screens.exam import ExamScreen, QuestionView

    clock = Clock()
    session = signed_in(store, "s1", clock.now)
    app = app_for(session, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not isinstance(app.screen, ExamScreen) and app.exam is None
        open_quiz(store, clock.now, minutes=20)
        clock.now += 5
        app.beat()  # the heartbeat notices the quiz
        await pilot.pause()
        assert isinstance(app.screen, ExamScreen)
        await pilot.press("escape", "ctrl+p", "f1", "escape")  # no way back, no palette
        await pilot.pause()
        assert isinstance(app.screen, ExamScreen)
        assert app.use_command_palette is False
        assert not app.check_action("command_palette", ())
        app.open_lesson("clm")  # no way out to a lesson
        app.open_page("history")
        await pilot.pause()
        assert isinstance(app.screen, ExamScreen)
        await pilot.pause(0.2)
        assert len(app.screen.query(QuestionView)) == 2  # shown without the engine
        await pilot.press(*"12.5")
        await pilot.pause()
        exam = session.exam()
        assert exam.started_at == 10_005.0  # the server's clock at the first open
        assert exam.answers_by_question() == {0: {next(iter(exam.answers_by_question()[0])): "12.5"}}


async def test_the_exam_resumes_from_the_server_after_a_dropped_connection(any_store):
    store = any_store
    from tui.screens.exam import ExamScreen, QuestionView

    clock = Clock()
    open_quiz(store, clock.now, minutes=20)
    first = signed_in(store, "s1", clock.now)
    app = app_for(first, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        assert isinstance(app.screen, ExamScreen)
        await pilot.press(*"42")
        await pilot.pause()
    clock.now += 60
    # the browser reconnects: a new process on the same session
    again = first
    app = app_for(again, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        view = app.screen.query(QuestionView).first()
        from textual.widgets import Input

        assert view.query(Input).first().value == "42"
        assert again.exam().started_at == 10_000.0  # the clock did not restart
        left = app.exam.seconds_left()
        assert left == pytest.approx(20 * 60 - 60)


async def test_the_server_clock_ends_the_exam_and_a_late_answer_is_refused(any_store):
    store = any_store
    from exercises.classdb import GRACE_SECONDS

    clock = Clock()
    open_quiz(store, clock.now, minutes=1)
    session = signed_in(store, "s1", clock.now)
    app = app_for(session, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        await pilot.press(*"7")
        await pilot.pause()
        clock.now += 60 + GRACE_SECONDS + 1
        from exercises.catalogue import get

        second = app.exam.questions()[1]
        app.exam.set_answer(1, get(second.exercise).parts[0].name, "late")
        assert app.exam.refused == "time-up"
        assert 1 not in session.exam().answers_by_question()
        app.screen._tick()  # the countdown reaches zero: handed in
        await pilot.pause()
        assert app.exam.submitted_at is not None
    assert session.exam().answers_by_question()[0]  # what was saved in time counts


async def test_a_student_signed_in_twice_keeps_one_session_the_older_one_says_so(any_store):
    store = any_store
    from tui.screens.session_ended import SessionEndedScreen

    clock = Clock()
    older = signed_in(store, "s2", clock.now)
    app = app_for(older, clock, lang="zh")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        signed_in(store, "s2", clock.now + 1)  # the same student, another browser
        app.beat()
        await pilot.pause()
        assert isinstance(app.screen, SessionEndedScreen)
        text = str(app.screen.query_one("#ended").render())
        assert "你在别处登录了" in text
        app.open_lesson("clm")
        await pilot.pause()
        assert isinstance(app.screen, SessionEndedScreen)
    with pytest.raises(SessionEnded):
        older.heartbeat(clock.now + 2, "home")
    assert older.learner_store().attempts() == []  # the ended session reads nothing


async def test_each_student_has_their_own_settings_and_history(store):
    clock = Clock()
    one, two = signed_in(store, "s1", clock.now), signed_in(store, "s2", clock.now)
    app = app_for(one, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.action_toggle_language()  # s1 prefers Chinese
        await pilot.pause()
    assert one.learner_store().settings().get("lang") == "zh"
    assert "lang" not in two.learner_store().settings()
    app = app_for(two, clock, lang=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.progress.setting("lang") != "zh"


async def test_a_quiz_opened_without_rendered_questions_is_shown_once_the_engine_is_there(store):
    from class_web_helpers import quiz_text

    from exercises.classroom.quiz import loads, questions_for
    from tui.screens.exam import QuestionView

    clock = Clock()
    text = quiz_text(10)
    store.open_quiz(text, clock.now, "unrendered")  # no questions stored
    session = signed_in(store, "s1", clock.now)
    app = app_for(session, clock)
    assert app.exam.rendered is False
    expected = [q.exercise for q in questions_for(loads(text), "s1")]
    assert [q.exercise for q in app.exam.questions()] == expected
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not app.screen.query(QuestionView)  # waiting for the engine, not showing nothing
        app.engine_loaded = True
        await pilot.pause(0.5)
        assert len(app.screen.query(QuestionView)) == 2


async def test_the_code_lab_stays_on_the_learners_own_machine(store):
    """Its files would be the server's, shared by every session: refused with a message."""
    from tui.screens.lab import LabScreen

    clock = Clock()
    app = app_for(signed_in(store, "s1", clock.now), clock, lang="zh")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.push_screen(LabScreen(Path("/tmp"), None))
        await pilot.pause()
        assert not isinstance(app.screen, LabScreen)
        assert any("代码实验" in str(n.message) for n in app._notifications)


async def test_a_served_answer_box_keeps_a_steady_cursor(store):
    """A blinking cursor repaints its box twice a second in every open tab: a class of
    idle exams kept the server's cores busy. In a served session it stays still."""
    from textual.widgets import Input

    from tui.screens.exam import QuestionView

    clock = Clock()
    open_quiz(store, clock.now, minutes=20)
    from tui.classweb.student_app import ClassTutorApp

    app = ClassTutorApp(signed_in(store, "s1", clock.now), lang="en", clock=clock, load_engine=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(100):
            if app.screen.query(QuestionView) and isinstance(app.focused, Input):
                break
            await pilot.pause(0.05)
        assert isinstance(app.focused, Input) and app.focused.cursor_blink is False


async def test_signed_in_elsewhere_mid_answer_is_one_message_not_a_traceback(store):
    """issue 31: a second browser's sign-in while the first typed an answer raised
    SessionEnded in the keystroke's handler: the app crashed with a ~75-line traceback on
    the server's console. An expected end is the "signed in elsewhere" screen."""
    from tui.screens.exam import ExamScreen
    from tui.screens.session_ended import SessionEndedScreen

    clock = Clock()
    open_quiz(store, clock.now, minutes=20)
    older = signed_in(store, "s1", clock.now)
    app = app_for(older, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        assert isinstance(app.screen, ExamScreen)
        signed_in(store, "s1", clock.now + 1)  # another browser, before the next heartbeat
        await pilot.press(*"42")  # the save finds the session ended
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert isinstance(app.screen, SessionEndedScreen)
        assert "signed in somewhere else" in str(app.screen.query_one("#ended").render())


@pytest.mark.parametrize(
    "lang, submitted, never",
    [("en", "submitted ✓", "not submitted"), ("zh", "已交卷 ✓", "未交卷")],
)
async def test_the_results_page_says_whether_the_student_submitted(store, lang, submitted, never):
    """issue 31: a student who never submitted saw "已交卷 ✓" on their results (the
    gradebook says "taken at close"). The page says what happened, in their language."""
    clock = Clock()
    opened = open_quiz(store, clock.now, minutes=20)
    one, two = signed_in(store, "s1", clock.now), signed_in(store, "s2", clock.now)
    for session in (one, two):
        session.start_exam(clock.now)
        session.save_answer("0:perplexity", "4", clock.now + 1)
    one.submit(clock.now + 2)  # s1 hands in; s2 never does
    store.close_quiz(clock.now + 3)
    store.release_results(opened.quiz_id, clock.now + 4)
    clock.now += 5
    for session, expected, absent in ((one, submitted, never), (two, never, submitted)):
        app = app_for(session, clock, lang=lang)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause(0.2)
            app.screen._tick()
            assert expected in app.sub_title and absent not in app.sub_title, app.sub_title
