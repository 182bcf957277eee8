"""Who a file belongs to: the file name for an exact student id, the class
roster, each student's PIN (in the teacher's file, never in the handout), the
PIN check the handout carries instead, and the HMAC that ties a submission to
the PIN of the student it names.

The handout is public to the class, yet ``quiz take`` must refuse a wrong PIN
before the quiz starts: so it holds, per student, a slow salted hash of the PIN
(scrypt). Whoever has the handout can test guesses offline, so file-quiz PINs
are long (50 random bits) and every guess costs a scrypt. The same scrypt run
yields the key that signs the student's submission, so a classmate's submission
file is no faster an oracle than the handout. The teacher file keeps each key,
so grading runs no scrypt at all.

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
PIN_BODY = 7  # class-server PINs: checked online only, where wrong PINs are slowed down (35 bits)
QUIZ_PIN_BODY = 10  # file-quiz PINs: the handout lets anyone test guesses offline (50 bits)
# scrypt per PIN check: 8 MiB and ~40 ms on one core of a 2020s laptop. An offline attack on a
# 50-bit PIN then costs ~2^49 of them on average: ~700,000 core-years, or centuries of a GPU.
PIN_SCRYPT_N = 2**13
PIN_SCRYPT_R = 8
MAX_SCRYPT_N = 2**16  # a handout asking for more is refused, not obeyed (memory)
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


def new_pin(student: str, body_length: int = PIN_BODY) -> str:
    """Random characters and a check character bound to the student id, so a mistyped
    PIN, or a PIN typed with another student's id, is caught at once; in groups of
    four, as people read them out ("ABCD-EFGH", "ABCD-EFGH-JKL")."""
    body = "".join(secrets.choice(PIN_ALPHABET) for _ in range(body_length))
    pin = body + _check_char(student, body)
    return "-".join(pin[start : start + 4] for start in range(0, len(pin), 4))


def normalise_pin(text: str) -> str:
    """What people type: lower case, spaces, dashes, full-width characters."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).upper() if c.isalnum())


def pin_matches_id(student: str, pin: str) -> bool:
    """The check character: a typo caught at once (not a proof: one guess in 32 passes;
    the PIN check in the handout and the HMAC are the proof)."""
    value = normalise_pin(pin)
    return (
        len(value) in (PIN_BODY + 1, QUIZ_PIN_BODY + 1)
        and all(c in PIN_ALPHABET for c in value)
        and _check_char(student, value[:-1]) == value[-1]
    )


# -- the handout's PIN checks and the signing keys ------------------------------------


class PinError(ClassroomError):
    """A PIN that does not open this student's quiz."""


def pin_slot(quiz: Quiz, student: str) -> str:
    """Where the handout keeps a student's PIN check: a hash of the exact id, so the
    handout does not list the class (an id can still be guessed and tested)."""
    return hashlib.sha256(f"pin\x1f{quiz.salt}\x1f{student}".encode()).hexdigest()[:20]


def _scrypt(pin: str, salt: bytes, n: int, r: int) -> bytes:
    """64 bytes: the first half checks the PIN (in the handout), the second signs (secret)."""
    return hashlib.scrypt(
        normalise_pin(pin).encode(), salt=salt, n=n, r=r, p=1, maxmem=256 * 1024 * 1024, dklen=64
    )


def lock_pin(pin: str) -> tuple[str, str]:
    """(the check the handout carries, the signing key the teacher file keeps) for a PIN."""
    salt = secrets.token_bytes(16)
    out = _scrypt(pin, salt, PIN_SCRYPT_N, PIN_SCRYPT_R)
    return f"scrypt${PIN_SCRYPT_N}${PIN_SCRYPT_R}${salt.hex()}${out[:32].hex()}", out[32:].hex()


def unlock_pin(check: str, pin: str) -> str | None:
    """The signing key when ``pin`` is the PIN behind ``check``, else None (also for a
    check that is not one we wrote, or asks for absurd work)."""
    try:
        kind, n, r, salt, verifier = check.split("$")
        n_value, r_value = int(n), int(r)
        salt_bytes, verifier_bytes = bytes.fromhex(salt), bytes.fromhex(verifier)
    except ValueError:
        return None
    if (
        kind != "scrypt"
        or not 2 <= n_value <= MAX_SCRYPT_N
        or n_value & (n_value - 1)
        or not 1 <= r_value <= 32
        or len(verifier_bytes) != 32
    ):
        return None
    try:
        out = _scrypt(pin, salt_bytes, n_value, r_value)
    except (ValueError, MemoryError):
        return None
    return out[32:].hex() if hmac.compare_digest(out[:32], verifier_bytes) else None


def lock_quiz(quiz: Quiz, students: list[Student]) -> tuple[Quiz, list[Student]]:
    """The handout with a PIN check per student, and the students with their signing keys."""
    from dataclasses import replace

    checks, keyed = {}, []
    for student in students:
        check, key = lock_pin(student.pin)
        checks[pin_slot(quiz, student.id)] = check
        keyed.append(replace(student, key=key))
    return replace(quiz, signed=True, pins=tuple(sorted(checks.items()))), keyed


