"""Predict, then reveal, in the app (issue 11): `g` on a live figure asks one
question, hides what would give the answer away, and after Enter shows the figure
with the guess marked; the prediction is stored as its own kind and counts on the
home screen."""

import pytest
from textual.widgets import Footer, Static

from exercises.learner.store import PREDICTION
from tests.pilot import open_figure
from tui.app import TutorApp
from tui.widgets.prediction_box import PredictionBox


def footer_keys(app) -> list[str]:
    return [getattr(key, "action", "") for key in app.screen.query_one(Footer).children]


def text_of(widget) -> str:
    """What a Static shows (Text, Table or str), as plain text."""
    import io

    from rich.console import Console

    console = Console(width=200, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.file.getvalue()


async def answer(pilot, text: str) -> None:
    for character in text:
        await pilot.press(character if character != " " else "space")
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()


@pytest.mark.slow
async def test_visibility_prediction_hides_the_mask_then_marks_the_guess():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "visibility")
        assert "predict" in footer_keys(app)
        await pilot.press("g")
        await pilot.pause()
        await pilot.pause()
        question = figure.question
        assert question is not None and isinstance(app.focused.parent, PredictionBox)
        assert not figure.query_one("#vis-mask").display and not figure.query_one("#vis-sees").display
        assert figure.row == question.row  # the cursor is on the row asked about
        wrong = [k for k in range(figure.n) if k not in question.expected][:1] or [0]
        guess = ", ".join(map(str, sorted(set(question.expected) ^ set(wrong))))
        await answer(pilot, guess)
        assert figure.query_one("#vis-mask").display
        assert "!" in text_of(figure.query_one("#vis-mask")) or "?" in text_of(figure.query_one("#vis-mask"))
        verdict_text = text_of(figure.query_one("#prediction-verdict", Static))
        assert "✗" in verdict_text and "your guess" in verdict_text
        stored = app.progress.attempts[-1]
        assert (stored.kind, stored.exercise, stored.objective, stored.correct) == (
            PREDICTION,
            "predict-visibility",
            "visibility",
            False,
        )
        assert stored.answer == {"prediction": guess}
        await pilot.press("escape")  # leaves the lesson; the home screen counts the prediction
        await pilot.pause()
        await pilot.pause()
        assert "predicted 0/1" in str(app.screen.query_one("#lessons").get_option("visibility").prompt)


@pytest.mark.slow
async def test_an_unreadable_prediction_is_asked_again_and_not_stored():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "prefix-lm")
        await pilot.press("g")
        await pilot.pause()
        await answer(pilot, "不知道")
        assert figure.question is not None  # still open, answer still hidden
        assert "?" in text_of(figure.query_one("#prediction-verdict"))
        assert not [a for a in app.progress.attempts if a.kind == PREDICTION]
        expected = figure.question.expected[0]
        await answer(pilot, f"位置{expected}")
        assert figure.question is None and figure.revealed[1].correct
        assert "✓" in text_of(figure.query_one("#prefix-table"))
        assert app.progress.attempts[-1].correct


@pytest.mark.parametrize("objective", ["clm", "mlm", "span", "prefix-lm"])
@pytest.mark.slow
async def test_each_figure_hides_its_answer_while_asking(objective):
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, objective)
        before = {static.id: text_of(static) for static in figure.query(".output")}
        await pilot.press("g")
        await pilot.pause()
        await pilot.pause()
        question = figure.question
        assert question is not None
        during = {static.id: text_of(static) for static in figure.query(".output")}
        assert during != before
        shown = "\n".join(during.values())
        if objective == "mlm":
            assert "label" not in shown.splitlines()[0]  # no label column while asking
        if objective == "span":
            assert question.expected[1] not in shown.split("Target")[-1]
        if objective in ("clm", "prefix-lm"):
            assert "?" in shown
        await pilot.press("escape")  # skips the question: the figure is whole again
        await pilot.pause()
        assert figure.question is None and not figure.query(PredictionBox)
        assert {static.id: text_of(static) for static in figure.query(".output")} == before


async def test_a_changed_control_drops_the_question():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "clm")
        await pilot.press("g")
        await pilot.pause()
        await answer(pilot, str(figure.question.expected[0]))
        assert figure.revealed is not None and figure.revealed[1].correct
        await pilot.press("minus")  # another length: the marks no longer apply
        await pilot.pause()
        assert figure.revealed is None and not figure.query(PredictionBox)


async def test_figures_without_a_question_do_not_offer_the_key():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_figure(app, pilot, "self-supervision")
        assert "predict" not in footer_keys(app)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_span_guess_row_shows_what_was_typed_and_names_the_misconception(lang):
    """The answer ends the target with </s> right after the span, though kept text follows:
    the figure's guess row keeps that </s> (it dropped it, the one token that made the answer
    wrong), and the missing closing sentinel is named, in the box and in the history."""
    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "span")
        await pilot.press("g")
        await pilot.pause()
        await pilot.pause()
        sentinel, first, second, _third = figure.question.expected  # the default spans, 2:5
        typed = f"{sentinel} {first} {second} </s>"
        await answer(pilot, typed)
        verdict = figure.revealed[1]
        assert not verdict.correct and verdict.diagnoses == ("target-missing-final-sentinel",)
        guess_rows = [line for line in text_of(figure.query_one("#span-out")).splitlines() if "✗" in line]
        assert len(guess_rows) == 1 and guess_rows[0].rstrip().endswith(typed)
        assert typed in text_of(figure.query_one("#prediction-verdict"))
        stored = app.progress.attempts[-1]
        assert stored.diagnoses == ["target-missing-final-sentinel"]
