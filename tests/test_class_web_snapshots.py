"""Snapshots of the class server's screens (80x24, both languages): the teacher's
dashboard with a quiz under way, and the message an ended session leaves."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from class_web_helpers import PINS, make_class, open_quiz

from exercises.learner.store import Attempt

NOW = 30_000.0


@pytest.fixture
def classroom(tmp_path):
    store = make_class(tmp_path / "class")
    open_quiz(store, NOW - 300, minutes=20)
    for student in ("s1", "s2"):
        assert store.sign_in(student, PINS[student], NOW - 200, "test").ok
    one_token = store.start_session("s1", NOW - 200)
    one = store.session(one_token, NOW - 200)
    one.start_exam(NOW - 200)
    one.heartbeat(NOW - 1, "exam|4/26")
    store.seen(one_token, NOW - 1)  # the server saw the tab
    two_token = store.start_session("s2", NOW - 200)
    two = store.session(two_token, NOW - 200)
    two.heartbeat(NOW - 100, "mlm|2/26")
    store.seen(two_token, NOW - 100)
    two.learner_store().record(
        Attempt(
            "mlm-abcde", "mlm", 3, {"labels": "x"}, 0.0, True, True, False, ["label-is-mask"], at=NOW - 60
        )
    )
    yield store, tmp_path / "class"
    store.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_dashboard(snap_compare, classroom, lang):
    from tui.screens.dashboard import DashboardApp

    store, folder = classroom
    app = DashboardApp(store, folder, lang=lang, clock=lambda: NOW)
    assert snap_compare(app, terminal_size=(80, 24))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_session_ended(snap_compare, classroom, lang):
    from tui.classweb.student_app import ClassTutorApp

    store, _folder = classroom
    assert store.sign_in("s2", PINS["s2"], NOW, "test").ok
    session = store.session(store.start_session("s2", NOW), NOW)
    app = ClassTutorApp(session, lang=lang, clock=lambda: NOW, load_engine=False, still=True)

    async def ended(pilot) -> None:
        await pilot.pause()
        app.end_session("signed-in-elsewhere")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=ended)
