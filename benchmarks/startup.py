"""Launch -> first frame, against a bare Textual app, and launch -> "engine ready"
against the fastest way a learner can reach a figure.

First frame: each launch is a fresh headless process that notes the moment of its
first frame (a callback after the first refresh, the same in both apps) and exits.
In each run the bare app (a header, a line of text, a footer), Textual alone drawing
the home screen's widgets (the floor for that screen), objectives-tutor in English and
objectives-tutor in Chinese take turns, the order rotating from run to run, so that
the machine's load hits all alike; every run gives a ratio tutor / bare, and the
report is the median ratio and its spread over the runs.
Target: <= 1.1x the bare app. The learner is back (a home made by a warm-up launch);
``--fresh-home``: every launch is a learner's very first.

``--engine``: the tutor runs on after its first frame, as a learner would use it.
A thread in the app's process sends keys the way the terminal does, as fast as a
practised learner presses them (``--reaction`` after the first frame, then
``--key-gap`` after the lesson appears): Enter on the first lesson, F6 for its figure. Noted:
when the engine is ready (torch and the engine imported in the background), when
the figure tab is first painted, and when the figure is painted with the engine's
output in it.

``--root`` twice compares two source trees (e.g. a copy of main and this tree):
both are launched in every run, each against the same bare app.

``--busy`` keeps every core busy (one ``yes > /dev/null`` per core, started before
the first run and killed after the last), as on a shared machine under load.

    .venv/bin/python benchmarks/startup.py [--runs 9] [--busy] [--root /tmp/main-copy --root .]
    .venv/bin/python benchmarks/startup.py --engine [--runs 5] [--busy]
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
TIMEOUT_S = 300
TARGET = 1.1

STAMP = """
import json, os, time

def stamp(name):
    with open(os.environ["STARTUP_BENCH_STAMPS"], "a") as handle:
        handle.write(json.dumps([name, time.monotonic(), time.process_time()]) + "\\n")
"""

BARE_APP = (
    STAMP
    + """
from textual.app import App
from textual.widgets import Footer, Header, Static

class Bare(App):
    def compose(self):
        yield Header()
        yield Static("hello")
        yield Footer()

    def on_mount(self):
        self.call_after_refresh(self.first_frame)

    def first_frame(self):
        stamp("first-frame")
        self.exit()

Bare().run(headless=True)
"""
)

# The floor for the tutor's home: Textual alone drawing the same widgets (a header, the
# intro and course lines, a list of 14 styled lines as long as the home's, the engine
# line, a footer; the list focused), none of the tutor's code.
WIDGETS_APP = (
    STAMP
    + """
from rich.text import Text
from textual.app import App
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

def line(number):
    text = Text()
    text.append(f"{number}. ", style="bold")
    text.append("A lesson's title", style="bold")
    text.append("  [0/4 solved]", style="dim")
    text.append(" — what the lesson is about, cut to fit the list's wid…", style="dim")
    return Option(text, id=f"lesson-{number}")

class Widgets(App):
    def compose(self):
        yield Header()
        yield Static("Pick an objective: each has a lesson, a figure computed by the engine " * 2)
        yield Static("Course: 0/11 lessons done · 0/28 exercises solved · 0 mastered")
        yield OptionList(*[line(n) for n in range(1, 12)], "Review: nothing due", "History", "Settings")
        yield Static("loading the torch engine…")
        yield Footer()

    def on_mount(self):
        self.query_one(OptionList).focus()
        self.call_after_refresh(self.first_frame)

    def first_frame(self):
        stamp("first-frame")
        self.exit()

Widgets().run(headless=True)
"""
)

TUTOR_APP = (
    STAMP
    + """
import sys, threading
from textual import events
from textual.screen import Screen
from tui.app import TutorApp

ENGINE = sys.argv[2] == "engine"
REACTION, KEY_GAP = float(sys.argv[3]), float(sys.argv[4])
after_first_frame = TutorApp._after_first_frame
engine_arrived = TutorApp._engine_arrived
compositor_refresh = Screen._compositor_refresh
noted = set()

def note(name):
    if name not in noted:
        noted.add(name)
        stamp(name)

def first_frame(self):
    note("first-frame")
    if not ENGINE:
        self.exit()
        return
    after_first_frame(self)
    threading.Thread(target=learner, args=(self,), daemon=True).start()

lesson_shown = threading.Event()

