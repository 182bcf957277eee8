"""Sessions, the server's side: one live session per student, a random token
(stored only as its hash) per session, renewed at each sign-in and when the exam
starts, idle and absolute expiry, the teacher ending one. A session has a stable
id under which its token can change; the student's process holds that id, the
browser holds the token."""

from __future__ import annotations

import secrets
from pathlib import Path

from exercises.classdb.backends import Backend
from exercises.classdb.model import ClassStoreError, LiveSession, SessionEnded, Student
from exercises.classdb.pins import loggable
from exercises.classdb.rows import finite, token_hash
from exercises.classdb.student import StudentSession, expired
from exercises.text import L

MAX_TOKEN = 200


def _usable(token: object) -> bool:
    return isinstance(token, str) and bool(token) and len(token) <= MAX_TOKEN and token.isascii()


def lookup(backend: Backend, token: object, now: float) -> tuple[str, Student]:
    """(session id, student) of the live session behind a token; SessionEnded(reason)
    when it ended, expired or never was."""
    if not _usable(token):
        raise SessionEnded("unknown")
    with backend.read() as tx:
        row = tx.one(
            "SELECT s.id, s.name, s.role, x.ended_reason, x.ended_at, x.sid, x.started_at, x.last_seen "
            "FROM sessions x JOIN students s ON s.id = x.student WHERE x.token_hash = ?",
            (token_hash(token),),
        )
    if row is None:
        raise SessionEnded("unknown")
    if row[4] is not None:
        raise SessionEnded(row[3] or "signed-out")
    if expired(row[6], row[7], finite(now)):
        raise SessionEnded("expired")
    return row[5], Student(row[0], row[1], row[2])


def open_student_session(class_dir: Path, db_url: str | None, token: str, now: float) -> StudentSession:
    """What a student's process opens: the session behind ``token`` on a connection of
    its own, and nothing of the teacher's side (no ClassStore). SessionEnded when the
    token opens nothing; ClassStoreError when the database cannot be used."""
    from exercises.classdb.backends import DB_FILE, PostgresBackend, SQLiteBackend

    if db_url:
        backend: Backend = PostgresBackend(db_url)
    else:
        path = Path(class_dir) / DB_FILE
        if not path.is_file():
            raise ClassStoreError(L(f"{class_dir} holds no class", f"{class_dir} 里没有班级"))
        backend = SQLiteBackend(path)
    try:
        sid, student = lookup(backend, token, now)
    except BaseException:
        backend.close()
        raise
    return StudentSession(backend, sid, student)


class Sessions:
    backend: Backend

    def start_session(self, student_id: str, now: float, source: str = "") -> str:
        """A new session token for a signed-in student; the student's older live
        session ends with "signed-in-elsewhere" (one live session per student)."""
        now = finite(now)
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
                "INSERT INTO sessions (token_hash, sid, student, source, started_at, last_seen, place) "
                "VALUES (?, ?, ?, ?, ?, ?, '')",
                (token_hash(token), secrets.token_hex(16), student_id, loggable(source, 100), now, now),
            )
        return token

    def session(self, token: object, now: float) -> StudentSession:
        """The live session behind a token, on this store's connection (the server, the
        tests); SessionEnded(reason) when it ended, expired or never was."""
        sid, student = lookup(self.backend, token, now)
        return _Borrowed(self.backend, sid, student)

    def renew_token(self, token: object, now: float) -> str:
        """A new token for the live session behind ``token`` (the old one opens nothing from
        now on); the session, its process and its exam go on. SessionEnded as session()."""
        sid, _student = lookup(self.backend, token, now)
        fresh = secrets.token_urlsafe(32)
        with self.backend.write() as tx:
            changed = tx.run(
                "UPDATE sessions SET token_hash = ? WHERE sid = ? AND token_hash = ? AND ended_at IS NULL",
                (token_hash(fresh), sid, token_hash(token)),
            ).rowcount
        if not changed:
            raise SessionEnded("unknown")
        return fresh

    def seen(self, token: object, now: float) -> None:
        """The server saw this session's tab (its websocket open): the session is live now.
        Only the server calls this; a session's own process cannot make itself live."""
        if not _usable(token):
            return
        now = finite(now)
        with self.backend.write() as tx:
            tx.run(
                "UPDATE sessions SET last_seen = ? WHERE token_hash = ? AND ended_at IS NULL AND last_seen < ?",
                (now, token_hash(token), now),
            )

    def end_session(self, token: str, now: float, reason: str = "signed-out") -> None:
        if not _usable(token):
            return
        with self.backend.write() as tx:
            tx.run(
                "UPDATE sessions SET ended_at = ?, ended_reason = ? WHERE token_hash = ? AND ended_at IS NULL",
                (finite(now), reason, token_hash(token)),
            )

    def end_sessions_of(self, student_id: str, now: float, reason: str = "ended-by-teacher") -> int:
        """The teacher ends a student's session (their tab says so); how many were live."""
        with self.backend.write(lock=f"student:{student_id}") as tx:
            return tx.run(
                "UPDATE sessions SET ended_at = ?, ended_reason = ? WHERE student = ? AND ended_at IS NULL",
                (finite(now), reason, student_id),
            ).rowcount

    def live_sessions(self, now: float) -> list[LiveSession]:
        """Every live session (not ended, not expired), in roster order (the dashboard's "who
        is signed in")."""
        with self.backend.read() as tx:
            rows = tx.all(
                "SELECT s.id, s.name, s.role, x.started_at, x.last_seen, x.place FROM sessions x "
                "JOIN students s ON s.id = x.student WHERE x.ended_at IS NULL ORDER BY s.position"
            )
        now = finite(now)
        return [
            LiveSession(Student(r[0], r[1], r[2]), r[3], r[4], r[5])
            for r in rows
            if not expired(r[3], r[4], now)
        ]


class _Borrowed(StudentSession):
    """A session on the store's own connection: closing it leaves the store's open."""

    def close(self) -> None:
        pass
