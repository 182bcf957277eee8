"""A student taking a quiz: the clock starts when the quiz opens and is saved at
once; answers are saved as they are typed (a crash or kill -9 resumes where it
was); one window per quiz (a lock); a submitted quiz stays submitted; the
submission is signed with the student's PIN.

The autosave is outside input too (a student can edit it): its shape is checked,
and a file that is not what the exam wrote is kept aside, never trusted, never
overwritten. Implausible times keep the answers and count the clock from the
first plausible time on record, never from now."""

from __future__ import annotations

import ast
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from exercises.classroom.grading import StudentGrade, grade_submission
from exercises.classroom.identity import PinError, check_student_id, file_stem, sign, signing_key
from exercises.classroom.private import open_private, write_json_privately
from exercises.classroom.quiz import (
    CLOCK_SKEW,
    ClassroomError,
    Question,
    Quiz,
    plausible_time,
    question_fingerprint,
    questions_for,
)
from exercises.classroom.release import is_released, release_stem
from exercises.classroom.submission import SubmissionError, parse_submission, read_json
from exercises.text import Bilingual, L, cannot


class ExamError(ClassroomError):
    """The quiz cannot be opened (locked, not open yet, closed, a PIN that does not fit)."""


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(epoch))


@dataclass(frozen=True)
class Attached:
    """What the exam says about a lab file: its size and whether Python can read it."""

    size: int  # bytes (UTF-8)
    lines: int
    problem: Bilingual | None = None  # None: Python can read it (it is not run here)


def read_source(path: str) -> str:
    """A student's lab file, size-capped and UTF-8; ExamError in words otherwise."""
    from exercises.files import FileRefused, FileTooLarge, read_regular
    from exercises.lab.grading import MAX_SOURCE_CHARS

    target = Path(os.path.expanduser(path.strip()))
    if not path.strip():
        raise ExamError(L("type the path of your file first", "请先输入你的文件路径"))
    too_long = L(
        f"{path.strip()} is longer than {MAX_SOURCE_CHARS} characters",
        f"{path.strip()} 超过 {MAX_SOURCE_CHARS} 个字符",
    )
    try:
        if target.is_dir():
            raise ExamError(
                L(f"{path.strip()} is a folder, not a file", f"{path.strip()} 是文件夹，不是文件")
            )
        data = read_regular(target, 4 * MAX_SOURCE_CHARS)  # a pipe or a device would block the exam
    except FileTooLarge:
        raise ExamError(too_long) from None
    except FileRefused:
        raise ExamError(L(f"{path.strip()} is not a plain file", f"{path.strip()} 不是普通文件")) from None
    except FileNotFoundError:
        where = Path.cwd()
        raise ExamError(
            L(f"there is no file {path.strip()} (in {where})", f"没有文件 {path.strip()}（在 {where} 下）")
        ) from None
    except PermissionError:
        raise ExamError(L(f"not allowed to read {path.strip()}", f"没有权限读取 {path.strip()}")) from None
    except OSError as error:
        raise ExamError(cannot("read", path.strip(), error)) from None
    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ExamError(L(f"{path.strip()} is not UTF-8 text", f"{path.strip()} 不是 UTF-8 文本")) from None
    if len(source) > MAX_SOURCE_CHARS:
        raise ExamError(too_long)
    if not source.strip():
        raise ExamError(L(f"{path.strip()} is empty", f"{path.strip()} 是空文件"))
    return source


def describe_source(source: str) -> Attached:
    """Size, lines, and Python's own syntax check (parsing only: nothing is run)."""
    problem = None
    try:
        ast.parse(source)
    except SyntaxError as error:
        problem = L(
            f"Python cannot read it (line {error.lineno}): {error.msg}",
            f"Python 读不懂它（第 {error.lineno} 行）：{error.msg}",
        )
    except (ValueError, RecursionError, MemoryError):  # a null byte, absurd nesting
        problem = L("Python cannot read it", "Python 读不懂它")
    return Attached(len(source.encode("utf-8")), source.count("\n") + (not source.endswith("\n")), problem)


class _Lock:
    """An advisory lock held while the exam is open; the kernel drops it when the
    process ends, even by kill -9, so a crash never locks a student out."""

    def __init__(self, path: Path) -> None:
        self.handle = open_private(path)  # held for the session
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not Unix: no lock, said in the README
            return
        try:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.handle.close()
            raise ExamError(
                L(
                    "this quiz is open in another window; close it there first",
                    "这份测验已在另一个窗口中打开；请先在那里关闭",
                )
            ) from None
        self.handle.truncate(0)
        self.handle.write(f"{os.getpid()}\n")
        self.handle.flush()

    def release(self) -> None:
        if not self.handle.closed:
            self.handle.close()


