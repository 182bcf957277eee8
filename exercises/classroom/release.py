"""``quiz release``: the file that lets students of an ``after-release`` quiz see
their results, and the check ``quiz take`` makes before believing it.

A file's mere presence proved nothing (a student could create it with ``touch``).
The release file now carries a secret that only the teacher file holds; the
handout carries its hash (``release_check``), so ``quiz take`` can verify a
release without any secret, and nobody can make one before the teacher does.
Once released, the secret is public on purpose: the release is a one-way event."""

from __future__ import annotations

import hmac
import json
import time
from pathlib import Path

from exercises.classroom.identity import file_stem, release_check_of
from exercises.classroom.quiz import ClassroomError, Quiz
from exercises.classroom.submission import SubmissionError, read_json
from exercises.text import L

MAX_SECRET = 128


def release_stem(quiz: Quiz) -> str:
    """The name of the file ``quiz release`` writes beside the submissions."""
    return f"{file_stem(quiz.id)}.release.json"


def release_payload(quiz: Quiz, secret: str, now: float | None = None) -> dict:
    """The release file's content; ClassroomError when the secret is not this quiz's."""
    if quiz.release_check is None:
        raise ClassroomError(
            L(
                "this quiz file has no release check (an older version made it): make the quiz again with quiz new",
                "这份测验文件没有发布校验（由旧版本生成）：请用 quiz new 重新生成测验",
            )
        )
    if not secret or not hmac.compare_digest(release_check_of(secret), quiz.release_check):
        raise ClassroomError(
            L(
                "the teacher file's release secret does not match this quiz file",
                "教师文件中的发布密钥与这份测验文件不符",
            )
        )
    return {
        "kind": "release",
        "quiz": quiz.id,
        "released_at": time.time() if now is None else now,
        "secret": secret,
    }


def is_released(quiz: Quiz, folder: Path) -> bool:
    """True only when the release file beside the submissions carries the secret whose
    hash the handout holds. An empty, edited or copied-from-another-quiz file is not."""
    if quiz.release_check is None:
        return False
    path = Path(folder) / release_stem(quiz)
    if not path.is_file():
        return False
    try:
        data = read_json(path)
    except SubmissionError:
        return False
    if not isinstance(data, dict) or data.get("kind") != "release" or data.get("quiz") != quiz.id:
        return False
    secret = data.get("secret")
    if not isinstance(secret, str) or len(secret) > MAX_SECRET:
        return False
    return hmac.compare_digest(release_check_of(secret), quiz.release_check)


def release_text(payload: dict) -> str:
    return json.dumps(payload) + "\n"
