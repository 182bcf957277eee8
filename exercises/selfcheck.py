"""The catalogue checks itself (in the spirit of rustlings' ``dev check``):
every string in both languages, every solution scoring 1.0, every hint list
short and never stating the answer, every diagnosis code explained, every
generated variant fair (the item's own predicate: the variant exercises the skill
its exercise names), every concept check a pool of at least eight questions, each
with its own hints, whose wrong options name an existing misconception and carry no
tells a test-wise learner could use instead of the concept:

- in one question: only the wrong options use absolute words; the right option is by
  far the longest; two options say the same thing;
- across a bank (and across all banks): a phrase found in several wrong options and
  in no right one ("nothing: ...", "fine-tuning decides", "a person labelled it");
  the right option the longest in more than ``LONGEST_SHARE`` of the questions;
- a *theme* always wrong across a bank, whatever its words: options carry a ``theme``
  tag for what they are about beyond their phrasing ("ranking": the option ranks the
  objectives; "human-labels": it says a person labels the data). A theme on wrong
  options only may appear once in a bank; beside right options, at most twice as often
  among the wrong ones as among the right (the chance rate: two wrong options per right).
  A learner who avoids the theme then gains nothing (issue 32: 9 of 16 wrong options of
  the misconceptions bank ranked the objectives, no right one did)."""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterable

from exercises.catalogue import EXERCISES
from exercises.grading.diagnoses import DIAGNOSES
from exercises.grading.marks import full_marks
from exercises.grading.model import Exercise, Variant
from exercises.grading.parsing import clean
from exercises.items.banks import CHINESE_MATERIAL_NOTE
from exercises.items.choice import ChoiceExercise, Question
from exercises.items.reflection import Reflection
from exercises.text import LANGS

MAX_HINTS = 3
_CHINESE = re.compile(r"[\u3400-\u9fff]")  # Chinese characters in an English prompt need the note
MIN_POOL = 8  # distinct questions a concept check must have
ABSOLUTE_WORDS = re.compile(
    r"\b(?:always|never|only|all|every|none|must)\b|总是|从不|永远|只有|只能|所有|一定|必须|全部"
)
LONGEST_MARGIN = 1.6  # the right option may be longer than every wrong one, but not by this much
SAME_MEANING = 0.85  # two options this alike (difflib ratio) say the same thing
LONGEST_SHARE = 0.4  # of a bank's questions whose right option may be the longest (chance: 1/3)
PHRASE_IN_BANK = 4  # wrong options (of 3+ questions) sharing a phrase no right option has: a tell
PHRASE_IN_ALL = 6  # the same across every concept bank
# Words that carry no content: a phrase made of these alone is no tell.
_STOP_EN = frozenset(
    re.split(
        r"\s+",
        "a an the of to in on at is it its it's and or by for from with as be are was were that this "
        "these those which what when so not no yes one each every any all do does can could would "
        "than then there their them they he she his her you your we our i",
    )
)
# Words for one idea, counted as one ("a person labelled it", "human annotators").
_SAME_IDEA = {
    **dict.fromkeys(
        ("people", "human", "humans", "annotator", "annotators", "annotated", "labeller"), "person"
    ),
    **dict.fromkeys(("fine-tuned", "fine-tune", "fine-tunes", "finetuning", "finetuned"), "fine-tuning"),
}
_STOP_ZH = frozenset("的了是在和与一个这那它他们也都就把被对给上里中为不有没会能可以而或所之其等时后前我你")


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
            for h, hint in enumerate(question.hints):
                yield f"question {q} hint {h}", hint
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
            found += [f"{exercise.id}: {problem}" for problem in bank_problems(exercise.questions)]
        for seed in seeds:
            found += _check_variant(exercise, seed)
    banks = [exercise for exercise in EXERCISES if isinstance(exercise, ChoiceExercise)]
    every_question = [question for bank in banks for question in bank.questions]
    found += [f"all concept checks: {problem}" for problem in phrase_tells(every_question, PHRASE_IN_ALL)]
    return found


def _phrases(text: str, lang: str) -> set[str]:
    """What a reader may notice in an option: its words and word pairs (en), its runs of
    two and three characters (zh), and its lead-in before a colon ("nothing:", "是：")."""
    found: set[str] = set()
    lead = re.match(r"\s*([^:：]{1,24})[:：]", text)
    if lead:
        found.add("^" + lead.group(1).strip().lower() + ":")
    if lang == "en":
        words = [_SAME_IDEA.get(word, word) for word in re.findall(r"[a-z0-9][a-z0-9'-]*", text.lower())]
        found |= {word for word in words if word not in _STOP_EN and len(word) > 2}
        found |= {f"{a} {b}" for a, b in itertools.pairwise(words) if not {a, b} <= _STOP_EN}
    else:
        # Characters one by one, a run of Latin letters or digits as one unit ("token", "NSP").
        units = re.findall(r"[\u3400-\u9fff]|[A-Za-z0-9][A-Za-z0-9'_-]*", text)
        found |= {unit.lower() for unit in units if len(unit) > 2}
        for size in (2, 3):
            found |= {
                "".join(units[i : i + size])
                for i in range(len(units) - size + 1)
                if not set(units[i : i + size]) <= _STOP_ZH
            }
    return found


