"""One database for a class: the roster and its hashed PINs, sign-ins (failures
logged, rate-limited per id), one live session per student, each student's
learner state (attempts, settings), and quizzes taken on the server with the
server's clock. SQLite or PostgreSQL behind the same methods (backends.py).

Trust: a student's process only ever holds a StudentSession. No method of it
takes a student id, so it can read and write that student's rows and no others.
The clock is always a ``now`` argument (tests inject it; the server passes
time.time()); nothing a browser says about time is used."""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import time
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from exercises.classdb.backends import DB_FILE, Backend, PostgresBackend, SQLiteBackend, Tx
from exercises.classdb.model import (
    GRACE_SECONDS,
    MAX_ANSWER,
    MAX_KEY,
    MAX_WHERE,
    RATE_LIMIT_FAILURES,
    RATE_LIMIT_WINDOW,
    ROLES,
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
    dumps,
    split_key,
)
from exercises.classdb.pins import SCRYPT_N, check_pin, hash_pins, loggable, typed_id
from exercises.learner.store import Attempt
from exercises.text import L, cannot

SCHEMA_VERSION = 3
MAX_TOKEN = 200
MAX_EXTENSION = 24 * 3600.0

# Version N-1 -> N, in order, in one transaction. {serial} is the backend's auto-numbered key;
# a (backend kind, statement) pair is run on that backend only.
MIGRATIONS: dict[int, Sequence[str | tuple[str, str]]] = {
    1: (
        """CREATE TABLE students (
            id TEXT PRIMARY KEY,
            id_fold TEXT NOT NULL,          -- NFKC + casefold: what a typed id is matched on
            name TEXT NOT NULL,
            role TEXT NOT NULL,
            pin_hash TEXT NOT NULL,
            position INTEGER NOT NULL,      -- roster order
            added_at DOUBLE PRECISION NOT NULL
        )""",
        "CREATE INDEX students_by_fold ON students (id_fold)",
        """CREATE TABLE sign_in_log (
            id {serial},
            who TEXT NOT NULL,              -- the matched student's id, else the id as typed
            student TEXT,                   -- NULL when no such student
            source TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            outcome TEXT NOT NULL
        )""",
        "CREATE INDEX sign_in_log_by_who ON sign_in_log (who, at)",
        """CREATE TABLE sessions (
            token_hash TEXT PRIMARY KEY,
            student TEXT NOT NULL REFERENCES students (id),
            source TEXT NOT NULL,
            started_at DOUBLE PRECISION NOT NULL,
            last_seen DOUBLE PRECISION NOT NULL,
            place TEXT NOT NULL,
            ended_at DOUBLE PRECISION,
            ended_reason TEXT
        )""",
        "CREATE UNIQUE INDEX one_live_session ON sessions (student) WHERE ended_at IS NULL",
        """CREATE TABLE attempts (
            id {serial},
            student TEXT NOT NULL REFERENCES students (id),
            exercise TEXT NOT NULL,
            objective TEXT NOT NULL,
            seed BIGINT NOT NULL,
            answer TEXT NOT NULL,
            score DOUBLE PRECISION,
            valid INTEGER NOT NULL,
            graded INTEGER NOT NULL,
            correct INTEGER NOT NULL,
            diagnoses TEXT NOT NULL,
            hints_used INTEGER NOT NULL,
            seconds DOUBLE PRECISION NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            app_version TEXT NOT NULL,
            reset_at DOUBLE PRECISION       -- set by reset(): kept, no longer counted
        )""",
        "CREATE INDEX attempts_by_student ON attempts (student, at)",
        "CREATE INDEX attempts_by_time ON attempts (at)",
        """CREATE TABLE settings (
            student TEXT NOT NULL REFERENCES students (id),
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (student, key)
        )""",
        """CREATE TABLE quizzes (
            id {serial},
            quiz_key TEXT NOT NULL,         -- the quiz file's own id
            name TEXT NOT NULL,
            body TEXT NOT NULL,             -- the TOML as opened
            opened_at DOUBLE PRECISION NOT NULL,
            closed_at DOUBLE PRECISION,
            released_at DOUBLE PRECISION,
            time_limit DOUBLE PRECISION,
            closes_at DOUBLE PRECISION,
            results TEXT NOT NULL
        )""",
        """CREATE TABLE questions (
            quiz BIGINT NOT NULL REFERENCES quizzes (id),
            student TEXT NOT NULL REFERENCES students (id),
            idx INTEGER NOT NULL,
            exercise TEXT NOT NULL,
            seed BIGINT NOT NULL,
            variant TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            PRIMARY KEY (quiz, student, idx)
        )""",
        """CREATE TABLE exams (
            quiz BIGINT NOT NULL REFERENCES quizzes (id),
            student TEXT NOT NULL REFERENCES students (id),
            started_at DOUBLE PRECISION,
            submitted_at DOUBLE PRECISION,
            extension DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (quiz, student)
        )""",
        """CREATE TABLE answers (
            quiz BIGINT NOT NULL,
            student TEXT NOT NULL,
            key TEXT NOT NULL,
            body TEXT NOT NULL,
            saved_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (quiz, student, key),
            FOREIGN KEY (quiz, student) REFERENCES exams (quiz, student)
        )""",
        """CREATE TABLE answer_log (
            id {serial},
            quiz BIGINT NOT NULL,
            student TEXT NOT NULL,
            key TEXT NOT NULL,
            length INTEGER NOT NULL,
            at DOUBLE PRECISION NOT NULL
        )""",
        "CREATE INDEX answer_log_by_exam ON answer_log (quiz, student)",
    ),
    # What an attempt answered (exercises.learner.store's version 2): an exercise, or a
    # prediction made on a live figure. Rows of version 1 were all exercises.
    2: ("ALTER TABLE attempts ADD COLUMN kind TEXT NOT NULL DEFAULT 'exercise'",),
    # SQLite: a save is one statement (StudentSession.save_answer), its log written by triggers.
    3: tuple(
        (
            "sqlite",
            f"CREATE TRIGGER answer_logged_on_{event.lower()} AFTER {event} ON answers BEGIN "
            "INSERT INTO answer_log (quiz, student, key, length, at) "
            "VALUES (NEW.quiz, NEW.student, NEW.key, length(NEW.body), NEW.saved_at); END",
        )
        for event in ("INSERT", "UPDATE")
    ),
}


