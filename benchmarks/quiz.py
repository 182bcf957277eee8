"""Grading a class: 500 submissions × 10 questions, every variant regenerated
from (salt, student, question) once per student and every answer graded again,
then the gradebook and the report written, as ``objectives-tutor quiz grade``
does; or, with ``--lab N``, N code-lab files (distinct, one in six an endless
loop that runs out its time limit), each run in the lab's sandbox.

Measured in one run, each several times, alternating, idle and then with one
CPU-bound process per core competing (started and stopped here; ``--as-is``
skips that on a machine others already keep busy), so the ratios mean
something on a shared machine:
- grading in a process that has loaded the engine (``grade_class``); with ``--lab``,
  in this process against on the cores (what `quiz grade` does for lab files);
- the whole command in a fresh process (interpreter, torch import, grading), and
  with ``--against DIR`` the same command from another checkout (say, one before a
  change), alternating with this one: the figure a teacher feels;
- ``import torch`` alone, the floor of the whole command.

    .venv/bin/python benchmarks/quiz.py [--students 500 | --lab 24] [--runs 3] [--against DIR] [--as-is]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pathlib
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from repository import ROOT  # first: the project, not this folder's engine.py

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


def write_lab_submissions(students: int, folder: pathlib.Path) -> None:
    """Every other file passes, the rest block the diagonal, one in six never returns; each
    file distinct (a comment), so none is run only once for several students."""
    from exercises.classroom.quiz import questions_for
    from exercises.lab.tasks import BY_ID, solution

    quiz = _quiz(lab=True)
    right = solution(BY_ID["causal_mask"])
    for number in range(students):
        student = f"s{number:04d}"
        text = right if number % 2 == 0 else right.replace("diagonal=1", "diagonal=0")
        if number % 6 == 5:
            text = "import torch\n\ndef causal_mask(n):\n    while True:\n        pass\n"
        question = questions_for(quiz, student)[0]
        answer = {
            "exercise": question.exercise,
            "seed": question.seed,
            "parts": {"source": f"{text}\n# {student}\n"},
        }
        payload = {"kind": "submission", "quiz": quiz.id, "student": student, "answers": {"0": answer}}
        payload |= {"started_at": time.time() - 700, "submitted_at": time.time() - 100}
        (folder / f"{student}.submission.json").write_text(json.dumps(payload), encoding="utf-8")


def write_submissions(students: int, folder: pathlib.Path, lab: bool = False) -> None:
    """Every other student answers right; the rest slip on every first part. Written by a
    child process, so the grading process starts as a teacher's does: no variant made yet."""
    from exercises.catalogue import get
    from exercises.classroom.quiz import questions_for, variant_fingerprint

    if lab:
        write_lab_submissions(students, folder)
        return
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
            "started_at": time.time() - 700,
            "submitted_at": time.time() - 100,
        }
        (folder / f"{student}.submission.json").write_text(json.dumps(payload), encoding="utf-8")


def _quiz(lab: bool = False):
    from exercises.classroom.quiz import Quiz

    if lab:
        return Quiz("quiz-bench-lab", "Lab benchmark", "bench-salt", ("lab:causal_mask",))
    return Quiz("quiz-bench", "Benchmark", "bench-salt", EXERCISES)


class Busy:
    """One CPU-bound `yes >/dev/null` per core for the length of a ``with`` block, started
    in a session of their own, as another program's load would be: with the kernel's
    autogroup scheduling, a session gets a fair share of the CPU as a whole, so hogs
    forked from this process would only compete with it inside its own share."""

    def __enter__(self):
        hogs = " & ".join(["yes >/dev/null"] * (os.cpu_count() or 1))
        self.shell = subprocess.Popen(["sh", "-c", f"{hogs} & wait"], start_new_session=True)
        time.sleep(0.3)
        return self

    def __exit__(self, *exc) -> None:
        os.killpg(self.shell.pid, signal.SIGTERM)  # the hogs' own process group, started above
        self.shell.wait()


def forget_variants() -> None:
    """Empty every cache the engine, the exercises and grading keep (variants, readings of
    answers, per-token work), so each grading pays what a teacher's first one does."""
    for name, module in list(sys.modules.items()):
        if not name.startswith(("engine", "exercises")):
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the grading workers)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def grade_once(folder: pathlib.Path, lab: bool, workers: int | None = None) -> tuple[float, float, str]:
    """One grading of the folder, engine loaded, caches empty: (wall s, CPU s, gradebook)."""
    from exercises.classroom.grading import grade_class
    from exercises.classroom.report import gradebook_csv, report_markdown

    quiz = _quiz(lab)
    forget_variants()
    if lab:  # each run starts the sandbox's fork server afresh, as a `quiz grade` does
        from exercises.lab import sandbox

        sandbox.shutdown()
    start_wall, start_cpu = time.perf_counter(), _cpu()
    result = grade_class(quiz, sorted(folder.glob("*.json")), now=2e9, workers=workers)
    gradebook = gradebook_csv(quiz, result.grades)
    (folder.parent / "grades.csv").write_text(gradebook, encoding="utf-8")
    (folder.parent / "report.md").write_text(report_markdown(quiz, result), encoding="utf-8")
    if result.rejected:
        raise SystemExit(f"benchmark submissions rejected: {result.rejected[:2]}")
    return time.perf_counter() - start_wall, _cpu() - start_cpu, gradebook


