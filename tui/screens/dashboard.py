"""The teacher's dashboard (``objectives-tutor class dashboard DIR``, or a teacher
signed in through the browser): who is signed in and where, each student's
progress, the open quiz (started / submitted / time left), the misconceptions
the class is making right now, and the teacher's actions on the quiz.

Everything shown is read from the class store every two seconds, with the clock
the app was given (tests inject one). The screen only renders and asks the store:
the rules (deadlines, extensions, grading) live in ``exercises/``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, Static

from exercises.classroom.safe import plain
from exercises.text import pick
from tui.i18n import t

REFRESH_SECONDS = 2.0
LIVE_SECONDS = 30.0  # a session not heard from for this long shows as away
MISCONCEPTION_WINDOW = 15 * 60.0  # "right now": the last quarter of an hour
EXTEND_SECONDS = 5 * 60
DASHBOARD_KEYS = {
    "ask_open": "key-open-quiz",
    "close_quiz": "key-close-quiz",
    "extend": "key-extend",
    "release": "key-release",
    "export": "key-gradebook",
}
EXAM_STATUS_KEYS = {
    "not-started": "dash-exam-not-started",
    "in-progress": "dash-exam-in-progress",
    "submitted": "dash-exam-submitted",
    "time-up": "dash-exam-time-up",
    "quiz-closed": "dash-exam-quiz-closed",
}


@dataclass(frozen=True)
class StudentRow:
    student: str
    name: str
    signed_in: str  # "live", "away" or ""
    where: str
    solved: str
    exam: str  # Exam.status, or "" when no quiz is open
    left: float | None


def _place(where: str) -> tuple[str, str]:
    """The heartbeat's "place|solved/total" (tui/classweb/student_app.py)."""
    place, _, solved = where.partition("|")
    return plain(place, 30), plain(solved, 12)


def class_rows(store, now: float) -> tuple[list[StudentRow], object, dict[str, int]]:
    """One row per roster student, the open quiz and its counts by exam status."""
    live = {entry.student.id: entry for entry in store.live_sessions(now)}
    quiz = store.current_quiz()
    exams = {exam.student: exam for exam in store.exams(quiz.quiz_id)} if quiz is not None else {}
    counts = {"started": 0, "submitted": 0}
    rows = []
    for student in store.students():
        if student.role != "student":
            continue
        session = live.get(student.id)
        place, solved = _place(session.where) if session is not None else ("", "")
        signed_in = "" if session is None else "live" if now - session.last_seen <= LIVE_SECONDS else "away"
        exam = exams.get(student.id)
        status = exam.status(now) if exam is not None else ("not-started" if quiz is not None else "")
        if exam is not None and exam.started_at is not None:
            counts["started"] += 1
        if exam is not None and exam.submitted_at is not None:
            counts["submitted"] += 1
        left = exam.seconds_left(now) if exam is not None and status == "in-progress" else None
        rows.append(StudentRow(student.id, student.name, signed_in, place, solved, status, left))
    return rows, quiz, counts