def open_class_store(
    class_dir: Path, db_url: str | None = None, *, create: bool = False, pin_cost: int = SCRYPT_N
) -> ClassStore:
    """The class's store: SQLite in ``class_dir/class.db`` unless ``db_url`` is a
    ``postgresql://`` URL. ``create`` makes an empty class; without it, a folder or
    database holding no class is a ClassStoreError (one line, both languages)."""
    if db_url:
        if not db_url.startswith(("postgresql://", "postgres://")):
            raise ClassStoreError(
                L(
                    "--db must be a postgresql://user:password@host/database URL",
                    "--db 必须是 postgresql://用户:密码@主机/数据库 形式的 URL",
                )
            )
        backend: Backend = PostgresBackend(db_url)
    else:
        folder = Path(class_dir)
        path = folder / DB_FILE
        if not create and not path.is_file():
            raise ClassStoreError(
                L(
                    f"{folder} holds no class (make one with: objectives-tutor class init {folder} --roster roster.csv)",
                    f"{folder} 里没有班级（先运行：objectives-tutor class init {folder} --roster roster.csv）",
                )
            )
        if create:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ClassStoreError(cannot("make", folder, error)) from None
        backend = SQLiteBackend(path)
    store = ClassStore(backend, pin_cost=pin_cost)
    try:
        store._prepare(create)
    except BaseException:
        backend.close()
        raise
    return store


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _fold(student_id: str) -> str:
    return unicodedata.normalize("NFKC", student_id).casefold()


def _finite(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"not a time: {value!r}"[:60])
    return float(value)


def _storable(text: str) -> str:
    """Text any backend keeps as it is: no NUL (PostgreSQL refuses it), no lone surrogates."""
    return text.replace("\x00", "").encode("utf-8", "backslashreplace").decode("utf-8")


