"""Every student's questions, rendered once when the teacher opens a quiz on the
server (the engine runs here, in the teacher's command), so that a student's
exam process only reads rows and never loads torch."""

from __future__ import annotations

from collections.abc import Iterable

from exercises.classdb.model import ExamQuestion


def render_questions(quiz, student_ids: Iterable[str]) -> dict[str, list[ExamQuestion]]:
    """{student id: their questions}: the variant each student sees (the quiz's salt,
    the exact id, the question number: the same as ``quiz take`` and ``quiz grade``)."""
    from dataclasses import asdict

    from exercises.catalogue import get
    from exercises.classroom.quiz import questions_for, variant_fingerprint

    rendered: dict[str, list[ExamQuestion]] = {}
    for student in student_ids:
        questions = []
        for question in questions_for(quiz, student):
            variant = get(question.exercise).generate(question.seed)
            questions.append(
                ExamQuestion(
                    question.index,
                    question.exercise,
                    question.seed,
                    asdict(variant),
                    variant_fingerprint(variant),
                )
            )
        rendered[student] = questions
    return rendered
