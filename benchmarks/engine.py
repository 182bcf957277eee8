"""Time the engine's batch masking against the baselines people actually use.

Run as ``python benchmarks/engine.py [--repeats N] [--runs K] [--threads T] [--json]``. On
one 128x512 batch, in one process, it times:

* BERT masking: ``engine.mlm.mask_tokens`` against HuggingFace's
  ``DataCollatorForLanguageModeling.torch_mask_tokens``, both with the collator
  computing the special-tokens mask from the tokenizer (its default) and with the
  mask precomputed (its fast path);
* T5 span corruption: ``engine.spans.corrupt_random`` against a per-row NumPy
  version of the Flax T5 pretraining example's collator (``run_t5_mlm_flax.py``).

Each figure is the median of N timed calls after one warm-up call; the race is run K
times in the same process and every run's ratios are printed with their spread, since on
a shared machine one run says little. ``--threads`` sets torch's threads for every
contestant (HF's collator included): the default is torch's own, as each is shipped. A
missed target is reported, not turned into a failing exit code: timings depend on the
machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import torch

BATCH, LENGTH, VOCAB = 128, 512, 30522
PAD, UNK, CLS, SEP, MASK = 0, 100, 101, 102, 103
SPECIAL_IDS = [PAD, UNK, CLS, SEP, MASK]
SPECIAL_NAMES = {PAD: "[PAD]", UNK: "[UNK]", CLS: "[CLS]", SEP: "[SEP]", MASK: "[MASK]"}
MLM_P = 0.15

# T5 numbers its sentinels down from the top of a 32100-id vocabulary (<extra_id_0> = 32099);
# every data id is below 30522, so none is mistaken for a sentinel.
T5_VOCAB, T5_EOS = 32100, 1
SENTINEL_IDS = [T5_VOCAB - 1 - k for k in range(100)]
DENSITY, MEAN_SPAN = 0.15, 3.0

MLM_TARGET, SPAN_TARGET = 2.0, 5.0
BENCH_HINT = "pip install -e '.[bench]'"


def load_engine() -> tuple[ModuleType, ModuleType]:
    """Import engine.mlm and engine.spans.

    This file is itself named engine.py and Python puts its folder first on sys.path,
    so a plain ``import engine`` would find this script instead of the package.
    """
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or os.curdir).resolve() != here]
    sys.path.insert(0, str(here.parent))
    return importlib.import_module("engine.mlm"), importlib.import_module("engine.spans")


def token_batch() -> torch.Tensor:
    """Seeded random ids framed by [CLS] ... [SEP], so masking has specials to skip."""
    ids = torch.randint(0, VOCAB, (BATCH, LENGTH), generator=torch.Generator().manual_seed(0))
    ids[:, 0], ids[:, -1] = CLS, SEP
    return ids


def race(contestants: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median wall time of each contestant in ms, timed round-robin.

    On a shared machine the load drifts; taking turns call by call lets every
    contestant meet the same drift, so the ratios hold even when the absolute
    figures move. One untimed warm-up call each pays for lazy set-up.
    """
    for fn in contestants.values():
        fn()
    samples: dict[str, list[float]] = {name: [] for name in contestants}
    for _ in range(repeats):
        for name, fn in contestants.items():
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) * 1000.0 for name, values in samples.items()}


# --- HuggingFace's MLM collator ---------------------------------------------------------------


def hf_collator() -> Any | None:
    """HF's MLM collator over a 30522-id BERT vocabulary written locally, or None without transformers."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # everything below is local; never reach for the hub
    try:
        import transformers
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as folder:
        words = (SPECIAL_NAMES.get(i, f"tok{i}") for i in range(VOCAB))
        Path(folder, "vocab.txt").write_text("".join(f"{word}\n" for word in words), encoding="utf-8")
        # from_pretrained on the folder, not BertTokenizer(vocab_file=...): transformers 5.x's
        # constructor ignores vocab_file and silently builds a 5-token vocabulary.
        tokenizer = transformers.BertTokenizer.from_pretrained(folder)
    if len(tokenizer) != VOCAB or tokenizer.mask_token_id != MASK:
        raise RuntimeError(
            f"local BERT tokenizer came out wrong: {len(tokenizer)} ids, [MASK]={tokenizer.mask_token_id}"
        )
    return transformers.DataCollatorForLanguageModeling(tokenizer, mlm_probability=MLM_P)


def hf_special_tokens_mask(collator: Any, ids: torch.Tensor) -> torch.Tensor:
    """The mask a tokenizer returns with return_special_tokens_mask=True: HF's fast path input."""
    rows = ids.tolist()
    tokenizer = collator.tokenizer
    return torch.tensor(
        [tokenizer.get_special_tokens_mask(row, already_has_special_tokens=True) for row in rows]
    )


# --- the Flax T5 example's collator, per row in NumPy -----------------------------------------


