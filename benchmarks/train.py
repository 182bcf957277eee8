"""How fast and how sure the training lab is (issue 14).

    .venv/bin/python benchmarks/train.py [--seeds 0-7] [--steps N] [--quick]

1. Sureness: CLM and MLM at the default budget over seeds 0-7; every seed must
   show the asymmetry (CLM continue >= 0.85, MLM fill >= 0.85, CLM left-only
   fill <= 0.35, MLM continue <= 0.35). Prints each seed and the spread.
2. Overhead: steps per second of the lab's training loop against a plain
   PyTorch loop training the same model on the same, pre-built batches, in one
   run, alternating, CPU time (wall time on a shared machine is noise).
3. First loss point: seconds from pressing Train in the app (headless) to the
   first point drawn on the loss chart.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
import torch.nn.functional as F

from engine.clm import IGNORE_INDEX
from engine.train_lab import (
    BUILDERS,
    LabSettings,
    build_data,
    evaluate,
    initial_model,
    train_objective,
    training_windows,
)

LIMITS = {("clm", "continue"): (0.85, None), ("mlm", "fill"): (0.85, None)}
CEILINGS = {("clm", "fill"): 0.35, ("mlm", "continue"): 0.35}


def sureness(seeds: list[int], steps: int) -> bool:
    print(f"== sureness: CLM and MLM, {steps} steps, seeds {seeds[0]}-{seeds[-1]} (1 thread)")
    print("seed  clm-cont  clm-fill(left)  clm-fill(scored)  mlm-cont  mlm-fill  clm-s  mlm-s  (wall s)")
    cells: dict[str, list[float]] = {key: [] for key in ("cc", "cf", "cs", "mc", "mf", "ct", "mt")}
    ok = True
    for seed in seeds:
        settings = LabSettings(objectives=("clm", "mlm"), steps=steps, seed=seed)
        data = build_data(settings)
        start = initial_model(data.vocab, settings).state_dict()
        clm = train_objective("clm", data, settings, start)
        mlm = train_objective("mlm", data, settings, start)
        c, m = evaluate("clm", clm.model, data), evaluate("mlm", mlm.model, data)
        good = c.continue_ >= 0.85 and m.fill >= 0.85 and c.fill <= 0.35 and m.continue_ <= 0.35
        ok &= good
        for key, value in zip(
            cells,
            (c.continue_, c.fill, c.fill_scored, m.continue_, m.fill, clm.seconds, mlm.seconds),
            strict=True,
        ):
            cells[key].append(value)
        print(
            f"{seed:>4}  {c.continue_:8.2f}  {c.fill:14.2f}  {c.fill_scored:16.2f}  {m.continue_:8.2f}  "
            f"{m.fill:8.2f}  {clm.seconds:5.1f}  {mlm.seconds:5.1f}  {'ok' if good else 'FAIL'}",
            flush=True,
        )
    print(
        "spread (min-max): "
        + ", ".join(
            f"{name} {min(values):.2f}-{max(values):.2f}"
            for name, values in zip(
                ("clm-cont", "clm-fill", "clm-scored", "mlm-cont", "mlm-fill", "clm-s", "mlm-s"),
                cells.values(),
                strict=True,
            )
        )
    )
    print(
        f"every seed shows the asymmetry: {ok}; slowest model {max(cells['ct'] + cells['mt']):.1f} s (<= 15 s)"
    )
    return ok


def plain_loop_steps_per_second(objective: str, settings: LabSettings, data, batches) -> float:
    """The same model and optimiser on pre-built batches, nothing else."""
    torch.set_num_threads(settings.threads)
    model = initial_model(data.vocab, settings)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=0.01)
    start = time.process_time()
    for batch in batches:
        logits = model(batch.inputs, batch.blocked)
        loss = F.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), batch.labels.reshape(-1), ignore_index=IGNORE_INDEX
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        float(loss.detach())
    return len(batches) / (time.process_time() - start)


def overhead(steps: int, rounds: int) -> bool:
    print(f"\n== overhead: lab loop vs plain PyTorch loop, {steps} steps, {rounds} rounds, CPU time")
    ok = True
    for objective in ("clm", "mlm"):
        settings = LabSettings(objectives=(objective,), steps=steps)
        data = build_data(settings)
        next_windows = training_windows(data, settings)
        generator = torch.Generator().manual_seed(settings.seed + 17)
        batches = [BUILDERS[objective](next_windows(), data.vocab, settings, generator) for _ in range(steps)]
        lab, plain = [], []
        for _ in range(rounds):
            start = time.process_time()
            train_objective(objective, data, settings, on_step=lambda step, loss: None)
            lab.append(steps / (time.process_time() - start))
            plain.append(plain_loop_steps_per_second(objective, settings, data, batches))
        ratio = statistics.median(lab) / statistics.median(plain)
        ok &= ratio >= 0.9
        print(
            f"{objective}: lab {statistics.median(lab):.1f} steps/s, plain {statistics.median(plain):.1f} steps/s, "
            f"ratio {ratio:.2f} (>= 0.90: {ratio >= 0.9})"
        )
    return ok


async def _first_point() -> float:
    from tui.app import TutorApp
    from tui.figures.train_lab import TrainLabFigure

    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(600):
            if app.engine_loaded:
                break
            await asyncio.sleep(0.05)
        app.open_lesson("train-lab")
        await pilot.pause()
        await pilot.press("f6")
        await pilot.pause()
        figure = app.screen.query_one(TrainLabFigure)
        figure.query_one("#tl-steps").value = "30"
        figure.action_start()
        for _ in range(2000):
            if figure.first_point_seconds is not None:
                break
            await asyncio.sleep(0.01)
        seconds = figure.first_point_seconds
        figure.action_cancel()
        for _ in range(3000):
            if not figure.training:
                break
            await asyncio.sleep(0.01)
        return seconds


def first_point(rounds: int) -> bool:
    print(f"\n== first loss point on screen after pressing Train ({rounds} rounds)")
    os.environ.setdefault("OBJECTIVES_TUTOR_HOME", "/tmp/objectives-tutor-bench-home")
    times = [asyncio.run(_first_point()) for _ in range(rounds)]
    print(
        "seconds: "
        + ", ".join(f"{value:.2f}" for value in times)
        + f"; median {statistics.median(times):.2f} (<= 1 s)"
    )
    return statistics.median(times) <= 1.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="0-7")
    parser.add_argument("--steps", type=int, default=LabSettings().steps)
    parser.add_argument("--quick", action="store_true", help="seeds 0-1, fewer rounds")
    args = parser.parse_args()
    low, _, high = args.seeds.partition("-")
    seeds = list(range(int(low), int(high or low) + 1))
    if args.quick:
        seeds = seeds[:2]
    print(time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "load average", os.getloadavg())
    results = [
        sureness(seeds, args.steps),
        overhead(100 if args.quick else 200, 2 if args.quick else 3),
        first_point(2 if args.quick else 3),
    ]
    print("\nload average at the end", os.getloadavg())
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
