"""Files only their owner may read: a student's autosave, submission and lock hold
answers and a signature, and on a shared machine (a lab, a server students SSH
into) the default mode 0644 would hand them to every other account. Created 0600
from the first byte (never written first and narrowed after: that leaves a window)."""

from __future__ import annotations

import json
import os
from pathlib import Path

PRIVATE = 0o600
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # a symlink planted in a shared folder is refused, not followed


def write_json_privately(path: Path, payload: dict) -> None:
    """Write then rename, mode 0600: a crash mid-write leaves the previous file, never
    half of one, and no other account can read either."""
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, PRIVATE)
    os.fchmod(descriptor, PRIVATE)  # a .tmp left by an older version keeps its mode otherwise
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, ensure_ascii=False, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def open_private(path: Path):
    """``path`` opened for appending and reading, created 0600 (an existing file is narrowed)."""
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | _NOFOLLOW, PRIVATE)
    os.fchmod(descriptor, PRIVATE)
    return os.fdopen(descriptor, "a+", encoding="utf-8")
