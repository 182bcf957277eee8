"""The code lab's sandbox against a student who wants to harm the teacher (issue 20).

Each attack runs as a learner's file would: from the file's top level and from inside
the graded function, through ``Sandbox`` (both ways a child starts: forked by the fork
server, and forked once by a fresh interpreter when there is none), and through the real
entry points, ``objectives-tutor lab check`` and ``objectives-tutor quiz grade`` of a
submitted file. The evidence is the test's own wherever it can be (files the test made
and compares byte for byte, listeners the test opened, a process the test started, the
processes alive afterwards), the attack's own report otherwise.

The fork and thread bombs here are bounded (64 processes, 2,000 threads) so that running
this file against a sandbox without isolation (to see it fail) does not take the machine
down. Nothing here runs ``kill(-1)``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from exercises.lab import sandbox
from exercises.lab.checks import run_check
from exercises.lab.sandbox import Sandbox, SandboxStopped
from exercises.lab.tasks import BY_ID, TASKS, solution

ROOT = Path(__file__).resolve().parents[1]
NO_ISOLATION = "OBJECTIVES_TUTOR_LAB_NO_ISOLATION"


def _isolated() -> bool:
    try:
        from exercises.lab.isolation import probe
    except ImportError:  # a sandbox from before isolation: the attacks must fail all the same
        return True
    return probe().isolated


needs_isolation = pytest.mark.skipif(not _isolated(), reason="this machine offers no Landlock/seccomp")


@pytest.fixture(params=["fork-server", "fresh-process"])
def start_path(request, monkeypatch):
    """Both ways a child starts: the same set-up code must hold on each."""
    if request.param == "fresh-process":
        monkeypatch.setenv("OBJECTIVES_TUTOR_LAB_NO_ZYGOTE", "1")
    return request.param


def learner_file(folder: Path, attack: str, *, name: str = "10_causal_mask.py") -> Path:
    """A causal_mask file running ``attack`` (code that sets ``out``) at its top level and
    again in the function, which returns both reports."""
    body = textwrap.indent(textwrap.dedent(attack).strip("\n"), "    ")
    source = (
        "import os, sys, json\n\n"
        f"def _attack():\n    out = {{}}\n{body}\n    return out\n\n"
        "AT_LOAD = _attack()\n\n"
        "def causal_mask(n):\n    return [AT_LOAD, _attack()]\n"
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(source, encoding="utf-8")
    return path


def run_attack(path: Path, **options) -> list[dict]:
    """The two reports (top level, function) of one run of ``learner_file`` in the sandbox."""
    with Sandbox(path, "causal_mask", **options) as box:
        return box.call(3)


def tree(folder: Path) -> dict[str, tuple]:
    """Everything about a folder a file operation could change: names, kinds, modes,
    owners, sizes, contents, times, link counts, extended attributes."""
    state = {}
    for path in sorted([folder, *folder.rglob("*")]):
        info = path.lstat()
        digest = (
            hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
        )
        try:
            xattrs = tuple(sorted(os.listxattr(path, follow_symlinks=False)))
        except OSError:
            xattrs = ()
        state[str(path.relative_to(folder))] = (
            stat.S_IFMT(info.st_mode),
            stat.S_IMODE(info.st_mode),
            info.st_uid,
            info.st_gid,
            info.st_size,
            digest,
            info.st_mtime_ns,
            info.st_nlink,
            xattrs,
        )
    return state


def victims(folder: Path) -> Path:
    """A teacher's folder: files, a subfolder, an empty folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "grades.csv").write_text("student,score\nalice,100\n", encoding="utf-8")
    (folder / "notes").mkdir(exist_ok=True)
    (folder / "notes" / "plan.md").write_text("week 7\n", encoding="utf-8")
    (folder / "empty").mkdir(exist_ok=True)
    return folder


# -- files: nothing outside the scratch folder changes -------------------------------------------

FILE_ATTACKS = {
    "remove": "os.remove({file!r})",
    "rmtree": "import shutil; shutil.rmtree({dir!r})",
    "create": "open(os.path.join({dir!r}, 'new.txt'), 'w').write('x')",
    "truncate": "os.truncate({file!r}, 0)",
    "truncate-open": "open({file!r}, 'r+').truncate(0)",
    "open-w": "open({file!r}, 'w')",
    "append": "open({file!r}, 'a').write('x')",
    "rename": "os.rename({file!r}, os.path.join({dir!r}, 'renamed'))",
    "rename-into-scratch": "os.rename({file!r}, 'stolen')",
    "chmod": "os.chmod({file!r}, 0o777)",
    "chmod-fd": "fd = os.open({file!r}, os.O_RDONLY); os.fchmod(fd, 0o777)",
    "chown": "os.chown({file!r}, 4321, 4321)",
    "utime": "os.utime({file!r}, (0, 0))",
    "xattr": "os.setxattr({file!r}, 'user.owned', b'1')",
    "symlink": "os.symlink('/etc/passwd', os.path.join({dir!r}, 'link'))",
    "hardlink": "os.link({file!r}, os.path.join({dir!r}, 'hard'))",
    "hardlink-into-scratch": "os.link({file!r}, 'hard')",
    "mkdir": "os.mkdir(os.path.join({dir!r}, 'made'))",
    "rmdir": "os.rmdir({empty!r})",
    "mkfifo": "os.mkfifo(os.path.join({dir!r}, 'fifo'))",
    "relative": "os.remove(os.path.relpath({file!r}))",
}


def file_attack(names: list[str], folder: Path) -> str:
    lines = []
    for name in names:
        code = FILE_ATTACKS[name].format(
            file=str(folder / "grades.csv"), dir=str(folder), empty=str(folder / "empty")
        )
        lines.append(
            f"try:\n    {code}\n    out[{name!r}] = 'ESCAPED'\n"
            f"except BaseException as error:\n    out[{name!r}] = type(error).__name__\n"
        )
    return "".join(lines)


