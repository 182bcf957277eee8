"""Issue 11.5 and 11.7 (focus half): what has focus stays readable and visibly focused."""

import io

import pytest
from textual.widgets import Select

from tests.pilot import engine_ready, open_figure
from tui.app import TutorApp


def screen_lines(app) -> list[str]:
    """The terminal's lines as the learner sees them."""
    from rich.console import Console

    console = Console(width=app.size.width, record=True, file=io.StringIO(), legacy_windows=False)
    for strip in app.screen._compositor.render_strips():
        console.print(strip.text, end="\n", soft_wrap=True)
    return console.export_text().splitlines()


async def test_the_exercise_picker_never_goes_blank_when_focused():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("mlm")
        await pilot.pause()
        await pilot.press("f7")
        await pilot.pause()
        select = app.screen.query_one("#exercise-select", Select)
        from textual.widgets._select import SelectCurrent

        current = select.query_one(SelectCurrent)
        shown = str(current.query_one("#label").render())
        assert shown.strip()
        select.focus()
        await pilot.pause()
        await pilot.pause()
        assert select.has_focus
        assert current.content_region.height >= 1
        assert any(shown.strip() in line for line in screen_lines(app)), (
            "the picker's title vanished on focus"
        )


async def test_settings_show_each_choice_by_a_glyph_not_only_a_colour():
    from tui.widgets.glyph_radio import OFF, ON

    app = TutorApp(lang="en", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.open_page("settings")
        await pilot.pause()
        await pilot.pause()
        lines = screen_lines(app)
        english = next(line for line in lines if "English" in line)
        chinese = next(line for line in lines if "中文" in line)
        assert ON in english and OFF not in english
        assert OFF in chinese and ON not in chinese
        hint_lines = [line for line in lines if ON in line or OFF in line]
        assert sum(ON in line for line in hint_lines) == 2  # one language, one hint policy
        assert len(hint_lines) == 2 + 3


async def _every_focusable_stays_readable(app, pilot, where: str) -> list[str]:
    """Focus each focusable widget of the screen in turn: what is focused keeps room for its
    content (Textual's focus border must not squeeze a one-line widget to nothing), and a
    labelled toggle still shows its label and its glyph on screen."""
    from textual.widgets import Checkbox

    problems = []
    for widget in [node for node in app.screen.query("*") if node.focusable and node.display]:
        widget.focus()
        await pilot.pause()
        region = widget.content_region
        if region.height < 1 or region.width < 1:
            problems.append(f"{where}: #{widget.id} {type(widget).__name__} focused: {region.size}")
        if isinstance(widget, Checkbox):
            shown = widget._button.plain.strip() + " " + str(widget.label)
            lines = screen_lines(app)
            if not any(str(widget.label) in line and widget._button.plain.strip() in line for line in lines):
                problems.append(f"{where}: #{widget.id} focused, {shown!r} not on screen")
    return problems


async def test_the_training_labs_form_stays_readable_wherever_the_focus_is():
    """A focused checkbox of the training lab's form drew Textual's tall focus border in its
    one line: the box and its label vanished while focused (the 2 December walk in tmux)."""
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_figure(app, pilot, "train-lab")
        assert app.screen.query("GlyphCheckbox")  # the form is there
        assert not await _every_focusable_stays_readable(app, pilot, "train-lab")


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_every_lessons_figure_and_practice_stay_readable_wherever_the_focus_is(lang):
    """The same look for the class of defect: every focusable widget of every lesson's
    figure and practice tab, and of the code lab, focused in turn at 80x24."""
    from exercises.curriculum import OBJECTIVES

    app = TutorApp(lang=lang, still=True)
    problems = []
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        for objective in OBJECTIVES:
            app.open_lesson(objective.id)
            await pilot.pause()
            for key in ("f6", "f7"):
                await pilot.press(key)
                await pilot.pause()
                problems += await _every_focusable_stays_readable(app, pilot, f"{objective.id} {key}")
            await pilot.press("escape")
            await pilot.pause()
    assert not problems, problems
