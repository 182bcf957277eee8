"""The sandboxed side of the code lab: load one learner file and answer calls.

Started by ``exercises.lab.sandbox``: either forked by the fork server
(``python -I child.py --zygote FD``, which has imported torch once) or, when that
cannot run, by ``python -I child.py --once REQUEST`` forking one child the same way.
Either way the child is set up by ``start_child``: its three pipes, the limits, and
(where the machine offers it) the isolation of ``exercises.lab.isolation``, all before
the learner's file is read. Imports only the standard library and torch for itself, and
refuses the project's own packages to the learner's code (the engine is what they are
re-building); the isolation module is the only part of the project it loads, and it is
gone from ``sys.modules`` before any child is forked. Protocol: one JSON line per message on a private copy of stdout; the
learner's prints go to stderr. The parent checks the results: nothing the learner's code
does here can mark a rule as passed.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

BLOCKED = ("engine", "exercises", "tui")
MAX_ELEMENTS = 2_000_000  # larger results are reported, not shipped


class _Blocker:
    """Refuse the project's packages (the lab is about writing them yourself) and, in an
    isolated child, any module outside what it may read: an ImportError that says so, rather
    than the PermissionError of reading its file (code that tries an optional import then
    goes on without it, as it would where the module is not installed)."""

    def __init__(self, readable: tuple[str, ...] | None = None) -> None:
        self.readable = readable

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"the lab does not let your code import {name!r}: write it yourself with torch")
        if self.readable is None:
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        places = [spec.origin] if spec is not None and spec.has_location else []
        if spec is not None and spec.submodule_search_locations is not None:
            places += list(spec.submodule_search_locations)
        for place in places:
            real = os.path.realpath(place)
            if not any(
                real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.readable
            ):
                raise ModuleNotFoundError(
                    f"the lab's sandbox has no module {name!r}: your code may use the standard library, torch and numpy",
                    name=name,
                )
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


def decode(value, kept: dict | None = None):
    """The values ``encode`` wrote. The parent decodes what a child sends, and a child's
    learner code can write anything on the protocol's pipe: a value that is not one
    ``encode`` makes raises (ValueError, TypeError...), it is never looked up freely.
    ``kept`` (the child's own, for the parent's requests only): the generators a kept
    ``$gen`` names, by seed, so that their streams go on from call to call."""
    import torch

    if isinstance(value, list):
        return [decode(item, kept) for item in value]
    if isinstance(value, dict):
        if "$t" in value:
            dtype = getattr(torch, str(value["$t"]), None)
            if not isinstance(dtype, torch.dtype):
                raise ValueError(f"not a dtype: {str(value['$t'])[:40]!r}")
            shape = value["shape"]
            if not isinstance(shape, list) or not all(type(size) is int and size >= 0 for size in shape):
                raise ValueError("not a shape")
            data = torch.tensor(value["data"], dtype=torch.int8 if dtype == torch.bool else dtype)
            return data.to(dtype).reshape(shape)
        if "$tuple" in value:
            return tuple(decode(item, kept) for item in value["$tuple"])
        if "$dict" in value:
            return {decode(k, kept): decode(v, kept) for k, v in value["$dict"]}
        if "$gen" in value:
            if value.get("$keep") and kept is not None:  # one stream across calls (training batches)
                seed = int(value["$gen"])
                if seed not in kept:
                    kept[seed] = torch.Generator().manual_seed(seed)
                return kept[seed]
            return torch.Generator().manual_seed(int(value["$gen"]))
        if "$repr" in value or "$toolarge" in value:
            return Opaque(value)
        return {k: decode(v, kept) for k, v in value.items()}
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


def serve(path: str, function: str, shown_name: str, confine=None, readable=None) -> None:
    """Confine this process (``confine()``, when the machine can), then load the learner's
    file and answer calls until stdin closes."""
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
    if confine is not None:
        try:
            confine()
        except Exception as error:  # fail closed: the file is not run at all
            send({"load": "sandbox", "line": None, "message": f"the sandbox could not be set up: {error}"})
            return
    sys.meta_path.insert(0, _Blocker(readable))
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
                "message": f"{type(error).__name__}: {str(error)[:1000]}",
            }
        )
        return
    target = namespace.get(function)
    if not callable(target):
        send({"load": "missing", "line": None, "message": function})
        return
    send({"ready": True})
    kept: dict = {}  # the generators of the parent's kept "$gen" (it names one per run)
    for line in requests:
        request = json.loads(line)
        torch.manual_seed(
            int(request.get("global_seed", 0))
        )  # code that ignores the generator stays repeatable
        try:
            args = decode(request["args"], kept)
            result = target(*args)
            reply = {"ok": encode(result)}
        except NotImplementedError as error:
            reply = {
                "error": "NotImplementedError",
                "message": str(error)[:300],
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


def start_child(request: dict, fds: tuple[int, int, int], isolation, grants, own_session: bool) -> None:
    """In a freshly forked child: its pipes as 0, 1, 2, nothing else open, the scratch
    folder as its home, the limits, then (isolated) the sandbox; never returns."""
    import signal

    try:
        isolation.die_with_parent()  # the fork server (or the one-off parent) gone: so is this child
        if own_session:
            os.setsid()  # the parent stops it with its whole process group
        for target, fd in zip((0, 1, 2), fds, strict=True):
            if fd != target:
                os.dup2(fd, target)
        isolation.close_other_files()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        isolate = bool(request.get("isolate"))
        if isolate:  # the folder's total capped too, where the kernel allows it
            isolation.scratch_in_memory(request["cwd"], (os.path.basename(request["path"]),))
            os.makedirs(request["env"]["HOME"], exist_ok=True)
        isolation.limit(int(request["memory"]), int(request["cpu"]), isolate)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        confine = None
        readable = None
        if isolate:
            scratch = request["cwd"]
            readable = (*(path for path, _folder in grants or ()), scratch)

            def confine():
                if grants is None:
                    raise isolation.IsolationError("no list of what the child may read")
                isolation.confine(scratch, grants)

        serve(request["path"], request["function"], request["shown"], confine, readable)
    except BaseException:  # a forked child never returns into its parent's loop
        pass
    finally:
        os._exit(0)


def _prepare(isolate: bool):
    """Once, in the process that forks the children: torch's lazy start-up (reading
    /proc/cpuinfo on the first operation, which an isolated child may not; the first
    operations' own set-up), what an isolated child may read and its filter (None where
    there is no isolation), and the project's import machinery forgotten, so that each
    child has nothing of it to undo. Returns (the isolation module, the grants)."""
    import resource  # noqa: F401  (each child's limits: imported once, here)

    import torch

    from exercises.lab import isolation

    torch.set_num_threads(1)
    x = torch.rand(4, 4, requires_grad=True)
    torch.nn.functional.cross_entropy(x @ x, torch.tensor([0, 1, 2, 3])).backward()
    torch.multinomial(torch.ones(4), 2, generator=torch.Generator().manual_seed(0))
    grants = isolation.prepare() if isolate else None
    isolation.forget_project()
    return isolation, grants


def zygote(socket_fd: int) -> None:
    """Import torch once, then fork one limited child per learner file.

    Each request arrives on a Unix socket with the child's three pipe ends
    (SCM_RIGHTS); the reply is the child's pid. Starting a check then costs a
    fork (milliseconds) instead of a torch import (about a second).
    """
    import signal
    import socket

    isolation, grants = _prepare(isolate=True)
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
            control.close()
            start_child(request, tuple(fds), isolation, grants, own_session=True)
        for fd in fds:
            os.close(fd)
        control.sendall((json.dumps({"pid": pid}) + "\n").encode())


def once(request: dict) -> None:
    """Without the fork server: the same child, forked once from this process (started
    in a session of its own by the parent, and waiting here until the child ends)."""
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    isolation, grants = _prepare(bool(request.get("isolate")))
    pid = os.fork()
    if pid == 0:
        start_child(request, (0, 1, 2), isolation, grants, own_session=False)
    for fd in (0, 1, 2):  # the parent sees the end of the pipes when the child ends
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):  # the parent tells a CPU limit (SIGXCPU) by this process's end
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


if __name__ == "__main__":
    if sys.argv[1] == "--zygote":
        zygote(int(sys.argv[2]))
    else:
        once(json.loads(sys.argv[2]))