class ClassStore:
    """The teacher's and the server's side of the class database."""

    def __init__(self, backend: Backend, pin_cost: int = SCRYPT_N) -> None:
        self.backend = backend
        self.pin_cost = pin_cost

    @property
    def kind(self) -> str:
        return self.backend.kind

    @property
    def where(self) -> str:
        return self.backend.where

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> ClassStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ----------------------------------------------------------------

    def _prepare(self, create: bool) -> None:
        with self.backend.write(lock="schema") as tx:
            tx.run("CREATE TABLE IF NOT EXISTS class_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            row = tx.one("SELECT value FROM class_meta WHERE key = 'schema'")
            version = int(row[0]) if row and str(row[0]).isdigit() else 0
            if version > SCHEMA_VERSION:
                raise ClassStoreError(
                    L(
                        f"{self.where} was written by a newer objectives-tutor (schema {version} > {SCHEMA_VERSION}); left as it is",
                        f"{self.where} 由更新版本的 objectives-tutor 写入（结构 {version} > {SCHEMA_VERSION}）；保持原样",
                    )
                )
            if version == 0 and not create:
                raise ClassStoreError(
                    L(
                        f"{self.where} holds no class (make one with: objectives-tutor class init DIR --roster roster.csv --db URL)",
                        f"{self.where} 里没有班级（先运行：objectives-tutor class init DIR --roster roster.csv --db URL）",
                    )
                )
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[target]:
                    kind, statement = statement if isinstance(statement, tuple) else (None, statement)
                    if kind in (None, self.backend.kind):
                        tx.run(statement.replace("{serial}", self.backend.serial))
            if version < SCHEMA_VERSION:
                tx.run(
                    "INSERT INTO class_meta (key, value) VALUES ('schema', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(SCHEMA_VERSION),),
                )

    # -- roster ----------------------------------------------------------------

    def add_student(self, student: Student, pin: str, now: float | None = None) -> None:
        self.add_students([(student, pin)], now)

    def add_students(self, entries: Iterable[tuple[Student, str]], now: float | None = None) -> int:
        """Add students with their PINs (hashed here) in one transaction; ClassStoreError
        for an id already in the class or a bad role. Returns how many were added."""
        from exercises.classroom.identity import RosterError, check_student_id

        now = time.time() if now is None else now
        rows = []
        for student, pin in entries:
            try:
                check_student_id(student.id)
            except RosterError as error:
                raise ClassStoreError(error.text) from None
            if student.role not in ROLES:
                raise ClassStoreError(L(f"unknown role {student.role!r}", f"未知的角色 {student.role!r}"))
            rows.append((student, pin))
        with self.backend.read() as tx:  # said before minutes of PIN hashing, checked again below
            self._refuse_known(tx, [student for student, _ in rows])
        rows = [
            (student, digest)
            for (student, _), digest in zip(rows, hash_pins([p for _, p in rows], self.pin_cost), strict=True)
        ]
        with self.backend.write(lock="roster") as tx:
            position = tx.one("SELECT COALESCE(MAX(position), 0) FROM students")[0]
            self._refuse_known(tx, [student for student, _ in rows])
            tx.many(
                "INSERT INTO students (id, id_fold, name, role, pin_hash, position, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (s.id, _fold(s.id), _storable(s.name), s.role, h, position + n, now)
                    for n, (s, h) in enumerate(rows, start=1)
                ],
            )
        return len(rows)

    @staticmethod
    def _refuse_known(tx: Tx, students: Sequence[Student]) -> None:
        """ClassStoreError for an id twice in ``students`` or already in the class."""
        known = {row[0] for row in tx.all("SELECT id FROM students")}
        for student in students:
            if student.id in known:
                raise ClassStoreError(
                    L(f"student id {student.id!r} is already in the class", f"学号 {student.id!r} 已在班级中")
                )
            known.add(student.id)

    def students(self) -> list[Student]:
        with self.backend.read() as tx:
            rows = tx.all("SELECT id, name, role FROM students ORDER BY position")
        return [Student(*row) for row in rows]

    def student(self, student_id: str) -> Student | None:
        with self.backend.read() as tx:
            row = tx.one("SELECT id, name, role FROM students WHERE id = ?", (student_id,))
        return Student(*row) if row else None

    def find_student(self, typed: object) -> Student | None:
        """The roster student an id typed by a person means (as sign-in matches it)."""
        value = typed_id(typed)
        if not value:
            return None
        with self.backend.read() as tx:
            match = self._match(tx, value)
        return match[0] if match else None

    # -- signing in ----------------------------------------------------------

    def _match(self, tx: Tx, typed: str) -> tuple[Student, str] | None:
        """The roster student a typed id means: exactly, else the one id equal up to
        case and full-width forms (never a guess between two)."""
        row = tx.one("SELECT id, name, role, pin_hash FROM students WHERE id = ?", (typed,))
        if row is None:
            rows = tx.all("SELECT id, name, role, pin_hash FROM students WHERE id_fold = ?", (_fold(typed),))
            row = rows[0] if len(rows) == 1 else None
        return (Student(row[0], row[1], row[2]), row[3]) if row else None

    def _recent_failures(self, tx: Tx, who: str, now: float) -> int:
        last_ok = tx.one(
            "SELECT MAX(at) FROM sign_in_log WHERE who = ? AND outcome = 'ok'",
            (who,),
        )[0]
        since = max(now - RATE_LIMIT_WINDOW, last_ok if last_ok is not None else -math.inf)
        return tx.one(
            "SELECT COUNT(*) FROM sign_in_log WHERE who = ? AND at > ? AND at <= ? "
            "AND outcome IN ('unknown', 'bad-pin')",
            (who, since, now),
        )[0]

    def sign_in(self, student_id: object, pin: object, now: float, source: object = "") -> SignIn:
        """Check an id and PIN as typed. Never raises on what was typed: an id that
        cannot be one is "unknown", a PIN that cannot be one is "bad-pin". Every
        failure is logged (id as typed, source, time); RATE_LIMIT_FAILURES failures for
        one id within RATE_LIMIT_WINDOW seconds lock that id until they age out, known
        or not. An unknown id costs one PIN check, like a known one."""
        now = _finite(now)
        typed = typed_id(student_id)
        where = loggable(source, 100)
        with self.backend.write(lock="sign-in") as tx:  # count and log at once: parallel guesses count too
            match = self._match(tx, typed) if typed else None
            who = match[0].id if match else (typed or loggable(student_id))
            if self._recent_failures(tx, who, now) >= RATE_LIMIT_FAILURES:
                tx.run(
                    "INSERT INTO sign_in_log (who, student, source, at, outcome) VALUES (?, ?, ?, ?, ?)",
                    (who, match[0].id if match else None, where, now, "rate-limited"),
                )
                return SignIn(False, None, "rate-limited")
            entry = tx.one(  # a failure until the PIN proves otherwise
                "INSERT INTO sign_in_log (who, student, source, at, outcome) VALUES (?, ?, ?, ?, ?) RETURNING id",
                (who, match[0].id if match else None, where, now, "unknown" if match is None else "bad-pin"),
            )[0]
        good = check_pin(pin if isinstance(pin, str) else "", match[1] if match else None, self.pin_cost)
        if match is None:
            return SignIn(False, None, "unknown")
        if not good:
            return SignIn(False, None, "bad-pin")
        with self.backend.write() as tx:
            tx.run("UPDATE sign_in_log SET outcome = 'ok' WHERE id = ?", (entry,))
        return SignIn(True, match[0], "ok")

    def failed_sign_ins(self, since: float) -> list[tuple[str, str, float, str]]:
        """(id as typed or matched, source, time, reason) of every failure since ``since``."""
        with self.backend.read() as tx:
            return [
                tuple(row)
                for row in tx.all(
                    "SELECT who, source, at, outcome FROM sign_in_log WHERE at >= ? AND outcome <> 'ok' "
                    "ORDER BY at, id",
                    (since,),
                )
            ]

    # -- sessions --------------------------------------------------------------

    def start_session(self, student_id: str, now: float, source: str = "") -> str:
        """A new session token for a signed-in student; the student's older live
        session ends with "signed-in-elsewhere" (one live session per student)."""
        now = _finite(now)
        token = secrets.token_urlsafe(32)
        with self.backend.write(lock=f"student:{student_id}") as tx:
            if not tx.one("SELECT 1 FROM students WHERE id = ?", (student_id,)):
                raise ClassStoreError(L(f"no student {student_id!r}", f"没有学生 {student_id!r}"))
            tx.run(
                "UPDATE sessions SET ended_at = ?, ended_reason = 'signed-in-elsewhere' "
                "WHERE student = ? AND ended_at IS NULL",
                (now, student_id),
            )
            tx.run(
                "INSERT INTO sessions (token_hash, student, source, started_at, last_seen, place) "
                "VALUES (?, ?, ?, ?, ?, '')",
                (_token_hash(token), student_id, loggable(source, 100), now, now),
            )
        return token

    def session(self, token: object) -> StudentSession:
        """The live session behind a token; SessionEnded(reason) when it ended or never was."""
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN or not token.isascii():
            raise SessionEnded("unknown")
        token_hash = _token_hash(token)
        with self.backend.read() as tx:
            row = tx.one(
                "SELECT s.id, s.name, s.role, x.ended_reason, x.ended_at FROM sessions x "
                "JOIN students s ON s.id = x.student WHERE x.token_hash = ?",
                (token_hash,),
            )
        if row is None:
            raise SessionEnded("unknown")
        if row[4] is not None:
            raise SessionEnded(row[3] or "signed-out")
        return StudentSession(self, token_hash, Student(row[0], row[1], row[2]))

    def end_session(self, token: str, now: float, reason: str = "signed-out") -> None:
        if not isinstance(token, str) or len(token) > MAX_TOKEN:
            return
        with self.backend.write() as tx:
            tx.run(
                "UPDATE sessions SET ended_at = ?, ended_reason = ? WHERE token_hash = ? AND ended_at IS NULL",
                (_finite(now), reason, _token_hash(token)),
            )

    def live_sessions(self, now: float) -> list[LiveSession]:
        """Every live session, in roster order (the dashboard's "who is signed in")."""
        with self.backend.read() as tx:
            rows = tx.all(
                "SELECT s.id, s.name, s.role, x.started_at, x.last_seen, x.place FROM sessions x "
                "JOIN students s ON s.id = x.student WHERE x.ended_at IS NULL ORDER BY s.position"
            )
        return [LiveSession(Student(r[0], r[1], r[2]), r[3], r[4], r[5]) for r in rows]

    # -- quizzes ---------------------------------------------------------------

    def open_quiz(
        self,
        quiz_text: str,
        now: float,
        name: str = "",
        questions: Mapping[str, Sequence[ExamQuestion]] | None = None,
    ) -> OpenQuiz:
        """Open a quiz (its TOML) for the class, with each student's questions as rendered
        (exercises.classdb.render); ClassStoreError when one is already open or the text
        is not a quiz. The quiz's time limit runs from each student's first open."""
        from exercises.classroom.quiz import ClassroomError, loads

        now = _finite(now)
        try:
            quiz = loads(quiz_text)
        except ClassroomError as error:
            raise ClassStoreError(error.text) from None
        with self.backend.write(lock="quiz") as tx:
            current = tx.one("SELECT id, name FROM quizzes WHERE closed_at IS NULL")
            if current:
                raise ClassStoreError(
                    L(
                        f"quiz {current[1]!r} is still open: close it first (class quiz close)",
                        f"测验 {current[1]!r} 仍在进行：请先关闭（class quiz close）",
                    )
                )
            limit = None if quiz.time_limit_minutes is None else 60.0 * quiz.time_limit_minutes
            row = tx.one(
                "INSERT INTO quizzes (quiz_key, name, body, opened_at, time_limit, closes_at, results) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (quiz.id, _storable(name or quiz.title), quiz_text, now, limit, quiz.closes_at, quiz.results),
            )
            quiz_id = int(row[0])
            known = {r[0] for r in tx.all("SELECT id FROM students")}
            tx.many(
                "INSERT INTO questions (quiz, student, idx, exercise, seed, variant, fingerprint) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (quiz_id, student, q.index, q.exercise, q.seed, dumps(q.variant), q.fingerprint)
                    for student, rendered in (questions or {}).items()
                    if student in known
                    for q in rendered
                ],
            )
        return self._quiz(quiz_id)

    def add_questions(self, quiz_id: int, questions: Mapping[str, Sequence[ExamQuestion]]) -> int:
        """Store rendered questions for students who had none (added to the class while the
        quiz was open); a student's questions once stored never change. Returns how many students."""
        with self.backend.write(lock="quiz") as tx:
            known = {r[0] for r in tx.all("SELECT id FROM students")}
            have = {r[0] for r in tx.all("SELECT DISTINCT student FROM questions WHERE quiz = ?", (quiz_id,))}
            fresh = {student: rendered for student, rendered in questions.items() if student in known - have}
            tx.many(
                "INSERT INTO questions (quiz, student, idx, exercise, seed, variant, fingerprint) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (quiz_id, student, q.index, q.exercise, q.seed, dumps(q.variant), q.fingerprint)
                    for student, rendered in fresh.items()
                    for q in rendered
                ],
            )
        return len(fresh)

    def close_quiz(self, now: float) -> OpenQuiz | None:
        """Close the open quiz (saves and submits are refused from ``now`` on); None if none was open."""
        with self.backend.write(lock="quiz") as tx:
            row = tx.one("SELECT id FROM quizzes WHERE closed_at IS NULL")
            if row is None:
                return None
            tx.run("UPDATE quizzes SET closed_at = ? WHERE id = ?", (_finite(now), row[0]))
        return self._quiz(int(row[0]))

    def current_quiz(self) -> OpenQuiz | None:
        with self.backend.read() as tx:
            return _current_quiz(tx)

    def quizzes(self) -> list[OpenQuiz]:
        """Every quiz ever opened, the latest first."""
        with self.backend.read() as tx:
            return [_quiz_row(r) for r in tx.all(f"SELECT {QUIZ_COLUMNS} FROM quizzes ORDER BY id DESC")]

    def _quiz(self, quiz_id: int) -> OpenQuiz | None:
        with self.backend.read() as tx:
            row = tx.one(f"SELECT {QUIZ_COLUMNS} FROM quizzes WHERE id = ?", (quiz_id,))
        return _quiz_row(row) if row else None

    def extend_time(self, student_id: str, seconds: float) -> float:
        """Give one student more (or, negative, less) time in the open quiz; returns
        their extension in total. Works before they start and after their time ran out
        (not after they submitted: a submitted exam stays submitted)."""
        seconds = _finite(seconds)
        if abs(seconds) > MAX_EXTENSION:
            raise ClassStoreError(L("an extension is at most one day", "延长时间最多一天"))
        with self.backend.write(lock=f"student:{student_id}") as tx:
            quiz = _current_quiz(tx)
            if quiz is None:
                raise ClassStoreError(L("no quiz is open", "当前没有开放的测验"))
            if not tx.one("SELECT 1 FROM students WHERE id = ?", (student_id,)):
                raise ClassStoreError(L(f"no student {student_id!r}", f"没有学生 {student_id!r}"))
            tx.run(
                "INSERT INTO exams (quiz, student, started_at, submitted_at, extension) "
                "VALUES (?, ?, NULL, NULL, 0) ON CONFLICT (quiz, student) DO NOTHING",
                (quiz.quiz_id, student_id),
            )
            tx.run(
                "UPDATE exams SET extension = MAX(0, extension + ?) WHERE quiz = ? AND student = ?"
                if self.backend.kind == "sqlite"
                else "UPDATE exams SET extension = GREATEST(0, extension + ?) WHERE quiz = ? AND student = ?",
                (seconds, quiz.quiz_id, student_id),
            )
            return float(
                tx.one(
                    "SELECT extension FROM exams WHERE quiz = ? AND student = ?", (quiz.quiz_id, student_id)
                )[0]
            )

    def release_results(self, quiz_id: int, now: float) -> OpenQuiz:
        with self.backend.write(lock="quiz") as tx:
            if (
                tx.run("UPDATE quizzes SET released_at = ? WHERE id = ?", (_finite(now), quiz_id)).rowcount
                == 0
            ):
                raise ClassStoreError(L(f"no quiz number {quiz_id}", f"没有编号为 {quiz_id} 的测验"))
        return self._quiz(quiz_id)

    def exams(self, quiz_id: int) -> list[Exam]:
        """Every exam of a quiz with its answers (no questions), in roster order."""
        with self.backend.read() as tx:
            quiz_row = tx.one(f"SELECT {QUIZ_COLUMNS} FROM quizzes WHERE id = ?", (quiz_id,))
            if quiz_row is None:
                return []
            quiz = _quiz_row(quiz_row)
            rows = tx.all(
                "SELECT e.student, e.started_at, e.submitted_at, e.extension FROM exams e "
                "JOIN students s ON s.id = e.student WHERE e.quiz = ? ORDER BY s.position",
                (quiz_id,),
            )
            answers: dict[str, dict[str, tuple[str, float]]] = {}
            for student, key, body, saved in tx.all(
                "SELECT student, key, body, saved_at FROM answers WHERE quiz = ?", (quiz_id,)
            ):
                answers.setdefault(student, {})[key] = (body, saved)
        return [_exam(quiz, row, answers.get(row[0], {}), ()) for row in rows]

    def questions(self, quiz_id: int, student_id: str) -> tuple[ExamQuestion, ...]:
        with self.backend.read() as tx:
            return _questions(tx, quiz_id, student_id)

    def answer_log(self, quiz_id: int, student_id: str) -> list[tuple[str, int, float]]:
        """(key, length, time) of every save, in order: the exam's timeline."""
        with self.backend.read() as tx:
            return [
                tuple(r)
                for r in tx.all(
                    "SELECT key, length, at FROM answer_log WHERE quiz = ? AND student = ? ORDER BY id",
                    (quiz_id, student_id),
                )
            ]

    # -- the class right now -----------------------------------------------------

    def recent_misconceptions(self, since: float) -> list[MisconceptionCount]:
        """Misconceptions named in attempts since ``since``: per (exercise, code), how
        many attempts and which students; the most frequent first."""
        with self.backend.read() as tx:
            rows = tx.all(
                "SELECT student, exercise, diagnoses FROM attempts WHERE at >= ? AND reset_at IS NULL",
                (_finite(since),),
            )
        counts: dict[tuple[str, str], list] = {}
        for student, exercise, diagnoses in rows:
            try:
                codes = json.loads(diagnoses)
            except ValueError:
                continue
            for code in dict.fromkeys(c for c in codes if isinstance(c, str)):
                entry = counts.setdefault((exercise, code), [0, {}])
                entry[0] += 1
                entry[1][student] = None
        found = [MisconceptionCount(e, c, n, tuple(who)) for (e, c), (n, who) in counts.items()]
        return sorted(found, key=lambda m: (-len(m.students), -m.attempts, m.exercise, m.code))

    def progress(self, student_id: str) -> list[Attempt]:
        """One student's attempts (the dashboard's view; the student's own is learner_store())."""
        with self.backend.read() as tx:
            return _attempts(tx, student_id)


