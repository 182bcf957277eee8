"""The figures say what the engine computed: both CLM layouts, T5's targets and
settings, a random draw equal to the original, a real prefix task."""

import pytest

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
        from engine.tokens import LESSON_SENTENCE

        # A zh figure opens on a Chinese sentence; the lesson's English one has the 8 tokens
        # the explanation below counts.
        app.screen.query_one("#span-text").value = LESSON_SENTENCE
        await pilot.pause()
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


@pytest.mark.slow
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


async def test_subwords_figure_cuts_as_the_engine_and_masks_whole_words():
    """At 80x24 in English: the course sentence's pieces, the vocabulary key retraining, and
    the whole-word column hiding every piece of a word whose first piece was drawn."""
    from engine.subwords import compare_masking, vocabulary_size

    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "subwords")
        pieces = text_of(app.screen.query_one("#sw-pieces"))
        assert "cor ##p ##or ##a" in pieces and "300 entries" in pieces
        compared = compare_masking(
            app.screen.query_one("#sw-text").value, seed=figure.seed, p=figure.p, add_cls_sep=False
        )
        rows = [row.split() for row in text_of(app.screen.query_one("#sw-table")).splitlines()[1:]]
        assert [row[1] for row in rows] == list(compared.pieces.pieces)
        hidden = [row[0] for row in rows if row[-1] == "[MASK]"]
        assert hidden == [str(i) for i, s in enumerate(compared.whole_word.selected) if s]
        assert "✂" in text_of(app.screen.query_one("#sw-table"))  # per piece leaves a word half hidden
        await pilot.press("minus", "minus")
        assert f"{vocabulary_size(200)} entries" in text_of(app.screen.query_one("#sw-pieces"))


async def test_subwords_figure_reads_chinese_one_character_per_token():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_figure(app, pilot, "subwords")
        app.screen.query_one("#sw-text").value = "整词 掩码 把 一个 词"
        await pilot.pause()
        rows = [row.split() for row in text_of(app.screen.query_one("#sw-table")).splitlines()[1:]]
        assert [row[1] for row in rows] == list("整词掩码把一个词")
        assert [row[2] for row in rows] == ["0", "0", "1", "1", "2", "3", "3", "4"]
        assert "5 个词 → 8 个子词" in text_of(app.screen.query_one("#sw-pieces"))


@pytest.mark.slow
async def test_packing_figure_shows_the_engines_windows_and_bands_a_long_one():
    """At 80x24 in Chinese: the lesson's corpus in windows of 6 with their labels; the
    window key, the padding key, the shuffle key; L = 16 does not fit 80 columns and is
    shown in bands, no token cut."""
    from engine.packing import pack_text

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_figure(app, pilot, "packing")
        text = app.screen.query_one("#pk-text").value
        table = text_of(app.screen.query_one("#pk-table")).splitlines()
        packed = pack_text(text, 6)
        for number, (tokens, labels) in enumerate(zip(packed.windows, packed.labels, strict=True)):
            row = next(line for line in table if line.startswith(f"窗口 {number}"))
            assert row.split()[2:] == tokens
            label_row = table[table.index(row) + 1].split()[1:]
            assert label_row == [label or "-100" for label in labels]
        assert "丢掉：3 个 token（公 园 </s>）" in text_of(app.screen.query_one("#pk-note"))
        await pilot.press("d", *["plus"] * 10)
        head = text_of(app.screen.query_one("#pk-head"))
        assert "L = 16" in head
        table = text_of(app.screen.query_one("#pk-table"))
        assert "…" not in table and "[PAD]" in table and "</s>" in table
        assert max(len(line) for line in table.splitlines()) <= 80
        assert sum(line.startswith("窗口 0") for line in table.splitlines()) == 2  # two bands
        await pilot.press(
            "minus", "minus", "minus", "minus", "minus", "minus", "minus", "minus", "minus", "minus"
        )
        await pilot.press("r")
        shuffled = pack_text(text, 6, seed=1, drop_last=False)
        assert "已打乱（种子 1）" in text_of(app.screen.query_one("#pk-head"))
        first = next(
            line for line in text_of(app.screen.query_one("#pk-table")).splitlines() if "窗口 0" in line
        )
        assert first.split()[2:] == shuffled.windows[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_refused_window_leaves_no_drawing_of_the_last_one(lang):
    """L past the corpus with the tail dropped: the engine refuses it. The header says the
    L asked for and no window of the last L stays drawn beside the error (the tester saw
    "L = 12 · windows: 1" and its window under "at least 13 tokens are needed, got 12")."""
    from engine.packing import pack_text

    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "packing")
        text = app.screen.query_one("#pk-text").value
        tokens = len(pack_text(text, 2).stream)
        await pilot.press(*["plus"] * (tokens - 6))  # L = the token count: one window
        await pilot.pause()
        assert f"L = {tokens} " in text_of(app.screen.query_one("#pk-head"))
        assert text_of(app.screen.query_one("#pk-table")).strip()
        await pilot.press("plus")  # L = tokens + 1: refused, the tail is dropped
        await pilot.pause()
        error = figure.query_one(".error")
        assert error.display and str(tokens + 1) in text_of(error)
        head = text_of(app.screen.query_one("#pk-head"))
        assert f"L = {tokens + 1} " in head and f"L = {tokens} " not in head
        assert text_of(app.screen.query_one("#pk-table")).strip() == ""
        assert text_of(app.screen.query_one("#pk-note")).strip() == ""
        await pilot.press("d")  # padded instead: drawn again, at the L asked for
        await pilot.pause()
        assert not error.display and "[PAD]" in text_of(app.screen.query_one("#pk-table"))
        await pilot.press("d")  # dropped again: the padded drawing goes too
        await pilot.pause()
        assert error.display and "[PAD]" not in text_of(app.screen.query_one("#pk-table"))


async def test_an_empty_text_leaves_no_table_of_the_last_one():
    """The same for the other figures the engine can refuse: MLM with its text emptied keeps
    its settings line, not the last sentence's table."""
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "mlm")
        assert text_of(app.screen.query_one("#mlm-table")).strip()
        app.screen.query_one("#mlm-text").value = ""
        await pilot.pause()
        await pilot.pause()
        assert figure.query_one(".error").display
        assert text_of(app.screen.query_one("#mlm-table")).strip() == ""
        assert "p = 0.15" in text_of(app.screen.query_one("#mlm-settings"))
