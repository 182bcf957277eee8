"""Issue 23, "an evening with the tutor": each numbered point a learner ran into, as
they ran into it (Pilot, 80×24, zh unless the point is about English)."""

import pytest

from tests.pilot import engine_ready, open_figure
from tui.app import TutorApp
from tui.widgets.prediction_box import PredictionBox


def text_of(widget, width: int = 200) -> str:
    """What a Static shows (Text, Table or str), as plain text."""
    import io

    from rich.console import Console

    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.file.getvalue()


async def settle(pilot, rounds: int = 3) -> None:
    for _ in range(rounds):
        await pilot.pause()


async def type_text(pilot, text: str) -> None:
    for character in text:
        await pilot.press(character if character != " " else "space")


# ---------------------------------------------------------------- 1. `g` again


@pytest.mark.parametrize("objective", ["visibility", "clm", "mlm", "span", "prefix-lm"])
@pytest.mark.slow
async def test_g_again_after_a_revealed_prediction_asks_a_new_question(objective):
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, objective)
        await pilot.press("g")
        await settle(pilot)
        first = figure.question
        assert first is not None
        await type_text(pilot, "<extra_id_0> a b c" if objective == "span" else "0")
        await pilot.press("enter")
        await settle(pilot)
        assert figure.question is None and figure.revealed is not None
        await pilot.press("g")  # crashed with DuplicateIds: 'prediction'
        await settle(pilot)
        assert figure.question is not None
        assert len(figure.query(PredictionBox)) == 1
        assert isinstance(app.focused.parent, PredictionBox)
        await pilot.press("escape")  # the new question can be skipped as the first could
        await settle(pilot)
        assert figure.question is None and not figure.query(PredictionBox)


# ---------------------------------------------------------------- 3. text is text, never markup


async def test_the_palette_shows_glossary_text_verbatim():
    from tests.test_app_palette import palette_hits

    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(100, 30)) as pilot:
        hits = await palette_hits(pilot, "mlm")
        assert any("换成 [MASK]、换成随机词" in hit for hit in hits), hits


async def test_the_zh_palette_uses_chinese_colons():
    """ "练习: 三个常见误区" in the Chinese palette (Polish: half-width punctuation in zh)."""
    from tests.test_app_palette import palette_hits

    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(100, 30)) as pilot:
        hits = await palette_hits(pilot, "theme")
        assert any("练习：" in hit for hit in hits), hits
        assert not any("练习:" in hit or "讲解:" in hit or "术语:" in hit for hit in hits), hits


async def test_notifications_and_the_history_show_course_text_verbatim():
    from textual.widgets import DataTable
    from textual.widgets._data_table import default_cell_formatter
    from textual.widgets._toast import Toast

    from exercises.learner.store import Attempt

    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(200, 30), notifications=True) as pilot:
        app.progress.record(
            Attempt(
                exercise="span-corruption",
                objective="span",
                seed=0,
                answer={"inputs": "x"},
                score=0.0,
                valid=True,
                graded=True,
                correct=False,
                diagnoses=["span-end-inclusive"],
                hints_used=0,
                seconds=1.0,
            )
        )
        app.open_page("history")
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        shown = default_cell_formatter(table.get_cell_at((0, 3))).plain  # what the table draws
        assert "tokens[start:end]" in shown, shown  # rich markup took "[start:end]" for a tag
        app.screen.notify("换成 [MASK]、[b]x[/b]")
        await settle(pilot)
        toasts = [str(toast.render()) for toast in app.screen.query(Toast)]
        assert any("换成 [MASK]、[b]x[/b]" in toast for toast in toasts), toasts


async def test_typed_text_in_a_figure_table_is_text():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(100, 30)) as pilot:
        figure = await open_figure(app, pilot, "mlm")
        box = figure.query_one("#mlm-text")
        box.value = "[b]cat[/b] sat on [red]the[/red] mat"
        await settle(pilot)
        shown = text_of(figure.query_one("#mlm-table"))
        assert "[b]cat[/b]" in shown and "[red]the[/red]" in shown, shown


# ---------------------------------------------------------------- 15, 22. keys and text boxes take turns


