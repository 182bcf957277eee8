"""Ctrl+L on every screen: whatever the screen shows is drawn again in the new language,
the learner's place kept (the row, the hint shown, a question open and what was typed in
it). A tester found pages that changed their header and nothing else, a hint left in the
old language, and a figure's open question dropped with its answer shown (Pilot, 80×24)."""

import re
import time

import pytest
from textual.widgets import DataTable, Label, OptionList, Static

from exercises.grading.policy import HINT_POLICIES
from exercises.learner.store import Attempt
from exercises.text import pick
from tests.pilot import engine_ready, open_figure
from tui.app import TutorApp
from tui.i18n import t
from tui.widgets.prediction_box import PredictionBox

CJK = re.compile(r"[\u4e00-\u9fff]")


def plain(widget) -> str:
    """What a Static shows (Text, Table, Group or str), as plain text."""
    import io

    from rich.console import Console

    console = Console(width=200, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.file.getvalue()


async def settle(pilot, rounds: int = 4) -> None:
    for _ in range(rounds):
        await pilot.pause()


def missed(exercise: str, objective: str, seed: int, diagnoses: list[str], at: float) -> Attempt:
    return Attempt(
        exercise=exercise,
        objective=objective,
        seed=seed,
        answer={"inputs": "x"},
        score=0.0,
        valid=True,
        graded=True,
        correct=False,
        diagnoses=diagnoses,
        hints_used=0,
        seconds=1.0,
        at=at,
    )


def seed_history(app) -> list[Attempt]:
    now = time.time()
    attempts = [
        missed("span-corruption", "span", 0, ["span-end-inclusive"], now - 300),
        missed("clm-shift", "clm", 1, [], now - 200),
        missed("span-corruption", "span", 2, ["span-end-inclusive"], now - 100),
    ]
    for attempt in attempts:
        app.progress.record(attempt)
    return attempts


def title_in(exercise: str, lang: str) -> str:
    from exercises.catalogue import get

    return pick(get(exercise).title, lang)


def history_words(table: DataTable) -> tuple[list[str], list[list[str]]]:
    headers = [str(column.label) for column in table.columns.values()]
    rows = [[str(cell) for cell in table.get_row_at(index)] for index in range(table.row_count)]
    return headers, rows


@pytest.mark.parametrize("start", ["zh", "en"])
async def test_ctrl_l_redraws_the_history_list_on_the_same_row(start):
    other = "en" if start == "zh" else "zh"
    app = TutorApp(lang=start, still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        seed_history(app)
        app.open_page("history")
        await settle(pilot)
        await pilot.press("down")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        assert table.cursor_row == 1
        await pilot.press("ctrl+l")
        await settle(pilot)
        headers, rows = history_words(table)
        hint = plain(app.screen.query_one("#history-hint", Static))
        assert hint.strip() == t("attempt-open", other)
        assert headers == [
            t(key, other)
            for key in ("history-when", "history-exercise", "history-score", "history-misconception")
        ]
        assert rows[1][1].startswith(title_in("clm-shift", other)[:8]), rows[1]
        assert rows[0][1].startswith(title_in("span-corruption", other)[:8]), rows[0]
        from exercises.grading.diagnoses import explain

        assert rows[0][3].rstrip("…")[:10] == pick(explain("span-end-inclusive"), other)[:10], rows[0]
        assert table.cursor_row == 1  # the learner's row kept


@pytest.mark.slow
async def test_ctrl_l_redraws_an_opened_attempt():
    from tui.screens.attempt import AttemptScreen, attempt_text

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        seed_history(app)
        app.open_page("history")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AttemptScreen)
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert app.screen is screen
        assert plain(screen.query_one("#attempt", Static)).split() == (
            " ".join(attempt_text(screen.attempt, "en").plain.split()).split()
        )
        assert screen.sub_title == t("history-title", "en")  # the header was half Chinese
        assert not CJK.search(str(app.title) + str(screen.sub_title))


@pytest.mark.parametrize("start", ["zh", "en"])
async def test_ctrl_l_redraws_the_review_page(start):
    other = "en" if start == "zh" else "zh"
    app = TutorApp(lang=start, still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        seed_history(app)  # the misses come back tomorrow
        app.open_page("review")
        await settle(pilot)
        schedule = app.screen.query_one("#schedule", Static)
        options = app.screen.query_one(OptionList)
        before = plain(schedule)
        await pilot.press("ctrl+l")
        await settle(pilot)
        after = plain(schedule)
        assert after != before
        assert t("when-tomorrow", other) in after, after
        lines = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert lines and all(bool(CJK.search(line)) == (other == "zh") for line in lines), lines
        assert any(title_in("clm-shift", other) in line for line in lines), lines


async def test_ctrl_l_redraws_the_hint_shown_in_the_code_lab(tmp_path):
    from exercises.lab.tasks import TASKS
    from tui.screens.lab import LabScreen

    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = LabScreen(tmp_path, watch=False)
        app.push_screen(screen)
        await settle(pilot)
        await pilot.press("down")
        await settle(pilot)
        task = screen.current
        assert task is TASKS[1]
        await pilot.press("h")
        await settle(pilot)
        extra = screen.query_one("#lab-extra", Static)
        assert pick(task.hints[0], "zh") in plain(extra)
        await pilot.press("ctrl+l")
        await settle(pilot)
        shown = plain(extra)
        expected = t("lab-hint", "en", i=1, n=len(task.hints), text=pick(task.hints[0], "en"))
        assert " ".join(shown.split()) == " ".join(expected.split()), shown
        assert screen.hints_shown[task.id] == 1 and screen.current is task  # the place kept
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert pick(task.hints[0], "zh") in plain(extra)


PREDICTING = ["clm", "mlm", "span", "prefix-lm", "visibility"]


@pytest.mark.parametrize("objective", PREDICTING)
@pytest.mark.parametrize("start", ["zh", "en"])
@pytest.mark.slow
async def test_ctrl_l_keeps_an_open_question_open_and_its_answer_hidden(objective, start):
    other = "en" if start == "zh" else "zh"
    app = TutorApp(lang=start, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, objective)
        assert figure.PREDICTS
        await pilot.press("g")
        await settle(pilot)
        question = figure.question
        assert question is not None
        await pilot.press("1")  # the learner starts typing a guess
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert figure.question is question  # still asked, about the same thing
        box = figure.query_one(PredictionBox)
        assert box.query_one("#prediction-answer").value == "1"  # what was typed kept
        assert plain(box.query_one("#prediction-question", Static)).strip() == pick(question.text, other)
        assert figure.hiding  # the answer stays hidden
        if objective == "mlm":  # the figure as drawn: no labels column, no counts of the selected
            header = plain(figure.query_one("#mlm-table", Static)).split("\n")[0]
            assert t("fate", other) in header and t("label", other) not in header, header
            assert not figure.query_one("#mlm-sentence-counts").display


async def test_ctrl_l_redraws_the_settings_page():
    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_page("settings")
        await settle(pilot)
        screen = app.screen
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert app.screen is screen
        labels = [str(label.render()) for label in screen.query(Label)]
        assert labels == [t(key, "en") for key in ("settings-language", "settings-theme", "settings-hints")]
        assert screen.query_one("#lang-en").value and not screen.query_one("#lang-zh").value
        for policy in HINT_POLICIES:
            assert str(screen.query_one(f"#hints-{policy}").label) == t(f"hints-{policy}", "en")
        screen.query_one("#lang-zh").value = True  # the page's own switch still works
        await settle(pilot)
        assert app.lang == "zh" and app.progress.setting("lang") == "zh"
        assert str(app.screen.query(Label).first().render()) == t("settings-language", "zh")


async def test_ctrl_l_redraws_the_too_small_message():
    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(50, 14)) as pilot:
        await settle(pilot)
        message = app.screen.query_one("#message", Static)
        await pilot.press("ctrl+l")
        await settle(pilot)
        expected = t("too-small", "en", width=50, height=14, min_width=60, min_height=18)
        assert plain(message).split() == expected.split()
