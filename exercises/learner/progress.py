"""The learner's progress as the app sees it: the store's attempts (kept in
memory too, so the app works the same when nothing can be saved), what is
solved, mastered and due for review, and the persisted settings."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from exercises.learner import review
from exercises.learner.store import PREDICTION, Attempt, Notice, ProgressStore

DEFAULT_SETTINGS = {"lang": "", "theme": "", "hints": "always"}
LESSON_TABS = ("lesson", "figure", "practice")
MAX_SEED = 2**32 - 1
NEW_SEED_SEARCH = 64  # seeds looked at for a question not answered yet


@dataclass(frozen=True)
class Place:
    """Where the learner was: a lesson, its tab, and the exercise variant its practice
    tab showed. "Continue" on the home screen returns there, across restarts."""

    objective: str
    tab: str = "lesson"
    exercise: str | None = None
    seed: int = 0


@dataclass(frozen=True)
class ObjectiveCounts:
    """Where a learner stands on one objective's exercises."""

    exercises: int
    attempts: int
    solved: int
    mastered: int
    due: int
    predictions: int = 0  # made on the lesson's figure (progress, never mastery)
    predictions_right: int = 0


class Progress:
    def __init__(self, store: ProgressStore) -> None:
        self.store = store
        self.attempts: list[Attempt] = store.attempts()
        self._settings = {**DEFAULT_SETTINGS, **store.settings()}

    @property
    def notices(self) -> list[Notice]:
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

    def record_prediction(self, objective: str, question, answer: str, verdict, seconds: float) -> bool:
        """A prediction made on a live figure (``exercises.predictions``), kept as an
        attempt of its own kind: it counts toward the lesson, not toward mastery."""
        return self.record(
            Attempt(
                exercise=question.exercise_id,
                objective=objective,
                seed=question.seed,
                answer={"prediction": answer},
                score=1.0 if verdict.correct else 0.0,
                valid=verdict.valid,
                graded=True,
                correct=verdict.correct,
                diagnoses=list(verdict.diagnoses),
                hints_used=0,
                seconds=round(seconds, 3),
                kind=PREDICTION,
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
        predicted: dict[str, list[bool]] = {}
        for attempt in self.attempts:
            if review.is_prediction(attempt):
                predicted.setdefault(attempt.objective, []).append(attempt.correct)
            else:
                attempted[attempt.exercise] = attempted.get(attempt.exercise, 0) + 1
        return {
            objective.id: ObjectiveCounts(
                exercises=len(objective.exercises),
                attempts=sum(attempted.get(eid, 0) for eid in objective.exercises),
                solved=len(solved.intersection(objective.exercises)),
                mastered=len(mastered.intersection(objective.exercises)),
                due=len(due.intersection(objective.exercises)),
                predictions=len(predicted.get(objective.id, [])),
                predictions_right=sum(predicted.get(objective.id, [])),
            )
            for objective in OBJECTIVES
        }

    def exercise_state(self, exercise_id: str) -> str:
        """ "solved", "tried" (answered, never right) or "new": the mark the practice tab's
        list of exercises shows beside each one."""
        if exercise_id in self.solved():
            return "solved"
        tried = any(attempt.exercise == exercise_id for attempt in review.exercise_attempts(self.attempts))
        return "tried" if tried else "new"

    def next_new_seed(self, exercise_id: str, after: int) -> int:
        """The first seed after ``after`` asking a question this learner has not answered
        yet (`n`, a new variant: after a restart it gave variants already done); when
        every question nearby was answered, the first seed never tried."""
        seeds = {
            attempt.seed
            for attempt in review.exercise_attempts(self.attempts)
            if attempt.exercise == exercise_id
        }
        questions = {review.question_of(exercise_id, seed) for seed in seeds}
        for seed in range(after + 1, min(after + 1 + NEW_SEED_SEARCH, MAX_SEED + 1)):
            if seed not in seeds and review.question_of(exercise_id, seed) not in questions:
                return seed
        seed = after + 1
        while seed in seeds and seed < MAX_SEED:
            seed += 1
        return min(seed, MAX_SEED)

    def lesson_tried(self, objective_id: str) -> bool:
        """Every exercise of the lesson tried at least once (solved, missed or skipped):
        the rule that offers the next lesson (Ctrl+N)."""
        from exercises.curriculum import BY_ID

        tried = {attempt.exercise for attempt in review.exercise_attempts(self.attempts)}
        return all(exercise in tried for exercise in BY_ID[objective_id].exercises)

    def lesson_done(self, objective_id: str) -> bool:
        """Every exercise of the lesson solved (a reflection: self-marked "yes"): a lesson
        done on the home screen, where its line says "3/3 solved" too (issue 23.21: a
        lesson only tried through was counted done beside "2/3 solved")."""
        from exercises.curriculum import BY_ID

        return set(BY_ID[objective_id].exercises) <= self.solved()

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
        if self._settings.get("last_objective") != objective_id:
            self.set("last_objective", objective_id)

    @property
    def place(self) -> Place | None:
        """The place to continue from, read defensively: a setting written by another
        version, or edited by hand, falls back to the lesson's first tab, never fails."""
        from exercises.curriculum import BY_ID

        objective = self.last_objective
        if objective not in BY_ID:
            return None
        try:
            saved = json.loads(self._settings.get("place", "") or "{}")
        except ValueError:
            saved = {}
        if not isinstance(saved, dict) or saved.get("objective") != objective:
            return Place(objective)
        tab = saved.get("tab") if saved.get("tab") in LESSON_TABS else "lesson"
        exercise = saved.get("exercise") if saved.get("exercise") in BY_ID[objective].exercises else None
        seed = saved.get("seed")
        if exercise is None or type(seed) is not int or not 0 <= seed <= MAX_SEED:
            seed = 0
        return Place(objective, tab, exercise, seed)

    def remember_place(self, place: Place) -> None:
        """Keep the place (written only when it changed: every write is a transaction)."""
        self.last_objective = place.objective
        encoded = json.dumps(asdict(place), sort_keys=True)
        if self._settings.get("place") != encoded:
            self.set("place", encoded)
