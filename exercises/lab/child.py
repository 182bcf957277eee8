"""The sandboxed side of the code lab: load one learner file and answer calls.

Started by ``exercises.lab.sandbox`` as ``python -I child.py FILE FUNCTION`` with
limits already set. Imports only the standard library and torch, and refuses the
project's own packages to the learner's code (the engine is what they are
re-building). Protocol: one JSON line per message on a private copy of stdout;
the learner's prints go to stderr. The parent checks the results: nothing the
learner's code does here can mark a rule as passed.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

BLOCKED = ("engine", "exercises", "tui")
MAX_ELEMENTS = 2_000_000  # larger results are reported, not shipped


class _Blocker:
    """Refuse the project's packages: the lab is about writing them yourself."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"the lab does not let your code import {name!r}: write it yourself with torch")
        return None


def encode(value):
    """Values as JSON: tensors with dtype and shape, tuples and int-keyed dicts tagged."""
    import torch

    if isinstance(value, torch.Tensor):
        if value.numel() > MAX_ELEMENTS:
            return {"$toolarge": list(value.shape)}
        flat = value.detach().cpu().reshape(-1)
        if flat.dtype == torch.bool:
            flat = flat.to(torch.int8)
        return {
            "$t": str(value.dtype).removeprefix("torch."),
            "shape": list(value.shape),
            "data": flat.tolist(),
        }
    if isinstance(value, torch.Generator):
        return {"$repr": "torch.Generator"}
    if isinstance(value, tuple):
        return {"$tuple": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {"$dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if value is None or isinstance(value, (bool, int, float, str)):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**63:
            return {"$repr": "a very large int"}
        return value
    return {"$repr": f"{type(value).__name__}: {repr(value)[:120]}"}


def decode(value):
    import torch

    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if "$t" in value:
            dtype = getattr(torch, value["$t"])
            data = torch.tensor(value["data"], dtype=torch.int8 if dtype == torch.bool else dtype)
            return data.to(dtype).reshape(value["shape"])
        if "$tuple" in value:
            return tuple(decode(item) for item in value["$tuple"])
        if "$dict" in value:
            return {decode(k): decode(v) for k, v in value["$dict"]}
        if "$gen" in value:
            return torch.Generator().manual_seed(int(value["$gen"]))
        if "$repr" in value or "$toolarge" in value:
            return Opaque(value)
        return {k: decode(v) for k, v in value.items()}
    return value


class Opaque:
    """A value the learner returned that cannot cross the pipe (or should not)."""

    def __init__(self, info: dict) -> None:
        self.info = info

    def __repr__(self) -> str:
        if "$toolarge" in self.info:
            return f"<a tensor of shape {tuple(self.info['$toolarge'])}: too large>"
        return f"<{self.info['$repr']}>"


def _learner_line(error: BaseException, filename: str) -> int | None:
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    return line


def serve(path: str, function: str, shown_name: str) -> None:
    """Load the learner's file and answer calls until stdin closes."""
    channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # the learner's prints (even os.write(1, ...)) go to stderr
    sys.stdout = sys.stderr
    requests = os.fdopen(os.dup(0), encoding="utf-8")  # a private copy: input() reads nothing of ours
    quiet = os.open(os.devnull, os.O_RDONLY)
    os.dup2(quiet, 0)
    os.close(quiet)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115

    def send(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")

    import torch

    torch.set_num_threads(1)
    sys.meta_path.insert(0, _Blocker())
    for name in list(sys.modules):
        if name.split(".")[0] in BLOCKED:
            del sys.modules[name]
    try:
        with open(path, encoding="utf-8-sig") as handle:  # Windows editors may add a BOM
            source = handle.read()
        code = compile(source, shown_name, "exec")
    except SyntaxError as error:
        send(
            {"load": "syntax", "line": error.lineno, "message": f"{error.msg}: {(error.text or '').strip()}"}
        )
        return
    except (UnicodeDecodeError, ValueError) as error:
        send({"load": "syntax", "line": None, "message": str(error)})
        return
    namespace = {"__name__": "lab_task", "__file__": shown_name}
    try:
        exec(code, namespace)
    except BaseException as error:  # the sandbox's edge: the learner's file crashed on import (exit() too)
        kind = "import" if isinstance(error, ImportError) else "crash"
        send(
            {
                "load": kind,
                "line": _learner_line(error, shown_name),
                "message": f"{type(error).__name__}: {error}",
            }
        )
        return
    target = namespace.get(function)
    if not callable(target):
        send({"load": "missing", "line": None, "message": function})
        return
    send({"ready": True})
    for line in requests:
        request = json.loads(line)
        torch.manual_seed(
            int(request.get("global_seed", 0))
        )  # code that ignores the generator stays repeatable
        try:
            args = decode(request["args"])
            result = target(*args)
            reply = {"ok": encode(result)}
        except NotImplementedError as error:
            reply = {
                "error": "NotImplementedError",
                "message": str(error),
                "line": _learner_line(error, shown_name),
            }
        except BaseException as error:  # the sandbox's edge: whatever the learner's code raises is reported
            reply = {
                "error": type(error).__name__,
                "message": str(error)[:300],
                "line": _learner_line(error, shown_name),
            }
        try:
            send(reply)
        except (TypeError, ValueError) as error:
            send({"error": "UnsendableResult", "message": str(error)[:200], "line": None})


def apply_limits(memory: int, cpu_seconds: int) -> None:
    """Address space, CPU seconds, no file growth, no core dumps (in the child only)."""
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write then fails with an error instead of killing


def zygote(socket_fd: int) -> None:
    """Import torch once, then fork one limited child per learner file.

    Each request arrives on a Unix socket with the child's three pipe ends
    (SCM_RIGHTS); the reply is the child's pid. Starting a check then costs a
    fork (milliseconds) instead of a torch import (about a second).
    """
    import signal
    import socket

    import torch

    torch.set_num_threads(1)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    control = socket.socket(fileno=socket_fd)
    control.sendall(b'{"ready": true}\n')
    while True:
        try:
            message, fds, _flags, _address = socket.recv_fds(control, 65536, 3)
        except OSError:
            return
        if not message:
            return  # the parent is gone
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            try:
                control.close()
                os.setsid()
                for target, fd in zip((0, 1, 2), fds, strict=True):
                    os.dup2(fd, target)
                for fd in fds:
                    os.close(fd)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                os.chdir(request["cwd"])
                os.environ.clear()
                os.environ.update(request["env"])
                apply_limits(int(request["memory"]), int(request["cpu"]))
                sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
                serve(request["path"], request["function"], request["shown"])
            except BaseException:  # a forked child never returns into the fork server's loop
                pass
            finally:
                os._exit(0)
        for fd in fds:
            os.close(fd)
        control.sendall((json.dumps({"pid": pid}) + "\n").encode())


if __name__ == "__main__":
    if sys.argv[1] == "--zygote":
        zygote(int(sys.argv[2]))
    else:
        apply_limits(int(sys.argv[4]), int(sys.argv[5]))
        serve(sys.argv[1], sys.argv[2], sys.argv[3])
