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
@pytest.mark.slow
async def test_every_footer_fits_80_columns_and_question_mark_opens_help(lang):
    from tui.screens.help import HelpScreen

    app = TutorApp(lang=lang, still=True)
    seen = 0
    helped = []
    # `?` goes through Textual's real key dispatch at every place; the help screen itself
    # opens for real at the first place of each kind (screen, what has focus) and only
    # the dispatch is recorded elsewhere: opening it again at the same kind of place runs
    # the same code, and each opening re-laid out the lesson beneath (0.4 s a place).
    opened_at_kind = set()
    dispatched = []
    open_help = app.action_help

    def recording_help() -> None:
        dispatched.append(True)
        kind = (type(app.screen).__name__, type(app.focused).__name__)
        if kind not in opened_at_kind:
            opened_at_kind.add(kind)
            open_help()

    app.action_help = recording_help
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
            screen, opened = app.screen, len(opened_at_kind)
            dispatched.clear()
            await pilot.press("question_mark")
            await pilot.pause()
            assert dispatched, f"? did nothing at {where} ({type(app.focused).__name__})"
            if len(opened_at_kind) == opened:  # a kind already seen: only the dispatch
                assert app.screen is screen
                helped.append(where)
                return
            assert isinstance(app.screen, HelpScreen), f"? opened no help at {where}"
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen
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
        open_help()
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        overflow, keys = footer_overflow(app)
        assert overflow <= 0, f"{lang} help: footer {overflow} columns too wide: {keys}"
    assert seen > 40 and len(helped) > (30 if lang == "en" else -1)
    assert len(opened_at_kind) > (6 if lang == "en" else -1)  # a real help screen at each kind of place


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


async def test_the_footer_is_recomposed_only_when_its_keys_change():
    """Textual recomposes a footer on every binding change on its screen: a dozen
    times while a lesson opened. The footer now recomposes when what it shows changes,
    and still follows a real change (the language)."""
    from tui.widgets.fitting_footer import FittingFooter

    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        recomposed = []
        original = FittingFooter.recompose

        async def counting(footer):
            recomposed.append(footer)
            return await original(footer)

        FittingFooter.recompose = counting
        try:
            app.open_lesson("mlm")
            for _ in range(6):
                await pilot.pause()
            assert 1 <= len(recomposed) <= 2, len(recomposed)
            footer = app.screen.query_one(FittingFooter)
            shown = footer.shown()
            recomposed.clear()
            await pilot.press("ctrl+l")
            for _ in range(6):
                await pilot.pause()
            assert recomposed and footer.shown() != shown
            assert "中文" not in " ".join(str(key.description) for key in footer.children)
        finally:
            FittingFooter.recompose = original
