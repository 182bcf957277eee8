"""Where a class's grading runs: code-lab files on the machine's cores, everything
else in the calling process.

A code-lab file runs in the lab's sandbox for a fraction of a second to a few
seconds (an endless loop its whole time limit), so a quiz with lab questions
spreads its students over up to four forked workers, a few at a time. Text answers
take milliseconds each: spreading them saved no time a teacher feels, and cost a
third more CPU (docs/architecture.md, "Caches and fast paths kept"). A worker
that dies (killed, out of memory) costs time, never a grade: its students, and
any the broken pool then refuses, are graded in the calling process."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from exercises.classroom.quiz import Quiz, is_lab
from exercises.classroom.submission import Submission

# grading.grade_all: (quiz, submissions) -> one outcome each, in order. Passed in, so that
# the rules (grading.py) use this module and this module knows nothing of them.
Work = Callable[[Quiz, Sequence[Submission]], list]
MAX_WORKERS = 4
CHUNK = 3  # students per task: a lab file takes seconds, so small tasks keep every core busy


def default_workers(quiz: Quiz) -> int:
    """Every core (at most four) for a quiz with lab files; one for text answers."""
    if not any(is_lab(exercise_id) for exercise_id in quiz.exercises):
        return 1
    return max(1, min(len(os.sched_getaffinity(0)), MAX_WORKERS))


def spread(work: Work, quiz: Quiz, submissions: Sequence[Submission], workers: int | None = None) -> list:
    """``work(quiz, submissions)``'s outcomes, in order: here, or on ``workers`` forked
    processes (default_workers) when there are at least two and two students."""
    workers = default_workers(quiz) if workers is None else workers
    if workers < 2 or len(submissions) < 2 or not _can_fork():
        return work(quiz, submissions)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    _load_before_forking(quiz)
    chunks = [list(submissions[start : start + CHUNK]) for start in range(0, len(submissions), CHUNK)]
    context = multiprocessing.get_context("fork")  # workers inherit torch and the engine
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_forked_worker) as pool:
        futures = []
        for chunk in chunks:
            try:
                futures.append(pool.submit(work, quiz, chunk))
            except BrokenProcessPool:  # a worker died: the pool takes no more, this chunk is graded here
                futures.append(None)
        out: list = []
        for future, chunk in zip(futures, chunks, strict=True):
            try:
                graded = None if future is None else future.result()
            except BrokenProcessPool:
                graded = None
            out.extend(graded if graded is not None else work(quiz, chunk))
    return out


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
