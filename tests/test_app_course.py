"""Issue 11, "a path through the course": the home screen shows the course's
progress, and a lesson whose exercises were all tried offers the next lesson; it is
counted done once they are all solved (issue 23.21)."""

import pytest
from textual.widgets import Footer, Static

from exercises.catalogue import get
from exercises.curriculum import BY_ID, OBJECTIVES
from tests.pilot import engine_ready
from tui.app import TutorApp
from tui.widgets.exercise_panel import ExercisePanel


def attempt(app, exercise_id: str, right: bool) -> None:
    exercise = get(exercise_id)
    variant = exercise.generate(0)
    answer = exercise.solve(variant) if right else {part.name: "?" for part in exercise.parts}
    app.on_exercise_panel_graded(
        ExercisePanel.Graded(exercise, variant, answer, exercise.grade(variant, answer), 0, 1.0)
    )


def footer_actions(app) -> list[str]:
    return [getattr(key, "action", "") for key in app.screen.query_one(Footer).children]


@pytest.mark.slow
async def test_home_shows_course_progress_and_a_done_lesson_offers_the_next():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        total = sum(len(objective.exercises) for objective in OBJECTIVES)
        course = app.screen.query_one("#course", Static)
        assert f"0/{len(OBJECTIVES)} lessons done" in str(course.content)
        assert f"0/{total} exercises solved" in str(course.content)
        app.open_lesson("clm")
        await pilot.pause()
        await pilot.press("f7")
        await pilot.pause()
        assert "next_lesson" not in footer_actions(app)
        first, *rest = BY_ID["clm"].exercises
        attempt(app, first, right=True)
        for exercise_id in rest[:-1]:
            attempt(app, exercise_id, right=False)
        await pilot.pause()
        assert "next_lesson" not in footer_actions(app)  # one exercise still untried
        attempt(app, rest[-1], right=False)
        await pilot.pause()
        await pilot.pause()
        assert "next_lesson" in footer_actions(app)
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.pause()
        assert app.screen.objective.id == "packing"  # the lesson after causal LM
        await pilot.press("escape")
        await pilot.pause()
        content = str(app.screen.query_one("#course", Static).content)
        assert f"0/{len(OBJECTIVES)} lessons done" in content and f"1/{total} exercises solved" in content
