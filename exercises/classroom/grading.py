"""Grading a class from files: every variant regenerated from (salt, student,
question) and every answer graded again, nothing a file says about its own score
believed. One bad file is one rejected file; the rest are always graded.

Identity (with a roster): a submission must name a roster student and carry an
HMAC keyed by that student's PIN; two valid submissions for one student are a
conflict, reported with both files and graded neither. Time: submissions are
flagged (late, outside the window, implausible clock), never silently dropped."""

from __future__ import annotations

import functools
import gc
import json
import os
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

GRADED, MISSING, CONFLICT = "graded", "did not submit", "conflict"
LAB_FILE_LABEL = L("Your file", "你的文件")
FLAGS = ("late", "before-open", "after-close", "clock-implausible", "no-times", "quiz-edited", "unisolated")
PARALLEL_FROM = 60  # students; fewer are graded in this process
RUNNABLE_NOW = "/proc/loadavg"  # Linux: its 4th field counts the tasks ready to run right now


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
    status: str = GRADED
    flags: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    started_at: float | None = None
    submitted_at: float | None = None

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
        flags=("quiz-edited",) if edited else (),
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
        return [grade for grade in self.grades if grade.status == GRADED]


def _grade_many(
    quiz: Quiz, submissions: Sequence[Submission], share: bool = True
) -> list[StudentGrade | SubmissionError]:
    memo = _MEMO if share else None
    out: list[StudentGrade | SubmissionError] = []
    for submission in submissions:
        try:
            out.append(grade_submission(quiz, submission, memo))
        except SubmissionError as error:
            out.append(error)
    return out


_MEMO: dict = {}  # one grading run's results by (question, answer); forked workers start from it


