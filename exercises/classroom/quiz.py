"""A quiz definition (TOML): its questions and points, its clock and window, when
students see results, and one variant per (quiz, student, question). The file
format is documented in docs/formats.md; every error names its line."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import secrets
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass

from exercises.catalogue import BY_ID
from exercises.text import Bilingual, L, cannot

SEED_SPACE = 2**31
MAX_MINUTES = 24 * 60
MAX_POINTS = 1000
RESULTS_WHEN = ("after-submit", "after-release")
CLOCK_SKEW = 120.0  # seconds a student's clock may differ from the teacher's before a time is implausible


class ClassroomError(ValueError):
    """A problem a teacher or student must see, in both languages (``text``)."""

    def __init__(self, text: Bilingual) -> None:
        super().__init__(text["en"])
        self.text = text

    def __reduce__(self):  # rebuilt from both languages when a grading worker sends it back
        return type(self), (self.text,)


class QuizFileError(ClassroomError):
    """A quiz definition that cannot be used; the message names the line where it can."""


@dataclass(frozen=True)
class Quiz:
    id: str
    title: str
    salt: str
    exercises: tuple[str, ...]
    time_limit_minutes: int | None = None
    points: tuple[float, ...] | None = None  # per question; None = 1 each
    max_points: float | None = None  # None = the sum of the points
    opens_at: float | None = None  # epoch seconds
    closes_at: float | None = None
    results: str = "after-submit"  # or "after-release"
    created_at: float | None = None
    signed: bool = False  # made with a roster: submissions must carry a PIN's signature
    pins: tuple[tuple[str, str], ...] = ()  # (pin_slot, scrypt check) per roster student
    release_check: str | None = None  # the hash of the teacher's release secret

    def points_of(self, index: int) -> float:
        return 1.0 if self.points is None else float(self.points[index])

    @property
    def maximum(self) -> float:
        if self.max_points is not None:
            return float(self.max_points)
        return float(sum(self.points_of(i) for i in range(len(self.exercises))))

    @property
    def question_hash(self) -> str:
        """What decides the questions a student sees (id, salt, exercises in order):
        a submission records it, so a quiz edited after hand-out is detected."""
        canonical = json.dumps([self.id, self.salt, list(self.exercises)], ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def rules_hash(self) -> str:
        """What decides when and how a student sees results and runs out of time: a
        submission records it, so a handout edited by a student (results shown at once,
        a longer clock) is flagged, even though the student's own copy obeyed the edit."""
        canonical = json.dumps(
            [
                self.results,
                self.release_check,
                self.time_limit_minutes,
                self.opens_at,
                self.closes_at,
                self.max_points,
                self.points,
                self.pins,
            ]
        )
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def variant_fingerprint(variant) -> str:
    """What the student was shown, in 16 hex digits: a submission records it per answer,
    so a question that changed since (a newer version of an exercise) is detected."""
    canonical = json.dumps(
        [variant.exercise, variant.seed, variant.data, variant.prompt], sort_keys=True, default=str
    )
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def plausible_time(quiz: Quiz, value: object, now: float) -> bool:
    """A time a student's file may hold: a finite number, not before the quiz was made
    and not in the future (each with CLOCK_SKEW of slack)."""
    low = (quiz.created_at or 0.0) - CLOCK_SKEW
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and value == value  # not NaN
        and low <= value <= now + CLOCK_SKEW
    )


@dataclass(frozen=True)
class Question:
    index: int
    exercise: str
    seed: int


def check_time_limit(minutes: object) -> int:
    """The one rule for a time limit, used by ``quiz new`` and by the quiz file."""
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= MAX_MINUTES:
        raise QuizFileError(
            L(
                f"the time limit must be a whole number of minutes from 1 to {MAX_MINUTES}, not {str(minutes)[:20]}",
                f"时间限制必须是 1 到 {MAX_MINUTES} 之间的整数分钟，而不是 {str(minutes)[:20]}",
            )
        )
    return minutes


def new_quiz(
    title: str,
    exercise_ids: Sequence[str],
    time_limit_minutes: int | None = None,
    results: str = "after-submit",
) -> Quiz:
    """A quiz with a fresh random id and salt (the salt decides every student's variants)."""
    _check_exercises(exercise_ids)
    exercise_ids = [canonical_exercise(exercise_id) for exercise_id in exercise_ids]
    if time_limit_minutes is not None:
        check_time_limit(time_limit_minutes)
    return Quiz(
        id=f"quiz-{secrets.token_hex(4)}",
        title=title.strip() or "Quiz",
        salt=secrets.token_hex(16),
        exercises=tuple(exercise_ids),
        time_limit_minutes=time_limit_minutes,
        results=results,
        created_at=float(int(time.time())),
    )