def t5_counts(length: int) -> tuple[int, int]:
    """T5's (noise tokens, noise spans) for one row: the same arithmetic as the engine's."""
    noise = min(max(round(length * DENSITY), 1), length - 1)
    return noise, max(round(noise / MEAN_SPAN), 1)


def random_segmentation(items: int, segments: int, rng: np.random.RandomState) -> np.ndarray:
    """Cut ``items`` into ``segments`` positive lengths: shuffle segments-1 cut marks among the gaps."""
    cuts = rng.permutation(np.arange(items - 1) < segments - 1)
    segment_of_item = np.cumsum(np.pad(cuts, [[1, 0]]))
    return np.unique(segment_of_item, return_counts=True)[1]


def noise_mask_row(length: int, rng: np.random.RandomState) -> np.ndarray:
    """One row's noise mask: kept and noise segments alternate, starting with kept tokens."""
    noise, spans = t5_counts(length)
    noise_lengths = random_segmentation(noise, spans, rng)
    kept_lengths = random_segmentation(length - noise, spans, rng)
    interleaved = np.stack([kept_lengths, noise_lengths], axis=1).reshape(spans * 2)
    segment_starts = np.zeros(length, dtype=np.int8)
    segment_starts[np.cumsum(interleaved)[:-1]] = 1
    return np.cumsum(segment_starts) % 2 == 1


def sentinel_ids(mask: np.ndarray) -> np.ndarray:
    """Sentinel at each run start (32099, 32098, ...), -1 on the rest of the run, 0 elsewhere."""
    run_starts = mask - np.roll(mask, 1, axis=-1) * mask
    run_starts[:, 0] = mask[:, 0]
    numbered = np.where(run_starts != 0, np.cumsum(run_starts, axis=-1), run_starts)
    sentinels = np.where(numbered != 0, T5_VOCAB - numbered, 0)
    sentinels -= mask - run_starts
    return sentinels


def filter_input_ids(ids: np.ndarray, sentinels: np.ndarray) -> np.ndarray:
    """Put sentinels in, drop the -1 positions, and close every row with EOS."""
    full = np.where(sentinels != 0, sentinels, ids)
    kept = full[full >= 0].reshape(ids.shape[0], -1)
    return np.concatenate([kept, np.full((ids.shape[0], 1), T5_EOS, dtype=kept.dtype)], axis=-1)