@pytest.mark.slow
async def test_a_figure_text_box_is_entered_with_enter_and_tab_keeps_its_text():
    from tui.figures.base import default_sentence

    LESSON_SENTENCE = default_sentence("zh")

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "mlm")
        box = figure.query_one("#mlm-text")
        assert app.focused is figure
        await pilot.press("e")  # no control of the figure's: it says how to type
        await settle(pilot)
        assert box.value == LESSON_SENTENCE
        assert "回车" in text_of(figure.query_one(".error"))
        await pilot.press("enter")
        await settle(pilot)
        assert app.focused is box
        await type_text(pilot, " ok")
        assert box.value == LESSON_SENTENCE + " ok"
        await pilot.press("escape")
        await settle(pilot)
        assert app.focused is figure
        await pilot.press("tab")  # Tab too, and it no longer selects the whole sentence
        await settle(pilot)
        assert app.focused is box
        await type_text(pilot, "!")
        assert box.value == LESSON_SENTENCE + " ok!"


@pytest.mark.slow
async def test_the_key_line_says_whether_letters_are_keys_or_text():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "mlm")
        keys = figure.query_one(".keys")
        assert "g 先预测" in text_of(keys) and "回车 输入句子" in text_of(keys)
        await pilot.press("enter")
        await settle(pilot)
        assert "正在输入" in text_of(keys) and "g 先预测" not in text_of(keys)
        await pilot.press("r")  # a letter in the box: typed, not a resample
        await settle(pilot)
        assert figure.query_one("#mlm-text").value.endswith("r") and figure.seed == 0
        await pilot.press("enter")  # done typing
        await settle(pilot)
        assert app.focused is figure and "g 先预测" in text_of(keys)
        assert "讲义的实验" in text_of(figure.query_one("#mlm-counts"))
        await pilot.press("r")
        await settle(pilot)
        assert figure.seed == 1
        assert "讲义的实验" not in text_of(figure.query_one("#mlm-counts"))  # another run now


@pytest.mark.parametrize("objective", ["visibility", "clm", "mlm", "span", "prefix-lm"])
async def test_every_predicting_figure_names_g_in_its_key_line(objective):
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, objective)
        assert "g predict first" in text_of(figure.query_one(".keys"))


@pytest.mark.parametrize(("lang", "width"), [("en", 80), ("zh", 60)])
@pytest.mark.slow
async def test_a_prediction_box_never_breaks_a_key_across_lines(lang, width):
    """ "Enter: reveal · Esc:" then "skip" on the next line (span figure, English, 80 columns)."""
    from tui.i18n import t

    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(width, 24)) as pilot:
        for objective in ("visibility", "clm", "mlm", "span", "prefix-lm"):
            figure = await open_figure(app, pilot, objective)
            await pilot.press("g")
            await settle(pilot)
            form = figure.query_one(PredictionBox).query_one("#prediction-form")
            lines = [form.render_line(y).text.strip() for y in range(form.size.height)]
            for key in t("predict-enter", lang).split(" · "):
                assert any(key in line for line in lines), (objective, key, lines)
            await pilot.press("escape", "escape")
            await settle(pilot)


@pytest.mark.parametrize(("lang", "width"), [("zh", 60), ("en", 60), ("zh", 80)])
@pytest.mark.slow
async def test_the_practice_key_line_never_breaks_a_key(lang, width):
    """ "按 Esc 后：h 提示 · s 答" then "案 · n 换一题。" at 60 columns."""
    from tui.i18n import t
    from tui.widgets.exercise_panel import ExercisePanel

    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(width, 18)) as pilot:
        await engine_ready(app)
        for objective, exercise in (
            ("visibility", "visibility"),
            ("clm", "clm-shift"),
            ("mlm", "concept-80-10-10"),
        ):
            app.open_lesson(objective, exercise, seed=0)
            await settle(pilot, 5)
            help_line = app.screen.query_one(ExercisePanel).query_one("#answer-help")
            lines = [help_line.render_line(y).text.strip() for y in range(help_line.size.height)]
            for key in ("help-key-hint", "help-key-solution", "help-key-new"):
                assert any(t(key, lang) in line for line in lines), (exercise, key, lines)
            await pilot.press("escape", "escape")
            await settle(pilot)


# ---------------------------------------------------------------- 20, 22. the MLM table and its counts


def _cli_mlm_rows(capsys, text: str, seed: int) -> list[str]:
    from tui.cli import main

    main(["--lang", "en", "show", "sample", "mlm", "--text", text, "--seed", str(seed)])
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("pos"))
    return [line for line in lines[start + 1 :] if line[:1].isdigit()]