def is_lab(exercise_id: str) -> bool:
    """A code-lab task in a quiz (``lab:<task>``): the student hands in a file, not text."""
    from exercises.lab.grading import PREFIX, lab_form

    return lab_form(exercise_id).startswith(PREFIX)


def canonical_exercise(exercise_id: str) -> str:
    """The id a quiz file keeps: a catalogue id as it is, a lab task by its id whichever
    way the teacher named it (``lab:6``, ``lab:06_bert_mask.py`` -> ``lab:bert_mask``)."""
    if is_lab(exercise_id):
        from exercises.lab.grading import PREFIX, is_lab_question, task_of

        return PREFIX + task_of(exercise_id).id if is_lab_question(exercise_id) else exercise_id
    return exercise_id


def question_title(exercise_id: str) -> Bilingual:
    if is_lab(exercise_id):
        from exercises.lab.grading import task_of

        task = task_of(exercise_id)
        return L(f"Code lab: {task.title['en']}", f"代码实验：{task.title['zh']}")
    from exercises.catalogue import get

    return get(exercise_id).title


def question_fingerprint(exercise_id: str, seed: int) -> str:
    """What the student was shown, for a catalogue exercise or a lab task."""
    if is_lab(exercise_id):
        from exercises.lab.grading import task_fingerprint

        return task_fingerprint(exercise_id)
    from exercises.catalogue import get

    return variant_fingerprint(get(exercise_id).generate(seed))


def _check_exercises(exercise_ids: Sequence[str], where: Sequence[str] = ()) -> None:
    if not exercise_ids:
        raise QuizFileError(
            L(
                'a quiz needs at least one [[questions]] with exercise = "ID"',
                '测验至少需要一个 [[questions]]，写明 exercise = "ID"',
            )
        )
    for number, exercise_id in enumerate(exercise_ids):
        at = where[number] if number < len(where) else ""
        if is_lab(exercise_id):
            from exercises.lab.grading import is_lab_question
            from exercises.lab.tasks import TASKS

            if not is_lab_question(exercise_id):
                raise QuizFileError(
                    L(
                        f"{at}unknown lab task {exercise_id!r} (tasks: {', '.join('lab:' + t.id for t in TASKS)})",
                        f"{at}没有代码实验题 {exercise_id!r}（可用：{', '.join('lab:' + t.id for t in TASKS)}）",
                    )
                )
            continue
        if exercise_id not in BY_ID:
            raise QuizFileError(
                L(
                    f"{at}unknown exercise {exercise_id!r} (see `objectives-tutor exercises`)",
                    f"{at}没有练习 {exercise_id!r}（见 `objectives-tutor exercises`）",
                )
            )
        if not BY_ID[exercise_id].graded:
            raise QuizFileError(
                L(
                    f"{at}{exercise_id} is self-marked, so it cannot be graded in a quiz",
                    f"{at}{exercise_id} 是自评题，不能放进需要评分的测验",
                )
            )