def command_once(folder: pathlib.Path, checkout: pathlib.Path = ROOT, lab: bool = False) -> float:
    """``objectives-tutor quiz grade`` in a fresh process: wall seconds. Python may cache the
    project's compiled modules, as on a teacher's machine (pip compiles an installed package;
    an editable one caches on first run): a sandbox that sets PYTHONDONTWRITEBYTECODE would
    otherwise add ~0.25 s of compiling to every run. The first run, untimed, writes them."""
    from exercises.classroom.quiz import dump_toml

    quiz_file = folder.parent / "quiz.toml"
    quiz_file.write_text(dump_toml(_quiz(lab)), encoding="utf-8")
    argv = [sys.executable, "-m", "tui.cli", "--lang", "en", "quiz", "grade", str(quiz_file), str(folder)]
    argv += ["--csv", str(folder.parent / "cmd.csv"), "--report", str(folder.parent / "cmd.md")]
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=checkout, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"quiz grade failed ({done.returncode}): {done.stderr[-500:]}")
    return wall


def imports_from(checkout: pathlib.Path) -> str:
    """Where `python -m tui.cli` run in ``checkout`` takes the project from (it must be there)."""
    probe = "import exercises, pathlib; print(pathlib.Path(exercises.__file__).resolve().parent.parent)"
    return subprocess.run(
        [sys.executable, "-c", probe], cwd=checkout, capture_output=True, text=True, check=True
    ).stdout.strip()


def import_torch_once() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return time.perf_counter() - start


def _spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f})"


def _load(lab: bool) -> None:
    """Torch and the engine (or the lab's checks), loaded as `quiz grade` has them by the
    time it grades, so the in-process figure is grading alone."""
    import torch

    torch.set_num_threads(1)
    if lab:
        import exercises.lab.checks  # noqa: F401

        return
    from exercises.catalogue import get

    for exercise_id in EXERCISES:
        get(exercise_id).generate(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--lab", type=int, metavar="N", help="N code-lab files instead of the text quiz")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--against", type=pathlib.Path, help="another checkout whose `quiz grade` to time too"
    )
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="only the machine as it is (no added load): on a machine others share, already busy",
    )
    args = parser.parse_args(argv)
    lab = args.lab is not None
    students = args.lab if lab else args.students
    if students < 1 or args.runs < 1:
        parser.error("--students, --lab and --runs must be at least 1")
    if args.against is not None and imports_from(args.against) != str(args.against.resolve()):
        parser.error(f"python run in {args.against} does not import the project from there")
    _load(lab)

    commands = {"command": ROOT} | ({"against": args.against} if args.against else {})
    with tempfile.TemporaryDirectory() as name:
        folder = pathlib.Path(name) / "submissions"
        folder.mkdir()
        maker = multiprocessing.get_context("spawn").Process(
            target=write_submissions, args=(students, folder, lab)
        )
        maker.start()
        maker.join()
        for checkout in commands.values():
            command_once(folder, checkout, lab)  # compiles and caches the modules, as a first run does
        load = os.getloadavg()[0]
        rows: dict[str, list[tuple[float, float]]] = {}
        books = set()
        conditions = ("idle",) if args.as_is else ("idle", "busy")
        for condition in conditions:
            with Busy() if condition == "busy" else _Nothing():
                for run in range(args.runs):  # alternating, so drifting load hits every path alike
                    paths = [("here", 1), ("spread", None)] if lab else [("here", None)]
                    for path, workers in paths if run % 2 == 0 else paths[::-1]:
                        wall, cpu, book = grade_once(folder, lab, workers)
                        rows.setdefault(f"{condition} {path}", []).append((wall, cpu))
                        books.add(book)
                    for label, checkout in commands.items() if run % 2 == 0 else list(commands.items())[::-1]:
                        wall = command_once(folder, checkout, lab)
                        rows.setdefault(f"{condition} {label}", []).append((wall, 0.0))
                    rows.setdefault(f"{condition} torch", []).append((import_torch_once(), 0.0))
        load_after = os.getloadavg()[0]
    if lab:
        print(f"{students} code-lab files (one in six an endless loop), each run in the sandbox")
    else:
        print(f"{students} submissions × {len(EXERCISES)} questions = {students * len(EXERCISES)} answers")
    print(f"cores: {os.cpu_count()}, load average (1 min) before {load:.2f}, after {load_after:.2f}")
    print(f"gradebooks identical across every run: {len(books) == 1}")
    label = {
        "here": "grading, engine loaded, this process",
        "spread": "grading, engine loaded, on the cores",
        "command": "`quiz grade` in a fresh process",
        "against": f"`quiz grade` from {args.against}",
        "torch": "`import torch` alone",
    }
    medians = {}
    for condition in conditions:
        print(
            f"{condition}{' (yes >/dev/null once per core, in a session of its own)' if condition == 'busy' else ''}:"
        )
        for path in ("here", *(("spread",) if lab else ()), *commands, "torch"):
            values = rows[f"{condition} {path}"]
            walls = [wall for wall, _ in values]
            medians[condition, path] = statistics.median(walls)
            cpu = f", CPU {statistics.median(c for _, c in values):.2f} s" if values[0][1] else ""
            print(f"  {label[path]:42s} {_spread(walls)}{cpu}")
        if args.against:
            difference = medians[condition, "command"] - medians[condition, "against"]
            print(f"  this checkout's command minus the other's: {difference:+.2f} s (medians)")
    return 0 if len(books) == 1 else 1


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


if __name__ == "__main__":
    sys.exit(main())
