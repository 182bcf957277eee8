"""A reading page's focus restyles the page alone (tui/widgets/reading_scroll.py): exact
only while no rule styles a node below it by the page's focus. Both are checked on
the app's real stylesheet, Textual's own rules included, and both checks are seen to
catch such a rule when one is added."""

import pathlib

from textual.widgets import Markdown

import tui.app
from tests.pilot import engine_ready
from tui.app import TutorApp
from tui.widgets.reading_scroll import ReadingScroll, focus_rules_reaching_below

RULE_BELOW = "ReadingScroll:focus MarkdownParagraph { text-style: bold; }"


class AppWithARuleBelowFocus(TutorApp):
    CSS_PATH = str(pathlib.Path(tui.app.__file__).with_name(TutorApp.CSS_PATH))  # not beside this file
    CSS = RULE_BELOW


def styles_below(scroll) -> dict[int, str]:
    return {id(node): node.styles.css for node in scroll.walk_children(with_self=True)}


async def focus_in_and_out(app, pilot):
    """The lesson's page focused, then left for the tab bar: the learner's F5, Tab."""
    app.open_lesson("mlm")
    await pilot.pause()
    scroll = app.screen.query_one("#lesson-scroll", ReadingScroll)
    scroll.focus()
    await pilot.pause()
    assert scroll.has_focus
    focused = styles_below(scroll)
    app.stylesheet.update_nodes(scroll.walk_children(with_self=True))  # what Textual would do
    return scroll, focused, styles_below(scroll)


async def test_a_reading_page_restyles_alone_with_the_styles_of_a_full_restyle():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        scroll, after_focus, after_full = await focus_in_and_out(app, pilot)
        assert len(scroll.query(Markdown)) == 1 and len(after_focus) > 50  # a real lesson page
        assert after_focus == after_full
        assert focus_rules_reaching_below(app.stylesheet, scroll) == []
        for screen in ("glossary", "help"):  # every other reading page
            await pilot.press("f9" if screen == "glossary" else "f1")
            await pilot.pause()
            page = app.screen.query_one(ReadingScroll)
            assert focus_rules_reaching_below(app.stylesheet, page) == []
            await pilot.press("escape")
            await pilot.pause()


async def test_a_rule_below_a_focused_page_is_found_and_would_change_the_styles():
    app = AppWithARuleBelowFocus(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        scroll, after_focus, after_full = await focus_in_and_out(app, pilot)
        assert focus_rules_reaching_below(app.stylesheet, scroll) == [
            "ReadingScroll:focus MarkdownParagraph {"
        ]
        assert after_focus != after_full
