"""Every student's questions, rendered once when the teacher opens a quiz on the
server (the engine runs here, in the teacher's command), so that a student's
exam process only reads rows and never loads torch."""

from __future__ import annotations

from collections.abc import Iterable

from exercises.classdb.model import ExamQuestion


def render_questions(quiz, student_ids: Iterable[str]) -> dict[str, list[ExamQuestion]]:
    """{student id: their questions}: the variant each student sees (the quiz's salt,
    the exact id, the question number: the same as ``quiz take`` and ``quiz grade``).

    A code-lab task (``lab:<task>``) is refused: its answer is a file on the student's own
    machine, which a browser session on the server cannot reach (and the server never runs
    code its students send). Such a quiz is handed out as a file (``quiz take``)."""
    from dataclasses import asdict

    from exercises.catalogue import get
    from exercises.classdb.model import ClassStoreError
    from exercises.classroom.quiz import is_lab, questions_for, variant_fingerprint
    from exercises.text import L

    labs = [exercise for exercise in quiz.exercises if is_lab(exercise)]
    if labs:
        raise ClassStoreError(
            L(
                f"the class server cannot hold code-lab tasks ({', '.join(labs)}): a student's file is on "
                "their own machine; hand this quiz out as a file (quiz take) instead",
                f"班级服务器上的测验不能包含代码实验题（{'、'.join(labs)}）：学生的文件在他自己的电脑上；"
                "请把这份测验作为文件发给学生（quiz take）",
            )
        )

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
