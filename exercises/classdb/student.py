"""A signed-in student's side of the class database: what the process of one
browser tab holds. A StudentSession is built from a database connection and the
session's id, and nothing else: no method of it takes a student id, so through it
a process reads and writes that student's rows and no others (the tests try).
Every write checks, in its own statement or transaction, that the session is
still live.

Where the boundary is, honestly: it is this interface, not the operating system.
The process connects to the same database with the server's credentials (the
SQLite file, or the PostgreSQL URL), so code running in it that went around this
class could reach every row. Nothing a browser sends is run as code, which is what
keeps it at this interface."""

from __future__ import annotations

import json
import time

from exercises.classdb.backends import Backend, Tx
from exercises.classdb.model import (
    GRACE_SECONDS,
    IDLE_SECONDS,
    MAX_ANSWER,
    MAX_KEY,
    MAX_WHERE,
    SESSION_SECONDS,
    Exam,
    ExamClosed,
    OpenQuiz,
    SessionEnded,
    Student,
    split_key,
)
from exercises.classdb.pins import loggable
from exercises.classdb.rows import (
    QUIZ_COLUMNS,
    current_quiz,
    deadline,
    finite,
    quiz_by_id,
    quiz_row,
    storable,
)
from exercises.classdb.rows import attempts as attempt_rows
from exercises.classdb.rows import exam as exam_record
from exercises.classdb.rows import questions as question_rows
from exercises.learner.store import Attempt

# -- saving an answer: one statement --------------------------------------------------

_QUIZ_FIELDS = ", ".join("q." + column for column in QUIZ_COLUMNS.split(", "))
_SAVE_STATE = (
    "SELECT x.ended_at, x.ended_reason, e.started_at, e.submitted_at, e.extension, "
    "(SELECT COUNT(*) FROM questions k WHERE k.quiz = q.id AND k.student = x.student) AS n, "
    f"(SELECT COUNT(*) FROM quizzes) AS quizzes, {_QUIZ_FIELDS}, x.student AS who "
    "FROM sessions x LEFT JOIN quizzes q ON q.closed_at IS NULL "
    "LEFT JOIN exams e ON e.quiz = q.id AND e.student = x.student "
    "WHERE x.sid = ? ORDER BY q.id DESC LIMIT 1"
)
# The deadline of rows.deadline(), in SQL: start + limit + extension, or the quiz's closing time
# + extension if earlier, NULL when there is neither.
_DEADLINE = (
    "(CASE WHEN time_limit IS NULL THEN closes_at + extension "
    "WHEN closes_at IS NULL OR started_at + time_limit < closes_at THEN started_at + time_limit + extension "
    "ELSE closes_at + extension END)"
)
# The rules of _save_allowed, over a _SAVE_STATE row (parameters: now, grace, question number).
_MAY_SAVE = (
    "ended_at IS NULL AND id IS NOT NULL AND started_at IS NOT NULL AND submitted_at IS NULL "
    f"AND ({_DEADLINE} IS NULL OR ? <= {_DEADLINE} + ?) AND (n = 0 OR ? < n)"
)
_UPSERT = "ON CONFLICT (quiz, student, key) DO UPDATE SET body = excluded.body, saved_at = excluded.saved_at"
# SQLite: one statement (the write lock is held inside it only); the log rows come from triggers.
SQLITE_SAVE_SQL = (
    f"INSERT INTO answers (quiz, student, key, body, saved_at) SELECT id, who, ?, ?, ? "
    f"FROM ({_SAVE_STATE}) AS s WHERE {_MAY_SAVE} {_UPSERT}"
)
# PostgreSQL (data-modifying WITH): the same, and the log row, in one statement.
POSTGRES_SAVE_SQL = f"""
WITH s AS ({_SAVE_STATE}),
ok AS (SELECT id AS quiz, who AS student FROM s WHERE {_MAY_SAVE}),
saved AS (
    INSERT INTO answers (quiz, student, key, body, saved_at) SELECT quiz, student, ?, ?, ? FROM ok {_UPSERT}
    RETURNING 1
),
logged AS (
    INSERT INTO answer_log (quiz, student, key, length, at) SELECT quiz, student, ?, ?, ? FROM ok RETURNING 1
)
SELECT s.*, (SELECT COUNT(*) FROM saved) + 0 * (SELECT COUNT(*) FROM logged) FROM s
"""