def learner(app):
    # Keys as the terminal delivers them: through the driver, from another thread. F6
    # once the lesson is on screen (a key typed before goes to the home screen).
    time.sleep(REACTION)
    note("key-enter")
    app._driver.process_message(events.Key("enter", "\\r"))
    lesson_shown.wait()
    time.sleep(KEY_GAP)
    note("key-f6")
    app._driver.process_message(events.Key("f6", None))

def arrived(self):
    engine_arrived(self)
    note("engine-ready")

def painted(screen):
    compositor_refresh(screen)
    tabs = next(iter(screen.query("#tabs")), None) if type(screen).__name__ == "LessonScreen" else None
    if tabs is not None and screen.app.screen is screen:
        note("lesson-painted")
        lesson_shown.set()
    if tabs is not None and tabs.active == "figure" and screen.app.screen is screen:
        note("figure-tab")
        if screen.app.engine_loaded:
            note("figure-drawn")
            screen.app.exit()

TutorApp._after_first_frame = first_frame
TutorApp._engine_arrived = arrived
Screen._compositor_refresh = painted
TutorApp(lang=sys.argv[1]).run(headless=True)
os._exit(0)  # as the app's run_app leaves: the engine's thread may still be loading modules
"""
)


def launch(
    code: str, *args: str, root: pathlib.Path = ROOT, home: pathlib.Path | None = None
) -> dict[str, tuple[float, float]]:
    """Each moment the process noted: (seconds since it was started, seconds of CPU it had
    used by then, all its threads); the app's code from ``root``; the learner's home
    ``home`` (None: a new one, as at a learner's very first launch)."""
    with tempfile.TemporaryDirectory() as folder:
        stamps = pathlib.Path(folder) / "stamps"
        env = {
            **{name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"},
            "STARTUP_BENCH_STAMPS": str(stamps),
            "OBJECTIVES_TUTOR_HOME": str(home or pathlib.Path(folder) / "home"),
            "PYTHONPATH": str(root),
        }
        start = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-c", code, *args],
            env=env,
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            _, errors = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise RuntimeError(f"{args or 'the bare app'}: not done within {TIMEOUT_S} s") from None
        lines = stamps.read_text().splitlines() if stamps.exists() else []
        if process.returncode != 0 or not lines:
            raise RuntimeError(f"the app failed ({process.returncode}): {errors.decode()[-2000:]}")
        return {name: (moment - start, cpu) for name, moment, cpu in map(json.loads, lines)}


def compile_tree(root: pathlib.Path) -> None:
    """Byte-compile the app's packages, as every launch after a learner's first finds
    them (pip compiles an installed package; an editable install writes __pycache__ on
    its first launch), and as Textual's are in site-packages. Left to each launch, with
    PYTHONDONTWRITEBYTECODE set (as on some machines), the app would pay for compiling
    its own source on every launch and the bare app would not: 11 ms of the 57 ms gap."""
    for package in ("tui", "exercises", "engine"):
        compileall.compile_dir(root / package, quiet=1)


@contextlib.contextmanager
def busy(on: bool):
    """Every core kept busy (``yes > /dev/null``) while the block runs, if ``on``."""
    hogs = []
    try:
        if on:
            for _ in range(os.cpu_count() or 1):
                hogs.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL))
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def spread(values: list[float], scale: float = 1, digits: int = 0) -> str:
    """ "median (min–max)" of ``values`` times ``scale``."""
    low, mid, high = (round(v * scale, digits) for v in (min(values), statistics.median(values), max(values)))
    fmt = f"{{:.{digits}f}}"
    return f"{fmt.format(mid)} ({fmt.format(low)}–{fmt.format(high)})"


def first_frames(runs: int, roots: list[pathlib.Path], fresh_home: bool) -> None:
    """Launch -> first frame of each app in turn. The tutor's learner comes back: the home
    (the progress file) was made by the warm-up launch, as by a learner's first evening,
    unless ``fresh_home`` (every launch a learner's very first: the file is created and
    its tables made, about 6 ms more)."""
    with tempfile.TemporaryDirectory() as homes:
        _first_frames(runs, roots, None if fresh_home else pathlib.Path(homes))