# -- reading and writing ----------------------------------------------------


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def iso_time(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat().replace("+00:00", "Z")


def dump_toml(quiz: Quiz) -> str:
    """The quiz as TOML a teacher can read and edit (the format is in docs/formats.md)."""
    lines = [
        "# objectives-tutor quiz. Every student gets their own variant of each question,",
        "# derived from (salt, student id, question number): do not change the salt or the",
        "# questions once the quiz has been handed out (grading detects it).",
        f"id = {_toml_string(quiz.id)}",
        f"title = {_toml_string(quiz.title)}",
        f"salt = {_toml_string(quiz.salt)}",
        f"results = {_toml_string(quiz.results)}  # after-submit | after-release (quiz release)",
    ]
    if quiz.signed:
        lines.append("signed = true  # each student needs their PIN (quiz new --roster)")
    if quiz.created_at is not None:
        lines.append(f"created_at = {iso_time(quiz.created_at)}")
    if quiz.time_limit_minutes is not None:
        lines.append(f"time_limit_minutes = {int(quiz.time_limit_minutes)}")
    if quiz.opens_at is not None:
        lines.append(f"opens_at = {iso_time(quiz.opens_at)}")
    if quiz.closes_at is not None:
        lines.append(f"closes_at = {iso_time(quiz.closes_at)}")
    if quiz.max_points is not None:
        lines.append(f"max_points = {quiz.max_points:g}")
    if quiz.release_check is not None:
        lines.append(f"release_check = {_toml_string(quiz.release_check)}  # quiz release reveals its secret")
    for index, exercise in enumerate(quiz.exercises):
        lines += ["", "[[questions]]", f"exercise = {_toml_string(exercise)}"]
        if quiz.points is not None:
            lines.append(f"points = {quiz.points_of(index):g}")
    if quiz.pins:
        lines += [
            "",
            "# One line per student: a slow salted hash (scrypt) of their PIN, so that",
            "# `quiz take` refuses a wrong PIN before the quiz starts. Not the PIN itself.",
            "[pins]",
            *(f"{_toml_string(slot)} = {_toml_string(check)}" for slot, check in quiz.pins),
        ]
    return "\n".join(lines) + "\n"


TOP_KEYS = (
    "id",
    "title",
    "salt",
    "results",
    "created_at",
    "time_limit_minutes",
    "opens_at",
    "closes_at",
    "max_points",
    "signed",
    "release_check",
    "questions",
    "pins",
)
MAX_PIN_CHECKS = 100_000
QUESTION_KEYS = ("exercise", "points")


class _Lines:
    """Where a key sits in the TOML text, for error messages (comments ignored)."""

    def __init__(self, text: str) -> None:
        self.lines = [line.split("#", 1)[0] for line in text.splitlines()]
        self.tables = [
            n for n, line in enumerate(self.lines) if re.match(r"\s*\[\[\s*questions\s*\]\]", line)
        ]

    def key(self, key: str, question: int | None = None) -> str:
        first, last = 0, len(self.lines)
        if question is None:
            last = self.tables[0] if self.tables else last
        elif question < len(self.tables):
            first = self.tables[question]
            last = self.tables[question + 1] if question + 1 < len(self.tables) else last
        else:
            return ""
        pattern = re.compile(rf"\s*{re.escape(key)}\s*=")
        for number in range(first, last):
            if pattern.match(self.lines[number]):
                return f"line {number + 1}: "
        return f"line {first + 1}: " if question is not None else ""


def _printable(text: str) -> bool:
    from exercises.classroom.safe import is_printable_line

    return is_printable_line(text)


def _when(value: object, key: str, where: str) -> float:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.timestamp()
    raise QuizFileError(
        L(
            f"{where}{key} must be a date and time with its zone, e.g. 2026-12-01T09:00:00+08:00",
            f"{where}{key} 必须是带时区的日期时间，例如 2026-12-01T09:00:00+08:00",
        )
    )


def _points(value: object, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_POINTS:
        raise QuizFileError(
            L(
                f"{where}{key} must be a number above 0 and at most {MAX_POINTS}",
                f"{where}{key} 必须是大于 0、不超过 {MAX_POINTS} 的数",
            )
        )
    return float(value)


def loads(text: str) -> Quiz:
    """Read a quiz definition (a BOM or CRLF line ends are fine); QuizFileError with the line."""
    text = text.removeprefix("\ufeff")
    try:
        data = tomllib.loads(text)
    except RecursionError:  # tomllib recurses once per nested array or table
        raise QuizFileError(
            L("not valid TOML: lists or tables nested too deep", "不是有效的 TOML：列表或表嵌套太深")
        ) from None
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(error))
        at = f"line {found.group(1)}, column {found.group(2)}: " if found else ""
        raise QuizFileError(L(f"{at}not valid TOML: {reason}", f"{at}不是有效的 TOML：{reason}")) from None
    where = _Lines(text)
    for key in data:
        if key not in TOP_KEYS:
            raise QuizFileError(
                L(
                    f"{where.key(key)}unknown key {key!r} (known: {', '.join(TOP_KEYS)})",
                    f"{where.key(key)}未知的键 {key!r}（可用：{', '.join(TOP_KEYS)}）",
                )
            )
    for key in ("id", "title", "salt"):
        if isinstance(data.get(key), str) and not _printable(data[key]):
            raise QuizFileError(
                L(
                    f"{where.key(key)}'{key}' holds control characters or escape sequences",
                    f"{where.key(key)}'{key}' 含有控制字符或转义序列",
                )
            )
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise QuizFileError(
                L(
                    f"{where.key(key)}'{key}' must be a non-empty string",
                    f"{where.key(key)}'{key}' 必须是非空字符串",
                )
            )
    limit = data.get("time_limit_minutes")
    if limit is not None:
        try:
            check_time_limit(limit)
        except QuizFileError as error:
            at = where.key("time_limit_minutes")
            raise QuizFileError({lang: at + message for lang, message in error.text.items()}) from None
    results = data.get("results", "after-submit")
    if results not in RESULTS_WHEN:
        raise QuizFileError(
            L(
                f'{where.key("results")}results must be "after-submit" or "after-release"',
                f'{where.key("results")}results 只能是 "after-submit" 或 "after-release"',
            )
        )
    times = {
        key: _when(data[key], key, where.key(key))
        for key in ("created_at", "opens_at", "closes_at")
        if key in data
    }
    if "opens_at" in times and "closes_at" in times and times["closes_at"] <= times["opens_at"]:
        raise QuizFileError(
            L(
                f"{where.key('closes_at')}closes_at must come after opens_at",
                f"{where.key('closes_at')}closes_at 必须晚于 opens_at",
            )
        )
    signed = data.get("signed", False)
    if not isinstance(signed, bool):
        raise QuizFileError(
            L(
                f"{where.key('signed')}signed must be true or false",
                f"{where.key('signed')}signed 只能是 true 或 false",
            )
        )
    pins = data.get("pins", {})
    if (
        not isinstance(pins, dict)
        or len(pins) > MAX_PIN_CHECKS
        or not all(
            isinstance(check, str) and len(slot) <= 64 and len(check) <= 300 for slot, check in pins.items()
        )
    ):
        raise QuizFileError(
            L(
                f"{where.key('pins')}[pins] must map student slots to PIN checks (text)",
                f"{where.key('pins')}[pins] 必须把学生槽位映射到 PIN 校验（文本）",
            )
        )
    release_check = data.get("release_check")
    if release_check is not None and (not isinstance(release_check, str) or len(release_check) > 128):
        raise QuizFileError(
            L(
                f"{where.key('release_check')}release_check must be text",
                f"{where.key('release_check')}release_check 必须是文本",
            )
        )
    questions = data.get("questions")
    if not isinstance(questions, list) or not all(isinstance(q, dict) for q in questions):
        raise QuizFileError(
            L(
                'the quiz needs [[questions]] tables, each with exercise = "ID"',
                '测验需要 [[questions]] 表，每个写明 exercise = "ID"',
            )
        )
    exercise_ids, points, places = [], [], []
    for number, question in enumerate(questions):
        for key in question:
            if key not in QUESTION_KEYS:
                raise QuizFileError(
                    L(
                        f"{where.key(key, number)}unknown key {key!r} in [[questions]] (known: exercise, points)",
                        f"{where.key(key, number)}[[questions]] 中未知的键 {key!r}（可用：exercise、points）",
                    )
                )
        exercise = question.get("exercise")
        if not isinstance(exercise, str):
            raise QuizFileError(
                L(
                    f'{where.key("exercise", number)}every [[questions]] needs exercise = "ID"',
                    f'{where.key("exercise", number)}每个 [[questions]] 都要写 exercise = "ID"',
                )
            )
        exercise_ids.append(exercise)
        places.append(where.key("exercise", number))
        points.append(_points(question.get("points", 1), where.key("points", number), "points"))
    _check_exercises(exercise_ids, places)
    exercise_ids = [canonical_exercise(exercise_id) for exercise_id in exercise_ids]
    max_points = data.get("max_points")
    if max_points is not None:
        max_points = _points(max_points, where.key("max_points"), "max_points")
    return Quiz(
        data["id"],
        data["title"],
        data["salt"],
        tuple(exercise_ids),
        limit,
        None if all(p == 1 for p in points) else tuple(points),
        max_points,
        times.get("opens_at"),
        times.get("closes_at"),
        results,
        times.get("created_at"),
        signed,
        tuple(sorted(pins.items())),
        release_check,
    )


MAX_QUIZ_BYTES = 1_000_000  # a handout is a page of TOML


def load(path) -> Quiz:
    """The handout at ``path``: a regular file of at most MAX_QUIZ_BYTES (a FIFO or a
    device is refused, never waited on)."""
    from exercises.files import read_regular

    try:
        text = read_regular(path, MAX_QUIZ_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise QuizFileError(cannot("read", path, error)) from None
    return loads(text)


# -- variants -----------------------------------------------------------------


def seed_for(quiz: Quiz, student: str, index: int) -> int:
    """The variant of question ``index`` for ``student`` (the exact id: case and
    Unicode kept): the same on every machine, different between students."""
    digest = hashlib.sha256(f"{quiz.salt}\x1f{student}\x1f{index}".encode()).hexdigest()
    return int(digest[:12], 16) % SEED_SPACE


def questions_for(quiz: Quiz, student: str) -> list[Question]:
    return [
        Question(index, exercise, seed_for(quiz, student, index))
        for index, exercise in enumerate(quiz.exercises)
    ]
