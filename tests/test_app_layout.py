"""Issue 11.4 and 11.7: nothing cut or crowded at 60×18, 80×24 and 120×40 — the CLM
label table and its mask, the training lab's controls, the settings — and what the
learner chose survives a redraw."""

import pytest
from textual.containers import Horizontal
from textual.widgets import Select

from tests.pilot import open_figure
from tui.app import TutorApp


@pytest.mark.slow
async def test_the_clm_table_lists_every_position_and_its_mask_moves_below_when_crowded():
    from engine.textbook import clm_run

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(120, 40)) as pilot:
        figure = await open_figure(app, pilot, "clm")
        row = figure.query_one("#clm-row", Horizontal)
        assert not row.has_class("stacked")  # 8 positions fit beside the table at 120 columns
        for _ in range(16):
            await pilot.press("plus")
        await pilot.pause()
        assert figure.length == 24
        both = figure.query_one("#clm-table").content  # the two layouts side by side
        data, loss = both.columns[0]._cells[0], both.columns[2]._cells[0]
        assert data.row_count == loss.row_count == 24  # every position (the old table stopped at 12)
        ids = clm_run(seed=0, seq_len=24).input_ids[0].tolist()
        assert [cell for cell in loss.columns[0].cells][-1] == str(ids[-1])
        assert row.has_class("stacked")  # table ~47 + mask 75 columns do not fit 120
        table_region, mask_region = (
            figure.query_one("#clm-table").region,
            figure.query_one("#clm-mask").region,
        )
        assert mask_region.y >= table_region.bottom  # below it, not squeezed beside it
        await pilot.resize_terminal(200, 40)
        await pilot.pause()
        await pilot.pause()
        assert not row.has_class("stacked")


@pytest.mark.slow
async def test_the_training_lab_controls_wrap_at_60_columns_and_keep_the_corpus():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(60, 18)) as pilot:
        figure = await open_figure(app, pilot, "train-lab")
        assert figure.has_class("narrow")
        corpus = figure.query_one("#tl-corpus", Select)
        assert corpus.region.right <= app.size.width  # on screen, not cut at the edge
        corpus.value = "arith"  # picked, not the language's own: it stays
        await pilot.pause()
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert corpus.value == "arith"  # a redraw (language, resize) no longer resets the choice
        assert not figure.has_class("narrow")


async def test_settings_has_a_header_and_fits_60_columns():
    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(60, 18)) as pilot:
        app.open_page("settings")
        await pilot.pause()
        assert app.screen.query("Header")
        assert app.screen.sub_title == "设置"
        for widget in app.screen.query("RadioSet, Select"):
            assert widget.region.right <= 60