def signing_key(quiz: Quiz, student: str, pin: str) -> str:
    """The key that signs ``student``'s submission, once the PIN is proven right by the
    handout's check: every wrong PIN is refused here, before the quiz starts."""
    if not quiz.pins:
        raise PinError(
            L(
                "this quiz file has no PIN checks (an older version made it): ask your teacher for a new one",
                "这份测验文件没有 PIN 校验（由旧版本生成）：请老师重新生成",
            )
        )
    check = dict(quiz.pins).get(pin_slot(quiz, student))
    if check is None:
        raise PinError(
            L(
                f"student id {student!r} is not on this quiz's roster",
                f"学号 {student!r} 不在这份测验的名单上",
            )
        )
    if not pin_matches_id(student, pin):
        raise PinError(
            L(
                f"this PIN does not belong to student id {student!r}: check both",
                f"这个 PIN 与学号 {student!r} 不匹配：请检查两者",
            )
        )
    key = unlock_pin(check, pin)
    if key is None:
        raise PinError(
            L(
                f"wrong PIN for student id {student!r}: the quiz does not open",
                f"学号 {student!r} 的 PIN 不对：测验无法打开",
            )
        )
    return key


# -- signatures ------------------------------------------------------------------


def signed_bytes(payload: dict) -> bytes:
    """The canonical form of everything a submission signs (all but the signature)."""
    content = {key: value for key, value in payload.items() if key != "signature"}
    return json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def sign(payload: dict, key: str) -> str:
    """HMAC-SHA256 of the payload, keyed by the student's signing key (hex)."""
    return hmac.new(bytes.fromhex(key), signed_bytes(payload), hashlib.sha256).hexdigest()


def verify(payload: dict, student: Student) -> bool:
    """The payload is signed by ``student``'s key. A teacher file from before PIN checks
    has no keys: its quizzes were signed with the PIN itself, and are checked so."""
    signature = payload.get("signature")
    if not isinstance(signature, str):
        return False
    secret = bytes.fromhex(student.key) if student.key else normalise_pin(student.pin).encode()
    expected = hmac.new(secret, signed_bytes(payload), hashlib.sha256).hexdigest()
    return hmac.compare_digest(signature, expected)


# -- roster and the teacher's file -------------------------------------------------


@dataclass(frozen=True)
class Student:
    id: str
    name: str
    pin: str
    key: str = ""  # the signing key derived from the PIN (hex); "" in teacher files of old versions


MAX_ROSTER_BYTES = 4_000_000  # a roster or a teacher file: some 20,000 students
MAX_TEACHER_BYTES = 4_000_000


def read_roster_file(path) -> bytes:
    """A roster file's bytes: a regular file, at most MAX_ROSTER_BYTES (OSError otherwise)."""
    from exercises.files import read_regular

    return read_regular(path, MAX_ROSTER_BYTES)


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


def read_roster(text: str, pin_body: int = PIN_BODY) -> list[Student]:
    """A CSV with a student id and a name per row (a header row is recognised and
    skipped); fresh PINs for everyone (``pin_body`` random characters each). Duplicate
    ids are refused with their line."""
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
        students.append(Student(student, name[:MAX_ID], new_pin(student, pin_body)))
    if not students:
        raise RosterError(
            L("the roster has no students (one 'id,name' per line)", "名单里没有学生（每行一个“学号,姓名”）")
        )
    return students


@dataclass(frozen=True)
class TeacherFile:
    """What only the teacher holds: each student's PIN and signing key, and the secret
    that ``quiz release`` reveals (the handout carries only its hash)."""

    students: list[Student]
    release: str = ""  # hex; "" when the quiz was made without one


def new_release_secret() -> tuple[str, str]:
    """(the secret the teacher file keeps, the hash the handout carries)."""
    secret = secrets.token_hex(32)
    return secret, release_check_of(secret)


def release_check_of(secret: str) -> str:
    return hashlib.sha256(("release\x1f" + secret).encode()).hexdigest()


def dump_teacher_file(quiz: Quiz, teacher: TeacherFile) -> str:
    lines = [
        "# objectives-tutor teacher file: KEEP IT AWAY FROM STUDENTS.",
        "# Each student's PIN signs their submission; give every student only their own PIN.",
        "# 'release' lets `quiz release` show results; 'key' is what each PIN signs with.",
        f"quiz = {_toml_string(quiz.id)}",
    ]
    if teacher.release:
        lines.append(f"release = {_toml_string(teacher.release)}")
    for student in teacher.students:
        lines += [
            "",
            "[[students]]",
            f"id = {_toml_string(student.id)}",
            f"name = {_toml_string(student.name)}",
            f"pin = {_toml_string(student.pin)}",
        ]
        if student.key:
            lines.append(f"key = {_toml_string(student.key)}")
    return "\n".join(lines) + "\n"


def load_teacher_file(path: Path, quiz: Quiz) -> TeacherFile:
    from exercises.files import read_regular

    try:
        text = read_regular(path, MAX_TEACHER_BYTES).decode("utf-8").removeprefix("\ufeff")
        data = tomllib.loads(text)
    except RecursionError:  # tomllib recurses once per nested array or table
        why = L("lists or tables nested too deep", "列表或表嵌套太深")
        raise RosterError(
            L(f"cannot read the teacher file {path}: {why['en']}", f"无法读取教师文件 {path}：{why['zh']}")
        ) from None
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
        key = entry.get("key", "")
        if not isinstance(key, str) or len(key) != (64 if key else 0) or not _is_hex(key):
            raise RosterError(
                L(
                    f"{path}: the key of {entry['id'][:40]!r} is not 64 hex digits",
                    f"{path}：{entry['id'][:40]!r} 的 key 不是 64 位十六进制数",
                )
            )
        students.append(Student(entry["id"], entry["name"], entry["pin"], key))
    release = data.get("release", "")
    if not isinstance(release, str) or not _is_hex(release) or len(release) > 128:
        raise RosterError(L(f"{path}: 'release' is not hex digits", f"{path}：'release' 不是十六进制数"))
    return TeacherFile(students, release)


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)
