"""Each command-line size at its limit: seconds and peak memory, one fresh process each.

The limits (docs/learner.md, "The command line") were chosen so that the largest a
learner may type stays a tutor's: this measures each at its limit, beside the bare
interpreter with torch imported (the floor every computing command pays), so the
cost of the size itself reads as the difference. ``--runs N`` repeats the round
(each command once per round, in turn, so load hits them alike) and reports the
spread. Output size: bytes written to stdout (piped).

    .venv/bin/python benchmarks/cli_bounds.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CASES = {
    "floor: import torch": None,
    "textbook clm --batch 8 --seq-len 128": ["textbook", "clm", "--batch", "8", "--seq-len", "128"],
    "textbook clm --batch 8 --seq-len 128 --json": [
        "textbook",
        "clm",
        "--batch",
        "8",
        "--seq-len",
        "128",
        "--json",
    ],
    "textbook mlm --batch 4096 --seq-len 128": ["textbook", "mlm", "--batch", "4096", "--seq-len", "128"],
    "textbook mlm --batch 4096 --seq-len 128 --json": [
        "textbook",
        "mlm",
        "--batch",
        "4096",
        "--seq-len",
        "128",
        "--json",
    ],
    "textbook visibility --seq-len 512 --json": ["textbook", "visibility", "--seq-len", "512", "--json"],
    "textbook visibility --seq-len 128 (drawn)": ["textbook", "visibility", "--seq-len", "128"],
    "show mask causal --n 512 --json": ["show", "mask", "causal", "--n", "512", "--json"],
    "show sample clm --text (256 chars) --json": ["show", "sample", "clm", "--text", "好" * 256, "--json"],
    "show sample prefix --text (256 chars) --json": [
        "show",
        "sample",
        "prefix",
        "--text",
        "好" * 256,
        "--json",
    ],
    "show sample mlm --text (256 chars)": ["show", "sample", "mlm", "--text", "好" * 256, "--p", "0.5"],
    "check --answer (20,000 chars) --json": [
        "check",
        "mlm-abcde",
        "--answer",
        "inputs=" + "A [MASK] " * 2222,
        "--json",
    ],
    "refused: textbook visibility --seq-len 100000": ["textbook", "visibility", "--seq-len", "100000"],
}

PROBE = """
import resource, sys, time, io, contextlib
start = time.perf_counter()
argv = sys.argv[1:]
if argv:
    from tui.cli import main
    try:
        main(argv)
    except SystemExit:
        pass
else:
    import torch  # noqa: F401
sys.stdout.flush()
sys.stderr.write("\\nRESULT " + str(time.perf_counter() - start) + " "
                 + str(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) + "\\n")
"""


def measure(argv: list[str] | None, home: str) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, bytes written to stdout) of one fresh process."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *(argv or [])],
        capture_output=True,
        env={**os.environ, "OBJECTIVES_TUTOR_HOME": home},
        check=True,
    )
    seconds, kilobytes = result.stderr.decode().rsplit("RESULT ", 1)[1].split()
    return float(seconds), int(kilobytes) / 1024, len(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    found: dict[str, list[tuple[float, float, int]]] = {name: [] for name in CASES}
    with tempfile.TemporaryDirectory() as home:
        for _ in range(args.runs):
            for name, argv in CASES.items():
                found[name].append(measure(argv, home))
    if args.json:
        print(json.dumps(found))
        return
    floor = statistics.median(rss for _, rss, _ in found["floor: import torch"])
    print(f"{'case':48} {'seconds (min-max)':>18} {'peak MB':>8} {'+MB':>6} {'stdout':>10}")
    for name, runs in found.items():
        seconds = [s for s, _, _ in runs]
        peak = max(rss for _, rss, _ in runs)
        print(
            f"{name:48} {min(seconds):8.2f}-{max(seconds):<8.2f} {peak:8.0f} {peak - floor:+6.0f} {runs[0][2]:>10,}"
        )
    print(f"load average: {os.getloadavg()[0]:.1f} (machine has {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
