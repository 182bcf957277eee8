"""The learner's progress, kept safely in SQLite.

One file, ``progress.db``, in the platformdirs user-data directory (or
``$OBJECTIVES_TUTOR_HOME``). WAL mode, one transaction per attempt, synchronous
writes: an attempt reported as saved survives a killed process, and two app
instances can write at once. A file that is not a database, or that a newer
version wrote, is moved aside under a timestamped name and reported, never
overwritten or deleted. When nothing can be written (read-only directory, full
disk) the store says so once and the app goes on without saving.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

SCHEMA_VERSION = 2
FILE_NAME = "progress.db"
BUSY_TIMEOUT_S = 10.0
# What a reset erases: the learner's work. ``lab_runs`` is the code lab's (exercises.lab.record
# creates it in this file on the first check). Settings are preferences and stay.
WORK_TABLES = ("attempts", "lab_runs")

# Migrations from version N-1 to N, applied in order inside one transaction.
MIGRATIONS: dict[int, Sequence[str]] = {
    1: (
        """CREATE TABLE attempts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            exercise TEXT NOT NULL,
            objective TEXT NOT NULL,
            seed INTEGER NOT NULL,
            answer TEXT NOT NULL,          -- JSON: part -> text
            score REAL,                    -- NULL: not auto-graded (reflection, unmarked)
            valid INTEGER NOT NULL,
            graded INTEGER NOT NULL,
            correct INTEGER NOT NULL,
            diagnoses TEXT NOT NULL,       -- JSON list of codes
            hints_used INTEGER NOT NULL,
            seconds REAL NOT NULL,
            at REAL NOT NULL,              -- unix time
            app_version TEXT NOT NULL
        )""",
        "CREATE INDEX attempts_by_exercise ON attempts (exercise, at)",
        "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
    # h3 (issue 11): what an attempt answered. Rows of version 1 were all exercises.
    2: ("ALTER TABLE attempts ADD COLUMN kind TEXT NOT NULL DEFAULT 'exercise'",),
}
# An attempt at an exercise, or a prediction made on a live figure before it showed
# the engine's answer (counts toward a lesson's progress, never toward mastery or review).
EXERCISE, PREDICTION = "exercise", "prediction"


def default_home() -> Path:
    """Where progress lives: $OBJECTIVES_TUTOR_HOME, else the user-data directory."""
    override = os.environ.get("OBJECTIVES_TUTOR_HOME")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_path

    return user_data_path("objectives-tutor", appauthor=False)


def app_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("objectives-tutor")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


@dataclass(frozen=True)
class Notice:
    """A one-line report for the learner, as a key of ``tui.i18n.MESSAGES`` and its
    parameters: the store decides what happened, the interface says it in zh or en."""

    key: str
    params: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Attempt:
    exercise: str
    objective: str
    seed: int
    answer: dict[str, str]
    score: float | None
    valid: bool
    graded: bool
    correct: bool
    diagnoses: list[str] = field(default_factory=list)
    hints_used: int = 0
    seconds: float = 0.0
    at: float = field(default_factory=time.time)
    app_version: str = field(default_factory=app_version)
    kind: str = EXERCISE


class ProgressStore:
    """All reads and writes of progress. Every method is safe to call when the
    store could not be opened: writes then return False and reads return empty."""

    def __init__(self, home: Path | None = None) -> None:
        self.home = Path(home) if home is not None else default_home()
        self.path = self.home / FILE_NAME
        self.notices: list[Notice] = []  # one-line reports for the learner
        self.saving = True
        self._db: sqlite3.Connection | None = None
        self._open()

    # -- opening ---------------------------------------------------------

    def _open(self) -> None:
        """Connect, retrying while another process holds the lock. SQLite does not call
        its busy handler for every step of opening (switching a new file to WAL can
        answer "database is locked" at once), so two apps started together would
        otherwise race; the retries stop at the same timeout a write waits for."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        try:
            self.home.mkdir(parents=True, exist_ok=True)
            while True:
                try:
                    self._db = self._connect()
                    return
                except sqlite3.OperationalError as error:
                    if "locked" not in str(error) or time.monotonic() > deadline:
                        raise
                    time.sleep(0.01)
        except (OSError, sqlite3.Error) as error:
            self._unavailable(error)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the header: fails if corrupt
        except sqlite3.DatabaseError as error:
            db.close()
            if "locked" in str(error) or "readonly" in str(error):
                raise
            self._move_aside("store-unreadable", error=str(error))
            return self._connect()
        if version > SCHEMA_VERSION:
            db.close()
            self._move_aside("store-newer", version=version, supported=SCHEMA_VERSION)
            return self._connect()
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            self._migrate(db, version)
        except sqlite3.Error:  # locked by another process: _open tries again on a new connection
            db.close()
            raise
        return db

    def _migrate(self, db: sqlite3.Connection, version: int) -> None:
        if version == SCHEMA_VERSION:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            current = db.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
            for target in range(current + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[target]:
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {int(target)}")
            db.execute("COMMIT")
        except BaseException:  # whatever stopped the migration (Ctrl+C too): undo it, then re-raise
            db.execute("ROLLBACK")
            raise

    def _move_aside(self, why: str, **params: object) -> None:
        """Keep the file that cannot be used under a new name; ``why`` is the notice's key."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.{stamp}.bad")
        counter = 1
        while aside.exists():
            aside = self.path.with_name(f"{self.path.name}.{stamp}-{counter}.bad")
            counter += 1
        self.path.rename(aside)
        for suffix in ("-wal", "-shm"):
            sidecar = self.path.with_name(self.path.name + suffix)
            if sidecar.exists():
                sidecar.rename(aside.with_name(aside.name + suffix))
        self.notices.append(Notice(why, {"name": self.path.name, "aside": aside.name, **params}))

    def _unavailable(self, error: BaseException) -> None:
        self.saving = False
        self._db = None
        self.notices.append(Notice("store-unavailable", {"home": str(self.home), "error": str(error)}))

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # -- writing ---------------------------------------------------------

    def record(self, attempt: Attempt) -> bool:
        """Save one attempt in its own transaction; False when it could not be saved."""
        if self._db is None:
            return False
        row = asdict(attempt)
        row["answer"] = json.dumps(attempt.answer, ensure_ascii=False)
        row["diagnoses"] = json.dumps(attempt.diagnoses)
        columns = ", ".join(row)
        marks = ", ".join(f":{name}" for name in row)
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute(f"INSERT INTO attempts ({columns}) VALUES ({marks})", row)
        except sqlite3.Error as error:
            self._unavailable(error)
            return False
        return True

    def set_setting(self, key: str, value: str) -> bool:
        if self._db is None:
            return False
        try:
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )
        except sqlite3.Error as error:
            self._unavailable(error)
            return False
        return True

    # -- reading ---------------------------------------------------------

    def attempts(self) -> list[Attempt]:
        if self._db is None:
            return []
        try:
            rows = self._db.execute(
                "SELECT exercise, objective, seed, answer, score, valid, graded, correct, diagnoses, hints_used, "
                "seconds, at, app_version, kind FROM attempts ORDER BY at, id"
            ).fetchall()
        except sqlite3.Error as error:
            self.notices.append(Notice("store-unread", {"error": str(error)}))
            return []
        return [
            Attempt(
                exercise=row[0],
                objective=row[1],
                seed=row[2],
                answer=json.loads(row[3]),
                score=row[4],
                valid=bool(row[5]),
                graded=bool(row[6]),
                correct=bool(row[7]),
                diagnoses=json.loads(row[8]),
                hints_used=row[9],
                seconds=row[10],
                at=row[11],
                app_version=row[12],
                kind=row[13],
            )
            for row in rows
        ]

    def settings(self) -> dict[str, str]:
        if self._db is None:
            return {}
        try:
            return dict(self._db.execute("SELECT key, value FROM settings").fetchall())
        except sqlite3.Error:
            return {}

    def reset(self) -> Path | None:
        """Start over (every table of WORK_TABLES emptied in one transaction), keeping a
        backup copy of everything first; returns the backup's path."""
        if self._db is None or not self.path.exists():
            return None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = self.path.with_name(f"{self.path.name}.{stamp}.backup")
        target = sqlite3.connect(backup)
        with target:
            self._db.backup(target)
        target.close()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            tables = {
                name for (name,) in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            for table in WORK_TABLES:
                if table in tables:  # lab_runs exists once the code lab has run
                    self._db.execute(f"DELETE FROM {table}")
        return backup
