"""Issue 11.9 (the app's part): no English in the Chinese app where the app draws
it: Textual's theme picker prompt, and history rows for predictions in words."""

import pytest
from textual.command import CommandPalette
from textual.widgets import DataTable, Input

from exercises import predictions
from tui.app import TutorApp


async def test_the_theme_picker_asks_in_chinese():
    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        assert app.screen.query_one(Input).placeholder == "搜索配色主题…"


async def test_a_prediction_in_the_history_reads_as_words():
    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        question = predictions.visibility("causal", 6, 0, 2)
        verdict = predictions.grade(question, "0到5")
        app.progress.record_prediction("visibility", question, "0到5", verdict, 2.0)
        app.open_page("history")
        await pilot.pause()
        row = [str(cell) for cell in app.screen.query_one(DataTable).get_row_at(0)]
        assert row[1] == "预测：这一行能看到哪些位置"  # words, neither the id nor a seed
        assert "因果" in row[3] and "causal" not in row[3]


@pytest.mark.slow
async def test_the_palette_says_nothing_found_in_chinese():
    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        for key in "qqqzzz":
            await pilot.press(key)
        await pilot.pause(1.0)
        from textual.command import CommandList

        options = app.screen.query_one(CommandList)
        shown = [str(options.get_option_at_index(i).prompt.renderable) for i in range(options.option_count)]
        assert any("没有找到" in text for text in shown) and not any("No matches" in text for text in shown)
