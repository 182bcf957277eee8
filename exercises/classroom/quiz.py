"""Classroom quizzes: a definition in TOML, one variant per (quiz, student,
question), submissions as JSON, and grading that trusts nothing a submission
says about its own score: every answer is graded again from the regenerated
variant."""

from __future__ import annotations

import hashlib
import json
import secrets
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from exercises.catalogue import BY_ID, get
from exercises.text import pick

SEED_SPACE = 2**31


class QuizFileError(ValueError):
    """A quiz definition that cannot be used; the message names the line where it can."""


class SubmissionError(ValueError):
    """A submission that cannot be graded; reported per file."""


@dataclass(frozen=True)
class Quiz:
    id: str
    title: str
    salt: str
    exercises: tuple[str, ...]
    time_limit_minutes: int | None = None


@dataclass(frozen=True)
class Question:
    index: int
    exercise: str
    seed: int


def new_quiz(title: str, exercise_ids: Sequence[str], time_limit_minutes: int | None = None) -> Quiz:
    """A quiz with a fresh random id and salt (the salt decides every student's variants)."""
    _check_exercises(exercise_ids)
    if time_limit_minutes is not None and time_limit_minutes < 1:
        raise QuizFileError("the time limit must be at least 1 minute")
    return Quiz(
        id=f"quiz-{secrets.token_hex(4)}",
        title=title.strip() or "Quiz",
        salt=secrets.token_hex(16),
        exercises=tuple(exercise_ids),
        time_limit_minutes=time_limit_minutes,
    )


def _check_exercises(exercise_ids: Sequence[str], text: str | None = None) -> None:
    if not exercise_ids:
        raise QuizFileError("a quiz needs at least one exercise")
    for exercise_id in exercise_ids:
        where = _line_of(text, exercise_id)
        if exercise_id not in BY_ID:
            raise QuizFileError(f"{where}unknown exercise {exercise_id!r} (see `objectives-tutor exercises`)")
        if not BY_ID[exercise_id].graded:
            raise QuizFileError(f"{where}{exercise_id} is self-marked, so it cannot be graded in a quiz")


def _line_of(text: str | None, needle: str) -> str:
    if text is None:
        return ""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return f"line {number}: "
    return ""


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string


def dump_toml(quiz: Quiz) -> str:
    """The quiz as TOML a teacher can read and edit (the format is in the README)."""
    lines = [
        "# objectives-tutor quiz. Every student gets their own variant of each question,",
        "# derived from (salt, student id, question number): do not change the salt once",
        "# the quiz has been handed out.",
        f"id = {_toml_string(quiz.id)}",
        f"title = {_toml_string(quiz.title)}",
        f"salt = {_toml_string(quiz.salt)}",
    ]
    if quiz.time_limit_minutes is not None:
        lines.append(f"time_limit_minutes = {int(quiz.time_limit_minutes)}")
    for exercise in quiz.exercises:
        lines += ["", "[[questions]]", f"exercise = {_toml_string(exercise)}"]
    return "\n".join(lines) + "\n"