@pytest.mark.parametrize("seed", [0, 1, 4])
async def test_the_mlm_figure_and_show_sample_agree(capsys, seed):
    text = "the quick brown fox jumps over the lazy dog again and again"
    cli = _cli_mlm_rows(capsys, text, seed)
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(100, 30)) as pilot:
        figure = await open_figure(app, pilot, "mlm")
        figure.query_one("#mlm-text").value = text
        for _ in range(seed):
            figure.action_resample()
        await settle(pilot)
        shown = text_of(figure.query_one("#mlm-table")).splitlines()[1:]
        rows = [row for row in shown if row.strip()]
        assert len(rows) == len(cli)
        for mine, theirs in zip(rows, cli, strict=True):
            assert mine.split()[-1] == theirs.split()[-1]  # the label, or -100
            assert ("✓" in mine) == ("✓" in theirs)
        # the counts under the table are the table's own
        selected = sum("✓" in row for row in rows)
        assert f"selected {selected}:" in text_of(figure.query_one("#mlm-sentence-counts"))
        assert text_of(figure.query_one("#mlm-counts")).startswith("Not this sentence")


# ---------------------------------------------------------------- 4. a reflection marked "no" is not solved


@pytest.mark.parametrize("mark", ["x", "p"])
@pytest.mark.slow
async def test_a_reflection_marked_no_or_partly_is_not_solved_and_comes_back(mark):
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("clm", "reflect-clm-generation")
        await settle(pilot, 5)
        await type_text(pilot, "it predicts the next token")
        await pilot.press("enter")  # the model answer, then the self-mark
        await settle(pilot)
        await pilot.press(mark)
        await settle(pilot)
        stored = app.progress.attempts[-1]
        assert stored.exercise == "reflect-clm-generation" and stored.score == (0.0 if mark == "x" else 0.5)
        assert app.progress.per_objective()["clm"].solved == 0
        assert "reflect-clm-generation" in {item.exercise for item in app.progress.queue()}
        await pilot.press("escape", "escape")
        await settle(pilot)
        line = str(app.screen.query_one("#lessons").get_option("clm").prompt)
        assert "已做对 0/4" in line, line
        await pilot.press("y")  # nothing: the home screen has no such key; yes is marked in the lesson
        app.open_lesson("clm", "reflect-clm-generation", seed=1)
        await settle(pilot, 5)
        await type_text(pilot, "next token, left to right")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert app.progress.per_objective()["clm"].solved == 1


# ---------------------------------------------------------------- 13, 21. a lesson solved, said where it is read


async def _choose(pilot, app, right: bool) -> None:
    from exercises.catalogue import get
    from tui.widgets.exercise_panel import ExercisePanel
    from tui.widgets.parts import ChoiceSet

    panel = app.screen.query_one(ExercisePanel)
    exercise = get(panel.exercise_id)
    (part,) = exercise.parts
    expected = exercise.solve(panel.variant)[part.name]
    choices = panel.query_one(ChoiceSet)
    value = expected if right else next(o.value for o in choices.options if o.value != expected)
    choices.choose(value)
    await settle(pilot, 4)


@pytest.mark.slow
async def test_solving_a_lesson_says_so_under_the_feedback_and_nowhere_else():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await engine_ready(app)
        app.open_lesson("self-supervision", "concept-self-supervision")
        await settle(pilot, 5)
        await _choose(pilot, app, right=False)
        assert not list(app._notifications)  # no toast over the feedback, least of all after a miss
        assert not text_of(app.screen.query_one("#lesson-note")).strip()
        assert "next_lesson" in [active.binding.action for active in app.screen.active_bindings.values()]
        await pilot.press("escape", "escape")
        await settle(pilot)
        course = text_of(app.screen.query_one("#course"))
        from exercises.curriculum import OBJECTIVES

        assert f"完成 0/{len(OBJECTIVES)} 课" in course, course  # tried is not done: "已做对 0/1" beside it
        app.open_lesson("self-supervision", "concept-self-supervision", seed=1)
        await settle(pilot, 5)
        await _choose(pilot, app, right=True)
        note = app.screen.query_one("#lesson-note")
        assert "本课练习全部做对了" in text_of(note) and "因果语言建模" in text_of(note)
        assert not list(app._notifications)  # no toast over the feedback
        await pilot.press("ctrl+l")  # the note follows the language
        await settle(pilot)
        assert "Every exercise of this lesson is solved" in text_of(note)
        await pilot.press("ctrl+n")
        await settle(pilot, 4)
        assert app.screen.objective.id == "clm"
        assert not text_of(app.screen.query_one("#lesson-note")).strip()  # not in the next lesson


# ---------------------------------------------------------------- 8. exam practice: no hint, no early solution


