"""Issue 11.1: the header names the screen the learner is on, however they got there."""

import asyncio

import pytest

from exercises.curriculum import BY_ID
from exercises.text import pick
from tui.app import TutorApp


async def settle(pilot, times: int = 3) -> None:
    for _ in range(times):
        await pilot.pause()


def header_text(app) -> str:
    from textual.widgets import Header

    header = app.screen.query_one(Header)
    return app.format_title(header.screen_title, header.screen_sub_title).plain


@pytest.mark.slow
async def test_reopened_lesson_names_itself():
    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_lesson("mlm")
        await settle(pilot)
        assert pick(BY_ID["mlm"].title, "zh") in header_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert pick(BY_ID["mlm"].title, "zh") not in header_text(app)
        app.open_lesson("clm")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        app.open_lesson("mlm")  # installed already: reopened, not mounted again
        await settle(pilot)
        assert pick(BY_ID["mlm"].title, "zh") in header_text(app)


@pytest.mark.slow
async def test_palette_and_language_switch_keep_the_lesson_title():
    app = TutorApp(lang="en", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_lesson("span")
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(
            *"prefix", "minus", "l", "m"
        )  # the lesson's id ("prefix" alone names a glossary term)
        await asyncio.sleep(0.5)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot, 5)
        assert app.screen.objective.id == "prefix-lm"
        assert pick(BY_ID["prefix-lm"].title, "en") in header_text(app)
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert pick(BY_ID["prefix-lm"].title, "zh") in header_text(app)
        await pilot.press("escape")
        await settle(pilot)
        app.open_page("history")
        await settle(pilot)
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert "history" in header_text(app).lower()
