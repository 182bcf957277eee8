"""Every lab run, in a table of its own (``lab_runs``) in the learner's
progress.db, beside the attempts table that exercises.learner.store owns.

The table is created here with IF NOT EXISTS and never touches the store's
schema version, so the two evolve apart (a column added later is added with ALTER
TABLE when missing). Each run keeps the digest of the file it checked: a task of
a folder is done when its file, as it is now, passed (``passing``), so a failure
after a pass, or an empty folder, shows as not done. ``done`` (ever passed) is the
learner's history. When the file cannot be written (read-only, not a database),
runs are simply not saved: the store reports and moves a corrupt file aside when
the app opens it.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from exercises.lab.workspace import file_digest, present, task_path
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
    at REAL NOT NULL,
    digest TEXT                     -- sha256 of the file checked (NULL in runs saved before it was kept)
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
    digest: str | None = None


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
            columns = {row[1] for row in db.execute("PRAGMA table_info(lab_runs)")}
            if "digest" not in columns:  # a table from before digests were kept
                db.execute("ALTER TABLE lab_runs ADD COLUMN digest TEXT")
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
                    "INSERT INTO lab_runs (task, passed, status, rule, diagnosis, seconds, at, digest)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        result.task,
                        int(result.passed),
                        result.status,
                        result.first_rule,
                        None if failure is None else failure.diagnosis,
                        float(result.seconds),
                        time.time(),
                        result.digest,
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
                "SELECT task, passed, status, rule, diagnosis, seconds, at, digest FROM lab_runs ORDER BY at, id"
            ).fetchall()
        except sqlite3.Error:
            return []
        finally:
            db.close()
        return [LabRun(r[0], bool(r[1]), r[2], r[3], r[4], r[5], r[6], r[7]) for r in rows]

    def done(self) -> set[str]:
        """Every task that passed once (the learner's history, whatever the files are now)."""
        return {run.task for run in self.runs() if run.passed}

    def standing(self, folder: Path) -> dict[str, LabRun]:
        """For each task file of ``folder`` checked as it is now (same digest): its last run."""
        last: dict[tuple[str, str], LabRun] = {}
        for run in self.runs():
            if run.digest:
                last[(run.task, run.digest)] = run
        found = {}
        for task in present(folder):
            run = last.get((task.id, file_digest(task_path(folder, task)) or ""))
            if run is not None:
                found[task.id] = run
        return found

    def passing(self, folder: Path) -> set[str]:
        """The tasks done in ``folder``: their file, as it is now, passed its last check."""
        return {task for task, run in self.standing(folder).items() if run.passed}

    def attempted(self, task: str) -> bool:
        """A first attempt is a run of the task with something written (not the untouched starter)."""
        return any(run.task == task and run.status != "not-started" for run in self.runs())
