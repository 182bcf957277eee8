"""Grading a class: 500 submissions × 10 questions, every variant regenerated
from (salt, student, question) and every answer graded again, as
``objectives-tutor quiz grade`` does. Target: well under 5 s.

    .venv/bin/python benchmarks/quiz.py [--students 500]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile
import time

sys.path[:] = [
    p for p in sys.path if pathlib.Path(p or ".").resolve() != pathlib.Path(__file__).parent.resolve()
]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from exercises.catalogue import get  # noqa: E402
from exercises.classroom.quiz import Quiz, grade_class, gradebook_csv, questions_for, report_markdown  # noqa: E402

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


def write_submissions(quiz: Quiz, students: int, folder: pathlib.Path) -> list[pathlib.Path]:
    """Every other student answers right; the rest slip on every first part."""
    paths = []
    for number in range(students):
        student = f"s{number:04d}"
        answers = {}
        for question in questions_for(quiz, student):
            exercise = get(question.exercise)
            solution = exercise.solve(exercise.generate(question.seed))
            if number % 2:
                first = sorted(solution)[0]
                solution = {**solution, first: solution[first] + " x"}
            answers[str(question.index)] = solution
        path = folder / f"{student}.submission.json"
        path.write_text(
            json.dumps({"quiz": quiz.id, "student": student, "answers": answers}), encoding="utf-8"
        )
        paths.append(path)
    return paths


def forget_variants() -> None:
    """Empty every exercise's variant cache, so grading pays for regenerating them."""
    from exercises.catalogue import EXERCISES as ALL
    from exercises.items import choice

    for exercise in ALL:
        getattr(exercise.make_variant, "cache_clear", lambda: None)()
    choice._generate.cache_clear()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    args = parser.parse_args(argv)
    if args.students < 1:
        parser.error("--students must be at least 1")
    quiz = Quiz("quiz-bench", "Benchmark", "bench-salt", EXERCISES)
    with tempfile.TemporaryDirectory() as folder:
        paths = write_submissions(quiz, args.students, pathlib.Path(folder))
        forget_variants()  # the teacher's grading process has generated none of them
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        result = grade_class(quiz, paths)
        gradebook_csv(quiz, result.grades)
        report_markdown(quiz, result)
        wall, cpu = time.perf_counter() - start_wall, time.process_time() - start_cpu
    answers = args.students * len(EXERCISES)
    print(
        f"{args.students} submissions × {len(EXERCISES)} questions = {answers} answers, {len(result.rejected)} rejected"
    )
    print(
        f"grade + gradebook + report: {wall:.2f} s wall, {cpu:.2f} s CPU ({wall / answers * 1e3:.2f} ms per answer)"
    )
    print(f"target well under 5 s: {'PASS' if wall < 5 else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
