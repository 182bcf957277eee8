"""Issue 11: "continue" returns to the exact lesson, tab and exercise variant, across
a restart of the app (the place is a setting in the progress file)."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import OptionList, TabbedContent

from exercises.curriculum import BY_ID, OBJECTIVES, next_objective
from exercises.learner.progress import LESSON_TABS, Place, Progress
from exercises.learner.store import ProgressStore
from tests.pilot import engine_ready
from tui.app import TutorApp
from tui.widgets.exercise_panel import ExercisePanel


def continue_option(app) -> str:
    options = app.screen.query_one(OptionList)
    first = options.get_option_at_index(0)
    assert (first.id or "").startswith("continue:"), first.id
    return str(first.prompt)


@pytest.mark.slow
async def test_continue_returns_to_the_exercise_variant_after_a_restart():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await engine_ready(app)
        app.open_lesson("clm")
        await pilot.pause()
        await app.screen.show_exercise("perplexity", 3)
        await pilot.pause()
        await pilot.pause()
    again = TutorApp(lang="en", still=True)
    async with again.run_test(size=(80, 24)) as pilot:
        await engine_ready(again)
        await pilot.pause()
        prompt = continue_option(again)
        assert "Causal LM" in prompt and "Perplexity" in prompt and "variant 3" in prompt
        again.screen.query_one(OptionList).highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        screen = again.screen
        assert screen.objective.id == "clm"
        assert screen.query_one(TabbedContent).active == "practice"
        panel = screen.query_one(ExercisePanel)
        assert (panel.exercise_id, panel.seed) == ("perplexity", 3)
        assert "variant 3" in str(panel.query_one("#title").content)


@pytest.mark.slow
async def test_continue_returns_to_the_figure_tab_in_chinese():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("visibility")
        await pilot.pause()
        await pilot.press("f6")
        await pilot.pause()
        await pilot.pause()
    again = TutorApp(lang="zh", still=True)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        prompt = continue_option(again)
        assert "继续上次" in prompt and "实时图" in prompt
        again.screen.query_one(OptionList).highlighted = 0
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert again.screen.objective.id == "visibility"
        await engine_ready(again)  # the variant arriving in the practice tab does not pull focus there
        await pilot.pause()
        await pilot.pause()
        assert again.screen.query_one(TabbedContent).active == "figure"


@pytest.mark.parametrize(
    "saved",
    [
        "not json",
        "[1, 2]",
        json.dumps({"objective": "clm", "tab": "exam", "exercise": "perplexity", "seed": 2}),
        json.dumps({"objective": "clm", "tab": "practice", "exercise": "mask-matrix", "seed": 2}),
        json.dumps({"objective": "clm", "tab": "practice", "exercise": "perplexity", "seed": "2"}),
        json.dumps({"objective": "clm", "tab": "practice", "exercise": "perplexity", "seed": -1}),
        json.dumps({"objective": "clm", "tab": "practice", "exercise": "perplexity", "seed": 10**40}),
        json.dumps({"objective": "mlm", "tab": "figure"}),
    ],
)
def test_a_place_written_by_hand_or_another_version_falls_back(tmp_path, saved):
    store = ProgressStore(tmp_path)
    store.set_setting("last_objective", "clm")
    store.set_setting("place", saved)
    place = Progress(store).place
    assert place is not None and place.objective == "clm"
    assert place.tab in LESSON_TABS
    assert place.exercise in (None, *BY_ID["clm"].exercises)
    assert place.seed == 0 or place.exercise is not None
    if "mask-matrix" in saved:  # an exercise of another lesson is not this lesson's place
        assert place.exercise is None


@given(
    objective=st.sampled_from([objective.id for objective in OBJECTIVES]),
    tab=st.sampled_from(LESSON_TABS),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_a_remembered_place_reads_back_unchanged(tmp_path_factory, objective, tab, seed, data):
    exercise = data.draw(st.sampled_from(BY_ID[objective].exercises))
    store = ProgressStore(tmp_path_factory.mktemp("place"))
    Progress(store).remember_place(Place(objective, tab, exercise, seed))
    assert Progress(store).place == Place(objective, tab, exercise, seed)
    store.close()


def test_next_objective_and_lesson_done_live_below_the_app(tmp_path):
    assert next_objective("clm") is BY_ID["packing"]  # the lesson after causal LM
    assert next_objective(OBJECTIVES[-1].id) is None
    progress = Progress(ProgressStore(tmp_path))
    assert not progress.lesson_done("self-supervision")
    from tests.test_app_course import get

    exercise = get("concept-self-supervision")
    variant = exercise.generate(0)
    answer = {part.name: "?" for part in exercise.parts}
    progress.record_result(
        exercise.id, "self-supervision", 0, answer, exercise.grade(variant, answer), 0, 1.0
    )
    assert progress.lesson_tried("self-supervision")  # tried offers the next lesson, right or wrong
    assert not progress.lesson_done("self-supervision")  # done is solved (issue 23.21)
    assert not progress.lesson_tried("clm")


@given(
    saved=st.one_of(
        st.text(max_size=60),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
            lambda children: (
                st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=4)
            ),
            max_leaves=8,
        ).map(json.dumps),
    )
)
def test_any_saved_place_reads_as_a_place_of_the_last_lesson(tmp_path_factory, saved):
    store = ProgressStore(tmp_path_factory.mktemp("fuzz"))
    store.set_setting("last_objective", "span")
    store.set_setting("place", saved)
    place = Progress(store).place
    assert place.objective == "span" and place.tab in LESSON_TABS
    assert place.exercise in (None, *BY_ID["span"].exercises) and 0 <= place.seed <= 2**32 - 1
    store.close()
