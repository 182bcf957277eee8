"""A lab task inside a quiz: the student's file is part of the submission, and
grading runs the same checks in the same sandbox as ``lab check``.

A quiz names a lab task as ``lab:<task id>`` (``lab:bert_mask``); the student's
answer to it is the file's text under the part ``source``. Nothing is trusted
from the submission but that text: the score comes from running it here.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from exercises.lab.tasks import BY_ID, find_task
from exercises.text import Bilingual, L

PREFIX = "lab:"
SOURCE_PART = "source"  # the file's text, as handed in
FILE_PART = "file"  # its path as the student typed it (shown, never read by grading)
MAX_SOURCE_CHARS = 100_000


def lab_form(exercise_id: str) -> str:
    """'LAB：06' as typed on a Chinese keyboard reads as 'lab:06'."""
    import unicodedata

    return unicodedata.normalize("NFKC", exercise_id).strip().lower()


def is_lab_question(exercise_id: str) -> bool:
    form = lab_form(exercise_id)
    return form.startswith(PREFIX) and find_task(form[len(PREFIX) :]) is not None


def task_of(exercise_id: str):
    task = find_task(lab_form(exercise_id).removeprefix(PREFIX))
    if task is None:
        raise KeyError(exercise_id)
    return task


def task_fingerprint(exercise_id: str) -> str:
    """What a student was asked to write for a lab task (its function and signature), in 16
    hex digits: a submission records it, so a task whose function changed since the quiz
    was taken is detected. The statement's wording is left out: a reworded or corrected
    statement asks for the same function, and must not reject a class's files."""
    import hashlib
    import json

    task = task_of(exercise_id)
    canonical = json.dumps([task.id, task.function, task.signature])
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class LabGrade:
    task: str
    score: float  # 1.0 when every rule holds, else 0.0
    correct: bool
    valid: bool  # False: nothing that could run (empty, too long, a syntax error, not text)
    status: str
    rule: str | None
    diagnoses: tuple[str, ...]
    feedback: Bilingual


def grade_source(task_id: str, source: object) -> LabGrade:
    """Run the checks of ``task_id`` on a student's file text, in the sandbox."""
    task = BY_ID[task_id] if task_id in BY_ID else task_of(task_id)
    if not isinstance(source, str) or not source.strip():
        return _invalid(task.id, L("No file was submitted for this task.", "这道题没有提交文件。"))
    if len(source) > MAX_SOURCE_CHARS:
        return _invalid(
            task.id,
            L(
                f"The file is longer than {MAX_SOURCE_CHARS} characters.",
                f"文件超过了 {MAX_SOURCE_CHARS} 个字符。",
            ),
        )
    from exercises.lab.checks import run_check

    with tempfile.TemporaryDirectory(prefix="objectives-quiz-lab-") as folder:
        path = Path(folder) / task.file_name
        path.write_text(source, encoding="utf-8", errors="replace")
        result = run_check(task, path)
    failure = result.failure
    if result.passed:
        feedback = L("Every rule holds.", "所有规则都满足。")
    elif failure is not None:
        feedback = L(
            f"Rule {failure.rule.code}: {failure.rule.text['en']}",
            f"规则 {failure.rule.code}：{failure.rule.text['zh']}",
        )
    else:
        feedback = result.message or L(result.status, result.status)
    return LabGrade(
        task=task.id,
        score=1.0 if result.passed else 0.0,
        correct=result.passed,
        valid=result.status != "invalid",
        status=result.status,
        rule=result.first_rule,
        diagnoses=() if failure is None or failure.diagnosis is None else (failure.diagnosis,),
        feedback=feedback,
    )


def _invalid(task_id: str, why: Bilingual) -> LabGrade:
    return LabGrade(task_id, 0.0, False, False, "invalid", "invalid", (), why)
