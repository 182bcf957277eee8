"""Grading speed: 10,000 answers across the whole catalogue, once the engine
is loaded.

Each answer is graded from scratch (parse, compare with the engine's solution,
diagnose). Two figures: with the variants already generated (what a learner's
session or a re-grade of known variants costs) and with every variant generated
on the spot (a teacher grading a class: each student's variants are new).
Target: well under a second of CPU for the 10,000.

    .venv/bin/python benchmarks/grading.py [--answers 10000]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

import repository  # noqa: F401  (first: the project, not this folder's engine.py)

from exercises.catalogue import EXERCISES


def answer_kinds(solution: dict[str, str]) -> list[dict[str, str]]:
    """A right answer, a one-part slip, an unreadable one and a half-answered one."""
    first = sorted(solution)[0]
    return [
        solution,
        {**solution, first: solution[first] + " 1"},
        {part: "???" for part in solution},
        {first: solution[first]},
    ]


def workload(count: int, seed_offset: int) -> list[tuple[object, int, dict[str, str]]]:
    """``count`` (exercise, seed, answer) triples cycling through the catalogue."""
    jobs = []
    for index in itertools.count():
        exercise = EXERCISES[index % len(EXERCISES)]
        seed = seed_offset + index // len(EXERCISES)
        variant = exercise.generate(seed)
        for answer in answer_kinds(exercise.solve(variant)):
            jobs.append((exercise, seed, answer))
            if len(jobs) == count:
                return jobs
    raise AssertionError("unreachable")


def grade_all(jobs) -> float:
    """CPU seconds to generate (or fetch) each variant and grade its answer."""
    start = time.process_time()
    for exercise, seed, answer in jobs:
        exercise.grade(exercise.generate(seed), answer)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=10_000, help="how many answers (default 10000)")
    args = parser.parse_args(argv)
    if args.answers < 1:
        parser.error("--answers must be at least 1")

    jobs = workload(args.answers, seed_offset=0)  # generates and caches these variants: the engine is loaded
    warm = grade_all(jobs)

    fresh_offset = 10_000_000  # seeds never generated before: every variant is made afresh
    fresh = [(exercise, seed + fresh_offset, answer) for exercise, seed, answer in jobs]
    cold = grade_all(fresh)

    variants = len({(exercise.id, seed) for exercise, seed, _ in jobs})
    print(f"{args.answers} answers over {variants} variants of {len(EXERCISES)} exercises")
    print(f"variants known:       {warm:.3f} s CPU ({warm / args.answers * 1e6:.0f} us per answer)")
    print(f"variants made afresh: {cold:.3f} s CPU ({cold / args.answers * 1e6:.0f} us per answer)")
    verdict = "PASS" if warm < 1.0 else "MISS"
    print(f"target: well under 1 s of CPU with the engine loaded: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