# -- rows to records --------------------------------------------------------------

QUIZ_COLUMNS = "id, name, body, opened_at, closed_at, released_at, time_limit, closes_at, results"


def _quiz_row(row: tuple) -> OpenQuiz:
    return OpenQuiz(int(row[0]), row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8])


def _current_quiz(tx: Tx) -> OpenQuiz | None:
    row = tx.one(f"SELECT {QUIZ_COLUMNS} FROM quizzes WHERE closed_at IS NULL ORDER BY id DESC")
    return _quiz_row(row) if row else None


def _questions(tx: Tx, quiz_id: int, student_id: str) -> tuple[ExamQuestion, ...]:
    rows = tx.all(
        "SELECT idx, exercise, seed, variant, fingerprint FROM questions WHERE quiz = ? AND student = ? "
        "ORDER BY idx",
        (quiz_id, student_id),
    )
    return tuple(ExamQuestion(r[0], r[1], int(r[2]), json.loads(r[3]), r[4]) for r in rows)


def _deadline(quiz: OpenQuiz, started_at: float | None, extension: float) -> float | None:
    ends = []
    if started_at is not None and quiz.time_limit_seconds is not None:
        ends.append(started_at + quiz.time_limit_seconds + extension)
    if quiz.closes_at is not None:
        ends.append(quiz.closes_at + extension)
    return min(ends) if ends else None


