"""What each memo in engine/, exercises/ and tui/ saves a user, measured: the same work
with the caches as shipped and with one cache (or all of them) bypassed.

A cache stays only where this shows a gain a user feels (docs/architecture.md, "Caches and
fast paths kept"). Every workload runs in a fresh process, so one run's warm caches never
help another; "bypassed" replaces the cached function by the function it wraps in every
module that holds it (``functools.lru_cache`` and ``memoised_reading`` keep it as
``__wrapped__``), so the work is the same and only the remembering is gone.

Workloads (each a thing a person waits for):
- ``grade``: ``objectives-tutor quiz grade`` of N students × 10 questions, in-process
  after the imports (the teacher's wait, less ``import torch``);
- ``practice``: a learner's session: for every exercise, 40 variants generated and each
  answered right, then twice wrong (the app's n, check, check again);
- ``engine``: the engine's batch builders as a training loop calls them: 300 MLM maskings
  of 32 × 128 ids (vocabulary 30,522) and 300 span corruptions;
- ``figures``: the lesson figures' recomputation as a learner steps through seeds.

The machine is shared and noisy: modes alternate within one run and the figure to read is
each workload's ratio (bypassed / shipped), with its spread over the runs.

    .venv/bin/python benchmarks/caches.py [--runs 5] [--students 200] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "exercises", "tui")

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
workload, bypass, arg = {workload!r}, {bypass!r}, {arg!r}


def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def import_everything():
    import importlib, pkgutil, pathlib
    for package in {packages!r}:
        importlib.import_module(package)
        for info in pkgutil.walk_packages([str(pathlib.Path({root!r}) / package)], prefix=package + "."):
            if ".classweb" in info.name or info.name.endswith("__main__"):
                continue
            try:
                importlib.import_module(info.name)
            except Exception:
                pass


def cached_functions():
    found = {{}}
    for name, module in list(sys.modules.items()):
        if not name.startswith({packages!r}):
            continue
        for attribute, value in list(vars(module).items()):
            if callable(getattr(value, "cache_clear", None)) and hasattr(value, "__wrapped__"):
                found.setdefault(f"{{value.__module__}}.{{value.__qualname__}}", value)
    return found


def bypassed(names):
    cached = cached_functions()
    chosen = {{n: f for n, f in cached.items() if any(n == c or n.startswith(c + ".") or c == "all" for c in names)}}
    for name, module in list(sys.modules.items()):
        if not name.startswith({packages!r}):
            continue
        for attribute, value in list(vars(module).items()):
            for function in chosen.values():
                if value is function:
                    setattr(module, attribute, function.__wrapped__)
    return sorted(chosen)


import_everything()
if arg == "list":
    print(json.dumps(sorted(cached_functions())))
    raise SystemExit(0)
names = bypassed(bypass) if bypass else []
import torch
torch.manual_seed(0)


def grade(folder):
    from tui.cli import main
    main(["--lang", "en", "quiz", "grade", folder + "/quiz.toml", folder + "/subs",
          "--csv", folder + "/g.csv", "--report", folder + "/r.md"])


def practice(_):
    from exercises.catalogue import EXERCISES
    for exercise in EXERCISES:
        for seed in range(40):
            variant = exercise.generate(seed)
            solution = exercise.solve(variant)
            exercise.grade(variant, solution)
            slipped = {{part: text + " 1" for part, text in solution.items()}}
            exercise.grade(variant, slipped)
            exercise.grade(variant, slipped)


def engine(_):
    from engine.mlm import mask_tokens
    from engine.spans import corrupt_random
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(105, 30522, (32, 128), generator=generator)
    sentinels = list(range(5, 105))
    for _ in range(300):
        mask_tokens(ids, vocab_size=30522, mask_id=4, special_ids=(0, 1, 2, 3, 4), generator=generator)
    for _ in range(300):
        corrupt_random(ids, sentinels, generator=generator, eos_id=1)


def figures(_):
    from tui.figures.clm import _lesson_run
    for seed in list(range(20)) * 3:
        _lesson_run(seed, 8)


start_wall, start_cpu = time.perf_counter(), cpu()
try:
    globals()[workload](arg)
except SystemExit as stop:
    if stop.code not in (0, None):
        raise
print(json.dumps({{"wall": time.perf_counter() - start_wall, "cpu": cpu() - start_cpu, "bypassed": names}}))
"""


def child(workload: str, bypass: list[str], arg: str = "") -> dict:
    code = CHILD.format(root=str(ROOT), workload=workload, bypass=bypass, arg=arg, packages=PACKAGES)
    env = {**os.environ, "OBJECTIVES_TUTOR_HOME": tempfile.mkdtemp(prefix="caches-home-")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{workload} failed: {done.stderr[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def class_folder(students: int) -> str:
    """A quiz and its submissions, written by benchmarks/quiz.py's own writer."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    sys.path.insert(0, str(ROOT))
    import quiz as quiz_benchmark

    from exercises.classroom.quiz import dump_toml

    folder = pathlib.Path(tempfile.mkdtemp(prefix="caches-class-"))
    (folder / "subs").mkdir()
    quiz_benchmark.write_submissions(students, folder / "subs")
    (folder / "quiz.toml").write_text(dump_toml(quiz_benchmark._quiz()), encoding="utf-8")
    return str(folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--only", default="grade,practice,engine,figures")
    parser.add_argument(
        "--each", default="", help="also bypass these alone: names or module prefixes, comma-separated"
    )
    args = parser.parse_args()
    workloads = args.only.split(",")
    arguments = {"grade": class_folder(args.students) if "grade" in workloads else ""}
    cached = child("practice", [], "list")
    print(f"{len(cached)} cached functions found; load {os.getloadavg()[0]:.1f}")
    modes = [("shipped", []), ("none", ["all"])]
    modes += [(name, [name]) for name in args.each.split(",") if name]
    for workload in workloads:
        times: dict[str, list[float]] = {label: [] for label, _ in modes}
        for _ in range(args.runs):
            for label, bypass in modes:  # alternating: the machine's drift hits every mode alike
                times[label].append(child(workload, bypass, arguments.get(workload, ""))["cpu"])
        base = times["shipped"]
        print(
            f"\n{workload}: shipped {statistics.median(base):.3f} s CPU (min {min(base):.3f}, max {max(base):.3f})"
        )
        for label, values in times.items():
            if label == "shipped":
                continue
            ratios = sorted(v / b for v, b in zip(values, base, strict=True))
            print(
                f"  {label:60s} {statistics.median(values):.3f} s  ratio median {statistics.median(ratios):.2f}"
                f" (min {ratios[0]:.2f}, max {ratios[-1]:.2f})"
            )
    print(f"\nload {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
