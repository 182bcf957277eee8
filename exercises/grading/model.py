"""The shape every exercise has (PrairieLearn's): generate, solve, parse, grade.

A variant is plain data (JSON-able), so quizzes can store and regenerate it; an
answer maps part names to the text the learner typed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from exercises.text import Bilingual, L, pick


class UnknownPart(ValueError):
    """An answer names a part the exercise does not have."""


@dataclass(frozen=True)
class AnswerOption:
    """One choice of a "choice" or "self-mark" part (h4, issue 10: widgets render parts from this)."""

    value: str  # what the answer holds: "A", "yes"
    label: Bilingual  # what the learner sees
    key: str  # the key that picks it in the app


@dataclass(frozen=True)
class Part:
    name: str
    label: Bilingual
    example: Bilingual  # the expected format, shown when an answer cannot be read
    # How the part is answered: "text" (a text box), "choice" (one of ``options``),
    # "matrix" (a grid of 0/1) or "self-mark" (the learner's own mark of a reflection).
    kind: str = "text"
    options: tuple[AnswerOption, ...] = ()


@dataclass(frozen=True)
class Variant:
    exercise: str
    seed: int
    data: dict[str, Any]
    prompt: Bilingual


@dataclass(frozen=True)
class Parsed:
    """What a part's text was read as; ``value`` is None when it could not be read."""

    value: Any
    message: Bilingual | None = None  # why it could not be read, with the expected format

    @property
    def valid(self) -> bool:
        return self.value is not None


@dataclass
class PartResult:
    score: float
    valid: bool
    feedback: Bilingual


@dataclass
class GradeResult:
    exercise: str
    seed: int
    score: float | None  # None: not auto-graded (reflection)
    valid: bool
    parts: dict[str, PartResult]
    diagnoses: list[str]
    feedback: Bilingual
    graded: bool = True

    @property
    def correct(self) -> bool:
        return self.graded and self.valid and self.score is not None and self.score >= 1.0 - 1e-9

    def to_json(self, lang: str) -> dict[str, Any]:
        from exercises.grading.diagnoses import explain

        return {
            "exercise": self.exercise,
            "seed": self.seed,
            "graded": self.graded,
            "score": None if self.score is None else round(self.score, 4),
            "correct": self.correct,
            "valid": self.valid,
            "parts": {
                name: {
                    "score": round(part.score, 4),
                    "valid": part.valid,
                    "feedback": pick(part.feedback, lang),
                }
                for name, part in self.parts.items()
            },
            "diagnoses": self.diagnoses,
            "misconceptions": {code: pick(explain(code), lang) for code in self.diagnoses},
            "feedback": pick(self.feedback, lang),
        }


@dataclass(eq=False)  # identity hash: variants are cached per (exercise, seed)
class Exercise(ABC):
    """One exercise of the catalogue. Subclasses fill in the four verbs."""

    id: str
    kind: str  # "parts" | "choice" | "matrix" | "reflection"
    title: Bilingual
    parts: tuple[Part, ...]
    from_lesson: bool = False
    graded: bool = True
    hint_texts: tuple[Bilingual, ...] = field(default=())
    make_variant: Callable[[int], Variant] | None = None  # seed -> variant (cached by the item)

    @property
    def objective(self) -> str:
        """Where the curriculum places this exercise (declared once, in ``exercises.curriculum``)."""
        from exercises.curriculum import objective_of

        return objective_of(self.id)

    def generate(self, seed: int) -> Variant:
        if self.make_variant is None:
            raise NotImplementedError(f"{self.id} makes no variants")
        return self.make_variant(seed)

    @abstractmethod
    def solve(self, variant: Variant) -> dict[str, str]: ...

    @abstractmethod
    def parse(self, part: str, text: str, variant: Variant) -> Parsed: ...

    @abstractmethod
    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        """Score the readable parts; return per-part results and diagnosis codes."""

    def hints(self, variant: Variant) -> list[Bilingual]:
        """Up to three hints, in order; the last never gives the whole answer."""
        return list(self.hint_texts)

    def options(self, part: Part, variant: Variant) -> tuple[AnswerOption, ...]:
        """What a choice part offers in this variant (by default: the part's own options)."""
        return part.options

    def matrix_size(self, variant: Variant) -> int:
        """The side of a matrix part's grid in this variant."""
        raise NotImplementedError(f"{self.id} has no matrix part")

    def part_names(self) -> list[str]:
        return [part.name for part in self.parts]

    def grade(self, variant: Variant, answer: Mapping[str, str]) -> GradeResult:
        unknown = [name for name in answer if name not in self.part_names()]
        if unknown:
            raise UnknownPart(
                f"exercise {self.id} has no part {unknown[0]!r}; its parts are {', '.join(self.part_names())}"
            )
        parsed: dict[str, Parsed] = {}
        invalid: dict[str, PartResult] = {}
        for part in self.parts:
            text = answer.get(part.name)
            if text is None or not str(text).strip():
                invalid[part.name] = PartResult(
                    0.0,
                    False,
                    L(
                        f"No answer for '{part.label['en']}'. Expected something like: {part.example['en']}",
                        f"“{part.label['zh']}”没有作答。格式示例：{part.example['zh']}",
                    ),
                )
                continue
            result = self.parse(part.name, str(text), variant)
            if result.valid:
                parsed[part.name] = result
            else:
                invalid[part.name] = PartResult(0.0, False, result.message or _unreadable(part))
        results, diagnoses = self.grade_parts(variant, parsed, answer) if parsed else ({}, [])
        results.update(invalid)
        ordered = {part.name: results[part.name] for part in self.parts}
        score = sum(part.score for part in ordered.values()) / len(ordered)
        valid = not invalid
        return GradeResult(
            exercise=self.id,
            seed=variant.seed,
            score=score,
            valid=valid,
            parts=ordered,
            diagnoses=_unique(diagnoses),
            feedback=_overall(score, valid, _unique(diagnoses)),
        )


def _unique(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))


def _unreadable(part: Part) -> Bilingual:
    return L(
        f"Could not read '{part.label['en']}'. Expected something like: {part.example['en']}",
        f"无法读懂“{part.label['zh']}”。格式示例：{part.example['zh']}",
    )


def _overall(score: float, valid: bool, diagnoses: list[str]) -> Bilingual:
    from exercises.grading.diagnoses import explain

    if not valid:
        head = L(
            "Some parts could not be read, so they were not graded: see the expected format.",
            "有的部分无法读懂，因此没有评分：请看格式示例。",
        )
    elif score >= 1.0 - 1e-9:
        head = L("All correct.", "全部正确。")
    else:
        head = L(f"Score {score:.0%}.", f"得分 {score:.0%}。")
    notes = [explain(code) for code in diagnoses]
    return {lang: " ".join([head[lang], *(note[lang] for note in notes)]) for lang in ("en", "zh")}
