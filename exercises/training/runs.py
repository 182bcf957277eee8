"""The last training-lab run, kept in the user-data directory so that probes
survive a restart.

One file, ``training-lab/last-run.pt``, holds the settings, the app version,
the vocabulary, every model's weights and the table. It is read with
``torch.load(weights_only=True)``: tensors and plain data only, nothing in it is
ever executed. A file that does not load (truncated, from another version,
written by something else) is moved aside, never overwritten in place, and
the caller is told why, so it can train again.
"""

from __future__ import annotations

import json
import os
import pickle
import time
from dataclasses import dataclass
from pathlib import Path

from exercises.learner.store import app_version, default_home

FILE_NAME = "last-run.pt"
TABLE_NAME = "last-run.json"  # the table alone, readable without torch (the exercises grade against it)
FORMAT = 2  # 2: the model's shape stated once (engine.train_lab_spec.ModelShape)


def lab_dir(home: Path | None = None) -> Path:
    return (home if home is not None else default_home()) / "training-lab"


def run_path(home: Path | None = None) -> Path:
    return lab_dir(home) / FILE_NAME


@dataclass
class SavedRun:
    """A run read back from disk: the table (JSON) and one model per objective."""

    table: dict
    settings: object  # engine.train_lab.LabSettings
    vocab: object  # engine.tokens.Vocab
    models: dict  # objective -> TinyLM
    app_version: str
    path: Path


class RunUnreadable(Exception):
    """The saved run cannot be used; ``str()`` says why, ``moved_to`` where the file went."""

    def __init__(self, why: str, moved_to: Path | None = None) -> None:
        super().__init__(why)
        self.moved_to = moved_to


def save_run(run, home: Path | None = None, own: list | None = None) -> Path:
    """Write ``run`` (an engine LabRun) atomically: a half-written file never replaces a good one.
    ``own``: the rows trained from the learner's code (exercises.training.own_code), kept in
    the table as ``"own"`` (their models are not kept)."""
    import torch

    path = run_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "app_version": app_version(),
        "saved_at": time.time(),
        "settings": run.settings.to_json(),
        "vocab": list(run.data.vocab.tokens),
        "n_sentinels": run.data.vocab.n_sentinels,
        "model_settings": {
            name: {"vocab_size": trained.model.vocab_size, "shape": trained.model.shape.to_json()}
            for name, trained in run.models.items()
        },
        "models": {name: trained.model.state_dict() for name, trained in run.models.items()},
        "table": table_of(run, own),
    }
    partial = path.with_name(path.name + ".partial")
    torch.save(payload, partial)
    os.replace(partial, path)
    table = path.with_name(TABLE_NAME)
    partial = table.with_name(table.name + ".partial")
    partial.write_text(json.dumps(table_of(run, own), ensure_ascii=False), encoding="utf-8")
    os.replace(partial, table)
    return path


def table_of(run, own: list | None = None) -> dict:
    return {**run.to_json(), "own": own} if own else run.to_json()


def last_table(home: Path | None = None) -> dict | None:
    """The last run's table (JSON), or None when there is none or it cannot be read."""
    try:
        data = json.loads((lab_dir(home) / TABLE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("objectives"), dict):
        return None
    if not isinstance(data.get("settings"), dict):
        return None
    return data


def set_aside_for_reset(home: Path | None = None) -> Path | None:
    """`progress --reset`: the last run's folder becomes ``training-lab.<time>.backup``
    (the exercises then grade against the reference table). None when there was no run."""
    folder = lab_dir(home)
    if not folder.is_dir():
        return None
    target = folder.with_name(f"{folder.name}.{time.strftime('%Y%m%d-%H%M%S')}.backup")
    counter = 1
    while target.exists():
        target = folder.with_name(f"{folder.name}.{time.strftime('%Y%m%d-%H%M%S')}-{counter}.backup")
        counter += 1
    os.replace(folder, target)
    return target


def _set_aside(path: Path) -> Path | None:
    target = path.with_name(f"{path.stem}.unreadable-{time.strftime('%Y%m%d-%H%M%S')}{path.suffix}")
    try:
        os.replace(path, target)
        return target
    except OSError:
        return None


def load_run(home: Path | None = None) -> SavedRun | None:
    """The last run, or None when there is none. Raises RunUnreadable (after
    moving the file aside) when a file is there but cannot be used."""
    import torch

    from engine.tiny_lm import TinyLM
    from engine.tokens import Vocab
    from engine.train_lab import LabSettings
    from engine.train_lab_spec import ModelShape

    path = run_path(home)
    if not path.exists():
        return None
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise ValueError("it was written by another version of the training lab")
        settings = LabSettings.from_json(payload["settings"]).check()
        vocab = Vocab(list(payload["vocab"]))
        vocab.n_sentinels = int(payload["n_sentinels"])
        models = {}
        for name, state in payload["models"].items():
            described = payload["model_settings"][name]
            model = TinyLM(int(described["vocab_size"]), ModelShape.from_json(described["shape"]))
            model.load_state_dict(state)
            model.eval()
            models[name] = model
        table = payload["table"]
        if not models or not isinstance(table, dict):
            raise ValueError("it holds no trained model")
    except Exception as error:  # anything at all: the file is not usable
        detail = str(error).splitlines()[0] if str(error) else ""
        if isinstance(error, pickle.UnpicklingError) or "pickle" in type(error).__name__.lower():
            detail = "not a saved training-lab file"
        why = f"{type(error).__name__}: {detail}"[:160]
        raise RunUnreadable(why, _set_aside(path)) from None
    return SavedRun(table, settings, vocab, models, str(payload.get("app_version", "unknown")), path)
