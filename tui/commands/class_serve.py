"""``objectives-tutor class serve`` and ``class dashboard``: the class server's
web half (tui/classweb) and the teacher's dashboard (tui/screens/dashboard.py).
``class init`` and ``class quiz`` are in tui/commands/class_admin.py."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from exercises.text import L, pick, reason_of
from tui.commands.arguments import PORT
from tui.errors import UsageError
from tui.i18n import t


def add_parsers(actions, common) -> None:
    """``serve`` and ``dashboard`` beside class_admin's ``init`` and ``quiz``."""
    serve = actions.add_parser(
        "serve", parents=[common], help=L("serve the app to a signed-in class", "为已登录的班级提供本应用")
    )
    serve.add_argument(
        "--class", dest="class_dir", required=True, metavar="DIR", help=L("the class directory", "班级文件夹")
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help=L(
            "address to listen on (default 127.0.0.1, this machine only)",
            "监听的地址（默认 127.0.0.1，仅本机）",
        ),
    )
    serve.add_argument(
        "--port",
        type=PORT,
        default=8000,
        help=L(f"port, {PORT.limits} (default 8000)", f"端口，{PORT.limits_zh}（默认 8000）"),
    )
    serve.add_argument(
        "--db",
        metavar="URL",
        help=L(
            "postgresql://... when the class is in PostgreSQL", "postgresql://...：班级存在 PostgreSQL 中时"
        ),
    )
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help=L(
            "the address of a proxy (nginx) whose X-Real-IP header names the student's address; repeatable",
            "代理（nginx）的地址：只信任它发来的 X-Real-IP 头里的学生地址；可重复",
        ),
    )
    serve.add_argument(
        "--cold",
        action="store_true",
        help=L(
            "start each session from scratch, not from the warm process",
            "每个会话都从头启动，而不是从预热好的进程启动",
        ),
    )
    dashboard = actions.add_parser(
        "dashboard", parents=[common], help=L("the teacher's live view of the class", "教师的班级实时视图")
    )
    dashboard.add_argument("class_dir", metavar="DIR", help=L("the class directory", "班级文件夹"))
    dashboard.add_argument(
        "--db",
        metavar="URL",
        help=L(
            "postgresql://... when the class is in PostgreSQL", "postgresql://...：班级存在 PostgreSQL 中时"
        ),
    )


def _open_store(class_dir: str, db_url: str | None, command: str, lang: str):
    from exercises.classdb import ClassStoreError
    from exercises.classdb.folder import open_class
    from exercises.text import pick

    try:
        return open_class(Path(class_dir), db_url)
    except ClassStoreError as error:
        raise UsageError(f"objectives-tutor class {command}: {pick(error.text, lang)}") from None


def run_class_web(args: argparse.Namespace, lang: str, lang_flag: str | None) -> int:
    if args.action == "serve":
        return run_class_serve(args, lang, lang_flag)
    return run_class_dashboard(args, lang)


def run_class_serve(args: argparse.Namespace, lang: str, lang_flag: str | None) -> int:
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        raise UsageError(f"objectives-tutor class serve: {t('serve-not-installed', lang)}") from None
    from tui.classweb.server import ClassWebServer, serve
    from tui.commands.serve import is_loopback

    store = _open_store(args.class_dir, args.db, "serve", lang)
    if not is_loopback(args.host):
        sys.stderr.write(f"objectives-tutor class serve: {t('class-serve-warning', lang, host=args.host)}\n")
    from exercises.classdb.folder import database_url

    db_url = database_url(Path(args.class_dir), args.db)  # resolved once: every session uses the same
    from tui.classweb.server import _address

    proxies = [_address(text) for text in args.trusted_proxy]
    if None in proxies:
        bad = args.trusted_proxy[proxies.index(None)]
        message = L(f"--trusted-proxy {bad!r} is not an IP address", f"--trusted-proxy {bad!r} 不是 IP 地址")
        store.close()
        raise UsageError("objectives-tutor class serve: " + pick(message, lang))
    server = ClassWebServer(
        store,
        Path(args.class_dir),
        db_url=db_url,
        lang=lang,
        app_lang=lang_flag,
        trusted_proxies=frozenset(proxies),
    )

    def announce(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    try:
        serve(server, args.host, args.port, announce, warm=not args.cold)
    except OSError as error:  # the port is taken, the address is not this machine's
        why = reason_of(error)
        message = L(
            f"cannot listen on {args.host}:{args.port}: {why['en']}",
            f"无法监听 {args.host}:{args.port}：{why['zh']}",
        )
        raise UsageError("objectives-tutor class serve: " + pick(message, lang)) from None
    finally:
        store.close()
    return 0


def run_class_dashboard(args: argparse.Namespace, lang: str) -> int:
    from tui.screens.dashboard import DashboardApp

    store = _open_store(args.class_dir, args.db, "dashboard", lang)
    try:
        DashboardApp(store, Path(args.class_dir), lang=lang).run()
    finally:
        store.close()
    return 0
