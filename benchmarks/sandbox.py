"""The code lab's sandbox: what isolation costs a learner, old and new in one run.

"Old" is the sandbox as it is at a git revision (default ``main``: a fork server and
rlimits only), loaded from git into a throw-away package; "new" is this checkout's
(the same fork server, plus Landlock, seccomp, dropped privileges and bounded reads).
Each round starts one child of each, alternating, so a busy shared machine slows both
alike; then the whole check of a few reference solutions, alternating the same way.

- start: ``Sandbox.start()`` until the child has loaded the file (``start_seconds``), with
  both fork servers already running, as every check after the first sees it;
- check: ``run_check`` on a task's reference solution (all its rules, every call).

    .venv/bin/python benchmarks/sandbox.py [--rounds 40] [--base main] [--checks 3]
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from repository import ROOT  # first: the project, not this folder's engine.py


def old_sandbox(base: str, folder: pathlib.Path):
    """The sandbox module as it was at ``base``, importable as ``oldlab.sandbox``."""
    package = folder / "oldlab"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in ("sandbox.py", "child.py"):
        text = subprocess.run(
            ["git", "show", f"{base}:exercises/lab/{name}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (package / name).write_text(
            text.replace("from exercises.lab.child import", "from oldlab.child import")
        )
    sys.path.insert(0, str(folder))
    return importlib.import_module("oldlab.sandbox")


def spread(values: list[float]) -> str:
    ordered = sorted(values)
    tenth = ordered[len(ordered) // 10]
    ninetieth = ordered[(len(ordered) * 9) // 10 - 1]
    return f"median {statistics.median(values) * 1e3:6.1f} ms  (p10 {tenth * 1e3:.1f}, p90 {ninetieth * 1e3:.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--base", default="main")
    parser.add_argument("--checks", type=int, default=3, help="rounds of whole checks")
    args = parser.parse_args()

    import exercises.lab.checks as checks
    from exercises.lab import isolation
    from exercises.lab import sandbox as new
    from exercises.lab.tasks import BY_ID, solution

    folder = pathlib.Path(tempfile.mkdtemp(prefix="bench-sandbox-"))
    old = old_sandbox(args.base, folder)
    print(f"new: {isolation.probe().summary()['en']}")
    task = BY_ID["causal_mask"]
    path = folder / task.file_name
    path.write_text(solution(task))
    for module in (old, new):  # both fork servers up (their start is torch's import: not compared)
        began = time.perf_counter()
        module.get_zygote()
        print(f"{'old' if module is old else 'new'} fork server ready in {time.perf_counter() - began:.2f} s")

    starts: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(args.rounds):
        for name, module in (("old", old), ("new", new)):
            with module.Sandbox(path, task.function) as box:
                assert box.call(4) is not None
            starts[name].append(box.start_seconds)
    print(f"\nstart ({args.rounds} each, alternating):")
    for name, values in starts.items():
        print(f"  {name}: {spread(values)}")
    ratio = statistics.median(starts["new"]) / statistics.median(starts["old"])
    print(f"  new / old: {ratio:.2f}")

    tasks = [BY_ID[name] for name in ("causal_mask", "bert_mask", "span_corrupt")]
    files = {}
    for each in tasks:
        files[each.id] = folder / each.file_name
        files[each.id].write_text(solution(each))
    seconds: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.checks):
        for name, module in (("old", old), ("new", new)):
            for part in ("Sandbox", "Generator", "LearnerError", "LoadFailed", "SandboxStopped"):
                setattr(checks, part, getattr(module, part))
            for each in tasks:
                result = checks.run_check(each, files[each.id])
                assert result.passed, (name, each.id, result.status, result.message)
                seconds.setdefault((each.id, name), []).append(result.seconds)
    for part in ("Sandbox", "Generator", "LearnerError", "LoadFailed", "SandboxStopped"):
        setattr(checks, part, getattr(new, part))
    print(f"\nwhole check of the reference solution ({args.checks} each, alternating):")
    for each in tasks:
        old_s = statistics.median(seconds[(each.id, "old")])
        new_s = statistics.median(seconds[(each.id, "new")])
        print(f"  {each.id:14} old {old_s:6.2f} s   new {new_s:6.2f} s   new / old {new_s / old_s:.2f}")
    old.shutdown()
    new.shutdown()
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