def _fit(text: str, cells: int) -> str:
    """At most ``cells`` terminal cells (a Chinese character takes two), "…" when cut:
    the table fits the screen instead of scrolling sideways."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) <= cells:
        return text
    return set_cell_size(text, cells - 1).rstrip() + "…"


def _clock_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


class DashboardScreen(Screen):
    ACTION_KEYS = DASHBOARD_KEYS  # tui/bindings.py: this screen's own key labels
    DEFAULT_CSS = """
    DashboardScreen #quiz-line { padding: 0 1; color: $accent; height: auto; }
    DashboardScreen #students { height: 1fr; }
    DashboardScreen #misconceptions-title { padding: 0 1; color: $accent; }
    DashboardScreen #misconceptions { height: 8; }
    DashboardScreen #dashboard-status { padding: 0 1; color: $warning; height: auto; }
    DashboardScreen #path-row { height: 1; display: none; }
    DashboardScreen #path-row.-asking { display: block; }
    DashboardScreen #path-row Label { padding: 0 1; }
    DashboardScreen #quiz-path { border: none; height: 1; padding: 0 1; width: 1fr; background: $boost; }
    """
    BINDINGS = [
        Binding("o", "ask_open", "open quiz"),
        Binding("c", "close_quiz", "close quiz"),
        Binding("plus,e", "extend", "+5 min"),
        Binding("r", "release", "release"),
        Binding("g", "export", "gradebook"),
        Binding("escape", "cancel", show=False),
    ]

    def __init__(self, store, class_dir: Path, clock: Callable[[], float]) -> None:
        super().__init__()
        self.store = store
        self.class_dir = Path(class_dir)
        self.clock = clock
        self.confirm_close = False
        self.rows: list[StudentRow] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(markup=False, id="quiz-line")
        yield DataTable(id="students", cursor_type="row", zebra_stripes=True)
        yield Static(markup=False, id="misconceptions-title")
        yield DataTable(id="misconceptions", cursor_type="row")
        yield Static(markup=False, id="dashboard-status")
        with Horizontal(id="path-row"):
            yield Label(id="path-label")
            yield Input(id="quiz-path")
        yield Footer()

    def on_mount(self) -> None:
        self.localise()
        self.refresh_data()
        self.set_interval(REFRESH_SECONDS, self.refresh_data)
        self.query_one("#students", DataTable).focus()

    def localise(self) -> None:
        from tui.bindings import localise_bindings

        lang = self.app.lang
        localise_bindings(self, lang)
        localise_bindings(self.app, lang)
        self.app.title = t("dash-title", lang)
        students = self.query_one("#students", DataTable)
        students.clear(columns=True)
        for key in (
            "dash-col-student",
            "dash-col-name",
            "dash-col-where",
            "dash-col-solved",
            "dash-col-exam",
        ):
            students.add_column(t(key, lang))
        students.add_column(t("dash-col-left", lang), key="left")
        faults = self.query_one("#misconceptions", DataTable)
        faults.clear(columns=True)
        for key in ("dash-col-students", "dash-col-attempts", "dash-col-exercise", "dash-col-misconception"):
            faults.add_column(t(key, lang))
        self.query_one("#misconceptions-title", Static).update(
            t("dash-misconceptions", lang, minutes=int(MISCONCEPTION_WINDOW // 60))
        )
        self.query_one("#path-label", Label).update(t("dash-quiz-path", lang))

    def say(self, text: str) -> None:
        self.query_one("#dashboard-status", Static).update(text)

    # -- reading -------------------------------------------------------------------

    def refresh_data(self) -> None:
        from exercises.classdb import ClassStoreError

        now = self.clock()
        try:
            rows, quiz, counts = class_rows(self.store, now)
            faults = self.store.recent_misconceptions(now - MISCONCEPTION_WINDOW)
        except ClassStoreError as error:
            self.say(pick(error.text, self.app.lang))
            return
        self.rows = rows
        self.quiz = quiz
        self._show_quiz(quiz, counts, len(rows))
        self._show_students(rows)
        self._show_faults(faults)

    def _show_quiz(self, quiz, counts: dict[str, int], total: int) -> None:
        lang = self.app.lang
        if quiz is None:
            line = t("dash-no-quiz", lang)
        else:
            limit = (
                t("dash-limit", lang, minutes=int(quiz.time_limit_seconds // 60))
                if quiz.time_limit_seconds
                else t("dash-no-limit", lang)
            )
            line = t(
                "dash-quiz",
                lang,
                name=plain(quiz.name, 60),
                started=counts["started"],
                submitted=counts["submitted"],
                total=total,
                limit=limit,
            )
        self.query_one("#quiz-line", Static).update(line)

    def _show_students(self, rows: list[StudentRow]) -> None:
        lang = self.app.lang
        table = self.query_one("#students", DataTable)
        keep = table.cursor_row
        table.clear()
        for row in rows:
            where = self._place_name(row.where, lang)
            signed = {"live": "●", "away": "○"}.get(row.signed_in, " ")
            exam = t(EXAM_STATUS_KEYS[row.exam], lang) if row.exam in EXAM_STATUS_KEYS else ""
            table.add_row(
                f"{signed} {plain(row.student, 24)}",
                plain(row.name, 24),
                where,
                row.solved,
                exam,
                _clock_text(row.left),
                key=row.student,
            )
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1), animate=False)

    @staticmethod
    def _place_name(place: str, lang: str) -> str:
        """The place a heartbeat names (exam, home or a lesson id) as the teacher reads it."""
        from exercises.curriculum import BY_ID

        if place in ("exam", "home"):
            return t("dash-in-exam" if place == "exam" else "dash-home", lang)
        objective = BY_ID.get(place)
        return plain(pick(objective.title, lang), 24) if objective is not None else place

    def _show_faults(self, faults) -> None:
        from exercises.catalogue import get
        from exercises.grading.diagnoses import explain

        lang = self.app.lang
        table = self.query_one("#misconceptions", DataTable)
        table.clear()
        for fault in faults[:50]:
            try:
                title = pick(get(fault.exercise).title, lang)
            except KeyError:
                title = fault.exercise
            table.add_row(
                str(len(fault.students)),
                str(fault.attempts),
                _fit(plain(title, 60), 24),
                _fit(plain(pick(explain(fault.code), lang), 300), max(20, self.size.width - 52)),
            )

    # -- the teacher's actions -------------------------------------------------------

    def selected_student(self) -> str | None:
        table = self.query_one("#students", DataTable)
        if not self.rows or table.cursor_row < 0:
            return None
        return self.rows[min(table.cursor_row, len(self.rows) - 1)].student

    def _act(self, action: Callable[[], str]) -> None:
        from exercises.classdb import ClassStoreError
        from exercises.classroom.quiz import ClassroomError

        try:
            self.say(action())
        except (ClassStoreError, ClassroomError) as error:
            self.say(pick(error.text, self.app.lang))
        except OSError as error:
            self.say(plain(error, 200))
        self.refresh_data()

    def action_ask_open(self) -> None:
        row = self.query_one("#path-row")
        row.add_class("-asking")
        self.query_one("#quiz-path", Input).focus()

    def action_cancel(self) -> None:
        self.query_one("#path-row").remove_class("-asking")
        self.confirm_close = False
        self.say("")
        self.query_one("#students", DataTable).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = Path(event.value.strip()).expanduser()
        self.action_cancel()
        self._act(lambda: self._open(path))

    def _open(self, path: Path) -> str:
        from tui.commands.class_serve import open_quiz_file

        opened = open_quiz_file(self.store, path, self.clock())
        return t("dash-opened", self.app.lang, name=plain(opened.name, 60))

    def action_close_quiz(self) -> None:
        if not self.confirm_close:
            self.confirm_close = True
            self.say(t("dash-confirm-close", self.app.lang))
            return
        self.confirm_close = False

        def close() -> str:
            closed = self.store.close_quiz(self.clock())
            return t("dash-closed" if closed else "dash-no-quiz", self.app.lang)

        self._act(close)

    def action_extend(self) -> None:
        student = self.selected_student()
        if student is None:
            return

        def extend() -> str:
            total = self.store.extend_time(student, EXTEND_SECONDS)
            return t("dash-extended", self.app.lang, student=plain(student, 40), minutes=int(total // 60))

        self._act(extend)

    def _latest_quiz(self):
        quizzes = self.store.quizzes()
        return quizzes[0] if quizzes else None

    def action_release(self) -> None:
        def release() -> str:
            quiz = self._latest_quiz()
            if quiz is None:
                return t("dash-no-quiz", self.app.lang)
            self.store.release_results(quiz.quiz_id, self.clock())
            return t("dash-released", self.app.lang, name=plain(quiz.name, 60))

        self._act(release)

    def action_export(self) -> None:
        def export() -> str:
            from tui.commands.class_serve import export_gradebook

            quiz = self._latest_quiz()
            if quiz is None:
                return t("dash-no-quiz", self.app.lang)
            path = export_gradebook(self.store, self.class_dir, quiz)
            return t("dash-exported", self.app.lang, path=plain(path, 120))

        self._act(export)


class DashboardApp(App[None]):
    """The dashboard on its own (the command), or for a teacher signed in through the
    browser (then ``teacher`` is that session, kept alive by a heartbeat)."""

    TITLE = "objectives-tutor"
    BINDINGS = [
        Binding("ctrl+q", "quit", "quit", priority=True),
        Binding("ctrl+l", "toggle_language", "中文/English"),
    ]
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        store,
        class_dir: Path | None = None,
        lang: str | None = None,
        teacher=None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        from tui.i18n import detect_language

        super().__init__()
        self.store = store
        self.class_dir = Path(class_dir) if class_dir is not None else Path(".")
        self.lang = lang or detect_language()
        self.teacher = teacher
        self.class_clock = clock

    def get_default_screen(self) -> Screen:
        return DashboardScreen(self.store, self.class_dir, self.class_clock)

    def on_mount(self) -> None:
        if self.teacher is not None:
            self.set_interval(2.0, self._beat)

    def _beat(self) -> None:
        from exercises.classdb import SessionEnded

        try:
            self.teacher.heartbeat(self.class_clock(), "dashboard")
        except SessionEnded:
            self.exit()

    def action_toggle_language(self) -> None:
        self.lang = "en" if self.lang == "zh" else "zh"
        self.screen.say("")  # the last message was in the other language
        self.screen.localise()
        self.screen.refresh_data()
