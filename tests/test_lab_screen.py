"""The code lab screen through Textual's Pilot: checking, watching a save,
hints, the solution after a first try, a runaway file, both languages."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exercises.lab.record import LabRecord
from exercises.lab.tasks import BY_ID, TASKS, solution
from exercises.lab.workspace import init
from tests.lab_bugs import BUGS, buggy_source
from tui.app import TutorApp
from tui.screens.lab import LabLink, LabScreen


def _text(widget, width: int = 120) -> str:
    import io

    from rich.console import Console

    content = widget.content
    if isinstance(content, str):
        return content
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


async def _until(pilot, condition, seconds: float = 30.0) -> None:
    for _ in range(int(seconds / 0.05)):
        await pilot.pause()
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the lab screen did not get there in time")


async def _open(app, pilot, folder: Path, watch: bool = False) -> LabScreen:
    screen = LabScreen(folder, watch=watch)
    app.push_screen(screen)
    await pilot.pause()
    return screen


def _select(screen: LabScreen, task_id: str) -> None:
    screen.query_one("#lab-tasks").highlighted = TASKS.index(BY_ID[task_id])


@pytest.mark.slow
async def test_check_a_bug_then_fix_it_on_save(tmp_path):
    init(tmp_path)
    task = BY_ID["causal_mask"]
    bug = next(b for b in BUGS if b.task == "causal_mask")
    (tmp_path / task.file_name).write_text(buggy_source(solution(task), bug))
    app = TutorApp(lang="en", load_engine=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(app, pilot, tmp_path, watch=True)
        _select(screen, "causal_mask")
        await pilot.pause()
        assert "The causal mask" in _text(screen.query_one("#lab-statement"))
        await pilot.press("c")
        await _until(pilot, lambda: "causal_mask" in screen.results)
        shown = _text(screen.query_one("#lab-result"))
        assert "diagonal-visible" in shown and "mask-blocks-diagonal" in shown and "n = 2" in shown
        assert "✗ 10 causal_mask" in str(screen.query_one("#lab-tasks").get_option_at_index(9).prompt)
        # the learner fixes the file and saves: the watcher checks it again
        (tmp_path / task.file_name).write_text(solution(task))
        await _until(pilot, lambda: screen.results["causal_mask"].passed, seconds=40)
        assert "1 of 13 done" in _text(screen.query_one("#lab-top"))
        assert LabRecord().done() == {"causal_mask"}


async def test_a_runaway_file_is_stopped_and_the_app_goes_on(tmp_path, monkeypatch):
    import exercises.lab.sandbox as sandbox

    monkeypatch.setattr(sandbox, "CALL_LIMIT_S", 1.0)
    init(tmp_path)
    task = BY_ID["causal_mask"]
    (tmp_path / task.file_name).write_text("def causal_mask(n):\n    while True:\n        pass\n")
    app = TutorApp(lang="zh", load_engine=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(app, pilot, tmp_path)
        _select(screen, "causal_mask")
        await pilot.press("c")
        await pilot.press("down")  # the app answers keys while the check runs
        await pilot.press("up")
        await _until(pilot, lambda: "causal_mask" in screen.results, seconds=20)
        assert screen.results["causal_mask"].status == "stopped"
        assert "死循环" in _text(screen.query_one("#lab-result"))


async def test_hints_and_the_solution_after_a_first_try(tmp_path):
    init(tmp_path)
    task = BY_ID["prefix_lm_mask"]
    app = TutorApp(lang="en", load_engine=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(app, pilot, tmp_path)
        _select(screen, "prefix_lm_mask")
        await pilot.pause()
        await pilot.press("h")
        assert "Hint 1 of 2" in _text(screen.query_one("#lab-extra"))
        await pilot.press("h", "h")
        assert "No more hints" in _text(screen.query_one("#lab-extra"))
        await pilot.press("s")
        assert "after your first attempt" in _text(screen.query_one("#lab-extra"))
        (tmp_path / task.file_name).write_text(solution(task).replace("k < prefix_len", "k <= prefix_len"))
        bug = next(b for b in BUGS if b.name == "off-by-one prefix")
        (tmp_path / task.file_name).write_text(buggy_source(solution(task), bug))
        await pilot.press("c")
        await _until(pilot, lambda: "prefix_lm_mask" in screen.results)
        assert "prefix-boundary" in _text(screen.query_one("#lab-result"))
        await pilot.press("s")
        assert "key < prefix_len" in _text(screen.query_one("#lab-extra"))
        # the language switch relabels everything
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert "规则 prefix-boundary" in _text(screen.query_one("#lab-result"))
        assert "前缀 LM 掩码" in _text(screen.query_one("#lab-statement"))


async def test_init_from_the_screen_and_the_lesson_link(tmp_path, monkeypatch):
    folder = tmp_path / "lab"
    app = TutorApp(lang="en", load_engine=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.progress.set("lab_dir", str(folder))
        app.open_lesson("mlm")
        await pilot.pause()
        await pilot.press("f7")
        link = app.screen.query_one(LabLink)
        assert "tasks: 4" in str(link.label) and "F8" in str(link.label)
        link.press()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LabScreen) and screen.current is BY_ID["bert_mask"]
        assert "Press i" in _text(screen.query_one("#lab-result"))
        await pilot.press("i")
        await pilot.pause()
        assert len(list(folder.glob("*.py"))) == len(TASKS)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, LabScreen)
        assert app.sub_title != "Code lab"
        await pilot.press("f8")  # the key works from the lesson too, on that lesson's first task
        await pilot.pause()
        assert isinstance(app.screen, LabScreen) and app.screen.current is BY_ID["bert_mask"]


# Text a learner's code can put on the screen: error messages, printed output, values.
# Markup-looking text among it ([bold], [enforce fail at ...], [/], :smile:, [link=...]).
LEARNER_TEXT = (
    st.text(
        alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs")).filter(
            lambda c: c not in "\u3000"
        ),
        min_size=1,
        max_size=30,
    )
    .map(str.strip)
    .filter(bool)
)
MARKUP_LIKE = st.sampled_from(
    [
        "[bold]x[/bold]",
        "[enforce fail at alloc.cpp:72]",
        "[/]",
        ":smile:",
        "[link=http://x]y[/link]",
        "[red",
        "\\[x]",
    ]
)


async def test_the_learners_text_is_plain_text_in_the_lab_screen(tmp_path):
    """Whatever the learner's code raised or printed, and whatever values the table
    shows, the lab screen shows verbatim: never read as markup (issue 20: an error's
    `[enforce fail at ...]` vanished and `[bold]` rendered)."""
    from exercises.lab.checks.core import SHAPE, Failure, LabResult
    from exercises.text import L

    init(tmp_path)
    app = TutorApp(lang="en", load_engine=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(app, pilot, tmp_path)
        widget = screen.query_one("#lab-result")

        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(texts=st.lists(st.one_of(LEARNER_TEXT, MARKUP_LIKE), min_size=6, max_size=6))
        def shows_verbatim(texts):
            message, where, yours, required, printed, note = texts
            failure = Failure(SHAPE, where, yours, L(required, required), None, L(note, note))
            screen.results[screen.current.id] = LabResult(
                screen.current.id, "fail", failure=failure, message=L(message, message), printed=printed
            )
            screen._show()
            shown = _text(widget, width=1000)
            for text in texts:
                assert text in shown, (text, shown)

        shows_verbatim()


@pytest.mark.slow
async def test_done_counts_the_files_that_pass_now(tmp_path):
    """The header's count and the marks follow the files as they are: a failure after a
    pass takes the task back out; another folder's files count for nothing here."""
    other = tmp_path / "other"
    init(other)
    task = BY_ID["causal_mask"]
    (other / task.file_name).write_text(solution(task))
    from exercises.lab.checks import run_check

    assert LabRecord().record(run_check(task, other / task.file_name))
    work = tmp_path / "work"
    init(work)
    app = TutorApp(lang="en", load_engine=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(app, pilot, work)
        assert "0 of 13 done" in _text(screen.query_one("#lab-top"))  # the starter is not the passing file
        _select(screen, "causal_mask")
        (work / task.file_name).write_text(solution(task))
        await pilot.press("c")
        await _until(pilot, lambda: "causal_mask" in screen.results and not screen.checking)
        assert "1 of 13 done" in _text(screen.query_one("#lab-top"))
        bug = next(b for b in BUGS if b.task == "causal_mask")
        (work / task.file_name).write_text(buggy_source(solution(task), bug))
        await pilot.press("c")
        await _until(pilot, lambda: not screen.checking and not screen.results["causal_mask"].passed)
        assert "0 of 13 done" in _text(screen.query_one("#lab-top"))
        assert "✗ 10 causal_mask" in str(screen.query_one("#lab-tasks").get_option_at_index(9).prompt)


async def test_a_save_right_after_i_wrote_the_files_is_checked(tmp_path):
    """The watcher starts on the folder `i` just created: the first save is checked
    without reopening the screen."""
    folder = tmp_path / "new-lab"
    app = TutorApp(lang="en", load_engine=False, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(app, pilot, folder, watch=True)
        assert not folder.exists()
        await pilot.press("i")
        await pilot.pause()
        task = BY_ID["causal_mask"]
        for _ in range(40):  # the watcher starts in a thread: save until it has seen one
            (folder / task.file_name).write_text(solution(task) + "\n")
            await asyncio.sleep(0.25)
            await pilot.pause()
            if "causal_mask" in screen.results or "causal_mask" in screen.checking:
                break
        await _until(pilot, lambda: "causal_mask" in screen.results, seconds=40)
        assert screen.results["causal_mask"].passed