def _footer_actions(app) -> list[str]:
    from textual.widgets import Footer

    return [getattr(key, "action", "") for key in app.screen.query_one(Footer).children]


@pytest.mark.slow
async def test_exam_practice_offers_no_hint_and_no_solution_before_an_answer():
    from tui.widgets.exercise_panel import ExercisePanel

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.progress.set("hints", "never")
        app.open_lesson("clm", "perplexity")
        await settle(pilot, 5)
        await pilot.press("escape")  # out of the text box: the panel's keys
        await settle(pilot)
        panel = app.screen.query_one(ExercisePanel)
        actions = _footer_actions(app)
        assert "hint" not in actions and "solution" not in actions, actions
        assert not panel.query_one("#hint").display and not panel.query_one("#solution").display
        assert "h 提示" not in text_of(panel.query_one("#answer-help"))
        await pilot.press("s")
        await settle(pilot)
        assert "参考答案" not in text_of(panel.query_one("#feedback"))
        panel.action_solution()  # asked for some other way: refused, and why
        await settle(pilot)
        assert "参考答案" not in text_of(panel.query_one("#feedback"))
        assert "先作答一次" in text_of(panel.query_one("#hints"))
        panel.focus_first()
        await type_text(pilot, "5")
        await pilot.press("enter")
        await type_text(pilot, "5")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert "solution" in _footer_actions(app) and "hint" not in _footer_actions(app)
        await pilot.press("s")
        await settle(pilot)
        assert "参考答案" in text_of(panel.query_one("#feedback"))


# ---------------------------------------------------------------- 12. a multiple choice keeps its answer


async def test_a_first_wrong_choice_names_the_wrong_option_and_keeps_the_right_one():
    from exercises.catalogue import get
    from exercises.grading.diagnoses import explain
    from tui.widgets.exercise_panel import ExercisePanel

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("self-supervision", "concept-self-supervision")
        await settle(pilot, 5)
        panel = app.screen.query_one(ExercisePanel)
        exercise = get("concept-self-supervision")
        question = exercise.question(panel.variant)
        right = next(option for option in question.options if option.correct)
        await _choose(pilot, app, right=False)
        shown = text_of(panel.query_one("#feedback"), width=400)
        assert "你选了" in shown and "不对" in shown and "你的选择" not in shown, shown
        assert right.text["zh"] not in shown
        for code in panel.result.diagnoses:
            assert explain(code)["zh"] not in shown  # it states the right option
        panel.action_solution()  # asked for: the right option, with its text
        await settle(pilot)
        shown = text_of(panel.query_one("#feedback"), width=400)
        assert "正确选项：" in shown and right.text["zh"] in shown and "你的选择" not in shown, shown


# ---------------------------------------------------------------- 14. a capped score says why


async def test_a_score_capped_by_a_misconception_says_so():
    from tui.widgets.exercise_panel import ExercisePanel

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("mlm", "mlm-abcde")
        await settle(pilot, 5)
        panel = app.screen.query_one(ExercisePanel)
        assert "h 提示 · s 答案" in text_of(panel.query_one("#answer-help"))  # what Esc leads to
        for part, text in (("inputs", "A [MASK] C D X"), ("loss_positions", "1"), ("labels", "1: B, 4: E")):
            panel.query_one(f"#part-{part}").value = text
        panel.check()
        await settle(pilot)
        shown = text_of(panel.query_one("#feedback"), width=400)
        assert "得分 50%" in shown
        assert "各部分合计 83%" in shown and "最多只能得 50%" in shown, shown


# ---------------------------------------------------------------- 10. Ctrl+L leaves nothing behind


def _footer_problems(app) -> list[str]:
    """Footer keys in the other language, or drawn narrower than their words."""
    import re

    from rich.cells import cell_len
    from textual.widgets import Footer

    problems = []
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for key in app.screen.query_one(Footer).children:
        description = getattr(key, "description", "")
        if not description:
            continue
        if (app.lang == "en") == bool(cjk.search(description)) and description not in ("中文", "English"):
            problems.append(f"language: {description}")
        drawn = cell_len(key.render().plain)
        if key.size.width < drawn:
            problems.append(f"cut: {key.render().plain!r} in {key.size.width}")
    return problems


