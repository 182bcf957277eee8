"""Run a learner's file in a child process: isolated, limited, stopped on time.

The child (``child.py``) loads the file and answers calls to one function; the checks
run here, in the trusted process, so nothing the learner's code does can mark a rule as
passed. Where the kernel offers it (``exercises.lab.isolation``: Landlock and seccomp),
the child reads only Python, torch and the system's libraries, writes only in a scratch
folder removed afterwards, starts no process or thread, opens no socket and signals no
other process; its privileges are dropped, for root too. Everywhere: the address space
(RLIMIT_AS, default 1 GiB; torch itself needs about 0.3), CPU seconds for the whole
child (RLIMIT_CPU), open files, file sizes, no core dumps, a wall-clock limit on every
call (the child's process group is killed when it is exceeded), and a bound on every
byte read from the child (a reply line, the printed output). The scratch folder is
also its HOME, TMPDIR, XDG directories and OBJECTIVES_TUTOR_HOME.

Children are forked from a "zygote" that has imported torch once (milliseconds instead
of a second per file); if the zygote cannot run, each child is started from scratch
instead, and set up by the same code.

Whether other people's files may run where there is no isolation is decided by the
caller (``quiz grade`` refuses unless the teacher asks): ``Sandbox.isolated`` says which.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import math
import os
import re
import select
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

from exercises.lab import isolation
from exercises.lab.child import Opaque, encode

CHILD = Path(__file__).with_name("child.py")
MEMORY_LIMIT = 1 << 30
CPU_LIMIT_S = 120
CALL_LIMIT_S = 5.0
START_LIMIT_S = 60.0  # torch's import on a loaded 2-core machine
# One file's whole check: the seconds its child may take to answer all the calls together
# (loading aside). A reference solution's check waits 0.1-1.5 s for its answers (8 s in
# all on a loaded machine); a file that sleeps a second before each call would otherwise
# take 15 minutes and still pass.
CHECK_LIMIT_S = 60.0
REPLY_LIMIT = 64 << 20  # bytes in one reply line (2,000,000 floats, as JSON, is about 40 MB)
# What one reply may decode to, counted in its bytes before anything is built (a reply of
# 64 MB of "{}," would be 21 million dicts): the checks' largest honest reply holds 300,000
# values in 23 lists and dicts, a whole check's replies 432,000 values.
REPLY_CONTAINERS = 100_000  # lists and dicts in one reply
REPLY_VALUES = 4_000_000  # values in one reply (two tensors at the child's 2,000,000 elements)
FILE_VALUES = 8_000_000  # values in all the replies of one file's check (the parent keeps them)
REPLY_DEPTH = 32  # lists and dicts inside one another
REPLY_DIMENSIONS = 8  # a tensor's shape
REPLY_DTYPES = frozenset(
    ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]
)  # what the child's encode writes (complex numbers cannot be written as JSON)
PRINTED_KEPT = 64 << 10  # bytes of the learner's output kept (the last ones)


class LoadFailed(Exception):
    """The file could not be loaded: kind is syntax | import | crash | missing | unreadable |
    died | sandbox (the isolation could not be put in place, so the file was not run)."""

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
    """A torch.Generator seeded in the child: the learner receives the real thing. With
    ``keep``, every call naming the same seed receives the same generator, its stream
    going on from call to call (as the engine's one generator does over a training run)."""

    seed: int
    keep: bool = False


def _wire(value):
    if isinstance(value, Generator):
        return {"$gen": value.seed, "$keep": 1} if value.keep else {"$gen": value.seed}
    if isinstance(value, tuple):
        return {"$tuple": [_wire(item) for item in value]}
    if isinstance(value, list):
        return [_wire(item) for item in value]
    return encode(value)


def _child_env(home: Path, scratch: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",  # not the teacher's (nothing can be run anyway)
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


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)  # SIGINT is Python's KeyboardInterrupt already


@contextlib.contextmanager
def cleaned_up_on_signals():
    """Around a command that runs learner files (``lab check``, ``lab watch``): SIGTERM
    and SIGHUP end it as SystemExit (exit 128 + the signal) instead of at once, so that
    every sandbox is closed on the way out (its child's process group killed, its
    scratch folder removed) and the fork server stopped (atexit): a terminated check
    left its scratch folder in /tmp. Only the main thread can take signals; elsewhere
    this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(signum, _frame) -> None:
        raise SystemExit(128 + signum)

    previous = {number: signal.signal(number, end) for number in ENDING_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


class _TooLarge(Exception):
    pass


class _Lines:
    """Lines from a child's pipe, each bounded in bytes and in time: a child that writes
    without end, or half a line and then nothing, cannot hold the parent."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.scanned = 0
        self.poll = select.poll()
        self.poll.register(fd, select.POLLIN)

    def line(self, deadline: float, limit: int) -> bytes | None:
        """The next line (without its newline); None at the end of the pipe."""
        while True:
            end = self.buffer.find(b"\n", self.scanned)
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                self.scanned = 0
                return line
            self.scanned = len(self.buffer)
            if len(self.buffer) > limit:
                raise _TooLarge
            left = deadline - time.monotonic()
            if left <= 0 or not self.poll.poll(left * 1000):
                raise TimeoutError
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk


def _write_all(fd: int, data: bytes, deadline: float) -> None:
    """Write to a child that may have stopped reading, within the deadline (the pipe is non-blocking)."""
    poll = select.poll()
    poll.register(fd, select.POLLOUT)
    view = memoryview(data)
    while view:
        left = deadline - time.monotonic()
        if left <= 0 or not poll.poll(left * 1000):
            raise TimeoutError
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            continue


class _Unreadable(Exception):
    """A reply that is not what the child's ``encode`` writes, or more than a reply may hold."""


def _count(line: bytes) -> tuple[int, int]:
    """Upper bounds on the lists and dicts, and on the values, that ``json.loads(line)``
    would build, from the bytes alone (C speed, before anything is built): every value but
    the first of a list or dict follows a comma or a colon, and the same characters inside
    strings only over-count."""
    containers = line.count(b"{") + line.count(b"[")
    return containers, containers + line.count(b",") + line.count(b":") + 1


_SURROGATES = re.compile("[\ud800-\udfff]")


def _text(value: object) -> str:
    """A string from the child that can be printed and written as UTF-8: JSON's ``\\ud800``
    decodes to a lone surrogate, which no terminal or file encoding accepts."""
    return _SURROGATES.sub("\ufffd", str(value))


def decode_reply(value, depth: int = 0):
    """What the child's ``encode`` writes, and nothing else, read in the parent: tensors
    of the dtypes it writes, with as many elements as their shape says (at most
    REPLY_DIMENSIONS of them), tuples, dicts of pairs, opaque values, strings without
    lone surrogates, ints within 64 bits, nested at most REPLY_DEPTH deep. A child never
    sends a generator (``encode`` writes a Generator as opaque), so ``$gen`` is refused
    rather than built. _Unreadable (or the error torch raises) for anything else."""
    if depth > REPLY_DEPTH:
        raise _Unreadable("nested too deep")
    if value is None or isinstance(value, bool | float):
        return value
    if isinstance(value, int):
        if abs(value) > 2**63:
            raise _Unreadable("an int beyond 64 bits")
        return value
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list):
        return [decode_reply(item, depth + 1) for item in value]
    if not isinstance(value, dict) or len(value) > 3:
        raise _Unreadable("not a value the child writes")
    if "$t" in value:
        return _tensor(value)
    if isinstance(value.get("$tuple"), list) and len(value) == 1:
        return tuple(decode_reply(item, depth + 1) for item in value["$tuple"])
    if isinstance(value.get("$dict"), list) and len(value) == 1:
        pairs = value["$dict"]
        if not all(isinstance(pair, list) and len(pair) == 2 for pair in pairs):
            raise _Unreadable("not a dict")
        return {decode_reply(k, depth + 1): decode_reply(v, depth + 1) for k, v in pairs}
    if isinstance(value.get("$repr"), str) and len(value) == 1:
        return Opaque({"$repr": _text(value["$repr"])[:200]})
    if isinstance(value.get("$toolarge"), list) and len(value) == 1:
        shape = value["$toolarge"]
        if len(shape) > REPLY_DIMENSIONS or not all(type(size) is int and size >= 0 for size in shape):
            raise _Unreadable("not a shape")
        return Opaque({"$toolarge": shape})
    raise _Unreadable("not a value the child writes")  # "$gen" among them


