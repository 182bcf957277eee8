"""Review that tells when (issue 11): the review screen says what is due now and
what comes when, in calendar days ("tomorrow: 1", "in 3 days: 1"), and any missed
exercise can be tried again at once on a new variant."""

import time
from datetime import datetime, timedelta

from textual.widgets import OptionList, Static

from exercises.learner.review import DAY, INTERVALS_DAYS, ReviewItem, days_ahead, schedule
from exercises.learner.store import Attempt
from tui.app import TutorApp
from tui.widgets.exercise_panel import ExercisePanel


def attempt(exercise: str, objective: str, correct: bool, at: float, seed: int = 0) -> Attempt:
    return Attempt(
        exercise=exercise,
        objective=objective,
        seed=seed,
        answer={"x": "?"},
        score=1.0 if correct else 0.0,
        valid=True,
        graded=True,
        correct=correct,
        at=at,
    )


def seeded_history(app, now: float) -> None:
    """One miss two days ago (due now), one miss just now (due tomorrow), one miss then
    a right answer just now (due in 3 days)."""
    progress = app.progress
    progress.record(attempt("clm-shift", "clm", False, now - 2 * DAY, seed=0))
    progress.record(attempt("perplexity", "clm", False, now - 60, seed=0))
    progress.record(attempt("span-corruption", "span", False, now - 120, seed=0))
    progress.record(attempt("span-corruption", "span", True, now - 60, seed=1))


def item(due: float) -> ReviewItem:
    return ReviewItem("x", "clm", due, 1, 0, (), 1)


def test_schedule_counts_calendar_days_not_hours():
    noon = datetime(2026, 3, 10, 12, 0).timestamp()
    late = datetime(2026, 3, 10, 23, 0).timestamp()
    items = [
        item(noon - 1),  # due already
        item(datetime(2026, 3, 10, 18, 0).timestamp()),  # later today
        item(datetime(2026, 3, 11, 0, 30).timestamp()),  # tomorrow, though 12.5 hours away
        item(datetime(2026, 3, 11, 11, 0).timestamp()),
        item(datetime(2026, 3, 13, 9, 0).timestamp()),
    ]
    assert schedule(items, noon) == (1, [(0, 1), (1, 2), (3, 1)])
    assert days_ahead(datetime(2026, 3, 11, 0, 30).timestamp(), late) == 1  # 1.5 hours, the next day


async def test_review_screen_tells_when_and_tries_another_now():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        now = time.time()
        seeded_history(app, now)
        app.open_page("review")
        await pilot.pause()
        await pilot.pause()
        line = str(app.screen.query_one("#schedule", Static).content)
        tomorrow = (datetime.fromtimestamp(now) + timedelta(days=INTERVALS_DAYS[0])).date()
        in_three = (datetime.fromtimestamp(now) + timedelta(days=INTERVALS_DAYS[1])).date()
        assert (tomorrow - datetime.fromtimestamp(now).date()).days == 1 and (
            in_three - datetime.fromtimestamp(now).date()
        ).days == 3
        assert line == "Due now: 1 · tomorrow: 1 · in 3 days: 1"
        options = app.screen.query_one(OptionList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert "due now" in prompts[0] and "due tomorrow" in prompts[1] and "due in 3 days" in prompts[2]
        options.highlighted = 1  # perplexity: missed a minute ago, due tomorrow, tried now
        await pilot.press("t")
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert screen.objective.id == "clm"
        panel = screen.query_one(ExercisePanel)
        assert panel.exercise_id == "perplexity" and panel.seed == 1  # a variant not seen yet


async def test_review_schedule_in_chinese_and_home_says_when_the_next_comes():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        now = time.time()
        app.progress.record(attempt("perplexity", "clm", False, now - 60))
        app.screen.refresh_list()
        await pilot.pause()
        review = str(app.screen.query_one(OptionList).get_option("review").prompt)
        assert review == "复习：现在没有到期 · 下一批：明天，1 题"  # not "下一批3 天后" (issue 23)
        app.open_page("review")
        await pilot.pause()
        assert str(app.screen.query_one("#schedule", Static).content) == "现在没有到期的题 · 明天：1 题"


async def test_a_missed_exercise_this_version_no_longer_has_does_not_break_review():
    app = TutorApp(lang="en", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.progress.record(attempt("retired-exercise", "clm", False, time.time() - 2 * DAY))
        app.open_page("review")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        assert "retired-exercise" in str(options.get_option_at_index(0).prompt)
        options.highlighted = 0
        await pilot.press("t")
        await pilot.pause()
        assert type(app.screen).__name__ == "ReviewScreen"  # said so, stayed
