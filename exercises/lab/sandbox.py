"""Run a learner's file in a child process with time and memory limits.

The child (``child.py``) loads the file and answers calls to one function; the
checks run here, in the trusted process. Limits: the address space
(RLIMIT_AS, default 1 GiB: torch itself needs about 0.3), CPU seconds for the
whole child (RLIMIT_CPU), no file may grow (RLIMIT_FSIZE = 0), no core dumps, and
a wall-clock limit on every call (the child is killed when it is exceeded). The
child starts in a scratch directory that is also its HOME, TMPDIR, XDG dirs and
OBJECTIVES_TUTOR_HOME, so nothing it does the ordinary way reaches the learner's
progress. (Same user, so it is a guard for mistakes, not a jail for an attacker.)
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import selectors
import shutil
import signal
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
    """The file could not be loaded: kind is syntax | import | crash | missing | died."""

    def __init__(self, kind: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.line = kind, message, line


class LearnerError(Exception):
    """The learner's function raised; the child is still alive."""

    def __init__(self, name: str, message: str, line: int | None) -> None:
        super().__init__(f"{name}: {message}")
        self.name, self.message, self.line = name, message, line


class SandboxStopped(Exception):
    """The child had to be stopped (time) or died (memory, CPU, a crash of torch)."""

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


def _limits(memory: int, cpu: int) -> None:  # runs in the child between fork and exec
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write then fails with an error instead of killing


class Sandbox:
    """One child process serving one learner file; use as a context manager."""

    def __init__(
        self,
        path: Path,
        function: str,
        *,
        memory: int = MEMORY_LIMIT,
        cpu_seconds: int = CPU_LIMIT_S,
        call_limit: float = CALL_LIMIT_S,
    ) -> None:
        self.path = Path(path)
        self.function = function
        self.memory, self.cpu_seconds, self.call_limit = memory, cpu_seconds, call_limit
        self.start_seconds = 0.0
        self.calls = 0
        self._stderr: list[str] = []
        self._process: subprocess.Popen | None = None
        self._scratch: str | None = None

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def printed(self) -> str:
        """The last things the learner's code printed (stdout and stderr)."""
        return "".join(self._stderr)[-1500:]

    def start(self) -> None:
        started = time.perf_counter()
        self._scratch = tempfile.mkdtemp(prefix="objectives-lab-")
        copy = Path(self._scratch) / "task.py"
        try:
            shutil.copyfile(self.path, copy)
        except OSError as error:
            raise LoadFailed("unreadable", str(error)) from None
        home = Path(self._scratch) / "home"
        home.mkdir()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "TMPDIR": self._scratch,
            "XDG_DATA_HOME": str(home),
            "XDG_CONFIG_HOME": str(home),
            "XDG_CACHE_HOME": str(home),
            "OBJECTIVES_TUTOR_HOME": str(home / "objectives-tutor"),
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "OMP_NUM_THREADS": "1",
        }
        self._process = subprocess.Popen(
            [sys.executable, "-I", str(CHILD), str(copy), self.function, self.path.name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self._scratch,
            env=env,
            start_new_session=True,
            preexec_fn=lambda: _limits(self.memory, self.cpu_seconds),
        )
        threading.Thread(target=self._drain, daemon=True).start()
        message = self._receive(START_LIMIT_S, starting=True)
        self.start_seconds = time.perf_counter() - started
        if "load" in message:
            kind = message["load"]
            self.close()
            raise LoadFailed(kind, message.get("message", ""), message.get("line"))

    def _drain(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        for raw in iter(lambda: self._process.stderr.readline(), b""):
            self._stderr.append(raw.decode("utf-8", "replace"))
            if len(self._stderr) > 200:
                del self._stderr[:100]

    def _receive(self, limit: float, starting: bool = False) -> dict:
        assert self._process is not None and self._process.stdout is not None
        began = time.perf_counter()
        selector = selectors.DefaultSelector()
        selector.register(self._process.stdout, selectors.EVENT_READ)
        try:
            ready = selector.select(timeout=limit)
        finally:
            selector.close()
        if not ready:
            self.close()
            raise SandboxStopped("time", f"no answer within {limit:g} s", time.perf_counter() - began)
        line = self._process.stdout.readline()
        if not line:
            code = self._process.wait()
            self.close()
            kind = "memory" if code in (-signal.SIGKILL, -signal.SIGSEGV, -signal.SIGABRT) else "died"
            if code in (-signal.SIGXCPU,):
                kind = "cpu"
            if starting and kind == "died":
                raise LoadFailed("died", f"the child exited with status {code}: {self.printed()[-300:]}")
            raise SandboxStopped(kind, f"the process ended with status {code}", time.perf_counter() - began)
        return json.loads(line)

    def call(self, *args, limit: float | None = None, global_seed: int = 0):
        """Call the learner's function; its result decoded into torch values."""
        if self._process is None:
            raise SandboxStopped("died", "the sandbox is not running", 0.0)
        self.calls += 1
        request = json.dumps({"args": _wire(list(args)), "global_seed": global_seed}) + "\n"
        try:
            assert self._process.stdin is not None
            self._process.stdin.write(request.encode())
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            self.close()
            raise SandboxStopped("died", "the process ended", 0.0) from None
        reply = self._receive(self.call_limit if limit is None else limit)
        if "error" in reply:
            raise LearnerError(reply["error"], reply.get("message", ""), reply.get("line"))
        return decode(reply["ok"])

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
