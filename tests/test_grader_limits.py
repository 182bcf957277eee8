"""The grader's own limits (issue 31, "The grader's own limits").

What the parent reads from a learner's child (a reply on the protocol's pipe, an
exception's text, the printed output) and from files a teacher is handed (submissions,
handouts, teacher files, rosters) is bounded before it is built or read, and a file that
takes too long is stopped by a deadline the parent keeps. Every test runs the real thing:
a real sandboxed child, real files, the real command line; caps are made small by the
test (never a long sleep).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from exercises.lab import sandbox
from exercises.lab.checks import run_check
from exercises.lab.sandbox import LearnerError, Sandbox, SandboxStopped
from exercises.lab.tasks import BY_ID, solution
from tests.test_sandbox import _channel_attack

ROOT = Path(__file__).resolve().parents[1]


def _channel_file(tmp_path: Path, payload: str, then: str = "    return 1\n") -> Path:
    """A causal_mask file whose function writes ``payload`` (a Python expression for
    bytes) on the protocol's own pipe, as learner code can."""
    path = tmp_path / "10_causal_mask.py"
    path.write_text("import os\n" + _channel_attack(payload) + then)
    return path


def _forged(tmp_path: Path, reply: str) -> SandboxStopped:
    """The SandboxStopped a forged reply (a JSON text) ends in."""
    path = _channel_file(tmp_path, repr(reply.encode() + b"\n"))
    with Sandbox(path, "causal_mask", call_limit=5.0) as box, pytest.raises(SandboxStopped) as stopped:
        box.call(3)
    return stopped.value


# -- 1. a reply is bounded in what it decodes to, not only in bytes ------------------------------


FORGED = {
    # 1,000 generators: the parent built every one (400,000 took it to 1.3 GB)
    "generators": '{"ok": [' + ", ".join(['{"$gen": 1}'] * 1000) + "]}",
    "a kept generator": '{"ok": {"$gen": 5, "$keep": 1}}',
    # 110,000 empty lists in 330 KB (64 MB of them would be 21 million)
    "containers": '{"ok": [' + "[]," * 110_000 + "[]]}",
    # 4.1 million values in 8 MB (64 MB of them: 32 million)
    "values": '{"ok": [' + "0," * 4_100_000 + "0]}",
    "nested 40 deep": '{"ok": ' + "[" * 40 + "]" * 40 + "}",
    "more elements than the shape": '{"ok": {"$t": "int64", "shape": [2], "data": [1, 2, 3]}}',
    "a shape of 9 dimensions": '{"ok": {"$t": "int64", "shape": [1,1,1,1,1,1,1,1,1], "data": [1]}}',
    "nested data": '{"ok": {"$t": "int64", "shape": [2], "data": [[1, 2], [3, 4]]}}',
    "a dtype the child never writes": '{"ok": {"$t": "complex128", "shape": [1], "data": [1]}}',
    "a quantized dtype": '{"ok": {"$t": "qint8", "shape": [1], "data": [1]}}',
    "a negative size": '{"ok": {"$t": "int64", "shape": [-1], "data": [1]}}',
    "an int beyond 64 bits": '{"ok": ' + "9" * 30 + "}",
    "a plain dict": '{"ok": {"a": 1}}',
    "a dict of pairs that are not": '{"ok": {"$dict": [[1, 2, 3]]}}',
}


@pytest.mark.parametrize("name", sorted(FORGED))
def test_a_forged_reply_is_refused_before_it_is_built(name, tmp_path):
    """Learner code writing on the protocol's pipe what the child's encode never writes:
    the call ends in SandboxStopped, nothing is built (before: a list of 1,000
    torch.Generator, a list of 4.1 million ints, a tensor reshaped from nested lists)."""
    stopped = _forged(tmp_path, FORGED[name])
    assert stopped.kind == "died"


def test_what_the_child_writes_still_reads(tmp_path):
    """The honest encodings, at their sizes: a 2,000,000-element tensor (the child's own
    cap), tuples, dicts of pairs, an opaque value, a bool tensor, an empty tensor."""
    path = tmp_path / "10_causal_mask.py"
    path.write_text(
        "import torch\n\ndef causal_mask(n):\n"
        "    if n == 0:\n        return torch.zeros(2_000_000)\n"
        "    return (torch.ones(2, 3, dtype=torch.bool), {1: 'a', 'b': [1.5, None]}, torch.Generator(), "
        "torch.zeros(0, 4, dtype=torch.int64), 2 ** 62)\n"
    )
    with Sandbox(path, "causal_mask") as box:
        large = box.call(0)
        assert large.shape == (2_000_000,)
        mask, mapping, opaque, empty, big = box.call(3)
    assert mask.dtype.is_floating_point is False and mask.all() and mask.shape == (2, 3)
    assert mapping == {1: "a", "b": [1.5, None]}
    assert "Generator" in repr(opaque)
    assert empty.shape == (0, 4) and big == 2**62


