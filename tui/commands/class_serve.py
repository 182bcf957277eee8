"""``objectives-tutor class serve`` and ``class dashboard``: the class server's
web half (tui/classweb) and the teacher's dashboard (tui/screens/dashboard.py).
``class init`` and ``class quiz`` are in tui/commands/class_admin.py."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tui.errors import UsageError
from tui.i18n import t


def add_class_parser(commands, common, parser_class) -> None:
    """The ``class`` command and its subcommands (serve, dashboard here; init, quiz in class_admin)."""
    group = commands.add_parser("class", parents=[common], help="the class server: roster, sign-in, quizzes")
    kinds = group.add_subparsers(
        dest="class_command", metavar="WHAT", required=True, parser_class=parser_class
    )
    serve = kinds.add_parser("serve", parents=[common], help="serve the app to a signed-in class")
    serve.add_argument("--class", dest="class_dir", required=True, metavar="DIR", help="the class directory")
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, this machine only)"
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--db", metavar="URL", help="postgresql://... (default: DIR/class.db, SQLite)")
    dashboard = kinds.add_parser("dashboard", parents=[common], help="the teacher's live view of the class")
    dashboard.add_argument("class_dir", metavar="DIR", help="the class directory")
    dashboard.add_argument("--db", metavar="URL", help="postgresql://... (default: DIR/class.db, SQLite)")
    try:
        from tui.commands import class_admin
    except ImportError:  # pragma: no cover - the storage half not merged yet
        return
    class_admin.add_parsers(kinds, common, parser_class)


def _open_store(class_dir: str, db_url: str | None, command: str):
    from exercises.classdb import ClassStoreError, open_class_store

    folder = Path(class_dir)
    if db_url is None and not (folder / "class.db").exists():
        raise UsageError(
            f"objectives-tutor class {command}: {folder} is not a class directory "
            f"(make one with: objectives-tutor class init {folder} --roster roster.csv)"
        )
    try:
        return open_class_store(folder, db_url)
    except ClassStoreError as error:
        raise UsageError(f"objectives-tutor class {command}: {error.text['en']}") from None


def run_class(args: argparse.Namespace, lang: str, console, lang_flag: str | None) -> int:
    if args.class_command == "serve":
        return run_class_serve(args, lang, lang_flag)
    if args.class_command == "dashboard":
        return run_class_dashboard(args, lang)
    from tui.commands import class_admin

    return class_admin.run_class_admin(args, lang, console)


def run_class_serve(args: argparse.Namespace, lang: str, lang_flag: str | None) -> int:
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        raise UsageError(
            "objectives-tutor class serve: the browser server is the optional 'serve' extra: pip install -e '.[serve]'"
        ) from None
    from tui.classweb.server import ClassWebServer, serve
    from tui.commands.serve import is_loopback

    if not 1 <= args.port <= 65535:
        raise UsageError(f"objectives-tutor class serve: --port must be 1..65535, got {args.port}")
    store = _open_store(args.class_dir, args.db, "serve")
    if not is_loopback(args.host):
        sys.stderr.write(f"objectives-tutor class serve: {t('class-serve-warning', lang, host=args.host)}\n")
    server = ClassWebServer(store, Path(args.class_dir), db_url=args.db, lang=lang_flag or lang)

    def announce(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    try:
        serve(server, args.host, args.port, announce)
    except OSError as error:  # the port is taken, the address is not this machine's
        raise UsageError(
            f"objectives-tutor class serve: cannot listen on {args.host}:{args.port}: {error.strerror}"
        ) from None
    finally:
        store.close()
    return 0


def run_class_dashboard(args: argparse.Namespace, lang: str) -> int:
    from tui.screens.dashboard import DashboardApp

    store = _open_store(args.class_dir, args.db, "dashboard")
    try:
        DashboardApp(store, Path(args.class_dir), lang=lang).run()
    finally:
        store.close()
    return 0


def open_quiz_file(store, path: Path, now: float):
    """Open a quiz file for the class, its questions rendered for every student (class_admin's)."""
    from tui.commands import class_admin

    return class_admin.open_quiz_file(store, path, now)


def export_gradebook(store, class_dir: Path, quiz) -> Path:
    """Grade the quiz's exams from the database and write the gradebook (class_admin's)."""
    from tui.commands import class_admin

    return class_admin.export_gradebook(store, class_dir, quiz)
