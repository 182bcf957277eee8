"""What practice shows a learner, and when: the rules around grading that are not
grading itself. They live here, not in the widgets, so the app, the command line and
the tests follow the same rules (the practice panel renders what these decide).

- Hints follow the learner's setting: always, only after a first try, or never.
  "Never" is exam practice: no hints at all, and the solution only once an answer
  was given (issue 23.8).
- The solution is shown when the learner asks for it (``s``) or after their second
  wrong try; never at the first wrong try, which marks what is wrong and names the
  misconception without printing the answer (issue 9, grading point 4). A multiple
  choice says at the first wrong try which option is wrong and why, and nothing
  more: its misconception's sentence states the right option, so it waits for the
  solution (issue 23.12).
- A score a misconception capped says so: what the parts add up to, and the cap
  (issue 23.14).
- A reflection is not graded by the machine: the learner writes an explanation,
  then sees the model answer, then marks themselves.
- A graded matrix shows each wrong cell with the value it should have.
- The answer checked last, checked again unchanged, is not another try: nothing is
  graded or saved, the feedback stays and says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from exercises.grading.model import Exercise, GradeResult, Variant
from exercises.text import Bilingual, L

HINT_POLICIES = ("always", "after-first-try", "never")
WRONG_TRIES_BEFORE_SOLUTION = 2


def hint_refusal(policy: str, tried: bool) -> str | None:
    """Why no hint may be shown now (an i18n key), or None when one may."""
    if policy == "never":
        return "hints-off"
    if policy == "after-first-try" and not tried:
        return "hints-locked"
    return None


def hints_offered(policy: str) -> bool:
    """Whether the hint key is offered at all (exam practice has none to give)."""
    return policy != "never"


def solution_refusal(policy: str, tried: bool) -> str | None:
    """Why the solution may not be shown now (a key of tui.i18n's MESSAGES), or None when
    it may: in exam practice, only once an answer was given."""
    if policy == "never" and not tried:
        return "solution-locked"
    return None


@dataclass
class Practice:
    """One learner working on one variant: what they have done so far."""

    checks: int = 0  # answers checked, readable or not (a try, for the hint setting)
    tries: int = 0  # graded tries that could be read
    wrong_tries: int = 0
    hints_shown: int = 0
    solution_asked: bool = False
    last_answer: dict[str, str] | None = None  # the answer checked last, as typed (spaces aside)

    def repeats(self, answer: Mapping[str, str]) -> bool:
        """Is ``answer`` the one checked last? Checking it again grades nothing new: it is
        not another try (pressing Enter twice on a right answer used to count as two
        right answers, and pushed the exercise out of review)."""
        return self.last_answer is not None and _typed(answer) == self.last_answer

    def graded(self, result: GradeResult, answer: Mapping[str, str] | None = None) -> None:
        """Count a graded try; an unreadable one is neither right nor wrong."""
        if answer is not None:
            self.last_answer = _typed(answer)
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

    def ask_solution(self, policy: str) -> str | None:
        """The learner asks for the solution: the i18n key of a refusal, or None (shown)."""
        refusal = solution_refusal(policy, self.checks > 0)
        if refusal is None:
            self.solution_asked = True
        return refusal

    @property
    def shows_solution(self) -> bool:
        return self.solution_asked or self.wrong_tries >= WRONG_TRIES_BEFORE_SOLUTION

    def shows_misconceptions(self, exercise: Exercise) -> bool:
        """A choice's misconception sentence states the right option: it waits for the
        solution. Elsewhere it names what went wrong at once."""
        return not is_multiple_choice(exercise) or self.shows_solution


def _typed(answer: Mapping[str, str]) -> dict[str, str]:
    return {part: str(text).strip() for part, text in answer.items()}


def is_multiple_choice(exercise: Exercise) -> bool:
    """Answered by picking one of the options shown (not typed into a box)."""
    return any(part.kind == "choice" for part in exercise.parts)


@dataclass(frozen=True)
class Cap:
    """A score lowered by a misconception: what the parts add up to, and the most an
    answer showing ``codes`` may score."""

    parts_score: float
    limit: float
    codes: tuple[str, ...]


def score_cap(exercise: Exercise, result: GradeResult) -> Cap | None:
    """The cap that lowered ``result``'s score, or None when the score is the parts'."""
    if not result.graded or not result.valid or not result.parts or result.score is None:
        return None
    parts_score = sum(part.score for part in result.parts.values()) / len(result.parts)
    rubric = exercise.scoring()
    limit = rubric.cap_for(result.diagnoses)
    if parts_score <= limit + 1e-9:
        return None
    codes = tuple(code for code, cap in rubric.caps if code in result.diagnoses and cap <= limit + 1e-9)
    return Cap(parts_score, limit, codes)


def solution_lines(exercise: Exercise, variant: Variant) -> list[tuple[Bilingual, Bilingual]]:
    """The engine's solution as (what, answer) lines: a part's label and its answer;
    for a multiple choice, the right option's letter and text (a bare "C" under the
    label "your choice" read as the learner's own pick). The text is what
    ``Exercise.shown_solution`` shows in each language (a reflection's model answer)."""
    shown = {lang: exercise.shown_solution(variant, lang)[0] for lang in ("en", "zh")}
    lines = []
    for part in exercise.parts:
        if part.name not in shown["en"]:
            continue
        if part.kind == "choice":
            lines.append(
                (L("The right option", "正确选项"), choice_text(exercise, variant, shown["en"][part.name]))
            )
        else:
            lines.append(
                (part.label, {lang: text[part.name].replace("\n", " / ") for lang, text in shown.items()})
            )
    return lines


def choice_text(exercise: Exercise, variant: Variant, letter: str) -> Bilingual:
    """ "B) the option's text" for a multiple choice's letter (the letter alone if it
    names no option)."""
    from exercises.items.choice import LETTERS

    question = getattr(exercise, "question", None)
    order = variant.data.get("order", ())
    slot = LETTERS.find(letter.strip().upper()[:1]) if letter.strip() else -1
    if question is None or not 0 <= slot < len(order):
        return {"en": letter, "zh": letter}
    option = question(variant).options[order[slot]]
    return {lang: f"{LETTERS[slot]}) {option.text[lang]}" for lang in ("en", "zh")}


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
