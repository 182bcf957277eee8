"""The catalogue checks itself (in the spirit of rustlings' ``dev check``):
every string in both languages, every solution scoring 1.0, every hint list
short and never the whole answer, every diagnosis code explained."""

from __future__ import annotations

from collections.abc import Iterable

from exercises.catalogue import EXERCISES
from exercises.grading.diagnoses import DIAGNOSES
from exercises.grading.model import Exercise
from exercises.items.choice import ChoiceExercise
from exercises.items.reflection import Reflection
from exercises.text import LANGS

MAX_HINTS = 3


def _missing_language(text: object) -> bool:
    return not isinstance(text, dict) or any(not str(text.get(lang, "")).strip() for lang in LANGS)


def _strings(exercise: Exercise) -> Iterable[tuple[str, object]]:
    yield "title", exercise.title
    for part in exercise.parts:
        yield f"part {part.name} label", part.label
        yield f"part {part.name} example", part.example
    if isinstance(exercise, ChoiceExercise):
        for q, question in enumerate(exercise.questions):
            yield f"question {q}", question.stem
            for o, option in enumerate(question.options):
                yield f"question {q} option {o}", option.text
                yield f"question {q} option {o} feedback", option.why
    if isinstance(exercise, Reflection):
        yield "question", exercise.question
        yield "model answer", exercise.model_answer
        for k, point in enumerate(exercise.key_points):
            yield f"key point {k}", point


def problems(seeds: Iterable[int] = range(40)) -> list[str]:
    """Everything wrong with the catalogue, one line each (empty when all is well)."""
    found: list[str] = []
    ids = [exercise.id for exercise in EXERCISES]
    if len(ids) != len(set(ids)):
        found.append("exercise ids are not unique")
    for code, text in DIAGNOSES.items():
        if _missing_language(text):
            found.append(f"diagnosis {code}: missing a language")
    for exercise in EXERCISES:
        for where, text in _strings(exercise):
            if _missing_language(text):
                found.append(f"{exercise.id}: {where} is missing a language")
        if isinstance(exercise, ChoiceExercise):
            for q, question in enumerate(exercise.questions):
                if sum(option.correct for option in question.options) != 1:
                    found.append(f"{exercise.id}: question {q} needs exactly one right option")
                for o, option in enumerate(question.options):
                    if not option.correct and option.code not in DIAGNOSES:
                        found.append(f"{exercise.id}: question {q} option {o} has no known diagnosis code")
        for seed in seeds:
            found += _check_variant(exercise, seed)
    return found


def _check_variant(exercise: Exercise, seed: int) -> list[str]:
    found: list[str] = []
    where = f"{exercise.id} seed {seed}"
    variant = exercise.generate(seed)
    if _missing_language(variant.prompt):
        found.append(f"{where}: prompt is missing a language")
    hints = exercise.hints(variant)
    if not 1 <= len(hints) <= MAX_HINTS:
        found.append(f"{where}: {len(hints)} hints (want 1 to {MAX_HINTS})")
    solution = exercise.solve(variant)
    if set(solution) - set(exercise.part_names()):
        found.append(f"{where}: the solution names unknown parts")
    for hint in hints:
        if _missing_language(hint):
            found.append(f"{where}: a hint is missing a language")
        elif (
            exercise.graded
            and any(len(text) > 3 and all(text in hint[lang] for lang in LANGS) for text in solution.values())
            and len(solution) == 1
        ):
            found.append(f"{where}: a hint gives the whole answer")
    result = exercise.grade(variant, solution)
    if exercise.graded and (result.score != 1.0 or not result.valid):
        found.append(f"{where}: the engine's own solution scores {result.score} (valid={result.valid})")
    blank = exercise.grade(variant, {})
    if blank.valid and exercise.graded:
        found.append(f"{where}: an empty answer counts as readable")
    for code in result.diagnoses:
        if code not in DIAGNOSES:
            found.append(f"{where}: unknown diagnosis code {code}")
    return found
