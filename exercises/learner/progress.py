"""The learner's progress as the app sees it: the store's attempts (kept in
memory too, so the app works the same when nothing can be saved), what is
solved, mastered and due for review, and the persisted settings."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from exercises.learner import review
from exercises.learner.store import Attempt, ProgressStore

DEFAULT_SETTINGS = {"lang": "", "theme": "", "hints": "always"}


@dataclass(frozen=True)
class ObjectiveCounts:
    """Where a learner stands on one objective's exercises."""

    exercises: int
    attempts: int
    solved: int
    mastered: int
    due: int


class Progress:
    def __init__(self, store: ProgressStore) -> None:
        self.store = store
        self.attempts: list[Attempt] = store.attempts()
        self._settings = {**DEFAULT_SETTINGS, **store.settings()}

    @property
    def notices(self) -> list[str]:
        return self.store.notices

    def record(self, attempt: Attempt) -> bool:
        """Keep the attempt (always) and save it (when possible); True if saved."""
        self.attempts.append(attempt)
        return self.store.record(attempt)

    def record_result(
        self,
        exercise_id: str,
        objective: str,
        seed: int,
        answer: Mapping[str, str],
        result,
        hints_used: int,
        seconds: float,
    ) -> bool:
        """One graded attempt, exactly as the app and ``check --record`` store it."""
        return self.record(
            Attempt(
                exercise=exercise_id,
                objective=objective,
                seed=seed,
                answer=dict(answer),
                score=result.score,
                valid=result.valid,
                graded=result.graded,
                correct=result.correct,
                diagnoses=list(result.diagnoses),
                hints_used=hints_used,
                seconds=round(seconds, 3),
            )
        )

    def solved(self) -> set[str]:
        return review.solved(self.attempts)

    def mastered(self) -> set[str]:
        return review.mastered(self.attempts)

    def per_objective(self, now: float | None = None) -> dict[str, ObjectiveCounts]:
        """Each objective's counts, in the curriculum's order: computed once here for
        the home screen and ``objectives-tutor progress`` alike."""
        from exercises.curriculum import OBJECTIVES

        solved, mastered = self.solved(), self.mastered()
        due = {item.exercise for item in self.due(now)}
        attempted: dict[str, int] = {}
        for attempt in self.attempts:
            attempted[attempt.exercise] = attempted.get(attempt.exercise, 0) + 1
        return {
            objective.id: ObjectiveCounts(
                exercises=len(objective.exercises),
                attempts=sum(attempted.get(eid, 0) for eid in objective.exercises),
                solved=len(solved.intersection(objective.exercises)),
                mastered=len(mastered.intersection(objective.exercises)),
                due=len(due.intersection(objective.exercises)),
            )
            for objective in OBJECTIVES
        }

    def due(self, now: float | None = None) -> list[review.ReviewItem]:
        return review.due_now(self.attempts, time.time() if now is None else now)

    def queue(self, now: float | None = None) -> list[review.ReviewItem]:
        return review.review_queue(self.attempts, time.time() if now is None else now)

    # -- settings --------------------------------------------------------

    def setting(self, key: str) -> str:
        return self._settings.get(key, DEFAULT_SETTINGS.get(key, ""))

    def set(self, key: str, value: str) -> bool:
        self._settings[key] = value
        return self.store.set_setting(key, value)

    @property
    def last_objective(self) -> str | None:
        return self._settings.get("last_objective") or review.last_objective(self.attempts)

    @last_objective.setter
    def last_objective(self, objective_id: str) -> None:
        self.set("last_objective", objective_id)