def test_all_the_answers_of_one_check_are_bounded_together(tmp_path):
    """Each answer within the bounds, many of them: the parent keeps every answer of a
    check, so their values are counted together (values_limit) and the file is stopped."""
    path = tmp_path / "10_causal_mask.py"
    path.write_text("def causal_mask(n):\n    return [0] * 100_000\n")
    with Sandbox(path, "causal_mask", values_limit=350_000) as box:
        for _ in range(3):
            assert len(box.call(3)) == 100_000
        with pytest.raises(SandboxStopped) as stopped:
            box.call(3)
    assert stopped.value.kind == "died" and "350,000" in stopped.value.detail


# -- 2. a wall-clock cap per file, kept by the parent ---------------------------------------------


def test_a_file_that_sleeps_before_every_call_is_stopped_as_too_slow(tmp_path):
    """Each call well within its own limit, the check's total too much: stopped by the
    parent's deadline (the child says nothing of it), kind "slow"."""
    path = tmp_path / "10_causal_mask.py"
    path.write_text("import time\n\ndef causal_mask(n):\n    time.sleep(0.2)\n    return n\n")
    with Sandbox(path, "causal_mask", call_limit=5.0, total_limit=0.5) as box:
        assert box.call(1) == 1 and box.call(2) == 2
        with pytest.raises(SandboxStopped) as stopped:
            box.call(3)
    assert stopped.value.kind == "slow"
    assert stopped.value.seconds < 2.0


def test_a_child_that_never_answers_ends_at_the_files_cap_not_the_calls(tmp_path):
    path = tmp_path / "10_causal_mask.py"
    path.write_text("import time\n\ndef causal_mask(n):\n    time.sleep(1e6)\n")
    with (
        Sandbox(path, "causal_mask", call_limit=30.0, total_limit=0.5) as box,
        pytest.raises(SandboxStopped) as stopped,
    ):
        box.call(3)
    assert stopped.value.kind == "slow" and stopped.value.seconds < 5.0


def _sleepy_solution(task_id: str, seconds: float) -> str:
    """The reference solution of a task, sleeping before each call."""
    task = BY_ID[task_id]
    return (
        solution(task) + f"\n\nimport time as _time\n_right = {task.function}\n\n"
        f"def {task.function}(*args, **kwargs):\n    _time.sleep({seconds})\n    return _right(*args, **kwargs)\n"
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lab_check_says_too_slow_in_both_languages(lang, tmp_path, monkeypatch):
    """A correct bert_mask that sleeps before each call: stopped, not passed, and told so."""
    from tui.lab_render import render_result

    path = tmp_path / "06_bert_mask.py"
    path.write_text(_sleepy_solution("bert_mask", 0.05))
    result = run_check("bert_mask", path, check_limit=0.5)
    assert result.status == "stopped" and not result.passed
    said = result.message[lang]
    assert ("Too slow" in said and "0.5 s" in said) if lang == "en" else ("太慢" in said and "0.5 秒" in said)
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(render_result(result, BY_ID["bert_mask"], lang))
    assert said[:10] in console.export_text()


def test_quiz_grade_gives_no_marks_to_a_file_past_its_cap(tmp_path, monkeypatch):
    """The same file in a quiz: stopped at the cap (made small here), score 0, stated."""
    from exercises.lab.grading import grade_source

    monkeypatch.setattr(sandbox, "CHECK_LIMIT_S", 0.5)
    graded = grade_source("bert_mask", _sleepy_solution("bert_mask", 0.05))
    assert graded.score == 0.0 and graded.status == "stopped"
    assert "Too slow" in graded.feedback["en"] and "太慢" in graded.feedback["zh"]


def test_the_documented_limits_are_the_codes():
    """docs/code-lab.md states the numbers the sandbox keeps."""
    text = " ".join((ROOT / "docs" / "code-lab.md").read_text(encoding="utf-8").split())
    assert f"{sandbox.CALL_LIMIT_S:g} s of wall-clock time per call" in text
    assert f"{sandbox.CHECK_LIMIT_S:g} s for all the calls of one file's check" in text
    assert f"{sandbox.START_LIMIT_S:g} s to load" in text


# -- 4, 5. what the learner's code says reaches the terminal as plain text ------------------------


HOSTILE_TEXT = "\\ud800 \\x1b]0;owned\\x07 \\x1b[2J \\x9b31m \\u202e evil \\x07"


def _hostile_task(tmp_path: Path) -> Path:
    """A causal_mask file that prints escapes and raises with a lone surrogate and escapes."""
    folder = tmp_path / "lab"
    folder.mkdir()
    path = folder / "10_causal_mask.py"
    path.write_text(
        "import sys\n\ndef causal_mask(n):\n"
        f"    sys.stdout.write('{HOSTILE_TEXT}')\n"
        f"    raise ValueError('{HOSTILE_TEXT}')\n"
    )
    return folder


def test_a_lone_surrogate_in_the_learners_exception_is_read(tmp_path):
    path = _hostile_task(tmp_path) / "10_causal_mask.py"
    with Sandbox(path, "causal_mask") as box, pytest.raises(LearnerError) as raised:
        box.call(3)
    raised.value.message.encode("utf-8")  # no lone surrogate left
    assert "\ufffd" in raised.value.message


def _lab_check(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "OBJECTIVES_TUTOR_LAB_NO_ISOLATION"}
    env.update(OBJECTIVES_TUTOR_HOME=str(folder.parent / "home"), LANG="C.UTF-8")
    return subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "objectives-tutor"), "lab", "check", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        timeout=300,
    )


