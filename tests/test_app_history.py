"""Issue 11.14 and 11.9 (history rows): history rows speak in words, not codes, and
Enter on a row opens the attempt: the answer given, the engine's solution, the
feedback and the misconception in words."""

from textual.widgets import DataTable

from exercises.catalogue import get
from exercises.grading.diagnoses import explain
from tests.pilot import engine_ready
from tui.app import TutorApp
from tui.widgets.exercise_panel import ExercisePanel


def plain(widget) -> str:
    content = widget.content if hasattr(widget, "content") else widget.render()
    return content.plain if hasattr(content, "plain") else str(content)


async def a_misconception_graded(app):
    """The app records one MLM attempt that names a misconception, as a graded exercise
    panel would report it; (exercise, variant, result)."""
    await engine_ready(app)
    exercise = get("mlm-abcde")
    variant = exercise.generate(0)
    answer = {"inputs": "A [MASK] C D [MASK]", "loss_positions": "0,1,2,3,4", "labels": "1: B"}
    result = exercise.grade(variant, answer)
    assert result.diagnoses, "this answer should name a misconception"
    app.on_exercise_panel_graded(ExercisePanel.Graded(exercise, variant, answer, result, 0, 3.0))
    return exercise, variant, result


async def test_enter_on_a_history_row_opens_the_attempt_in_words():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        exercise, variant, result = await a_misconception_graded(app)
        app.open_page("history")
        await pilot.pause()
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        row = [str(cell) for cell in table.get_row_at(0)]
        assert exercise.title["zh"] in row[1]  # a title, not "mlm-abcde"
        code = result.diagnoses[0]
        assert code not in " ".join(row)
        assert explain(code)["zh"][:10] in row[3]
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert type(app.screen).__name__ == "AttemptScreen"
        shown = plain(app.screen.query_one("#attempt"))
        assert "A [MASK] C D [MASK]" in shown and "0,1,2,3,4" in shown  # the answer given
        for text in exercise.solve(variant).values():  # the engine's solution for that variant
            assert text.replace("\n", " / ") in shown
        assert explain(code)["zh"] in shown  # the misconception, in words
        assert "引擎给出的答案" in shown and "反馈" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "HistoryScreen"


async def test_review_names_misconceptions_in_words():
    from textual.widgets import OptionList

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        _, _, result = await a_misconception_graded(app)
        app.open_page("review")
        await pilot.pause()
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        line = str(options.get_option_at_index(0).prompt)
        for code in result.diagnoses:
            assert code not in line
        assert explain(result.diagnoses[0])["zh"][:8] in line
