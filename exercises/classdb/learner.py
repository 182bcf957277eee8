"""exercises.learner.store.ProgressStore's methods on a class session, so the app
runs unchanged on the class database. It uses the session's public methods only
(record_attempt, save_setting, attempts, settings, reset_progress)."""

from __future__ import annotations

from pathlib import Path

from exercises.classdb.model import ClassStoreError, SessionEnded
from exercises.learner.store import Attempt


class ClassLearnerStore:
    """Like ProgressStore it never raises: when the session ended or the database
    failed, writes return False, reads return empty, and ``notices`` says why in one line."""

    def __init__(self, session) -> None:
        self._session = session
        self.home = Path(session.where)
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

    def _write(self, action) -> bool:
        try:
            action()
        except (SessionEnded, ClassStoreError) as error:
            self._fail(error)
            return False
        return True

    def _read(self, action, empty):
        try:
            return action()
        except (SessionEnded, ClassStoreError) as error:
            self._fail(error)
            return empty

    def record(self, attempt: Attempt) -> bool:
        return self._write(lambda: self._session.record_attempt(attempt))

    def set_setting(self, key: str, value: str) -> bool:
        return self._write(lambda: self._session.save_setting(key, value))

    def attempts(self) -> list[Attempt]:
        return self._read(self._session.attempts, [])

    def settings(self) -> dict[str, str]:
        return self._read(self._session.settings, {})

    def reset(self) -> Path | None:
        """Start over: this student's attempts are kept in the database, marked as reset."""
        self._write(self._session.reset_progress)
        return None

    def close(self) -> None:
        """The session's connection belongs to the session: closing this view closes nothing."""