def loads(text: str) -> Quiz:
    """Read a quiz definition; QuizFileError (with the line) on anything wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise QuizFileError(f"not valid TOML: {error}") from None
    known = {"id", "title", "salt", "time_limit_minutes", "questions"}
    for key in data:
        if key not in known:
            raise QuizFileError(
                f"{_line_of(text, key)}unknown key {key!r} (known: {', '.join(sorted(known))})"
            )
    for question in data.get("questions", []) if isinstance(data.get("questions"), list) else []:
        for key in question if isinstance(question, dict) else ():
            if key != "exercise":
                raise QuizFileError(
                    f"{_line_of(text, key)}unknown key {key!r} in [[questions]] (only exercise)"
                )
    for key, kind in (("id", str), ("title", str), ("salt", str)):
        if not isinstance(data.get(key), kind) or not data[key].strip():
            raise QuizFileError(f"{_line_of(text, key + ' =') or ''}'{key}' must be a non-empty string")
    limit = data.get("time_limit_minutes")
    if limit is not None and (
        not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 24 * 60
    ):
        raise QuizFileError(
            f"{_line_of(text, 'time_limit_minutes')}time_limit_minutes must be a whole number from 1 to 1440"
        )
    questions = data.get("questions")
    if not isinstance(questions, list) or not all(isinstance(q, dict) for q in questions):
        raise QuizFileError('the quiz needs [[questions]] tables, each with exercise = "ID"')
    exercise_ids = []
    for question in questions:
        exercise = question.get("exercise")
        if not isinstance(exercise, str):
            raise QuizFileError(f'{_line_of(text, "[[questions]]")}every [[questions]] needs exercise = "ID"')
        exercise_ids.append(exercise)
    _check_exercises(exercise_ids, text)
    return Quiz(data["id"], data["title"], data["salt"], tuple(exercise_ids), limit)


def load(path: Path) -> Quiz:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise QuizFileError(f"cannot read {path}: {error}") from None
    return loads(text)


def seed_for(quiz: Quiz, student: str, index: int) -> int:
    """The variant of question ``index`` for ``student``: the same on every machine,
    different between students (and unguessable without the salt)."""
    digest = hashlib.sha256(f"{quiz.salt}\x1f{student.strip()}\x1f{index}".encode()).hexdigest()
    return int(digest[:12], 16) % SEED_SPACE


def questions_for(quiz: Quiz, student: str) -> list[Question]:
    return [
        Question(index, exercise, seed_for(quiz, student, index))
        for index, exercise in enumerate(quiz.exercises)
    ]


# -- submissions ------------------------------------------------------------


@dataclass(frozen=True)
class Submission:
    quiz: str
    student: str
    answers: dict[int, dict[str, str]]
    timeline: dict[str, list] = field(default_factory=dict)


def parse_submission(payload: object) -> Submission:
    """Validate a submission's shape. Anything else in it (a claimed score, say) is ignored."""
    if not isinstance(payload, dict):
        raise SubmissionError("not a JSON object")
    quiz, student, answers = payload.get("quiz"), payload.get("student"), payload.get("answers")
    if not isinstance(quiz, str) or not isinstance(student, str) or not student.strip():
        raise SubmissionError("missing 'quiz' or 'student'")
    if not isinstance(answers, dict):
        raise SubmissionError("'answers' must map question numbers to {part: text}")
    parsed: dict[int, dict[str, str]] = {}
    for key, parts in answers.items():
        if not (isinstance(key, str) and key.isdigit()) or not isinstance(parts, dict):
            raise SubmissionError(f"answer {key!r} is not a question number with {{part: text}}")
        if not all(isinstance(name, str) and isinstance(text, str) for name, text in parts.items()):
            raise SubmissionError(f"answer {key}: every part must be text")
        parsed[int(key)] = dict(parts)
    timeline = payload.get("timeline") if isinstance(payload.get("timeline"), dict) else {}
    return Submission(quiz, student.strip(), parsed, timeline)


def load_submission(path: Path) -> Submission:
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise SubmissionError(f"cannot read it: {error}") from None
    except json.JSONDecodeError as error:
        raise SubmissionError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}"
        ) from None
    return parse_submission(payload)


# -- grading ----------------------------------------------------------------


@dataclass(frozen=True)
class QuestionGrade:
    index: int
    exercise: str
    seed: int
    score: float
    valid: bool
    diagnoses: tuple[str, ...]


@dataclass(frozen=True)
class StudentGrade:
    student: str
    questions: tuple[QuestionGrade, ...]

    @property
    def total(self) -> float:
        return sum(question.score for question in self.questions)

    @property
    def percent(self) -> float:
        return 100.0 * self.total / len(self.questions) if self.questions else 0.0


def grade_submission(quiz: Quiz, submission: Submission) -> StudentGrade:
    """Regenerate the student's variants and grade every answer; unanswered = 0."""
    if submission.quiz != quiz.id:
        raise SubmissionError(f"it is for quiz {submission.quiz!r}, not {quiz.id!r}")
    graded = []
    for question in questions_for(quiz, submission.student):
        exercise = get(question.exercise)
        answer = {
            part: text
            for part, text in submission.answers.get(question.index, {}).items()
            if part in exercise.part_names()
        }
        if answer:
            result = exercise.grade(exercise.generate(question.seed), answer)
            graded.append(
                QuestionGrade(
                    question.index,
                    question.exercise,
                    question.seed,
                    result.score or 0.0,
                    result.valid,
                    tuple(result.diagnoses),
                )
            )
        else:
            graded.append(QuestionGrade(question.index, question.exercise, question.seed, 0.0, False, ()))
    return StudentGrade(submission.student, tuple(graded))