def _exam(
    quiz: OpenQuiz, row: tuple, answers: Mapping[str, tuple[str, float]], questions: tuple[ExamQuestion, ...]
) -> Exam:
    student, started, submitted, extension = row
    return Exam(
        quiz.quiz_id,
        student,
        started,
        submitted,
        float(extension),
        _deadline(quiz, started, float(extension)),
        quiz.closed_at,
        quiz.released_at is not None,
        {key: body for key, (body, _) in answers.items()},
        {key: saved for key, (_, saved) in answers.items()},
        questions,
    )


def _attempts(tx: Tx, student_id: str) -> list[Attempt]:
    rows = tx.all(
        "SELECT exercise, objective, seed, answer, score, valid, graded, correct, diagnoses, hints_used, "
        "seconds, at, app_version, kind FROM attempts WHERE student = ? AND reset_at IS NULL ORDER BY at, id",
        (student_id,),
    )
    return [
        Attempt(
            exercise=r[0],
            objective=r[1],
            seed=int(r[2]),
            answer=json.loads(r[3]),
            score=r[4],
            valid=bool(r[5]),
            graded=bool(r[6]),
            correct=bool(r[7]),
            diagnoses=json.loads(r[8]),
            hints_used=r[9],
            seconds=r[10],
            at=r[11],
            app_version=r[12],
            kind=r[13],
        )
        for r in rows
    ]


