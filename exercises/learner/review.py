"""What to practise next, derived from the attempt history (nothing stored
besides the attempts themselves, so it can never disagree with them).

Review schedule: an exercise answered wrongly comes back after 1 day; each
right answer since the last miss pushes it out, to 3 days, then 7 days; after
three right answers in a row it leaves the queue. Another miss starts over at
1 day. Mastery: an exercise is mastered once answered right, without hints,
on ``MASTERY_VARIANTS`` distinct questions (not seeds that reshuffle one).

A reflection is not graded by the machine: the learner's own mark decides. "Yes"
is a right answer; "partly" and "no" are misses, and the reflection comes back for
review like any missed exercise (issue 23.4: a "no" used to count as solved).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from exercises.grading.marks import full_marks
from exercises.learner.store import PREDICTION, Attempt

DAY = 86_400.0
INTERVALS_DAYS = (1, 3, 7)
MASTERY_VARIANTS = 3


@dataclass(frozen=True)
class ReviewItem:
    exercise: str
    objective: str
    due: float  # unix time
    misses: int
    streak: int  # right answers since the last miss
    last_diagnoses: tuple[str, ...]
    next_seed: int  # a variant the learner has not seen yet


PREDICTION_PREFIX = "predict-"  # the ids predictions are stored under (exercises.predictions)


def is_prediction(attempt: Attempt) -> bool:
    """A prediction made on a figure. Told by its kind, and by its id too: a store that
    keeps no kind (an older class database) hands it back as an exercise attempt."""
    return attempt.kind == PREDICTION or attempt.exercise.startswith(PREDICTION_PREFIX)


def exercise_attempts(attempts: Iterable[Attempt]) -> list[Attempt]:
    """Attempts at exercises: predictions made on a figure are neither reviewed nor mastered."""
    return [attempt for attempt in attempts if not is_prediction(attempt)]


def self_marked(attempt: Attempt) -> bool:
    """A reflection the learner marked themselves (the machine grades nothing there)."""
    return not attempt.graded and attempt.score is not None


def is_right(attempt: Attempt) -> bool:
    """Right: graded right by the machine, or a reflection self-marked "yes"."""
    if self_marked(attempt):
        return full_marks(attempt.score)
    return attempt.graded and attempt.correct


def _by_exercise(attempts: Iterable[Attempt]) -> dict[str, list[Attempt]]:
    """Each exercise's answers that count, right or missed: graded ones that could be
    read, and reflections once self-marked."""
    grouped: dict[str, list[Attempt]] = {}
    for attempt in sorted(exercise_attempts(attempts), key=lambda a: a.at):
        if (attempt.graded and attempt.valid) or self_marked(attempt):
            grouped.setdefault(attempt.exercise, []).append(attempt)
    return grouped


def review_queue(attempts: Iterable[Attempt], now: float) -> list[ReviewItem]:
    """Every exercise waiting for review, soonest first (due ones have due <= now)."""
    everything = exercise_attempts(attempts)
    seen_seeds: dict[str, set[int]] = {}
    for attempt in everything:
        seen_seeds.setdefault(attempt.exercise, set()).add(attempt.seed)
    items = []
    for exercise, history in _by_exercise(everything).items():
        misses = [index for index, attempt in enumerate(history) if not is_right(attempt)]
        if not misses:
            continue
        last_miss = misses[-1]
        streak = len(history) - 1 - last_miss
        if streak >= len(INTERVALS_DAYS):
            continue  # graduated
        due = history[-1].at + INTERVALS_DAYS[streak] * DAY
        seeds = seen_seeds[exercise]
        next_seed = max(seeds) + 1 if seeds else 0
        items.append(
            ReviewItem(
                exercise=exercise,
                objective=history[-1].objective,
                due=due,
                misses=len(misses),
                streak=streak,
                last_diagnoses=tuple(history[last_miss].diagnoses),
                next_seed=next_seed,
            )
        )
    return sorted(items, key=lambda item: item.due)


def due_now(attempts: Iterable[Attempt], now: float) -> list[ReviewItem]:
    return [item for item in review_queue(attempts, now) if item.due <= now]


def schedule(items: Iterable[ReviewItem], now: float) -> tuple[int, list[tuple[int, int]]]:
    """What is due now, and what comes when: (due now, [(days ahead, how many), ...]),
    soonest first. Days are calendar days in local time: 0 is later today, 1 tomorrow
    (whatever the hour), so "tomorrow: 3" means what the learner means by it."""
    due_now = 0
    later: Counter[int] = Counter()
    for item in items:
        if item.due <= now:
            due_now += 1
        else:
            later[days_ahead(item.due, now)] += 1
    return due_now, sorted(later.items())


def days_ahead(when: float, now: float) -> int:
    """Calendar days from now to ``when`` in local time (0: today, 1: tomorrow)."""
    return max(0, (date.fromtimestamp(when) - date.fromtimestamp(now)).days)


def question_of(exercise: str, seed: int) -> str:
    """Which question a seed asked: two seeds may ask the same one (a multiple
    choice with its options reshuffled), and mastery counts questions. Torch-free:
    the catalogue's items import the engine only to compute a variant."""
    from exercises.catalogue import BY_ID

    item = BY_ID.get(exercise)
    return f"seed:{seed}" if item is None else item.question_key(seed)


def mastered(attempts: Iterable[Attempt], variants: int = MASTERY_VARIANTS) -> set[str]:
    """Exercises answered right without hints on ``variants`` distinct questions
    (reflections: once self-marked 'yes')."""
    seeds: dict[str, set[str]] = {}
    done: set[str] = set()
    for attempt in exercise_attempts(attempts):
        if attempt.graded and attempt.correct and attempt.hints_used == 0:
            seeds.setdefault(attempt.exercise, set()).add(question_of(attempt.exercise, attempt.seed))
        if self_marked(attempt) and is_right(attempt):
            done.add(attempt.exercise)
    return done | {exercise for exercise, found in seeds.items() if len(found) >= variants}


def solved(attempts: Iterable[Attempt]) -> set[str]:
    """Exercises answered right at least once (reflections: self-marked "yes")."""
    return {attempt.exercise for attempt in exercise_attempts(attempts) if is_right(attempt)}


def last_objective(attempts: Iterable[Attempt]) -> str | None:
    latest = max(attempts, key=lambda attempt: attempt.at, default=None)
    return None if latest is None else latest.objective
