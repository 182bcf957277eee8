"""Every exercise, by id, in the curriculum's order.

The exercises are found in their modules (each module of ``exercises/items`` that
defines ``EXERCISES``); their order and objective come from ``exercises.curriculum``.
Importing this module imports the engine (and torch).
"""

from __future__ import annotations

import importlib
import pkgutil

from exercises import items
from exercises.curriculum import EXERCISE_IDS
from exercises.grading.model import Exercise


class UnknownExercise(ValueError):
    """No exercise has this id."""


class CurriculumMismatch(RuntimeError):
    """The curriculum and the exercise modules disagree (a developer's mistake)."""


def _defined() -> dict[str, Exercise]:
    found: dict[str, Exercise] = {}
    for module_info in pkgutil.iter_modules(items.__path__):
        module = importlib.import_module(f"{items.__name__}.{module_info.name}")
        for exercise in getattr(module, "EXERCISES", ()):
            if exercise.id in found:
                raise CurriculumMismatch(f"two exercises share the id {exercise.id!r}")
            found[exercise.id] = exercise
    return found


def _in_curriculum_order(defined: dict[str, Exercise]) -> tuple[Exercise, ...]:
    undeclared = sorted(set(defined) - set(EXERCISE_IDS))
    missing = [eid for eid in EXERCISE_IDS if eid not in defined]
    if undeclared or missing:
        raise CurriculumMismatch(
            f"exercises not in the curriculum: {undeclared}; declared but not defined: {missing}"
        )
    return tuple(defined[eid] for eid in EXERCISE_IDS)


EXERCISES: tuple[Exercise, ...] = _in_curriculum_order(_defined())

BY_ID: dict[str, Exercise] = {exercise.id: exercise for exercise in EXERCISES}


def get(exercise_id: str) -> Exercise:
    try:
        return BY_ID[exercise_id]
    except KeyError:
        raise UnknownExercise(
            f"no exercise {exercise_id!r}; `objectives-tutor exercises` lists them"
        ) from None
