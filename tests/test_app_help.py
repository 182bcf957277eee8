"""Issue 11.13: `?` opens help on every screen where focus is not in a text box;
and the help screen's key table is made from the bindings (issue 10)."""

import asyncio

import pytest
from textual.widgets import Input

from exercises.curriculum import OBJECTIVES
from tui.app import TutorApp
from tui.screens.help import HelpScreen


async def engine_ready(app) -> None:
    for _ in range(600):
        if app.engine_loaded:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the engine did not load in 30 s")


@pytest.mark.parametrize("lang", ["en"])
async def test_question_mark_opens_help_wherever_focus_is_not_in_a_text_box(lang):
    app = TutorApp(lang=lang, still=True)
    tried = []
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)

        async def try_help(where: str) -> None:
            await pilot.pause()
            if isinstance(app.focused, Input):
                return
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen), (
                f"? did nothing at {where} ({type(app.focused).__name__})"
            )
            await pilot.press("escape")
            await pilot.pause()
            tried.append(where)

        await try_help("home")
        for objective in OBJECTIVES:
            app.open_lesson(objective.id)
            await pilot.pause()
            for tab in ("f5", "f6"):
                await pilot.press(tab)
                await try_help(f"{objective.id} {tab}")
            for exercise in objective.exercises:
                await app.screen.show_exercise(exercise)
                await pilot.pause()
                await pilot.press("escape")
                await try_help(f"{objective.id} {exercise}")
                app.screen.query_one("#check").focus()
                await try_help(f"{objective.id} {exercise} check button")
            app.pop_screen()
            await pilot.pause()
        for page in ("review", "history", "settings"):
            app.open_page(page)
            await try_help(page)
            app.pop_screen()
    assert len(tried) > 30
