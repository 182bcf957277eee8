"""The teacher's dashboard (Pilot, injected clock): who is signed in and where, the
quiz's progress and time left, live misconception counts, and the actions."""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from class_web_helpers import PINS, make_class, open_quiz, quiz_text

from exercises.learner.store import Attempt


class Clock:
    def __init__(self, now: float = 20_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def classroom(tmp_path):
    folder = tmp_path / "class"
    store = make_class(folder)
    yield store, folder
    store.close()


def signed_in(store, student, now):
    assert store.sign_in(student, PINS[student], now, "test").ok
    token = store.start_session(student, now)
    session = store.session(token, now)
    session.token = token  # the server's: it marks the session seen (Sessions.seen)
    return session


def rows_of(table) -> dict[str, list[str]]:
    out = {}
    for key in table.rows:
        cells = [str(cell) for cell in table.get_row(key)]
        out[key.value] = cells
    return out


def dashboard(store, folder, clock, lang="en"):
    from tui.screens.dashboard import DashboardApp

    return DashboardApp(store, folder, lang=lang, clock=clock)


@pytest.mark.slow
async def test_the_dashboard_shows_the_class_and_the_quiz_with_the_servers_clock(classroom):
    from textual.widgets import DataTable

    store, folder = classroom
    clock = Clock()
    opened = open_quiz(store, clock.now, minutes=20)
    one = signed_in(store, "s1", clock.now)
    one.start_exam(clock.now)
    two = signed_in(store, "s2", clock.now)
    two.learner_store().record(
        Attempt(
            "mlm-abcde", "mlm", 0, {"labels": "x"}, 0.0, True, True, False, ["label-is-mask"], at=clock.now
        )
    )
    one.learner_store().record(
        Attempt(
            "mlm-abcde", "mlm", 1, {"labels": "y"}, 0.0, True, True, False, ["label-is-mask"], at=clock.now
        )
    )
    clock.now += 60
    one.heartbeat(clock.now, "clm|3/26")
    store.seen(one.token, clock.now)  # the server saw s1's tab
    app = dashboard(store, folder, clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        rows = rows_of(screen.query_one("#students", DataTable))
        assert set(rows) == {"s1", "s2"}  # the teacher is not a row
        # the quiz's columns come first (at 80 columns they stay in view): id, quiz, left, name, where, solved
        assert rows["s1"][0].startswith("●") and rows["s1"][4] == "Causal LM" and rows["s1"][5] == "3/26"
        assert rows["s1"][1] == "answering" and rows["s1"][2] == "19:00"
        assert rows["s2"][1] == "not started" and rows["s2"][2] == ""
        line = str(screen.query_one("#quiz-line").render())
        assert "started 1/2" in line and "submitted 0/2" in line and "20 min" in line
        faults = rows_of(screen.query_one("#panel", DataTable))
        (fault,) = faults.values()
        assert fault[:3] == ["2", "2", "practice"] and fault[4].startswith("The label at a [MASK] position")

        clock.now += 10 * 60  # the clock moves on: the table follows it
        screen.refresh_data()
        await pilot.pause()
        assert rows_of(screen.query_one("#students", DataTable))["s1"][2] == "9:00"
        assert rows_of(screen.query_one("#students", DataTable))["s1"][0].startswith(
            "○"
        )  # 10 min unheard: away
        clock.now += 60  # eleven minutes: the session expired (its tab is gone)
        screen.refresh_data()
        await pilot.pause()
        assert rows_of(screen.query_one("#students", DataTable))["s1"][0].startswith("  s1")

        # extend s1 (the first row) by five minutes
        await pilot.press("e")
        await pilot.pause()
        assert rows_of(screen.query_one("#students", DataTable))["s1"][2] == "13:00"
        assert "+5 minutes in all" in str(screen.query_one("#dashboard-status").render())

        one.save_answer("0:perplexity", "50", clock.now)
        one.submit(clock.now)
        await pilot.press("c")  # asks first
        await pilot.pause()
        assert store.current_quiz() is not None
        await pilot.press("c")
        await pilot.pause()
        assert store.current_quiz() is None
        assert "(closed)" in str(screen.query_one("#quiz-line").render())  # the closed quiz stays in view

        await pilot.press("r")
        await pilot.pause()
        assert store.quizzes()[0].released_at == clock.now

        await pilot.press("g")
        await app.workers.wait_for_complete()  # graded in a worker, off the screen's loop
        await pilot.pause()
        path = folder / f"gradebook-quiz{opened.quiz_id}.csv"
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
        by_student = {row[0]: row for row in rows[1:]}
        # s1 had five more minutes: extended
        assert by_student["s1"][5] == "extended" and by_student["s2"][5] == "did not submit"


async def test_opening_a_quiz_from_the_dashboard_and_the_chinese_labels(classroom, tmp_path):
    from textual.widgets import Input

    store, folder = classroom
    clock = Clock()
    quiz_file = tmp_path / "测验 1.toml"
    quiz_file.write_text(quiz_text(15), encoding="utf-8")
    app = dashboard(store, folder, clock, lang="zh")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.title == "课堂看板"
        assert "当前没有开放的测验" in str(app.screen.query_one("#quiz-line").render())
        await pilot.press("o")
        await pilot.pause()
        assert app.focused is app.screen.query_one("#quiz-path", Input)
        app.screen.query_one("#quiz-path", Input).value = str(tmp_path / "nope.toml")
        await pilot.press("enter")
        await pilot.pause()
        assert store.current_quiz() is None
        assert "nope.toml" in str(app.screen.query_one("#dashboard-status").render())
        await pilot.press("o")
        app.screen.query_one("#quiz-path", Input).value = str(quiz_file)
        await pilot.press("enter")
        await pilot.pause()
        opened = store.current_quiz()
        assert opened is not None and opened.time_limit_seconds == 15 * 60
        assert len(store.questions(opened.quiz_id, "s1")) == 2  # rendered for every student
        line = str(app.screen.query_one("#quiz-line").render())
        assert "限时 15 分钟" in line and "已开始 0/2" in line


@given(st.text(max_size=200), st.integers(min_value=2, max_value=120))
def test_cut_text_fits_its_cells_and_keeps_its_start(text, cells):
    from rich.cells import cell_len

    from tui.screens.dashboard import _fit

    fitted = _fit(text, cells)
    assert cell_len(fitted) <= cells
    assert fitted == text or (fitted.endswith("…") and text.startswith(fitted[:-1].rstrip()))
