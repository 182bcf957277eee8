"""Issue 11.8: every footer fits 80 columns, in zh and en, on every screen and
whatever has focus (each lesson's tabs, each exercise of its practice panel); and
(issue 11.13) `?` opens help at each of those places where focus is not in a text box.
One walk through the app per language checks both: a walk costs a minute of CPU."""

import pytest
from textual.widgets import Footer, Input

from exercises.curriculum import OBJECTIVES
from tests.pilot import engine_ready
from tui.app import TutorApp


def footer_overflow(app) -> tuple[int, list[str]]:
    """(columns the footer's keys need beyond the terminal, the keys shown)."""
    footers = list(app.screen.query(Footer))
    if not footers:
        return 0, []
    footer = footers[0]
    need = sum(child.outer_size.width for child in footer.children)
    need += sum(child.styles.margin.right + child.styles.margin.left for child in footer.children)
    keys = [f"{getattr(child, 'key', '')} {getattr(child, 'description', '')}" for child in footer.children]
    return max(need, footer.virtual_size.width) - footer.size.width, keys


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_every_footer_fits_80_columns_and_question_mark_opens_help(lang):
    from tui.screens.help import HelpScreen

    app = TutorApp(lang=lang, still=True)
    seen = 0
    helped = []
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        await pilot.pause()

        async def check(where: str) -> None:
            nonlocal seen
            await pilot.pause()
            overflow, keys = footer_overflow(app)
            assert overflow <= 0, f"{lang} {where}: footer {overflow} columns too wide: {keys}"
            seen += 1
            if lang == "zh" or isinstance(app.focused, Input) or type(app.screen).__name__ == "LabScreen":
                return  # help checked once (in en); in a text box `?` is typed; the lab: not walked before
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen), (
                f"? did nothing at {where} ({type(app.focused).__name__})"
            )
            await pilot.press("escape")
            await pilot.pause()
            helped.append(where)

        await check("home")
        for objective in OBJECTIVES:
            app.open_lesson(objective.id)
            await pilot.pause()
            for tab in ("f5", "f6"):
                await pilot.press(tab)
                await check(f"{objective.id} {tab}")
            figure = next(iter(app.screen.query("Figure")), None)
            if figure is not None and figure.PREDICTS:  # predict, then reveal: asking, then answered
                await pilot.press("g")
                await check(f"{objective.id} predicting ({type(app.focused).__name__})")
                await pilot.press("escape")
                await pilot.pause()
            for exercise in objective.exercises:
                await app.screen.show_exercise(exercise)
                await pilot.pause()
                await check(f"{objective.id} practice {exercise} ({type(app.focused).__name__})")
                await pilot.press("escape")  # out of the text box: the panel's own keys
                await check(f"{objective.id} practice {exercise} after Esc ({type(app.focused).__name__})")
                app.screen.query_one("#check").focus()
                await check(f"{objective.id} practice {exercise} check button")
            app.pop_screen()
            await pilot.pause()
        app.open_lesson("mlm")  # the code lab, from a lesson's practice tab
        await pilot.pause()
        await pilot.press("f7")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.press("f8")
        await pilot.pause()
        assert type(app.screen).__name__ == "LabScreen"
        await check("lab")
        while len(app.screen_stack) > 1:
            app.pop_screen()
        await pilot.pause()
        if not app.progress.queue():  # a missed exercise: the review page offers "try another now"
            from tests.test_app_course import attempt

            attempt(app, "clm-shift", right=False)
        for page in ("review", "history", "settings"):
            app.open_page(page)
            await check(page)
            app.pop_screen()
        app.action_help()
        await pilot.pause()
        overflow, keys = footer_overflow(app)
        assert overflow <= 0, f"{lang} help: footer {overflow} columns too wide: {keys}"
    assert seen > 40 and len(helped) > (30 if lang == "en" else -1)


async def test_the_footer_fits_again_after_a_resize():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await engine_ready(app)
        app.open_lesson("visibility", "mask-matrix")
        await pilot.pause()
        await pilot.pause()
        assert "help" in [getattr(key, "action", "") for key in app.screen.query_one(Footer).children]
        await pilot.resize_terminal(80, 24)
        for _ in range(5):
            await pilot.pause()
        overflow, keys = footer_overflow(app)
        assert overflow <= 0, keys
        await pilot.resize_terminal(120, 30)
        for _ in range(5):
            await pilot.pause()
        assert "help" in [getattr(key, "action", "") for key in app.screen.query_one(Footer).children]
