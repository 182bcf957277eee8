"""The app in a browser: the server starts, answers its page on loopback and stops cleanly."""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tui.commands.serve import app_command, is_loopback


def test_the_serve_extra_is_installed():
    """The README's set-up installs it: missing, it is a failure, not a silent skip."""
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        pytest.fail("textual-serve is missing: install the 'serve' extra (`make setup` does)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_loopback_detection():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")
    assert app_command("zh").endswith("-m tui.cli --lang zh")


def serve_on_a_free_port() -> tuple[subprocess.Popen, str | None]:
    """`serve` on a port found free, and its page once it answers (None if it never does).
    Between finding the port and the server binding it another program may take it: the
    server then exits with "address already in use", and it is started again on another."""
    for _ in range(3):
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "tui.cli", "serve", "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "COLUMNS": "100"},
        )
        give_up = time.monotonic() + 120  # a hang guard: it answers within seconds
        while server.poll() is None and time.monotonic() < give_up:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as response:
                    assert response.status == 200
                    return server, response.read().decode()
            except OSError:
                time.sleep(0.1)
        if server.poll() is None or "in use" not in server.stderr.read().lower():
            return server, None
    return server, None


def test_serve_answers_its_page_and_stops_cleanly():
    server, page = serve_on_a_free_port()
    try:
        assert page is not None, "the server never answered"
        assert "objectives-tutor" in page and "ws" in page  # the page connects back over a websocket
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            raise AssertionError("the server did not stop on Ctrl+C") from None
    assert server.returncode == 0
    assert "warning" not in server.stderr.read()


def test_serving_beyond_loopback_warns(capsys, monkeypatch):
    from tui.commands import serve as serve_command

    seen = {}

    class FakeServer:
        def __init__(self, command, host, port, title, public_url):
            seen["public_url"] = public_url

        def serve(self):
            pass

    monkeypatch.setattr("textual_serve.server.Server", FakeServer)
    from argparse import Namespace

    assert serve_command.run_serve(Namespace(host="0.0.0.0", port=8000, public_url=None), None) == 0
    assert "warning: listening on 0.0.0.0" in capsys.readouterr().err
    assert "0.0.0.0" not in seen["public_url"] and seen["public_url"].endswith(":8000")
    assert serve_command.public_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert serve_command.public_url("::1", 9) == "http://[::1]:9"
