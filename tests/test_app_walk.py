"""Defects found walking the whole course in tmux on 2 December 2026 (zh and en, 80x24),
each with a test that failed before its fix."""

from __future__ import annotations

import pytest

from exercises.catalogue import get
from exercises.curriculum import OBJECTIVES
from tests.pilot import engine_ready
from tests.test_app_evening import settle, text_of, type_text
from tui.app import TutorApp
from tui.widgets.exercise_panel import ExercisePanel


def _lesson_exercises() -> list[tuple[str, str, str]]:
    """(lesson, an exercise, another exercise of the same lesson) for every lesson with two."""
    return [(o.id, o.exercises[0], o.exercises[1]) for o in OBJECTIVES if len(o.exercises) > 1]


@pytest.mark.parametrize("lesson, first, other", _lesson_exercises())
async def test_jumping_to_another_exercise_while_a_solution_shows_draws_the_new_one(lesson, first, other):
    """1. The palette's jump to another exercise of the same lesson, with the solution of the
    first on screen, crashed the app (KeyError in the new exercise's solve): the panel
    redrew the new exercise's feedback from the old exercise's variant."""
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson(lesson, first, tab="practice")
        await settle(pilot, 5)
        panel = app.screen.query_one(ExercisePanel)
        panel.action_solution()
        await settle(pilot)
        assert "solution" in text_of(panel.query_one("#feedback")).lower() or panel.result is None
        app.open_lesson(lesson, other, tab="practice")
        await settle(pilot, 5)
        assert panel.exercise_id == other
        assert panel.variant == panel._exercise().generate(panel.seed)
        assert text_of(panel.query_one("#feedback")).strip() == ""


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_checking_the_same_answer_again_is_not_another_try(lang):
    """2. Enter pressed three more times on a right answer saved three more right answers,
    and the review schedule took them as three days of practice: the exercise left the
    queue after one real answer. Checking an unchanged answer now grades and saves nothing."""
    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("clm", "perplexity", tab="practice")
        await settle(pilot, 5)
        panel = app.screen.query_one(ExercisePanel)
        right = panel._exercise().solve(panel.variant)
        panel.focus_first()
        await type_text(pilot, right["perplexity"])
        await pilot.press("enter")
        await type_text(pilot, "4")  # the loss: wrong
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("ctrl+u")
        await type_text(pilot, right["loss"])
        for _ in range(4):
            await pilot.press("enter")
            await settle(pilot)
        scores = [attempt.score for attempt in app.progress.store.attempts()]
        assert len(scores) == 2 and scores[0] < 1.0 and scores[1] == 1.0, scores
        assert ("Already checked" if lang == "en" else "已经检查过") in text_of(panel.query_one("#feedback"))
        await type_text(pilot, "0")  # a changed answer is a try again
        await pilot.press("enter")
        await settle(pilot)
        assert len(app.progress.store.attempts()) == 3


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_solving_the_last_lesson_first_does_not_say_the_course_is_done(lang):
    """5. On a fresh home, solving the last lesson's exercise said "that is the whole
    course" while the home screen said 1/11 lessons done. It now names what is left."""
    last = OBJECTIVES[-1]
    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        for other in last.exercises[1:]:  # the lesson's other exercises, solved before
            exercise = get(other)
            variant = exercise.generate(0)
            answer = exercise.solve(variant)
            app.progress.record_result(other, last.id, 0, answer, exercise.grade(variant, answer), 0, 1.0)
        app.open_lesson(last.id, last.exercises[0], tab="practice")
        await settle(pilot, 5)
        panel = app.screen.query_one(ExercisePanel)
        letter = panel._exercise().solve(panel.variant)["choice"]
        panel.focus_first()
        await pilot.press(letter.lower())
        await settle(pilot)
        note = text_of(panel.query_one("#lesson-note"))
        assert app.progress.lesson_done(last.id)
        assert ("whole course" not in note) and ("整门课" not in note), note
        assert str(len(OBJECTIVES) - 1) in note and ("Self-supervision" in note or "自监督" in note), note


@pytest.mark.parametrize("size", [(60, 18), (80, 24)])
async def test_the_training_labs_form_fits_the_terminal(size):
    """10. At 60x18 the "build batches with this code" list ran off the right edge (no
    border, no arrow): every field of the form ends inside the screen."""
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=size) as pilot:
        await engine_ready(app)
        app.open_lesson("train-lab")
        await settle(pilot)
        await pilot.press("f6")
        await settle(pilot, 4)
        for field in ("#tl-steps", "#tl-corpus", "#tl-own-source", "#tl-probe"):
            region = app.screen.query_one(field).region
            assert region.width > 0 and region.right <= size[0], (field, region)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_after_training_p_opens_an_empty_probe_box_and_the_form_keeps_its_corpus(lang):
    """A. After Train, focus went to the probe box: the "p" of "press p" became the probe's
    first letter. B. Ctrl+L after a run switched the toy language to the other language's,
    so the rules shown no longer matched the models and the next Train would use the other
    text. C. The own-code list kept its choice in the old language. E. The en table cut
    "chance (uniform gues…" at 80 columns."""
    from textual.widgets import Select
    from textual.widgets._select import SelectCurrent

    from tests.pilot import open_figure

    other = "en" if lang == "zh" else "zh"
    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "train-lab")
        figure.query_one("#tl-steps").value = "3"
        await pilot.press("ctrl+s")
        for _ in range(1200):
            await pilot.pause(0.05)
            if not figure.training and figure.result is not None:
                break
        await settle(pilot, 4)
        await pilot.press("p")
        await settle(pilot)
        probe = figure.query_one("#tl-probe")
        assert probe.has_focus and probe.value == ""
        table = figure.query_one("#tl-table")
        assert "…" not in text_of(table, width=table.content_region.width)
        figure.focus()
        await pilot.press("ctrl+l")
        await settle(pilot, 4)
        assert figure._corpus() == lang == figure.result["settings"]["corpus"]
        own = figure.query_one("#tl-own-source", Select)
        shown = str(own.query_one(SelectCurrent).query_one("#label").render())
        assert shown == str(figure._own_options(other)[0][0]), shown


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_attention_legend_never_breaks_inside_a_value(lang):
    """F. At 80 columns the zh legend broke "▒ ≥ 10" / "%" across two lines."""
    import io

    from rich.console import Console
    from rich.text import Text

    from tui import cjk_wrap
    from tui.i18n import t

    cjk_wrap.install()
    legend = t("tl-attn-legend", lang)
    for width in range(40, 121):
        console = Console(width=width, file=io.StringIO(), color_system=None)
        console.print(Text(legend))
        lines = console.file.getvalue().splitlines()
        for value in ("█≥50%", "▓≥25%", "▒≥10%", "░>0"):
            assert any(value in line for line in lines), (width, value, lines)
