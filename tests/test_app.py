"""The app as a learner uses it, through Textual's Pilot."""

import subprocess
import sys

import pytest

from exercises.curriculum import BY_ID as CURRICULUM
from tests.pilot import engine_ready, open_figure
from tui.app import TutorApp
from tui.figures.clm import ClmFigure
from tui.figures.visibility import VisibilityFigure
from tui.screens.help import HelpScreen
from tui.screens.home import HomeScreen
from tui.screens.lesson import LessonScreen
from tui.screens.too_small import TooSmallScreen
from tui.widgets.exercise_panel import ExercisePanel
from tui.widgets.mask_view import MaskView
from tui.widgets.matrix_editor import MatrixEditor


def text_of(widget) -> str:
    """What a widget shows, as plain text (Rich renderables rendered at 100 columns)."""
    from rich.console import Console

    content = widget.content if hasattr(widget, "content") else widget.render()
    if isinstance(content, str):
        return content
    if hasattr(content, "plain"):
        return content.plain
    import io

    console = Console(width=100, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


async def open_practice(app, pilot, objective: str, exercise: str) -> ExercisePanel:
    await engine_ready(app)
    app.open_lesson(objective, exercise)
    settled = 0
    for _ in range(200):  # until the variant is shown and the cursor has stayed in its first part
        await pilot.pause()
        panel = next(iter(app.screen.query(ExercisePanel)), None)
        first = next(iter(app.screen.query("#parts Input, #parts MatrixEditor, #parts RadioSet")), None)
        ready = panel is not None and panel.exercise_id == exercise and first is not None
        settled = settled + 1 if ready and app.focused is first else 0
        if settled == 3:
            return panel
    raise AssertionError(f"practice on {exercise} did not settle: focus on {app.focused}, first part {first}")


async def answer(pilot, panel: ExercisePanel, parts: dict[str, str]) -> str:
    for name, value in parts.items():
        panel.query_one(f"#part-{name}").value = value
    panel.check()
    await pilot.pause()
    return text_of(panel.query_one("#feedback"))


def test_first_frame_does_not_import_torch():
    code = (
        "import asyncio, sys\n"
        "from tui.app import TutorApp\n"
        "async def main():\n"
        "    app = TutorApp(lang='en', load_engine=False)\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        await pilot.pause()\n"
        "        assert type(app.screen).__name__ == 'HomeScreen'\n"
        "asyncio.run(main())\n"
        "print('torch' in sys.modules, 'engine' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


async def test_home_lists_every_lesson_and_opens_one():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, HomeScreen)
        options = app.screen.query_one("OptionList")
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == [
            "self-supervision",
            "clm",
            "packing",
            "mlm",
            "subwords",
            "visibility",
            "span",
            "architecture",
            "prefix-lm",
            "train-lab",  # h7: the training lab
            "misconceptions",
            "review",
            "history",
            "settings",
        ]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.objective.id == "clm"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        assert options.get_option_at_index(0).id == "continue:clm"  # "continue: Causal LM" on top
        assert options.get_option_at_index(options.highlighted).id == "clm"  # the cursor stays on the lesson
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.screen.objective.id == "packing"  # the lesson below causal LM


async def test_clm_figure_follows_the_length_control():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await open_figure(app, pilot, "clm")
        assert isinstance(figure, ClmFigure)
        assert figure.has_focus
        mask = app.screen.query_one("#clm-mask", MaskView)
        assert text_of(mask).count("\n") == 8  # header + 8 rows
        assert "9.6401" in text_of(app.screen.query_one("#clm-loss"))
        await pilot.press("minus", "minus", "minus", "minus")
        await pilot.pause()
        assert figure.length == 4
        assert text_of(mask).count("\n") == 4
        await pilot.press("d")
        await pilot.pause()
        unscaled = lesson_clm_loss(seq_len=4, scaled=False)
        assert unscaled > 20  # far above ln V = 9.21: the lesson's "softmax saturated" case
        assert f"{unscaled:.4f}" in text_of(app.screen.query_one("#clm-loss"))


def lesson_clm_loss(seq_len: int, scaled: bool) -> float:
    """Lesson 1's CLM demo written out again from the seed, without the engine:
    the reference the figure's number is compared with."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    vocab, hidden_dim = 10000, 64
    input_ids = torch.randint(0, vocab, (2, seq_len))
    projection = torch.randn(hidden_dim, vocab)
    if scaled:
        projection = projection / hidden_dim**0.5
    hidden = torch.randn(2, seq_len, hidden_dim)
    logits = torch.matmul(hidden, projection)[:, :-1, :]
    return F.cross_entropy(logits.reshape(-1, vocab), input_ids[:, 1:].reshape(-1)).item()


def test_the_reference_reproduces_the_lessons_printed_loss():
    assert f"{lesson_clm_loss(seq_len=8, scaled=True):.4f}" == "9.6401"  # seed 000 prints 9.6401


async def test_visibility_row_cursor_says_what_a_position_sees():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("visibility")
        await pilot.pause()
        await pilot.press("f6", "down", "down", "down")
        await pilot.pause()
        assert app.screen.query_one(VisibilityFigure).row == 3
        assert "position 3 sees [0, 1, 2, 3]" in text_of(app.screen.query_one("#vis-sees"))
        await pilot.press("b")
        await pilot.pause()
        assert "[0, 1, 2, 3, 4, 5]" in text_of(app.screen.query_one("#vis-sees"))


async def test_mlm_figure_takes_a_chinese_sentence():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_figure(app, pilot, "mlm")
        app.screen.query_one("#mlm-text").value = "今天天气很好"
        await pilot.pause()
        table = text_of(app.screen.query_one("#mlm-table"))
        assert "今" in table and "[CLS]" not in table  # positions match the lesson's: no specials
        await pilot.press("w")
        await pilot.pause()
        table = text_of(app.screen.query_one("#mlm-table"))
        assert table.splitlines()[1].split()[:2] == ["0", "[CLS]"] and "[SEP]" in table


async def test_mlm_abcde_right_and_wrong_with_the_misconception_named():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "mlm", "mlm-abcde")
        given = {"inputs": "A [MASK] C D [MASK]", "loss_positions": "1", "labels": "1: B"}
        wrong = await answer(pilot, panel, given)
        graded = panel._exercise().grade(panel.variant, given)  # the grader, not the panel, decides
        assert 0 < graded.score < 1
        assert wrong.startswith(f"✗ score {graded.score:.0%}\n")
        assert "random word in the input, not [MASK]" in wrong  # random-shown-as-mask, in plain words
        assert "still a selected token" in wrong  # loss-omits-random
        right = await answer(
            pilot, panel, {"inputs": "A [MASK] C D X", "loss_positions": "1, 4", "labels": "1: B, 4: E"}
        )
        assert "✓ score 100%" in right
        assert app.progress.solved() == {"mlm-abcde"}


async def test_enter_moves_to_the_next_empty_part_then_checks():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "clm", "clm-shift")
        await pilot.pause()
        first = panel.query_one("#part-inputs")
        assert first.has_focus  # the practice tab puts the cursor in the first part
        first.value = "transformer models learn patterns from large text"
        await pilot.press("enter")
        await pilot.pause()
        assert panel.query_one("#part-labels").has_focus
        assert text_of(panel.query_one("#feedback")) == ""
        panel.query_one("#part-labels").value = "models learn patterns from large text corpora"
        await pilot.press("enter")
        await pilot.pause()
        panel.query_one("#part-pairs").value = "t -> t"
        await pilot.press("enter")
        await pilot.pause()
        assert "100%" in text_of(panel.query_one("#feedback"))


async def test_hints_come_one_at_a_time_and_new_variant_changes_the_prompt():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "mlm", "mlm-abcde")
        panel.focus()
        await pilot.press("h")
        assert text_of(panel.query_one("#hints")).count("Hint ") == 1
        await pilot.press("h", "h", "h")
        assert text_of(panel.query_one("#hints")).count("Hint ") == 3
        before = text_of(panel.query_one("#prompt"))
        await pilot.press("n")
        await pilot.pause()
        assert panel.seed == 1 and text_of(panel.query_one("#prompt")) != before


async def test_mask_matrix_cells_toggle_and_wrong_cells_are_marked():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 30)) as pilot:
        panel = await open_practice(app, pilot, "visibility", "mask-matrix")
        editor = panel.query_one(MatrixEditor)
        editor.focus()
        await pilot.pause()
        # the lesson's 4x4 causal mask: 1 above the diagonal
        for row in range(4):
            for column in range(4):
                if column > row:
                    editor.cursor = (row, column)
                    await pilot.press("space")
        await pilot.press("enter")
        await pilot.pause()
        assert "100%" in text_of(panel.query_one("#feedback"))
        editor.cursor = (2, 2)
        await pilot.press("space", "enter")  # now the diagonal cell (2,2) is blocked
        await pilot.pause()
        assert editor.wrong == {(2, 2): 0}  # the cell, and the value it should have
        assert "(2,2)" in text_of(panel.query_one("#feedback"))
        # The wrong cell still shows the learner's value and what it should be, as text.
        row_2 = editor.render().plain.splitlines()[3]
        assert row_2.split() == ["2", "0", "0", "1→0", "1"]
        await pilot.press("space")  # toggled back: the mark goes
        assert editor.wrong == {} and "→" not in editor.render().plain


async def test_language_switches_at_run_time():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        intro = app.screen.query_one("#intro")
        assert "Pick a lesson" in text_of(intro)
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert app.lang == "zh"
        assert "选择一课" in text_of(intro)
        await engine_ready(app)
        app.open_lesson("mlm", "mlm-abcde")
        await pilot.pause()
        await pilot.pause()
        panel = app.screen.query_one(ExercisePanel)
        assert "模型的输入序列会变成什么" in text_of(panel.query_one("#prompt"))
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert "What input sequence does the model see" in text_of(panel.query_one("#prompt"))


@pytest.mark.slow
async def test_command_palette_jumps_to_an_exercise():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        await pilot.press("ctrl+p")
        await pilot.pause()
        for key in "mask matrix":
            await pilot.press(key if key != " " else "space")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen) and app.screen.objective.id == "visibility"
        assert app.screen.query_one(ExercisePanel).exercise_id == "mask-matrix"


async def test_help_and_too_small():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(50, 15)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        assert "至少需要 60×18" in text_of(app.screen.query_one("#message"))
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)


@pytest.mark.parametrize(
    "objective",
    ["self-supervision", "clm", "mlm", "visibility", "span", "architecture", "prefix-lm", "misconceptions"],
)
@pytest.mark.slow
async def test_every_lesson_opens_all_three_tabs_in_both_languages(objective):
    for lang in ("en", "zh"):
        app = TutorApp(lang=lang, still=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await engine_ready(app)
            app.open_lesson(objective)
            await pilot.pause()
            markdown = app.screen.query_one("#lesson-text")
            assert markdown.source.startswith("# ")
            for key in ("f6", "f7", "n", "h", "s", "f5"):
                await pilot.press(key)
                await pilot.pause()
            assert isinstance(app.screen, LessonScreen)


def footer_keys(app) -> set[str]:
    """The keys the footer offers now (enabled ones only)."""
    return {
        key for key, active in app.screen.active_bindings.items() if active.enabled and active.binding.show
    }


@pytest.mark.slow
async def test_h_s_n_work_on_a_button_and_a_list_but_stay_letters_in_a_text_box():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "clm", "clm-shift")
        box = panel.query_one("#part-inputs")
        box.focus()
        await pilot.pause()
        assert not {"h", "s", "n"} & footer_keys(app)  # the footer offers only keys that work here
        await pilot.press(*"snh")
        await pilot.pause()
        assert box.value == "snh" and panel.seed == 0
        assert text_of(panel.query_one("#feedback")) == "" and text_of(panel.query_one("#hints")) == ""
        panel.query_one("#check").focus()  # on a button the keys work, and the footer says so
        await pilot.pause()
        assert {"h", "s", "n"} <= footer_keys(app)
        await pilot.press("h")
        assert text_of(panel.query_one("#hints")).startswith("Hint 1/")
        await pilot.press("s")
        await pilot.pause()
        solution = panel._exercise().solve(panel.variant)
        assert solution["labels"] in text_of(panel.query_one("#feedback"))
        await pilot.press("n")
        await pilot.pause()
        assert panel.seed == 1
        panel = await open_practice(app, pilot, "architecture", "concept-architecture")
        panel.query_one("#part-choice").focus()  # in a list of choices too
        await pilot.pause()
        assert {"h", "s", "n"} <= footer_keys(app)
        await pilot.press("s")
        await pilot.pause()
        right = panel._exercise().solve(panel.variant)["choice"]
        assert f"The right option: {right})" in text_of(panel.query_one("#feedback"))  # with its text


async def test_the_solution_waits_for_a_second_wrong_try_or_a_request():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "clm", "clm-shift")
        solution = panel._exercise().solve(panel.variant)
        wrong = {**solution, "labels": solution["inputs"]}  # labels = inputs: copying
        first = await answer(pilot, panel, wrong)
        assert first.startswith("✗") and solution["labels"] not in first  # marks what is wrong, no answer
        same = await answer(pilot, panel, wrong)  # the same answer again is no second try
        assert "Already checked" in same and "Solution (from the engine)" not in same
        second = await answer(pilot, panel, {**solution, "inputs": solution["labels"]})  # another wrong one
        assert "Solution (from the engine)" in second and solution["labels"] in second
        assert len(app.progress.attempts) == 2  # each graded try recorded (posted up, stored by the app)
        panel.focus()
        await pilot.press("n")  # a new variant starts over
        await pilot.pause()
        unreadable = await answer(pilot, panel, {"inputs": " ", "labels": "?"})
        again = await answer(pilot, panel, {"inputs": " ", "labels": "?"})
        assert "Solution" not in unreadable + again  # unreadable tries are not wrong tries


async def test_a_reflection_shows_the_model_answer_after_enter_then_takes_y_p_x():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "clm", "reflect-clm-generation")
        model = panel._exercise().model_answer["zh"]
        box = panel.query_one("#part-answer")
        box.focus()
        await pilot.pause()
        box.value = "因为生成时只能看到过去"
        await pilot.press("enter")
        await pilot.pause()
        feedback = text_of(panel.query_one("#feedback"))
        assert model in feedback.replace("\n", "") and "y" in feedback  # the model answer, then the keys
        assert app.focused is panel.query_one("#part-self_mark") and app.progress.attempts == []
        await pilot.press("p")
        await pilot.pause()
        (attempt,) = app.progress.attempts
        assert attempt.answer == {"answer": "因为生成时只能看到过去", "self_mark": "partly"}
        assert "你的自评：50%" in text_of(panel.query_one("#feedback"))


async def test_s_shows_a_reflections_model_answer_in_the_learners_language():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "mlm", "reflect-mlm-fill")
        panel.focus()
        await pilot.press("s")
        await pilot.pause()
        shown = text_of(panel.query_one("#feedback")).replace("\n", "")
        assert panel._exercise().model_answer["zh"] in shown
        assert panel._exercise().model_answer["en"] not in shown


async def test_choices_show_their_state_as_a_glyph():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "architecture", "concept-architecture")
        choices = panel.query_one("#part-choice")
        buttons = list(choices.query("RadioButton"))
        assert all(str(button.render()).startswith("▐○▌") for button in buttons)
        choices.focus()
        await pilot.press("b")
        await pilot.pause()
        assert [str(button.render())[:3] for button in buttons] == ["▐○▌", "▐●▌", "▐○▌"]


async def test_feedback_scrolls_into_view_at_80x24():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "mlm", "mlm-abcde")
        assert panel.query_one("#prompt").region.y >= 0  # the question is in view while answering
        await answer(pilot, panel, {"inputs": "A [MASK] C D [MASK]", "loss_positions": "1", "labels": "1: B"})
        feedback = panel.query_one("#feedback")
        for _ in range(40):  # a busy machine lays the feedback out a few frames later
            if feedback.region.height and panel.scroll_y == panel.scroll_target_y:
                break
            await pilot.pause(0.05)
        lines = text_of(feedback).rstrip("\n").count("\n") + 1
        assert lines >= 4 and feedback.region.height >= lines  # score, three parts, the misconceptions
        assert panel.scrollable_content_region.contains_region(feedback.region)  # every line, not the top one


async def test_multiple_choice_takes_a_typed_letter():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "architecture", "concept-architecture")
        right = panel._exercise().solve(panel.variant)["choice"]
        radio = panel.query_one("#part-choice")
        radio.focus()
        await pilot.pause()
        await pilot.press(right.lower())
        await pilot.pause()
        assert "100%" in text_of(panel.query_one("#feedback"))


async def test_a_wrong_answer_comes_back_in_the_review_queue_as_a_new_variant():
    import time

    from exercises.learner.store import Attempt
    from tui.screens.pages import HistoryScreen, ReviewScreen

    app = TutorApp(lang="en", still=True)
    two_days_ago = time.time() - 2 * 86400
    app.progress.record(
        Attempt(
            "mlm-abcde",
            "mlm",
            0,
            {"loss_positions": "1"},
            0.5,
            True,
            True,
            False,
            ["loss-omits-random"],
            at=two_days_ago,
        )
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        options = app.screen.query_one("OptionList")
        review_index = options.get_option_index("review")
        assert "1 due" in str(options.get_option_at_index(review_index).prompt)
        app.open_page("review")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        panel = app.screen.query_one(ExercisePanel)
        assert panel.exercise_id == "mlm-abcde" and panel.seed == 1  # a variant not seen before
        await answer(pilot, panel, panel._exercise().solve(panel.variant))
        for _ in range(3):  # the attempt bubbles up to the app, which records it
            await pilot.pause()
        assert len(app.progress.attempts) == 2
        app.pop_screen()
        app.open_page("history")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        table = app.screen.query_one("DataTable")
        assert table.row_count == 2
        title = panel._exercise().title["en"]  # rows name the exercise in words (issue 11 point 9)
        assert f"{title} #1" in str(table.get_row_at(0)) and "100%" in str(table.get_row_at(0))
        from exercises.grading.diagnoses import explain

        words = explain("loss-omits-random")["en"]  # the misconception in words, cut to fit
        shown = str(table.get_row_at(1)[3]).rstrip("…").strip()
        assert len(shown) > 10 and shown in words


@pytest.mark.slow
async def test_attempts_and_settings_survive_a_restart():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        panel = await open_practice(app, pilot, "clm", "clm-shift")
        await answer(pilot, panel, panel._exercise().solve(panel.variant))
        await pilot.press("ctrl+l")
        app.progress.set("hints", "never")
    again = TutorApp(still=True)  # no --lang: the saved one wins
    async with again.run_test(size=(80, 24)) as pilot:
        assert again.lang == "zh"
        assert again.progress.solved() == {"clm-shift"}
        in_lesson = len(CURRICULUM["clm"].exercises)  # the course's own count, not a number copied here
        assert f"已做对 1/{in_lesson}" in str(again.screen.query_one("OptionList").get_option("clm").prompt)
        panel = await open_practice(again, pilot, "clm", "clm-shift")
        panel.focus()
        await pilot.pause()
        assert "h" not in footer_keys(again) and not panel.query_one("#hint").display  # hints off


async def test_settings_screen_changes_and_saves_the_theme():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_page("settings")
        await pilot.pause()
        select = app.screen.query_one("#theme")
        other = next(name for name in sorted(app.available_themes) if name != app.theme)
        select.value = other
        await pilot.pause()
        assert app.theme == other and app.progress.setting("theme") == other
