"""The class list: students and the teacher, their hashed PINs, in roster order,
and the one student an id typed by a person means."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from exercises.classdb.backends import Backend, Tx
from exercises.classdb.model import ROLES, ClassStoreError, Student
from exercises.classdb.pins import hash_pins, typed_id
from exercises.classdb.rows import fold, storable
from exercises.text import L


class Roster:
    backend: Backend
    pin_cost: int

    def add_student(self, student: Student, pin: str, now: float | None = None) -> None:
        self.add_students([(student, pin)], now)

    def add_students(self, entries: Iterable[tuple[Student, str]], now: float | None = None) -> int:
        """Add students with their PINs (hashed here) in one transaction; ClassStoreError
        for an id already in the class or a bad role. Returns how many were added."""
        from exercises.classroom.identity import RosterError, check_student_id

        now = time.time() if now is None else now
        rows = []
        for student, pin in entries:
            try:
                check_student_id(student.id)
            except RosterError as error:
                raise ClassStoreError(error.text) from None
            if student.role not in ROLES:
                raise ClassStoreError(L(f"unknown role {student.role!r}", f"未知的角色 {student.role!r}"))
            rows.append((student, pin))
        with self.backend.read() as tx:  # said before minutes of PIN hashing, checked again below
            _refuse_known(tx, [student for student, _ in rows])
        rows = [
            (student, digest)
            for (student, _), digest in zip(rows, hash_pins([p for _, p in rows], self.pin_cost), strict=True)
        ]
        with self.backend.write(lock="roster") as tx:
            position = tx.one("SELECT COALESCE(MAX(position), 0) FROM students")[0]
            _refuse_known(tx, [student for student, _ in rows])
            tx.many(
                "INSERT INTO students (id, id_fold, name, role, pin_hash, position, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (s.id, fold(s.id), storable(s.name), s.role, h, position + n, now)
                    for n, (s, h) in enumerate(rows, start=1)
                ],
            )
        return len(rows)

    def students(self) -> list[Student]:
        with self.backend.read() as tx:
            rows = tx.all("SELECT id, name, role FROM students ORDER BY position")
        return [Student(*row) for row in rows]

    def student(self, student_id: str) -> Student | None:
        with self.backend.read() as tx:
            row = tx.one("SELECT id, name, role FROM students WHERE id = ?", (student_id,))
        return Student(*row) if row else None

    def find_student(self, typed: object) -> Student | None:
        """The roster student an id typed by a person means (as sign-in matches it)."""
        value = typed_id(typed)
        if not value:
            return None
        with self.backend.read() as tx:
            found = match(tx, value)
        return found[0] if found else None


def _refuse_known(tx: Tx, students: Sequence[Student]) -> None:
    """ClassStoreError for an id twice in ``students`` or already in the class."""
    known = {row[0] for row in tx.all("SELECT id FROM students")}
    for student in students:
        if student.id in known:
            raise ClassStoreError(
                L(f"student id {student.id!r} is already in the class", f"学号 {student.id!r} 已在班级中")
            )
        known.add(student.id)


def match(tx: Tx, typed: str) -> tuple[Student, str] | None:
    """(student, PIN hash) of the roster student a typed id means: exactly, else the one
    id equal up to case and full-width forms (never a guess between two)."""
    row = tx.one("SELECT id, name, role, pin_hash FROM students WHERE id = ?", (typed,))
    if row is None:
        rows = tx.all("SELECT id, name, role, pin_hash FROM students WHERE id_fold = ?", (fold(typed),))
        row = rows[0] if len(rows) == 1 else None
    return (Student(row[0], row[1], row[2]), row[3]) if row else None
