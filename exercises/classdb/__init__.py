"""The class database (issue 15): roster, sign-in, sessions, each student's learner
state and server-timed exams, on SQLite or PostgreSQL. Torch-free, no Textual.

The shape, in one place:
- ``open_class_store(dir, db_url=None)`` (or ``folder.open_class(dir, db_url)``, which also
  reads ``$OBJECTIVES_TUTOR_DB`` and the folder's class.toml) -> ClassStore;
- ``store.sign_in(id, pin, now, source)`` -> SignIn(ok, student, reason);
  ``store.start_session(id, now)`` -> token; ``store.session(token)`` -> StudentSession
  or SessionEnded(reason);
- a StudentSession: ``.student``, ``.heartbeat(now, where)``, ``.learner_store()`` (the
  ProgressStore methods), ``.current_quiz()``, ``.start_exam(now)``, ``.exam()``,
  ``.save_answer(answer_key(question, part), text, now)``, ``.submit(now)``, ``.sign_out(now)``;
- the teacher's: ``open_quiz``, ``close_quiz``, ``extend_time``, ``release_results``,
  ``exams``, ``questions``, ``live_sessions``, ``recent_misconceptions``, ``progress``;
  grading: ``grading.grade_from_store`` (the file grading's ClassResult)."""

from exercises.classdb.learner import ClassLearnerStore
from exercises.classdb.model import (
    GRACE_SECONDS,
    RATE_LIMIT_FAILURES,
    RATE_LIMIT_WINDOW,
    ClassStoreError,
    Exam,
    ExamClosed,
    ExamQuestion,
    LiveSession,
    MisconceptionCount,
    OpenQuiz,
    SessionEnded,
    SignIn,
    Student,
    answer_key,
)
from exercises.classdb.store import ClassStore, open_class_store
from exercises.classdb.student import StudentSession

__all__ = [
    "GRACE_SECONDS",
    "RATE_LIMIT_FAILURES",
    "RATE_LIMIT_WINDOW",
    "ClassLearnerStore",
    "ClassStore",
    "ClassStoreError",
    "Exam",
    "ExamClosed",
    "ExamQuestion",
    "LiveSession",
    "MisconceptionCount",
    "OpenQuiz",
    "SessionEnded",
    "SignIn",
    "Student",
    "StudentSession",
    "answer_key",
    "open_class_store",
]