def phrase_tells(questions: Iterable[Question], least: int) -> list[str]:
    """Phrases a test-wise learner can pick against: found in at least ``least`` wrong
    options (of three or more questions) for every right option that has them. Wrong
    options outnumber right ones two to one, so a phrase with no bearing on the answer
    shows up about twice as often in wrong ones; ``least`` times as often is a tell."""
    found: list[str] = []
    questions = list(questions)
    for lang in LANGS:
        in_wrong: dict[str, list[int]] = {}
        in_right: dict[str, int] = {}
        for q, question in enumerate(questions):
            for option in question.options:
                for phrase in _phrases(option.text[lang], lang):
                    if option.correct:
                        in_right[phrase] = in_right.get(phrase, 0) + 1
                    else:
                        in_wrong.setdefault(phrase, []).append(q)
        tells = sorted(
            (
                phrase
                for phrase, where in in_wrong.items()
                if len(where) >= least * (1 + in_right.get(phrase, 0)) and len(set(where)) >= 3
            ),
            key=lambda phrase: (-len(in_wrong[phrase]), phrase),
        )
        # One line per tell, not per overlapping piece of it ("fine-tuning", "fine-tuning decides").
        shown: list[str] = []
        for phrase in tells:
            if not any(phrase in other or other in phrase for other in shown):
                shown.append(phrase)
        found += [
            f"the phrase {phrase!r} ({lang}) is in {len(in_wrong[phrase])} wrong options and "
            f"{in_right.get(phrase, 0)} right ones"
            for phrase in shown
        ]
    return found


def longest_share(questions: Iterable[Question], lang: str) -> float:
    """The share of questions whose right option is strictly the longest (chance: one in
    the number of options)."""
    questions = list(questions)
    longest = 0
    for question in questions:
        lengths = sorted((len(option.text[lang]), option.correct) for option in question.options)
        longest += lengths[-1][1] and lengths[-1][0] > lengths[-2][0]
    return longest / len(questions) if questions else 0.0


def theme_tells(questions: Iterable[Question]) -> list[str]:
    """Themes a test-wise learner can pick against: tagged on wrong options more than
    once and more than twice as often as on right ones."""
    wrong: dict[str, int] = {}
    right: dict[str, int] = {}
    for question in questions:
        for option in question.options:
            if option.theme is not None:
                counts = right if option.correct else wrong
                counts[option.theme] = counts.get(option.theme, 0) + 1
    return [
        f"the theme {theme!r} is on {count} wrong options and {right.get(theme, 0)} right ones "
        f"(want at most {max(1, 2 * right.get(theme, 0))} wrong)"
        for theme, count in sorted(wrong.items())
        if count > max(1, 2 * right.get(theme, 0))
    ]


def bank_problems(questions: Iterable[Question]) -> list[str]:
    """The tells a bank of questions shows as a whole (``question_problems`` checks each)."""
    questions = list(questions)
    found = phrase_tells(questions, PHRASE_IN_BANK) + theme_tells(questions)
    for lang in LANGS:
        share = longest_share(questions, lang)
        if share > LONGEST_SHARE:
            found.append(
                f"the right option is the longest in {share:.0%} of the questions ({lang}; want at most "
                f"{LONGEST_SHARE:.0%})"
            )
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
    for lang, shortest in (("en", 20), ("zh", 8)):  # "decoder-only" vs "encoder-only" differ
        texts = [clean(option.text[lang]).lower() for option in question.options]
        for a in range(len(texts)):
            for b in range(a + 1, len(texts)):
                long_enough = min(len(texts[a]), len(texts[b])) >= shortest
                if texts[a] == texts[b] or (
                    long_enough and difflib.SequenceMatcher(None, texts[a], texts[b]).ratio() >= SAME_MEANING
                ):
                    found.append(f"options {a} and {b} say almost the same thing ({lang})")
    if not 1 <= len(question.hints) <= MAX_HINTS:
        found.append(f"has {len(question.hints)} hints of its own (want 1 to {MAX_HINTS})")
    for hint in question.hints:
        if any(clean(right.text[lang]).lower() in clean(hint[lang]).lower() for lang in LANGS):
            found.append("a hint states the right option")
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
    return result.parts[part].valid and full_marks(result.parts[part].score)


def _check_variant(exercise: Exercise, seed: int) -> list[str]:
    found: list[str] = []
    where = f"{exercise.id} seed {seed}"
    variant = exercise.generate(seed)
    if not exercise.variant_is_fair(variant):
        found.append(f"{where}: the generator made an unfair variant")
    if _missing_language(variant.prompt):
        found.append(f"{where}: prompt is missing a language")
    elif _CHINESE.search(variant.prompt["en"]) and CHINESE_MATERIAL_NOTE not in variant.prompt["en"]:
        found.append(f"{where}: the English prompt shows Chinese material without saying why")
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
    if exercise.graded and (not full_marks(result.score) or not result.valid):
        found.append(f"{where}: the engine's own solution scores {result.score} (valid={result.valid})")
    blank = exercise.grade(variant, {})
    if blank.valid and exercise.graded:
        found.append(f"{where}: an empty answer counts as readable")
    for code in result.diagnoses:
        if code not in DIAGNOSES:
            found.append(f"{where}: unknown diagnosis code {code}")
    return found
