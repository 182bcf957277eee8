"""The catalogue checks itself (in the spirit of rustlings' ``dev check``):
every string in both languages, every solution scoring 1.0, every hint list
short and never stating the answer, every diagnosis code explained, every
generated variant fair, every concept check a pool of at least eight questions
whose wrong options carry no tells and name an existing misconception."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from exercises.catalogue import EXERCISES
from exercises.grading.diagnoses import DIAGNOSES
from exercises.grading.model import Exercise, Variant
from exercises.grading.parsing import clean
from exercises.items.choice import ChoiceExercise, Question
from exercises.items.reflection import Reflection
from exercises.text import LANGS

MAX_HINTS = 3
MIN_POOL = 8  # distinct questions a concept check must have
ABSOLUTE_WORDS = re.compile(
    r"\b(?:always|never|only|all|every|none|must)\b|总是|从不|永远|只有|只能|所有|一定|必须|全部"
)
LONGEST_MARGIN = 1.6  # the right option may be longer than every wrong one, but not by this much
SAME_MEANING = 0.85  # two options this alike (difflib ratio) say the same thing


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
        for code, _ in exercise.rubric.caps if exercise.rubric else ():
            if code not in DIAGNOSES:
                found.append(f"{exercise.id}: the rubric caps an unknown diagnosis code {code}")
        if isinstance(exercise, ChoiceExercise):
            if exercise.pool_size() < MIN_POOL:
                found.append(f"{exercise.id}: {exercise.pool_size()} questions (want at least {MIN_POOL})")
            stems = [question.stem["en"] for question in exercise.questions]
            if len(set(stems)) != len(stems):
                found.append(f"{exercise.id}: two questions share a stem")
            for q, question in enumerate(exercise.questions):
                found += [f"{exercise.id}: question {q} {problem}" for problem in question_problems(question)]
        for seed in seeds:
            found += _check_variant(exercise, seed)
    return found


def question_problems(question: Question) -> list[str]:
    """What gives a multiple-choice question away or makes it unfair."""
    found: list[str] = []
    if sum(option.correct for option in question.options) != 1:
        found.append("needs exactly one right option")
    for o, option in enumerate(question.options):
        if not option.correct and option.code not in DIAGNOSES:
            found.append(f"option {o} has no known diagnosis code")
    right = next((option for option in question.options if option.correct), None)
    wrong = [option for option in question.options if not option.correct]
    if right is None or not wrong:
        return found
    for lang in ("en", "zh"):
        if not ABSOLUTE_WORDS.search(right.text[lang]):
            tells = [option.text[lang] for option in wrong if ABSOLUTE_WORDS.search(option.text[lang])]
            if len(tells) == len(wrong) and len(wrong) > 1:
                found.append(f"every wrong option has an absolute word ({lang}): {tells[0]!r}")
        longest_wrong = max(len(option.text[lang]) for option in wrong)
        if len(right.text[lang]) > LONGEST_MARGIN * longest_wrong:
            found.append(f"the right option is by far the longest ({lang})")
    texts = [clean(option.text["en"]).lower() for option in question.options]
    for a in range(len(texts)):
        for b in range(a + 1, len(texts)):
            long_enough = min(len(texts[a]), len(texts[b])) >= 20  # "decoder-only" vs "encoder-only" differ
            if texts[a] == texts[b] or (
                long_enough and difflib.SequenceMatcher(None, texts[a], texts[b]).ratio() >= SAME_MEANING
            ):
                found.append(f"options {a} and {b} say almost the same thing")
    return found


def hint_states_answer(exercise: Exercise, variant: Variant, hint: dict[str, str]) -> bool:
    """Does a hint write out the answer (a part's solution, or the right option's text), or
    say it in another form the grader reads as right ("logits[:, :-1] against labels[:, 1:]"
    for the pairs of the loss-side layout)? Parts whose answer is one or two characters
    ("1", "A") are left out: any digit in a hint would "state" them."""
    answers: list[str] = []
    if isinstance(exercise, ChoiceExercise):
        question = exercise.question(variant)
        right = next(option for option in question.options if option.correct)
        answers += [right.text["en"], right.text["zh"]]
    elif exercise.graded:
        solution = exercise.solve(variant)
        answers += [text for text in solution.values() if len(text) > 2]
        for part, text in solution.items():
            if len(text) > 2 and any(
                _reads_as_right(exercise, variant, solution, part, hint[lang]) for lang in LANGS
            ):
                return True
    squash = lambda text: re.sub(r"\s+", " ", clean(text).lower())  # noqa: E731
    return any(squash(answer) in squash(hint[lang]) for answer in answers for lang in LANGS)


def _reads_as_right(
    exercise: Exercise, variant: Variant, solution: dict[str, str], part: str, text: str
) -> bool:
    result = exercise.grade(variant, {**solution, part: text})
    return result.parts[part].valid and result.parts[part].score >= 1.0


def _check_variant(exercise: Exercise, seed: int) -> list[str]:
    found: list[str] = []
    where = f"{exercise.id} seed {seed}"
    variant = exercise.generate(seed)
    if not exercise.variant_is_fair(variant):
        found.append(f"{where}: the generator made an unfair variant")
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
        elif hint_states_answer(exercise, variant, hint):
            found.append(f"{where}: a hint states the answer")
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
