"""The class's own settings, kept in the class database (every host of the class
reads the same): what the teacher decides for everyone, such as whether the
training lab trains on the server and how much."""

from __future__ import annotations

from dataclasses import dataclass

from exercises.classdb.backends import Backend
from exercises.classdb.model import ClassStoreError
from exercises.text import L

TRAINING_MODES = ("off", "on")
MAX_TRAINING_STEPS = 5000  # the training lab's own largest budget
MAX_TRAINING_SLOTS = 16


@dataclass(frozen=True)
class ClassSettings:
    """``training``: "off" (the default: the training lab shows the reference table and
    trains nothing on the server) or "on" (each student trains in their own session, at
    most ``training_steps`` steps per objective, at most ``training_slots`` at once on a
    host; the others wait their turn)."""

    training: str = "off"
    training_steps: int = 500
    training_slots: int = 1

    def check(self) -> ClassSettings:
        if self.training not in TRAINING_MODES:
            raise ClassStoreError(
                L(
                    f"training is off or on, not {self.training!r}",
                    f"训练只能是 off 或 on，不能是 {self.training!r}",
                )
            )
        if not 1 <= self.training_steps <= MAX_TRAINING_STEPS:
            raise ClassStoreError(
                L(
                    f"training steps are 1..{MAX_TRAINING_STEPS}, not {self.training_steps}",
                    f"训练步数须为 1..{MAX_TRAINING_STEPS}，不能是 {self.training_steps}",
                )
            )
        if not 1 <= self.training_slots <= MAX_TRAINING_SLOTS:
            raise ClassStoreError(
                L(
                    f"training slots are 1..{MAX_TRAINING_SLOTS}, not {self.training_slots}",
                    f"同时训练数须为 1..{MAX_TRAINING_SLOTS}，不能是 {self.training_slots}",
                )
            )
        return self


def settings_from(rows: dict[str, str]) -> ClassSettings:
    """The settings a database holds (a value that cannot be read is the default)."""
    default = ClassSettings()

    def number(key: str, fallback: int) -> int:
        value = rows.get(key, "")
        return int(value) if value.isascii() and value.isdigit() and len(value) < 7 else fallback

    try:
        return ClassSettings(
            rows.get("training", default.training),
            number("training_steps", default.training_steps),
            number("training_slots", default.training_slots),
        ).check()
    except ClassStoreError:
        return default


class Settings:
    backend: Backend

    def class_settings(self) -> ClassSettings:
        with self.backend.read() as tx:
            return settings_from(dict(tx.all("SELECT key, value FROM class_settings")))

    def set_class_settings(self, settings: ClassSettings) -> ClassSettings:
        settings.check()
        with self.backend.write(lock="settings") as tx:
            for key in ("training", "training_steps", "training_slots"):
                tx.run(
                    "INSERT INTO class_settings (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, str(getattr(settings, key))),
                )
        return settings
