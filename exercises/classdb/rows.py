"""What every part of the class store shares: values made safe to keep (times,
text any backend stores, hashed tokens, folded ids) and database rows turned
into the records of model.py. No statements that change anything."""

from __future__ import annotations

import hashlib
import json
import math
import unicodedata
from collections.abc import Mapping

from exercises.classdb.backends import Tx
from exercises.classdb.model import Exam, ExamQuestion, OpenQuiz
from exercises.learner.store import Attempt

QUIZ_COLUMNS = "id, name, body, opened_at, closed_at, released_at, time_limit, closes_at, results"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def fold(student_id: str) -> str:
    return unicodedata.normalize("NFKC", student_id).casefold()


def finite(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"not a time: {value!r}"[:60])
    return float(value)


def storable(text: str) -> str:
    """Text any backend keeps as it is: no NUL (PostgreSQL refuses it), no lone surrogates."""
    return text.replace("\x00", "").encode("utf-8", "backslashreplace").decode("utf-8")


def quiz_row(row: tuple) -> OpenQuiz:
    return OpenQuiz(int(row[0]), row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8])


def current_quiz(tx: Tx) -> OpenQuiz | None:
    row = tx.one(f"SELECT {QUIZ_COLUMNS} FROM quizzes WHERE closed_at IS NULL ORDER BY id DESC")
    return quiz_row(row) if row else None


def quiz_by_id(tx: Tx, quiz_id: int) -> OpenQuiz | None:
    row = tx.one(f"SELECT {QUIZ_COLUMNS} FROM quizzes WHERE id = ?", (quiz_id,))
    return quiz_row(row) if row else None


def questions(tx: Tx, quiz_id: int, student_id: str) -> tuple[ExamQuestion, ...]:
    rows = tx.all(
        "SELECT idx, exercise, seed, variant, fingerprint FROM questions WHERE quiz = ? AND student = ? "
        "ORDER BY idx",
        (quiz_id, student_id),
    )
    return tuple(ExamQuestion(r[0], r[1], int(r[2]), json.loads(r[3]), r[4]) for r in rows)


def deadline(quiz: OpenQuiz, started_at: float | None, extension: float) -> float | None:
    ends = []
    if started_at is not None and quiz.time_limit_seconds is not None:
        ends.append(started_at + quiz.time_limit_seconds + extension)
    if quiz.closes_at is not None:
        ends.append(quiz.closes_at + extension)
    return min(ends) if ends else None


def exam(
    quiz: OpenQuiz, row: tuple, answers: Mapping[str, tuple[str, float]], shown: tuple[ExamQuestion, ...]
) -> Exam:
    student, started, submitted, extension = row
    return Exam(
        quiz.quiz_id,
        student,
        started,
        submitted,
        float(extension),
        deadline(quiz, started, float(extension)),
        quiz.closed_at,
        quiz.released_at is not None,
        {key: body for key, (body, _) in answers.items()},
        {key: saved for key, (_, saved) in answers.items()},
        shown,
    )


def attempts(tx: Tx, student_id: str) -> list[Attempt]:
    rows = tx.all(
        "SELECT exercise, objective, seed, answer, score, valid, graded, correct, diagnoses, hints_used, "
        "seconds, at, app_version, kind FROM attempts WHERE student = ? AND reset_at IS NULL ORDER BY at, id",
        (student_id,),
    )
    return [
        Attempt(
            exercise=r[0],
            objective=r[1],
            seed=int(r[2]),
            answer=json.loads(r[3]),
            score=r[4],
            valid=bool(r[5]),
            graded=bool(r[6]),
            correct=bool(r[7]),
            diagnoses=json.loads(r[8]),
            hints_used=r[9],
            seconds=r[10],
            at=r[11],
            app_version=r[12],
            kind=r[13],
        )
        for r in rows
    ]
