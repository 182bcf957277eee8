"""A student taking a quiz: answers saved as they go (a crash or a closed
terminal resumes where it was), an optional deadline that survives restarts,
and the submission file the teacher grades."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from exercises.classroom.quiz import (
    Question,
    Quiz,
    StudentGrade,
    grade_submission,
    parse_submission,
    questions_for,
)


def _safe_name(student: str) -> str:
    return "".join(char if char.isalnum() or char in "-_." else "_" for char in student.strip()) or "student"


def _write_atomically(path: Path, payload: dict) -> None:
    """Write then rename: a crash mid-write leaves the previous file, never half of one."""
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, ensure_ascii=False, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


@dataclass
class ExamSession:
    quiz: Quiz
    student: str
    folder: Path
    answers: dict[int, dict[str, str]] = field(default_factory=dict)
    timeline: dict[str, list[dict]] = field(default_factory=dict)
    started_at: float = field(default_factory=time.time)
    submitted_at: float | None = None
    notice: str | None = None  # a one-line report (e.g. an unreadable autosave kept aside)

    @classmethod
    def open(cls, quiz: Quiz, student: str, folder: Path) -> ExamSession:
        """Resume from the autosave if there is one, else start now."""
        session = cls(quiz, student.strip(), Path(folder))
        path = session.autosave_path
        if path.exists():
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
                if saved.get("quiz") != quiz.id:
                    raise ValueError(f"it belongs to quiz {saved.get('quiz')!r}")
                parsed = parse_submission(saved)
                session.answers = parsed.answers
                session.timeline = parsed.timeline
                session.started_at = float(saved.get("started_at", session.started_at))
                session.submitted_at = saved.get("submitted_at")
            except (ValueError, OSError) as error:
                aside = path.with_name(f"{path.name}.{time.strftime('%Y%m%d-%H%M%S')}.bad")
                path.rename(aside)
                session.notice = (
                    f"{path.name} could not be read ({error}): kept as {aside.name}, starting afresh"
                )
        return session

    @property
    def autosave_path(self) -> Path:
        return self.folder / f"{_safe_name(self.student)}.quiz-autosave.json"

    @property
    def submission_path(self) -> Path:
        return self.folder / f"{_safe_name(self.student)}.submission.json"

    def questions(self) -> list[Question]:
        return questions_for(self.quiz, self.student)

    def seconds_left(self, now: float | None = None) -> float | None:
        if self.quiz.time_limit_minutes is None:
            return None
        deadline = self.started_at + 60 * self.quiz.time_limit_minutes
        return max(0.0, deadline - (time.time() if now is None else now))

    def set_answer(self, index: int, part: str, text: str) -> None:
        """Record one part's answer and save at once."""
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

    def _payload(self) -> dict:
        from exercises.learner.store import app_version

        return {
            "quiz": self.quiz.id,
            "student": self.student,
            "answers": {str(index): parts for index, parts in sorted(self.answers.items())},
            "timeline": self.timeline,
            "started_at": self.started_at,
            "submitted_at": self.submitted_at,
            "app_version": app_version(),
            "engine_version": _torch_version(),
        }

    def _autosave(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        _write_atomically(self.autosave_path, self._payload())

    def submit(self) -> Path:
        """Write ``<student>.submission.json`` (answers and timeline, no scores)."""
        if self.submitted_at is None:
            self.submitted_at = time.time()
        self._autosave()
        _write_atomically(self.submission_path, self._payload())
        return self.submission_path

    def results(self) -> StudentGrade:
        return grade_submission(self.quiz, parse_submission(self._payload()))


def _torch_version() -> str:
    try:
        import torch

        return torch.__version__
    except Exception:  # the engine is not loaded in this process
        return "unknown"