def _first_frames(runs: int, roots: list[pathlib.Path], homes: pathlib.Path | None) -> None:
    apps = [("bare", BARE_APP, (), ROOT), ("widgets", WIDGETS_APP, (), ROOT)]
    for root in roots:
        apps += [
            (f"{lang} {root}" if len(roots) > 1 else lang, TUTOR_APP, (lang,), root) for lang in ("en", "zh")
        ]

    def home(name: str) -> pathlib.Path | None:  # one learner per app
        return None if homes is None else homes / str([app[0] for app in apps].index(name))

    for name, code, args, root in apps:  # warm the file cache, make the learner's home
        launch(code, *args, "first", "0", "0", root=root, home=home(name))
    wall: dict[str, list[float]] = {name: [] for name, _, _, _ in apps}
    cpu: dict[str, list[float]] = {name: [] for name, _, _, _ in apps}
    for run in range(runs):
        turn = apps[run % len(apps) :] + apps[: run % len(apps)]
        for name, code, args, root in turn:
            seconds, used = launch(code, *args, "first", "0", "0", root=root, home=home(name))["first-frame"]
            wall[name].append(seconds)
            cpu[name].append(used)
        bare = wall["bare"][-1]
        print(
            f"run {run + 1}: bare {bare * 1000:.0f} ms, "
            + ", ".join(
                f"{name} {wall[name][-1] * 1000:.0f} ms ({wall[name][-1] / bare:.2f}x)"
                for name in wall
                if name != "bare"
            ),
            flush=True,
        )
    print(f"\nlaunch -> first frame over {runs} runs, median (min–max); CPU: the process's CPU time by then")
    print(f"bare Textual app: {spread(wall['bare'], 1000)} ms, CPU {spread(cpu['bare'], 1000)} ms")

    def ratios(name: str, to: str, times: dict[str, list[float]] = wall) -> list[float]:
        return [mine / theirs for mine, theirs in zip(times[name], times[to], strict=True)]

    print(
        f"Textual with the home's widgets: {spread(wall['widgets'], 1000)} ms, "
        f"ratio {spread(ratios('widgets', 'bare'), 1, 2)}x (the floor for this screen)"
    )
    for name in wall:
        if name in ("bare", "widgets"):
            continue
        verdict = "PASS" if statistics.median(ratios(name, "bare")) <= TARGET else "MISS"
        print(
            f"objectives-tutor {name}: {spread(wall[name], 1000)} ms, ratio {spread(ratios(name, 'bare'), 1, 2)}x "
            f"(target <= {TARGET}x: {verdict}), {spread(ratios(name, 'widgets'), 1, 2)}x the widgets alone; "
            f"CPU {spread(cpu[name], 1000)} ms, {spread(ratios(name, 'bare', cpu), 1, 2)}x"
        )


def engine_ready(runs: int, reaction: float, key_gap: float) -> None:
    moments = (
        "first-frame",
        "key-enter",
        "lesson-painted",
        "key-f6",
        "figure-tab",
        "engine-ready",
        "figure-drawn",
    )
    rows: list[dict[str, tuple[float, float]]] = []
    for run in range(runs):
        lang = ("zh", "en")[run % 2]
        rows.append(launch(TUTOR_APP, lang, "engine", str(reaction), str(key_gap)))
        print(
            f"run {run + 1} ({lang}): "
            + ", ".join(f"{m} {rows[-1][m][0] * 1000:.0f}" for m in moments)
            + " ms",
            flush=True,
        )
    print(f"\nfrom launch, over {runs} runs, median (min–max), ms:")
    for moment in moments:
        print(f"  {moment:13} {spread([row[moment][0] for row in rows], 1000)}")
    waited = [row["figure-drawn"][0] - row["figure-tab"][0] for row in rows]
    print(f"the figure tab said 'loading' for {spread(waited, 1000)} ms before the engine's output")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=None, help="runs (default 9; 5 with --engine)")
    parser.add_argument("--busy", action="store_true", help="keep every core busy meanwhile")
    parser.add_argument("--engine", action="store_true", help="launch -> engine ready and a figure")
    parser.add_argument("--reaction", type=float, default=0.3, help="first key, s after the first frame")
    parser.add_argument("--key-gap", type=float, default=0.15, help="s between keys")
    parser.add_argument("--root", action="append", type=pathlib.Path, help="a source tree (twice: compare)")
    parser.add_argument("--fresh-home", action="store_true", help="every launch a learner's very first")
    args = parser.parse_args(argv)
    runs = args.runs if args.runs is not None else (5 if args.engine else 9)
    if runs < 1:
        parser.error("--runs must be at least 1")
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, busy: {args.busy}", flush=True)
    for root in args.root or [ROOT]:
        compile_tree(root.resolve())
    with busy(args.busy):
        if args.engine:
            engine_ready(runs, args.reaction, args.key_gap)
        else:
            first_frames(runs, [root.resolve() for root in args.root or [ROOT]], args.fresh_home)
    return 0


if __name__ == "__main__":
    sys.exit(main())