def _save_allowed(row: tuple | None, now: float) -> tuple[OpenQuiz, int | None]:
    """The one statement of the save rules, read from a _SAVE_STATE row: (the open quiz,
    the number of questions rendered or None), else SessionEnded / ExamClosed."""
    if row is None:
        raise SessionEnded("unknown")
    if row[0] is not None:
        raise SessionEnded(row[1] or "signed-out")
    started, submitted, extension, count, quizzes = row[2:7]
    if row[7] is None:
        raise ExamClosed("quiz-closed" if quizzes else "no-quiz")
    quiz = quiz_row(row[7:16])
    if submitted is not None:
        raise ExamClosed("submitted")
    if started is None:
        raise ExamClosed("not-started")
    ends = deadline(quiz, started, float(extension))
    if ends is not None and now > ends + GRACE_SECONDS:
        raise ExamClosed("time-up")
    return quiz, (int(count) or None)


def expired(started_at: float, last_seen: float, now: float) -> bool:
    """A session idle for IDLE_SECONDS (its tab closed) or older than SESSION_SECONDS."""
    return now - last_seen > IDLE_SECONDS or now - started_at > SESSION_SECONDS


class StudentSession:
    """All a signed-in student's process gets: this student's rows, nobody else's."""

    def __init__(self, backend: Backend, sid: str, student: Student) -> None:
        self._backend = backend
        self._sid = sid
        self.student = student
        self.where = backend.where

    def __repr__(self) -> str:
        return f"StudentSession({self.student.id!r})"

    def close(self) -> None:
        """Let the connections go (the process's own; a server's store closes its own)."""
        self._backend.close()

    def _live(self, tx: Tx) -> None:
        row = tx.one("SELECT ended_at, ended_reason FROM sessions WHERE sid = ?", (self._sid,))
        if row is None:
            raise SessionEnded("unknown")
        if row[0] is not None:
            raise SessionEnded(row[1] or "signed-out")

    def is_live(self) -> bool:
        try:
            with self._backend.read() as tx:
                self._live(tx)
        except SessionEnded:
            return False
        return True

    def heartbeat(self, now: float, where: str = "") -> None:
        """Say where the student is (lesson, screen) for the dashboard; SessionEnded when
        this session is over (signed in elsewhere, ended by the teacher, expired). It does
        not make the session live: that is the server's to say (Sessions.seen), from the
        tab's open websocket, since a process that outlived its server once kept a whole
        class "live" by its own heartbeat."""
        now = finite(now)
        with self._backend.write() as tx:
            self._live(tx)
            started, last_seen = tx.one(
                "SELECT started_at, last_seen FROM sessions WHERE sid = ?", (self._sid,)
            )
            if expired(started, last_seen, now):
                tx.run(
                    "UPDATE sessions SET ended_at = ?, ended_reason = 'expired' WHERE sid = ? AND ended_at IS NULL",
                    (now, self._sid),
                )
            else:
                tx.run(
                    "UPDATE sessions SET place = ? WHERE sid = ?",
                    (loggable(where, MAX_WHERE), self._sid),
                )
        if expired(started, last_seen, now):
            raise SessionEnded("expired")

    def sign_out(self, now: float) -> None:
        with self._backend.write() as tx:
            tx.run(
                "UPDATE sessions SET ended_at = ?, ended_reason = 'signed-out' WHERE sid = ? AND ended_at IS NULL",
                (finite(now), self._sid),
            )

    def class_settings(self):
        """The class's settings (the same for every student: the training lab's)."""
        from exercises.classdb.settings import settings_from

        with self._backend.read() as tx:
            return settings_from(dict(tx.all("SELECT key, value FROM class_settings")))

    # -- the exam ------------------------------------------------------------------

    def current_quiz(self) -> OpenQuiz | None:
        with self._backend.read() as tx:
            self._live(tx)
            return current_quiz(tx)

    def _exam(self, tx: Tx, quiz: OpenQuiz) -> Exam:
        row = tx.one(
            "SELECT student, started_at, submitted_at, extension FROM exams WHERE quiz = ? AND student = ?",
            (quiz.quiz_id, self.student.id),
        ) or (self.student.id, None, None, 0.0)
        answers = {
            key: (body, saved)
            for key, body, saved in tx.all(
                "SELECT key, body, saved_at FROM answers WHERE quiz = ? AND student = ?",
                (quiz.quiz_id, self.student.id),
            )
        }
        return exam_record(quiz, row, answers, question_rows(tx, quiz.quiz_id, self.student.id))

    def exam(self, quiz_id: int | None = None) -> Exam | None:
        """This student's exam in the open quiz (or quiz ``quiz_id``: an earlier one, or the
        one just closed); None when there is no such quiz. ``started_at`` None: not begun."""
        with self._backend.read() as tx:
            self._live(tx)
            quiz = current_quiz(tx) if quiz_id is None else quiz_by_id(tx, quiz_id)
            return self._exam(tx, quiz) if quiz else None

    def results(self) -> list[tuple[OpenQuiz, Exam]]:
        """The quizzes whose results this student may see now, the latest first: taken
        (started), and released, or handed in (submitted, or the quiz closed) on a quiz
        that shows results at once ("after-submit")."""
        with self._backend.read() as tx:
            self._live(tx)
            rows = tx.all(
                f"SELECT {', '.join('q.' + c for c in QUIZ_COLUMNS.split(', '))} FROM quizzes q "
                "JOIN exams e ON e.quiz = q.id WHERE e.student = ? AND e.started_at IS NOT NULL ORDER BY q.id DESC",
                (self.student.id,),
            )
            found = []
            for row in rows:
                quiz = quiz_row(row)
                exam = self._exam(tx, quiz)
                handed_in = exam.submitted_at is not None or quiz.closed_at is not None
                if quiz.released_at is not None or (quiz.results == "after-submit" and handed_in):
                    found.append((quiz, exam))
            return found

    def start_exam(self, now: float) -> Exam:
        """Open the exam; the first call records the server's start time, later calls
        (a reload, a dropped connection) change nothing. ExamClosed("no-quiz") when none is open."""
        now = finite(now)
        with self._backend.write(lock=f"student:{self.student.id}") as tx:
            self._live(tx)
            quiz = current_quiz(tx)
            if quiz is None:
                raise ExamClosed("no-quiz")
            tx.run(
                "INSERT INTO exams (quiz, student, started_at, submitted_at, extension) "
                "VALUES (?, ?, ?, NULL, 0) ON CONFLICT (quiz, student) DO NOTHING",
                (quiz.quiz_id, self.student.id, now),
            )
            tx.run(  # the teacher may have given extra time before the student began
                "UPDATE exams SET started_at = ? WHERE quiz = ? AND student = ? AND started_at IS NULL",
                (now, quiz.quiz_id, self.student.id),
            )
            return self._exam(tx, quiz)

    def _writable(self, tx: Tx, now: float) -> tuple[OpenQuiz, int | None]:
        """The open quiz when this session may still save in it (and how many questions
        were rendered for this student, None if none were); SessionEnded or ExamClosed
        with the reason otherwise. One query: it runs on every save."""
        return _save_allowed(tx.one(_SAVE_STATE, (self._sid,)), now)

    def save_answer(self, key: str, text: str, now: float) -> None:
        """Save one answer box (key: model.answer_key(question, part)) as typed, and log the
        save, atomically. ExamClosed after submitting, past the deadline (plus GRACE_SECONDS),
        once the quiz is closed, for a box the exam does not have, or for an answer longer
        than MAX_ANSWER ("too-long": refused whole, never cut; the last save stays).

        One statement on either database: the rules are checked in SQL as it writes, so
        SQLite's single write lock is held only inside that statement and PostgreSQL needs
        one round trip (five otherwise; with a process per student on a busy machine each
        waited for a CPU: benchmarks/class_server.py). When nothing was saved, the reason
        is read back and raised."""
        now = finite(now)
        split = split_key(key) if isinstance(key, str) and len(key) <= MAX_KEY else None
        if split is None or not isinstance(text, str):
            raise ExamClosed("bad-key")
        if len(text) > MAX_ANSWER:
            raise ExamClosed("too-long")
        body, key = storable(text), storable(key)
        if self._backend.kind == "postgresql":
            with self._backend.statement() as tx:
                row = tx.one(
                    POSTGRES_SAVE_SQL,
                    (self._sid, now, GRACE_SECONDS, split[0], key, body, now, key, len(body), now),
                )
            if row is not None and row[-1]:
                return
            _save_allowed(row[:-1] if row is not None else None, now)  # raises the reason, if any
        else:
            if self._backend.write_statement(
                SQLITE_SAVE_SQL, (key, body, now, self._sid, now, GRACE_SECONDS, split[0])
            ):
                return
            with self._backend.read() as tx:
                self._writable(tx, now)  # raises the reason, if any
        raise ExamClosed("bad-key")  # every rule but the box's number allowed it

    def submit(self, now: float) -> Exam:
        """Hand the exam in (a second submit changes nothing). ExamClosed("time-up") past
        the deadline plus grace: the answers saved until then are what gets graded."""
        now = finite(now)
        with self._backend.write(lock=f"student:{self.student.id}") as tx:
            self._live(tx)
            quiz = current_quiz(tx)
            if quiz is not None:
                done = self._exam(tx, quiz)
                if done.submitted_at is not None:
                    return done
            self._writable(tx, now)
            tx.run(
                "UPDATE exams SET submitted_at = ? WHERE quiz = ? AND student = ? AND submitted_at IS NULL",
                (now, quiz.quiz_id, self.student.id),
            )
            return self._exam(tx, quiz)

    # -- learner state (what exercises.learner.store.ProgressStore keeps) -----------------

    def learner_store(self):
        """The ProgressStore interface on this session (exercises.classdb.learner)."""
        from exercises.classdb.learner import ClassLearnerStore

        return ClassLearnerStore(self)

    def record_attempt(self, attempt: Attempt) -> None:
        with self._backend.write() as tx:
            self._live(tx)
            tx.run(
                "INSERT INTO attempts (student, exercise, objective, seed, answer, score, valid, graded, "
                "correct, diagnoses, hints_used, seconds, at, app_version, kind) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    self.student.id,
                    storable(attempt.exercise),
                    storable(attempt.objective),
                    int(attempt.seed),
                    storable(json.dumps(attempt.answer, ensure_ascii=False)),
                    attempt.score,
                    int(attempt.valid),
                    int(attempt.graded),
                    int(attempt.correct),
                    json.dumps(list(attempt.diagnoses)),
                    int(attempt.hints_used),
                    float(attempt.seconds),
                    float(attempt.at),
                    storable(attempt.app_version),
                    storable(getattr(attempt, "kind", "exercise")),
                ),
            )

    def save_setting(self, key: str, value: str) -> None:
        with self._backend.write() as tx:
            self._live(tx)
            tx.run(
                "INSERT INTO settings (student, key, value) VALUES (?, ?, ?) "
                "ON CONFLICT (student, key) DO UPDATE SET value = excluded.value",
                (self.student.id, storable(key), storable(value)),
            )

    def attempts(self) -> list[Attempt]:
        with self._backend.read() as tx:
            self._live(tx)
            return attempt_rows(tx, self.student.id)

    def settings(self) -> dict[str, str]:
        with self._backend.read() as tx:
            self._live(tx)
            return dict(tx.all("SELECT key, value FROM settings WHERE student = ?", (self.student.id,)))

    def reset_progress(self, now: float | None = None) -> None:
        """Start over: this student's attempts are kept, marked as reset (no longer counted)."""
        with self._backend.write() as tx:
            self._live(tx)
            tx.run(
                "UPDATE attempts SET reset_at = ? WHERE student = ? AND reset_at IS NULL",
                (time.time() if now is None else finite(now), self.student.id),
            )
