"""The server's exam seen through the file exam's interface
(``exercises.classroom.exam.ExamSession``), so the one exam screen
(``tui/screens/exam.py``) serves both: a quiz taken from a file and a quiz taken
on the class server. Nothing is graded or timed here: the store keeps the clock
(the start it recorded, the deadline with any extension) and refuses a late
save; grading stays in ``exercises/classroom``.

Each question carries the variant rendered when the teacher opened the quiz, so
the exam screen shows it without the engine: an exam process never imports torch
until the student asks for results."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from exercises.classdb import ExamClosed, answer_key
from exercises.classdb.model import EXAM_CLOSED_TEXT

REFRESH_SECONDS = 5.0  # how often the deadline is read again (a teacher may extend it)


@dataclass(frozen=True)
class RenderedQuestion:
    """``exercises.classroom.quiz.Question`` plus the variant stored with it."""

    index: int
    exercise: str
    seed: int
    variant: Any


class ClassExam:
    rendered = True  # questions come rendered: the exam screen need not wait for the engine

    def __init__(self, session, clock: Callable[[], float] = time.time) -> None:
        self._session = session
        self._clock = clock
        self.open_quiz = session.current_quiz()
        self.quiz = self.open_quiz.quiz()
        self._exam = session.start_exam(clock())
        self._read_at = clock()
        self.student = session.student.id
        self.answers: dict[int, dict[str, str]] = self._exam.answers_by_question()
        self.submitted_at: float | None = self._exam.submitted_at
        self.notice = None
        self.refused: str | None = None  # the store's last ExamClosed reason
        self.ended_note = None  # said above the results when the server ended the exam (quiz closed)
        self._questions = [
            RenderedQuestion(q.index, q.exercise, q.seed, q.to_variant()) for q in self._exam.questions
        ]
        if not self._questions:  # a quiz opened without rendering: the engine makes each variant
            from exercises.classroom.quiz import questions_for

            self.rendered = False
            self._questions = [
                RenderedQuestion(q.index, q.exercise, q.seed, None)
                for q in questions_for(self.quiz, self.student)
            ]

    @property
    def quiz_id(self) -> int:
        return self._exam.quiz_id

    def questions(self) -> list[RenderedQuestion]:
        return list(self._questions)

    def _refresh(self, force: bool = False) -> None:
        """Read this exam again (its own quiz, by number: the quiz may have closed since)."""
        now = self._clock()
        if force or now - self._read_at >= REFRESH_SECONDS:
            exam = self._session.exam(self.quiz_id)
            if exam is not None:
                self._exam = exam
            self._read_at = now
            if self._exam.submitted_at is not None:
                self.submitted_at = self._exam.submitted_at

    def closed(self) -> bool:
        """The teacher closed the quiz: what was saved is what is handed in."""
        self._refresh()
        return self._exam.quiz_closed_at is not None

    def deadline(self) -> float | None:
        self._refresh()
        return self._exam.deadline

    def seconds_left(self, now: float | None = None) -> float | None:
        self._refresh()
        status = self._exam.status(self._clock() if now is None else now)
        if status in ("time-up", "quiz-closed"):
            return 0.0
        return self._exam.seconds_left(self._clock() if now is None else now)

    def set_answer(self, index: int, part: str, text: str) -> None:
        """Saved on the server at once; a save the server refuses is kept out of
        ``answers`` (what the student sees as saved is what the server has)."""
        if self.submitted_at is not None:
            return
        self.refused = None
        parts = self.answers.setdefault(index, {})
        if parts.get(part) == text:
            return
        try:
            self._session.save_answer(answer_key(index, part), text, self._clock())
        except ExamClosed as closed:
            self.refused = closed.reason
            if closed.reason == "submitted":
                self._refresh(force=True)
            return
        parts[part] = text

    def submit(self) -> str:
        """Hand in. When the server has closed the exam already (time up, quiz closed),
        what it saved until then is the submission: the screen shows results all the same."""
        if self.submitted_at is None:
            try:
                self._session.submit(self._clock())
            except ExamClosed as closed:
                self.refused = closed.reason
            self._refresh(force=True)
            if self._exam.quiz_closed_at is not None and self._exam.submitted_at is None:
                self.ended_note = EXAM_CLOSED_TEXT["quiz-closed"]
            if self.submitted_at is None:
                self.submitted_at = self._clock()
            self.done_key = taken_key(self._exam.submitted_at, self._exam.quiz_closed_at, self._exam.deadline)
        return self.open_quiz.name

    def close(self) -> None:
        """The store outlives the screen (the app closes it)."""

    def results_visible(self) -> bool:
        if self.submitted_at is None:
            return False
        self._refresh(force=True)
        return self.quiz.results == "after-submit" or self._exam.results_released

    def results(self):
        """Graded by the same function as a submission file (imports the engine, once)."""
        from exercises.classdb.grading import grade_exam

        self._refresh(force=True)
        return grade_exam(self.quiz, self._exam)


def taken_key(submitted_at: float | None, closed_at: float | None, deadline: float | None) -> str:
    """The tui.i18n key of what the exam screen says of a finished exam: submitted, or (never handed in) taken
    when the quiz closed or when the time ran out, whichever came first."""
    if submitted_at is not None:
        return "exam-done"
    if deadline is not None and (closed_at is None or deadline < closed_at):
        return "exam-taken-at-time-up"
    return "exam-taken-at-close"


class PastExam:
    """A quiz this student took, seen again for its results (closed, or handed in):
    the exam screen's interface, read-only. Nothing is saved or submitted here."""

    rendered = True

    def __init__(self, quiz, exam) -> None:
        self.open_quiz = quiz
        self.quiz = quiz.quiz()
        self._exam = exam
        self.student = exam.student
        self.answers = exam.answers_by_question()
        self.submitted_at = exam.submitted_at or quiz.closed_at or exam.started_at
        self.done_key = taken_key(exam.submitted_at, quiz.closed_at, exam.deadline)
        self.notice = None
        self.ended_note = None
        self.quiz_id = quiz.quiz_id

    def questions(self) -> list[RenderedQuestion]:
        return [RenderedQuestion(q.index, q.exercise, q.seed, q.to_variant()) for q in self._exam.questions]

    def seconds_left(self, now: float | None = None) -> float | None:
        return None

    def set_answer(self, index: int, part: str, text: str) -> None:
        """Handed in already: nothing changes."""

    def submit(self) -> str:
        return self.open_quiz.name

    def close(self) -> None:
        """Nothing held."""

    def results_visible(self) -> bool:
        return True

    def results(self):
        from exercises.classdb.grading import grade_exam

        return grade_exam(self.quiz, self._exam)
