"""The code lab screen through Textual's Pilot: checking, watching a save,
hints, the solution after a first try, a runaway file, both languages."""

from __future__ import annotations

import asyncio
from pathlib import Path

from exercises.lab.record import LabRecord
from exercises.lab.tasks import BY_ID, TASKS, solution
from exercises.lab.workspace import init
from tests.lab_bugs import BUGS, buggy_source
from tui.app import TutorApp
from tui.screens.lab import LabLink, LabScreen


def _text(widget) -> str:
    import io

    from rich.console import Console

    content = widget.content
    if isinstance(content, str):
        return content
    console = Console(width=120, record=True, file=io.StringIO())
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
        assert "diagonal-visible" in shown and "mask-blocks-diagonal" in shown and "n = 1" in shown
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