@dataclass
class ClassResult:
    grades: list[StudentGrade] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (file, why)


def grade_class(quiz: Quiz, paths: Iterable[Path]) -> ClassResult:
    """Grade every file; a bad file, another quiz's file or a second file from the
    same student is rejected with its reason and the others are still graded."""
    result = ClassResult()
    seen: dict[str, str] = {}
    for path in paths:
        try:
            submission = load_submission(path)
            if submission.student in seen:
                raise SubmissionError(
                    f"student {submission.student!r} already submitted in {seen[submission.student]}"
                )
            result.grades.append(grade_submission(quiz, submission))
            seen[submission.student] = str(path)
        except SubmissionError as error:
            result.rejected.append((str(path), str(error)))
    return result


def gradebook_csv(quiz: Quiz, grades: Sequence[StudentGrade]) -> str:
    """student, one column per question (points, 0..1), total, percent."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "student",
            *(f"q{i + 1} {exercise}" for i, exercise in enumerate(quiz.exercises)),
            "total",
            "percent",
        ]
    )
    for grade in sorted(grades, key=lambda g: g.student):
        writer.writerow(
            [
                grade.student,
                *(f"{q.score:.2f}" for q in grade.questions),
                f"{grade.total:.2f}",
                f"{grade.percent:.1f}",
            ]
        )
    return out.getvalue()


def report_markdown(quiz: Quiz, result: ClassResult, lang: str = "en") -> str:
    """The class report: mean per question, the commonest misconceptions with who
    hit them, and the questions most students got wrong."""
    from exercises.grading.diagnoses import explain

    zh = lang == "zh"
    grades = result.grades
    lines = [f"# {quiz.title} ({quiz.id})", ""]
    lines.append(
        f"{len(grades)} {'份提交已评分' if zh else 'submissions graded'}"
        + (f", {len(result.rejected)} {'份被拒收' if zh else 'rejected'}" if result.rejected else "")
        + "."
    )
    if grades:
        mean = sum(g.percent for g in grades) / len(grades)
        lines.append(f"{'平均分' if zh else 'Class mean'}: {mean:.1f}%")
    lines += ["", "## " + ("每题平均分" if zh else "Mean per question"), ""]
    lines += [
        "| # | "
        + ("练习" if zh else "exercise")
        + " | "
        + ("平均" if zh else "mean")
        + " | "
        + ("全对" if zh else "fully right")
        + " |",
        "| --- | --- | --- | --- |",
    ]
    wrong_counts = []
    for index, exercise in enumerate(quiz.exercises):
        scores = [g.questions[index].score for g in grades]
        right = sum(1 for s in scores if s >= 1.0 - 1e-9)
        mean = sum(scores) / len(scores) if scores else 0.0
        wrong_counts.append((len(scores) - right, index, exercise))
        lines.append(f"| {index + 1} | {exercise} | {mean:.2f} | {right}/{len(scores)} |")
    who: dict[str, list[str]] = {}
    counts: Counter[str] = Counter()
    for grade in grades:
        for question in grade.questions:
            for code in question.diagnoses:
                counts[code] += 1
                who.setdefault(code, []).append(grade.student)
    lines += ["", "## " + ("最常见的误区" if zh else "Most common misconceptions"), ""]
    if not counts:
        lines.append("-")
    for code, count in counts.most_common(10):
        students = ", ".join(sorted(set(who[code])))
        lines.append(
            f"- **{code}** × {count} — {pick(explain(code), lang)} ({'学生' if zh else 'students'}: {students})"
        )
    lines += ["", "## " + ("答错最多的题" if zh else "Questions most students got wrong"), ""]
    ranked = sorted(
        (w for w in wrong_counts if w[0] and 2 * w[0] >= len(grades)), key=lambda w: (-w[0], w[1])
    )
    if not ranked:
        lines.append("-")
    for wrong, index, exercise in ranked[:5]:
        lines.append(
            f"- {'第' if zh else 'Question '}{index + 1}{'题' if zh else ''} ({exercise}): {wrong}/{len(grades)}"
        )
    if result.rejected:
        lines += ["", "## " + ("被拒收的文件" if zh else "Rejected files"), ""]
        lines += [f"- `{path}`: {why}" for path, why in result.rejected]
    return "\n".join(lines) + "\n"
