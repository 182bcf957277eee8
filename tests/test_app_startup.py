"""What the first frame waits for, and what "engine ready" waits for (issue 23, speed).

No clock here (speed is measured in benchmarks/startup.py): these tests check the
causes, which a test can see on any machine: the modules loaded by the first frame,
how often the home screen rebuilds its list, and that "engine ready" does not wait
for the lesson modules loaded after it."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from tests.pilot import engine_ready
from tui.app import TutorApp
from tui.screens.home import HomeScreen

ROOT = Path(__file__).resolve().parent.parent

# Loaded later: by the engine's thread after the first frame, or when a lesson opens.
NOT_BEFORE_THE_FIRST_FRAME = (
    "torch",
    "engine",
    "exercises.catalogue",
    "exercises.grading.scoring",
    "exercises.grading.model",  # its dataclasses: ~4 ms; progress needs only grading.marks
    "tui.figures",
    "tui.screens.lesson",
    "tui.palette",
    "markdown_it",
    "pygments",
)

FIRST_FRAME_PROBE = """
import json, sys
from tui.app import TutorApp
from tui.screens.home import HomeScreen

builds = []
replace = HomeScreen._replace_options
HomeScreen._replace_options = lambda screen, options, lines: (builds.append(1), replace(screen, options, lines))

def first_frame(app):  # instead of starting the engine's thread: note what is loaded, leave
    print(json.dumps({"modules": sorted(sys.modules), "builds": len(builds)}))
    app.exit()

TutorApp._after_first_frame = first_frame
TutorApp(lang=sys.argv[1]).run(headless=True)
"""


def first_frame(lang: str, tmp_path) -> dict:
    """The real app, started as a learner starts it (engine on), up to its first frame."""
    env = {**os.environ, "OBJECTIVES_TUTOR_HOME": str(tmp_path / lang)}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_PROBE, lang],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_first_frame_loads_no_torch_engine_nor_lesson_modules(tmp_path):
    for lang in ("en", "zh"):
        seen = first_frame(lang, tmp_path)
        assert "tui.screens.home" in seen["modules"]  # the probe did reach the home screen's frame
        early = {
            name
            for name in seen["modules"]
            if any(name == heavy or name.startswith(heavy + ".") for heavy in NOT_BEFORE_THE_FIRST_FRAME)
        }
        assert not early, f"{lang}: loaded before the first frame: {sorted(early)}"


def test_the_home_list_is_built_once_for_its_width_before_the_first_frame(tmp_path):
    """Textual sends the screen several resizes of one size as the app starts: each used
    to rebuild (and re-render) the whole list. Built on mount, then once at the list's
    real width."""
    for lang in ("en", "zh"):
        assert first_frame(lang, tmp_path)["builds"] <= 2


async def test_the_list_is_rebuilt_when_its_width_changes_not_otherwise():
    app = TutorApp(lang="en", load_engine=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        options = home.query_one("OptionList")
        before = [options.get_option_at_index(i) for i in range(options.option_count)]
        await pilot.resize_terminal(80, 30)  # taller: the lines are cut to the width only
        await pilot.pause()
        assert [options.get_option_at_index(i) for i in range(options.option_count)] == before
        narrow = str(options.get_option_at_index(1).prompt)
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        wide = str(options.get_option_at_index(1).prompt)
        assert len(wide) > len(narrow) and narrow.endswith("…")  # the summary was cut at 80, less at 120


async def test_engine_ready_does_not_wait_for_the_lesson_modules(monkeypatch):
    """The figures work once torch, the engine and the catalogue are in; the lesson
    modules are loaded afterwards in the same thread."""
    release, preloaded = threading.Event(), threading.Event()

    def preload() -> None:  # held until the test has seen "engine ready"
        release.wait(60)
        preloaded.set()

    monkeypatch.setattr(TutorApp, "_preload_lesson_modules", staticmethod(preload))
    app = TutorApp(lang="en", still=True)
    try:
        async with app.run_test(size=(80, 24)):
            await engine_ready(app)
            assert not preloaded.is_set()
            assert app.engine_state == "ready"
    finally:
        release.set()


async def test_reopening_a_lesson_guesses_no_code_language_again(monkeypatch):
    """Textual re-highlights every code block on each style update (every reopening of
    a kept lesson), guessing the language of an untagged block with all of Pygments'
    lexers each time: the guess is made once per block's text."""
    import textual.highlight

    from tui.widgets import lesson_markdown

    lesson_markdown._guess_language.cache_clear()  # an earlier test in this process opened the lesson
    guesses: list[str] = []
    guess = textual.highlight.guess_language
    monkeypatch.setattr(
        textual.highlight, "guess_language", lambda code, path: guesses.append(code) or guess(code, path)
    )
    highlights: list[str] = []
    highlight = lesson_markdown.WrappedFence.highlight.__func__
    monkeypatch.setattr(
        lesson_markdown.WrappedFence,
        "highlight",
        classmethod(
            lambda cls, code, *args, **kwargs: (
                highlights.append(code) or highlight(cls, code, *args, **kwargs)
            )
        ),
    )
    app = TutorApp(lang="zh", load_engine=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:

        async def until(done) -> None:  # a condition, not a time a loaded machine outruns
            for _ in range(400):
                if done():
                    return
                await pilot.pause(0.05)
            raise AssertionError("the lesson never got there")

        app.open_lesson("clm")
        await until(
            lambda: guesses
        )  # the causal-LM lesson has untagged code blocks: their language was guessed
        seen = len(guesses)
        for _ in range(2):
            await pilot.press("escape")
            await pilot.pause()
            drawn = len(highlights)
            app.open_lesson("clm")
            await until(lambda drawn=drawn: len(highlights) > drawn)  # its code blocks highlighted again
            await pilot.pause()
        assert len(guesses) == seen
