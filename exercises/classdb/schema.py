"""The class database's tables, and how a database of an older version is brought
up to this one (in one transaction, under a lock: two servers starting at once
upgrade it once). A database written by a newer version is refused and left alone."""

from __future__ import annotations

from collections.abc import Sequence

from exercises.classdb.backends import Backend
from exercises.classdb.model import ClassStoreError
from exercises.text import L

SCHEMA_VERSION = 4

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
    # Sessions get a stable id (the token can be renewed under it: a new token at the exam's
    # start), sign-ins are counted per source too, and the class has settings of its own.
    4: (
        "ALTER TABLE sessions ADD COLUMN sid TEXT",
        "UPDATE sessions SET sid = token_hash",
        "CREATE UNIQUE INDEX sessions_by_sid ON sessions (sid)",
        "CREATE INDEX sign_in_log_by_source ON sign_in_log (source, at)",
        "CREATE TABLE class_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
}


def prepare(backend: Backend, create: bool) -> None:
    """Bring the database to SCHEMA_VERSION; ClassStoreError when it holds no class
    (and ``create`` is false) or was written by a newer version."""
    with backend.write(lock="schema") as tx:
        tx.run("CREATE TABLE IF NOT EXISTS class_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        row = tx.one("SELECT value FROM class_meta WHERE key = 'schema'")
        version = int(row[0]) if row and str(row[0]).isdigit() else 0
        if version > SCHEMA_VERSION:
            raise ClassStoreError(
                L(
                    f"{backend.where} was written by a newer objectives-tutor (schema {version} > {SCHEMA_VERSION}); left as it is",
                    f"{backend.where} 由更新版本的 objectives-tutor 写入（结构 {version} > {SCHEMA_VERSION}）；保持原样",
                )
            )
        if version == 0 and not create:
            raise ClassStoreError(
                L(
                    f"{backend.where} holds no class (make one with: objectives-tutor class init DIR --roster roster.csv --db URL)",
                    f"{backend.where} 里没有班级（先运行：objectives-tutor class init DIR --roster roster.csv --db URL）",
                )
            )
        for target in range(version + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[target]:
                kind, statement = statement if isinstance(statement, tuple) else (None, statement)
                if kind in (None, backend.kind):
                    tx.run(statement.replace("{serial}", backend.serial))
        if version < SCHEMA_VERSION:
            tx.run(
                "INSERT INTO class_meta (key, value) VALUES ('schema', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(SCHEMA_VERSION),),
            )
