"""Record the training lab's runs that the lesson quotes (``recorded_runs.json``).

A maintainer's command, apart from ``exercises.training.recorded`` (which only reads the
file): recording trains every objective and every classic bug, so it imports the lab and
the sandbox, and the lessons' renderer must not.

    .venv/bin/python -m exercises.training.record_runs --record
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace

from exercises.training.recorded import COMMAND, CORPORA, OBJECTIVES, PATH, SEEDS


def same_batches(source, data, settings, steps: int = 50) -> bool:
    """Whether ``source`` builds the reference's first batches exactly (then its model is
    the reference model: there is nothing to record apart)."""
    import torch

    from engine.train_lab import BUILDERS, training_windows
    from exercises.training.own_code import SandboxedBuilder

    next_windows = training_windows(data, settings)
    generator = torch.Generator().manual_seed(settings.seed + 17)
    with SandboxedBuilder(source) as build:
        for _ in range(steps):
            windows = next_windows()
            reference = BUILDERS[source.objective](windows, data.vocab, settings, generator)
            batch = build(windows, data.vocab, settings, generator)
            if not (
                torch.equal(batch.inputs, reference.inputs) and torch.equal(batch.labels, reference.labels)
            ):
                return False
    return True


def record(seeds=SEEDS, corpora=CORPORA, steps: int | None = None) -> dict:
    """Train every objective and every classic bug over ``seeds`` and ``corpora`` (``steps``:
    fewer than the lab's default, for a quick look that is not recorded)."""
    import torch

    from engine.train_lab import LabSettings, initial_model, run_lab
    from exercises.training.own_code import BUGS, bug_source, train_own

    runs: dict[str, dict] = {}
    for corpus in corpora:
        for seed in seeds:
            settings = LabSettings(corpus=corpus, objectives=OBJECTIVES, seed=seed)
            if steps is not None:
                settings = replace(settings, steps=steps)
            run = run_lab(settings)
            result = run.to_json()
            entry = {
                "objectives": {
                    name: {key: fields.get(key) for key in ("continue", "fill", "fill_scored", "final_loss")}
                    for name, fields in result["objectives"].items()
                },
                "baselines": result["baselines"],
                "bugs": {},
            }
            initial = initial_model(run.data.vocab, settings).state_dict()
            for bug in BUGS:
                source = bug_source(bug.slug)
                if same_batches(source, run.data, settings):
                    entry["bugs"][bug.slug] = {"same_batches": True}
                    continue
                own = train_own(source, run.data, settings, initial)
                entry["bugs"][bug.slug] = {
                    "status": own.status,
                    "continue": None if own.scores is None else own.scores.continue_,
                    "fill": None if own.scores is None else own.scores.fill,
                    "final_loss": round(own.losses[-1], 4) if own.losses else None,
                }
            runs[f"{corpus}/{seed}"] = entry
            print(corpus, seed, json.dumps(entry["objectives"]), flush=True)
    return {
        "command": COMMAND,
        "torch": torch.__version__,
        "settings": LabSettings().to_json() | {"objectives": list(OBJECTIVES), "seeds": list(SEEDS)},
        "runs": runs,
    }


def main(argv: list[str]) -> int:
    if argv != ["--record"]:
        print(f"usage: {COMMAND}", file=sys.stderr)
        return 2
    data = record()
    PATH.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
