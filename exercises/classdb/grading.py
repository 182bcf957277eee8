"""Grading a quiz taken on the server: each exam in the database becomes the
Submission the file-based grading reads, and exercises/classroom/grading.py
grades it (the same regeneration, scoring, gradebook and report). What differs is
only where the facts come from: the questions were fixed when the quiz was opened,
the times are the server's (a late save was refused, so nothing is flagged late)."""

from __future__ import annotations

import time
from dataclasses import replace

from exercises.classdb.model import ClassStoreError, OpenQuiz
from exercises.classdb.store import ClassStore
from exercises.text import L


def pick_quiz(store: ClassStore, number: int | None = None) -> OpenQuiz:
    """Quiz ``number``, else the open one, else the latest closed one."""
    quizzes = store.quizzes()
    if number is not None:
        found = [quiz for quiz in quizzes if quiz.quiz_id == number]
        if not found:
            raise ClassStoreError(
                L(
                    f"no quiz number {number} (known: {', '.join(str(q.quiz_id) for q in quizzes) or 'none'})",
                    f"没有编号为 {number} 的测验（已有：{', '.join(str(q.quiz_id) for q in quizzes) or '无'}）",
                )
            )
        return found[0]
    if not quizzes:
        raise ClassStoreError(
            L(
                "this class has no quiz yet (class quiz open QUIZ.toml --class DIR)",
                "这个班级还没有测验（class quiz open QUIZ.toml --class DIR）",
            )
        )
    return quizzes[0]


def grade_from_store(store: ClassStore, number: int | None = None, workers: int | None = None):
    """(Quiz, ClassResult) for one quiz of the class: every roster student, in roster
    order; an exam that cannot be graded is one rejected entry, the rest are graded."""
    from exercises.classroom.grading import (
        MISSING,
        REJECTED,
        ClassResult,
        QuestionGrade,
        StudentGrade,
        grade_all,
        handed_in_status,
    )
    from exercises.classroom.quiz import ClassroomError, questions_for
    from exercises.classroom.submission import Answer, Submission, SubmissionError

    opened = pick_quiz(store, number)
    try:
        quiz = opened.quiz()
    except ClassroomError as error:
        raise ClassStoreError(error.text) from None
    roster = [student for student in store.students() if student.role == "student"]
    exams = {exam.student: exam for exam in store.exams(opened.quiz_id)}
    submissions = []
    for student in roster:
        exam = exams.get(student.id)
        if exam is None or exam.started_at is None:
            continue
        shown = {q.index: q for q in store.questions(opened.quiz_id, student.id)}
        expected = {q.index: q for q in questions_for(quiz, student.id)}
        answers = {}
        for index, parts in exam.answers_by_question().items():
            question = shown.get(index) or expected.get(index)
            if question is None:
                continue  # a box beyond the quiz: never graded (saves refuse it when questions are stored)
            fingerprint = getattr(question, "fingerprint", None)
            answers[index] = Answer(parts, question.exercise, question.seed, fingerprint)
        submissions.append(
            Submission(
                quiz.id,
                student.id,
                answers,
                started_at=exam.started_at,
                submitted_at=exam.submitted_at,
                quiz_hash=quiz.question_hash,
            )
        )
    result = ClassResult()
    graded, refused = {}, {}
    for submission, outcome in zip(submissions, grade_all(quiz, submissions, workers), strict=True):
        if isinstance(outcome, SubmissionError):
            result.reject(f"{submission.student} ({store.where})", outcome)
            refused[submission.student] = outcome
            continue
        exam = exams[submission.student]  # handed in by the student, or taken at the close / time-up
        still_open = exam.status(time.time()) == "in-progress"
        status = handed_in_status(exam.submitted_at is not None, exam.extension > 0, still_open)
        graded[submission.student] = replace(outcome, status=status)
    empty = tuple(
        QuestionGrade(q.index, q.exercise, q.seed, 0.0, 0.0, False, False) for q in questions_for(quiz, "")
    )
    for student in roster:
        if student.id in graded:
            result.grades.append(replace(graded[student.id], name=student.name))
        elif student.id in refused:
            why = refused[student.id].text
            result.grades.append(
                StudentGrade(student.id, empty, quiz.maximum, student.name, REJECTED, why=why)
            )
        else:
            result.grades.append(StudentGrade(student.id, empty, quiz.maximum, student.name, MISSING))
    return quiz, result
