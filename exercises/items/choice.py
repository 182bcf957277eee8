"""Multiple-choice concept checks, with feedback for every option and a
diagnosis code for every wrong one. Seed 0 is the first question of the bank;
other seeds pick one. The options are shuffled for every seed, so two seeds
may ask the same question: a variant's ``question`` (the stem) says which one,
and mastery counts distinct questions."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from exercises.grading import parsing
from exercises.grading.model import AnswerOption, Exercise, Parsed, Part, PartResult, Rubric, Variant
from exercises.items.banks import rng_for
from exercises.text import Bilingual, L

LETTERS = "ABCDEF"


@dataclass(frozen=True)
class Option:
    text: Bilingual
    correct: bool
    why: Bilingual
    code: str | None = None  # the misconception a learner who picks it holds
    theme: str | None = None  # what the option is about beyond its words ("ranking"), for the tell check


@dataclass(frozen=True)
class Question:
    stem: Bilingual
    options: tuple[Option, ...]
    hints: tuple[Bilingual, ...] = ()  # this question's own, in order (none states its answer)


@dataclass(eq=False)
class ChoiceExercise(Exercise):
    """A bank of questions; a variant is one question with its options ordered."""

    questions: tuple[Question, ...] = ()

    def generate(self, seed: int) -> Variant:
        return _generate(self, seed)

    def options(self, part: Part, variant: Variant) -> tuple[AnswerOption, ...]:
        """One letter per option of this variant's question; typing the letter picks it."""
        return tuple(
            AnswerOption(letter, L(letter, letter), letter.lower())
            for letter in LETTERS[: len(variant.data["order"])]
        )

    def question(self, variant: Variant) -> Question:
        return self.questions[variant.data["question"]]

    def hints(self, variant: Variant) -> list[Bilingual]:
        """The hints of the question this variant asks: a hint written for one question
        would give another away, or say nothing about it."""
        return list(self.question(variant).hints)

    def question_key(self, seed: int) -> str:
        return self.generate(seed).question

    def pool_size(self) -> int:
        return len(self.questions)

    def variant_is_fair(self, variant: Variant) -> bool:
        """One right option, every option shown once."""
        question = self.question(variant)
        order = variant.data["order"]
        return sorted(order) == list(range(len(question.options))) and (
            sum(option.correct for option in question.options) == 1
        )

    def solve(self, variant: Variant) -> dict[str, str]:
        question = self.question(variant)
        order = variant.data["order"]
        right = next(slot for slot, index in enumerate(order) if question.options[index].correct)
        return {"choice": LETTERS[right]}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        question, order = self.question(variant), variant.data["order"]
        count = len(order)
        index = parsing.choice(text, count)
        for lang in ("en", "zh"):  # the option's own text, typed instead of its letter
            if index is None:
                index = parsing.choice(text, count, [question.options[i].text[lang] for i in order])
        if index is None:
            return Parsed(
                None,
                L(
                    f"Answer with one letter, A to {LETTERS[count - 1]} (or the option's text).",
                    f"请用一个字母作答，A 到 {LETTERS[count - 1]}（或写出选项原文）。",
                ),
            )
        return Parsed(index)

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        option = self.question(variant).options[variant.data["order"][parsed["choice"].value]]
        result = PartResult(1.0 if option.correct else 0.0, True, option.why)
        return {"choice": result}, [] if option.correct or option.code is None else [option.code]


@functools.lru_cache(maxsize=4096)
def _generate(exercise: ChoiceExercise, seed: int) -> Variant:
    rng = rng_for(exercise.id, seed)
    index = 0 if seed == 0 else rng.randrange(len(exercise.questions))
    order = list(range(len(exercise.questions[index].options)))
    rng.shuffle(order)  # even seed 0: the right answer must not always be A
    question = exercise.questions[index]
    prompt = {
        lang: question.stem[lang]
        + "\n"
        + "\n".join(
            f"{LETTERS[slot]}) {question.options[option].text[lang]}" for slot, option in enumerate(order)
        )
        for lang in ("en", "zh")
    }
    return Variant(exercise.id, seed, {"question": index, "order": order}, prompt, question.stem["en"])


CHOICE_RUBRIC = Rubric(
    full=L("The right option (its letter or its text).", "选对选项（字母或选项原文都行）。"),
    partial=(L("None: one right option, all or nothing.", "没有部分分：只有一个正确选项，对就满分。"),),
)


def choice_exercise(exercise_id: str, title: Bilingual, questions: tuple[Question, ...]) -> ChoiceExercise:
    return ChoiceExercise(
        id=exercise_id,
        kind="choice",
        title=title,
        parts=(Part("choice", L("your choice", "你的选择"), L("one letter", "一个字母"), kind="choice"),),
        rubric=CHOICE_RUBRIC,
        questions=questions,
    )
