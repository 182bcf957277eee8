"""The shape every exercise has (PrairieLearn's): generate, solve, parse, grade.

A variant is plain data (JSON-able), so quizzes can store and regenerate it; an
answer maps part names to the text the learner typed.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from exercises.grading.marks import full_marks
from exercises.text import Bilingual, L, pick

POOL_PROBE = 500  # seeds looked at to count a generated exercise's distinct questions


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
    aliases: tuple[str, ...] = ()  # former names, still accepted (saved quizzes, scripts)
    # How the part is answered: "text" (a text box), "choice" (one of ``options``),
    # "matrix" (a grid of 0/1) or "self-mark" (the learner's own mark of a reflection).
    kind: str = "text"
    options: tuple[AnswerOption, ...] = ()


@dataclass(frozen=True)
class Rubric:
    """How an exercise is scored, written beside it (``exercise ID --rubric``).

    ``caps`` is the rule that keeps grading strict where it matters: an answer
    showing one of these misconceptions scores at most the given fraction,
    however many of its other parts are right.
    """

    full: Bilingual  # what earns full credit
    partial: tuple[Bilingual, ...] = ()  # what earns part of it
    caps: tuple[tuple[str, float], ...] = ()  # (diagnosis code, highest score an answer showing it gets)

    def cap_for(self, diagnoses: list[str]) -> float:
        return min((limit for code, limit in self.caps if code in diagnoses), default=1.0)

    def to_json(self, lang: str) -> dict[str, Any]:
        from exercises.grading.diagnoses import explain

        return {
            "full": pick(self.full, lang),
            "partial": [pick(line, lang) for line in self.partial],
            "caps": [
                {"code": code, "max_score": limit, "misconception": pick(explain(code), lang)}
                for code, limit in self.caps
            ],
        }


@dataclass(frozen=True)
class Variant:
    exercise: str
    seed: int
    data: dict[str, Any]
    prompt: Bilingual
    question: str = ""  # which question this is: variants that only reshuffle options share it


@dataclass(frozen=True)
class Parsed:
    """What a part's text was read as; ``value`` is None when it could not be read."""

    value: Any
    message: Bilingual | None = None  # why it could not be read, with the expected format
    certain: bool = True  # False: another reading fits as well, so no misconception is named
    note: Bilingual | None = None  # how it was read, when that needs saying (a layout, a notation)

    @property
    def valid(self) -> bool:
        return self.value is not None


