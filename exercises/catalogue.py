"""Every exercise, by id, in the order the curriculum teaches them."""

from __future__ import annotations

from exercises.items import (
    clm_shift,
    concepts,
    eligible,
    expected_counts,
    loss_sanity,
    mask_matrix,
    mlm_abcde,
    reflection,
    span,
    visibility,
)
from exercises.model import Exercise

EXERCISES: tuple[Exercise, ...] = (
    concepts.SELF_SUPERVISION,
    clm_shift.EXERCISE,
    loss_sanity.EXERCISE,
    reflection.ALL[0],
    mlm_abcde.EXERCISE,
    eligible.EXERCISE,
    expected_counts.EXERCISE,
    concepts.EIGHTY_TEN_TEN,
    reflection.ALL[1],
    reflection.ALL[3],
    visibility.EXERCISE,
    mask_matrix.EXERCISE,
    span.EXERCISE,
    concepts.ARCHITECTURE,
    concepts.TASKS,
    reflection.ALL[2],
    concepts.PREFIX,
    concepts.MISCONCEPTIONS,
)

BY_ID: dict[str, Exercise] = {exercise.id: exercise for exercise in EXERCISES}


class UnknownExercise(ValueError):
    """No exercise has this id."""


def get(exercise_id: str) -> Exercise:
    try:
        return BY_ID[exercise_id]
    except KeyError:
        raise UnknownExercise(
            f"no exercise {exercise_id!r}; `objectives-tutor exercises` lists them"
        ) from None