@pytest.mark.parametrize("start", ["zh", "en"])
@pytest.mark.slow
async def test_ctrl_l_leaves_no_key_tab_or_word_of_the_other_language(start):
    from textual.widgets import Tabs

    app = TutorApp(lang=start, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("visibility", "mask-matrix")  # the grid has keys of its own
        await settle(pilot, 6)
        for _ in range(2):
            await pilot.press("ctrl+l")
            await settle(pilot, 6)
            assert not _footer_problems(app), _footer_problems(app)
            tabs = app.screen.query_one(Tabs)
            underline = tabs.query_one("Underline")
            active = tabs.active_tab.virtual_region.shrink(tabs.active_tab.styles.gutter)
            assert (underline.highlight_start, underline.highlight_end) == active.column_span
        await pilot.press("f6", "g")  # the figure, a question open
        await settle(pilot, 4)
        await pilot.press("ctrl+l")
        await settle(pilot, 6)
        assert not _footer_problems(app), _footer_problems(app)
        await pilot.press("escape", "escape", "escape")  # home
        await settle(pilot, 4)
        assert not _footer_problems(app), _footer_problems(app)
        await pilot.press("ctrl+l")  # switched while the lesson waits behind the home screen
        await settle(pilot, 4)
        assert not _footer_problems(app), _footer_problems(app)
        app.open_lesson("visibility")
        await settle(pilot, 6)
        assert not _footer_problems(app), _footer_problems(app)
        tabs = app.screen.query_one(Tabs)
        underline = tabs.query_one("Underline")
        active = tabs.active_tab.virtual_region.shrink(tabs.active_tab.styles.gutter)
        assert (underline.highlight_start, underline.highlight_end) == active.column_span


# ---------------------------------------------------------------- 5. nothing cut, nothing broken mid-expression


def test_code_and_formulas_in_prose_stay_whole_and_every_text_is_covered():
    from hypothesis import given
    from hypothesis import strategies as st
    from rich._wrap import words

    from tui import cjk_wrap

    cjk_wrap.install()

    def split(text: str) -> list[str]:
        return [word.strip() for _, _, word in words(text)]

    assert "labels[:, 1:]。" in split("损失比较 logits[:, :-1] 和 labels[:, 1:]。")
    assert "e^损失，" in split("所以困惑度是 e^损失，不是 10^损失。")
    assert split("P(w_t | w_<t) = P(w_t | w_0, w_1)")[0] == "P(w_t | w_<t)"
    assert split("模型从左往右工作")[:2] == ["模", "型"]  # Chinese still breaks per character

    @given(st.text(alphabet=st.sampled_from("ab [](){}^_ 损失，。（）\n:-1,"), max_size=40))
    def covers(text):
        joined = "".join(word for _, _, word in words(text))
        assert text.startswith(joined) and not text[len(joined) :].strip()  # nothing dropped

    covers()


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_the_chain_rule_wraps_with_a_mark_at_80_columns(lang):
    from rich.cells import cell_len
    from textual.widgets import Label

    from tui.widgets.lesson_markdown import CONTINUED, WrappedFence

    app = TutorApp(lang=lang, still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("clm")
        await settle(pilot, 8)
        fences = list(app.screen.query(WrappedFence))
        assert fences
        for fence in fences:
            label = fence.query_one(Label)
            room = fence.size.width - label.styles.gutter.width
            lines = str(label.content).splitlines()
            assert all(cell_len(line) <= room for line in lines), (room, lines)
        chain = next(str(fence.query_one(Label).content) for fence in fences if "P(w_0)" in fence.code)
        assert CONTINUED.strip() in chain and "P(w_{T-1} | w_<T-1)" in chain.replace("\n", " "), chain


@pytest.mark.slow
async def test_chinese_lesson_text_has_no_space_after_chinese_punctuation():
    """A source line break inside a Chinese paragraph read as a space: "文本窗口， 步数",
    "所以……； 英文版" (the training-lab lesson, Polish)."""
    import re

    from textual.widgets._markdown import MarkdownBlock, MarkdownFence

    from exercises.curriculum import OBJECTIVES

    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        for objective in OBJECTIVES:
            app.open_lesson(objective.id)
            await settle(pilot, 6)
            texts = [
                block._content.plain
                for block in app.screen.query(MarkdownBlock)
                if not isinstance(block, MarkdownFence)
            ]
            assert any("。" in text for text in texts), objective.id
            for text in texts:
                assert not re.search(r"[，。；：、！？）][ ]", text), (objective.id, text)
            await pilot.press("escape")
            await settle(pilot)


def test_a_soft_break_stays_a_space_between_latin_words_and_in_code():
    from tui.cjk_wrap import join_soft_breaks

    assert join_soft_breaks("读同样的文本窗口，\n步数一样") == "读同样的文本窗口，步数一样"
    assert join_soft_breaks("小\ntransformer") == "小\ntransformer"  # Latin beside Chinese: a space
    assert join_soft_breaks("a model\nreads") == "a model\nreads"
    assert join_soft_breaks("```\n因为，\n所以\n```") == "```\n因为，\n所以\n```"
    assert join_soft_breaks("因为，\n\n所以") == "因为，\n\n所以"  # two paragraphs
    assert join_soft_breaks("- 因为，\n- 所以") == "- 因为，\n- 所以"  # two items
    assert join_soft_breaks("| 因为， |\n| 所以 |") == "| 因为， |\n| 所以 |"
    assert join_soft_breaks("    因为，\n    所以") == "    因为，\n    所以"  # indented code


# ---------------------------------------------------------------- 16. the lesson's exercises, marked; n is new


def _attempt(exercise: str, objective: str, seed: int, correct: bool):
    from exercises.learner.store import Attempt

    return Attempt(
        exercise=exercise,
        objective=objective,
        seed=seed,
        answer={"x": "y"},
        score=1.0 if correct else 0.0,
        valid=True,
        graded=True,
        correct=correct,
        diagnoses=[],
        hints_used=0,
        seconds=1.0,
    )


async def test_the_exercise_list_marks_progress_and_n_skips_variants_done():
    from textual.widgets import Select

    from exercises.learner.review import question_of
    from tui.widgets.exercise_panel import ExercisePanel

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        for seed in (0, 1, 2, 3):
            app.progress.record(_attempt("perplexity", "clm", seed, correct=seed == 3))
        app.progress.record(_attempt("loss-sanity", "clm", 0, correct=False))
        await engine_ready(app)
        app.open_lesson("clm", "perplexity")
        await settle(pilot, 6)
        panel = app.screen.query_one(ExercisePanel)
        select = panel.query_one(Select)
        prompts = {value: str(prompt) for prompt, value in select._options}
        assert prompts["perplexity"].startswith("✓ 3/4"), prompts
        assert prompts["loss-sanity"].startswith("✗ 2/4") and prompts["clm-shift"].startswith("○ 1/4")
        await pilot.press("escape", "n")
        await settle(pilot, 4)
        done = {question_of("perplexity", seed) for seed in (0, 1, 2, 3)}
        assert panel.seed not in (0, 1, 2, 3) and question_of("perplexity", panel.seed) not in done


# ---------------------------------------------------------------- 18. practice asks only what the lesson taught


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_the_visibility_lesson_teaches_every_mask_its_practice_asks_for(lang):
    from exercises.catalogue import get
    from tui.widgets.exercise_panel import ExercisePanel
    from tui.widgets.lesson_markdown import LessonMarkdown

    headings = {
        "causal": {"zh": "## 因果掩码", "en": "## Causal mask"},
        "bidirectional": {"zh": "## 双向掩码", "en": "## Bidirectional mask"},
        "prefix": {"zh": "前缀 LM 掩码", "en": "the prefix-LM mask"},
    }
    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("visibility")
        await settle(pilot, 6)
        taught = app.screen.query_one(LessonMarkdown).source
        asked = {
            get(exercise_id).generate(seed).data["kind"]
            for exercise_id in app.screen.query_one(ExercisePanel).exercise_ids
            for seed in range(40)
            if "kind" in get(exercise_id).generate(seed).data
        }
        assert asked >= {"causal", "prefix"}
        for kind in asked:
            assert headings[kind][lang] in taught, kind


# ---------------------------------------------------------------- 21. the small betrayals


async def test_review_try_then_esc_comes_back_to_the_review_queue():
    from textual.widgets import OptionList

    from tui.screens.pages import ReviewScreen

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.progress.record(_attempt("perplexity", "clm", 0, correct=False))
        await engine_ready(app)
        app.open_page("review")
        await settle(pilot, 4)
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("t")
        await settle(pilot, 6)
        assert app.screen.objective.id == "clm"
        await pilot.press("escape", "escape")
        await settle(pilot, 4)
        assert isinstance(app.screen, ReviewScreen), app.screen
        assert app.screen.query_one(OptionList).option_count == 1


SPAN_FORMS = {  # what people type in the spans box -> the spans meant
    "2:5": [(2, 5)],
    "２：５，６：７": [(2, 5), (6, 7)],
    "2:5、7:8": [(2, 5), (7, 8)],
    "2到4": [(2, 5)],
    "位置2到4": [(2, 5)],
    "2 到 4": [(2, 5)],
    "2～4": [(2, 5)],
    "2、3、4": [(2, 5)],
    "2到4，6": [(2, 5), (6, 7)],
}


async def test_the_span_figure_reads_spans_as_the_exercises_read_positions():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "span")
        box = figure.query_one("#span-spans")
        box.value = "2到4"
        await settle(pilot)
        assert not figure.query_one(".error").display, text_of(figure.query_one(".error"))
        assert "2:5" in text_of(figure.query_one("#span-out"), width=400)


def test_the_span_reader_knows_the_forms_and_fails_only_with_valueerror():
    from hypothesis import given
    from hypothesis import strategies as st

    from tui.figures.span import parse_spans

    for typed, meant in SPAN_FORMS.items():
        assert parse_spans(typed) == meant, typed
    assert parse_spans("  ") is None

    @given(st.text(alphabet=st.sampled_from("0123456789:：,，、到~-至 位置abc"), max_size=30))
    def any_text(text):
        try:
            spans = parse_spans(text)
        except ValueError:
            return
        assert spans is None or all(isinstance(a, int) and isinstance(b, int) for a, b in spans)

    any_text()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_lessons_name_commands_as_commands(lang):
    import re

    from exercises.curriculum import OBJECTIVES
    from exercises.facts import lesson_text

    commands = ("textbook", "show", "check", "exercise", "exercises", "progress", "train", "probe", "lab")
    for objective in OBJECTIVES:
        text = lesson_text(objective.id, lang)
        for command in re.findall(r"`([a-z-]+(?: [a-z-]+)*)`", text):
            assert command.split()[0] not in commands, (objective.id, command)  # `objectives-tutor ...`


# ---------------------------------------------------------------- 24. an id to copy is never wrapped


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("width", [60, 80])
def test_the_exercises_table_never_wraps_an_id(capsys, monkeypatch, lang, width):
    import sys

    from rich.cells import cell_len

    from exercises.curriculum import EXERCISE_IDS
    from tui.cli import main

    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # a terminal of that width (piped: no width)
    assert main(["--lang", lang, "exercises"]) == 0
    from rich.text import Text

    lines = [Text.from_ansi(line).plain for line in capsys.readouterr().out.splitlines()]
    first_words = {line.split()[0] for line in lines if line.strip()}
    assert set(EXERCISE_IDS) <= first_words, set(EXERCISE_IDS) - first_words
    assert all(cell_len(line) <= width for line in lines)


# ---------------------------------------------------------------- polish: zh words, cuts with a sign


@pytest.mark.parametrize("size", [(80, 24), (60, 18)])
async def test_history_rows_fit_the_width_and_a_cut_says_so(size):
    from textual.widgets import DataTable

    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=size) as pilot:
        attempt = _attempt("mlm-abcde", "mlm", 12, correct=False)
        attempt.diagnoses.extend(["label-is-mask", "random-shown-as-mask", "loss-omits-kept"])
        app.progress.record(attempt)
        app.open_page("history")
        await settle(pilot, 4)
        table = app.screen.query_one(DataTable)
        assert table.virtual_size.width <= table.scrollable_content_region.width, (
            table.virtual_size.width,
            table.scrollable_content_region.width,
        )
        cell = table.get_cell_at((0, 3)).plain
        assert cell.endswith("…") and "。、" not in cell, cell