@needs_isolation
@pytest.mark.parametrize("where", ["outside", "workspace"])
def test_no_file_outside_the_scratch_folder_can_be_changed(where, start_path, tmp_path):
    """Delete, rmtree, create, truncate, rename, chmod, chown, utime, xattr, symlink,
    hardlink, mkdir, rmdir, mkfifo: refused, and the folders are byte for byte as before,
    whether the folder is the teacher's or the learner's own workspace."""
    workspace = tmp_path / "workspace"
    folder = victims(workspace if where == "workspace" else tmp_path / "teacher")
    path = learner_file(workspace, file_attack(list(FILE_ATTACKS), folder))
    before = tree(tmp_path)
    reports = run_attack(path)
    assert tree(tmp_path) == before
    for report in reports:
        assert set(report) == set(FILE_ATTACKS)
        assert "ESCAPED" not in report.values(), report


PATH_NAMES = st.text(alphabet=st.sampled_from("abcxyz019 -_.的文件作业成绩"), min_size=1, max_size=12).filter(
    lambda name: name not in (".", "..") and not name.startswith(".")
)


@needs_isolation
@settings(max_examples=6, deadline=None)
@given(
    names=st.lists(st.sampled_from(sorted(FILE_ATTACKS)), min_size=1, max_size=6, unique=True),
    folder_name=PATH_NAMES,
)
@example(names=["remove", "rmtree", "relative"], folder_name="成绩 grades")
def test_file_attacks_on_any_folder_name_leave_it_alone(names, folder_name):
    """The same family on folders named as teachers name them (spaces, CJK, dots)."""
    with tempfile.TemporaryDirectory() as base, tempfile.TemporaryDirectory() as workspace:
        base = Path(base)
        folder = victims(base / folder_name)
        path = learner_file(Path(workspace), file_attack(names, folder))
        before = tree(base)
        reports = run_attack(path)
        assert tree(base) == before
        assert all(value != "ESCAPED" for report in reports for value in report.values()), reports


@needs_isolation
def test_the_scratch_folder_is_writable_and_removed_afterwards(tmp_path):
    """Where writing is allowed (a scratch file, a folder, a rename there, sqlite in a temp
    file) it works, up to the file-size limit; the folder is gone after the run, even a
    subfolder left without any permission."""
    attack = """
        import tempfile, sqlite3
        with open('mine.txt', 'w') as handle:
            handle.write('hello')
        os.makedirs('sub', exist_ok=True)
        os.replace('mine.txt', os.path.join('sub', 'moved.txt'))
        db = sqlite3.connect(os.path.join(tempfile.gettempdir(), 'scratch.db'))
        db.execute('create table if not exists t (x)')
        db.commit()
        if not os.path.exists('locked'):
            os.mkdir('locked', 0)
        try:
            open('big', 'wb').write(b'x' * (64 << 20))
            out['big'] = 'written'
        except OSError as error:
            out['big'] = error.errno
        out['cwd'] = os.getcwd()
        out['files'] = sorted(os.listdir('.'))
    """
    reports = run_attack(learner_file(tmp_path, attack))
    scratch = reports[0]["cwd"]
    assert Path(scratch).name.startswith("objectives-lab-")
    assert {"sub", "scratch.db", "locked"} <= set(reports[1]["files"])
    assert reports[0]["big"] == errno.EFBIG  # 16 MiB per file at most
    assert not Path(scratch).exists()


# -- the project, the teacher's files, other submissions: unreadable ------------------------------


def plant_secrets(folder: Path) -> dict[str, str]:
    """A class database, a teacher file with PINs, another student's submission: each holds
    a token that must never come back from the sandbox."""
    tokens = {name: f"SECRET-{name}-{uuid.uuid4().hex}" for name in ("db", "pin", "sub")}
    folder.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(folder / "class.db") as db:
        db.execute("create table pins (student, pin)")
        db.execute("insert into pins values ('bob', ?)", (tokens["db"],))
    (folder / "quiz.teacher.toml").write_text(f'[[students]]\nid = "bob"\npin = "{tokens["pin"]}"\n')
    (folder / "subs").mkdir(exist_ok=True)
    (folder / "subs" / "bob.submission.json").write_text(json.dumps({"source": tokens["sub"]}))
    return tokens


def read_attack(paths: list[Path], folders: list[Path]) -> str:
    return (
        f"for path in {[str(p) for p in paths]!r}:\n"
        "    try:\n"
        "        with open(path, 'rb') as handle:\n"
        "            out[path] = handle.read(4000).decode('utf-8', 'replace')\n"
        "    except BaseException as error:\n"
        "        out[path] = 'blocked ' + type(error).__name__\n"
        f"for folder in {[str(f) for f in folders]!r}:\n"
        "    try:\n"
        "        out['ls ' + folder] = sorted(os.listdir(folder))\n"
        "    except BaseException as error:\n"
        "        out['ls ' + folder] = 'blocked ' + type(error).__name__\n"
        "try:\n"
        f"    import sqlite3\n    out['sql'] = repr(sqlite3.connect({str(paths[0])!r}).execute('select * from pins').fetchall())\n"
        "except BaseException as error:\n"
        "    out['sql'] = 'blocked ' + type(error).__name__\n"
    )


PROJECT_FILES = [
    ROOT / "engine" / "masks.py",
    ROOT / "exercises" / "lab" / "checks.py",
    ROOT / "pyproject.toml",
]


@needs_isolation
def test_the_project_the_teachers_files_and_other_submissions_cannot_be_read(start_path, tmp_path):
    """A class database, a teacher file with PINs, another student's submission beside the
    learner's own file and elsewhere, the project's source, another process's memory and
    environment: every read is refused, no folder listed, no token comes back."""
    beside = tmp_path / "workspace"
    tokens = plant_secrets(beside)
    tokens.update({f"far-{k}": v for k, v in plant_secrets(tmp_path / "teacher").items()})
    files = [beside / "class.db", beside / "quiz.teacher.toml", beside / "subs" / "bob.submission.json"]
    files += [tmp_path / "teacher" / "quiz.teacher.toml", *PROJECT_FILES]
    files += [Path(f"/proc/{os.getpid()}/environ"), Path(f"/proc/{os.getpid()}/mem"), Path.home() / ".bashrc"]
    folders = [beside, beside / "subs", tmp_path, ROOT, ROOT / "engine", Path.home(), Path("/proc")]
    reports = run_attack(learner_file(beside, read_attack(files, folders)))
    shown = json.dumps(reports)
    for token in tokens.values():
        assert token not in shown
    assert "def causal_mask" not in shown and "[project]" not in shown  # the engine, pyproject.toml
    for report in reports:
        for key, value in report.items():
            assert isinstance(value, str) and value.startswith("blocked"), (key, value)


