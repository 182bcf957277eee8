"""Issue 11.4: nothing is cut silently: large masks scroll (also sideways, by keys)
and the picked row's diagonal cell of a 64-position mask is always on screen."""

import pytest

from tests.pilot import open_figure
from tui.app import TutorApp
from tui.figures.visibility import VisibilityFigure
from tui.widgets.mask_view import MaskView, grid_geometry


def cell_on_screen(view: MaskView, row: int, column: int) -> bool:
    """Is the grid cell (row, column) inside the part of the screen the figure shows?"""
    n = 64
    _, cell, _, gutter = grid_geometry(n, [""] * n)
    x = view.region.x + gutter + column * cell - view.scroll_offset.x
    y = view.region.y + row + 1
    figure = view.parent
    visible = figure.region.intersection(figure.scrollable_content_region)
    return visible.contains(x, y) and visible.contains(x + cell - 1, y)


@pytest.mark.slow
async def test_the_diagonal_of_a_64_position_mask_can_be_reached():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "visibility")
        assert isinstance(figure, VisibilityFigure)
        assert figure.has_focus
        figure.action_length(57)  # to 63 at once: 57 key presses would redraw 57 growing masks
        for _ in range(3):
            await pilot.press("plus")  # the key, and its stop at 64
        assert figure.n == 64
        view = figure.query_one(MaskView)
        for row in range(64):
            await pilot.pause()
            assert figure.row == row
            assert cell_on_screen(view, row, row), f"cell ({row}, {row}) is off screen"
            await pilot.press("down")
        assert figure.scroll_x > 0 and figure.scroll_y > 0
        for _ in range(63):
            await pilot.press("up")
        await pilot.pause()
        await pilot.pause()
        assert cell_on_screen(view, 0, 0)


@pytest.mark.slow
async def test_wide_masks_scroll_sideways_by_keys():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "visibility")
        figure.action_length(39)  # 45 positions, with the + key's own action
        await pilot.press("plus")
        await pilot.pause()
        assert figure.n == 46
        assert figure.max_scroll_x > 0  # wider than the terminal
        before = figure.scroll_x
        await pilot.press("right", "right", "right")
        await pilot.pause()
        assert figure.scroll_x > before


async def test_practice_buttons_fit_their_words_after_a_language_switch():
    """Started in Chinese, then Ctrl+L: each button is as wide as its English label
    (a Button's label only repainted, leaving "Chec" and "Solu" in the old widths)."""
    from rich.cells import cell_len
    from textual.widgets import Button

    from tests.test_app import open_practice

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "clm", "clm-shift")
        app.lang = "en"
        await pilot.pause()
        await pilot.pause()
        for button in panel.query("#buttons Button").results(Button):
            words = str(button.label)
            assert words in {"Check", "Hint", "Solution", "New variant"}
            assert button.content_region.width >= cell_len(words), (words, button.content_region)