def _warm(quiz: Quiz) -> None:
    """Load, once and before forking, what grading will need: torch (one thread: many tiny
    tensors, where a thread pool costs more than it gives, 50x on a busy machine), each
    exercise's engine modules, and the lab's checks. Forked workers inherit all of it
    instead of importing it once each."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # pragma: no cover - the engine always has torch
        pass
    from exercises.catalogue import get

    for exercise_id in dict.fromkeys(quiz.exercises):
        if is_lab(exercise_id):
            import exercises.lab.checks  # noqa: F401
        else:
            get(exercise_id).generate(0)


def grade_all(
    quiz: Quiz, submissions: Sequence[Submission], workers: int | None = None, fast: bool = True
) -> list[StudentGrade | SubmissionError]:
    """Grade every submission, in order. ``fast`` (the default): remembered results for
    answers already graded, and a large class (or any lab task) spread over the
    machine's cores by forked workers, each regenerating only its own students'
    variants. ``fast=False`` is the plain reference a test compares it with."""
    with _Grader(quiz, workers, fast, len(submissions)) as grader:
        for submission in submissions:
            grader.add(submission)
        return grader.results()


class _Grader:
    """Grading fed one submission at a time, while the rest are still being read: with
    workers, every CHUNK submissions go to the pool at once, so reading the files (JSON,
    shapes, signatures) overlaps grading instead of coming before it."""

    CHUNK = 16  # small: a core slowed by other work takes fewer chunks

    def __init__(self, quiz: Quiz, workers: int | None, fast: bool, expected: int | None) -> None:
        _warm(quiz)
        _MEMO.clear()
        self.quiz, self.fast = quiz, fast
        self.pending: list[Submission] = []
        self.futures: list = []
        labs = any(is_lab(exercise_id) for exercise_id in quiz.exercises)
        workers = workers if workers is not None else _default_workers(labs)
        small = expected is not None and expected < (2 if labs else PARALLEL_FROM)
        self.pool = None
        if fast and workers >= 2 and not small and "fork" in _start_methods():
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            context = multiprocessing.get_context("fork")  # after _warm: workers inherit torch
            self.pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_forked_worker)

    def __enter__(self) -> _Grader:
        self.collecting = gc.isenabled()
        if self.fast:
            # No cyclic garbage collection while grading: a class's grading makes none (0 objects
            # found after 500 students), yet each full collection walked the ~200,000 objects of
            # torch and the app: 0.2–0.4 s of CPU a class. Frozen, they are not walked at all,
            # nor copied into forked workers (forked at the first chunk) by the collector.
            gc.freeze()
            gc.disable()
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
        if self.fast:
            gc.unfreeze()
            if self.collecting:
                gc.enable()

    def add(self, submission: Submission) -> None:
        if self.pool is None:
            self.pending.append(submission)
            return
        self.pending.append(
            replace(submission, payload={"app_version": submission.payload.get("app_version")})
        )
        if len(self.pending) >= self.CHUNK:
            self._send()

    def _send(self) -> None:
        """The pending chunk to the pool; once a worker has died the pool takes no more, and the
        chunk waits (future None) to be graded here by ``results``."""
        from concurrent.futures.process import BrokenProcessPool

        if self.pending:
            try:
                future = self.pool.submit(_grade_many, self.quiz, self.pending)
            except BrokenProcessPool:
                future = None
            self.futures.append((future, self.pending))
            self.pending = []

    def results(self) -> list[StudentGrade | SubmissionError]:
        """Every submission's grade (or why it cannot be graded), in the order added. A
        worker that died (killed, out of memory) costs time, never grades: its chunks, and
        those the broken pool refused, are graded here."""
        from concurrent.futures.process import BrokenProcessPool

        if self.pool is None:
            return _grade_many(self.quiz, self.pending, share=self.fast)
        self._send()
        out: list[StudentGrade | SubmissionError] = []
        for future, chunk in self.futures:
            try:
                graded = None if future is None else future.result()
            except BrokenProcessPool:
                graded = None
            out.extend(graded if graded is not None else _grade_many(self.quiz, chunk, share=self.fast))
        return out


def _default_workers(labs: bool) -> int:
    """The cores that are free now (at most 4). A core another program keeps busy gives a
    worker no time of its own (the kernel shares the CPU fairly between sessions), only the
    cost of a fork: on this 2-core machine under load, one process grades 500 students in
    less CPU and less time than two. Lab files wait on their sandboxes (an endless loop
    runs out its time limit), so they always use every core."""
    cores = len(os.sched_getaffinity(0))
    if labs:
        return min(cores, 4)
    free = cores - busy_elsewhere()
    return max(1, min(cores, 4, int(free + 0.5)))


def busy_elsewhere(samples: int = 3, gap: float = 0.004) -> float:
    """How many cores other programs keep busy now: the tasks ready to run at this instant
    (the kernel's count in /proc/loadavg), less this process, the least of a few reads so a
    passing process does not count. Not the 1-minute load average: it lags by a minute, and
    a teacher grading twice in a row would find the first grading's own load in it."""
    import time

    counts = []
    for _ in range(samples):
        try:
            with open(RUNNABLE_NOW, encoding="ascii") as handle:
                counts.append(int(handle.read().split()[3].partition("/")[0]) - 1)
        except (OSError, ValueError, IndexError):  # not Linux: the load average is all there is
            return os.getloadavg()[0]
        time.sleep(gap)
    return float(max(0, min(counts)))


def _forked_worker() -> None:
    """A forked worker runs lab files through a fork server of its own: the parent's (if it
    started one) answers on a socket only the parent may use. Stopped when the worker ends."""
    import sys
    from multiprocessing.util import Finalize

    sandbox = sys.modules.get("exercises.lab.sandbox")
    if sandbox is not None:
        sandbox._zygote = None  # forget, do not stop: it is the parent's
        Finalize(None, sandbox.shutdown, exitpriority=10)


def _start_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


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
    fast: bool = True,
    unisolated: bool = False,
) -> ClassResult:
    """Read, check, and grade every file; see the module's docstring for the rules.
    ``unisolated``: the teacher accepts running lab files where the OS cannot isolate them
    (``lab_files_unisolated``)."""
    result = ClassResult()
    paths = list(paths)

    def received():  # read lazily: grading starts while later files are still being read
        for path in paths:
            try:
                yield str(path), read_json(Path(path))
            except SubmissionError as error:
                result.reject(str(path), error)

    return grade_payloads(
        quiz, received(), roster, grace_minutes, now, workers, fast, result, len(paths), unisolated
    )


