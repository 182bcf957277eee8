"""The figures say what the engine computed: both CLM layouts, T5's targets and
settings, a random draw equal to the original, a real prefix task."""

from tests.pilot import open_figure
from tests.test_app import text_of
from tui.app import TutorApp


async def test_clm_figure_shows_both_layouts_with_the_engines_labels():
    from engine.textbook import clm_run

    run = clm_run()
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_figure(app, pilot, "clm")
        rows = text_of(app.screen.query_one("#clm-table")).splitlines()
        body = [row.split() for row in rows if row.strip()[:1].isdigit()]
        ids, labels = run.input_ids[0].tolist(), run.labels[0].tolist()
        for position in range(7):
            cells = body[position]
            assert cells[:3] == [str(position), str(ids[position]), str(labels[position])]
            assert cells[-1] == f"{position}→{position + 1}"  # loss-side: logit t meets label t+1
            assert cells[-3] == cells[-2] == str(ids[position])  # loss-side labels = input_ids
        assert body[7][-1] == "unused" and body[7][0] == "7"
        loss = text_of(app.screen.query_one("#clm-loss"))
        assert "9.6401" in loss and "9.72" in loss and "logits[:, :-1]" in loss


async def test_span_figure_opens_on_t5s_settings_and_says_why_one_last_span():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_figure(app, pilot, "span")
        out = text_of(app.screen.query_one("#span-out"))
        assert "噪声比例 0.15" in out and "平均长度 3" in out
        assert "<extra_id_0> learn patterns from <extra_id_1> </s>" in out  # the given span 2:5
        assert "<extra_id_0> corpora </s>" in out  # T5's one random span, last
        assert "8 个 token × 噪声比例 0.15 = 1.20" in out and "只有一个片段时它总在最后" in out
        app.screen.query_one("#span-spans").value = "2:3,3:4"
        await pilot.pause()
        out = text_of(app.screen.query_one("#span-out"))
        assert "片段 2:4" in out and "<extra_id_0> learn patterns <extra_id_1> </s>" in out
        assert "只用一个哨兵" in out


async def test_mlm_figure_marks_a_random_draw_equal_to_the_original():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_figure(app, pilot, "mlm")
        # One word repeated: every random draw from the sentence's vocabulary is the original.
        app.screen.query_one("#mlm-text").value = " ".join(["cat"] * 12)
        figure = app.screen.query_one("#figure-mlm")
        figure.p = 1.0
        figure.refresh_figure()
        await pilot.pause()
        rows = [row for row in text_of(app.screen.query_one("#mlm-table")).splitlines() if "cat" in row]
        random_rows = [row for row in rows if " random " in f" {row} "]
        kept_rows = [row for row in rows if " kept " in f" {row} "]
        assert random_rows and kept_rows
        assert all("= original" in row for row in random_rows)
        assert not any("= original" in row for row in kept_rows)


async def test_prefix_figure_opens_on_a_translation_with_the_prefix_at_the_arrow():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_figure(app, pilot, "prefix-lm")
        assert app.screen.query_one("#prefix-text").value.endswith("→ le chat dort")
        table = text_of(app.screen.query_one("#prefix-table"))
        assert "Prefix LM, prefix 8" in text_of(app.screen.query_one("#prefix-title"))
        arrow_row = next(row for row in table.splitlines() if "→" in row)
        assert arrow_row.split()[-1] == "le"  # the last prefix position makes the first prediction
