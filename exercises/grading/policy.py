"""What practice shows a learner, and when: the rules around grading that are not
grading itself. They live here, not in the widgets, so the app, the command line and
the tests follow the same rules (the practice panel renders what these decide).

- Hints follow the learner's setting: always, only after a first try, or never.
- The solution is shown when the learner asks for it (``s``) or after their second
  wrong try; never at the first wrong try, which marks what is wrong and names the
  misconception without printing the answer (issue 9, grading point 4).
- A reflection is not graded by the machine: the learner writes an explanation,
  then sees the model answer, then marks themselves.
- A graded matrix shows each wrong cell with the value it should have.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from exercises.grading.model import Exercise, GradeResult, Variant
from exercises.text import Bilingual

HINT_POLICIES = ("always", "after-first-try", "never")
WRONG_TRIES_BEFORE_SOLUTION = 2


def hint_refusal(policy: str, tried: bool) -> str | None:
    """Why no hint may be shown now (an i18n key), or None when one may."""
    if policy == "never":
        return "hints-off"
    if policy == "after-first-try" and not tried:
        return "hints-locked"
    return None


@dataclass
class Practice:
    """One learner working on one variant: what they have done so far."""

    checks: int = 0  # answers checked, readable or not (a try, for the hint setting)
    tries: int = 0  # graded tries that could be read
    wrong_tries: int = 0
    hints_shown: int = 0
    solution_asked: bool = False

    def graded(self, result: GradeResult) -> None:
        """Count a graded try; an unreadable one is neither right nor wrong."""
        self.checks += 1
        if result.graded and result.valid:
            self.tries += 1
            if not result.correct:
                self.wrong_tries += 1

    def next_hint(self, policy: str, available: int) -> str | None:
        """Show one hint more (up to ``available``); the i18n key of a refusal, or None."""
        refusal = hint_refusal(policy, self.checks > 0)
        if refusal is None and self.hints_shown < available:
            self.hints_shown += 1
        return refusal

    @property
    def shows_solution(self) -> bool:
        return self.solution_asked or self.wrong_tries >= WRONG_TRIES_BEFORE_SOLUTION


def reflection_step(exercise: Exercise, answer: Mapping[str, str]) -> str:
    """Where a reflection stands: "write" (no explanation yet), "compare" (written:
    show the model answer, ask for a self-mark) or "marked" (grade and record it)."""
    written = {
        part.name for part in exercise.parts if part.kind == "text" and answer.get(part.name, "").strip()
    }
    if not written:
        return "write"
    marks = [part.name for part in exercise.parts if part.kind == "self-mark"]
    return "marked" if all(answer.get(name, "").strip() for name in marks) else "compare"


def model_answer(exercise: Exercise, variant: Variant) -> Bilingual | None:
    """What a learner compares their own explanation with (reflections only)."""
    comparison = getattr(exercise, "comparison", None)
    return comparison() if callable(comparison) else None


def matrix_corrections(
    exercise: Exercise, variant: Variant, part: str, given_text: str
) -> dict[tuple[int, int], int]:
    """Each cell of a matrix answer that differs from the engine's solution -> the value it should have."""
    given = exercise.parse(part, given_text, variant).value
    expected = exercise.parse(part, exercise.solve(variant)[part], variant).value
    if given is None or expected is None:
        return {}
    from exercises.items.mask_matrix import diff_cells

    return {(row, column): expected[row][column] for row, column in diff_cells(given, expected)}
