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
    _, cell, _, _gutter = grid_geometry(n, [""] * n)
    x = view.region.x + column * cell  # the row headers are drawn apart, left of the cells
    y = view.region.y + row + 1
    pan, figure = view.parent, view.parent.parent.parent
    visible = figure.region.intersection(figure.scrollable_content_region)
    visible = visible.intersection(pan.region.intersection(pan.scrollable_content_region))
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
        assert view.parent.scroll_x > 0 and figure.scroll_y > 0  # the cells sideways, the page down
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
        pan = figure.query_one("#vis-pan")  # the cells scroll sideways, the row headers stay
        assert pan.max_scroll_x > 0  # wider than the terminal
        before = pan.scroll_x
        await pilot.press("right", "right", "right")
        await pilot.pause()
        assert pan.scroll_x > before


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


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_wide_mask_scrolled_to_row_40_can_be_read_and_scrolled_back(size):
    """64 positions, the cursor on row 40, End, then ←: the caption of what row 40 sees is
    whole on screen (it was cut at the left), the row numbers stay beside the cells, and ←
    brings the cells back to column 0 (it never did)."""
    from textual.widgets import Static

    from tests.test_app import text_of

    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=size) as pilot:
        figure = await open_figure(app, pilot, "visibility")
        figure.action_length(57)
        for _ in range(1 + 40):
            await pilot.press("plus" if figure.n < 64 else "down")
        while figure.row < 40:
            await pilot.press("down")
        await pilot.press("end")
        await pilot.pause()
        await pilot.pause()
        visible = figure.region.intersection(figure.scrollable_content_region)
        sees = figure.query_one("#vis-sees", Static)
        assert "position 40 sees [0, 1, 2" in text_of(sees)
        assert visible.x <= sees.region.x and sees.region.right <= visible.right
        rows = figure.query_one("#vis-rows", Static)
        assert visible.x <= rows.region.x and rows.region.right <= visible.right
        for _ in range(100):
            await pilot.press("left")
        await pilot.pause()
        view = figure.query_one(MaskView)
        assert view.region.x == rows.region.right  # column 0 right beside the row numbers
        assert visible.x <= rows.region.x
