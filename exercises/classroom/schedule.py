"""Where a class's grading runs: in this process, or, for code-lab files, on the
machine's cores.

Text answers are graded here, one after the other: a class of 500 × 10 answers
takes about a second of CPU, and spreading it over forked workers saved at best
a few tenths of a second of a command that spends longer importing torch
(docs/architecture.md, "Caches and fast paths kept"). A code-lab file is another
matter: each runs in the lab's sandbox for 1–5 s (an endless loop for its whole
time limit), so a quiz with lab questions spreads its students over up to four
forked workers. Submissions go to the pool in chunks while later files are still
being read. A worker that dies (killed, out of memory) costs time, never a grade:
its chunk, and any chunk the broken pool then refuses, is graded here."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace

from exercises.classroom.quiz import Quiz, is_lab
from exercises.classroom.submission import Submission

# grading.grade_many: (quiz, submissions) -> one outcome each, in order. Passed in, so that
# the rules (grading.py) use this module and this module knows nothing of them.
Work = Callable[[Quiz, Sequence[Submission]], list]

CHUNK = 16  # submissions per task: small, so a core slowed by other work takes fewer
MAX_WORKERS = 4


def default_workers(quiz: Quiz) -> int:
    """Lab files wait on their sandboxes: every core (at most four). Text answers: one."""
    if not any(is_lab(exercise_id) for exercise_id in quiz.exercises):
        return 1
    return max(1, min(len(os.sched_getaffinity(0)), MAX_WORKERS))


class Grader:
    """Grading fed one submission at a time; ``results`` gives every outcome in order."""

    def __init__(
        self, work: Work, quiz: Quiz, workers: int | None = None, expected: int | None = None
    ) -> None:
        self.work, self.quiz = work, quiz
        self.pending: list[Submission] = []
        self.sent: list[tuple[object, list[Submission]]] = []  # (future or None, chunk)
        workers = default_workers(quiz) if workers is None else workers
        self.pool = None
        if workers >= 2 and (expected is None or expected >= 2) and _can_fork():
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            _load_before_forking(quiz)
            context = multiprocessing.get_context("fork")  # workers inherit torch and the engine
            self.pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_forked_worker)

    def add(self, submission: Submission) -> None:
        if self.pool is None:
            self.pending.append(submission)
            return
        # the payload as read stays here (conflicts compare it); a worker needs the version only
        self.pending.append(
            replace(submission, payload={"app_version": submission.payload.get("app_version")})
        )
        if len(self.pending) >= CHUNK:
            self._send()

    def _send(self) -> None:
        from concurrent.futures.process import BrokenProcessPool

        if self.pending:
            try:
                future = self.pool.submit(self.work, self.quiz, self.pending)
            except BrokenProcessPool:  # a worker died: the pool takes no more, this chunk is graded here
                future = None
            self.sent.append((future, self.pending))
            self.pending = []

    def results(self) -> list:
        from concurrent.futures.process import BrokenProcessPool

        if self.pool is None:
            return self.work(self.quiz, self.pending)
        try:
            self._send()
            out: list = []
            for future, chunk in self.sent:
                try:
                    graded = None if future is None else future.result()
                except BrokenProcessPool:
                    graded = None
                out.extend(graded if graded is not None else self.work(self.quiz, chunk))
            return out
        finally:
            self.pool.shutdown(cancel_futures=True)


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _load_before_forking(quiz: Quiz) -> None:
    """What every worker needs, loaded once here instead of once per worker: torch (one
    thread: the checks' tensors are tiny), each exercise's engine modules, the lab's checks."""
    import torch

    torch.set_num_threads(1)
    from exercises.catalogue import get

    for exercise_id in dict.fromkeys(quiz.exercises):
        if is_lab(exercise_id):
            import exercises.lab.checks  # noqa: F401
        else:
            get(exercise_id).generate(0)


def _forked_worker() -> None:
    """A forked worker runs lab files through a fork server of its own: the parent's (if it
    started one) answers on a socket only the parent may use. Stopped when the worker ends."""
    import sys
    from multiprocessing.util import Finalize

    sandbox = sys.modules.get("exercises.lab.sandbox")
    if sandbox is not None:
        sandbox._zygote = None  # forget, do not stop: it is the parent's
        Finalize(None, sandbox.shutdown, exitpriority=10)
