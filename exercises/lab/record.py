"""Every lab run, in a table of its own (``lab_runs``) in the learner's
progress.db, beside the attempts table that exercises.learner.store owns.

The table is created here with IF NOT EXISTS and never touches the store's
schema version, so the two evolve apart. A task counts as done once a run passed.
When the file cannot be written (read-only, not a database), runs are simply not
saved: the store reports and moves a corrupt file aside when the app opens it.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from exercises.learner.store import BUSY_TIMEOUT_S, FILE_NAME, default_home
from exercises.text import Bilingual, L, cannot

SCHEMA = """CREATE TABLE IF NOT EXISTS lab_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task TEXT NOT NULL,
    passed INTEGER NOT NULL,
    status TEXT NOT NULL,           -- pass | fail | not-started | invalid | stopped
    rule TEXT,                      -- the first rule broken (NULL when passed)
    diagnosis TEXT,                 -- its misconception code, if one fits
    seconds REAL NOT NULL,
    at REAL NOT NULL
)"""


@dataclass(frozen=True)
class LabRun:
    task: str
    passed: bool
    status: str
    rule: str | None
    diagnosis: str | None
    seconds: float
    at: float


class LabRecord:
    def __init__(self, home: Path | None = None) -> None:
        self.path = (Path(home) if home is not None else default_home()) / FILE_NAME
        self.saving = True
        self.notice: Bilingual | None = None  # why runs are not saved (shown after "lab run not saved: ")

    def _connect(self) -> sqlite3.Connection | None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(SCHEMA)
            return db
        except (OSError, sqlite3.Error) as error:
            self.saving = False
            self.notice = cannot("write", self.path.parent, error)
            return None

    def record(self, result) -> bool:
        """Save one run (a checks.LabResult); False when it could not be saved."""
        db = self._connect()
        if db is None:
            return False
        failure = result.failure
        try:
            with db:
                db.execute("BEGIN IMMEDIATE")
                db.execute(
                    "INSERT INTO lab_runs (task, passed, status, rule, diagnosis, seconds, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        result.task,
                        int(result.passed),
                        result.status,
                        result.first_rule,
                        None if failure is None else failure.diagnosis,
                        float(result.seconds),
                        time.time(),
                    ),
                )
            return True
        except sqlite3.Error as error:
            self.saving = False
            self.notice = L(f"the progress file refused it ({error})", f"进度文件拒绝写入（{error}）")
            return False
        finally:
            db.close()

    def runs(self) -> list[LabRun]:
        if not self.path.exists():
            return []
        db = self._connect()
        if db is None:
            return []
        try:
            rows = db.execute(
                "SELECT task, passed, status, rule, diagnosis, seconds, at FROM lab_runs ORDER BY at, id"
            ).fetchall()
        except sqlite3.Error:
            return []
        finally:
            db.close()
        return [LabRun(r[0], bool(r[1]), r[2], r[3], r[4], r[5], r[6]) for r in rows]

    def done(self) -> set[str]:
        return {run.task for run in self.runs() if run.passed}

    def attempted(self, task: str) -> bool:
        """A first attempt is a run of the task with something written (not the untouched starter)."""
        return any(run.task == task and run.status != "not-started" for run in self.runs())