def per_row_span_corruption(ids: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The example's collator: a Python loop over rows for the noise masks, then batch filtering."""
    rng = np.random.RandomState(seed)  # the generator np.random.permutation draws from
    mask = np.asarray([noise_mask_row(ids.shape[1], rng) for _ in range(ids.shape[0])])
    inputs = filter_input_ids(ids, sentinel_ids(mask.astype(np.int8)))
    labels = filter_input_ids(ids, sentinel_ids((~mask).astype(np.int8)))
    return mask, inputs, labels


def check_same_work(spans: ModuleType, ids: np.ndarray) -> None:
    """Given the baseline's noise mask, the engine must build the same inputs and targets,
    token for token, EOS included (T5's last segment is noise, so no closing sentinel)."""
    mask, inputs, labels = per_row_span_corruption(ids)
    ours = spans.corrupt(torch.from_numpy(ids), torch.from_numpy(mask), SENTINEL_IDS, eos_id=T5_EOS)
    same_inputs = torch.equal(ours.inputs, torch.from_numpy(inputs))
    same_targets = torch.equal(ours.targets, torch.from_numpy(labels))
    if not (same_inputs and same_targets):
        raise RuntimeError("the per-row baseline and the engine disagree on the same noise mask")


# --- running and reporting --------------------------------------------------------------------


def time_all(repeats: int, runs: int = 1) -> tuple[list[dict[str, float]], str | None]:
    """Every timing in ms per run (HF's only when transformers is installed), and transformers' version."""
    mlm, spans = load_engine()
    ids = token_batch()
    ids_np = ids.numpy()
    check_same_work(spans, ids_np)

    contestants: dict[str, Callable[[], object]] = {
        "mlm_ours": lambda: mlm.mask_tokens(
            ids,
            mask_id=MASK,
            vocab_size=VOCAB,
            special_ids=SPECIAL_IDS,
            p=MLM_P,
            generator=torch.Generator().manual_seed(0),
        ),
        "span_ours": lambda: spans.corrupt_random(
            ids,
            SENTINEL_IDS,
            density=DENSITY,
            mean_span=MEAN_SPAN,
            pad_id=PAD,
            generator=torch.Generator().manual_seed(0),
            eos_id=T5_EOS,
        ),
        "span_numpy_per_row": lambda: per_row_span_corruption(ids_np),
    }
    collator = hf_collator()
    if collator is not None:
        special_mask = hf_special_tokens_mask(collator, ids)
        torch.manual_seed(0)  # the collator draws from torch's global generator
        contestants["mlm_hf"] = lambda: collator.torch_mask_tokens(ids.clone())
        contestants["mlm_hf_precomputed_mask"] = lambda: collator.torch_mask_tokens(
            ids.clone(), special_tokens_mask=special_mask
        )
    # Each comparison races on its own: HF's collator leaves torch's pool threads spinning
    # after its calls, which would slow whichever contestant came next, spans included.
    groups = [
        {name: fn for name, fn in contestants.items() if name.startswith(kind)} for kind in ("mlm", "span")
    ]
    timings = [
        {name: ms for group in groups for name, ms in race(group, repeats).items()} for _ in range(runs)
    ]
    if collator is None:
        return timings, None
    import transformers

    return timings, transformers.__version__


def comparisons(timings: dict[str, float]) -> list[dict[str, Any]]:
    """Each ours-versus-baseline pair with its speed-up and whether it meets the target."""
    pairs = [
        ("MLM", "HF", "mlm_ours", "mlm_hf", MLM_TARGET),
        ("MLM", "HF, precomputed special_tokens_mask", "mlm_ours", "mlm_hf_precomputed_mask", MLM_TARGET),
        ("span corruption", "per-row numpy", "span_ours", "span_numpy_per_row", SPAN_TARGET),
    ]
    rows = []
    for task, baseline, ours_key, base_key, target in pairs:
        if base_key not in timings:
            continue
        speedup = timings[base_key] / timings[ours_key]
        rows.append(
            {
                "task": task,
                "baseline": baseline,
                "ours_ms": timings[ours_key],
                "baseline_ms": timings[base_key],
                "speedup": speedup,
                "target": target,
                "pass": speedup >= target,
            }
        )
    return rows


def spreads(runs: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per comparison, its speed-up in the worst and the best run; the target is judged on the worst."""
    rows = []
    for same in zip(*runs, strict=True):
        worst = min(row["speedup"] for row in same)
        best = max(row["speedup"] for row in same)
        target = same[0]["target"]
        rows.append(
            {
                **{k: same[0][k] for k in ("task", "baseline")},
                "worst": worst,
                "best": best,
                "target": target,
                "pass": worst >= target,
            }
        )
    return rows


def print_text(runs: list[list[dict[str, Any]]], repeats: int, hf_version: str | None) -> None:
    """One line per comparison and run, as 'MLM: ours X ms, HF Y ms (Z x faster)', then each
    comparison's spread over the runs and the verdict on its worst run."""
    print(
        f"torch {torch.__version__}, {torch.get_num_threads()} threads; numpy {np.__version__}; "
        f"transformers {hf_version or 'not installed'}; load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"batch {BATCH}x{LENGTH}; {len(runs)} run(s), each the median of {repeats} round-robin calls after 1 warm-up"
    )
    if hf_version is None:
        print(f"MLM: skipped the HuggingFace comparison: transformers is not installed ({BENCH_HINT})")
    for number, rows in enumerate(runs, start=1):
        for row in rows:
            print(
                f"run {number}: {row['task']}: ours {row['ours_ms']:.2f} ms, {row['baseline']} "
                f"{row['baseline_ms']:.2f} ms ({row['speedup']:.2f} x faster)"
            )
    summary = spreads(runs)
    for row in summary:
        verdict = "PASS" if row["pass"] else "MISS"
        print(
            f"{row['task']} vs {row['baseline']}: {row['worst']:.2f}-{row['best']:.2f} x over {len(runs)} run(s)"
            f"  target >= {row['target']:g}x in the worst: {verdict}"
        )
    missed = sum(not row["pass"] for row in summary)
    if missed:
        print(f"{missed} target(s) missed (reported only; the exit code stays 0)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="timed calls per figure (default 20)")
    parser.add_argument(
        "--runs", type=int, default=3, help="races in this process, for the spread (default 3)"
    )
    parser.add_argument(
        "--threads", type=int, help="torch threads for every contestant (default: torch's own)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    if not 1 <= args.repeats <= 10_000 or not 1 <= args.runs <= 100:
        parser.error("--repeats must be 1-10000 and --runs 1-100")
    if args.threads is not None:
        if not 1 <= args.threads <= 256:
            parser.error("--threads must be 1-256")
        torch.set_num_threads(args.threads)

    timings, hf_version = time_all(args.repeats, args.runs)
    runs = [comparisons(run) for run in timings]
    if args.json:
        report = {
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "numpy": np.__version__,
            "transformers": hf_version,
            "batch": [BATCH, LENGTH],
            "repeats": args.repeats,
            "load_average": os.getloadavg()[0],
            "median_ms": timings,
            "comparisons": runs,
            "spread": spreads(runs),
        }
        print(json.dumps(report, indent=2))
    else:
        print_text(runs, args.repeats, hf_version)
    return 0


if __name__ == "__main__":
    sys.exit(main())