# -- saving an answer -----------------------------------------------------------------

_QUIZ_FIELDS = ", ".join("q." + column for column in QUIZ_COLUMNS.split(", "))
_SAVE_STATE = (
    "SELECT x.ended_at, x.ended_reason, e.started_at, e.submitted_at, e.extension, "
    "(SELECT COUNT(*) FROM questions k WHERE k.quiz = q.id AND k.student = x.student) AS n, "
    f"(SELECT COUNT(*) FROM quizzes) AS quizzes, {_QUIZ_FIELDS}, x.student AS who "
    "FROM sessions x LEFT JOIN quizzes q ON q.closed_at IS NULL "
    "LEFT JOIN exams e ON e.quiz = q.id AND e.student = x.student "
    "WHERE x.token_hash = ? ORDER BY q.id DESC LIMIT 1"
)
WRITABLE_SQL = _SAVE_STATE
# The deadline of _deadline(), in SQL: start + limit + extension, or the quiz's closing time +
# extension if earlier, NULL when there is neither.
_DEADLINE = (
    "(CASE WHEN time_limit IS NULL THEN closes_at + extension "
    "WHEN closes_at IS NULL OR started_at + time_limit < closes_at THEN started_at + time_limit + extension "
    "ELSE closes_at + extension END)"
)
# The rules of _save_allowed, over a _SAVE_STATE row (parameters: now, grace, question number).
_MAY_SAVE = (
    "ended_at IS NULL AND id IS NOT NULL AND started_at IS NOT NULL AND submitted_at IS NULL "
    f"AND ({_DEADLINE} IS NULL OR ? <= {_DEADLINE} + ?) AND (n = 0 OR ? < n)"
)
_UPSERT = "ON CONFLICT (quiz, student, key) DO UPDATE SET body = excluded.body, saved_at = excluded.saved_at"
# SQLite: one statement (the write lock is held inside it only); the log rows come from triggers.
SQLITE_SAVE_SQL = (
    f"INSERT INTO answers (quiz, student, key, body, saved_at) SELECT id, who, ?, ?, ? "
    f"FROM ({_SAVE_STATE}) AS s WHERE {_MAY_SAVE} {_UPSERT}"
)
# PostgreSQL (data-modifying WITH): the same, and the log row, in one statement.
POSTGRES_SAVE_SQL = f"""
WITH s AS ({_SAVE_STATE}),
ok AS (SELECT id AS quiz, who AS student FROM s WHERE {_MAY_SAVE}),
saved AS (
    INSERT INTO answers (quiz, student, key, body, saved_at) SELECT quiz, student, ?, ?, ? FROM ok {_UPSERT}
    RETURNING 1
),
logged AS (
    INSERT INTO answer_log (quiz, student, key, length, at) SELECT quiz, student, ?, ?, ? FROM ok RETURNING 1
)
SELECT s.*, (SELECT COUNT(*) FROM saved) + 0 * (SELECT COUNT(*) FROM logged) FROM s
"""


