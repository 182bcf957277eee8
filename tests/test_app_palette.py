"""Issue 11.10 and part of 11.9: Ctrl+P finds any lesson or exercise by its id or
its title in either language, before the engine has loaded and after, and speaks
the learner's language."""

import asyncio
import subprocess
import sys

import pytest

from exercises.curriculum import OBJECTIVES
from exercises.text import pick
from tui.app import TutorApp


async def palette_hits(pilot, query: str) -> list[str]:
    from textual.command import CommandList, CommandPalette

    app = pilot.app
    if not CommandPalette.is_open(app):
        await pilot.press("ctrl+p")
        await pilot.pause()
    palette = app.screen
    palette.query_one("CommandInput").value = query
    await pilot.pause()  # the input's change starts the palette's search
    searches = [worker for worker in app.workers if worker.group == CommandPalette._GATHER_COMMANDS_GROUP]
    await app.workers.wait_for_complete(searches)  # every provider has answered: all hits are in
    await pilot.pause()
    options = palette.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def _queries():
    """(query, the line that must be among the hits) for every lesson and exercise."""
    from exercises.catalogue import get

    for objective in OBJECTIVES:
        for lang in ("en", "zh"):
            yield objective.id, objective.title[lang]
        for exercise_id in objective.exercises:
            title = get(exercise_id).title
            yield exercise_id, title["en"]
            yield title["zh"], title["zh"]
            yield title["en"], title["en"]


# Each language and each engine state once: the entries depend on the language, and the
# engine's state must change nothing (the two factors are independent).
@pytest.mark.parametrize(("lang", "load_engine"), [("zh", False), ("en", True)])
@pytest.mark.slow
async def test_palette_finds_every_lesson_and_exercise_by_id_or_either_title(lang, load_engine):
    from exercises.catalogue import get

    app = TutorApp(lang=lang, still=True, load_engine=load_engine)
    async with app.run_test(size=(100, 30)) as pilot:
        if load_engine:
            while not app.engine_loaded:
                await asyncio.sleep(0.05)
        await pilot.pause()
        for objective in OBJECTIVES:
            wanted = pick(objective.title, lang)
            for query in (objective.id, objective.title["en"], objective.title["zh"]):
                hits = await palette_hits(pilot, query)
                assert any(wanted in hit for hit in hits), f"{query!r} -> {hits}"
            for exercise_id in objective.exercises:
                title = get(exercise_id).title
                wanted = pick(title, lang)
                for query in (exercise_id, title["en"], title["zh"]):
                    hits = await palette_hits(pilot, query)
                    assert any(wanted in hit for hit in hits), f"{query!r} -> {hits}"
        assert not app.engine_loaded or load_engine


def test_palette_titles_need_no_torch():
    code = (
        "import asyncio, sys\n"
        "from tui.app import TutorApp\n"
        "from tests.test_app_palette import palette_hits\n"
        "async def main():\n"
        "    app = TutorApp(lang='zh', load_engine=False, still=True)\n"
        "    async with app.run_test(size=(100, 30)) as pilot:\n"
        "        hits = await palette_hits(pilot, 'mask-matrix')\n"
        "        print(hits)\n"
        "asyncio.run(main())\n"
        "print('torch' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "False"
    first_hit_title = lines[-2].split("'")[1].split("\\n")[0]
    assert "掩码" in first_hit_title and "mask-matrix" not in first_hit_title  # the title, not the id


async def test_palette_speaks_chinese():
    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert "课程" in app.screen.query_one("CommandInput").placeholder
        hits = await palette_hits(pilot, "t")  # Textual's own commands are English: none may show
        assert not any(word in " ".join(hits) for word in ("Theme", "Quit", "Keys", "Screenshot", "Maximize"))


async def test_an_open_exercise_picker_says_close_in_chinese():
    from textual.widgets import Footer, Select

    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        while not app.engine_loaded:
            await asyncio.sleep(0.05)
        app.open_lesson("mlm")
        await pilot.pause()
        await pilot.press("f7")
        await pilot.pause()
        select = app.screen.query_one("#exercise-select", Select)
        select.focus()
        await pilot.pause()
        await pilot.press("enter")  # opens the list
        await pilot.pause()
        await pilot.pause()
        assert select.expanded
        footer = app.screen.query_one(Footer)
        descriptions = [getattr(key, "description", "") for key in footer.children]
        assert "关闭" in descriptions and "Dismiss menu" not in descriptions, descriptions