@dataclass
class PartResult:
    score: float
    valid: bool
    feedback: Bilingual

    @property
    def mark(self) -> str:
        """The part in one glyph, the same on every screen: ? unread, ✓ right, ~ partly, ✗ wrong."""
        return "?" if not self.valid else "✓" if full_marks(self.score) else "~" if self.score > 0 else "✗"


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
        return self.graded and self.valid and full_marks(self.score)

    @property
    def mark(self) -> str:
        """The answer in one glyph, the same on every screen: ✓ right, ✗ read but not right, ? unread."""
        return "✓" if self.correct else "✗" if self.valid else "?"

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
    draw: Callable[[int], dict[str, Any]] | None = None  # seed -> the question's parameters, torch-free
    rubric: Rubric | None = None

    @property
    def objective(self) -> str:
        """Where the curriculum places this exercise (declared once, in ``exercises.curriculum``)."""
        from exercises.curriculum import objective_of

        return objective_of(self.id)

    def generate(self, seed: int) -> Variant:
        """The variant for ``seed``: a copy of the item's cached one, so a caller that
        changes its ``data`` (a list sorted in place, a key added) never changes what the
        next learner with that seed is asked; what is cached stays as it was made."""
        if self.make_variant is None:
            raise NotImplementedError(f"{self.id} makes no variants")
        cached = self.make_variant(seed)
        question = cached.question
        if not question and self.draw is not None:  # an item that names only its draw
            question = self.question_key(seed)
        return replace(cached, data=copy.deepcopy(cached.data), question=question)

    def question_key(self, seed: int) -> str:
        """The identity of the question ``seed`` asks, without the engine: mastery
        counts distinct questions, not seeds that happen to ask the same one."""
        if self.draw is None:
            return f"seed:{seed}"
        return question_key_of(self.draw(seed))

    def scoring(self) -> Rubric:
        """The exercise's rubric, or the rule every exercise without one follows."""
        return self.rubric or DEFAULT_RUBRIC

    def variant_is_fair(self, variant: Variant) -> bool:
        """Does this variant test the skill the exercise names? (Generators only
        produce fair variants; ``exercises --check`` and a property test hold them to it.)"""
        return True

    def pool_size(self) -> int | None:
        """How many distinct questions the exercise asks: counted exactly where an
        item overrides this, else the distinct questions among the first
        ``POOL_PROBE`` seeds (None: the exercise has no torch-free draw)."""
        if self.draw is None:
            return None
        return len({self.question_key(seed) for seed in range(POOL_PROBE)})

    @abstractmethod
    def solve(self, variant: Variant) -> dict[str, str]: ...

    @abstractmethod
    def parse(self, part: str, text: str, variant: Variant) -> Parsed: ...

    @abstractmethod
    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        """Score the readable parts; return per-part results and diagnosis codes."""

    def shown_solution(self, variant: Variant, lang: str) -> tuple[dict[str, str], bool]:
        """What "show the solution" displays to a learner reading ``lang``, and whether
        the engine computed it (True) or the course wrote it (a reflection's model
        answer, given in the learner's language)."""
        return self.solve(variant), True

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

    def canonical_answer(self, answer: Mapping[str, str]) -> dict[str, str]:
        """The answer keyed by the parts' current names (a former name is accepted);
        UnknownPart for a name the exercise never had."""
        names = self._names_by_alias()
        canonical: dict[str, str] = {}
        for name, text in answer.items():
            if name not in names:
                raise UnknownPart(
                    f"exercise {self.id} has no part {name!r}; its parts are {', '.join(self.part_names())}"
                )
            if names[name] not in canonical or name == names[name]:
                canonical[names[name]] = text
        return canonical

    def _names_by_alias(self) -> dict[str, str]:
        """Each part's name and former names -> its name (worked out once per ``parts``)."""
        memo = self.__dict__.get("_names_memo")
        if memo is None or memo[0] is not self.parts:
            names = {alias: part.name for part in self.parts for alias in (part.name, *part.aliases)}
            memo = (self.parts, names)
            self.__dict__["_names_memo"] = memo
        return memo[1]

    def grade(self, variant: Variant, answer: Mapping[str, str]) -> GradeResult:
        answer = self.canonical_answer(answer)
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
        for name, reading in parsed.items():
            if reading.note is not None:
                results[name] = _with_note(results[name], reading.note)
        results.update(invalid)
        ordered = {part.name: results[part.name] for part in self.parts}
        score = sum(part.score for part in ordered.values()) / len(ordered)
        diagnoses = _unique(diagnoses)
        score = min(score, self.scoring().cap_for(diagnoses))
        valid = not invalid
        return GradeResult(
            exercise=self.id,
            seed=variant.seed,
            score=score,
            valid=valid,
            parts=ordered,
            diagnoses=diagnoses,
            feedback=_overall(score, valid, diagnoses),
        )


DEFAULT_RUBRIC = Rubric(
    full=L("Every part right.", "每个部分都对。"),
    partial=(
        L(
            "Each part counts equally; within a part, the share of tokens or positions right.",
            "每个部分同样重要；部分内按写对的 token 或位置比例给分。",
        ),
    ),
    caps=(("one-based-positions", 0.5),),
)


def question_key_of(parameters: Mapping[str, Any]) -> str:
    """A stable text key for a question's parameters (sorted JSON)."""
    import json

    return json.dumps(parameters, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _unique(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))


def _unreadable(part: Part) -> Bilingual:
    return L(
        f"Could not read '{part.label['en']}'. Expected something like: {part.example['en']}",
        f"无法读懂“{part.label['zh']}”。格式示例：{part.example['zh']}",
    )


def _with_note(result: PartResult, note: Bilingual) -> PartResult:
    """A part's feedback, then how its answer was read."""
    return PartResult(
        result.score,
        result.valid,
        L(f"{result.feedback['en']} {note['en']}", result.feedback["zh"] + note["zh"]),
    )


def _overall(score: float, valid: bool, diagnoses: list[str]) -> Bilingual:
    """The answer's head line, then each misconception it shows. An answer with a part that
    could not be read is still scored on the parts that were (a quiz counts the unread part
    0; a learner sees what is right so far): the head says so, with the score."""
    if not valid:
        head = L(
            f"Some parts could not be read: see the expected format. Score so far {score:.0%} "
            "(a part not read counts 0 until it is rewritten).",
            f"有的部分无法读懂：请看格式示例。目前得分 {score:.0%}（读不懂的部分在改写之前记 0 分）。",
        )
    elif full_marks(score):
        head = L("All correct.", "全部正确。")
    else:
        head = L(f"Score {score:.0%}.", f"得分 {score:.0%}。")
    if not diagnoses:
        return {"en": head["en"], "zh": head["zh"]}  # no misconception to explain after the head
    from exercises.grading.diagnoses import explain

    notes = [explain(code) for code in diagnoses]
    return {lang: " ".join([head[lang], *(note[lang] for note in notes)]) for lang in ("en", "zh")}
