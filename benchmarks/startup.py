"""Launch -> first frame: objectives-tutor against a minimal Textual app, in the
same run.

Each app is started as a fresh headless process that writes a marker file
right after its first frame; the clock stops when the file appears and the
process is then ended. The two apps take turns, so machine load hits both
alike; the figure is the ratio of medians. Target: objectives-tutor <= 1.2x
the minimal app, which it meets only because torch is imported in a worker
after the first frame.

    .venv/bin/python benchmarks/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

MINIMAL_APP = """
import os
from textual.app import App
from textual.widgets import Footer, Header, Static

class Minimal(App):
    def compose(self):
        yield Header()
        yield Static("hello")
        yield Footer()

    def on_mount(self):
        self.call_after_refresh(self.mark)

    def mark(self):
        with open(os.environ["OBJECTIVES_TUTOR_FIRST_FRAME_FILE"], "w") as handle:
            handle.write("first frame")

Minimal().run(headless=True)
"""

TUTOR_APP = """
from tui.app import TutorApp

TutorApp(lang="en").run(headless=True)
"""

ROOT = pathlib.Path(__file__).resolve().parents[1]
TIMEOUT_S = 60


def first_frame_seconds(code: str) -> float:
    """Seconds from process start until the app has drawn its first frame."""
    with tempfile.TemporaryDirectory() as folder:
        marker = pathlib.Path(folder) / "first-frame"
        env = {**os.environ, "OBJECTIVES_TUTOR_FIRST_FRAME_FILE": str(marker)}
        start = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, "-c", code],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            while not marker.exists():
                if process.poll() is not None:
                    raise RuntimeError(f"the app exited with {process.returncode} before its first frame")
                if time.perf_counter() - start > TIMEOUT_S:
                    raise RuntimeError("no first frame within a minute")
                time.sleep(0.001)
            return time.perf_counter() - start
        finally:
            process.kill()
            process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="launches of each app (default 15)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    first_frame_seconds(MINIMAL_APP)  # warm the file cache for both
    first_frame_seconds(TUTOR_APP)
    minimal, tutor = [], []
    for _ in range(args.runs):
        minimal.append(first_frame_seconds(MINIMAL_APP))
        tutor.append(first_frame_seconds(TUTOR_APP))
    minimal_ms, tutor_ms = statistics.median(minimal) * 1000, statistics.median(tutor) * 1000
    ratio = tutor_ms / minimal_ms
    print(f"launch -> first frame, median of {args.runs} alternating runs")
    print(f"minimal Textual app: {minimal_ms:.0f} ms")
    print(f"objectives-tutor:    {tutor_ms:.0f} ms ({ratio:.2f}x)")
    print(f"target <= 1.2x: {'PASS' if ratio <= 1.2 else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
