"""The app process of one signed-in browser tab (``python -m tui.classweb.student_app``).

The server starts it with the session token in the environment; it opens that
session, takes the token out of its environment (nothing it starts, such as the
code lab's sandbox, inherits it) and runs:
- for a student, the tutor on their own progress, settings, review and history
  (``StudentSession.learner_store()``); when a quiz is open, the exam only;
- for a teacher, the dashboard.

Every few seconds the session's heartbeat tells the dashboard where the student
is, notices a quiz the teacher opened, and learns when the session was ended
(the student signed in elsewhere): then the app says so and ends."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from exercises.classdb import ClassStoreError, ExamClosed, SessionEnded
from tui.app import TutorApp
from tui.classweb.server import CLASS_DB_ENV, CLASS_DIR_ENV, TOKEN_ENV
from tui.i18n import LANGUAGES, t

HEARTBEAT_SECONDS = 2.0
ENDED_EXIT_SECONDS = 8.0  # the ended message stays this long, then the process ends


class ClassTutorApp(TutorApp):
    """The tutor bound to one class session."""

    CSS_PATH = Path(__file__).parent.parent / "app.tcss"  # the tutor's own (Textual resolves it per subclass)

    def __init__(
        self,
        session,
        lang: str | None = None,
        clock: Callable[[], float] = time.time,
        load_engine: bool = True,
        still: bool = False,
    ) -> None:
        self.class_session = session
        self.class_clock = clock
        self.ended: str | None = None
        exam = self._exam_to_take()
        # An exam shows questions rendered when the quiz opened: no engine, no torch.
        super().__init__(
            lang=lang,
            load_engine=load_engine and (exam is None or not exam.rendered),
            still=still,
            store=session.learner_store(),
            exam=exam,
        )

    def push_screen(self, screen, *args, **kwargs):
        """The code lab checks files the learner edits on their own disk; in a browser the
        files would be the server's, shared by every session: it stays on the learner's machine."""
        from tui.screens.lab import LabScreen

        if isinstance(screen, LabScreen):
            self.notify(t("class-no-lab", self.lang), severity="warning", timeout=10)
            return None
        return super().push_screen(screen, *args, **kwargs)

    def _exam_to_take(self):
        """The open quiz as an exam, unless this student has submitted it already."""
        from tui.classweb.exam_adapter import ClassExam

        opened = self.class_session.current_quiz()
        if opened is None or not opened.is_open:
            return None
        with contextlib.suppress(ExamClosed):
            exam = self.class_session.exam()
            if exam is not None and exam.submitted_at is not None:
                return None
        try:
            return ClassExam(self.class_session, self.class_clock)
        except ExamClosed:
            return None

    def on_mount(self) -> None:
        super().on_mount()
        self.set_interval(HEARTBEAT_SECONDS, self.beat)
        self.beat()

    def where(self) -> str:
        """For the dashboard: "exam", "home" or the lesson's id, then "|solved/total"."""
        from exercises.curriculum import EXERCISE_IDS

        if self.exam is not None:
            place = "exam"
        else:
            objective = next(
                (
                    getattr(s, "objective", None)
                    for s in reversed(self.screen_stack)
                    if hasattr(s, "objective")
                ),
                None,
            )
            place = getattr(objective, "id", None) or "home"
        solved = len(self.progress.solved() & set(EXERCISE_IDS))
        return f"{place}|{solved}/{len(EXERCISE_IDS)}"

    def beat(self) -> None:
        if self.ended is not None:
            return
        try:
            self.class_session.heartbeat(self.class_clock(), self.where())
            if self.exam is None:
                exam = self._exam_to_take()
                if exam is not None:
                    self.enter_exam(exam)
        except SessionEnded as ended:
            self.end_session(ended.reason)
        except ClassStoreError as error:  # the database is away for a moment: say so, keep going
            self.notify(str(error), severity="error", timeout=5)

    def enter_exam(self, exam) -> None:
        """The teacher opened a quiz: everything else closes, the exam is all there is."""
        from tui.screens.exam import ExamScreen

        self.exam = exam
        self.use_command_palette = False
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(ExamScreen(exam))  # over the home screen, which nothing can pop back to

    def end_session(self, reason: str) -> None:
        from tui.screens.session_ended import SessionEndedScreen

        self.ended = reason
        self.exam = self.exam or "ended"  # keeps lessons, pages and the palette shut
        self.use_command_palette = False
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(SessionEndedScreen(reason))
        self.set_timer(ENDED_EXIT_SECONDS, self.exit)


def _lang(argv: list[str]) -> str | None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--lang", choices=LANGUAGES)
    return parser.parse_known_args(argv)[0].lang


def main(argv: list[str] | None = None) -> int:
    from exercises.classdb.folder import open_class

    lang = _lang(sys.argv[1:] if argv is None else argv)
    token = os.environ.pop(TOKEN_ENV, "")
    class_dir = Path(os.environ.pop(CLASS_DIR_ENV, "."))
    db_url = os.environ.pop(CLASS_DB_ENV, "") or None
    store = open_class(class_dir, db_url)  # --db, else $OBJECTIVES_TUTOR_DB, else the folder's SQLite
    try:
        session = store.session(token)
    except SessionEnded:
        return 1
    if session.student.role == "teacher":
        from tui.screens.dashboard import DashboardApp

        app = DashboardApp(store, class_dir, lang=lang, teacher=session)
    else:
        app = ClassTutorApp(session, lang=lang)
    app.run()
    with contextlib.suppress(Exception):
        store.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(app.return_code or 0)  # as run_app: nothing left to wait for (see tui/app.py)


if __name__ == "__main__":
    raise SystemExit(main())
