"""The curriculum is declared once (exercises/curriculum.py) and the declaration is complete:
every exercise an item module defines is placed in it, every id it places is defined,
and the catalogue refuses to start when either is not so."""

import importlib
import pkgutil

import pytest

from exercises import curriculum, items


def defined_by_modules() -> dict[str, str]:
    """Exercise id -> the module defining it, read straight from exercises/items (not the catalogue)."""
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(items.__path__):
        module = importlib.import_module(f"exercises.items.{info.name}")
        for exercise in getattr(module, "EXERCISES", ()):
            assert exercise.id not in found, (
                f"{exercise.id} defined in {found.get(exercise.id)} and {info.name}"
            )
            found[exercise.id] = info.name
    return found


def test_every_defined_exercise_is_declared_once():
    declared = curriculum.EXERCISE_IDS
    assert len(declared) == len(set(declared)), "an id is placed in two lessons"
    assert sorted(set(defined_by_modules()) - set(declared)) == []


def test_every_declared_exercise_is_defined():
    assert [eid for eid in curriculum.EXERCISE_IDS if eid not in defined_by_modules()] == []


def test_each_exercise_reports_the_objective_that_lists_it():
    from exercises import catalogue

    for objective in curriculum.OBJECTIVES:
        for eid in objective.exercises:
            assert catalogue.get(eid).objective == objective.id


def test_catalogue_follows_the_declared_order():
    from exercises import catalogue

    assert tuple(exercise.id for exercise in catalogue.EXERCISES) == curriculum.EXERCISE_IDS


def test_a_missing_declaration_is_caught():
    from exercises import catalogue

    defined = dict(catalogue.BY_ID)
    defined["reflect-brand-new"] = defined["reflect-mlm-fill"]  # a module defines it, the curriculum does not
    with pytest.raises(catalogue.CurriculumMismatch, match="reflect-brand-new"):
        catalogue._in_curriculum_order(defined)


def test_a_declared_but_undefined_exercise_is_caught():
    from exercises import catalogue

    defined = dict(catalogue.BY_ID)
    del defined["mask-matrix"]  # the curriculum places it, no module defines it
    with pytest.raises(catalogue.CurriculumMismatch, match="mask-matrix"):
        catalogue._in_curriculum_order(defined)