UNBLOCK = "sys.meta_path[:] = [m for m in sys.meta_path if type(m).__name__ != '_Blocker']\n"
ENGINE_WAYS = {  # each after taking the import blocker out, as an attacker would
    "the blocker removed": """
        from engine.masks import causal_mask as answer
    """,
    "the checkout on sys.path": f"""
        sys.path.insert(0, {str(ROOT)!r})
        from engine.masks import causal_mask as answer
    """,
    "loaded from its file": f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location('m', {str(ROOT / "engine" / "masks.py")!r})
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        answer = module.causal_mask
    """,
    "exec of its source": f"""
        space = {{}}
        exec(open({str(ROOT / "engine" / "masks.py")!r}).read(), space)
        answer = space['causal_mask']
    """,
}


@pytest.mark.parametrize("way", sorted(ENGINE_WAYS))
def test_the_engine_cannot_be_borrowed_to_pass(way, tmp_path):
    """Importing the engine and returning its answer would pass without writing anything:
    every way to reach it fails, so the task is not passed (the import blocker is only a
    polite first refusal: what stops these is that the project's files cannot be read)."""
    if not _isolated():
        pytest.skip("reading the project's files is refused only by Landlock")
    source = UNBLOCK + textwrap.dedent(ENGINE_WAYS[way]) + "\ndef causal_mask(n):\n    return answer(n)\n"
    path = tmp_path / "10_causal_mask.py"
    path.write_text("import sys\n" + source, encoding="utf-8")
    result = run_check("causal_mask", path)
    assert result.status == "invalid" and not result.passed


@needs_isolation
def test_imports_are_the_standard_library_torch_and_numpy(tmp_path):
    """What the child may read, it may import (numpy, sympy through torch, sqlite3, ctypes);
    a package installed beside them but not granted (hypothesis) is a plain ImportError
    that says why, so code that tries an optional import goes on without it."""
    attack = """
        import importlib
        for name in ('numpy', 'sympy', 'sqlite3', 'ctypes', 'json', 'hypothesis', 'textual'):
            try:
                importlib.import_module(name)
                out[name] = 'imported'
            except ImportError as error:
                out[name] = str(error)
    """
    for report in run_attack(learner_file(tmp_path, attack)):
        assert [report[name] for name in ("numpy", "sympy", "sqlite3", "ctypes", "json")] == ["imported"] * 5
        for name in ("hypothesis", "textual"):
            assert f"has no module {name!r}" in report[name] and "torch and numpy" in report[name]


# -- no processes, no network, no signals ----------------------------------------------------------


def _learner_processes(scratch: str) -> list[int]:
    """Processes whose working folder is (or was, before its removal) this scratch folder."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                where = os.readlink(f"/proc/{entry}/cwd").removesuffix(" (deleted)")
            except OSError:
                continue
            if where == scratch:
                found.append(int(entry))
    return found


def _gone(pids_now, seconds: float = 10.0) -> list[int]:
    """The learner processes still there once the kills have landed (a SIGKILLed process
    takes a moment to leave /proc): polled, not slept."""
    deadline = time.monotonic() + seconds
    while (alive := pids_now()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return alive


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


PROCESS_ATTACKS = {
    "subprocess": "import subprocess; subprocess.run(['true'], check=True)",
    "system": "assert os.system('true') == 0",
    "popen-detached": "import subprocess; subprocess.Popen(['sleep', '30'], start_new_session=True)",
    "fork": "pid = os.fork()\nif pid == 0:\n    os.setsid(); import time; time.sleep(30); os._exit(0)",
    "execv": "os.execv('/bin/true', ['true'])",
    "posix_spawn": "os.posix_spawn('/bin/sleep', ['sleep', '30'], os.environ)",
    "multiprocessing": "import multiprocessing; multiprocessing.Process(target=lambda: None).start()",
}


def process_attack(names) -> str:
    lines = []
    for name in names:
        code = textwrap.indent(PROCESS_ATTACKS[name], "    ")
        lines.append(
            f"try:\n{code}\n    out[{name!r}] = 'ESCAPED'\n"
            f"except BaseException as error:\n    out[{name!r}] = type(error).__name__\n"
        )
    return "".join(lines)


@needs_isolation
def test_no_process_can_be_started(start_path, tmp_path):
    """subprocess, os.system, fork, exec, posix_spawn, multiprocessing: each refused, and no
    process outlives the check (one that left the sandbox's process group would)."""
    attack = process_attack(PROCESS_ATTACKS) + "out['cwd'] = os.getcwd()\n"
    reports = run_attack(learner_file(tmp_path, attack))
    scratch = reports[0].pop("cwd")
    survivors = _gone(lambda: _learner_processes(scratch))
    _kill_all(survivors)
    assert survivors == []
    for report in reports:
        report.pop("cwd", None)
        assert set(report) == set(PROCESS_ATTACKS) and "ESCAPED" not in report.values(), report


@needs_isolation
def test_a_fork_bomb_and_a_thread_bomb_end_at_once(tmp_path):
    """A fork bomb (each process forking six times, the copies leaving the process group)
    and a thread bomb (small stacks, thousands of threads) get nowhere: the first fork and
    the first thread are refused, the function returns at once."""
    attack = """
        import threading, time
        original, forked = os.getpid(), 0
        try:
            for _ in range(6):  # every copy forks on: 64 processes at most
                if os.fork() == 0:
                    forked = 0
                else:
                    forked += 1
        except OSError as error:
            out['fork'] = error.errno
        if os.getpid() != original:  # a copy leaves the process group, and waits
            os.setsid()
            time.sleep(30)
            os._exit(0)
        out['forked'] = forked
        started = 0
        try:
            threading.stack_size(64 * 1024)
            while started < 2000:
                threading.Thread(target=time.sleep, args=(20,), daemon=True).start()
                started += 1
        except RuntimeError as error:
            out['thread'] = str(error)
        out['threads'] = started
        out['cwd'] = os.getcwd()
    """
    reports = run_attack(learner_file(tmp_path, attack))
    survivors = _gone(lambda: _learner_processes(reports[0]["cwd"]))
    _kill_all(survivors)
    assert survivors == []
    for report in reports:
        assert report["forked"] == 0 and report["fork"] == errno.EPERM
        assert report["threads"] == 0 and "thread" in report["thread"]


def _listeners(tmp_path: Path):
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(8)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    unix_path = str(tmp_path / "teacher.sock")
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(unix_path)
    unix.listen(8)
    abstract_name = f"\0objectives-test-{uuid.uuid4().hex}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind(abstract_name)
    abstract.listen(8)
    for each in (tcp, udp, unix, abstract):
        each.setblocking(False)
    return {
        "tcp": (tcp, tcp.getsockname()),
        "udp": (udp, udp.getsockname()),
        "unix": (unix, unix_path),
        "abstract": (abstract, abstract_name),
    }


@needs_isolation
def test_no_socket_connects_anywhere_loopback_included(tmp_path):
    """TCP and UDP to a loopback listener the test opened, a pathname Unix socket (beyond
    Landlock and network namespaces), an abstract one: refused, and nothing arrives."""
    listeners = _listeners(tmp_path)
    targets = {name: address for name, (_sock, address) in listeners.items()}
    attack = f"""
        import socket
        kinds = {{'tcp': (socket.AF_INET, socket.SOCK_STREAM), 'udp': (socket.AF_INET, socket.SOCK_DGRAM),
                 'unix': (socket.AF_UNIX, socket.SOCK_STREAM), 'abstract': (socket.AF_UNIX, socket.SOCK_STREAM)}}
        for name, address in {targets!r}.items():
            try:
                connection = socket.socket(*kinds[name])
                connection.settimeout(3)
                connection.connect(tuple(address) if isinstance(address, list) else address)
                connection.sendall(b'STOLEN')
                out[name] = 'ESCAPED'
            except BaseException as error:
                out[name] = type(error).__name__
        try:
            socket.socketpair()
            out['socketpair'] = 'ESCAPED'
        except BaseException as error:
            out['socketpair'] = type(error).__name__
    """
    try:
        reports = run_attack(learner_file(tmp_path / "ws", attack))
        arrived = []
        for name, (listener, _address) in listeners.items():
            try:
                if name == "udp":
                    arrived.append((name, listener.recv(100)))
                else:
                    arrived.append((name, listener.accept()))
            except BlockingIOError:
                pass
    finally:
        for listener, _address in listeners.values():
            listener.close()
    assert arrived == []
    for report in reports:
        assert "ESCAPED" not in report.values(), report


@needs_isolation
def test_no_signal_reaches_another_process(start_path, tmp_path):
    """A process the test started, the fork server, the test itself: no signal from the
    learner's code reaches them (not even signal 0, which only asks whether they exist)."""
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    zygote = sandbox.get_zygote()
    targets = {"victim": (victim.pid, (0, 9)), "test": (os.getpid(), (0,))}  # never SIGKILL the test itself
    if zygote is not None:
        targets["fork server"] = (zygote.process.pid, (0, 9))
    attack = f"""
        import signal
        for name, (pid, numbers) in {targets!r}.items():
            for number in numbers:
                try:
                    os.kill(pid, number)
                    out[f'{{name}} {{number}}'] = 'ESCAPED'
                except BaseException as error:
                    out[f'{{name}} {{number}}'] = type(error).__name__
        try:
            os.killpg(os.getpgid({victim.pid}), signal.SIGKILL)
            out['group'] = 'ESCAPED'
        except BaseException as error:
            out['group'] = type(error).__name__
        os.kill(os.getpid(), 0)  # itself: allowed
    """
    try:
        reports = run_attack(learner_file(tmp_path, attack))
        assert victim.poll() is None
        assert zygote is None or zygote.alive()
    finally:
        victim.kill()
        victim.wait()
    for report in reports:
        assert "ESCAPED" not in report.values(), report


# -- limits that hold, and a parent that reads only so much --------------------------------------


def test_ten_thousand_open_files_are_refused(tmp_path):
    attack = """
        handles = []
        try:
            for _ in range(10_000):
                handles.append(open(os.devnull))
        except OSError as error:
            out['error'] = error.errno
        out['opened'] = len(handles)
    """
    for report in run_attack(learner_file(tmp_path, attack)):
        assert report["opened"] < 100 and report["error"] == errno.EMFILE


def test_a_hundred_megabytes_printed_without_a_newline_cost_the_parent_nothing(tmp_path):
    """The parent keeps only the end of what the learner printed: its memory does not grow
    with the output (today's lines were read whole)."""
    import tracemalloc

    path = tmp_path / "10_causal_mask.py"
    path.write_text(
        "import sys\n\ndef causal_mask(n):\n"
        "    for _ in range(100):\n        sys.stdout.write('x' * (1 << 20))\n"
        "    sys.stdout.flush()\n    return 'printed'\n"
    )
    tracemalloc.start()
    try:
        with Sandbox(path, "causal_mask") as box:
            assert box.call(3) == "printed"
            tail = box.printed()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(tail) <= 1500
    assert peak < 20 << 20


def _channel_attack(payload: str) -> str:
    """Learner code that finds the protocol's pipe (a write-only FIFO among its files) and
    writes ``payload`` (a Python expression for bytes) on it."""
    return (
        "import fcntl, stat\n\ndef _channel():\n"
        "    for fd in range(3, 64):\n"
        "        try:\n"
        "            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:\n"
        "                return fd\n"
        "        except OSError:\n            pass\n\n"
        "def causal_mask(n):\n"
        "    fd = _channel()\n"
        f"    data = {payload}\n"
        "    for start in range(0, len(data), 1 << 20):\n"
        "        os.write(fd, data[start:start + (1 << 20)])\n"
    )


@pytest.mark.parametrize(
    ("payload", "then", "kind"),
    [
        ("b'x' * (100 << 20)", "    return 1\n", "died"),  # a reply without end
        ("b'{\"ok\": '", "    import time\n    time.sleep(1e6)\n", "time"),  # half a reply, then nothing
        ("b'[' * 100000 + b'\\n'", "    return 1\n", "died"),  # a reply json cannot read
        ('b\'{"ok": {"$t": "manual_seed", "shape": [1], "data": [1]}}\\n\'', "    return 1\n", "died"),
    ],
    ids=["no-end", "half-line", "too-deep", "not-a-dtype"],
)
def test_a_forged_or_endless_reply_stops_the_child_not_the_parent(payload, then, kind, tmp_path):
    """Learner code writing on the protocol's own pipe: without end, half a line and then
    nothing, nesting json cannot read, a tensor of a torch function rather than a dtype:
    the child is stopped (SandboxStopped), within the call's limit, the parent goes on."""
    path = tmp_path / "10_causal_mask.py"
    path.write_text("import os\n" + _channel_attack(payload) + then)
    box = Sandbox(path, "causal_mask", call_limit=3.0)
    box.start()
    try:
        with pytest.raises(SandboxStopped) as stopped:
            box.call(3)
        assert stopped.value.kind == kind
    finally:
        box.close()


def test_a_child_that_stops_reading_cannot_block_the_parent(tmp_path):
    """The learner's code swaps the requests' pipe for one of its own (keeping the real one
    open, unread); a large request (bert_mask's statistics call is 200 KB) then fills the
    pipe: the parent's write gives up at the call's limit instead of waiting for ever."""
    path = tmp_path / "10_causal_mask.py"
    path.write_text(
        "import os, stat, fcntl\n\nKEPT = []\n\ndef causal_mask(n):\n"
        "    for fd in range(3, 64):\n"
        "        try:\n"
        "            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY:\n"
        "                KEPT.append(os.dup(fd))\n"
        "                mine, _ = os.pipe()\n"
        "                os.dup2(mine, fd)\n"
        "                return 'swapped'\n"
        "        except OSError:\n"
        "            pass\n"
    )
    with Sandbox(path, "causal_mask", call_limit=2.0) as box:
        assert box.call(3) == "swapped"
        with pytest.raises(SandboxStopped) as stopped:
            box.call(list(range(300_000)))
        assert stopped.value.kind == "time"


def test_one_bad_file_never_stops_the_others(tmp_path):
    """After each attack above, the next file is checked as usual."""
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "10_causal_mask.py").write_text("import os\n\ndef causal_mask(n):\n    os._exit(3)\n")
    assert run_check("causal_mask", bad / "10_causal_mask.py").status == "stopped"
    good = tmp_path / "good"
    good.mkdir()
    (good / "10_causal_mask.py").write_text(solution(BY_ID["causal_mask"]))
    assert run_check("causal_mask", good / "10_causal_mask.py").passed


# -- the real entry points -------------------------------------------------------------------------


def _cli(args: list[str], cwd: Path, env_extra: dict[str, str] | None = None, timeout: float = 600):
    env = {key: value for key, value in os.environ.items() if key != NO_ISOLATION}
    env.update({"OBJECTIVES_TUTOR_HOME": str(cwd / "home"), **(env_extra or {})})
    return subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "objectives-tutor"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def hostile_files(teacher: Path, listener_port: int, victim_pid: int, marker: str) -> dict[str, str]:
    """One attack per file, each from its top level (once) and its function (named
    FUNCTION, to be replaced by the task's); and a file that borrows the engine's
    causal_mask to pass without writing anything."""
    grades = teacher / "grades.csv"
    secrets = [teacher / "quiz.teacher.toml", teacher / "subs" / "bob.submission.json", teacher / "class.db"]
    attacks = {
        "delete": f"import shutil\nos.remove({str(grades)!r})\nshutil.rmtree({str(teacher / 'notes')!r})",
        "write": f"open({str(teacher / 'owned.txt')!r}, 'w').write('x')\nos.truncate({str(grades)!r}, 0)",
        "process": f"import subprocess\nsubprocess.Popen(['sleep', '30', {marker!r}], start_new_session=True)",
        "network": f"import socket\nsocket.create_connection(('127.0.0.1', {listener_port}), timeout=3).sendall(b'x')",
        "signal": f"import signal\nos.kill({victim_pid}, signal.SIGKILL)",
        "read": f"raise RuntimeError(repr([open(p, errors='replace').read() for p in {[str(p) for p in secrets]!r}]))",
    }
    out = {}
    for name, attack in attacks.items():
        guarded = textwrap.indent(attack, "        ")
        out[name] = (
            "import os, sys\n_done = []\n\ndef _attack():\n    if _done:\n        return\n    _done.append(1)\n"
            f"    try:\n{guarded}\n    except BaseException as error:\n"
            "        raise RuntimeError(f'{type(error).__name__}: {error}') from None\n\n"
            "try:\n    _attack()\nexcept RuntimeError:\n    pass\n\n"
            "def FUNCTION(*args):\n    _done.clear()\n    _attack()\n"
        )
    out["engine"] = (
        "import sys\nsys.meta_path[:] = [m for m in sys.meta_path if type(m).__name__ != '_Blocker']\n"
        "from engine.masks import causal_mask as borrowed\n\ndef FUNCTION(n):\n    return borrowed(n)\n"
    )
    return out


@pytest.fixture
def teacher_machine(tmp_path):
    """The teacher's folder (victims and secrets), a loopback listener, a process of the
    teacher's; cleaned up afterwards, with any process a sandbox let out."""
    teacher = victims(tmp_path / "teacher")
    tokens = plant_secrets(teacher)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
    marker = f"objectives-test-{uuid.uuid4().hex}"
    yield teacher, tokens, listener, victim, marker
    listener.close()
    victim.kill()
    victim.wait()
    _kill_all(_marked(marker))


def _marked(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                continue
    return found


def _nothing_happened(teacher: Path, before: dict, listener, victim, marker: str) -> None:
    assert tree(teacher) == before
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert victim.poll() is None
    assert _gone(lambda: _marked(marker), seconds=2.0) == []


@needs_isolation
def test_lab_check_on_a_hostile_workspace(teacher_machine, tmp_path):
    """`objectives-tutor lab check` on a workspace of attack files: every file is checked,
    none passes, nothing of the teacher's changes, no secret is printed."""
    teacher, tokens, listener, victim, marker = teacher_machine
    workspace = tmp_path / "ws"
    workspace.mkdir()
    files = hostile_files(teacher, listener.getsockname()[1], victim.pid, marker)
    tasks = [BY_ID["causal_mask"], *(task for task in TASKS if task.id != "causal_mask")]
    ordered = sorted(
        files.items(), key=lambda item: item[0] != "engine"
    )  # the engine's file is causal_mask's
    for (_name, source), task in zip(ordered, tasks, strict=False):
        (workspace / task.file_name).write_text(source.replace("FUNCTION", task.function), encoding="utf-8")
    before = tree(teacher)
    done = _cli(["lab", "check", "--dir", str(workspace), "--json", "--lang", "en"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    payload = json.loads(done.stdout)
    assert payload["checked"] == len(files) and payload["passed"] == 0
    _nothing_happened(teacher, before, listener, victim, marker)
    for token in tokens.values():
        assert token not in done.stdout + done.stderr


def _lab_quiz(folder: Path) -> Path:
    from exercises.classroom.quiz import dump_toml, new_quiz

    quiz = new_quiz("Lab", ["lab:causal_mask"], None, "after-submit")
    path = folder / "quiz.toml"
    path.write_text(dump_toml(quiz), encoding="utf-8")
    return path


def _submission(folder: Path, quiz_path: Path, student: str, source: str) -> None:
    """A student's lab file handed in as the exam does it: attached, then submitted."""
    from exercises.classroom.exam import ExamSession
    from exercises.classroom.quiz import loads

    handed = folder.parent / "files" / f"{student}.py"
    handed.parent.mkdir(exist_ok=True)
    handed.write_text(source, encoding="utf-8")
    session = ExamSession.open(loads(quiz_path.read_text(encoding="utf-8")), student, folder)
    session.attach(0, str(handed))
    session.submit()
    session.close()


def _csv_rows(path: Path) -> dict[str, dict[str, str]]:
    import csv

    rows = list(csv.DictReader(path.read_text(encoding="utf-8").splitlines()))
    return {row["student_id"]: row for row in rows}


@needs_isolation
def test_quiz_grade_of_hostile_submissions(teacher_machine, tmp_path):
    """`objectives-tutor quiz grade` of a class where most files attack the teacher: each is
    graded (not passed), the honest file still gets full marks, nothing changes, no secret
    reaches the gradebook, the report or the terminal."""
    teacher, tokens, listener, victim, marker = teacher_machine
    quiz_path = _lab_quiz(tmp_path)
    subs = tmp_path / "subs"
    subs.mkdir()
    files = hostile_files(teacher, listener.getsockname()[1], victim.pid, marker)
    for name, source in files.items():
        _submission(subs, quiz_path, f"mallory-{name}", source.replace("FUNCTION", "causal_mask"))
    _submission(subs, quiz_path, "alice", solution(BY_ID["causal_mask"]))
    before = tree(teacher)
    csv_path, report_path = tmp_path / "grades.csv", tmp_path / "report.md"
    done = _cli(
        [
            "--lang",
            "en",
            "quiz",
            "grade",
            str(quiz_path),
            str(subs),
            "--csv",
            str(csv_path),
            "--report",
            str(report_path),
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    _nothing_happened(teacher, before, listener, victim, marker)
    rows = _csv_rows(csv_path)
    assert rows["alice"]["q1 rule"] == "pass" and rows["alice"]["flags"] == ""
    for name in files:
        assert rows[f"mallory-{name}"]["q1 rule"] not in ("pass", ""), name
    everything = done.stdout + done.stderr + csv_path.read_text() + report_path.read_text()
    for token in tokens.values():
        assert token not in everything


# -- where there is no isolation ---------------------------------------------------------------------


def test_the_probe_says_why_there_is_no_isolation(monkeypatch):
    from exercises.lab import isolation

    monkeypatch.setenv(NO_ISOLATION, "1")
    isolation.probe.cache_clear()
    try:
        report = isolation.probe()
        assert not report.isolated and NO_ISOLATION in report.reasons()["en"]
        assert NO_ISOLATION in report.reasons()["zh"] and "仅供测试" in report.reasons()["zh"]
        monkeypatch.setattr(isolation.platform, "system", lambda: "Darwin")
        isolation.probe.cache_clear()
        mac = isolation.probe()
        assert not mac.isolated and "macOS" in mac.summary()["en"] and "macOS" in mac.summary()["zh"]
        monkeypatch.delenv(NO_ISOLATION)
        monkeypatch.setattr(isolation.platform, "system", lambda: "Linux")
        monkeypatch.setattr(isolation, "_landlock_abi", lambda: 0)
        isolation.probe.cache_clear()
        old = isolation.probe()
        assert not old.isolated and "Landlock" in old.reasons()["en"] and "Landlock" in old.reasons()["zh"]
        assert len(old.missing) == 1
    finally:
        isolation.probe.cache_clear()


def test_without_isolation_lab_check_runs_your_own_code_and_says_so_once(tmp_path):
    """`lab check` of two files where the probe reports no isolation: both are checked,
    one line on stderr says why (stdout stays JSON)."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for task in TASKS[:2]:
        (workspace / task.file_name).write_text(solution(task), encoding="utf-8")
    done = _cli(["lab", "check", "--dir", str(workspace), "--json"], tmp_path, {NO_ISOLATION: "1"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["passed"] == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "WITHOUT isolation" in lines[0] and NO_ISOLATION in lines[0]


def test_without_isolation_quiz_grade_refuses_other_peoples_code(tmp_path):
    """Where the probe reports no isolation, `quiz grade` of a quiz with a lab task stops
    before any file runs (a file that would leave a mark leaves none), in one line naming
    the flag; with the flag it grades, says so, and flags each row that ran a lab file."""
    quiz_path = _lab_quiz(tmp_path)
    subs = tmp_path / "subs"
    subs.mkdir()
    mark = tmp_path / "ran-here"
    source = f"open({str(mark)!r}, 'w').write('x')\n\n" + solution(BY_ID["causal_mask"])
    _submission(subs, quiz_path, "mallory", source)
    _submission(subs, quiz_path, "alice", solution(BY_ID["causal_mask"]))
    csv_path = tmp_path / "grades.csv"
    grade = ["quiz", "grade", str(quiz_path), str(subs), "--csv", str(csv_path)]
    for lang in ("en", "zh"):
        refused = _cli(["--lang", lang, *grade], tmp_path, {NO_ISOLATION: "1"})
        assert refused.returncode == 2
        assert refused.stderr.count("\n") == 1 and "--run-student-code-unisolated" in refused.stderr
        assert "Traceback" not in refused.stderr and not csv_path.exists() and not mark.exists()
    assert "无法隔离" in refused.stderr
    accepted = _cli(["--lang", "en", *grade, "--run-student-code-unisolated"], tmp_path, {NO_ISOLATION: "1"})
    assert accepted.returncode == 0, accepted.stderr
    assert "WITHOUT isolation" in accepted.stderr and mark.exists()  # it did run, as the flag said
    rows = _csv_rows(csv_path)
    assert rows["alice"]["flags"] == "unisolated" and rows["mallory"]["flags"] == "unisolated"


def test_without_isolation_a_quiz_without_lab_tasks_grades_as_before(tmp_path, monkeypatch):
    from exercises.classroom.grading import grade_class, lab_files_unisolated
    from exercises.classroom.quiz import ClassroomError, new_quiz
    from exercises.lab import isolation

    monkeypatch.setenv(NO_ISOLATION, "1")
    isolation.probe.cache_clear()
    try:
        plain = new_quiz("Plain", ["clm-shift"], None, "after-submit")
        assert lab_files_unisolated(plain, False) is False
        assert grade_class(plain, []).grades == []
        lab = new_quiz("Lab", ["lab:causal_mask"], None, "after-submit")
        with pytest.raises(ClassroomError, match="run-student-code-unisolated"):
            grade_class(lab, [])
        assert lab_files_unisolated(lab, True) is True
    finally:
        isolation.probe.cache_clear()


def test_the_unisolated_flag_weakens_nothing_where_isolation_exists(tmp_path):
    """The flag is consent for machines without isolation: here the files are still
    isolated, and no row is flagged."""
    if not _isolated():
        pytest.skip("this machine offers no isolation")
    from exercises.classroom.grading import lab_files_unisolated
    from exercises.classroom.quiz import new_quiz

    assert lab_files_unisolated(new_quiz("Lab", ["lab:causal_mask"], None, "after-submit"), True) is False


async def test_the_lab_screen_says_once_that_code_is_not_isolated(tmp_path, monkeypatch):
    from exercises.lab import isolation
    from exercises.lab.workspace import init
    from tui import sandbox_notice
    from tui.app import TutorApp
    from tui.screens.lab import LabScreen

    monkeypatch.setenv(NO_ISOLATION, "1")
    monkeypatch.setattr(sandbox_notice, "_told", False)
    isolation.probe.cache_clear()
    init(tmp_path)
    app = TutorApp(lang="zh", load_engine=False, still=True)
    notices = []
    monkeypatch.setattr(app, "notify", lambda message, **how: notices.append((message, how)))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(2):
                app.push_screen(LabScreen(tmp_path, watch=False))
                await pilot.pause()
                await app.workers.wait_for_complete()
                await pilot.pause()
                app.pop_screen()
                await pilot.pause()
    finally:
        isolation.probe.cache_clear()
    assert len(notices) == 1
    message, how = notices[0]
    assert "没有隔离" in message and NO_ISOLATION in message
    assert how["severity"] == "warning" and how["markup"] is False


# -- the filter itself, against a plain reading of the policy ----------------------------------------


def run_bpf(program, data: bytes) -> int:
    """A classic-BPF interpreter for the instructions the filter uses."""
    accumulator, pc = 0, 0
    while True:
        code, jt, jf, k = program[pc]
        if code == 0x20:  # ld [k]
            accumulator = int.from_bytes(data[k : k + 4], "little")
            pc += 1
        elif code == 0x15:  # jeq
            pc += 1 + (jt if accumulator == k else jf)
        elif code == 0x35:  # jge
            pc += 1 + (jt if accumulator >= k else jf)
        elif code == 0x06:  # ret
            return k
        else:
            raise AssertionError(f"unexpected instruction {code:#x}")


def policy(arch: str, number: int, args: list[int], pid: int) -> str:
    """The filter's rules, written out plainly from the system calls' names."""
    from exercises.lab import isolation

    names = {value: name for name, value in isolation.SYSCALLS[arch].items()}
    name = names.get(number)
    low = [arg & 0xFFFFFFFF for arg in args]
    if arch == "x86_64" and number >= 0x40000000:
        return "eperm"
    if number > isolation.NEWEST_SYSCALL or name == "clone3":
        return "enosys"
    if name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        return "allow" if low[0] == pid else "eperm"
    if name in ("prlimit64", "sched_setaffinity"):
        return "allow" if low[0] in (0, pid) else "eperm"
    if name == "fcntl":
        return "eperm" if low[1] in (8, 10, 15) else "allow"
    if name == "ioctl":
        return "eperm" if low[1] in (0x8901, 0x8902, 0x5452, 0x5412) else "allow"
    return "eperm" if name in isolation.DENIED else "allow"


def _known_numbers() -> list[int]:
    from exercises.lab import isolation

    return sorted({number for table in isolation.SYSCALLS.values() for number in table.values()})


# the values the filter looks at: fcntl's and ioctl's commands, 0, with and without a high half
ARGUMENTS = st.one_of(
    st.sampled_from([0, 1, 8, 10, 15, 0x8901, 0x8902, 0x5452, 0x5412, (1 << 32) | 8, 2**64 - 1]),
    st.integers(0, 2**64 - 1),
)


# the calls whose arguments the filter reads, and neighbours of the rules
LOOKED_AT = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "prlimit64", "sched_setaffinity")
LOOKED_AT += ("fcntl", "ioctl", "clone", "clone3", "socket", "execve")


@settings(max_examples=400)
@given(
    arch=st.sampled_from(["x86_64", "aarch64"]),
    data=st.data(),
    args=st.lists(ARGUMENTS, min_size=6, max_size=6),
    pid=st.integers(1, 4_194_304),
    use_pid=st.booleans(),
)
def test_the_seccomp_filter_matches_the_policy(arch, data, args, pid, use_pid):
    from exercises.lab import isolation

    if data.draw(st.booleans(), label="one the filter looks into"):
        number = isolation.SYSCALLS[arch][data.draw(st.sampled_from(LOOKED_AT), label="name")]
    else:
        number = data.draw(
            st.one_of(
                st.sampled_from(_known_numbers()),
                st.integers(0, 520),
                st.integers(0x40000000, 0x40000200),
                st.integers(0, 2**32 - 1),
            ),
            label="number",
        )
    if use_pid:
        args[0] = pid | (args[0] & ~0xFFFFFFFF)  # the high half of an int argument is not the pid's
    program = isolation.seccomp_program(arch, pid)
    seen = number.to_bytes(4, "little") + isolation.AUDIT_ARCH[arch].to_bytes(4, "little") + bytes(8)
    seen += b"".join(arg.to_bytes(8, "little") for arg in args)
    verdict = run_bpf(program, seen)
    expected = policy(arch, number, args, pid)
    assert (
        verdict
        == {
            "allow": isolation.SECCOMP_RET_ALLOW,
            "eperm": isolation.SECCOMP_RET_ERRNO | errno.EPERM,
            "enosys": isolation.SECCOMP_RET_ERRNO | errno.ENOSYS,
        }[expected]
    )
    other = isolation.AUDIT_ARCH["aarch64" if arch == "x86_64" else "x86_64"]
    assert (
        run_bpf(program, seen[:4] + other.to_bytes(4, "little") + seen[8:])
        == isolation.SECCOMP_RET_KILL_PROCESS
    )


# What the issue requires, named independently of the module's own table.
MUST_REFUSE = {
    "processes": {"fork", "vfork", "clone", "execve", "execveat"},
    "network": {"socket", "socketpair", "connect", "bind", "sendto", "sendmsg"},
    "other processes": {"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_send_signal"},
    "the system": {"mount", "unshare", "setns", "chroot", "pivot_root", "bpf", "perf_event_open", "keyctl"},
    "the kernel": {"reboot", "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load"},
    "io_uring": {"io_uring_setup", "io_uring_enter", "io_uring_register"},
    "file changes": {"chmod", "fchmod", "fchmodat", "chown", "fchown", "fchownat", "utimensat", "setxattr"},
    "memory beyond RLIMIT_AS": {"memfd_create", "memfd_secret"},
}


@pytest.mark.parametrize("why", sorted(MUST_REFUSE))
def test_the_filter_refuses_what_the_issue_names(why):
    from exercises.lab import isolation

    for arch in isolation.SYSCALLS:
        pid = 4321
        program = isolation.seccomp_program(arch, pid)
        for name in MUST_REFUSE[why]:
            number = isolation.SYSCALLS[arch].get(name)
            if number is None:
                assert arch == "aarch64" and name in ("fork", "vfork", "chmod", "chown"), name
                continue
            data = number.to_bytes(4, "little") + isolation.AUDIT_ARCH[arch].to_bytes(4, "little")
            data += bytes(8 + 6 * 8)
            assert run_bpf(program, data) == isolation.SECCOMP_RET_ERRNO | errno.EPERM, (arch, name)


def test_every_jump_lands_inside_the_filter():
    from exercises.lab import isolation

    for arch in isolation.SYSCALLS:
        program = isolation.seccomp_program(arch, 1234)
        assert len(program) < 4096 and program[-1] == (0x06, 0, 0, isolation.SECCOMP_RET_ALLOW)
        for index, (code, jt, jf, _k) in enumerate(program):
            if code in (0x15, 0x35):
                assert index + 1 + max(jt, jf) < len(program) and max(jt, jf) < 256


@pytest.mark.parametrize(
    ("arch", "header"),
    [
        ("x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
        ("aarch64", "/usr/include/asm-generic/unistd.h"),
    ],
)
def test_the_syscall_numbers_are_the_kernels(arch, header):
    """Each number against the kernel's own header (where this machine has it; names newer
    than the header are checked by the shared table from 424 on)."""
    from exercises.lab import isolation

    path = Path(header)
    if not path.exists():
        pytest.skip(f"no {header} here")
    defined = {m[1]: int(m[2]) for m in re.finditer(r"#define __NR(?:3264)?_(\w+)\s+(\d+)", path.read_text())}
    named = {*isolation.DENIED, *isolation.SELF_ONLY, *isolation.SELF_OR_ZERO, *isolation.ENOSYS_CALLS}
    assert [name for name in named if name in defined and name not in isolation.SYSCALLS[arch]] == []
    checked = 0
    for name, number in isolation.SYSCALLS[arch].items():
        if name in defined:
            assert defined[name] == number, name
            checked += 1
        else:
            assert number >= 424, f"{name} is missing from {header} and not in the shared table"
    assert checked > 100


def test_what_the_child_may_read_leaves_the_project_out():
    from exercises.lab import isolation

    grants = dict(isolation.grants())
    packages, checkout = isolation.project_paths()
    assert any(path.endswith(os.sep + "torch") for path in grants)
    for path in grants:
        assert os.path.exists(path)
        for secret in packages + checkout:
            assert not secret.startswith(path.rstrip(os.sep) + os.sep) and secret != path, (path, secret)
        for package in packages:
            assert not path.startswith(package)


@given(
    secrets=st.lists(st.lists(st.sampled_from("abc"), min_size=1, max_size=3), min_size=1, max_size=3),
)
def test_carving_a_folder_grants_everything_but_the_secrets(secrets, tmp_path_factory):
    """``_carve``: every file of the tree is granted exactly when it is not inside a secret."""
    from exercises.lab import isolation

    root = tmp_path_factory.mktemp("tree")
    for a in "abc":
        for b in "abc":
            (root / a / b).mkdir(parents=True, exist_ok=True)
            (root / a / b / "f").write_text("x")
    secret_paths = [str(root.joinpath(*parts)) for parts in secrets]
    granted = isolation._carve(str(root), secret_paths)
    for file in root.rglob("f"):
        inside_secret = any(isolation._inside(str(file), s) for s in secret_paths)
        inside_grant = any(isolation._inside(str(file), g) for g in granted)
        assert inside_grant != inside_secret, file
