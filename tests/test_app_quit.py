"""Issue 11.12: Ctrl+Q gives the terminal back at once, even while torch is still
importing (it used to take ~1 s idle and 4-6 s under load on a blank screen)."""

import fcntl
import os
import pathlib
import pty
import select
import struct
import sys
import termios
import time

import pytest

APP = pathlib.Path(sys.executable).parent / "objectives-tutor"


def _read(fd: int, seconds: float, into: bytearray) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        ready, _, _ = select.select([fd], [], [], 0.005)
        if ready:
            try:
                into += os.read(fd, 65536)
            except OSError:
                return


def quit_after_first_frame(tmp_path, wait: float) -> tuple[float, int, bytes]:
    marker = tmp_path / "first-frame"
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["OBJECTIVES_TUTOR_FIRST_FRAME_FILE"] = str(marker)
        os.execv(str(APP), [str(APP), "--lang", "zh"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    output = bytearray()
    start = time.perf_counter()
    while not marker.exists():
        _read(fd, 0.01, output)
        assert time.perf_counter() - start < 60, "no first frame"
    _read(fd, wait, output)
    start = time.perf_counter()
    os.write(fd, b"\x11")  # Ctrl+Q
    while True:
        _read(fd, 0.002, output)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            elapsed = time.perf_counter() - start
            _read(fd, 0.05, output)
            os.close(fd)
            return elapsed, os.waitstatus_to_exitcode(status), bytes(output)
        if time.perf_counter() - start > 20:
            os.kill(pid, 9)
            pytest.fail("the app did not quit within 20 s")


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not APP.exists(), reason="needs a pty and the app"
)
def test_quit_while_the_engine_loads_is_prompt_and_restores_the_terminal(tmp_path):
    # 0.2 s after the first frame torch is mid-import in its thread. The budget is
    # generous for a shared machine (the target is 0.3 s; before the fix: 2-6 s).
    elapsed, code, output = quit_after_first_frame(tmp_path, 0.2)
    assert code == 0
    assert elapsed < 1.0, f"Ctrl+Q took {elapsed * 1000:.0f} ms"
    assert output.rstrip().endswith(b"\x1b[?1004l")  # Textual's last restore step ran
    assert b"\x1b[?1049l" in output  # the alternate screen was left
