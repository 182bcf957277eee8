"""One database for a class, the teacher's and the server's side: a ClassStore is
the roster (roster.py), sign-ins (signin.py), sessions (sessions.py), quizzes
(quizzes.py), the class right now (activity.py) and the class's settings
(settings.py), each a room of its own over one backend (backends.py: SQLite or
PostgreSQL behind the same statements). A student's process never holds one: it
holds a StudentSession (student.py), opened by sessions.open_student_session.

The clock is always a ``now`` argument (tests inject it; the server passes
time.time()); nothing a browser says about time is used."""

from __future__ import annotations

from pathlib import Path

from exercises.classdb.activity import Activity
from exercises.classdb.backends import DB_FILE, Backend, PostgresBackend, SQLiteBackend
from exercises.classdb.model import ClassStoreError
from exercises.classdb.pins import SCRYPT_N
from exercises.classdb.quizzes import Quizzes
from exercises.classdb.roster import Roster
from exercises.classdb.schema import prepare
from exercises.classdb.sessions import Sessions
from exercises.classdb.settings import Settings
from exercises.classdb.signin import SignIns
from exercises.text import L, cannot


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
    try:
        prepare(backend, create)
    except BaseException:
        backend.close()
        raise
    return ClassStore(backend, pin_cost=pin_cost)


class ClassStore(Roster, SignIns, Sessions, Quizzes, Activity, Settings):
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
