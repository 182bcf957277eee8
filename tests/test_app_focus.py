"""Issue 11.5 and 11.7 (focus half): what has focus stays readable and visibly focused."""

import io

from textual.widgets import Select

from tests.pilot import engine_ready
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