@pytest.mark.slow
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_lab_check_prints_the_learners_words_as_plain_text(as_json, tmp_path):
    """`lab check` and `lab check --json` of a file whose exception holds a lone surrogate
    and whose output and exception hold escape sequences (OSC, CSI, C1 CSI, BEL, a bidi
    override): exit 1 (a rule broken), no traceback, UTF-8 out, and not one control
    character or bidi override on the terminal (before: a UnicodeEncodeError traceback)."""
    done = _lab_check(_hostile_task(tmp_path), *(["--json"] if as_json else []))
    assert done.returncode == 1, done.stderr.decode(errors="replace")[-2000:]
    assert b"Traceback" not in done.stderr
    out = done.stdout.decode("utf-8")
    if as_json:
        json.loads(out)  # one JSON line
    allowed = {"\n"}
    bad = [c for c in out if (ord(c) < 32 or 0x7F <= ord(c) <= 0x9F) and c not in allowed]
    assert bad == [], repr(out[-1500:])
    assert not any(c in out for c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert "owned" in out  # said, as text


def test_the_lab_renderer_leaves_no_control_character():
    """The renderer shared by `lab check`, `lab watch` and the lab screen: the learner's
    message, output and values (in the table) lose every control and bidi character."""
    from rich.console import Console

    from exercises.lab.checks.core import Failure, LabResult
    from exercises.lab.checks.core import Rule as _Rule  # noqa: F401
    from tui.lab_render import render_result

    raw = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202eevil\x08\x7f"
    result = LabResult("causal_mask", "fail", message={"en": raw, "zh": raw}, printed=raw + "\nline 2")
    task = BY_ID["causal_mask"]
    from exercises.lab.checks.core import RUNS

    result.failure = Failure(RUNS, raw, raw, {"en": raw, "zh": raw})
    console = Console(width=200, record=True, color_system=None)
    console.print(render_result(result, task, "en"))
    out = console.export_text()
    assert not any((ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F for c in out), repr(out)
    assert "\u202e" not in out and "owned" in out and "line 2" in out


# -- 3, 8. files from outside: regular files only, bounded, nesting refused -----------------------


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The real command, with 2 GB of address space (a reader of /dev/zero fails instead of
    taking the machine) and a time limit (a reader of a FIFO is stopped, and fails the test)."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    env = {k: v for k, v in os.environ.items() if k != "OBJECTIVES_TUTOR_LAB_NO_ISOLATION"}
    env.update(OBJECTIVES_TUTOR_HOME=str(cwd / "home"), LANG="C.UTF-8")
    return subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "objectives-tutor"), "--lang", "en", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limited,
    )


