"""Opening a lesson, as the learner feels it: from the key press (Enter on the lesson
in the home screen's list) to the new lesson painted, and to Textual having nothing
left to do.

Each lesson is opened twice in an 80x24 Pilot app with the engine loaded: first in a
fresh screen (the first visit of a session, the slow one), then again after Esc
(the screen kept for the session). The key goes in as the terminal's keys do (through
the driver); the clock stops at the first paint of the lesson's screen, and at the
second of two idle pauses. ``--root`` twice compares two source trees (e.g. a copy of
main and this tree), taking turns run by run so that the machine's load hits both
alike, and prints the ratio. ``--busy`` keeps every core busy meanwhile (one
``yes > /dev/null`` per core, killed after), as on a shared machine. Target: a lesson
switch under 300 ms.

    .venv/bin/python benchmarks/lesson_open.py [--runs 5] [--lang zh] [--busy] \\
        [--root /tmp/main-copy --root .]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

from startup import busy, spread  # benchmarks/startup.py, beside this file

from exercises.curriculum import OBJECTIVES

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = tuple(objective.id for objective in OBJECTIVES)  # the course's lessons, in order

CHILD = r"""
import asyncio, json, os, sys, time
from textual.screen import Screen
from tui.app import TutorApp

first_paint = {}
original = Screen._compositor_refresh

def paint(screen):  # the first time a lesson's screen reaches the terminal
    original(screen)
    first_paint.setdefault(screen.id or type(screen).__name__, time.perf_counter())

Screen._compositor_refresh = paint

async def open_by_key(app, pilot, lesson):
    # Enter on the lesson in the home screen's list: [s to its first paint, s to idle]
    options = app.screen.query_one("OptionList")
    options.highlighted = options.get_option_index(lesson)
    await pilot.pause()
    first_paint.clear()
    started = time.perf_counter()
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()
    idle = time.perf_counter() - started
    painted = min((t for name, t in first_paint.items() if "Lesson" in name or "lesson" in name), default=started + idle)
    assert type(app.screen).__name__ == "LessonScreen", app.screen
    return [painted - started, idle]

async def main(lang):
    app = TutorApp(lang=lang, still=True)
    out = {}
    async with app.run_test(size=(80, 24)) as pilot:
        while not app.engine_loaded:
            await pilot.pause(0.05)
        await pilot.pause(1.0)  # the lesson modules load after "engine ready"
        for lesson in json.loads(sys.argv[2]):
            fresh = await open_by_key(app, pilot, lesson)
            await pilot.press("escape")
            await pilot.pause()
            again = await open_by_key(app, pilot, lesson)
            await pilot.press("escape")
            await pilot.pause()
            out[lesson] = fresh + again
    print(json.dumps(out))

asyncio.run(main(sys.argv[1]))
"""


def one_run(root: pathlib.Path, lang: str) -> dict[str, list[float]]:
    """Seconds per lesson, in a fresh process importing the app from ``root``."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "OBJECTIVES_TUTOR_HOME": home, "PYTHONPATH": str(root)}
        done = subprocess.run(
            [sys.executable, "-c", CHILD, lang, json.dumps(LESSONS)],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lang", default="zh", choices=("zh", "en"))
    parser.add_argument("--busy", action="store_true", help="keep every core busy meanwhile")
    parser.add_argument("--root", action="append", type=pathlib.Path)
    args = parser.parse_args()
    roots = args.root or [ROOT]
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, busy: {args.busy}", flush=True)
    results: dict[pathlib.Path, list[dict[str, list[float]]]] = {root: [] for root in roots}
    with busy(args.busy):
        for _ in range(args.runs):
            for root in roots:
                results[root].append(one_run(root, args.lang))
    medians: dict[pathlib.Path, list[float]] = {}
    for root, runs in results.items():
        print(f"{root}, {args.runs} runs, ms (median over the lessons; spread: min–max of the runs):")
        medians[root] = []
        for column, what in enumerate(
            ("key -> painted", "key -> idle", "again: key -> painted", "again: idle")
        ):
            per_run = [statistics.median(run[lesson][column] for lesson in LESSONS) for run in runs]
            worst = max(run[lesson][column] for run in runs for lesson in LESSONS)
            medians[root].append(statistics.median(per_run))
            print(f"  {what:22} {spread(per_run, 1000)}, slowest single lesson {worst * 1000:.0f}")
        per_lesson = {lesson: statistics.median(run[lesson][0] for run in runs) for lesson in LESSONS}
        print(
            "  key -> painted per lesson: " + "  ".join(f"{k} {v * 1000:.0f}" for k, v in per_lesson.items())
        )
    if len(roots) == 2:
        first, second = roots
        print(
            f"ratio {second} / {first}: key -> painted {medians[second][0] / medians[first][0]:.2f}, "
            f"idle {medians[second][1] / medians[first][1]:.2f}"
        )


if __name__ == "__main__":
    main()
