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

import importlib

# Where each name lives. Loaded on first use (PEP 562), so that importing one light
# module of the package (settings, for the command line's --help) does not import the
# store, grading and the engine behind them.
_HOME = {
    "ClassLearnerStore": "learner",
    "ClassStore": "store",
    "open_class_store": "store",
    "StudentSession": "student",
    **dict.fromkeys(
        (
            "GRACE_SECONDS",
            "RATE_LIMIT_FAILURES",
            "RATE_LIMIT_WINDOW",
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
            "answer_key",
        ),
        "model",
    ),
}


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)


__all__ = sorted(_HOME)  # every name the package hands out, stated once above
