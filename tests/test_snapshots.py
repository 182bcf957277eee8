"""Key screens, pinned as SVG snapshots (textual is pinned exactly in
pyproject.toml; the app runs with cursor blink and animations off).
Update deliberately with: pytest tests/test_snapshots.py --snapshot-update"""

import asyncio
import dataclasses

import pytest

from tests.pilot import engine_ready
from tui.app import TutorApp


async def _ready(pilot) -> None:
    await engine_ready(pilot.app)
    await pilot.pause()


def _opening(objective: str, keys: tuple[str, ...] = (), exercise: str | None = None, answers=None):
    async def run_before(pilot) -> None:
        await _ready(pilot)
        pilot.app.open_lesson(objective, exercise)
        await pilot.pause()
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        if answers:
            panel = pilot.app.screen.query_one("ExercisePanel")
            for name, value in answers.items():
                panel.query_one(f"#part-{name}").value = value
            panel.check()
            panel.focus()
            # The feedback is scrolled into view after a refresh: let that happen first (a
            # loaded machine took the picture before it, once in a full run).
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_home(snap_compare, lang, size):
    assert snap_compare(TutorApp(lang=lang, still=True), terminal_size=size, run_before=_ready)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mlm_figure(snap_compare, lang):
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_opening("mlm", ("f6",)))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
def test_clm_figure_length_4(snap_compare, lang):
    app = TutorApp(lang=lang, still=True)
    keys = ("f6", "minus", "minus", "minus", "minus")
    assert snap_compare(app, terminal_size=(120, 40), run_before=_opening("clm", keys))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mlm_abcde_wrong_answer(snap_compare, lang):
    answers = {"inputs": "A [MASK] C D [MASK]", "loss_positions": "1", "labels": "1: B"}
    app = TutorApp(lang=lang, still=True)
    run_before = _opening("mlm", exercise="mlm-abcde", answers=answers)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_exam_screen(snap_compare, lang, tmp_path):
    from exercises.classroom.exam import ExamSession
    from exercises.classroom.quiz import Quiz

    quiz = Quiz("quiz-snap", "Week 7", "snap-salt", ("mlm-abcde", "mask-matrix"), None)
    app = TutorApp(lang=lang, still=True, exam=ExamSession.open(quiz, "s01", tmp_path))

    async def run_before(pilot) -> None:
        for _ in range(600):
            if pilot.app.engine_loaded and pilot.app.screen.query("QuestionView"):
                break
            await asyncio.sleep(0.05)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


@pytest.fixture
def utc_clock(monkeypatch):
    """Times shown in UTC whatever the machine's time zone."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def _with_an_attempt(page: str, open_row: bool = False):
    """The history (or the attempt opened from it) after one wrong mlm-abcde answer."""

    async def run_before(pilot) -> None:
        from exercises.catalogue import get

        await _ready(pilot)
        app = pilot.app
        exercise = get("mlm-abcde")
        variant = exercise.generate(0)
        answer = {"inputs": "A [MASK] C D [MASK]", "loss_positions": "0,1,2,3,4", "labels": "1: B"}
        from tui.widgets.exercise_panel import ExercisePanel

        graded = ExercisePanel.Graded(exercise, variant, answer, exercise.grade(variant, answer), 0, 3.0)
        app.on_exercise_panel_graded(graded)
        # a fixed time (shown in UTC, see utc_clock): the snapshot must not change by the clock
        app.progress.attempts[-1] = dataclasses.replace(app.progress.attempts[-1], at=1_767_225_600)
        app.open_page(page)
        await pilot.pause()
        await pilot.pause()
        if open_row:
            await pilot.press("enter")
            await pilot.pause()
            await pilot.pause()

    return run_before


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_history(snap_compare, lang, utc_clock):
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_with_an_attempt("history"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_attempt_opened_from_history(snap_compare, lang, utc_clock):
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_with_an_attempt("history", open_row=True))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
def test_visibility_figure_at_64_row_40(snap_compare, lang):
    keys = ("f6", *(["plus"] * 58), *(["down"] * 40))
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_opening("visibility", keys))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_subwords_figure(snap_compare, lang):
    """The course's WordPiece cut of the lesson sentence, masked per piece and per word."""
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_opening("subwords", ("f6",)))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
def test_packing_figure_in_bands(snap_compare, lang):
    """L = 16, the tail padded: a window wider than 80 columns, shown in two bands."""
    keys = ("f6", "d", *(["plus"] * 10))
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_opening("packing", keys))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_glossary(snap_compare, lang):
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_opening("mlm", ("f9",)))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_prediction_asked_on_the_span_figure(snap_compare, lang):
    """Predict, then reveal: the question, the box, the target hidden."""
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_opening("span", ("f6", "g")))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_prediction_revealed_on_the_visibility_figure(snap_compare, lang):
    """A wrong guess (0-3 for row 1 of a causal mask), marked cell by cell."""
    keys = ("f6", "g", "0", "minus", "3", "enter")
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_opening("visibility", keys))
