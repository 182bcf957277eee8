"""Text cut to fit ends with "…": the code lab's top line (title · folder · progress ·
save = check) at 60x18 in Chinese was cut mid-word, "… · 已完成 1 / 13 · 保"."""

from __future__ import annotations

from textual.widgets import Static

from tui.app import TutorApp
from tui.screens.lab import LabScreen


def _line(widget: Static) -> str:
    return "".join(segment.text for segment in widget.render_line(0)).rstrip()


async def _top_line(folder, size: tuple[int, int]) -> tuple[str, str]:
    app = TutorApp(lang="zh", load_engine=False, still=True)
    async with app.run_test(size=size) as pilot:
        screen = LabScreen(folder, watch=True)
        app.push_screen(screen)
        await pilot.pause()
        await pilot.pause()
        top = screen.query_one("#lab-top", Static)
        return _line(top), str(top.render())


async def test_the_lab_top_line_ends_with_an_ellipsis_when_cut(tmp_path):
    folder = tmp_path / "walk-home-zh" / "code-lab"
    shown, whole = await _top_line(folder, (60, 18))
    assert whole.endswith("保存即检查")  # the whole line, as built
    assert shown.endswith("…"), shown
    assert shown.startswith("代码实验 · ")


async def test_the_lab_top_line_is_whole_when_it_fits(tmp_path):
    shown, _ = await _top_line(tmp_path / "lab", (120, 30))
    assert shown.endswith("保存即检查") and "…" not in shown, shown