def _hostile(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


@pytest.fixture
def quiz_folder(tmp_path):
    """A quiz (text questions, a roster and teacher file) and a folder for submissions."""
    (tmp_path / "roster.csv").write_text("id,name\nalice,Alice\n", encoding="utf-8")
    made = _cli(
        ["quiz", "new", "--title", "T", "--exercises", "clm-shift", "--roster", "roster.csv", "-o", "q.toml"],
        tmp_path,
    )
    assert made.returncode == 0, made.stderr
    (tmp_path / "subs").mkdir()
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fifo", "zero"])
@pytest.mark.parametrize("what", ["submission", "handout", "teacher", "roster"])
def test_a_fifo_or_a_device_is_refused_in_one_line_never_waited_on(what, kind, quiz_folder):
    """A FIFO or /dev/zero where `quiz grade` or `quiz new` reads a file: a one-line
    message, never a wait (a FIFO blocked `quiz grade` for ever) nor an endless read; a
    bad submission is rejected (exit 1) and the others are still graded."""
    folder = quiz_folder
    bad = folder / ("subs/bob.json" if what == "submission" else f"bad-{what}")
    _hostile(bad, kind)
    teacher = ["--teacher", "q.teacher.toml"]
    argv = {
        "submission": ["quiz", "grade", "q.toml", "subs", *teacher],
        "handout": ["quiz", "grade", str(bad), "subs", *teacher],
        "teacher": ["quiz", "grade", "q.toml", "subs", "--teacher", str(bad)],
        "roster": [
            "quiz",
            "new",
            "--title",
            "T",
            "--exercises",
            "clm-shift",
            "--roster",
            str(bad),
            "-o",
            "n.toml",
        ],
    }[what]
    done = _cli(argv, folder)
    assert "Traceback" not in done.stderr
    if what == "submission":
        assert done.returncode == 1
        assert "bob.json" in done.stderr and "not a regular file" in done.stderr
        assert "alice" in done.stdout  # the roster's student still has a row
    else:
        assert done.returncode == 2, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "regular file" in done.stderr


def test_the_reader_refuses_what_is_not_a_regular_file_and_bounds_the_rest(tmp_path):
    from exercises.files import FileRefused, FileTooLarge, read_regular
    from exercises.text import reason_of

    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(FileRefused) as refused:
        read_regular(tmp_path / "fifo", 100)
    assert "管道" in reason_of(refused.value)["zh"]
    with pytest.raises(FileRefused):
        read_regular("/dev/zero", 100)
    with pytest.raises(IsADirectoryError):
        read_regular(tmp_path, 100)
    (tmp_path / "file").write_bytes(b"x" * 101)
    with pytest.raises(FileTooLarge):
        read_regular(tmp_path / "file", 100)
    assert read_regular(tmp_path / "file", 101) == b"x" * 101


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_lab_check_of_a_fifo_or_a_device_is_invalid_not_a_hang(kind, tmp_path):
    """A FIFO or /dev/zero under a task file's name (its digest, its check): "invalid",
    never a read that waits or does not end."""
    from exercises.lab.workspace import file_digest

    path = tmp_path / "06_bert_mask.py"
    _hostile(path, kind)
    assert file_digest(path) is None
    result = run_check("bert_mask", path)
    assert result.status == "invalid"
    assert "regular file" in result.message["en"] and "普通文件" in result.message["zh"]


NESTED = "x = " + "[" * 5000 + "]" * 5000 + "\n"


def test_a_deeply_nested_handout_is_an_invalid_file_not_an_internal_error(tmp_path):
    from exercises.classroom.quiz import QuizFileError, load

    (tmp_path / "q.toml").write_text(NESTED)
    with pytest.raises(QuizFileError) as refused:
        load(tmp_path / "q.toml")
    assert "nested too deep" in refused.value.text["en"] and "嵌套太深" in refused.value.text["zh"]


def test_a_deeply_nested_teacher_file_is_an_invalid_file_not_an_internal_error(quiz_folder):
    (quiz_folder / "deep.toml").write_text(NESTED)
    done = _cli(["quiz", "grade", "q.toml", "subs", "--teacher", "deep.toml"], quiz_folder)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "nested too deep" in done.stderr and "internal error" not in done.stderr


# -- 7. no memory beyond the address-space limit -------------------------------------------------


def _isolated() -> bool:
    from exercises.lab.isolation import probe

    return probe().isolated


@pytest.mark.skipif(not _isolated(), reason="this machine offers no Landlock/seccomp")
def test_memfd_cannot_hold_memory_beyond_the_childs_limit(tmp_path):
    """A memfd's pages count in no address space until mapped: a child held 928 MiB beyond
    its 1 GiB that way. memfd_create (and memfd_secret) are refused."""
    path = tmp_path / "10_causal_mask.py"
    path.write_text(
        "import os\n\nHELD = []\n\ndef causal_mask(n):\n"
        "    try:\n"
        "        fd = os.memfd_create('held')\n"
        "    except OSError as error:\n"
        "        return 'refused ' + str(error.errno)\n"
        "    os.ftruncate(fd, 64 << 20)\n"
        "    os.pwrite(fd, b'x' * (1 << 20), 0)\n"
        "    HELD.append(fd)\n"
        "    return 'held'\n"
    )
    import errno

    with Sandbox(path, "causal_mask") as box:
        assert box.call(3) == f"refused {errno.EPERM}"


# -- 9. a terminated check leaves nothing behind --------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _learner_children(temporary: Path) -> list[int]:
    """The processes working in a learner's scratch folder under ``temporary`` (by their
    working folder: the fork server's own folder is another)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:
                continue
            name = Path(cwd).name
            if cwd.startswith(str(temporary)) and name.startswith("objectives-lab-") and "zygote" not in name:
                found.append(int(entry))
    return found


@pytest.mark.slow
@pytest.mark.parametrize("signum", [15, 1], ids=["SIGTERM", "SIGHUP"])
def test_a_terminated_lab_check_leaves_no_scratch_folder_and_no_child(signum, tmp_path):
    """`lab check` ended by SIGTERM (or SIGHUP) while the learner's function runs: exit
    128 + the signal, every scratch folder gone from TMPDIR, the learner's child gone."""
    import signal
    import time

    folder = tmp_path / "lab"
    folder.mkdir()
    (folder / "10_causal_mask.py").write_text("import time\n\ndef causal_mask(n):\n    time.sleep(1e6)\n")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "OBJECTIVES_TUTOR_LAB_NO_ISOLATION"}
    env.update(OBJECTIVES_TUTOR_HOME=str(tmp_path / "home"), TMPDIR=str(temporary), LANG="C.UTF-8")
    check = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable), "objectives-tutor"), "lab", "check"],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        children = []
        while not children and time.monotonic() < deadline and check.poll() is None:
            children = _learner_children(temporary)
            time.sleep(0.05)  # polling for the learner's child to exist, not a budget
        assert children, "the learner's child never ran"
        child = children[0]
        check.send_signal(signum)
        _, stderr = check.communicate(timeout=60)
    finally:
        if check.poll() is None:
            check.kill()
            check.wait()
    assert check.returncode == 128 + signum, stderr[-2000:]
    assert b"Traceback" not in stderr
    assert list(temporary.iterdir()) == []
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    survived = _alive(child)
    if survived:
        os.kill(child, signal.SIGKILL)
    assert not survived


