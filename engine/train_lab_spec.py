"""What a training-lab run is made of, stated once and torch-free: the objectives it
can train, the tasks it tests, the model's shape and the default budget. The command
line checks its arguments against these before torch is imported; the engine, the
saved run and the app read them from here."""

from __future__ import annotations

from dataclasses import asdict, dataclass

OBJECTIVES = ("clm", "mlm", "prefix", "span")
TASKS = ("continue", "fill")
DEFAULT_STEPS = 500
MAX_STEPS = 100_000  # the command line's bound
APP_MAX_STEPS = 5000  # the app's form and a class server: minutes at most on a laptop


@dataclass(frozen=True)
class ModelShape:
    """The one tiny transformer every objective trains: two pre-norm layers, width 64,
    4 heads, windows of 32 tokens, rotary positions plus learned absolute ones (they let
    a model tell where its window ends)."""

    width: int = 64
    layers: int = 2
    heads: int = 4
    context: int = 32
    absolute: bool = True

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> ModelShape:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})
