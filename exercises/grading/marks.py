"""What "right" means: full marks, defined once for every grader, screen and report.

A module of its own so that the learner's progress (read before the app's first
frame) can ask it without importing the exercise model and its dataclasses.
"""

from __future__ import annotations

FULL_MARKS = 1.0


def full_marks(score: float | None) -> bool:
    """Is this score (of an answer, a part or a question) full marks? (A float sum may
    land a hair short.)"""
    return score is not None and score >= FULL_MARKS - 1e-9