# -- 10. the folders Landlock grants for reading are read-only ------------------------------------


def _granted_folders() -> dict[str, Path]:
    """Folders the child may read, where the test can plant a victim file: the installed
    torch (in the venv's site-packages), numpy, the standard library, its compiled
    modules; and the project checkout the venv sits in (never granted)."""
    import numpy
    import torch

    folders = {
        "torch": Path(torch.__file__).parent,
        "numpy": Path(numpy.__file__).parent,
        "stdlib": Path(os.__file__).resolve().parent,
        "site-packages": Path(torch.__file__).parent.parent,
        "checkout": ROOT,
    }
    dynload = [Path(p) for p in sys.path if p.endswith("lib-dynload")]
    if dynload:
        folders["lib-dynload"] = dynload[0].resolve()
    return folders


WRITE_ATTACKS = {
    "write": "open({victim!r}, 'r+b').write(b'owned')",
    "append-open": "open({victim!r}, 'ab')",
    "truncate": "os.truncate({victim!r}, 0)",
    "truncate-same-size": "os.truncate({real!r}, os.path.getsize({real!r}))",
    "open-real-for-append": "open({real!r}, 'ab')",
    "create": "open(os.path.join({folder!r}, 'objectives-created-' + str(os.getpid())), 'x')",
    "mkdir": "os.mkdir(os.path.join({folder!r}, 'objectives-made-' + str(os.getpid())))",
    "rename": "os.rename({victim!r}, {victim!r} + '.moved')",
    "rename-into-scratch": "os.rename({victim!r}, 'stolen')",
    "remove": "os.remove({victim!r})",
    "symlink": "os.symlink('/etc/passwd', os.path.join({folder!r}, 'objectives-link'))",
}


