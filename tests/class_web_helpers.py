"""A small class for the class-server tests: two students and a teacher with known
PINs, and a quiz of two one-box questions, opened with its questions rendered."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINS = {"s1": "pin-one-1", "s2": "pin-two-2", "t1": "teach-3"}
QUIZ_EXERCISES = ("perplexity", "expected-counts")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_class(
    folder: Path | str, port: int, *more: str, env: dict[str, str] | None = None, stderr=subprocess.STDOUT
) -> subprocess.Popen:
    """``class serve`` for ``folder`` on ``port`` in a process of its own (the tests' and
    benchmarks/class_server.py's), its output read as text; in English unless ``env`` says."""
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "tui.cli", "class", "serve"),
            "--class",
            str(folder),
            "--port",
            str(port),
            *more,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env={**os.environ, "OBJECTIVES_TUTOR_LANG": "en"} if env is None else env,
    )


def make_class(folder: Path, now: float = 1_000.0, db_url: str | None = None):
    """The class store (SQLite in ``folder``, or PostgreSQL at ``db_url``), created with
    cheap PIN hashing (tests sign in many times)."""
    from exercises.classdb import Student, open_class_store

    store = open_class_store(folder, db_url, create=True, pin_cost=2**4)
    store.add_student(Student("s1", "李明", "student"), PINS["s1"], now)
    store.add_student(Student("s2", "Ada", "student"), PINS["s2"], now)
    store.add_student(Student("t1", "王老师", "teacher"), PINS["t1"], now)
    return store


def quiz_text(minutes: int | None = 20) -> str:
    from exercises.classroom.quiz import dump_toml, new_quiz

    return dump_toml(new_quiz("Quiz 1", QUIZ_EXERCISES, time_limit_minutes=minutes))


def open_quiz(store, now: float, minutes: int | None = 20):
    """Open the quiz with every student's questions rendered (runs the engine)."""
    from exercises.classdb.render import render_questions
    from exercises.classroom.quiz import loads

    text = quiz_text(minutes)
    students = [s.id for s in store.students() if s.role == "student"]
    return store.open_quiz(text, now, "Quiz 1", questions=render_questions(loads(text), students))


def screen_lines(app) -> list[str]:
    """The terminal's lines as a person sees them (what is drawn, not what widgets hold)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


class Clock:
    """The server's clock, moved by the test."""

    def __init__(self, now: float = 50_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def signed_in(store, student: str, now: float):
    """``student``'s live session, signed in with their PIN at ``now``."""
    assert store.sign_in(student, PINS[student], now, "test").ok
    return store.session(store.start_session(student, now), now)
