"""The app process of one signed-in browser tab (``python -m tui.classweb.student_app``).

The server starts it with the session token in the environment; it opens that
session, takes the token out of its environment (nothing it starts, such as the
code lab's sandbox, inherits it) and runs:
- for a student, the tutor on their own progress, settings, review and history
  (``StudentSession.learner_store()``); when a quiz is open, the exam only;
- for a teacher, the dashboard.

A student's process opens its session only (exercises.classdb.sessions.
open_student_session): no ClassStore, nothing of the teacher's side.

Every few seconds the session's heartbeat tells the dashboard where the student
is, notices a quiz the teacher opened or closed and results the teacher released,
and learns when the session was ended (signed in elsewhere, ended by the teacher,
expired): then the app says so and ends."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from textual.binding import Binding

from exercises.classdb import ClassStoreError, ExamClosed, SessionEnded
from tui.app import TutorApp
from tui.classweb.server import CLASS_DB_ENV, CLASS_DIR_ENV, TOKEN_ENV
from tui.i18n import LANGUAGES, t

HEARTBEAT_SECONDS = 2.0
RESULTS_EVERY = 5  # heartbeats between two looks for newly released results (10 s)
ENDED_EXIT_SECONDS = 8.0  # the ended message stays this long, then the process ends
SEEN_SETTING = "class-results-seen"  # the quizzes whose results this student was shown


class ClassTutorApp(TutorApp):
    """The tutor bound to one class session."""

    CSS_PATH = Path(__file__).parent.parent / "app.tcss"  # the tutor's own (Textual resolves it per subclass)
    BINDINGS = [Binding("f6", "quiz_results", "quiz results")]
    ACTION_KEYS = {"quiz_results": "key-quiz-results"}

    def __init__(
        self,
        session,
        lang: str | None = None,
        clock: Callable[[], float] = time.time,
        load_engine: bool = True,
        still: bool = False,
        class_dir: Path | None = None,
    ) -> None:
        """``class_dir``: the class folder on this host (its training slots); the training
        lab trains only when the class's setting says so (tui/classweb/training.py)."""
        from tui.classweb.training import SLOTS_DIR, TrainingGate

        self.class_session = session
        self.class_clock = clock
        self.ended: str | None = None
        self.results_ready: list = []  # (OpenQuiz, Exam) whose results this student may see
        self._beats = 0
        slots = (
            Path(class_dir) / SLOTS_DIR if class_dir is not None else Path(session.where).parent / SLOTS_DIR
        )
        self.training_gate = TrainingGate(session.class_settings(), slots)
        exam = self._exam_to_take()
        # An exam shows questions rendered when the quiz opened: no engine, no torch.
        super().__init__(
            lang=lang,
            load_engine=load_engine and (exam is None or not exam.rendered),
            still=still,
            store=session.learner_store(),
            exam=exam,
        )
        # A steady cursor in a served session: a blinking one repaints its box twice a
        # second in every open tab, and a class of idle exams kept the server's cores busy
        # (benchmarks/class_server.py: idle_cores_all_sessions).
        self.cursor_blink = False

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
        if self.exam is not None:
            self.renew_token()
        self.set_interval(HEARTBEAT_SECONDS, self.beat)
        self.beat()
        self.look_for_results()

    def renew_token(self) -> None:
        """The exam starts: ask the server for a new token for this browser (a token taken
        before the exam opens nothing in it). A meta packet to textual-serve's process
        manager; the server renews and hands the page a one-time code for the cookie."""
        write_meta = getattr(self._driver, "write_meta", None)
        if write_meta is not None:
            write_meta({"type": "class-renew"})

    def look_for_results(self) -> None:
        """Results released (or shown at once) since this student last saw them open by
        themselves, over the tutor (never over a running exam)."""
        try:
            self.results_ready = self.class_session.results()
        except (SessionEnded, ClassStoreError):
            return
        self.refresh_bindings()
        if self.ended is not None or not self.results_ready:
            return
        if self.exam is not None:  # the exam handed in, its results held: released now?
            from tui.screens.exam import ExamScreen

            shown = getattr(self.exam, "quiz_id", None)
            if isinstance(self.screen, ExamScreen) and any(q.quiz_id == shown for q, _ in self.results_ready):
                self.screen.show_released()
            return
        seen = set(self.progress.setting(SEEN_SETTING).split(",")) - {""}
        quiz, exam = self.results_ready[0]
        if str(quiz.quiz_id) not in seen:
            self.progress.set(SEEN_SETTING, ",".join(sorted(seen | {str(quiz.quiz_id)})))
            self.show_results(quiz, exam)

    def show_results(self, quiz, exam) -> None:
        from tui.classweb.exam_adapter import PastExam
        from tui.screens.exam import ExamScreen

        if (
            isinstance(self.screen, ExamScreen)
            and getattr(self.screen.session, "quiz_id", None) == quiz.quiz_id
        ):
            return
        self.push_screen(ExamScreen(PastExam(quiz, exam)))

    def action_quiz_results(self) -> None:
        if self.results_ready and self.exam is None:
            self.show_results(*self.results_ready[0])

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "quiz_results":
            return bool(self.results_ready) and self.exam is None and self.ended is None
        return super().check_action(action, parameters)

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
            if self.exam is None or self._handed_in():  # a quiz opened (a new one after the last)
                exam = self._exam_to_take()
                if exam is not None and exam.quiz_id != getattr(self.exam, "quiz_id", None):
                    self.enter_exam(exam)
            self._beats += 1
            if self._beats % RESULTS_EVERY == 0 or self._results_due():
                self.look_for_results()
        except SessionEnded as ended:
            self.end_session(ended.reason)
        except ClassStoreError as error:  # the database is away for a moment: say so, keep going
            self.notify(str(error), severity="error", timeout=5)

    def _handed_in(self) -> bool:
        exam = self.exam
        return exam is not None and exam != "ended" and exam.submitted_at is not None

    def _results_due(self) -> bool:
        """A handed-in exam on screen whose results are held: look every beat (release is
        what the student waits for)."""
        exam = self.exam
        return exam is not None and exam != "ended" and exam.submitted_at is not None

    def enter_exam(self, exam) -> None:
        """The teacher opened a quiz: everything else closes, the exam is all there is."""
        from tui.screens.exam import ExamScreen

        self.exam = exam
        self.use_command_palette = False
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(ExamScreen(exam))  # over the home screen, which nothing can pop back to
        self.renew_token()

    def _handle_exception(self, error: Exception) -> None:
        """A session that ended (signed in elsewhere, ended by the teacher, expired) while a
        keystroke or a timer used the store is an expected event: the ended screen and one
        log line, not a crash with a traceback on the server's console."""
        if isinstance(error, SessionEnded):
            if self.ended is None:
                self.log.warning(f"session ended: {error.reason}")
                self.end_session(error.reason)
            return
        super()._handle_exception(error)

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
    from exercises.classdb.folder import database_url
    from exercises.classdb.sessions import open_student_session
    from tui.classweb.lifeline import end_with_parent, parent_from_environment

    server = parent_from_environment()  # set when the server started this process itself (--cold)
    if server is not None and not end_with_parent(server):
        return 1
    lang = _lang(sys.argv[1:] if argv is None else argv)
    token = os.environ.pop(TOKEN_ENV, "")
    class_dir = Path(os.environ.pop(CLASS_DIR_ENV, "."))
    db_url = database_url(class_dir, os.environ.pop(CLASS_DB_ENV, "") or None)
    try:
        session = open_student_session(class_dir, db_url, token, time.time())
    except (SessionEnded, ClassStoreError):
        return 1
    opened = session
    if session.student.role == "teacher":  # the dashboard needs the teacher's side of the store
        from exercises.classdb.folder import open_class
        from tui.screens.dashboard import DashboardApp

        session.close()
        opened = open_class(class_dir, db_url)
        app = DashboardApp(opened, class_dir, lang=lang, teacher=opened.session(token, time.time()))
    else:
        from tui.classweb.training import private_home

        private_home(class_dir, session.student.id)  # every file the session writes: this student's own
        app = ClassTutorApp(session, lang=lang, class_dir=class_dir)
    app.run()
    with contextlib.suppress(Exception):
        opened.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(app.return_code or 0)  # as run_app: nothing left to wait for (see tui/app.py)


if __name__ == "__main__":
    raise SystemExit(main())
