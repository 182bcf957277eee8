"""The command the class server runs per session when a warm process is up
(``python -S tui/classweb/warm_client.py SOCKET FALLBACK...``): it hands its standard
streams and the session's environment values to the warm process (tui/classweb/warm.py),
then waits until that session's process ends. Runs without the site packages (``-S``)
and imports nothing of the app: it starts in milliseconds. If the warm process cannot
be reached, it becomes the ordinary session command (FALLBACK)."""

import json
import os
import socket
import sys

SESSION_ENV = (
    "OBJECTIVES_TUTOR_CLASS_TOKEN",
    "OBJECTIVES_TUTOR_CLASS_DIR",
    "OBJECTIVES_TUTOR_CLASS_DB",
    "OBJECTIVES_TUTOR_LANG",
    "COLUMNS",
    "ROWS",
)


def main() -> None:
    path, fallback = sys.argv[1], sys.argv[2:]
    values = {key: os.environ[key] for key in SESSION_ENV if key in os.environ}
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        socket.send_fds(connection, [json.dumps(values).encode("utf-8")], [0, 1, 2])
    except OSError:
        os.execv(fallback[0], fallback)  # no warm process: start the session the slow way
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the session's process holds the streams now; the pipe ends with it
        os.dup2(quiet, fd)
    while connection.recv(4096):
        pass


if __name__ == "__main__":
    main()
