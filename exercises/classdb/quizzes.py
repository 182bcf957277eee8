"""Quizzes on the server, the teacher's side: opening one (every student's
questions rendered), closing it, giving one student more or less time, releasing
results, and reading the exams back for the dashboard and grading. The student's
side (starting, saving, submitting) is exercises/classdb/student.py."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from exercises.classdb.backends import Backend
from exercises.classdb.model import ClassStoreError, Exam, ExamQuestion, OpenQuiz, dumps
from exercises.classdb.rows import (
    QUIZ_COLUMNS,
    current_quiz,
    deadline,
    finite,
    quiz_by_id,
    quiz_row,
    storable,
)
from exercises.classdb.rows import exam as exam_record
from exercises.classdb.rows import questions as question_rows
from exercises.text import L

MAX_EXTENSION = 24 * 3600.0


class Quizzes:
    backend: Backend

    def open_quiz(
        self,
        quiz_text: str,
        now: float,
        name: str = "",
        questions: Mapping[str, Sequence[ExamQuestion]] | None = None,
    ) -> OpenQuiz:
        """Open a quiz (its TOML) for the class, with each student's questions as rendered
        (exercises.classdb.render); ClassStoreError when one is already open or the text
        is not a quiz. The quiz's time limit runs from each student's first open."""
        from exercises.classroom.quiz import ClassroomError, loads

        now = finite(now)
        try:
            quiz = loads(quiz_text)
        except ClassroomError as error:
            raise ClassStoreError(error.text) from None
        with self.backend.write(lock="quiz") as tx:
            current = tx.one("SELECT id, name FROM quizzes WHERE closed_at IS NULL")
            if current:
                raise ClassStoreError(
                    L(
                        f"quiz {current[1]!r} is still open: close it first (class quiz close)",
                        f"测验 {current[1]!r} 仍在进行：请先关闭（class quiz close）",
                    )
                )
            limit = None if quiz.time_limit_minutes is None else 60.0 * quiz.time_limit_minutes
            row = tx.one(
                "INSERT INTO quizzes (quiz_key, name, body, opened_at, time_limit, closes_at, results) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (quiz.id, storable(name or quiz.title), quiz_text, now, limit, quiz.closes_at, quiz.results),
            )
            quiz_id = int(row[0])
            known = {r[0] for r in tx.all("SELECT id FROM students")}
            tx.many(
                "INSERT INTO questions (quiz, student, idx, exercise, seed, variant, fingerprint) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (quiz_id, student, q.index, q.exercise, q.seed, dumps(q.variant), q.fingerprint)
                    for student, rendered in (questions or {}).items()
                    if student in known
                    for q in rendered
                ],
            )
        return self._quiz(quiz_id)

    def add_questions(self, quiz_id: int, questions: Mapping[str, Sequence[ExamQuestion]]) -> int:
        """Store rendered questions for students who had none (added to the class while the
        quiz was open); a student's questions once stored never change. Returns how many students."""
        with self.backend.write(lock="quiz") as tx:
            known = {r[0] for r in tx.all("SELECT id FROM students")}
            have = {r[0] for r in tx.all("SELECT DISTINCT student FROM questions WHERE quiz = ?", (quiz_id,))}
            fresh = {student: rendered for student, rendered in questions.items() if student in known - have}
            tx.many(
                "INSERT INTO questions (quiz, student, idx, exercise, seed, variant, fingerprint) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (quiz_id, student, q.index, q.exercise, q.seed, dumps(q.variant), q.fingerprint)
                    for student, rendered in fresh.items()
                    for q in rendered
                ],
            )
        return len(fresh)

    def close_quiz(self, now: float) -> OpenQuiz | None:
        """Close the open quiz (saves and submits are refused from ``now`` on); None if none was open."""
        with self.backend.write(lock="quiz") as tx:
            row = tx.one("SELECT id FROM quizzes WHERE closed_at IS NULL")
            if row is None:
                return None
            tx.run("UPDATE quizzes SET closed_at = ? WHERE id = ?", (finite(now), row[0]))
        return self._quiz(int(row[0]))

    def current_quiz(self) -> OpenQuiz | None:
        with self.backend.read() as tx:
            return current_quiz(tx)

    def quizzes(self) -> list[OpenQuiz]:
        """Every quiz ever opened, the latest first."""
        with self.backend.read() as tx:
            return [quiz_row(r) for r in tx.all(f"SELECT {QUIZ_COLUMNS} FROM quizzes ORDER BY id DESC")]

    def _quiz(self, quiz_id: int) -> OpenQuiz | None:
        with self.backend.read() as tx:
            return quiz_by_id(tx, quiz_id)

    def extend_time(self, student_id: str, seconds: float, now: float | None = None) -> float:
        """Give one student more time in the open quiz (or, negative, take time back);
        returns their extension in total, which may be negative. Works before they start
        and after their time ran out (not after they submitted: a submitted exam stays
        submitted). Taking time back never moves a started exam's end before ``now``
        (their time ends now at the earliest; what they saved counts) nor makes the time
        allowed less than nothing; a quiz without a time limit has no time to take back."""
        seconds = finite(seconds)
        now = time.time() if now is None else finite(now)
        with self.backend.write(lock=f"student:{student_id}") as tx:
            quiz = current_quiz(tx)
            if quiz is None:
                raise ClassStoreError(L("no quiz is open", "当前没有开放的测验"))
            if not tx.one("SELECT 1 FROM students WHERE id = ?", (student_id,)):
                raise ClassStoreError(L(f"no student {student_id!r}", f"没有学生 {student_id!r}"))
            tx.run(
                "INSERT INTO exams (quiz, student, started_at, submitted_at, extension) "
                "VALUES (?, ?, NULL, NULL, 0) ON CONFLICT (quiz, student) DO NOTHING",
                (quiz.quiz_id, student_id),
            )
            started, extension = tx.one(
                "SELECT started_at, extension FROM exams WHERE quiz = ? AND student = ?",
                (quiz.quiz_id, student_id),
            )
            total = float(extension) + seconds
            if abs(total) > MAX_EXTENSION:
                raise ClassStoreError(L("an extension is at most one day", "延长时间最多一天"))
            if seconds < 0:
                if deadline(quiz, started, 0.0) is None and quiz.time_limit_seconds is None:
                    raise ClassStoreError(
                        L(
                            "this quiz has no time limit: there is no time to take back",
                            "这份测验不限时：没有可以收回的时间",
                        )
                    )
                if quiz.time_limit_seconds is not None:
                    total = max(total, -quiz.time_limit_seconds)  # never less than no time at all
                base = deadline(quiz, started, 0.0)
                if started is not None and base is not None:
                    total = max(total, min(float(extension), now - base))  # never ends before now
            tx.run(
                "UPDATE exams SET extension = ? WHERE quiz = ? AND student = ?",
                (total, quiz.quiz_id, student_id),
            )
            return total

    def release_results(self, quiz_id: int, now: float) -> OpenQuiz:
        with self.backend.write(lock="quiz") as tx:
            if (
                tx.run("UPDATE quizzes SET released_at = ? WHERE id = ?", (finite(now), quiz_id)).rowcount
                == 0
            ):
                raise ClassStoreError(L(f"no quiz number {quiz_id}", f"没有编号为 {quiz_id} 的测验"))
        return self._quiz(quiz_id)

    def exams(self, quiz_id: int) -> list[Exam]:
        """Every exam of a quiz with its answers (no questions), in roster order."""
        with self.backend.read() as tx:
            quiz = quiz_by_id(tx, quiz_id)
            if quiz is None:
                return []
            rows = tx.all(
                "SELECT e.student, e.started_at, e.submitted_at, e.extension FROM exams e "
                "JOIN students s ON s.id = e.student WHERE e.quiz = ? ORDER BY s.position",
                (quiz_id,),
            )
            answers: dict[str, dict[str, tuple[str, float]]] = {}
            for student, key, body, saved in tx.all(
                "SELECT student, key, body, saved_at FROM answers WHERE quiz = ?", (quiz_id,)
            ):
                answers.setdefault(student, {})[key] = (body, saved)
        return [exam_record(quiz, row, answers.get(row[0], {}), ()) for row in rows]

    def questions(self, quiz_id: int, student_id: str) -> tuple[ExamQuestion, ...]:
        with self.backend.read() as tx:
            return question_rows(tx, quiz_id, student_id)

    def answer_log(self, quiz_id: int, student_id: str) -> list[tuple[str, int, float]]:
        """(key, length, time) of every save, in order: the exam's timeline."""
        with self.backend.read() as tx:
            return [
                tuple(r)
                for r in tx.all(
                    "SELECT key, length, at FROM answer_log WHERE quiz = ? AND student = ? ORDER BY id",
                    (quiz_id, student_id),
                )
            ]
