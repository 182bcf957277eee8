"""The teacher's dashboard (``objectives-tutor class dashboard DIR``, or a teacher
signed in through the browser): who is signed in and where, each student's
progress, the quiz (open, or the last one closed: started / submitted / time
left), and below, one of three panels (``v`` switches): the misconceptions the
class is making right now (in practice and in the quiz's answers), the quiz's
score histograms (the class's and each question's), and failed sign-ins. The
teacher's actions: open, close, more or less time, release, gradebook, unlock a
student, end a student's session.

Everything shown is read from the class store every two seconds, with the clock
the app was given (tests inject one); the quiz is graded in a worker thread (the
engine), never on the event loop. The screen only renders and asks the store: the
rules (deadlines, extensions, grading) live in ``exercises/``. Everything that
comes from outside (ids, names, quiz titles, answers, addresses) is drawn as
plain text (rich Text cells, markup=False): a name like ``[@click=app.quit]`` is a
name."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, Static

from exercises.classroom.safe import plain
from exercises.grading.marks import full_marks
from exercises.text import pick
from tui.i18n import t

REFRESH_SECONDS = 2.0
GRADE_SECONDS = 10.0  # how often the quiz's answers are graded again (histograms, misconceptions)
LIVE_SECONDS = 30.0  # a session not heard from for this long shows as away
MISCONCEPTION_WINDOW = 15 * 60.0  # "right now": the last quarter of an hour
EXTEND_SECONDS = 5 * 60
PANELS = ("misconceptions", "histograms", "sign-ins")
DASHBOARD_KEYS = {
    "ask_open": "key-open-quiz",
    "close_quiz": "key-close-quiz",
    "extend": "key-extend",
    "shorten": "key-shorten",
    "release": "key-release",
    "export": "key-gradebook",
    "unlock": "key-unlock",
    "end_session": "key-end-session",
    "panel": "key-panel",
}
EXAM_STATUS_KEYS = {
    "not-started": "dash-exam-not-started",
    "in-progress": "dash-exam-in-progress",
    "submitted": "dash-exam-submitted",
    "time-up": "dash-exam-time-up",
    "quiz-closed": "dash-exam-quiz-closed",
}
SEEN_KEYS = {"quiz": "dash-seen-quiz", "practice": "dash-seen-practice"}
SCORE_EDGES = (0, 20, 40, 60, 80, 100)  # percent: five bins
BAR = 20  # cells of the longest histogram bar
ID_CELLS, NAME_CELLS, WHO_CELLS = (
    14,
    18,
    24,
)  # longer ids and names are cut with "…": the quiz's columns stay in view


@dataclass(frozen=True)
class StudentRow:
    student: str
    name: str
    signed_in: str  # "live", "away" or ""
    where: str
    solved: str
    exam: str  # Exam.status, or "" when the class has had no quiz
    left: float | None
    slowed: bool = False  # wrong PINs make this id's next sign-in wait


def _place(where: str) -> tuple[str, str]:
    """The heartbeat's "place|solved/total" (tui/classweb/student_app.py)."""
    place, _, solved = where.partition("|")
    return plain(place, 30), plain(solved, 12)


def class_rows(store, now: float) -> tuple[list[StudentRow], object, dict[str, int]]:
    """One row per roster student, the quiz shown (the open one, else the last one
    closed, else None) and its counts by exam status."""
    live = {entry.student.id: entry for entry in store.live_sessions(now)}
    quizzes = store.quizzes()
    quiz = quizzes[0] if quizzes else None
    exams = {exam.student: exam for exam in store.exams(quiz.quiz_id)} if quiz is not None else {}
    slowed = {entry.student for entry in store.sign_in_trouble(now) if entry.wait > 0}
    counts = {"started": 0, "submitted": 0}
    rows = []
    for student in store.students():
        if student.role != "student":
            continue
        session = live.get(student.id)
        place, solved = _place(session.where) if session is not None else ("", "")
        signed_in = "" if session is None else "live" if now - session.last_seen <= LIVE_SECONDS else "away"
        exam = exams.get(student.id)
        if exam is not None:
            status = exam.status(now)
        else:
            status = "" if quiz is None else "not-started" if quiz.is_open else "quiz-closed"
        if exam is not None and exam.started_at is not None:
            counts["started"] += 1
        if exam is not None and exam.submitted_at is not None:
            counts["submitted"] += 1
        left = exam.seconds_left(now) if exam is not None and status == "in-progress" else None
        rows.append(
            StudentRow(student.id, student.name, signed_in, place, solved, status, left, student.id in slowed)
        )
    return rows, quiz, counts


