"""Who a file belongs to: the file name for an exact student id, the class
roster, each student's PIN (in the teacher's file, never in the handout) and the
HMAC that ties a submission to the PIN of the student it names.

What the signature proves: whoever wrote the file knew that student's PIN, and
nothing signed was changed afterwards. What it does not prove: who typed the
answers, or when (see the trust model in docs/teacher.md)."""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import secrets
import tomllib
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from exercises.classroom.quiz import ClassroomError, Quiz, _toml_string
from exercises.text import L, reason_of

PIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud or copied by hand
PIN_BODY = 7
MAX_ID = 200


class RosterError(ClassroomError):
    """A roster or teacher file that cannot be used."""


def file_stem(student: str) -> str:
    """A file name for the exact id: a readable ASCII slug plus a hash of the id,
    so 'li ming'/'li_ming' and 'Bob'/'bob' never share a file on any file system."""
    ascii_text = unicodedata.normalize("NFKD", student).encode("ascii", "ignore").decode()
    slug = "".join(c if c.isalnum() else "-" for c in ascii_text.lower()).strip("-")
    slug = "-".join(part for part in slug.split("-") if part)[:32] or "student"
    return f"{slug}-{hashlib.sha256(student.encode()).hexdigest()[:10]}"


def check_student_id(student: object) -> str:
    """A usable student id: text, 1-200 characters, no control characters, no
    spaces around it. Kept exactly otherwise (case, Unicode)."""
    from exercises.classroom.safe import is_printable_line

    if not isinstance(student, str) or not student or student != student.strip():
        raise RosterError(
            L(
                "a student id must be non-empty text without spaces around it",
                "学号必须是非空文本，首尾不能有空格",
            )
        )
    if len(student) > MAX_ID or not is_printable_line(student):
        raise RosterError(
            L("a student id must be at most 200 printable characters", "学号最多 200 个可打印字符")
        )
    return student


# -- PINs ----------------------------------------------------------------------


def _check_char(student: str, body: str) -> str:
    digest = hashlib.sha256(f"{student}\x1f{body}".encode()).digest()
    return PIN_ALPHABET[digest[0] % len(PIN_ALPHABET)]


def new_pin(student: str) -> str:
    """Seven random characters and a check character bound to the student id, so a
    mistyped PIN, or a PIN typed with another student's id, is caught at once."""
    body = "".join(secrets.choice(PIN_ALPHABET) for _ in range(PIN_BODY))
    pin = body + _check_char(student, body)
    return f"{pin[:4]}-{pin[4:]}"


def normalise_pin(text: str) -> str:
    """What people type: lower case, spaces, dashes, full-width characters."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).upper() if c.isalnum())


def pin_matches_id(student: str, pin: str) -> bool:
    """The check character (not a proof: one guess in 32 passes; the HMAC is the proof)."""
    value = normalise_pin(pin)
    return (
        len(value) == PIN_BODY + 1
        and all(c in PIN_ALPHABET for c in value)
        and _check_char(student, value[:PIN_BODY]) == value[PIN_BODY]
    )


# -- signatures ------------------------------------------------------------------


def signed_bytes(payload: dict) -> bytes:
    """The canonical form of everything a submission signs (all but the signature)."""
    content = {key: value for key, value in payload.items() if key != "signature"}
    return json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def sign(payload: dict, pin: str) -> str:
    return hmac.new(normalise_pin(pin).encode(), signed_bytes(payload), hashlib.sha256).hexdigest()


def verify(payload: dict, pin: str) -> bool:
    signature = payload.get("signature")
    return isinstance(signature, str) and hmac.compare_digest(signature, sign(payload, pin))


# -- roster and the teacher's file -------------------------------------------------


@dataclass(frozen=True)
class Student:
    id: str
    name: str
    pin: str


def decode_roster(data: bytes) -> str:
    """A roster file's text: UTF-8 (with or without a BOM), else GB18030 (what Excel
    on a Chinese system saves), else RosterError."""
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise RosterError(
        L("the roster is neither UTF-8 nor GB18030 text", "名单既不是 UTF-8 也不是 GB18030 文本")
    )


def read_roster(text: str) -> list[Student]:
    """A CSV with a student id and a name per row (a header row is recognised and
    skipped); fresh PINs for everyone. Duplicate ids are refused with their line."""
    text = text.removeprefix("\ufeff")
    first = next((line for line in text.splitlines() if line.strip()), "")
    # Excel writes ';' in some locales, tabs when copied from a sheet; Chinese input, '，'
    delimiter = next((d for d in (",", "\t", ";", "，") if d in first), ",")
    try:  # h5: a lone CR (old Mac line ends) is a line end; a 200 KB cell is an error, not a crash
        rows = list(csv.reader(io.StringIO(text, newline=None), delimiter=delimiter))
    except csv.Error as error:
        raise RosterError(
            L(f"the roster is not readable CSV: {error}", f"名单不是可读的 CSV：{error}")
        ) from None
    students: list[Student] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(rows, start=1):
        cells = [cell.strip() for cell in row]
        if not any(cells):
            continue
        if number == 1 and cells[0].lower() in ("id", "student", "student id", "student_id", "学号"):
            continue
        try:
            student = check_student_id(cells[0])
        except RosterError as error:
            raise RosterError({lang: f"line {number}: {m}" for lang, m in error.text.items()}) from None
        if student in seen:
            raise RosterError(
                L(
                    f"line {number}: student id {student!r} is already on line {seen[student]}",
                    f"第 {number} 行：学号 {student!r} 已在第 {seen[student]} 行出现",
                )
            )
        seen[student] = number
        name = cells[1] if len(cells) > 1 else ""
        students.append(Student(student, name[:MAX_ID], new_pin(student)))
    if not students:
        raise RosterError(
            L("the roster has no students (one 'id,name' per line)", "名单里没有学生（每行一个“学号,姓名”）")
        )
    return students


def dump_teacher_file(quiz: Quiz, students: list[Student]) -> str:
    lines = [
        "# objectives-tutor teacher file: KEEP IT AWAY FROM STUDENTS.",
        "# Each student's PIN signs their submission; give every student only their own PIN.",
        f"quiz = {_toml_string(quiz.id)}",
    ]
    for student in students:
        lines += [
            "",
            "[[students]]",
            f"id = {_toml_string(student.id)}",
            f"name = {_toml_string(student.name)}",
            f"pin = {_toml_string(student.pin)}",
        ]
    return "\n".join(lines) + "\n"


def load_teacher_file(path: Path, quiz: Quiz) -> list[Student]:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8").removeprefix("\ufeff"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        why = reason_of(error)
        raise RosterError(
            L(f"cannot read the teacher file {path}: {why['en']}", f"无法读取教师文件 {path}：{why['zh']}")
        ) from None
    if data.get("quiz") != quiz.id:
        raise RosterError(
            L(
                f"the teacher file {path} is for quiz {str(data.get('quiz'))[:40]!r}, not {quiz.id!r}",
                f"教师文件 {path} 属于测验 {str(data.get('quiz'))[:40]!r}，不是 {quiz.id!r}",
            )
        )
    students = []
    for entry in data.get("students", []) if isinstance(data.get("students"), list) else []:
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(k), str) for k in ("id", "name", "pin")
        ):
            raise RosterError(
                L(
                    f"{path}: every [[students]] needs id, name and pin",
                    f"{path}：每个 [[students]] 都要有 id、name 和 pin",
                )
            )
        students.append(Student(entry["id"], entry["name"], entry["pin"]))
    return students