def _save_allowed(row: tuple | None, now: float) -> tuple[OpenQuiz, int | None]:
    """The one statement of the save rules, read from a _SAVE_STATE row: (the open quiz,
    the number of questions rendered or None), else SessionEnded / ExamClosed."""
    if row is None:
        raise SessionEnded("unknown")
    if row[0] is not None:
        raise SessionEnded(row[1] or "signed-out")
    started, submitted, extension, count, quizzes = row[2:7]
    if row[7] is None:
        raise ExamClosed("quiz-closed" if quizzes else "no-quiz")
    quiz = _quiz_row(row[7:16])
    if submitted is not None:
        raise ExamClosed("submitted")
    if started is None:
        raise ExamClosed("not-started")
    deadline = _deadline(quiz, started, float(extension))
    if deadline is not None and now > deadline + GRACE_SECONDS:
        raise ExamClosed("time-up")
    return quiz, (int(count) or None)


# -- a student's side ---------------------------------------------------------------


class StudentSession:
    """All a signed-in student's process gets: this student's rows, nobody else's.
    Every write checks, in its own transaction, that the session is still live."""

    def __init__(self, store: ClassStore, token_hash: str, student: Student) -> None:
        self._store = store
        self._token_hash = token_hash
        self.student = student

    def __repr__(self) -> str:
        return f"StudentSession({self.student.id!r})"

    def _live(self, tx: Tx) -> None:
        row = tx.one("SELECT ended_at, ended_reason FROM sessions WHERE token_hash = ?", (self._token_hash,))
        if row is None:
            raise SessionEnded("unknown")
        if row[0] is not None:
            raise SessionEnded(row[1] or "signed-out")

    def is_live(self) -> bool:
        try:
            with self._store.backend.read() as tx:
                self._live(tx)
        except SessionEnded:
            return False
        return True

    def heartbeat(self, now: float, where: str = "") -> None:
        """Say where the student is (lesson, screen) for the dashboard; SessionEnded when
        this session is over (another sign-in of the same student ended it)."""
        with self._store.backend.write() as tx:
            self._live(tx)
            tx.run(
                "UPDATE sessions SET last_seen = ?, place = ? WHERE token_hash = ?",
                (_finite(now), loggable(where, MAX_WHERE), self._token_hash),
            )

    def sign_out(self, now: float) -> None:
        with self._store.backend.write() as tx:
            tx.run(
                "UPDATE sessions SET ended_at = ?, ended_reason = 'signed-out' "
                "WHERE token_hash = ? AND ended_at IS NULL",
                (_finite(now), self._token_hash),
            )

    def learner_store(self) -> ClassLearnerStore:
        return ClassLearnerStore(self)

    # -- the exam --------------------------------------------------------------

    def current_quiz(self) -> OpenQuiz | None:
        with self._store.backend.read() as tx:
            self._live(tx)
            return _current_quiz(tx)

    def _exam(self, tx: Tx, quiz: OpenQuiz) -> Exam:
        row = tx.one(
            "SELECT student, started_at, submitted_at, extension FROM exams WHERE quiz = ? AND student = ?",
            (quiz.quiz_id, self.student.id),
        ) or (self.student.id, None, None, 0.0)
        answers = {
            key: (body, saved)
            for key, body, saved in tx.all(
                "SELECT key, body, saved_at FROM answers WHERE quiz = ? AND student = ?",
                (quiz.quiz_id, self.student.id),
            )
        }
        return _exam(quiz, row, answers, _questions(tx, quiz.quiz_id, self.student.id))

    def exam(self, quiz_id: int | None = None) -> Exam | None:
        """This student's exam in the open quiz (or quiz ``quiz_id``: results of an
        earlier one); None when there is no such quiz. ``started_at`` None: not begun."""
        with self._store.backend.read() as tx:
            self._live(tx)
            if quiz_id is None:
                quiz = _current_quiz(tx)
            else:
                row = tx.one(f"SELECT {QUIZ_COLUMNS} FROM quizzes WHERE id = ?", (quiz_id,))
                quiz = _quiz_row(row) if row else None
            return self._exam(tx, quiz) if quiz else None

    def start_exam(self, now: float) -> Exam:
        """Open the exam; the first call records the server's start time, later calls
        (a reload, a dropped connection) change nothing. ExamClosed("no-quiz") when none is open."""
        now = _finite(now)
        with self._store.backend.write(lock=f"student:{self.student.id}") as tx:
            self._live(tx)
            quiz = _current_quiz(tx)
            if quiz is None:
                raise ExamClosed("no-quiz")
            tx.run(
                "INSERT INTO exams (quiz, student, started_at, submitted_at, extension) "
                "VALUES (?, ?, ?, NULL, 0) ON CONFLICT (quiz, student) DO NOTHING",
                (quiz.quiz_id, self.student.id, now),
            )
            tx.run(  # the teacher may have given extra time before the student began
                "UPDATE exams SET started_at = ? WHERE quiz = ? AND student = ? AND started_at IS NULL",
                (now, quiz.quiz_id, self.student.id),
            )
            return self._exam(tx, quiz)

    def _writable(self, tx: Tx, now: float) -> tuple[OpenQuiz, int | None]:
        """The open quiz when this session may still save in it (and how many questions
        were rendered for this student, None if none were); SessionEnded or ExamClosed
        with the reason otherwise. One query: it runs on every save."""
        row = tx.one(WRITABLE_SQL, (self._token_hash,))
        return _save_allowed(row, now)

    def save_answer(self, key: str, text: str, now: float) -> None:
        """Save one answer box (key: model.answer_key(question, part)) as typed, and log the
        save, atomically. ExamClosed after submitting, past the deadline (plus GRACE_SECONDS),
        once the quiz is closed, or for a box the exam does not have.

        One statement on either database: the rules are checked in SQL as it writes, so
        SQLite's single write lock is held only inside that statement and PostgreSQL needs
        one round trip (five otherwise; with a process per student on a busy machine each
        waited for a CPU: benchmarks/class_server.py). When nothing was saved, the reason
        is read back and raised."""
        now = _finite(now)
        split = split_key(key) if isinstance(key, str) and len(key) <= MAX_KEY else None
        if split is None or not isinstance(text, str):
            raise ExamClosed("bad-key")
        body, key = _storable(text[:MAX_ANSWER]), _storable(key)
        backend = self._store.backend
        if backend.kind == "postgresql":
            with backend.statement() as tx:
                row = tx.one(
                    POSTGRES_SAVE_SQL,
                    (self._token_hash, now, GRACE_SECONDS, split[0], key, body, now, key, len(body), now),
                )
            if row is not None and row[-1]:
                return
            _save_allowed(row[:-1] if row is not None else None, now)  # raises the reason, if any
        else:
            if backend.write_statement(
                SQLITE_SAVE_SQL, (key, body, now, self._token_hash, now, GRACE_SECONDS, split[0])
            ):
                return
            with backend.read() as tx:
                self._writable(tx, now)  # raises the reason, if any
        raise ExamClosed("bad-key")  # every rule but the box's number allowed it

    def submit(self, now: float) -> Exam:
        """Hand the exam in (a second submit changes nothing). ExamClosed("time-up") past
        the deadline plus grace: the answers saved until then are what gets graded."""
        now = _finite(now)
        with self._store.backend.write(lock=f"student:{self.student.id}") as tx:
            self._live(tx)
            quiz = _current_quiz(tx)
            if quiz is not None:
                done = self._exam(tx, quiz)
                if done.submitted_at is not None:
                    return done
            self._writable(tx, now)
            tx.run(
                "UPDATE exams SET submitted_at = ? WHERE quiz = ? AND student = ? AND submitted_at IS NULL",
                (now, quiz.quiz_id, self.student.id),
            )
            return self._exam(tx, quiz)