def _tensor(value: dict):
    import torch

    name, shape, data = value.get("$t"), value.get("shape"), value.get("data")
    if name not in REPLY_DTYPES or set(value) != {"$t", "shape", "data"}:
        raise _Unreadable("not a dtype the child writes")
    if not (
        isinstance(shape, list)
        and len(shape) <= REPLY_DIMENSIONS
        and all(type(size) is int and size >= 0 for size in shape)
    ):
        raise _Unreadable("not a shape")
    if not isinstance(data, list) or math.prod(shape) != len(data):
        raise _Unreadable("not as many elements as the shape says")
    dtype = getattr(torch, name)
    flat = torch.tensor(data, dtype=torch.int8 if dtype == torch.bool else dtype)
    if flat.dim() != 1:  # nested lists in place of numbers
        raise _Unreadable("not a flat list of numbers")
    return flat.to(dtype).reshape(shape)


def _remove_tree(path: str) -> None:
    """The scratch folder, whatever the learner's code left in it (a folder made without
    any permission cannot be listed or emptied until its mode is set back)."""

    def unlock(_function, target, _error) -> None:
        for folder in (target, os.path.dirname(target)):
            if os.path.isdir(folder) and not os.path.islink(folder):
                with contextlib.suppress(OSError):
                    os.chmod(folder, 0o700)
        with contextlib.suppress(OSError):
            if os.path.isdir(target) and not os.path.islink(target):
                shutil.rmtree(target, ignore_errors=True)
            else:
                os.unlink(target)

    handler = {"onexc": unlock} if sys.version_info >= (3, 12) else {"onerror": unlock}  # renamed in 3.12
    shutil.rmtree(path, **handler)
    shutil.rmtree(path, ignore_errors=True)


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
        total_limit: float | None = None,
        values_limit: int | None = None,
    ) -> None:
        """``total_limit``: seconds of waiting for answers, all calls together (a check of
        one file; None for a training run, whose calls go on for minutes); ``values_limit``:
        values in all the answers together (the checks keep every answer)."""
        self.path = Path(path)
        self.total_limit, self.values_limit = total_limit, values_limit
        self.waited = 0.0  # seconds spent waiting for the child's answers (loading aside)
        self.values = 0  # the values its answers held, counted before they were read
        self.stopped: SandboxStopped | None = None  # why the child was stopped during a call
        self.start_limit = START_LIMIT_S if start_limit is None else start_limit
        self.function = function
        self.memory, self.cpu_seconds = memory, cpu_seconds
        self.call_limit = CALL_LIMIT_S if call_limit is None else call_limit
        self.start_seconds = 0.0
        self.calls = 0
        self.isolated = False  # set by start(): the machine's isolation held this child
        self._printed = bytearray()
        self._printed_lock = threading.Lock()
        self._pid: int | None = None
        self._popen: subprocess.Popen | None = None
        self._stdin: int | None = None
        self._lines: _Lines | None = None
        self._scratch: str | None = None

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def printed(self) -> str:
        """The last things the learner's code printed (stdout and stderr)."""
        with self._printed_lock:
            tail = bytes(self._printed[-PRINTED_KEPT:])
        return tail.decode("utf-8", "replace")[-1500:]

    def start(self) -> None:
        started = time.perf_counter()
        self.isolated = isolation.probe().isolated
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
        request = {
            "path": str(copy),
            "function": self.function,
            "shown": self.path.name,
            "cwd": self._scratch,
            "env": env,
            "memory": self.memory,
            "cpu": self.cpu_seconds,
            "isolate": self.isolated,
        }
        child_in, parent_in = os.pipe()
        parent_out, child_out = os.pipe()
        parent_err, child_err = os.pipe()
        try:
            zygote = get_zygote()
            if zygote is not None:
                with contextlib.suppress(OSError):
                    self._pid = zygote.spawn(request, [child_in, child_out, child_err])
            if self._pid is None:
                self._popen = subprocess.Popen(
                    [sys.executable, "-I", str(CHILD), "--once", json.dumps(request)],
                    stdin=child_in,
                    stdout=child_out,
                    stderr=child_err,
                    cwd=self._scratch,
                    env=env,
                    start_new_session=True,
                )
                self._pid = self._popen.pid
        except OSError as error:
            for fd in (parent_in, parent_out, parent_err):
                os.close(fd)
            self.close()
            raise LoadFailed("died", f"the lab could not start a process: {error}") from None
        finally:
            for fd in (child_in, child_out, child_err):
                os.close(fd)
        os.set_blocking(parent_in, False)
        self._stdin, self._lines = parent_in, _Lines(parent_out)
        threading.Thread(target=self._drain, args=(parent_err,), daemon=True).start()
        message = self._receive(self.start_limit, starting=True)
        self.start_seconds = time.perf_counter() - started
        if "load" in message:
            self.close()
            raise LoadFailed(
                _text(message["load"])[:20], _text(message.get("message", ""))[:2000], _line(message)
            )

    def _drain(self, fd: int) -> None:
        """The learner's output, read as it comes (so that the child never blocks on a full
        pipe) and kept only at its end. This thread owns the pipe: it ends, and closes it,
        when the child is gone."""
        try:
            while chunk := os.read(fd, 1 << 16):
                with self._printed_lock:
                    self._printed += chunk
                    if len(self._printed) > 2 * PRINTED_KEPT:
                        del self._printed[:-PRINTED_KEPT]
        except OSError:
            pass
        finally:
            os.close(fd)

    def _receive(self, limit: float, starting: bool = False) -> dict:
        began = time.perf_counter()
        if self._lines is None:
            raise SandboxStopped("died", "the sandbox is not running", 0.0)
        left = None if self.total_limit is None or starting else self.total_limit - self.waited
        slow = left is not None and left < limit  # this wait ends with the file's own time
        try:
            line = self._lines.line(time.monotonic() + (min(limit, left) if slow else limit), REPLY_LIMIT)
        except TimeoutError:
            self.close()
            seconds = time.perf_counter() - began
            if slow:
                raise SandboxStopped(
                    "slow", f"{self.total_limit:g} s of answers used up", self.waited + seconds
                ) from None
            raise SandboxStopped("time", f"no answer within {limit:g} s", seconds) from None
        except _TooLarge:
            line, why = b"", f"it sent more than {REPLY_LIMIT >> 20} MB in one answer"
        else:
            why = "it sent something the lab cannot read"
        finally:
            if not starting:
                self.waited += time.perf_counter() - began
        if line is None:
            code = self._popen.wait() if self._popen is not None else None
            self.close()
            kind = "cpu" if code == -signal.SIGXCPU else "died"
            if starting:
                raise LoadFailed("died", f"the process ended ({code}): {self.printed()[-300:]}")
            raise SandboxStopped(kind, "the process ended", time.perf_counter() - began)
        containers, values = _count(line)
        self.values += values
        message = None
        if containers > REPLY_CONTAINERS or values > REPLY_VALUES:
            why = f"it sent more than {REPLY_VALUES:,} values or {REPLY_CONTAINERS:,} lists in one answer"
        elif self.values_limit is not None and self.values > self.values_limit:
            why = f"it sent more than {self.values_limit:,} values in all"
        else:
            with contextlib.suppress(ValueError, RecursionError):
                message = json.loads(line)
        if not isinstance(message, dict):
            self.close()
            if starting:
                raise LoadFailed("died", why)
            raise SandboxStopped("died", why, time.perf_counter() - began)
        return message

    def call(self, *args, limit: float | None = None, global_seed: int = 0):
        """Call the learner's function; its result decoded into torch values. Once the child
        was stopped, every call raises that first stop again (``stopped``)."""
        if self.stopped is not None:
            raise self.stopped
        try:
            return self._call(args, limit, global_seed)
        except SandboxStopped as error:
            self.stopped = error
            raise

    def _call(self, args: tuple, limit: float | None, global_seed: int):
        if self._stdin is None:
            raise SandboxStopped("died", "the sandbox is not running", 0.0)
        self.calls += 1
        limit = self.call_limit if limit is None else limit
        request = json.dumps({"args": _wire(list(args)), "global_seed": global_seed}) + "\n"
        try:
            _write_all(self._stdin, request.encode(), time.monotonic() + limit)
        except TimeoutError:
            self.close()
            raise SandboxStopped("time", f"no answer within {limit:g} s", limit) from None
        except OSError:
            self.close()
            raise SandboxStopped("died", "the process ended", 0.0) from None
        reply = self._receive(limit)
        if "error" in reply:
            raise LearnerError(
                _text(reply["error"])[:100], _text(reply.get("message", ""))[:1000], _line(reply)
            )
        try:
            return decode_reply(reply["ok"])
        except Exception:  # RecursionError too: a reply written by the learner's code, not by encode
            self.close()
            raise SandboxStopped("died", "it sent something the lab cannot read", 0.0) from None

    def close(self) -> None:
        pid, self._pid = self._pid, None
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
        if self._popen is not None:
            self._popen.wait()
            self._popen = None
        for fd in (self._stdin, None if self._lines is None else self._lines.fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._stdin = self._lines = None
        if self._scratch is not None:
            _remove_tree(self._scratch)
            self._scratch = None


def _line(message: dict) -> int | None:
    line = message.get("line")
    return line if type(line) is int and 0 < line < 10_000_000 else None
