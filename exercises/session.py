"""What the learner has done in this session: which exercises they got right
and which lesson they were in. (Kept in memory; the durable store builds on it.)"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class SessionProgress:
    solved: set[str] = field(default_factory=set)
    attempts: int = 0
    last_objective: str | None = None

    def record(self, exercise_id: str, correct: bool, self_marked: bool = False) -> None:
        """One graded attempt; a reflection counts as done once self-marked."""
        self.attempts += 1
        if correct or self_marked:
            self.solved.add(exercise_id)

    def done_in(self, exercise_ids: Iterable[str]) -> int:
        return sum(1 for exercise_id in exercise_ids if exercise_id in self.solved)
