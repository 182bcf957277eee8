"""Run a learner's file in a child process with time and memory limits.

The child (``child.py``) loads the file and answers calls to one function; the
checks run here, in the trusted process, so nothing the learner's code does can
mark a rule as passed. Limits: the address space (RLIMIT_AS, default 1 GiB;
torch itself needs about 0.3), CPU seconds for the whole child (RLIMIT_CPU), no
file may grow (RLIMIT_FSIZE = 0), no core dumps, and a wall-clock limit on every
call (the child's process group is killed when it is exceeded). The child runs in
a scratch directory that is also its HOME, TMPDIR, XDG directories and
OBJECTIVES_TUTOR_HOME, and is removed afterwards, so nothing it does the ordinary
way reaches the learner's progress. It is the same user, so this guards against
mistakes, not against an attacker who aims at absolute paths.

Children are forked from a "zygote" that has imported torch once (about 20 ms
instead of a second per file); if the zygote cannot run, each child is started
from scratch instead.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from exercises.lab.child import decode, encode

CHILD = Path(__file__).with_name("child.py")
MEMORY_LIMIT = 1 << 30
CPU_LIMIT_S = 120
CALL_LIMIT_S = 5.0
START_LIMIT_S = 60.0  # torch's import on a loaded 2-core machine


class LoadFailed(Exception):
    """The file could not be loaded: kind is syntax | import | crash | missing | unreadable | died."""

    def __init__(self, kind: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.line = kind, message, line


class LearnerError(Exception):
    """The learner's function raised; the child is still alive."""

    def __init__(self, name: str, message: str, line: int | None) -> None:
        super().__init__(f"{name}: {message}")
        self.name, self.message, self.line = name, message, line


class SandboxStopped(Exception):
    """The child had to be stopped (time) or died (memory, CPU, a crash)."""

    def __init__(self, kind: str, detail: str, seconds: float) -> None:
        super().__init__(detail)
        self.kind, self.detail, self.seconds = kind, detail, seconds


@dataclass(frozen=True)
class Generator:
    """A torch.Generator seeded in the child: the learner receives the real thing."""

    seed: int


def _wire(value):
    if isinstance(value, Generator):
        return {"$gen": value.seed}
    if isinstance(value, tuple):
        return {"$tuple": [_wire(item) for item in value]}
    if isinstance(value, list):
        return [_wire(item) for item in value]
    return encode(value)


def _child_env(home: Path, scratch: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": scratch,
        "XDG_DATA_HOME": str(home),
        "XDG_CONFIG_HOME": str(home),
        "XDG_CACHE_HOME": str(home),
        "OBJECTIVES_TUTOR_HOME": str(home / "objectives-tutor"),
        "LANG": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OMP_NUM_THREADS": "1",
    }