@pytest.mark.skipif(not _isolated(), reason="this machine offers no Landlock/seccomp")
@pytest.mark.parametrize("where", sorted(_granted_folders()))
def test_the_folders_the_child_may_read_cannot_be_changed(where, tmp_path):
    """Write, create, truncate, rename, remove in the folders Landlock grants for reading
    (and the checkout they sit in): all refused. The victim is a file the test plants
    there (so an escape harms nothing real); the real file (``real``) is only opened for
    appending and truncated to its own size, which change nothing even if allowed."""
    import uuid

    folder = _granted_folders()[where]
    victim = folder / f"objectives-victim-{uuid.uuid4().hex}.txt"
    real = next(p for p in sorted(folder.iterdir()) if p.is_file() and p.suffix in (".py", ".so", ".toml"))
    victim.write_text("teacher's\n")
    made = set(folder.iterdir())
    try:
        code = "".join(
            f"try:\n    {attack.format(victim=str(victim), real=str(real), folder=str(folder))}\n"
            f"    out[{name!r}] = 'ESCAPED'\nexcept BaseException as error:\n    out[{name!r}] = type(error).__name__\n"
            for name, attack in WRITE_ATTACKS.items()
        )
        source = (
            "import os\n\ndef causal_mask(n):\n    out = {}\n"
            + "".join("    " + line + "\n" for line in code.splitlines())
            + "    return out\n"
        )
        path = tmp_path / "10_causal_mask.py"
        path.write_text(source)
        with Sandbox(path, "causal_mask") as box:
            report = box.call(3)
        assert set(report) == set(WRITE_ATTACKS)
        assert [name for name, said in report.items() if said == "ESCAPED"] == [], report
        assert victim.read_text() == "teacher's\n"
        assert set(folder.iterdir()) == made
    finally:
        for left in set(folder.iterdir()) - (made - {victim}):
            if left.is_dir() and not left.is_symlink():
                left.rmdir()
            else:
                left.unlink()
        for moved in (victim.with_name(victim.name + ".moved"),):
            if moved.exists():
                moved.unlink()


# -- 6. the scratch folder's total -----------------------------------------------------------------


def _user_namespaces() -> bool:
    """Whether this kernel lets this user make a user and mount namespace (where it does
    not, the scratch folder keeps only its per-file cap, as the docs say)."""
    try:
        return subprocess.run(["unshare", "--user", "--mount", "true"], capture_output=True).returncode == 0
    except OSError:
        return False


@pytest.mark.skipif(not (_isolated() and _user_namespaces()), reason="no user namespaces here")
def test_the_scratch_folder_is_capped_in_total_not_only_per_file(tmp_path):
    """Files of 15 MiB each (under the 16 MiB per-file cap), twelve of them: the folder's
    total stops at 64 MiB with ENOSPC (one call wrote 528 MiB before)."""
    import errno

    from exercises.lab.isolation import SCRATCH_TOTAL_LIMIT

    path = tmp_path / "10_causal_mask.py"
    path.write_text(
        "def causal_mask(n):\n    written = 0\n    for i in range(12):\n"
        "        try:\n"
        "            with open(f'f{i}', 'wb') as handle:\n                handle.write(b'x' * (15 << 20))\n"
        "        except OSError as error:\n            return [written, error.errno]\n"
        "        written += 15 << 20\n"
        "    return [written, 0]\n"
    )
    with Sandbox(path, "causal_mask") as box:
        written, error = box.call(3)
    assert written <= SCRATCH_TOTAL_LIMIT and error == errno.ENOSPC


@pytest.mark.skipif(not _isolated(), reason="this machine offers no Landlock/seccomp")
def test_a_package_folder_changed_after_confinement_still_imports(tmp_path):
    """Landlock grants torch's and sympy's folders, not site-packages around them: when a
    file appears there after the child is confined (a pip install, another test), Python
    lists the folder again, is refused, and found no sympy (torch imports it late). Seen
    as a flaky sandbox test under xdist; the listing made before confinement stands."""
    import uuid

    import torch

    path = tmp_path / "10_causal_mask.py"
    path.write_text(
        "import importlib\n\ndef causal_mask(n):\n"
        "    try:\n        importlib.import_module('sympy')\n        return 'imported'\n"
        "    except ImportError as error:\n        return str(error)\n"
    )
    site = Path(torch.__file__).parent.parent
    with Sandbox(path, "causal_mask") as box:
        marker = site / f"objectives-mtime-{uuid.uuid4().hex}.txt"
        marker.write_text("")
        try:
            assert box.call(3) == "imported"
        finally:
            marker.unlink()