@pytest.mark.slow
async def test_the_zh_figures_speak_chinese():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        for objective in ("clm", "mlm", "span", "self-supervision"):
            figure = await open_figure(app, pilot, objective)
            shown = "\n".join(text_of(static) for static in figure.query(".keys, .output"))
            assert "seed" not in shown, (objective, shown)
            for box in figure.query("Input"):
                assert "transformer" not in box.value, (objective, box.value)  # a Chinese sentence
            await pilot.press("escape", "escape")
            await settle(pilot)
        figure = await open_figure(app, pilot, "mlm")
        await pilot.press("ctrl+l")  # an untouched sentence follows the language
        await settle(pilot)
        assert figure.query_one("#mlm-text").value.startswith("transformer")


def test_chinese_bank_sentences_are_cut_on_whole_words():
    from exercises.catalogue import get
    from exercises.items.banks import ZH_SENTENCES

    words_ends = {
        sentence.replace(" ", ""): {
            sum(map(len, sentence.split()[: i + 1])) for i in range(len(sentence.split()))
        }
        for sentence in ZH_SENTENCES
    }
    for exercise_id in ("mlm-abcde", "mlm-eligible", "three-masks", "clm-shift"):
        for seed in range(1, 200):
            tokens = get(exercise_id).draw(seed)["tokens"]
            runs, run = [], ""
            for token in [*tokens, ""]:
                if len(token) == 1 and "\u4e00" <= token <= "\u9fff":
                    run += token
                elif run:
                    runs.append(run)
                    run = ""
            for run in runs:
                sentence = next(s for s in words_ends if s.startswith(run))
                assert len(run) in words_ends[sentence], (exercise_id, seed, run)


