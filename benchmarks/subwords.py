"""What the subwords figure costs a learner: training the WordPiece tokenizer, and a redraw.

The figure (``tui.figures.subwords``) retrains nothing it has trained before: the trained
vocabulary is kept per size (``engine.subwords._trained_vocabulary``). This measures
whether that cache is worth having, in one process, with the stages timed apart:

* ``import tokenizers`` (once per process);
* training at each of the figure's vocabulary sizes (what every keystroke would cost
  without the cache: the redraw follows each character typed);
* building a tokenizer from a kept vocabulary (what a keystroke costs with it);
* the figure's computation for one sentence (``compare_masking``) with the cache warm.

Each figure is the median of N runs (training: the cache emptied before each run). On a
shared machine compare the ratios, not the milliseconds.

    .venv/bin/python benchmarks/subwords.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def median_ms(function, runs: int, before=None) -> float:
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs

    started = time.perf_counter()
    import tokenizers  # noqa: F401

    print(f"import tokenizers: {(time.perf_counter() - started) * 1000:.1f} ms (once per process)")

    import torch  # noqa: F401  (the figure's masking; loaded before the app shows any figure)

    from engine import subwords

    clear = subwords._trained_vocabulary.cache_clear
    for size in subwords.VOCAB_STEPS:
        cost = median_ms(lambda size=size: subwords.tokenizer(size), runs, before=clear)
        print(f"train at vocabulary {size:>4}: {cost:6.1f} ms")
    subwords.tokenizer()  # warm
    warm = median_ms(subwords.tokenizer, runs * 5)
    print(f"a tokenizer from the kept vocabulary: {warm:.2f} ms")
    redraw = median_ms(lambda: subwords.compare_masking(subwords.EN_TEXT[0], add_cls_sep=False), runs * 5)
    print(f"compare_masking, cache warm (one redraw's computation): {redraw:.2f} ms")
    cold = median_ms(
        lambda: subwords.compare_masking(subwords.EN_TEXT[0], add_cls_sep=False), runs, before=clear
    )
    print(f"compare_masking, cache empty (each keystroke without the cache): {cold:.1f} ms")
    print(f"ratio empty / warm: {cold / redraw:.0f}x")


if __name__ == "__main__":
    main()
