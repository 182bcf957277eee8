"""The class database (issue 15): roster, sign-in, sessions, each student's learner
state and server-timed exams, on SQLite or PostgreSQL. Torch-free, no Textual."""

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
from exercises.classdb.store import ClassLearnerStore, ClassStore, StudentSession, open_class_store

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
