"""Grading a class: 500 submissions × 10 questions, every variant regenerated
from (salt, student, question) once per student and every answer graded again,
then the gradebook and the report written, as ``objectives-tutor quiz grade``
does. Target: under 2 s wall on a 2-core machine, idle and while it is busy.

Measured twice in one run: idle, then with one CPU-bound process per core
competing (the "busy" case), so the ratio between them means something.

    .venv/bin/python benchmarks/quiz.py [--students 500] [--workers N]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pathlib
import sys
import tempfile
import time

sys.path[:] = [
    p for p in sys.path if pathlib.Path(p or ".").resolve() != pathlib.Path(__file__).parent.resolve()
]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

EXERCISES = (
    "mlm-abcde",
    "clm-shift",
    "visibility",
    "mask-matrix",
    "span-corruption",
    "mlm-eligible",
    "expected-counts",
    "loss-sanity",
    "concept-task",
    "concept-80-10-10",
)


def write_submissions(students: int, folder: pathlib.Path) -> None:
    """Every other student answers right; the rest slip on every first part. Written by a
    child process, so the grading process starts as a teacher's does: no variant made yet."""
    from exercises.catalogue import get
    from exercises.classroom.quiz import questions_for, variant_fingerprint

    quiz = _quiz()
    for number in range(students):
        student = f"s{number:04d}"
        answers = {}
        for question in questions_for(quiz, student):
            exercise = get(question.exercise)
            variant = exercise.generate(question.seed)
            solution = exercise.solve(variant)
            if number % 2:
                first = sorted(solution)[0]
                solution = {**solution, first: solution[first] + " x"}
            answers[str(question.index)] = {
                "exercise": question.exercise,
                "seed": question.seed,
                "variant": variant_fingerprint(variant),
                "parts": solution,
            }
        payload = {
            "kind": "submission",
            "quiz": quiz.id,
            "quiz_hash": quiz.question_hash,
            "student": student,
            "answers": answers,
            "started_at": 1.8e9,
            "submitted_at": 1.8e9 + 600,
        }
        (folder / f"{student}.submission.json").write_text(json.dumps(payload), encoding="utf-8")


def _quiz():
    from exercises.classroom.quiz import Quiz

    return Quiz("quiz-bench", "Benchmark", "bench-salt", EXERCISES)


def _burn(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def forget_variants() -> None:
    """Empty every exercise's variant cache, so grading pays for regenerating them."""
    from exercises.catalogue import EXERCISES as ALL
    from exercises.items import choice

    for exercise in ALL:
        getattr(exercise.make_variant, "cache_clear", lambda: None)()
    choice._generate.cache_clear()


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the grading workers)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def grade_once(folder: pathlib.Path, workers: int | None) -> tuple[float, float, int]:
    from exercises.classroom.grading import grade_class
    from exercises.classroom.report import gradebook_csv, report_markdown

    quiz = _quiz()
    forget_variants()
    start_wall, start_cpu = time.perf_counter(), _cpu()
    result = grade_class(quiz, sorted(folder.glob("*.json")), now=2e9, workers=workers)
    (folder / "grades.csv.out").write_text(gradebook_csv(quiz, result.grades), encoding="utf-8")
    (folder / "report.md.out").write_text(report_markdown(quiz, result), encoding="utf-8")
    return time.perf_counter() - start_wall, _cpu() - start_cpu, len(result.rejected)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--workers", type=int, help="grading processes (default: the cores, at most 4)")
    args = parser.parse_args(argv)
    if args.students < 1:
        parser.error("--students must be at least 1")
    import exercises.catalogue  # noqa: F401  (torch and the engine, as in `quiz grade` before grading)

    with tempfile.TemporaryDirectory() as name:
        folder = pathlib.Path(name)
        maker = multiprocessing.get_context("spawn").Process(
            target=write_submissions, args=(args.students, folder)
        )
        maker.start()
        maker.join()
        idle_wall, idle_cpu, rejected = grade_once(folder, args.workers)
        stop = multiprocessing.get_context("fork").Event()
        burners = [
            multiprocessing.get_context("fork").Process(target=_burn, args=(stop,))
            for _ in range(os.cpu_count() or 1)
        ]
        for burner in burners:
            burner.start()
        try:
            time.sleep(0.3)
            busy_wall, busy_cpu, _ = grade_once(folder, args.workers)
        finally:
            stop.set()
            for burner in burners:
                burner.join()
    answers = args.students * len(EXERCISES)
    print(
        f"{args.students} submissions × {len(EXERCISES)} questions = {answers} answers, {rejected} rejected"
    )
    print(f"cores: {os.cpu_count()}, load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"idle: grade + gradebook + report {idle_wall:.2f} s wall ({idle_cpu:.2f} s CPU, all processes)")
    print(
        f"busy ({len(burners)} CPU-bound processes competing): {busy_wall:.2f} s wall, "
        f"{busy_wall / idle_wall:.2f}× idle ({busy_cpu:.2f} s CPU)"
    )
    verdict = "PASS" if max(idle_wall, busy_wall) < 2 else "MISS"
    print(f"target under 2 s wall idle and busy: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