def test_a_choice_in_the_history_reads_as_the_pick_and_the_right_option():
    from exercises.catalogue import get
    from exercises.learner.store import Attempt
    from tui.screens.attempt import attempt_text

    exercise = get("concept-self-supervision")
    variant = exercise.generate(0)
    right = exercise.solve(variant)["choice"]
    wrong = next(letter for letter in "ABC" if letter != right)
    result = exercise.grade(variant, {"choice": wrong})
    attempt = Attempt(
        exercise=exercise.id,
        objective="self-supervision",
        seed=0,
        answer={"choice": wrong},
        score=result.score,
        valid=True,
        graded=True,
        correct=False,
        diagnoses=list(result.diagnoses),
        hints_used=0,
        seconds=1.0,
    )
    shown = attempt_text(attempt, "zh").plain
    assert f"你选了 {wrong})" in shown and f"正确选项：{right})" in shown, shown
    assert "你的选择：" + result.parts["choice"].feedback["zh"] not in shown


def test_a_choice_label_is_text_not_markup():
    from tui.widgets.glyph_radio import GlyphRadioButton

    button = GlyphRadioButton("换成 [MASK]、[b]随机词[/b]")
    assert button.label.plain == "换成 [MASK]、[b]随机词[/b]"
    button.label = "[i]x[/i] [CLS]"
    assert button.label.plain == "[i]x[/i] [CLS]"


