"""A warm process for the class server's sessions (``python -m tui.classweb.warm SOCKET``).

Starting a session process costs a second or more of CPU (Python, Textual, the app's
modules) and ~40 MB each; thirty students signing in at once on two cores wait for
thirty such starts. The warm process imports all of that once, then forks a child per
session: the child starts at once and shares the imported pages with its siblings
(copy-on-write; ``gc.freeze`` keeps the garbage collector from touching them).

The server still starts one fixed command per session (textual-serve's way); that
command is ``warm_client.py``: it hands its stdin/stdout/stderr and the session's few
environment values to this process over a UNIX socket in a private directory (mode
0700: only the server's own user can connect), then waits until the child ends. The
socket carries nothing but file descriptors and those values; nothing received is
executed. Torch is imported here but never run (a fork must not inherit torch's thread
pools, which start at the first operation): the sessions share it, so the tutor's engine
costs a session ~10 MB instead of ~130 MB (benchmarks/class_server.py).
"""

from __future__ import annotations

import gc
import json
import os
import signal
import socket
import sys

# What a session child takes from its client; everything else is the warm process's own.
SESSION_ENV = (
    "OBJECTIVES_TUTOR_CLASS_TOKEN",
    "OBJECTIVES_TUTOR_CLASS_DIR",
    "OBJECTIVES_TUTOR_CLASS_DB",
    "OBJECTIVES_TUTOR_LANG",
    "COLUMNS",
    "ROWS",
)
MAX_MESSAGE = 16 * 1024


def preload() -> None:
    """Everything a session imports, torch included (imported, not run)."""
    import textual.app
    import textual.drivers.web_driver  # noqa: F401

    # torch imported, no operation run: no thread pool exists yet to break in a fork, and
    # every session shares its ~150 MB instead of loading its own (the tutor's engine
    # then arrives at once; an exam still never touches it).
    import torch  # noqa: F401

    import exercises.catalogue
    import exercises.classdb  # noqa: F401
    import tui.classweb.exam_adapter
    import tui.classweb.student_app
    import tui.screens.dashboard
    import tui.screens.exam
    import tui.screens.home
    import tui.screens.session_ended  # noqa: F401


def _child(connection: socket.socket, fds: list[int], values: dict, argv: list[str], parent: int) -> None:
    from tui.classweb.lifeline import end_with_parent

    if not end_with_parent(parent):  # the warm process (and so the server) is gone already
        os._exit(0)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    for key in SESSION_ENV:
        os.environ.pop(key, None)
        value = values.get(key)
        if isinstance(value, str) and value.isprintable() and len(value) < 4096:
            os.environ[key] = value
    # the connection stays open until this process ends: the client's sign of the end
    from tui.classweb.student_app import main

    main(argv)


def serve(path: str, argv: list[str]) -> None:
    from tui.classweb.lifeline import end_with_parent, parent_from_environment

    server = parent_from_environment()
    if server is not None and not end_with_parent(server):  # the server died as we started
        return
    preload()
    gc.freeze()  # imported objects stay shared with every child
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the server's to handle; it ends us
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        connection, _ = listener.accept()
        try:
            message, fds, _flags, _address = socket.recv_fds(connection, MAX_MESSAGE, 3)
            values = json.loads(message.decode("utf-8")) if message else None
        except (OSError, ValueError):
            values, fds = None, locals().get("fds", [])
        if not isinstance(values, dict) or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            connection.close()
            continue
        warm = os.getpid()
        if os.fork() == 0:
            listener.close()
            try:
                _child(connection, fds, values, argv, warm)
            finally:
                os._exit(0)
        connection.close()
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
