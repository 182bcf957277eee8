"""What the class store hands out: plain records and the two ways a student's
session stops (the session ended, the exam closed). No database code here, so
the web half and the screens can import these names for nothing."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from exercises.text import Bilingual, L

ROLES = ("student", "teacher")
# Wrong PINs slow the guesser down, never the id, and never lock anyone out (a lock-out is a
# weapon: anyone who types a classmate's id five times would keep them out). The count is per
# (id, address): the owner at another address is never slowed; an unknown id slows only itself.
# The PINs have ~35 bits (seven characters of 32, and a check character); the ceiling on
# guessing is the one PIN thread per host (~30 ms of scrypt a check), see exercises/classdb/signin.py.
RATE_LIMIT_FAILURES = 5  # failed sign-ins for one id from one address within RATE_LIMIT_WINDOW, then ...
RATE_LIMIT_WINDOW = 300.0  # ... (seconds; that pair's success or the teacher's unlock starts afresh) ...
SLOW_DOWN_MAX = 30.0  # ... each next try from there waits 1, 2, 4 ... at most this long (s), then is checked
IDLE_SECONDS = 10 * 60.0  # a session not heard from this long (its tab closed) has expired ...
SESSION_SECONDS = 12 * 3600.0  # ... and every session after this long, whatever it did
GRACE_SECONDS = 30.0  # after the deadline, saves in flight are still taken (network, a slow tab)
MAX_WHERE = 200  # characters of a heartbeat's "where" that are kept
MAX_ANSWER = 20_000  # characters of one saved answer (as a submission file allows)
MAX_KEY = 100

SIGN_IN_REASONS = ("ok", "unknown", "bad-pin", "too-soon")
END_REASONS = ("signed-in-elsewhere", "signed-out", "unknown", "removed", "expired", "ended-by-teacher")


class ClassStoreError(Exception):
    """The class database cannot be used; ``text`` says why in both languages, on one line."""

    def __init__(self, text: Bilingual) -> None:
        super().__init__(text["en"])
        self.text = text


class SessionEnded(Exception):
    """This session is over: ``reason`` is one of END_REASONS ("signed-in-elsewhere"
    when the same student signed in again somewhere else)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ExamClosed(Exception):
    """A save or submit the server refuses: ``reason`` is "submitted", "time-up",
    "quiz-closed", "no-quiz", "not-started", "bad-key" or "too-long"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


EXAM_CLOSED_TEXT = {
    "submitted": L("this exam is already submitted", "这份考试已经提交"),
    "time-up": L("the time is up: the answers saved until then count", "时间到：之前保存的答案有效"),
    "quiz-closed": L("the teacher closed the quiz", "老师已关闭测验"),
    "no-quiz": L("no quiz is open", "当前没有开放的测验"),
    "not-started": L("the exam has not been started", "考试尚未开始"),
    "bad-key": L("that answer box does not exist", "没有这个答题框"),
    "too-long": L(f"an answer is at most {MAX_ANSWER:,} characters", f"一个答案最多 {MAX_ANSWER:,} 个字符"),
}


@dataclass(frozen=True)
class Student:
    id: str
    name: str
    role: str = "student"  # or "teacher"


@dataclass(frozen=True)
class SignIn:
    ok: bool
    student: Student | None
    reason: str  # one of SIGN_IN_REASONS
    wait: float = 0.0  # "too-soon": seconds until this id (or address) may try again


@dataclass(frozen=True)
class SignInTrouble:
    """One id (as matched, or as typed when no student has it) that failed to sign in lately."""

    who: str
    student: str | None  # the roster id, None when no student has it
    failures: int  # counted since the last success or unlock, within RATE_LIMIT_WINDOW
    last_at: float
    last_source: str
    wait: float  # how long a try for it waits now


@dataclass(frozen=True)
class OpenQuiz:
    """A quiz as the teacher opened it on the server (``quiz_id`` is the database's number)."""

    quiz_id: int
    name: str
    text: str  # the TOML, as read: ``exercises.classroom.quiz.loads(text)`` gives the Quiz
    opened_at: float
    closed_at: float | None = None
    released_at: float | None = None
    time_limit_seconds: float | None = None
    closes_at: float | None = None  # the quiz file's own closing time, if it has one
    results: str = "after-submit"

    @property
    def is_open(self) -> bool:
        return self.closed_at is None

    def quiz(self):
        """The Quiz (parsing TOML: no torch)."""
        from exercises.classroom.quiz import loads

        return loads(self.text)


@dataclass(frozen=True)
class ExamQuestion:
    """One question as rendered when the quiz was opened: everything a screen needs
    to show it (the variant's data and prompt), so an exam process needs no engine."""

    index: int
    exercise: str
    seed: int
    variant: dict[str, Any]  # Variant fields: exercise, seed, data, prompt, question
    fingerprint: str

    def to_variant(self):
        from exercises.grading.model import Variant

        return Variant(**self.variant)


def answer_key(index: int, part: str) -> str:
    """The key ``save_answer`` takes: question number and part name, e.g. "0:labels"."""
    return f"{int(index)}:{part}"


def split_key(key: str) -> tuple[int, str] | None:
    number, sep, part = key.partition(":")
    if not sep or not part or not number.isascii() or not number.isdigit() or len(number) > 3:
        return None
    return int(number), part


@dataclass(frozen=True)
class Exam:
    """One student's exam in one quiz, as the server knows it."""

    quiz_id: int
    student: str
    started_at: float | None
    submitted_at: float | None
    extension: float
    deadline: float | None  # None: no time limit (until the teacher closes the quiz)
    quiz_closed_at: float | None
    results_released: bool
    answers: dict[str, str] = field(default_factory=dict)  # answer_key -> text
    saved_at: dict[str, float] = field(default_factory=dict)
    questions: tuple[ExamQuestion, ...] = ()

    def seconds_left(self, now: float) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - now)

    def status(self, now: float) -> str:
        """ "not-started", "in-progress", "submitted", "time-up" or "quiz-closed"."""
        if self.submitted_at is not None:
            return "submitted"
        if self.started_at is None:
            return "quiz-closed" if self.quiz_closed_at is not None else "not-started"
        if self.quiz_closed_at is not None and now >= self.quiz_closed_at:
            return "quiz-closed"
        if self.deadline is not None and now > self.deadline:
            return "time-up"
        return "in-progress"

    def answers_by_question(self) -> dict[int, dict[str, str]]:
        out: dict[int, dict[str, str]] = {}
        for key, text in self.answers.items():
            split = split_key(key)
            if split is not None:
                out.setdefault(split[0], {})[split[1]] = text
        return out


@dataclass(frozen=True)
class LiveSession:
    student: Student
    started_at: float
    last_seen: float
    where: str


@dataclass(frozen=True)
class MisconceptionCount:
    exercise: str
    code: str
    attempts: int
    students: tuple[str, ...]


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=list)