# ---------------------------------------------------------------- 23. English mode, English content


@pytest.mark.slow
async def test_the_training_lab_trains_the_learners_language_until_they_pick_one():
    from textual.widgets import Select

    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "train-lab")
        corpus = figure.query_one("#tl-corpus", Select)
        assert corpus.value == "en"  # was the Chinese toy language under --lang en
        assert "because" in text_of(figure.query_one("#tl-rules"))
        await pilot.press("ctrl+l")  # untouched, it follows the language, as a figure's sentence does
        await settle(pilot)
        assert corpus.value == "zh"
        corpus.value = "arith"  # the learner's pick stays through a switch
        await settle(pilot)
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert corpus.value == "arith"


async def test_an_english_variant_on_chinese_material_says_why():
    from tui.widgets.exercise_panel import ExercisePanel

    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("span", "span-corruption", seed=2)
        await settle(pilot, 5)
        shown = " ".join(text_of(app.screen.query_one(ExercisePanel).query_one("#prompt")).split())
        assert "码" in shown and "This course mixes Chinese and English examples." in shown, shown


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_train_defaults_to_the_toy_language_of_lang(capsys, lang):
    from tui.cli import main

    assert main(["--lang", lang, "train", "--rules"]) == 0
    shown = capsys.readouterr().out
    assert ("because" in shown) == (lang == "en") and ("因为" in shown) == (lang == "zh"), shown


@pytest.mark.parametrize("corpus", ["zh", "en"])
def test_the_toy_language_rules_in_chinese_use_chinese_punctuation(corpus):
    """ "因为 … 所以, 虽然 … 但是" and "本 ← 书; 杯 ← 茶/水" in the zh lab (Polish)."""
    from exercises.training.table import rules_text

    shown = "\n".join(rules_text(corpus, "zh").splitlines()[1:])  # the rules, not the example sentence
    assert ", " not in shown and "; " not in shown, shown
    assert "；" in shown


def test_no_space_beside_chinese_punctuation_in_the_zh_ui():
    """ "输入 ：" on the span figure (Polish). A token sequence, spaced on purpose, is exempt."""
    import re

    from tui.i18n import MESSAGES

    spaced = {"fig-prefix-default"}  # tokens separated by spaces: "翻译成英文 ： 猫 在 睡觉"
    found = {
        key: text["zh"]
        for key, text in MESSAGES.items()
        if key not in spaced and re.search(r" [，。：；、！？）]|[，。；、！？][ ]", text["zh"])
    }
    assert not found, found
