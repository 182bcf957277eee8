"""A class folder: ``class.toml`` (which database the class uses, never its
password), ``class.db`` (SQLite, unless the class lives in PostgreSQL) and the
teacher-only PIN files (mode 0600, created once, never overwritten: a PIN file
that exists is never written again, new students get a new file)."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from exercises.classdb.backends import DB_FILE
from exercises.classdb.model import ClassStoreError, Student
from exercises.classdb.store import ClassStore, open_class_store
from exercises.text import L, cannot

CONFIG_FILE = "class.toml"
PIN_FILE = "pins-teacher-only.csv"
DB_ENV = "OBJECTIVES_TUTOR_DB"  # the --db URL, kept out of the process list
TEACHER_ID = "teacher"


def database_url(class_dir: Path, given: str | None) -> str | None:
    """The PostgreSQL URL to use (--db, else $OBJECTIVES_TUTOR_DB), or None for SQLite;
    ClassStoreError when the folder says PostgreSQL and no URL was given."""
    url = given or os.environ.get(DB_ENV) or None
    if url is None and _config(Path(class_dir)).get("database") == "postgresql":
        raise ClassStoreError(
            L(
                f"the class in {class_dir} keeps its database in PostgreSQL: give --db postgresql://... (or set ${DB_ENV})",
                f"{class_dir} 的班级数据库在 PostgreSQL 中：请给出 --db postgresql://...（或设置 ${DB_ENV}）",
            )
        )
    return url


def _config(class_dir: Path) -> dict:
    try:
        return tomllib.loads((class_dir / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def open_class(class_dir: Path, given_url: str | None = None) -> ClassStore:
    """The store of an existing class (what every `class ...` command opens)."""
    return open_class_store(Path(class_dir), database_url(class_dir, given_url))


def is_class_folder(class_dir: Path) -> bool:
    return any((Path(class_dir) / name).exists() for name in (CONFIG_FILE, DB_FILE, PIN_FILE))


def pin_file_text(rows: list[tuple[Student, str]]) -> str:
    """CSV (id, name, role, pin) for a mail merge or printed slips; every cell made safe
    for a spreadsheet (a name like =cmd() stays text)."""
    from exercises.classroom.safe import csv_cell

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "name", "role", "pin"])
    for student, pin in rows:
        writer.writerow([csv_cell(student.id), csv_cell(student.name), student.role, pin])
    return out.getvalue()


def write_private(path: Path, text: str) -> None:
    """Create ``path`` readable by its owner only; FileExistsError if it exists (never overwritten)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


@dataclass(frozen=True)
class Made:
    pin_file: Path
    added: int  # students, teacher included
    skipped: int  # already in the class (with --add)
    database: str  # where the class database is (a path, or the URL without its password)


def init_class(
    class_dir: Path,
    roster: list,  # exercises.classroom.identity.Student (id, name, pin), from read_roster
    db_url: str | None = None,
    teacher_id: str = TEACHER_ID,
    add: bool = False,
    now: float | None = None,
    pin_cost: int | None = None,
) -> Made:
    """Make a class (or, with ``add``, add the roster's new students to one): the PIN
    file is written first, with O_EXCL, so no PIN is ever in the database without the
    teacher holding it; if the database then fails, that new file is removed again."""
    from exercises.classroom.identity import new_pin

    folder = Path(class_dir)
    now = time.time() if now is None else now
    exists = is_class_folder(folder)
    if exists and not add:
        raise ClassStoreError(
            L(
                f"{folder} already holds a class: use --add to add the roster's new students (existing PINs are kept)",
                f"{folder} 已有班级：用 --add 加入名单中的新学生（已有的 PIN 保持不变）",
            )
        )
    if not exists and add:
        add = False  # nothing to add to: make the class
    if folder.exists() and not folder.is_dir():
        raise ClassStoreError(L(f"{folder} is a file, not a folder", f"{folder} 是文件，不是文件夹"))
    if any(student.id == teacher_id for student in roster):
        raise ClassStoreError(
            L(
                f"the roster has a student with the teacher's id {teacher_id!r}: choose another with --teacher-id",
                f"名单里有学生的学号与教师账号 {teacher_id!r} 相同：请用 --teacher-id 另选",
            )
        )
    url = database_url(folder, db_url) if add else (db_url or os.environ.get(DB_ENV) or None)
    options = {} if pin_cost is None else {"pin_cost": pin_cost}
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ClassStoreError(cannot("make", folder, error)) from None
    store = open_class_store(folder, url, create=not add, **options)
    try:
        known = {student.id for student in store.students()}
        if known and not add:
            raise ClassStoreError(
                L(
                    f"{store.where} already holds a class ({len(known)} people): use --add to add to it",
                    f"{store.where} 已有一个班级（{len(known)} 人）：用 --add 加入",
                )
            )
        rows = [(Student(s.id, s.name, "student"), s.pin) for s in roster if s.id not in known]
        if teacher_id not in known:
            rows.append((Student(teacher_id, "teacher", "teacher"), new_pin(teacher_id)))
        skipped = len(roster) - sum(1 for student, _ in rows if student.role == "student")
        pin_path = folder / (PIN_FILE if not add else f"pins-added-{time.strftime('%Y%m%d-%H%M%S')}.csv")
        if rows:
            try:
                write_private(pin_path, pin_file_text(rows))
            except FileExistsError:
                raise ClassStoreError(
                    L(f"{pin_path} exists and is never overwritten", f"{pin_path} 已存在，不会被覆盖")
                ) from None
            except OSError as error:
                raise ClassStoreError(cannot("write", pin_path, error)) from None
            try:
                store.add_students(rows, now)
            except BaseException:
                pin_path.unlink(missing_ok=True)
                raise
            quiz = store.current_quiz() if add else None
            if quiz is not None:  # a quiz is open: the newcomers' questions, rendered now as for the rest
                from exercises.classdb.render import render_questions

                newcomers = [student.id for student, _ in rows if student.role == "student"]
                store.add_questions(quiz.quiz_id, render_questions(quiz.quiz(), newcomers))
        if not add:
            if url is None:  # PIN hashes and every answer: the teacher's account only
                for private in (folder, folder / DB_FILE):
                    with contextlib.suppress(OSError):
                        private.chmod(0o700 if private.is_dir() else 0o600)
            kind = "sqlite" if url is None else "postgresql"
            config = f'# objectives-tutor class folder\ndatabase = "{kind}"\ncreated_at = {int(now)}\n'
            try:
                (folder / CONFIG_FILE).write_text(config, encoding="utf-8")
            except OSError as error:
                raise ClassStoreError(cannot("write", folder / CONFIG_FILE, error)) from None
        return Made(pin_path if rows else Path(), len(rows), skipped, store.where)
    finally:
        store.close()
