"""What the teacher does to a class, wherever they do it (the `class` commands,
the dashboard in a terminal or in a browser): open a quiz file with every
student's questions rendered, and write a quiz's gradebook."""

from __future__ import annotations

from pathlib import Path

from exercises.classdb.model import OpenQuiz
from exercises.classdb.store import ClassStore


def open_quiz_file(store: ClassStore, path: Path, now: float, name: str = "") -> OpenQuiz:
    """Open a quiz file for the class, every roster student's questions rendered first
    (the engine runs here, in the teacher's process, never in the exams). A quiz that
    cannot be read, or a quiz still open, is refused before the engine spends time."""
    from exercises.classdb.model import ClassStoreError
    from exercises.classdb.render import render_questions
    from exercises.classroom.quiz import loads
    from exercises.text import cannot

    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise ClassStoreError(cannot("read", path, error)) from None
    quiz = loads(text)  # a bad quiz is reported before anything is opened
    if store.current_quiz() is not None:
        store.open_quiz(text, now, name)  # raises the one-line "close the open quiz first"
    students = [student.id for student in store.students() if student.role == "student"]
    return store.open_quiz(text, now, name, render_questions(quiz, students))


def export_gradebook(store: ClassStore, class_dir: Path, quiz: OpenQuiz) -> Path:
    """Grade the quiz's exams from the database (``quiz grade --class``'s grading) and
    write its gradebook CSV into the class folder. Runs the engine: call it off the
    screen's event loop."""
    from exercises.classdb.grading import grade_from_store
    from exercises.classroom.report import gradebook_csv

    graded_quiz, result = grade_from_store(store, quiz.quiz_id)
    path = Path(class_dir) / f"gradebook-quiz{quiz.quiz_id}.csv"
    path.write_text(gradebook_csv(graded_quiz, result.grades), encoding="utf-8")
    return path