class ClassLearnerStore:
    """exercises.learner.store.ProgressStore's methods for one signed-in student, so the
    app runs unchanged on the class database. Like ProgressStore it never raises:
    when the session ended or the database failed, writes return False, reads return
    empty, and ``notices`` says why in one line."""

    def __init__(self, session: StudentSession) -> None:
        self._session = session
        self._backend = session._store.backend
        self.home = Path(session._store.where)
        self.path = self.home
        self.notices: list[str] = []
        self.saving = True
        self.ended: str | None = None  # the SessionEnded reason, once seen

    def _fail(self, error: Exception) -> None:
        if isinstance(error, SessionEnded):
            self.ended = error.reason
            message = f"this session ended ({error.reason}); nothing more is saved here"
        else:
            message = f"progress cannot be saved in the class database ({error}); working without saving"
        if self.saving:
            self.notices.append(message)
        self.saving = False

    def record(self, attempt: Attempt) -> bool:
        try:
            with self._backend.write() as tx:
                self._session._live(tx)
                tx.run(
                    "INSERT INTO attempts (student, exercise, objective, seed, answer, score, valid, graded, "
                    "correct, diagnoses, hints_used, seconds, at, app_version, kind) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        self._session.student.id,
                        _storable(attempt.exercise),
                        _storable(attempt.objective),
                        int(attempt.seed),
                        _storable(json.dumps(attempt.answer, ensure_ascii=False)),
                        attempt.score,
                        int(attempt.valid),
                        int(attempt.graded),
                        int(attempt.correct),
                        json.dumps(list(attempt.diagnoses)),
                        int(attempt.hints_used),
                        float(attempt.seconds),
                        float(attempt.at),
                        _storable(attempt.app_version),
                        _storable(getattr(attempt, "kind", "exercise")),
                    ),
                )
        except (SessionEnded, ClassStoreError) as error:
            self._fail(error)
            return False
        return True

    def set_setting(self, key: str, value: str) -> bool:
        try:
            with self._backend.write() as tx:
                self._session._live(tx)
                tx.run(
                    "INSERT INTO settings (student, key, value) VALUES (?, ?, ?) "
                    "ON CONFLICT (student, key) DO UPDATE SET value = excluded.value",
                    (self._session.student.id, _storable(key), _storable(value)),
                )
        except (SessionEnded, ClassStoreError) as error:
            self._fail(error)
            return False
        return True

    def attempts(self) -> list[Attempt]:
        try:
            with self._backend.read() as tx:
                self._session._live(tx)
                return _attempts(tx, self._session.student.id)
        except (SessionEnded, ClassStoreError) as error:
            self._fail(error)
            return []

    def settings(self) -> dict[str, str]:
        try:
            with self._backend.read() as tx:
                self._session._live(tx)
                rows = tx.all(
                    "SELECT key, value FROM settings WHERE student = ?", (self._session.student.id,)
                )
        except (SessionEnded, ClassStoreError) as error:
            self._fail(error)
            return {}
        return dict(rows)

    def reset(self) -> Path | None:
        """Start over: this student's attempts are kept in the database, marked as reset."""
        try:
            with self._backend.write() as tx:
                self._session._live(tx)
                tx.run(
                    "UPDATE attempts SET reset_at = ? WHERE student = ? AND reset_at IS NULL",
                    (time.time(), self._session.student.id),
                )
        except (SessionEnded, ClassStoreError) as error:
            self._fail(error)
        return None

    def close(self) -> None:
        """The class store is shared by the server's sessions: closing one student's view closes nothing."""
