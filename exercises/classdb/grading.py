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
    from exercises.classroom.submission import SubmissionError

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
        shown = store.questions(opened.quiz_id, student.id)
        submissions.append(exam_submission(quiz, exam, shown))
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


def exam_submission(quiz, exam, shown=None):
    """A server exam in the shape file grading reads (exercises.classroom.submission):
    each answer with the question the student saw (exercise, seed, fingerprint of the
    stored variant; the quiz's own when none was stored). A box beyond the quiz is left
    out: saves refuse it once questions are stored."""
    from exercises.classroom.quiz import questions_for
    from exercises.classroom.submission import Answer, Submission

    stored = {question.index: question for question in (exam.questions if shown is None else shown)}
    expected = {question.index: question for question in questions_for(quiz, exam.student)}
    answers = {}
    for index, parts in exam.answers_by_question().items():
        question = stored.get(index) or expected.get(index)
        if question is not None:
            answers[index] = Answer(
                dict(parts), question.exercise, question.seed, getattr(question, "fingerprint", None)
            )
    return Submission(
        quiz.id,
        exam.student,
        answers,
        started_at=exam.started_at,
        submitted_at=exam.submitted_at,
        quiz_hash=quiz.question_hash,
    )


def grade_exam(quiz, exam, memo: dict | None = None):
    """One exam graded as a submission file is (imports the engine)."""
    from exercises.classroom.grading import grade_submission

    return grade_submission(quiz, exam_submission(quiz, exam), memo)


def live_grades(store: ClassStore, opened: OpenQuiz, memo: dict) -> list:
    """Every started exam of a quiz graded as it stands now (the dashboard's score
    histograms and the misconceptions the exam's answers show), in roster order. An
    exam that cannot be graded is left out. ``memo`` is kept between calls: an answer
    graded once is not graded again (grade_submission's memo)."""
    from exercises.classroom.submission import SubmissionError

    quiz = opened.quiz()
    grades = []
    for exam in store.exams(opened.quiz_id):
        if exam.started_at is None:
            continue
        shown = store.questions(opened.quiz_id, exam.student)
        try:
            grades.append(grade_exam(quiz, replace(exam, questions=shown), memo))
        except SubmissionError:
            continue
    return grades


def histogram(values, edges) -> list[int]:
    """How many of ``values`` fall in each bin [edges[i], edges[i+1]) (the last bin closed):
    a score distribution a teacher reads at a glance."""
    counts = [0] * (len(edges) - 1)
    for value in values:
        for number in range(len(counts)):
            last = number == len(counts) - 1
            if edges[number] <= value < edges[number + 1] or (last and value == edges[-1]):
                counts[number] += 1
                break
    return counts
