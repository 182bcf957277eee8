"""Opening a lesson: from Enter on the home screen to the lesson drawn and idle.

Each lesson is opened in a fresh screen (the first visit of a session, the slow
one), with the engine already loaded, in an 80x24 Pilot app; the time runs until
Textual has nothing left to do (two idle pauses). ``--root`` twice compares two
source trees (e.g. a copy of main and this tree), taking turns run by run so that
the machine's load hits both alike, and prints the ratio. ``--load N`` adds N busy
processes, as on a shared machine.

    .venv/bin/python benchmarks/lesson_open.py [--runs 5] [--lang zh] [--load 2] \\
        [--root /tmp/main-copy --root .]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
LESSONS = (
    "clm",
    "packing",
    "mlm",
    "subwords",
    "visibility",
    "span",
    "architecture",
    "prefix-lm",
    "train-lab",
    "misconceptions",
)

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

async def main(lang):
    app = TutorApp(lang=lang, still=True)
    out = {}
    async with app.run_test(size=(80, 24)) as pilot:
        while not app.engine_loaded:
            await pilot.pause(0.05)
        await pilot.pause()
        for lesson in json.loads(sys.argv[2]):
            first_paint.clear()
            started = time.perf_counter()
            app.open_lesson(lesson)
            await pilot.pause()
            await pilot.pause()
            idle = time.perf_counter() - started
            painted = min((t for name, t in first_paint.items() if "Lesson" in name), default=started + idle)
            out[lesson] = [painted - started, idle]
            app.pop_screen()
            await pilot.pause()
    print(json.dumps(out))

asyncio.run(main(sys.argv[1]))
"""


def one_run(root: pathlib.Path, lang: str) -> dict[str, float]:
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


def _busy() -> None:
    while True:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lang", default="zh", choices=("zh", "en"))
    parser.add_argument("--load", type=int, default=0)
    parser.add_argument("--root", action="append", type=pathlib.Path)
    args = parser.parse_args()
    roots = args.root or [ROOT]
    workers = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.load)]
    for worker in workers:
        worker.start()
    try:
        results: dict[pathlib.Path, list[dict[str, float]]] = {root: [] for root in roots}
        for _ in range(args.runs):
            for root in roots:
                results[root].append(one_run(root, args.lang))
    finally:
        for worker in workers:
            worker.terminate()
    medians: dict[pathlib.Path, tuple[float, float]] = {}
    for root, runs in results.items():
        paint = {lesson: statistics.median(run[lesson][0] for run in runs) for lesson in LESSONS}
        idle = {lesson: statistics.median(run[lesson][1] for run in runs) for lesson in LESSONS}
        medians[root] = (statistics.median(paint.values()), statistics.median(idle.values()))
        print(
            f"{root}: median per lesson {medians[root][0] * 1000:.0f} ms to the first frame, "
            f"{medians[root][1] * 1000:.0f} ms to idle"
        )
        print(
            "   first frame / idle, ms: "
            + "  ".join(f"{k} {paint[k] * 1000:.0f}/{idle[k] * 1000:.0f}" for k in LESSONS)
        )
    if len(roots) == 2:
        first, second = roots
        print(
            f"ratio {second} / {first}: first frame {medians[second][0] / medians[first][0]:.2f}, "
            f"idle {medians[second][1] / medians[first][1]:.2f}"
        )


if __name__ == "__main__":
    main()
