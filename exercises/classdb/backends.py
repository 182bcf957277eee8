"""The two databases behind one ClassStore: SQLite (WAL, embedded, one server) and
PostgreSQL (psycopg 3, several servers on one database). The store's SQL is
written once with ``?`` placeholders; a backend only connects, runs transactions
and knows its own spelling of an auto-numbered key.

Connections are per thread (a web server answers from several threads; a
connection is never shared between them). Every write is one transaction;
writers that must not interleave (two sign-ins of one student, two teachers
opening quizzes) take a named lock: SQLite's BEGIN IMMEDIATE already serialises
all writers, PostgreSQL takes a transaction-scoped advisory lock."""

from __future__ import annotations

import contextlib
import random
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from exercises.classdb.model import ClassStoreError
from exercises.text import L

BUSY_TIMEOUT_S = 10.0
# WAL with synchronous=NORMAL: a commit is not fsynced, the WAL is at each checkpoint. A
# saved answer survives the server process being killed (kill -9, a crash); only an OS
# crash or power cut can lose the last seconds. FULL (an fsync per save, ~3.5 ms here)
# holds the one write lock so long that 60 students in 60 processes queued for seconds
# (benchmarks/class_server.py: p99 3.9 s FULL, 0.33 s NORMAL). Power-cut durability: PostgreSQL.
SYNCHRONOUS = "NORMAL"
DB_FILE = "class.db"


class Tx:
    """One transaction: run statements, fetch rows (tuples)."""

    def __init__(self, cursor: Any, convert: bool) -> None:
        self.cursor = cursor
        self.convert = convert

    def run(self, sql: str, params: Sequence[Any] = ()) -> Any:
        if self.convert:
            sql = sql.replace("?", "%s")
        self.cursor.execute(sql, tuple(params))
        return self.cursor

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        return self.run(sql, params).fetchone()

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return list(self.run(sql, params).fetchall())

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if self.convert:
            sql = sql.replace("?", "%s")
        self.cursor.executemany(sql, [tuple(row) for row in rows])

    @property
    def rowcount(self) -> int:
        return self.cursor.rowcount


class Backend:
    kind = "?"
    serial = ""  # the column type of an auto-numbered primary key
    where = ""  # what to show a person: a path, or a URL without its password

    def read(self) -> contextlib.AbstractContextManager[Tx]:
        raise NotImplementedError

    def write(self, lock: str | None = None) -> contextlib.AbstractContextManager[Tx]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def failure(self, error: BaseException) -> ClassStoreError:
        detail = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
        return ClassStoreError(
            L(
                f"the class database ({self.where}) failed: {detail}",
                f"班级数据库（{self.where}）出错：{detail}",
            )
        )


class _PerThread:
    """Connections kept per thread, all closed by close()."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._all: list[Any] = []
        self._guard = threading.Lock()

    def get(self, connect) -> Any:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = connect()
            self._local.connection = connection
            with self._guard:
                self._all.append(connection)
        return connection

    def close(self) -> None:
        with self._guard:
            connections, self._all = self._all, []
        for connection in connections:
            with contextlib.suppress(Exception):
                connection.close()
        self._local = threading.local()


def _begin_writing(db: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE, retried every ~1 ms while another process writes. SQLite's own busy
    handler backs off to 100 ms sleeps, so with many processes a waiting writer kept losing
    the lock to newcomers (benchmarks/class_server.py, 60 processes)."""
    db.execute("PRAGMA busy_timeout = 0")
    try:
        give_up = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if ("locked" not in str(error) and "busy" not in str(error)) or time.monotonic() > give_up:
                    raise
            time.sleep(random.uniform(0.0005, 0.0015))
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")


class SQLiteBackend(Backend):
    kind = "sqlite"
    serial = "INTEGER PRIMARY KEY AUTOINCREMENT"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self._connections = _PerThread()
        # Writers of this process queue here, woken at once, rather than polling SQLite's
        # busy handler (which sleeps 1-100 ms between tries); other processes still use it.
        self._writer = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def connection(self) -> sqlite3.Connection:
        return self._connections.get(self._connect)

    @contextlib.contextmanager
    def _transaction(self, begin: str) -> Iterator[Tx]:
        try:
            db = self.connection()
            if begin == "BEGIN IMMEDIATE":
                _begin_writing(db)
            else:
                db.execute(begin)
        except sqlite3.Error as error:
            raise self.failure(error) from None
        try:
            yield Tx(db.cursor(), convert=False)
        except BaseException as error:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error):
                raise self.failure(error) from None
            raise
        try:
            db.execute("COMMIT")
        except sqlite3.Error as error:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise self.failure(error) from None

    def read(self):
        return self._transaction("BEGIN")

    def write_statement(self, sql: str, params: Sequence[Any]) -> int:
        """One writing statement in its own transaction, the write lock held inside it only
        (retried like BEGIN IMMEDIATE); the number of rows it changed."""
        with self._writer:
            db = self.connection()
            db.execute("PRAGMA busy_timeout = 0")
            try:
                give_up = time.monotonic() + BUSY_TIMEOUT_S
                while True:
                    try:
                        return db.execute(sql, params).rowcount
                    except sqlite3.OperationalError as error:
                        if (
                            "locked" not in str(error) and "busy" not in str(error)
                        ) or time.monotonic() > give_up:
                            raise self.failure(error) from None
                    time.sleep(random.uniform(0.0005, 0.0015))
            finally:
                db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")

    @contextlib.contextmanager
    def write(self, lock: str | None = None):
        with self._writer, self._transaction("BEGIN IMMEDIATE") as tx:  # one writer: every lock at once
            yield tx

    def close(self) -> None:
        self._connections.close()


def redact(url: str) -> str:
    """A database URL fit to print: the password replaced by ***."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "postgresql://…"


class PostgresBackend(Backend):
    kind = "postgresql"
    serial = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise ClassStoreError(
                L(
                    "PostgreSQL needs psycopg: pip install 'psycopg[binary]' (or the 'serve' extra)",
                    "PostgreSQL 需要 psycopg：pip install 'psycopg[binary]'（或安装 'serve' 附加组件）",
                )
            ) from None
        self.psycopg = psycopg
        self.url = url
        self.where = redact(url)
        self._connections = _PerThread()
        self.connection()  # fail now, with a message, when the server cannot be reached

    def _connect(self):
        try:
            return self.psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except self.psycopg.Error as error:
            raise self.failure(error) from None

    def connection(self):
        connection = self._connections.get(self._connect)
        if connection.closed or connection.broken:  # the server restarted: one fresh connection
            self._connections._local.connection = None
            connection = self._connections.get(self._connect)
        return connection

    @contextlib.contextmanager
    def _transaction(self, lock: str | None) -> Iterator[Tx]:
        connection = self.connection()
        try:
            with connection.transaction(), connection.cursor() as cursor:
                if lock is not None:
                    cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (lock,))
                yield Tx(cursor, convert=True)
        except self.psycopg.Error as error:
            raise self.failure(error) from None

    def read(self):
        return self._transaction(None)

    def write(self, lock: str | None = None):
        return self._transaction(lock)

    @contextlib.contextmanager
    def statement(self) -> Iterator[Tx]:
        """One statement in its own transaction (autocommit): no BEGIN, no COMMIT round trips."""
        connection = self.connection()
        try:
            with connection.cursor() as cursor:
                yield Tx(cursor, convert=True)
        except self.psycopg.Error as error:
            raise self.failure(error) from None

    def close(self) -> None:
        self._connections.close()
