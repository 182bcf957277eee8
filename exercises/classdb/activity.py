"""The class right now, for the dashboard: the misconceptions named in the class's
practice lately, and one student's attempts."""

from __future__ import annotations

import json

from exercises.classdb.backends import Backend
from exercises.classdb.model import MisconceptionCount
from exercises.classdb.rows import attempts as attempt_rows
from exercises.classdb.rows import finite
from exercises.learner.store import Attempt


class Activity:
    backend: Backend

    def recent_misconceptions(self, since: float) -> list[MisconceptionCount]:
        """Misconceptions named in attempts since ``since``: per (exercise, code), how
        many attempts and which students; the most frequent first."""
        with self.backend.read() as tx:
            rows = tx.all(
                "SELECT student, exercise, diagnoses FROM attempts WHERE at >= ? AND reset_at IS NULL",
                (finite(since),),
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
            return attempt_rows(tx, student_id)
