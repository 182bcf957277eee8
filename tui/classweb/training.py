"""The training lab in a class session: each student's files under that student
only, and training by the class's setting.

A session process writes files only through the app's user-data folder
($OBJECTIVES_TUTOR_HOME: the training lab's saved run) and the temporary folder;
on the class server both become the student's own folder, ``DIR/students/<hash of
the id>/`` (mode 0700), on the host that runs the session. The learner's progress
is not a file there: it is in the class database.

Training (exercises.classdb.settings.ClassSettings) is off unless the teacher
turns it on (``class settings --training on``); then a run is at most the
teacher's steps per objective, and at most ``training_slots`` runs train at once
on a host: the others wait their turn (a lock file per slot, so every session
process of the host shares the queue, and a killed process frees its slot)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

STUDENTS_DIR = "students"
SLOTS_DIR = "training-slots"
QUEUE_POLL_SECONDS = 1.0


def student_home(class_dir: Path, student_id: str) -> Path:
    """The student's own folder: named by a hash of the id (an id may hold any letter)."""
    digest = hashlib.sha256(student_id.encode("utf-8", "backslashreplace")).hexdigest()[:24]
    return Path(class_dir) / STUDENTS_DIR / digest


def private_home(class_dir: Path, student_id: str) -> Path:
    """Make the student's folder (0700) and point this process's user-data and temporary
    folders at it: whatever the session saves stays that student's."""
    home = student_home(class_dir, student_id)
    for folder in (home.parent, home, home / "tmp"):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            folder.chmod(0o700)
    os.environ["OBJECTIVES_TUTOR_HOME"] = str(home)
    os.environ["TMPDIR"] = str(home / "tmp")
    import tempfile

    tempfile.tempdir = None  # read TMPDIR again
    return home


class Slot:
    def __init__(self, handle) -> None:
        self.handle = handle

    def release(self) -> None:
        with contextlib.suppress(OSError):
            self.handle.close()


class TrainingGate:
    """What the training lab asks before it trains in a class session."""

    def __init__(self, settings, slots_dir: Path, sleep: Callable[[float], None] = time.sleep) -> None:
        self.enabled = settings.training == "on"
        self.max_steps = settings.training_steps
        self.slots = settings.training_slots
        self.slots_dir = Path(slots_dir)
        self.sleep = sleep

    def _try(self) -> Slot | None:
        import fcntl

        self.slots_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        for number in range(self.slots):
            handle = open(self.slots_dir / f"slot-{number}.lock", "a+")  # noqa: SIM115 - held while training
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            return Slot(handle)
        return None

    def acquire(self, cancelled: Callable[[], bool], waiting: Callable[[], None]) -> Slot | None:
        """A training slot of this host, waiting in turn (``waiting`` is told once);
        None when ``cancelled`` became true while waiting."""
        told = False
        while not cancelled():
            slot = self._try()
            if slot is not None:
                return slot
            if not told:
                waiting()
                told = True
            self.sleep(QUEUE_POLL_SECONDS)
        return None
