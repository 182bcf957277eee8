"""Grading a class from files: every variant regenerated from (salt, student,
question) and every answer graded again, nothing a file says about its own score
believed. One bad file is one rejected file; the rest are always graded.

Identity (with a roster): a submission must name a roster student and carry an
HMAC keyed by that student's PIN; two valid submissions for one student are a
conflict, reported with both files and graded neither; a file that fails a check
makes its student ``rejected`` (never "did not submit": the teacher looks at it).
Time: submissions are flagged (late, outside the window, implausible clock, an
edited handout), never silently dropped.

Where grading runs (the calling process; the cores, for code-lab files) is
exercises/classroom/schedule.py's business; this module holds the rules."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from exercises.classroom.identity import Student, file_stem, signed_bytes, verify
from exercises.classroom.quiz import (
    ClassroomError,
    Question,
    Quiz,
    is_lab,
    plausible_time,
    questions_for,
    variant_fingerprint,
)
from exercises.classroom.schedule import spread
from exercises.classroom.submission import (
    Answer,
    Submission,
    SubmissionError,
    _error,
    is_autosave,
    parse_submission,
    read_json,
)
from exercises.text import Bilingual, L

# A gradebook row's status. Graded: handed in by the student (submitted), taken from what
# was saved when the time ran out or the teacher closed the quiz (taken at close, class
# server), either with extra time granted (extended), or graded while the quiz is still
# open and the student still answering (in progress: a provisional grade). Not graded:
# rejected (a file failed a check), did not submit, conflict (two different valid
# submissions).
SUBMITTED, AT_CLOSE, EXTENDED, IN_PROGRESS = "submitted", "taken at close", "extended", "in progress"
REJECTED, MISSING, CONFLICT = "rejected", "did not submit", "conflict"
GRADED_STATUSES = (SUBMITTED, AT_CLOSE, EXTENDED, IN_PROGRESS)
STATUSES = (*GRADED_STATUSES, REJECTED, MISSING, CONFLICT)
LAB_FILE_LABEL = L("Your file", "你的文件")
FLAGS = (
    "late",
    "before-open",
    "after-close",
    "clock-implausible",
    "no-times",
    "quiz-edited",
    "handout-edited",
    "unisolated",
)


def handed_in_status(by_the_student: bool, extended: bool, still_open: bool = False) -> str:
    """A graded exam's status: still being answered outranks all (the grade will change);
    then extra time granted (the gradebook's reader needs to know the clock differed);
    else whether the student handed it in or it was taken at the close."""
    if still_open:
        return IN_PROGRESS
    if extended:
        return EXTENDED
    return SUBMITTED if by_the_student else AT_CLOSE


@dataclass(frozen=True)
class QuestionGrade:
    index: int
    exercise: str
    seed: int
    score: float  # 0..1
    points: float  # score × the question's points
    answered: bool
    valid: bool
    diagnoses: tuple[str, ...] = ()
    feedback: tuple[tuple[Bilingual, Bilingual], ...] = ()  # (part label, what the grader said)
    choice: str | None = None  # the option picked, for choice questions
    rule: str | None = None  # a lab task: the first rule the student's file broke (or stopped, invalid)


@dataclass(frozen=True)
class StudentGrade:
    student: str
    questions: tuple[QuestionGrade, ...]
    maximum: float = 0.0
    name: str = ""
    status: str = SUBMITTED
    flags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    started_at: float | None = None
    submitted_at: float | None = None
    why: Bilingual | None = None  # rejected: what the (first) rejected file got wrong

    @property
    def graded(self) -> bool:
        return self.status in GRADED_STATUSES

    @functools.cached_property  # the gradebook and the report ask for it many times per student
    def total(self) -> float:
        return sum(question.points for question in self.questions)

    @property
    def percent(self) -> float:
        return 100.0 * self.total / self.maximum if self.maximum else 0.0


def grade_submission(quiz: Quiz, submission: Submission, memo: dict | None = None) -> StudentGrade:
    """Regenerate this student's variants once each and grade every answer against
    the question the student saw; unanswered = 0. SubmissionError when an answer
    names a question this student does not have (tampered, or the quiz was edited).

    ``memo`` (one per grading process) keeps each distinct (question, answer)'s
    result: students who got the same variant and wrote the same answer, or handed
    in the same lab file, are graded once."""
    if submission.quiz != quiz.id:
        raise _error(
            f"it is for quiz {submission.quiz[:40]!r}, not {quiz.id!r}",
            f"它属于测验 {submission.quiz[:40]!r}，不是 {quiz.id!r}",
        )
    current = questions_for(quiz, submission.student)
    edited = submission.quiz_hash is not None and submission.quiz_hash != quiz.question_hash
    handout = submission.rules is not None and submission.rules != quiz.rules_hash
    placed = _place_answers(current, submission, edited)
    graded = []
    for question in current:
        answer = placed.get(question.index)
        if is_lab(question.exercise):
            graded.append(_grade_lab(quiz, question, answer, submission, memo))
        else:
            graded.append(_grade_exercise(quiz, question, answer, submission, memo))
    return StudentGrade(
        submission.student,
        tuple(graded),
        quiz.maximum,
        flags=(("quiz-edited",) if edited else ()) + (("handout-edited",) if handout else ()),
        started_at=submission.started_at,
        submitted_at=submission.submitted_at,
    )


def _place_answers(current: list[Question], submission: Submission, edited: bool) -> dict[int, Answer]:
    """Each answer at the question the student saw (by exercise and seed), not at its number."""
    by_question = {(q.exercise, q.seed): q.index for q in current}
    placed: dict[int, Answer] = {}
    for index, answer in submission.answers.items():
        if answer.exercise is None:
            if index >= len(current):
                raise _error(
                    f"answer {index + 1}: the quiz has {len(current)} questions",
                    f"第 {index + 1} 题答案：测验只有 {len(current)} 题",
                )
            placed[index] = answer
            continue
        where = by_question.get((answer.exercise, answer.seed))
        if where is None:
            if edited:
                raise _error(
                    f"question {index + 1} as the student saw it ({answer.exercise}, seed {answer.seed}) is no longer in the quiz: it was edited after hand-out",
                    f"学生看到的第 {index + 1} 题（{answer.exercise}，种子 {answer.seed}）已不在测验中：测验在发放后被修改过",
                )
            raise _error(
                f"answer {index + 1} claims {answer.exercise} seed {answer.seed}, which is not this student's question",
                f"第 {index + 1} 题答案声称是 {answer.exercise} 种子 {answer.seed}，但这不是该学生的题目",
            )
        placed[where] = answer
    return placed


def _changed_since(question: Question, submission: Submission) -> SubmissionError:
    version = str(submission.payload.get("app_version", "?"))[:20]
    return _error(
        f"question {question.index + 1} ({question.exercise}) is no longer the one the student saw: the exercise changed since (taken with version {version}); grade with that version",
        f"第 {question.index + 1} 题（{question.exercise}）已不是学生看到的那道：练习在此后改变了（作答时的版本 {version}）；请用那个版本评分",
    )


def _unanswered(question: Question) -> QuestionGrade:
    return QuestionGrade(question.index, question.exercise, question.seed, 0.0, 0.0, False, False)


def _grade_exercise(
    quiz: Quiz, question: Question, answer: Answer | None, submission: Submission, memo: dict | None
) -> QuestionGrade:
    exercise, labels = _exercise_parts(question.exercise)
    parts = {p: text for p, text in (answer.parts if answer else {}).items() if p in labels}
    if not any(text.strip() for text in parts.values()):
        return _unanswered(question)
    variant = exercise.generate(question.seed)
    if answer.variant is not None and answer.variant != variant_fingerprint(variant):
        raise _changed_since(question, submission)
    key = None
    if memo is not None:  # what the grade depends on: the variant's content (not its seed) and the answer
        key = (question.exercise, shown_question(exercise, variant), tuple(sorted(parts.items())))
        if key in memo:
            return _at(memo[key], question, quiz.points_of(question.index))
    result = exercise.grade(variant, parts)
    score = result.score or 0.0
    graded = QuestionGrade(
        question.index,
        question.exercise,
        question.seed,
        score,
        score * quiz.points_of(question.index),
        True,
        result.valid,
        tuple(result.diagnoses),
        tuple((labels[name], part.feedback) for name, part in result.parts.items()),
        parts.get("choice") if exercise.kind == "choice" else None,
    )
    if key is not None:
        memo[key] = graded
    return graded


def _exercise_parts(exercise_id: str):
    """An exercise and its parts' labels by name."""
    from exercises.catalogue import get

    exercise = get(exercise_id)
    return exercise, {part.name: part.label for part in exercise.parts}


def shown_question(exercise, variant) -> str:
    """What decides a variant's content, seed aside: an item that draws its question's
    parameters names them (``variant.question``, already computed); any other variant is
    its content written out. Equal keys, equal questions: a test holds every item to it."""
    if exercise.draw is not None and variant.question:
        return variant.question
    return json.dumps([variant.data, variant.prompt], sort_keys=True, default=str)


def _at(graded: QuestionGrade, question: Question, points: float) -> QuestionGrade:
    """A remembered result placed at this student's question."""
    return replace(graded, index=question.index, seed=question.seed, points=graded.score * points)


def _grade_lab(
    quiz: Quiz, question: Question, answer: Answer | None, submission: Submission, memo: dict | None
) -> QuestionGrade:
    """The student's file, run against the task's rules in the lab's sandbox."""
    from exercises.lab.grading import SOURCE_PART, grade_source, task_fingerprint, task_of

    source = (answer.parts if answer else {}).get(SOURCE_PART, "")
    if not source.strip():
        return _unanswered(question)
    if answer.variant is not None and answer.variant != task_fingerprint(question.exercise):
        raise _changed_since(question, submission)
    task = task_of(question.exercise)
    key = ("lab", task.id, source)
    if memo is not None and key in memo:
        return _at(memo[key], question, quiz.points_of(question.index))
    result = grade_source(task.id, source)
    graded = QuestionGrade(
        question.index,
        question.exercise,
        question.seed,
        result.score,
        result.score * quiz.points_of(question.index),
        True,
        result.valid,
        result.diagnoses,
        ((LAB_FILE_LABEL, result.feedback),),
        rule=result.rule,
    )
    if memo is not None:
        memo[key] = graded
    return graded


def time_flags(
    quiz: Quiz, submission: Submission, grace_minutes: float, now: float | None = None
) -> tuple[str, ...]:
    """What the timestamps in a file say, checked against the quiz's rules. A file's
    times are the student's computer's: they show lateness, they cannot prove punctuality."""
    import time

    grace = 60.0 * grace_minutes
    started, submitted = submission.started_at, submission.submitted_at
    if started is None or submitted is None:
        return ("no-times",)
    flags = []
    now = time.time() if now is None else now
    if submitted < started or not all(plausible_time(quiz, t, now) for t in (started, submitted)):
        flags.append("clock-implausible")
    if quiz.time_limit_minutes is not None and submitted > started + 60 * quiz.time_limit_minutes + grace:
        flags.append("late")
    if quiz.opens_at is not None and started < quiz.opens_at - grace:
        flags.append("before-open")
    if quiz.closes_at is not None and submitted > quiz.closes_at + grace:
        flags.append("after-close")
    return tuple(flags)


@dataclass
class ClassResult:
    grades: list[StudentGrade] = field(default_factory=list)  # every roster student, then the others
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (file, why), in English
    rejected_text: list[tuple[str, Bilingual]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # autosaves among the files
    conflicts: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (student, files)

    def reject(self, path: str, error: SubmissionError) -> None:
        self.rejected.append((path, str(error)))
        self.rejected_text.append((path, error.text))

    @property
    def graded(self) -> list[StudentGrade]:
        return [grade for grade in self.grades if grade.graded]


def grade_all(
    quiz: Quiz, submissions: Sequence[Submission], workers: int | None = None
) -> list[StudentGrade | SubmissionError]:
    """Each submission's grade, or why it cannot be graded, in order: here, or for a quiz
    with code-lab files on the machine's cores (schedule.py)."""
    return spread(grade_here, quiz, submissions, workers)


def grade_here(quiz: Quiz, submissions: Sequence[Submission]) -> list[StudentGrade | SubmissionError]:
    """grade_all in this process (one memo for them all)."""
    memo: dict = {}
    out: list[StudentGrade | SubmissionError] = []
    for submission in submissions:
        try:
            out.append(grade_submission(quiz, submission, memo))
        except SubmissionError as error:
            out.append(error)
    return out


def lab_files_unisolated(quiz: Quiz, unisolated: bool) -> bool:
    """Whether this quiz's lab files will run without the OS's isolation: False where the
    machine isolates them (or the quiz has no lab task); True only when the teacher asked
    for it by name. Otherwise grading stops here, before any student's code has run: a
    student's file would get the teacher's rights over their files, processes and network."""
    if not any(is_lab(exercise_id) for exercise_id in quiz.exercises):
        return False
    from exercises.lab.isolation import probe

    report = probe()
    if report.isolated:
        return False
    if not unisolated:
        why = report.reasons()
        raise ClassroomError(
            L(
                f"this computer cannot isolate students' lab files ({why['en']}): running them would give "
                "their code your rights. Grade on a Linux with Landlock and seccomp, or accept the risk "
                "with --run-student-code-unisolated",
                f"这台电脑无法隔离学生的实验文件（{why['zh']}）：运行它们等于把你的权限交给学生的代码。"
                "请在有 Landlock 和 seccomp 的 Linux 上评分，或者用 --run-student-code-unisolated 自行承担风险",
            )
        )
    return True


def grade_class(
    quiz: Quiz,
    paths: Iterable[Path],
    roster: Sequence[Student] | None = None,
    grace_minutes: float = 1.0,
    now: float | None = None,
    workers: int | None = None,
    unisolated: bool = False,
) -> ClassResult:
    """Read, check, and grade every file; see the module's docstring for the rules.
    ``unisolated``: the teacher accepts running lab files where the OS cannot isolate them
    (``lab_files_unisolated``)."""

    def received():
        for path in paths:
            try:
                yield str(path), read_json(Path(path))
            except SubmissionError as error:
                yield str(path), error

    return grade_payloads(quiz, received(), roster, grace_minutes, now, workers, unisolated)


def grade_payloads(
    quiz: Quiz,
    received: Iterable[tuple[str, object]],
    roster: Sequence[Student] | None = None,
    grace_minutes: float = 1.0,
    now: float | None = None,
    workers: int | None = None,
    unisolated: bool = False,
) -> ClassResult:
    """Grade submissions already in memory: (where it came from, the decoded JSON) pairs,
    e.g. rows of a class database; a SubmissionError in place of the JSON is a file that
    could not be read. The same checks as files get (shape, quiz, roster, signature,
    conflicts, times); ``where`` names the submission in the report.

    Each student's first valid submission is graded; a later different one makes a
    conflict, and that student's grade is dropped.

    Where the machine cannot isolate lab files, ClassroomError before anything runs,
    unless ``unisolated``; then each row with a lab file run is flagged ``unisolated``."""
    flag_labs = lab_files_unisolated(quiz, unisolated)
    result = ClassResult()
    by_id = {student.id: student for student in roster} if roster is not None else None
    stems = {file_stem(student.id): student.id for student in roster or ()}
    claims: dict[str, list[tuple[str, Submission]]] = {}
    refused: dict[str, list[tuple[str, SubmissionError]]] = {}  # student -> their rejected files

    def reject(where: str, error: SubmissionError, student: str | None) -> None:
        result.reject(where, error)
        if student is not None:
            refused.setdefault(student, []).append((where, error))

    for where, payload in received:
        if _not_a_submission(where, payload):  # even unreadable: a touched release file is no rejection
            result.skipped.append(where)
            continue
        if isinstance(payload, SubmissionError):
            reject(where, payload, _claimant(where, None, by_id, stems))
            continue
        try:
            submission = _claim(quiz, where, payload, by_id)
        except SubmissionError as error:
            reject(where, error, _claimant(where, payload, by_id, stems))
            continue
        claims.setdefault(submission.student, []).append((where, submission))
    first = [found[0][1] for found in claims.values()]
    outcomes = dict(zip((s.student for s in first), grade_all(quiz, first, workers), strict=True))
    conflicted: dict[str, tuple[str, ...]] = {}
    for student, found in claims.items():
        if len(found) > 1 and len({signed_bytes(submission.payload) for _, submission in found}) > 1:
            conflicted[student] = tuple(where for where, _ in found)
            result.conflicts.append((student, conflicted[student]))
    files = {student: tuple(where for where, _ in found) for student, found in claims.items()}
    graded: dict[str, StudentGrade] = {}
    for submission in first:
        outcome = outcomes[submission.student]
        if submission.student in conflicted:
            continue
        if isinstance(outcome, SubmissionError):
            for where in files[submission.student]:
                reject(where, outcome, submission.student)
            continue
        flags = outcome.flags + time_flags(quiz, submission, grace_minutes, now)
        if flag_labs and any(is_lab(q.exercise) and q.answered for q in outcome.questions):
            flags += ("unisolated",)
        graded[submission.student] = replace(outcome, flags=flags, files=files[submission.student])
    empty = tuple(_unanswered(q) for q in questions_for(quiz, ""))
    names = {student.id: student.name for student in roster or ()}
    order = [student.id for student in roster or ()]
    order += sorted((set(graded) | set(conflicted) | set(refused)) - set(order))
    for student in order:
        name = names.get(student, "")
        if student in graded:
            result.grades.append(replace(graded[student], name=name))
        elif student in conflicted:
            result.grades.append(
                StudentGrade(student, empty, quiz.maximum, name, CONFLICT, files=conflicted[student])
            )
        elif student in refused:
            where = tuple(dict.fromkeys(place for place, _ in refused[student]))
            why = refused[student][0][1].text
            result.grades.append(
                StudentGrade(student, empty, quiz.maximum, name, REJECTED, files=where, why=why)
            )
        else:
            result.grades.append(StudentGrade(student, empty, quiz.maximum, name, MISSING))
    return result


def _claimant(
    where: str, payload: object, by_id: dict[str, Student] | None, stems: dict[str, str]
) -> str | None:
    """Whose row a rejected file belongs to: the student it names (a roster student, when
    there is a roster), else the roster student whose file name it has; None if neither
    (junk that names nobody adds no row)."""
    named = payload.get("student") if isinstance(payload, dict) else None
    readable = isinstance(named, str) and 0 < len(named) <= 200 and named == named.strip()
    if readable and (by_id is None or named in by_id):
        return named
    return stems.get(Path(where).name.split(".", 1)[0])


def _not_a_submission(where: str, payload: object) -> bool:
    """An autosave or a release file, by its name (or an autosave by its kind)."""
    return is_autosave(Path(where), payload) or where.endswith(".release.json")


def _claim(quiz: Quiz, where: str, payload: object, by_id: dict[str, Student] | None) -> Submission:
    """The submission in ``payload``, checked (shape, quiz, roster, signature).
    SubmissionError says why not."""
    submission = parse_submission(payload)
    if submission.quiz != quiz.id:
        raise _error(
            f"it is for quiz {submission.quiz[:40]!r}, not {quiz.id!r}",
            f"它属于测验 {submission.quiz[:40]!r}，不是 {quiz.id!r}",
        )
    if by_id is not None:
        student = by_id.get(submission.student)
        if student is None:
            raise _error("its student id is not on the roster", "它的学号不在名单上")
        if not verify(payload, student):
            raise _error(
                f"its signature does not match {submission.student}'s PIN: forged, edited, or signed with another PIN",
                f"签名与 {submission.student} 的 PIN 不符：伪造、被改动或用了别人的 PIN",
            )
    return submission
