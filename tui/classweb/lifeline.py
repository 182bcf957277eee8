"""Processes that end with their parent: the warm process with the class server, each
session with the process that started it (the server, or the warm process).

Why: after ``kill -9`` of ``class serve`` nothing runs its clean-up, and every session
went on (reparented to PID 1) heartbeating, so the dashboard showed a whole class live
on a server that was gone. Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG)``)
is sent by the kernel whatever killed the parent. It is set by the child itself, so
the parent may have died already between the fork and the call: the child then
compares its parent with the one it was told (the race closed). Imports nothing but
the standard library: the warm process calls it before anything else."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal

PARENT_ENV = "OBJECTIVES_TUTOR_CLASS_PARENT"  # the pid of the process a session must end with
PR_SET_PDEATHSIG = 1


def end_with_parent(parent: int, sig: int = signal.SIGKILL) -> bool:
    """Have the kernel send ``sig`` to this process when its parent ends; False when the
    parent is already not ``parent`` (it died before the signal was set: end now)."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: no such call
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    return os.getppid() == parent


def parent_from_environment() -> int | None:
    """The parent named in PARENT_ENV (taken out of the environment), or None."""
    text = os.environ.pop(PARENT_ENV, "")
    return int(text) if text.isascii() and text.isdigit() and len(text) < 12 else None
