"""Load torch's native libraries without holding Python's lock.

``import torch`` spends about 0.4 s (seconds on a loaded machine) inside
``dlopen`` of libtorch, and CPython holds the GIL across an extension module's
``dlopen``: for that long the app's main thread cannot read a key, redraw, or
quit, although the import runs in a worker thread. A foreign call through ctypes
releases the GIL, so the worker first asks the C library's ``dlopen`` for
torch's extension module (which pulls in libtorch and the rest); the import that
follows finds everything loaded and runs only Python code, which yields the lock
every few milliseconds. Best effort: on any surprise the normal import does it all."""

from __future__ import annotations

import ctypes
import importlib.util
import pathlib
import sys


def preload_torch_libraries() -> bool:
    """dlopen torch/_C (and, through it, libtorch) with the GIL released; True if done."""
    if not sys.platform.startswith(("linux", "darwin")) or "torch" in sys.modules:
        return False
    try:
        spec = importlib.util.find_spec("torch")  # finds the package without running it
        if spec is None or spec.origin is None:
            return False
        extensions = sorted(pathlib.Path(spec.origin).parent.glob("_C.*.so"))
        if not extensions:
            return False
        libc = ctypes.CDLL(None)
        dlopen = libc.dlopen
        dlopen.restype = ctypes.c_void_p
        dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
        # RTLD_NOW | RTLD_LOCAL: the flags CPython itself uses for extension modules
        return bool(dlopen(str(extensions[0]).encode(), ctypes.RTLD_LOCAL | 2))
    except (OSError, AttributeError, ValueError):
        return False
