"""Ctrl+Q -> process gone: how long the learner looks at a frozen or blank screen.

The app runs in a real pseudo-terminal (80x24); the clock starts when Ctrl+Q is
written to it and stops when the process has exited. Three moments, counted from
the app's first frame: on the home screen with the engine loaded (idle), while
the engine is still importing torch (0.3 s after the first frame), and with a
lesson's figure open. ``--load N`` adds N busy processes, as on a shared machine.
``--exe`` twice compares two builds, taking turns so load hits both alike.
Target: under 300 ms in every case.

    .venv/bin/python benchmarks/quit.py [--runs 5] [--load 2] [--exe PATH [--exe OLD]]
"""

from __future__ import annotations

import argparse
import fcntl
import multiprocessing
import os
import pathlib
import pty
import select
import statistics
import struct
import sys
import tempfile
import termios
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
CTRL_Q = b"\x11"


def _drain(fd: int, seconds: float) -> None:
    """Read what the app draws for ``seconds`` (a pty that is not read blocks its writer)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        ready, _, _ = select.select([fd], [], [], 0.02)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                return


def quit_seconds(exe: str, wait: float, keys: bytes = b"") -> float:
    """Start the app, wait ``wait`` s after its first frame, type ``keys``, then
    time Ctrl+Q until exit."""
    with tempfile.TemporaryDirectory() as home:
        marker = pathlib.Path(home) / "first-frame"
        pid, fd = pty.fork()
        if pid == 0:  # the child: the app, with a private progress folder
            os.environ["OBJECTIVES_TUTOR_HOME"] = home
            os.environ["OBJECTIVES_TUTOR_FIRST_FRAME_FILE"] = str(marker)
            os.execv(exe, [exe, "--lang", "en"])
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        launched = time.perf_counter()
        while not marker.exists():
            _drain(fd, 0.005)
            if time.perf_counter() - launched > 60:
                os.kill(pid, 9)
                raise RuntimeError("no first frame within a minute")
        _drain(fd, wait)
        if keys:
            os.write(fd, keys)
            _drain(fd, 4.0)
        start = time.perf_counter()
        os.write(fd, CTRL_Q)
        while True:
            _drain(fd, 0.002)
            done, _status = os.waitpid(pid, os.WNOHANG)
            if done:
                elapsed = time.perf_counter() - start
                os.close(fd)
                return elapsed
            if time.perf_counter() - start > 30:
                os.kill(pid, 9)
                raise RuntimeError("the app did not quit within 30 s")


def _busy() -> None:
    while True:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each case (default 5)")
    parser.add_argument("--load", type=int, default=0, help="busy processes beside the app (default 0)")
    parser.add_argument("--exe", action="append", help="the app's executable (default: this .venv's)")
    args = parser.parse_args(argv)
    exes = args.exe or [str(ROOT / ".venv" / "bin" / "objectives-tutor")]
    if args.runs < 1 or args.load < 0:
        parser.error("--runs must be at least 1 and --load at least 0")
    hogs = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.load)]
    for hog in hogs:
        hog.start()
    cases = {
        "home, engine loaded": (10.0, b""),
        "while the engine loads": (0.3, b""),
        "lesson figure open": (10.0, b"\x1b[B\r\x1b[17~"),  # Down, Enter (causal LM), F6
    }
    try:
        print(f"Ctrl+Q -> exit, median of {args.runs} runs, {args.load} busy processes beside")
        for name, (wait, keys) in cases.items():
            times: dict[str, list[float]] = {exe: [] for exe in exes}
            for _ in range(args.runs):
                for exe in exes:
                    times[exe].append(quit_seconds(exe, wait, keys))
            for exe in exes:
                median, worst = statistics.median(times[exe]) * 1000, max(times[exe]) * 1000
                print(f"{name:24} {median:6.0f} ms  (max {worst:.0f})  {exe}")
    finally:
        for hog in hogs:
            hog.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