@dataclass
class ExamSession:
    quiz: Quiz
    student: str
    folder: Path
    answers: dict[int, dict[str, str]] = field(default_factory=dict)
    timeline: dict[str, list[dict]] = field(default_factory=dict)
    started_at: float = field(default_factory=time.time)
    submitted_at: float | None = None
    key: str | None = None  # the signing key, from the PIN the handout's check accepted
    notice: Bilingual | None = None  # a one-line report (an autosave kept aside, say)
    lock: _Lock | None = field(default=None, repr=False)

    @classmethod
    def open(
        cls, quiz: Quiz, student: str, folder: Path, pin: str | None = None, now: float | None = None
    ) -> ExamSession:
        """Resume from the autosave if there is one, else start the clock now and save it.
        ExamError when the quiz cannot be opened here and now."""
        now = time.time() if now is None else now
        check_student_id(student)
        key = None
        if quiz.signed:  # every wrong PIN is refused here, before the clock starts
            try:
                key = signing_key(quiz, student, pin or "")
            except PinError as error:
                raise ExamError(error.text) from None
        session = cls(quiz, student, Path(folder), started_at=now, key=key)
        session.folder.mkdir(parents=True, exist_ok=True)
        session.lock = _Lock(session.path("lock"))
        opened = False
        try:
            resumed = session._resume(now)
            if not resumed:
                session._check_window(now)
                session._autosave()  # the clock started: on disk at once
            opened = True
        finally:
            if not opened:  # whatever stopped it (an ExamError, a full disk, Ctrl+C): no lock left held
                session.close()
        return session

    def close(self) -> None:
        if self.lock is not None:
            self.lock.release()

    def path(self, kind: str) -> Path:
        quiz_part = "".join(c if c.isalnum() or c in "-_" else "-" for c in self.quiz.id)[:40]
        suffix = "" if kind == "lock" else ".json"
        return self.folder / f"{file_stem(self.student)}.{quiz_part}.{kind}{suffix}"

    @property
    def autosave_path(self) -> Path:
        return self.path("autosave")

    @property
    def submission_path(self) -> Path:
        return self.path("submission")

    def _check_window(self, now: float) -> None:
        if self.quiz.opens_at is not None and now < self.quiz.opens_at - CLOCK_SKEW:
            raise ExamError(
                L(
                    f"this quiz opens at {_when(self.quiz.opens_at)}",
                    f"这份测验于 {_when(self.quiz.opens_at)} 开放",
                )
            )
        if self.quiz.closes_at is not None and now > self.quiz.closes_at:
            raise ExamError(
                L(
                    f"this quiz closed at {_when(self.quiz.closes_at)}",
                    f"这份测验已于 {_when(self.quiz.closes_at)} 关闭",
                )
            )

    def _plausible(self, value: object, now: float) -> bool:
        return plausible_time(self.quiz, value, now)

    def _keep_aside(self, path: Path, why: str, copy: bool) -> Path:
        aside = path.with_name(f"{path.name}.{time.strftime('%Y%m%d-%H%M%S')}.bad")
        (shutil.copy2 if copy else os.replace)(path, aside)
        return aside

    def _resume(self, now: float) -> bool:
        """Read what is on disk. True when there was something to resume."""
        submitted = self.submission_path.exists()
        path = self.autosave_path if self.autosave_path.exists() else None
        if path is None and submitted:
            path = self.submission_path  # the autosave was deleted: the submission still counts
        if path is None:
            return False
        try:
            raw = read_json(path)
            if not isinstance(raw, dict):
                raise SubmissionError(L("not a JSON object", "不是 JSON 对象"))
            times = {key: raw.pop(key, None) for key in ("started_at", "submitted_at")}
            raw.pop("kind", None)
            saved = parse_submission(raw, kind="submission")
            if saved.quiz != self.quiz.id or saved.student != self.student:
                raise SubmissionError(
                    L(
                        f"it belongs to another quiz or student ({saved.quiz[:40]!r})",
                        f"它属于别的测验或学生（{saved.quiz[:40]!r}）",
                    )
                )
        except SubmissionError as error:
            if path == self.submission_path:
                self.submitted_at = now  # a broken submission is still a submission: no second try
                return True
            mtime = path.stat().st_mtime
            aside = self._keep_aside(path, str(error), copy=False)
            self.started_at = mtime if self._plausible(mtime, now) else (self.quiz.created_at or now)
            self.notice = L(
                f"{path.name} could not be read ({error}): kept as {aside.name}; answers start afresh, the clock does not",
                f"{path.name} 无法读取（{error.text['zh']}）：已另存为 {aside.name}；答案重新开始，计时不重来",
            )
            self._autosave()
            return True
        self.answers = {index: dict(answer.parts) for index, answer in saved.answers.items()}
        self.timeline = saved.timeline
        started, finished = times["started_at"], times["submitted_at"]
        if finished is not None or submitted:
            self.submitted_at = finished if self._plausible(finished, now) else now
        if self._plausible(started, now):
            self.started_at = float(started)
        else:
            events = [
                e["at"] for events in self.timeline.values() for e in events if self._plausible(e["at"], now)
            ]
            mtime = path.stat().st_mtime
            fallback = min(events) if events else mtime if self._plausible(mtime, now) else None
            self.started_at = fallback if fallback is not None else (self.quiz.created_at or now)
            aside = self._keep_aside(path, "time", copy=True)
            self.notice = L(
                f"the saved start time ({str(started)[:30]}) was not believable: the file is kept as {aside.name}, your answers are kept, the clock counts from {_when(self.started_at)}",
                f"保存的开始时间（{str(started)[:30]}）不可信：文件另存为 {aside.name}，答案保留，计时从 {_when(self.started_at)} 算起",
            )
            # not rewritten here (that would load the engine before the first frame): the next
            # answer saves the corrected start, and until then a reopening finds the same time
        return True

    def questions(self) -> list[Question]:
        return questions_for(self.quiz, self.student)

    def deadline(self) -> float | None:
        """When the exam submits itself: the time limit from the start, or the closing time."""
        ends = []
        if self.quiz.time_limit_minutes is not None:
            ends.append(self.started_at + 60 * self.quiz.time_limit_minutes)
        if self.quiz.closes_at is not None:
            ends.append(self.quiz.closes_at)
        return min(ends) if ends else None

    def seconds_left(self, now: float | None = None) -> float | None:
        deadline = self.deadline()
        if deadline is None:
            return None
        return max(0.0, deadline - (time.time() if now is None else now))

    def set_answer(self, index: int, part: str, text: str) -> None:
        """Record one part's answer and save at once (nothing changes once submitted)."""
        if self.submitted_at is not None:
            return
        parts = self.answers.setdefault(index, {})
        if parts.get(part) == text:
            return
        parts[part] = text
        self.timeline.setdefault(str(index), []).append(
            {"at": round(time.time(), 3), "part": part, "length": len(text)}
        )
        self._autosave()

    def attach(self, index: int, path: str) -> Attached:
        """A lab question's answer is the student's file: read it now (the path as typed,
        relative to where the quiz was started), keep its text (signed with the rest)
        and its path, and say what was attached. ExamError when there is nothing to attach."""
        from exercises.lab.grading import FILE_PART, SOURCE_PART

        source = read_source(path)
        if self.submitted_at is None:
            self.set_answer(index, FILE_PART, path.strip())
            self.set_answer(index, SOURCE_PART, source)
        return describe_source(source)

    def attached(self, index: int) -> Attached | None:
        """What is attached to a lab question (after a resume too), or None."""
        from exercises.lab.grading import SOURCE_PART

        source = self.answers.get(index, {}).get(SOURCE_PART)
        return describe_source(source) if source else None

    def _fingerprint(self, question: Question) -> str:
        return question_fingerprint(question.exercise, question.seed)

    def _payload(self, kind: str) -> dict:
        from exercises.learner.store import app_version

        questions = {q.index: q for q in self.questions()}
        payload = {
            "kind": kind,
            "format": 2,
            "quiz": self.quiz.id,
            "quiz_hash": self.quiz.question_hash,
            "rules": self.quiz.rules_hash,
            "student": self.student,
            "answers": {
                str(index): {
                    "exercise": questions[index].exercise,
                    "seed": questions[index].seed,
                    "variant": self._fingerprint(questions[index]),
                    "parts": parts,
                }
                for index, parts in sorted(self.answers.items())
                if index in questions
            },
            "timeline": self.timeline,
            "started_at": self.started_at,
            "submitted_at": self.submitted_at,
            "app_version": app_version(),
            "engine_version": _torch_version(),
            "signature": None,
        }
        if self.key is not None:
            payload["signature"] = sign(payload, self.key)
        return payload

    def _autosave(self) -> None:
        write_json_privately(self.autosave_path, self._payload("autosave"))

    def submit(self) -> Path:
        """Write the signed submission (answers, the questions answered, times; no scores).
        Once submitted, the submission file is never written again."""
        if self.submitted_at is not None and self.submission_path.exists():
            return self.submission_path
        if self.submitted_at is None:
            self.submitted_at = time.time()
        write_json_privately(self.submission_path, self._payload("submission"))
        self._autosave()
        return self.submission_path

    @property
    def release_path(self) -> Path:
        return self.folder / release_stem(self.quiz)

    def results_visible(self) -> bool:
        """Results show after submitting, or only once the teacher has run ``quiz release``
        (a release file carrying the teacher's secret, not any file of that name)."""
        if self.submitted_at is None:
            return False
        return self.quiz.results == "after-submit" or is_released(self.quiz, self.folder)

    def results(self) -> StudentGrade:
        return grade_submission(self.quiz, parse_submission(self._payload("submission")))


def _torch_version() -> str:
    import sys

    torch = sys.modules.get("torch")  # only if the engine is already loaded in this process
    return getattr(torch, "__version__", "unknown")