def _fit(text: str, cells: int) -> str:
    """At most ``cells`` terminal cells (a Chinese character takes two), "…" when cut:
    the table fits the screen instead of scrolling sideways."""
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) <= cells:
        return text
    return set_cell_size(text, cells - 1).rstrip() + "…"


def _cell(text: object, cells: int = 200) -> Text:
    """Outside text as a table cell: plain (no markup, no escape sequences), at most ``cells``."""
    return Text(_fit(plain(str(text), 400), cells))


def _clock_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def histogram_lines(counts: list[int], labels: list[str], width: int = BAR) -> Text:
    """One bar per bin, its label and count: ``80-100% ████████ 12``."""
    out = Text()
    top = max(counts, default=0) or 1
    for label, count in zip(labels, counts, strict=True):
        out.append(f"{label:>8} ")
        out.append("█" * round(width * count / top) if count else "", style="bold green")
        out.append(f" {count}\n", style="dim")
    return out


def histograms(grades, quiz, lang: str, width: int = 80) -> Text:
    """The class's score distribution and, beside it, each question's (how many
    students scored 0, something, or full marks on it)."""
    from exercises.classdb.grading import histogram
    from exercises.classroom.quiz import question_title

    if not grades:
        return Text(t("dash-no-grades", lang), style="dim")
    labels = [f"{low}-{high}%" for low, high in itertools.pairwise(SCORE_EDGES)]
    out = Text(t("dash-histogram-class", lang, count=len(grades)) + "\n", style="bold")
    out.append_text(histogram_lines(histogram([g.percent for g in grades], SCORE_EDGES), labels, BAR))
    bar = max(4, min(BAR, (width - 40) // 2))
    for index, exercise in enumerate(quiz.exercises):
        scores = [g.questions[index].score for g in grades if index < len(g.questions)]
        zero = sum(1 for s in scores if s <= 0)
        full = sum(1 for s in scores if full_marks(s))
        some = len(scores) - zero - full
        title = _fit(plain(pick(question_title(exercise), lang), 80), max(10, width - 8))
        out.append(f"{index + 1}. ", style="bold")
        out.append(title + "\n")
        for key, count, style in (
            ("dash-q-zero", zero, "red"),
            ("dash-q-some", some, "yellow"),
            ("dash-q-full", full, "green"),
        ):
            out.append(f"   {t(key, lang):<6}", style="dim")
            out.append("█" * round(bar * count / max(1, len(scores))), style=style)
            out.append(f" {count}  ", style="dim")
        out.append("\n")
    return out


class DashboardScreen(Screen):
    ACTION_KEYS = DASHBOARD_KEYS  # tui/bindings.py: this screen's own key labels
    DEFAULT_CSS = """
    DashboardScreen #quiz-line { padding: 0 1; color: $accent; height: auto; }
    DashboardScreen #students { height: 1fr; min-height: 6; }
    DashboardScreen #panel-title { padding: 0 1; color: $accent; }
    DashboardScreen #panel { height: 8; }
    DashboardScreen #histograms { height: 8; padding: 0 1; display: none; overflow-y: auto; }
    DashboardScreen.-histograms #panel { display: none; }
    DashboardScreen.-histograms #histograms { display: block; }
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
        Binding("minus", "shorten", "-5 min"),
        Binding("r", "release", "release"),
        Binding("g", "export", "gradebook"),
        Binding("u", "unlock", "unlock"),
        Binding("x", "end_session", "sign out"),
        Binding("v", "panel", "panel"),
        Binding("escape", "cancel", show=False),
    ]

    def __init__(self, store, class_dir: Path, clock: Callable[[], float]) -> None:
        super().__init__()
        self.store = store
        self.class_dir = Path(class_dir)
        self.clock = clock
        self.confirm: str | None = None  # "close" or "end:<id>": asked once, done on the second press
        self.rows: list[StudentRow] = []
        self.quiz = None
        self.panel = PANELS[0]
        self.grades: list = []  # the shown quiz's exams, graded (a worker keeps them fresh)
        self.graded_quiz: int | None = None
        self._memo: dict = {}
        self._graded_at = -GRADE_SECONDS

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(markup=False, id="quiz-line")
        yield DataTable(id="students", cursor_type="row", zebra_stripes=True)
        yield Static(markup=False, id="panel-title")
        yield DataTable(id="panel", cursor_type="row")
        yield Static(markup=False, id="histograms")
        yield Static(markup=False, id="dashboard-status")
        with Horizontal(id="path-row"):
            yield Label(id="path-label", markup=False)
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
        # the quiz's columns first: at 80 columns they never go off the right edge
        for key in ("dash-col-student", "dash-col-exam"):
            students.add_column(t(key, lang))
        students.add_column(t("dash-col-left", lang), key="left")
        for key in ("dash-col-name", "dash-col-where", "dash-col-solved"):
            students.add_column(t(key, lang))
        students.fixed_columns = 1  # the id stays when the table scrolls sideways
        self._panel_columns()
        self.query_one("#path-label", Label).update(t("dash-quiz-path", lang))

    def _panel_columns(self) -> None:
        lang = self.app.lang
        panel = self.query_one("#panel", DataTable)
        panel.clear(columns=True)
        if self.panel == "sign-ins":
            keys = ("dash-col-who", "dash-col-failures", "dash-col-source", "dash-col-wait")
            title = t("dash-sign-ins", lang)
        else:
            keys = (
                "dash-col-students",
                "dash-col-attempts",
                "dash-col-seen",
                "dash-col-exercise",
                "dash-col-misconception",
            )
            title = t("dash-misconceptions", lang, minutes=int(MISCONCEPTION_WINDOW // 60))
        if self.panel == "histograms":
            title = t("dash-histograms", lang)
        for key in keys:
            panel.add_column(t(key, lang))
        self.query_one("#panel-title", Static).update(title)
        self.set_class(self.panel == "histograms", "-histograms")

    def say(self, text: str) -> None:
        self.query_one("#dashboard-status", Static).update(Text(text))

    # -- reading -------------------------------------------------------------------

    def refresh_data(self) -> None:
        from exercises.classdb import ClassStoreError

        now = self.clock()
        try:
            rows, quiz, counts = class_rows(self.store, now)
            practice = self.store.recent_misconceptions(now - MISCONCEPTION_WINDOW)
            trouble = self.store.sign_in_trouble(now) if self.panel == "sign-ins" else []
        except ClassStoreError as error:
            self.say(pick(error.text, self.app.lang))
            return
        self.rows = rows
        self.quiz = quiz
        self._show_quiz(quiz, counts, len(rows))
        self._show_students(rows)
        if self.panel == "sign-ins":
            self._show_trouble(trouble)
        elif self.panel == "misconceptions":
            self._show_faults(practice)
        else:
            self._show_histograms()
        if quiz is not None and (now - self._graded_at >= GRADE_SECONDS or self.graded_quiz != quiz.quiz_id):
            self._graded_at = now
            self.run_worker(lambda: self._grade(quiz), thread=True, group="dash-grade", exclusive=True)

    def _grade(self, quiz) -> None:
        """In a worker thread: the quiz's exams graded as they stand (the engine runs here)."""
        from exercises.classdb.grading import live_grades

        try:
            grades = live_grades(self.store, quiz, self._memo)
        except Exception:  # a grading trouble never stops the dashboard: the panels wait for the next round
            return
        self.app.call_from_thread(self._graded, quiz.quiz_id, grades)

    def _graded(self, quiz_id: int, grades: list) -> None:
        self.grades, self.graded_quiz = grades, quiz_id
        if self.panel == "histograms":
            self._show_histograms()

    def _show_quiz(self, quiz, counts: dict[str, int], total: int) -> None:
        lang = self.app.lang
        if quiz is None:
            self.query_one("#quiz-line", Static).update(t("dash-no-quiz", lang))
            return
        limit = (
            t("dash-limit", lang, minutes=int(quiz.time_limit_seconds // 60))
            if quiz.time_limit_seconds
            else t("dash-no-limit", lang)
        )
        key = "dash-quiz" if quiz.is_open else "dash-quiz-closed"
        line = t(
            key,
            lang,
            name=plain(quiz.name, 60),
            started=counts["started"],
            submitted=counts["submitted"],
            total=total,
            limit=limit,
        )
        if quiz.released_at is not None:
            line += " · " + t("dash-results-released", lang)
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
            student = Text(f"{signed} ")
            student.append_text(_cell(row.student, ID_CELLS))
            if row.slowed:
                student.append(" ⚠", style="bold yellow")
            table.add_row(
                student,
                Text(exam),
                Text(_clock_text(row.left)),
                _cell(row.name, NAME_CELLS),
                _cell(where, 20),
                Text(row.solved),
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

    def _exam_faults(self) -> list[tuple[str, str, int, set[str]]]:
        """(exercise, code, answers, students) named in the quiz's graded answers."""
        found: dict[tuple[str, str], list] = {}
        for grade in self.grades:
            for question in grade.questions:
                for code in dict.fromkeys(question.diagnoses):
                    entry = found.setdefault((question.exercise, code), [0, set()])
                    entry[0] += 1
                    entry[1].add(grade.student)
        return [(exercise, code, n, who) for (exercise, code), (n, who) in found.items()]

    def _show_faults(self, practice) -> None:
        from exercises.classroom.quiz import question_title
        from exercises.grading.diagnoses import explain

        lang = self.app.lang
        rows = [(len(who), n, "quiz", exercise, code) for exercise, code, n, who in self._exam_faults()]
        rows += [(len(f.students), f.attempts, "practice", f.exercise, f.code) for f in practice]
        rows.sort(key=lambda r: (-r[0], -r[1], r[2], r[3], r[4]))
        table = self.query_one("#panel", DataTable)
        table.clear()
        width = max(20, self.size.width - 58)
        for students, attempts, seen, exercise, code in rows[:50]:
            table.add_row(
                Text(str(students)),
                Text(str(attempts)),
                Text(t(SEEN_KEYS[seen], lang)),
                _cell(pick(question_title(exercise), lang), 20),
                _cell(pick(explain(code), lang), width),
            )

    def _show_trouble(self, trouble) -> None:
        lang = self.app.lang
        table = self.query_one("#panel", DataTable)
        table.clear()
        for entry in trouble[:50]:
            wait = t("dash-wait", lang, seconds=int(entry.wait) + 1) if entry.wait > 0 else ""
            table.add_row(
                _cell(entry.who, WHO_CELLS),
                Text(str(entry.failures)),
                _cell(entry.last_source, 24),
                Text(wait),
            )

    def _show_histograms(self) -> None:
        target = self.query_one("#histograms", Static)
        if self.quiz is None:
            target.update(Text(t("dash-no-quiz", self.app.lang)))
            return
        try:
            quiz = self.quiz.quiz()
        except Exception:  # a quiz the database holds but this version cannot read
            return
        grades = self.grades if self.graded_quiz == self.quiz.quiz_id else []
        target.update(histograms(grades, quiz, self.app.lang, self.size.width))

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
        self.confirm = None
        self.say("")
        self.query_one("#students", DataTable).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        path = Path(event.value.strip()).expanduser()
        self.action_cancel()
        self.say(t("dash-opening", self.app.lang))
        self.run_worker(lambda: self._open(path), thread=True, group="dash-open", exclusive=True)

    def _open(self, path: Path) -> None:
        """In a worker thread: every student's questions are rendered (the engine runs)."""
        from exercises.classdb.teacher import open_quiz_file

        def opened() -> str:
            quiz = open_quiz_file(self.store, path, self.clock())
            return t("dash-opened", self.app.lang, name=plain(quiz.name, 60))

        self._in_thread(opened)

    def _in_thread(self, action: Callable[[], str]) -> None:
        """An action run in a worker thread; its message (or its error) shown on the screen's loop."""
        from exercises.classdb import ClassStoreError
        from exercises.classroom.quiz import ClassroomError

        try:
            message = action()
        except (ClassStoreError, ClassroomError) as error:
            message = pick(error.text, self.app.lang)
        except OSError as error:
            message = plain(error, 200)
        self.app.call_from_thread(self._done, message)

    def _done(self, message: str) -> None:
        self.say(message)
        self.refresh_data()

    def _confirmed(self, what: str, question: str) -> bool:
        """The first press asks, the second (of the same action) does it."""
        if self.confirm != what:
            self.confirm = what
            self.say(question)
            return False
        self.confirm = None
        return True

    def action_close_quiz(self) -> None:
        if not self._confirmed("close", t("dash-confirm-close", self.app.lang)):
            return

        def close() -> str:
            closed = self.store.close_quiz(self.clock())
            return t("dash-closed" if closed else "dash-no-quiz", self.app.lang)

        self._act(close)

    def _change_time(self, seconds: float) -> None:
        student = self.selected_student()
        if student is None:
            return

        def extend() -> str:
            total = self.store.extend_time(student, seconds, self.clock())
            return t("dash-extended", self.app.lang, student=plain(student, 40), minutes=f"{total / 60:+g}")

        self._act(extend)

    def action_extend(self) -> None:
        self._change_time(EXTEND_SECONDS)

    def action_shorten(self) -> None:
        self._change_time(-EXTEND_SECONDS)

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
        quiz = self._latest_quiz()
        if quiz is None:
            self.say(t("dash-no-quiz", self.app.lang))
            return
        self.say(t("dash-grading", self.app.lang))

        def export() -> str:
            from exercises.classdb.teacher import export_gradebook

            path = export_gradebook(self.store, self.class_dir, quiz)
            return t("dash-exported", self.app.lang, path=plain(path, 120))

        self.run_worker(lambda: self._in_thread(export), thread=True, group="dash-export", exclusive=True)

    def action_unlock(self) -> None:
        student = self.selected_student()
        if student is None:
            return

        def unlock() -> str:
            self.store.unlock(student, self.clock())
            return t("class-unlocked", self.app.lang, who=plain(student, 40))

        self._act(unlock)

    def action_end_session(self) -> None:
        student = self.selected_student()
        if student is None:
            return
        if not self._confirmed(
            f"end:{student}", t("dash-confirm-end", self.app.lang, student=plain(student, 40))
        ):
            return

        def end() -> str:
            count = self.store.end_sessions_of(student, self.clock())
            key = "class-session-ended-by-teacher" if count else "class-not-signed-in"
            return t(key, self.app.lang, student=plain(student, 40))

        self._act(end)

    def action_panel(self) -> None:
        self.panel = PANELS[(PANELS.index(self.panel) + 1) % len(PANELS)]
        self._panel_columns()
        self.refresh_data()


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