class _Zygote:
    """The fork server: one per process, started on first use."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.scratch = tempfile.mkdtemp(prefix="objectives-lab-zygote-")
        home = Path(self.scratch) / "home"
        home.mkdir()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.process = subprocess.Popen(
            [sys.executable, "-I", str(CHILD), "--zygote", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.scratch,
            env=_child_env(home, self.scratch),
            start_new_session=True,
        )
        theirs.close()
        self.socket = ours
        self.socket.settimeout(START_LIMIT_S)
        self.reader = self.socket.makefile("rb")
        if json.loads(self.reader.readline() or b"{}").get("ready") is not True:
            raise OSError("the lab's fork server did not start")

    def spawn(self, request: dict, fds: list[int]) -> int:
        with self.lock:
            socket.send_fds(self.socket, [json.dumps(request).encode()], fds)
            reply = self.reader.readline()
        if not reply:
            raise OSError("the lab's fork server stopped")
        return int(json.loads(reply)["pid"])

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.socket.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        shutil.rmtree(self.scratch, ignore_errors=True)


_zygote: _Zygote | None = None
_zygote_lock = threading.Lock()
_zygote_failed = False


def get_zygote() -> _Zygote | None:
    global _zygote, _zygote_failed
    with _zygote_lock:
        if _zygote_failed or os.environ.get("OBJECTIVES_TUTOR_LAB_NO_ZYGOTE"):
            return None
        if _zygote is not None and not _zygote.alive():
            _zygote.stop()
            _zygote = None
        if _zygote is None:
            try:
                _zygote = _Zygote()
            except (TimeoutError, OSError, ValueError):
                _zygote_failed = True
                return None
            atexit.register(shutdown)
        return _zygote


def shutdown() -> None:
    """Stop the fork server (at exit, or when a test wants a fresh one)."""
    global _zygote
    with _zygote_lock:
        if _zygote is not None:
            _zygote.stop()
            _zygote = None


class Sandbox:
    """One child process serving one learner file; use as a context manager."""

    def __init__(
        self,
        path: Path,
        function: str,
        *,
        memory: int = MEMORY_LIMIT,
        cpu_seconds: int = CPU_LIMIT_S,
        call_limit: float | None = None,
        start_limit: float | None = None,
    ) -> None:
        self.path = Path(path)
        self.start_limit = START_LIMIT_S if start_limit is None else start_limit
        self.function = function
        self.memory, self.cpu_seconds = memory, cpu_seconds
        self.call_limit = CALL_LIMIT_S if call_limit is None else call_limit
        self.start_seconds = 0.0
        self.calls = 0
        self._printed: list[str] = []
        self._pid: int | None = None
        self._popen: subprocess.Popen | None = None
        self._stdin = self._stdout = self._stderr = None
        self._scratch: str | None = None

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def printed(self) -> str:
        """The last things the learner's code printed (stdout and stderr)."""
        return "".join(self._printed)[-1500:]

    def start(self) -> None:
        started = time.perf_counter()
        self._scratch = tempfile.mkdtemp(prefix="objectives-lab-")
        copy = Path(self._scratch) / "task.py"
        try:
            shutil.copyfile(self.path, copy)
        except OSError as error:
            self.close()
            raise LoadFailed("unreadable", str(error)) from None
        home = Path(self._scratch) / "home"
        home.mkdir()
        env = _child_env(home, self._scratch)
        zygote = get_zygote()
        if zygote is not None:
            child_in, parent_in = os.pipe()
            parent_out, child_out = os.pipe()
            parent_err, child_err = os.pipe()
            request = {
                "path": str(copy),
                "function": self.function,
                "shown": self.path.name,
                "cwd": self._scratch,
                "env": env,
                "memory": self.memory,
                "cpu": self.cpu_seconds,
            }
            try:
                self._pid = zygote.spawn(request, [child_in, child_out, child_err])
            except OSError:
                zygote = None
            finally:
                for fd in (child_in, child_out, child_err):
                    os.close(fd)
            if zygote is None:
                for fd in (parent_in, parent_out, parent_err):
                    os.close(fd)
            else:
                self._stdin = os.fdopen(parent_in, "wb")
                self._stdout = os.fdopen(parent_out, "rb")
                self._stderr = os.fdopen(parent_err, "rb")
        if zygote is None:
            memory, cpu = self.memory, self.cpu_seconds
            self._popen = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    str(CHILD),
                    str(copy),
                    self.function,
                    self.path.name,
                    str(memory),
                    str(cpu),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self._scratch,
                env=env,
                start_new_session=True,
            )
            self._pid = self._popen.pid
            self._stdin, self._stdout, self._stderr = (
                self._popen.stdin,
                self._popen.stdout,
                self._popen.stderr,
            )
        threading.Thread(target=self._drain, args=(self._stderr,), daemon=True).start()
        message = self._receive(self.start_limit, starting=True)
        self.start_seconds = time.perf_counter() - started
        if "load" in message:
            self.close()
            raise LoadFailed(message["load"], message.get("message", ""), message.get("line"))

    def _drain(self, stream) -> None:
        with contextlib.suppress(OSError, ValueError):
            for raw in iter(stream.readline, b""):
                self._printed.append(raw.decode("utf-8", "replace"))
                if len(self._printed) > 200:
                    del self._printed[:100]

    def _receive(self, limit: float, starting: bool = False) -> dict:
        began = time.perf_counter()
        stream = self._stdout
        if stream is None:
            raise SandboxStopped("died", "the sandbox is not running", 0.0)
        selector = selectors.DefaultSelector()
        selector.register(stream, selectors.EVENT_READ)
        try:
            ready = selector.select(timeout=limit)
        finally:
            selector.close()
        if not ready:
            self.close()
            raise SandboxStopped("time", f"no answer within {limit:g} s", time.perf_counter() - began)
        line = stream.readline()
        if not line:
            code = self._popen.wait() if self._popen is not None else None
            self.close()
            kind = "cpu" if code == -signal.SIGXCPU else "died"
            if starting:
                raise LoadFailed("died", f"the process ended ({code}): {self.printed()[-300:]}")
            raise SandboxStopped(kind, "the process ended", time.perf_counter() - began)
        return json.loads(line)

    def call(self, *args, limit: float | None = None, global_seed: int = 0):
        """Call the learner's function; its result decoded into torch values."""
        if self._stdin is None:
            raise SandboxStopped("died", "the sandbox is not running", 0.0)
        self.calls += 1
        request = json.dumps({"args": _wire(list(args)), "global_seed": global_seed}) + "\n"
        try:
            self._stdin.write(request.encode())
            self._stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self.close()
            raise SandboxStopped("died", "the process ended", 0.0) from None
        reply = self._receive(self.call_limit if limit is None else limit)
        if "error" in reply:
            raise LearnerError(reply["error"], reply.get("message", ""), reply.get("line"))
        return decode(reply["ok"])

    def close(self) -> None:
        pid, self._pid = self._pid, None
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        if self._popen is not None:
            self._popen.wait()
            self._popen = None
        for stream in (self._stdin, self._stdout, self._stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._stdin = self._stdout = self._stderr = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
