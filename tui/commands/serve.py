"""``objectives-tutor serve``: the app in browsers, through textual-serve.

Each browser tab gets its own app process; progress is saved as it goes, in the
server's progress directory. Loopback by default: binding elsewhere exposes the
app to everyone who can reach the machine, so that earns a warning."""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys

from tui.errors import UsageError
from tui.i18n import detect_language, t


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def public_url(host: str, port: int) -> str:
    """The address the served page tells browsers to connect back to. A wildcard
    bind (0.0.0.0, ::) is not an address a browser can reach, so use this
    machine's name there (--public-url overrides, e.g. behind a proxy)."""
    import socket

    if host in ("0.0.0.0", "::", ""):
        host = socket.getfqdn() or socket.gethostname()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def app_command(lang: str | None) -> str:
    """The command each browser session runs: this same Python, this same app."""
    parts = [sys.executable, "-m", "tui.cli"]
    if lang:
        parts += ["--lang", lang]
    return shlex.join(parts)


def run_serve(args: argparse.Namespace, lang_flag: str | None) -> int:
    lang = lang_flag or detect_language()  # what the command line speaks (tui/cli.py's main)
    try:
        from textual_serve.server import Server
    except ImportError:
        raise UsageError(f"objectives-tutor serve: {t('serve-not-installed', lang)}") from None
    if not is_loopback(args.host):
        sys.stderr.write(f"objectives-tutor serve: {t('serve-warning', lang, host=args.host)}\n")
    server = Server(
        app_command(lang_flag),
        host=args.host,
        port=args.port,
        title="objectives-tutor",
        public_url=args.public_url or public_url(args.host, args.port),
    )
    server.serve()
    return 0