def grade_payloads(
    quiz: Quiz,
    received: Iterable[tuple[str, object]],
    roster: Sequence[Student] | None = None,
    grace_minutes: float = 1.0,
    now: float | None = None,
    workers: int | None = None,
    fast: bool = True,
    result: ClassResult | None = None,
    expected: int | None = None,
    unisolated: bool = False,
) -> ClassResult:
    """Grade submissions already in memory: (where it came from, the decoded JSON) pairs,
    e.g. rows of a class database. The same checks as files get (shape, quiz, roster,
    signature, conflicts, times); ``where`` names the submission in the report.

    Each student's first valid submission is sent to grading at once; a later different
    one makes a conflict, and the grade already made for that student is dropped.

    Where the machine cannot isolate lab files, ClassroomError before anything runs,
    unless ``unisolated``; then each row with a lab file run is flagged ``unisolated``."""
    flag_labs = lab_files_unisolated(quiz, unisolated)
    result = result if result is not None else ClassResult()
    if expected is None and isinstance(received, Sequence):
        expected = len(received)
    by_id = {student.id: student for student in roster} if roster is not None else None
    claims: dict[str, list[tuple[str, Submission]]] = {}
    with _Grader(quiz, workers, fast, expected) as grader:
        for where, payload in received:
            try:
                submission = _claim(quiz, where, payload, by_id, result)
            except SubmissionError as error:
                result.reject(where, error)
                continue
            if submission is None:
                continue
            claims.setdefault(submission.student, []).append((where, submission))
            if len(claims[submission.student]) == 1:
                grader.add(submission)
        first = [found[0][1] for found in claims.values()]
        outcomes = dict(zip((s.student for s in first), grader.results(), strict=True))
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
                result.reject(where, outcome)
            continue
        flags = outcome.flags + time_flags(quiz, submission, grace_minutes, now)
        if flag_labs and any(is_lab(q.exercise) and q.answered for q in outcome.questions):
            flags += ("unisolated",)
        graded[submission.student] = replace(outcome, flags=flags, files=files[submission.student])
    empty = tuple(_unanswered(q) for q in questions_for(quiz, ""))
    names = {student.id: student.name for student in roster or ()}
    order = [student.id for student in roster or ()]
    order += sorted(set(graded) - set(order)) + sorted(set(conflicted) - set(order) - set(graded))
    for student in order:
        if student in graded:
            result.grades.append(replace(graded[student], name=names.get(student, "")))
        elif student in conflicted:
            result.grades.append(
                StudentGrade(
                    student, empty, quiz.maximum, names.get(student, ""), CONFLICT, files=conflicted[student]
                )
            )
        else:
            result.grades.append(StudentGrade(student, empty, quiz.maximum, names.get(student, ""), MISSING))
    return result


def _claim(
    quiz: Quiz, where: str, payload: object, by_id: dict[str, Student] | None, result: ClassResult
) -> Submission | None:
    """The submission in ``payload``, checked (shape, quiz, roster, signature); None for
    an autosave or a release file (noted as skipped). SubmissionError says why not."""
    if is_autosave(Path(where), payload) or where.endswith(".release.json"):
        result.skipped.append(where)
        return None
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
        if not verify(payload, student.pin):
            raise _error(
                f"its signature does not match {submission.student}'s PIN: forged, edited, or signed with another PIN",
                f"签名与 {submission.student} 的 PIN 不符：伪造、被改动或用了别人的 PIN",
            )
    return submission


def release_stem(quiz: Quiz) -> str:
    """The name of the file ``quiz release`` writes beside the submissions."""
    return f"{file_stem(quiz.id)}.release.json"
