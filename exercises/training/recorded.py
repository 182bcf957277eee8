"""The training lab's recorded runs: what the lesson quotes, kept as data.

The training-lab lesson states accuracies and losses of tiny models. Training takes
seconds per model, so a lesson cannot compute them when it opens: they are measured once
by the command below and kept in ``recorded_runs.json`` beside this file, with the
command and the settings. The lesson reads them through ``exercises.facts`` (never a
number typed by hand), so a re-recorded run changes the lesson, in both languages.

    .venv/bin/python -m exercises.training.record_runs --record

Every run is on CPU with one thread, so the same settings give the same models on any
machine (``engine.train_lab.LabSettings``); the file records the torch version too.
Reading the file is torch-free; the recording lives in ``record_runs`` (it trains, so it
imports the lab: reading must not)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from exercises.text import Bilingual, L

PATH = Path(__file__).with_name("recorded_runs.json")
COMMAND = ".venv/bin/python -m exercises.training.record_runs --record"
SEEDS = tuple(range(8))
CORPORA = ("zh", "en")
OBJECTIVES = ("clm", "mlm", "prefix", "span")

# Every toy language of the lab by name (the recorded runs cover CORPORA; "arith" is the
# contrast case the lab also trains on).
CORPUS_NAMES: dict[str, Bilingual] = {
    "zh": L("Chinese toy language", "中文玩具语言"),
    "en": L("English toy language", "英文玩具语言"),
    "arith": L("toy arithmetic", "玩具算术"),
}


@cache
def recorded() -> dict:
    """The recorded runs (read once; a missing file is a broken checkout, not a state)."""
    return json.loads(PATH.read_text(encoding="utf-8"))
