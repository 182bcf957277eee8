"""The class server: a sign-in page, a session cookie, and one app process per
signed-in browser tab, started for that session alone.

Why an HTTP sign-in before the terminal (and not a sign-in screen inside the app):
the app process is started only once the server knows who is asking, and it is
handed nothing but that student's session token (in its environment, never on a
command line other users can read). It opens the session from the class store and
can reach only that student's rows; it never sees a PIN. A sign-in screen inside
the served app would start a full app process (~190 MB with torch) for every
anonymous visitor, and every such process would hold the right to sign in as
anyone.

Nothing from the network is executed: the command each process runs is fixed when
the server starts; the form fields and the cookie are looked up as data; the
browser's keystrokes go to the app as keystrokes. The cookie is HttpOnly and
SameSite=Strict, the websocket checks its Origin, and each page carries a
Content-Security-Policy that allows this server only.

Store calls run off the event loop, on two pools: PIN checks on one thread of
their own (each costs a deliberate few tens of milliseconds), everything else
(the signed-in pages' session look-ups) on another, so a flood of sign-ins queues
behind itself and never in front of a signed-in student's page. The PIN checks are
taken in turn from one queue per (roster id, address) (every unknown id of an
address shares one): a flood for some ids, or from some addresses, delays another
student's check by one turn per busy queue, never by the flood's length. Wrong
PINs make that address's next try for that id wait (exercises/classdb/signin.py);
the wait is spent here, holding the request without a thread, and the held try is
then checked (never refused: the student with the right PIN is in after it). One
address may have at most MAX_PENDING_PER_SOURCE such held tries: beyond that it is
told at once to try again, at no cost; tries nobody slowed are never turned away.

The address of a try is the connection's, or nginx's X-Real-IP when the connection
comes from an address the teacher named with --trusted-proxy (anyone else could
write that header). A POST from another site's page (login CSRF) is refused: its
Origin (or Sec-Fetch-Site) must be this server's, as the browser's Host names it."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import os
import secrets
import shlex
import sys
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from exercises.classroom.safe import plain
from tui.classweb import pages
from tui.classweb.lifeline import PARENT_ENV
from tui.i18n import LANGUAGES, t

log = logging.getLogger("objectives-tutor.class")

COOKIE = "objectives_tutor_session"
LANG_COOKIE = "objectives_tutor_lang"  # the sign-in page's language: the app's first language
TOKEN_ENV = "OBJECTIVES_TUTOR_CLASS_TOKEN"
CLASS_DIR_ENV = "OBJECTIVES_TUTOR_CLASS_DIR"
CLASS_DB_ENV = "OBJECTIVES_TUTOR_CLASS_DB"
MAX_FORM_BYTES = 4096
MAX_TOKEN_CHARS = 200
MAX_PENDING_PER_SOURCE = 16  # tries of one address waiting because wrong PINs slowed them down
MAX_PENDING = 64  # ... and of everyone: beyond, "try again in a moment" at once, at no cost
RENEW_SECONDS = 60.0  # how long the page has to collect a renewed token
HEADER_SECONDS = 10.0  # a connection that has not finished a request's headers by then is closed ...
BODY_SECONDS = 10.0  # ... and a form whose body has not arrived by then is refused
MAX_CONNECTIONS = 800  # open connections at once (under the usual 1,024 files, with room for the rest)
MAX_CONNECTIONS_PER_ADDRESS = (
    400  # ... of which one address (not a trusted proxy) may hold: a NAT class of 60 with 6 each fits
)
SEEN_SECONDS = 10.0  # how often an open tab marks its session live (the dashboard: away after 30 s)
LOG_REPEATS = 20  # lines of one kind per LOG_WINDOW on the console; then a count
LOG_WINDOW = 60.0
REAL_IP = "X-Real-IP"  # nginx's header with the browser's address (docs/nginx-class.conf)
STATIC = Path(__import__("textual_serve").__file__).parent / "static"
STATIC_FILES = {
    "js/textual.js": "application/javascript",
    "css/xterm.css": "text/css",
    f"fonts/{pages.FONT_FILE}": "font/ttf",
}


def session_command(lang: str | None) -> str:
    """What every session process runs: this Python, the class app. Fixed at start-up."""
    parts = [sys.executable, "-m", "tui.classweb.student_app"]
    if lang:
        parts += ["--lang", lang]
    return "exec " + shlex.join(parts)  # the shell textual-serve starts becomes it: the server is its parent


class SessionAppService(AppService):
    """textual-serve's process manager, with this session's token and class in the
    child's environment."""

    def __init__(self, command: str, extra_env: dict[str, str], **kwargs) -> None:
        super().__init__(command, **kwargs)
        self._extra_env = extra_env

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width=width, height=height)
        environment.update(self._extra_env)
        environment[PARENT_ENV] = str(os.getpid())  # the session ends with this server (lifeline.py)
        return environment

    on_renew: Callable[[], object] | None = None  # the server's: a new token for this tab

    async def on_meta(self, data: bytes) -> None:
        """The app's "class-renew" (its exam started): the server renews the token; the
        rest is textual-serve's."""
        with contextlib.suppress(ValueError, RecursionError):
            if json.loads(data).get("type") == "class-renew":
                if self.on_renew is not None:
                    await self.on_renew()
                return
        await super().on_meta(data)


def _form_text(value: object, limit: int) -> str | None:
    """A form field as people type it: full-width digits read as ASCII, spaces
    around trimmed. None when it is missing, too long or not text."""
    if not isinstance(value, str) or len(value) > limit:
        return None
    text = unicodedata.normalize("NFKC", value).strip()
    return text or None


def page_lang(request: web.Request, default: str) -> str:
    """The page's language: the address's ?lang=, else the language this browser signed
    in with (its cookie, checked), else the server's."""
    lang = request.query.get("lang", "")
    if lang in LANGUAGES:
        return lang
    cookie = request.cookies.get(LANG_COOKIE, "")
    return cookie if cookie in LANGUAGES else default


class FairQueue:
    """Calls run one at a time (on the PIN thread), taken in turn from one queue per key:
    a key with a thousand calls waiting gets one turn, then every other key gets one."""

    def __init__(self, run: Callable) -> None:
        self._run = run  # awaitable run(function, *args): the call, off the event loop
        self._queues: dict[object, deque] = {}  # insertion order: the turn
        self._worker: asyncio.Task | None = None

    def waiting(self) -> int:
        return sum(len(queue) for queue in self._queues.values())

    async def call(self, key: object, function: Callable, *args):
        future = asyncio.get_running_loop().create_future()
        self._queues.setdefault(key, deque()).append((function, args, future))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work())
        return await future

    async def _work(self) -> None:
        while self._queues:
            key = next(iter(self._queues))
            queue = self._queues.pop(key)
            function, args, future = queue.popleft()
            if queue:
                self._queues[key] = queue  # to the back of the turn
            if future.done():  # its request went away
                continue
            try:
                result = await self._run(function, *args)
            except Exception as error:  # handed to the one request that asked
                if not future.done():
                    future.set_exception(error)
            else:
                if not future.done():
                    future.set_result(result)


class ClassWebServer:
    def __init__(
        self,
        store,
        class_dir: Path,
        db_url: str | None = None,
        lang: str = "en",
        clock: Callable[[], float] = time.time,
        command: str | None = None,
        app_lang: str | None = None,
        sleep: Callable[[float], object] = asyncio.sleep,
        trusted_proxies: frozenset[str] = frozenset(),
    ) -> None:
        """``lang``: the pages' default language; ``app_lang``: the app's, when the
        teacher fixed one (--lang); else each student's saved setting, then the
        language of the page they signed in on. ``trusted_proxies``: the addresses whose
        X-Real-IP header names the browser's address (nginx's, --trusted-proxy)."""
        self.store = store
        self.class_dir = Path(class_dir)
        self.db_url = db_url
        self.lang = lang
        self.clock = clock
        self.app_lang = app_lang
        self.command = command or session_command(app_lang)
        self.sleep = sleep  # how a sign-in sits out its wait (tests inject one that returns at once)
        self.db = ThreadPoolExecutor(max_workers=2, thread_name_prefix="class-store")
        self.pins = ThreadPoolExecutor(max_workers=1, thread_name_prefix="class-pins")
        self.pending: dict[str, int] = {}  # address -> its slowed tries waiting
        self.trusted_proxies = frozenset(_address(a) or a for a in trusted_proxies)
        self.pin_queue = FairQueue(self._pin_check)
        self.download_manager = DownloadManager()
        self.sockets: dict[str, web.WebSocketResponse] = {}  # token -> the tab that holds it
        self.renewals: dict[str, tuple[str, str, float]] = {}  # one-time code -> (old token, new, until)

    async def _store(self, function, *args):
        return await asyncio.get_running_loop().run_in_executor(self.db, function, *args)

    async def _pin_check(self, function, *args):
        return await asyncio.get_running_loop().run_in_executor(self.pins, function, *args)

    def make_app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_FORM_BYTES)
        app.add_routes(
            [
                web.get("/", self.index),
                web.post("/sign-in", self.sign_in),
                web.post("/sign-out", self.sign_out),
                web.get("/state", self.state),
                web.post("/renew", self.renew),
                web.get("/ws", self.websocket),
                web.get("/static/{path:.+}", self.static),
            ]
        )
        app.on_shutdown.append(self._close_sockets)
        return app

    # -- sessions ---------------------------------------------------------------

    def _lookup(self, token: str):
        from exercises.classdb import SessionEnded

        try:
            return self.store.session(token, self.clock())
        except SessionEnded:
            return None

    def _ended_reason(self, token: str) -> str | None:
        from exercises.classdb import SessionEnded

        try:
            self.store.session(token, self.clock())
        except SessionEnded as ended:
            return ended.reason
        return None

    async def session_of(self, request: web.Request) -> tuple[str, object] | tuple[None, None]:
        """The cookie's token and its live session, or (None, None): no cookie, a
        forged or ended one."""
        token = request.cookies.get(COOKIE, "")
        if not token or len(token) > MAX_TOKEN_CHARS or not token.isascii() or not token.isprintable():
            return None, None
        session = await self._store(self._lookup, token)
        return (token, session) if session is not None else (None, None)

    def _html(self, body: str, nonce: str, status: int = 200) -> web.Response:
        return web.Response(
            text=body, status=status, content_type="text/html", headers=pages.security_headers(nonce)
        )

    async def index(self, request: web.Request) -> web.Response:
        nonce = pages.new_nonce()
        _token, session = await self.session_of(request)
        lang = page_lang(request, self.lang)
        if session is not None and "lang" not in request.query:  # the language the student chose last
            saved = (await self._store(session.settings)).get("lang")
            lang = saved if saved in LANGUAGES else lang
        if session is None:
            response = self._html(pages.sign_in_page(lang, nonce), nonce)
            if request.cookies.get(COOKIE):
                response.del_cookie(COOKIE, path="/")
            return response
        student = session.student
        who = t("class-web-who", lang, name=plain(student.name, 80), student=plain(student.id, 80))
        font = request.query.get("fontsize", "16")
        font_size = min(40, max(8, int(font))) if font.isascii() and font.isdigit() and len(font) < 4 else 16
        return self._html(pages.app_page(lang, nonce, who, font_size), nonce)

    def source(self, request: web.Request) -> str:
        """The address a try comes from: the connection's, or X-Real-IP when the connection
        is a trusted proxy's (then a missing or unreadable header is the proxy's own)."""
        remote = _address(request.remote or "") or "?"
        if remote in self.trusted_proxies:
            return _address(request.headers.get(REAL_IP, "")) or remote
        return remote

    async def sign_in(self, request: web.Request) -> web.Response:
        lang = page_lang(request, self.lang)
        nonce = pages.new_nonce()
        if not self._same_site(request):  # another site's page posting our form: login CSRF
            log.warning("sign-in refused: a form posted from another site (%s)", self.source(request))
            return self._html(pages.sign_in_page(lang, nonce, t("class-web-cross-site", lang)), nonce, 403)
        try:
            async with asyncio.timeout(BODY_SECONDS):  # a body sent a byte a minute: refused
                form = await request.post()
        except (ValueError, web.HTTPException, TimeoutError):  # too large, not a form, too slow
            return self._html(pages.sign_in_page(lang, nonce, t("class-web-bad-form", lang)), nonce, 400)
        student_id = _form_text(form.get("student"), 200)
        pin = _form_text(form.get("pin"), 64)
        if student_id is None or pin is None:
            return self._html(pages.sign_in_page(lang, nonce, t("class-web-bad-form", lang)), nonce, 400)
        source = self.source(request)
        refill = student_id if student_id.isprintable() else ""  # typed again rather than echoed
        result = await self._check(student_id, pin, source)
        if result is None:  # slowed down, and too many of this address's tries already waiting
            log.warning("sign-in refused: too many waiting tries from %s", source)
            page = pages.sign_in_page(lang, nonce, t("class-web-busy", lang), student=refill)
            return self._html(page, nonce, 429)
        if not result.ok:
            log.warning("sign-in refused: %s from %s (%s)", plain(student_id, 60), source, result.reason)
            if result.reason == "too-soon":
                message = t("class-web-too-soon", lang, seconds=int(result.wait) + 1)
            else:
                message = t("class-web-bad-sign-in", lang)
            page = pages.sign_in_page(lang, nonce, message, student=refill)
            return self._html(page, nonce, 429 if result.reason == "too-soon" else 403)
        token = await self._store(self.store.start_session, result.student.id, self.clock())
        log.info("signed in: %s from %s", plain(result.student.id, 60), source)
        response = web.HTTPSeeOther(f"/?lang={lang}")
        response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/")
        response.set_cookie(LANG_COOKIE, lang, httponly=True, samesite="Strict", path="/")
        raise response

    async def _check(self, student_id: str, pin: str, source: str):
        """The PIN check, in its turn (FairQueue), after the wait wrong PINs from this
        address for this id asked for (sat out here, holding no thread; the held try is then
        checked whatever happened meanwhile). None when the try must wait and its address
        already has MAX_PENDING_PER_SOURCE tries waiting (or everyone MAX_PENDING): only tries
        that wrong PINs slowed down are ever turned away like this."""
        result = None
        for _ in range(2):  # a try nobody slowed, overtaken by a failure of its pair: then held
            wait, lane = await self._store(self.store.sign_in_plan, student_id, self.clock(), source)
            if wait > 0:
                if (
                    self.pending.get(source, 0) >= MAX_PENDING_PER_SOURCE
                    or sum(self.pending.values()) >= MAX_PENDING
                ):
                    return None
                self.pending[source] = self.pending.get(source, 0) + 1
                try:
                    await self.sleep(wait)
                finally:
                    self.pending[source] -= 1
                    if not self.pending[source]:
                        del self.pending[source]
            result = await self.pin_queue.call(
                (lane, source), self.store.sign_in, student_id, pin, self.clock(), source, wait > 0
            )
            if result.reason != "too-soon":
                break
        return result

    async def state(self, request: web.Request) -> web.Response:
        """For the page when its connection closed: is this browser's session still live
        (then the app ended or the line dropped: reconnect), or did it end, and why, in
        the page's language."""
        lang = page_lang(request, self.lang)
        token = request.cookies.get(COOKIE, "")
        reason = "unknown"
        if token and len(token) <= MAX_TOKEN_CHARS and token.isascii() and token.isprintable():
            reason = await self._store(self._ended_reason, token)
        if reason == "unknown":  # no cookie, a forged one, or one the server never issued
            body = {
                "state": "ended",
                "message": t("class-web-not-signed-in", lang),
                "link": t("class-web-reload", lang),
            }
        elif reason is None:
            body = {
                "state": "live",
                "message": t("class-web-dropped", lang),
                "link": t("class-web-reconnect", lang),
            }
        else:
            from tui.screens.session_ended import ended_text

            body = {
                "state": "ended",
                "message": ended_text(reason, lang),
                "link": t("class-web-reload", lang),
            }
        return web.json_response(body, headers={"Cache-Control": "no-store"})

    async def renew(self, request: web.Request) -> web.Response:
        """The page collects its renewed token (the exam started) with the one-time code the
        server sent over its websocket; the code works once, for the browser holding the
        old token, within RENEW_SECONDS."""
        if not self._same_site(request):
            raise web.HTTPForbidden(text="cross-site request refused")
        try:
            async with asyncio.timeout(BODY_SECONDS):
                form = await request.post()
        except (ValueError, web.HTTPException, TimeoutError):
            raise web.HTTPBadRequest() from None
        code = form.get("code")
        entry = self.renewals.pop(code, None) if isinstance(code, str) and len(code) < 100 else None
        old = request.cookies.get(COOKIE, "")
        if (
            entry is None
            or entry[2] < self.clock()
            or not hmac.compare_digest(old.encode(), entry[0].encode())
        ):
            raise web.HTTPForbidden(text="no such renewal")
        response = web.Response(text="ok", headers={"Cache-Control": "no-store"})
        response.set_cookie(COOKIE, entry[1], httponly=True, samesite="Strict", path="/")
        return response

    async def _renewed(self, holder: dict, websocket: web.WebSocketResponse) -> None:
        """The tab's exam started: a new token for its session (the old one opens nothing
        from now on), handed to the page as a one-time code it exchanges at /renew."""
        from exercises.classdb import SessionEnded

        old = holder["token"]
        try:
            fresh = await self._store(self.store.renew_token, old, self.clock())
        except SessionEnded:
            return
        now = self.clock()
        self.renewals = {code: entry for code, entry in self.renewals.items() if entry[2] >= now}
        code = secrets.token_urlsafe(24)
        self.renewals[code] = (old, fresh, now + RENEW_SECONDS)
        holder["token"] = fresh
        if self.sockets.get(old) is websocket:
            self.sockets[fresh] = self.sockets.pop(old)
        with contextlib.suppress(ConnectionError, RuntimeError):
            await websocket.send_json(["class-renew", code])

    async def sign_out(self, request: web.Request) -> web.Response:
        if not self._same_site(request):
            raise web.HTTPForbidden(text="cross-site request refused")
        token, session = await self.session_of(request)
        if session is not None:
            await self._store(self.store.end_session, token, self.clock(), "signed-out")
            old = self.sockets.pop(token, None)
            if old is not None:
                await old.close()
        response = web.HTTPSeeOther(f"/?lang={page_lang(request, self.lang)}")
        response.del_cookie(COOKIE, path="/")
        raise response

    async def static(self, request: web.Request) -> web.StreamResponse:
        """Only the three files the page uses, from textual-serve's package."""
        path = request.match_info["path"]
        if path not in STATIC_FILES:
            raise web.HTTPNotFound()
        return web.FileResponse(STATIC / path, headers={"Content-Type": STATIC_FILES[path]})

    # -- the app process ------------------------------------------------------------

    def _same_origin(self, request: web.Request) -> bool:
        origin = request.headers.get("Origin")
        if origin is None:  # not a browser: the cookie still has to be valid
            return True
        return origin in (f"http://{request.host}", f"https://{request.host}")

    def _same_site(self, request: web.Request) -> bool:
        """A POST from this server's own page: its Origin names this host (behind nginx, the
        Host the browser sent, which nginx-class.conf passes on). Browsers send Origin with
        every POST; an older one that sends none still says Sec-Fetch-Site. A client that
        is not a browser sends neither and carries no one's cookie: it may post."""
        if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            return False
        return self._same_origin(request)

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        if not self._same_origin(request):
            raise web.HTTPForbidden(text="cross-origin websocket refused")
        token, session = await self.session_of(request)
        if session is None:
            raise web.HTTPForbidden(text="sign in first")
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=64 * 1024)
        await websocket.prepare(request)
        older = self.sockets.get(token)
        self.sockets[token] = websocket
        if older is not None:  # the same session opened in a second tab: the first one ends
            await older.close()
        width = _dimension(request.query.get("width"), 80)
        height = _dimension(request.query.get("height"), 24)
        env = {TOKEN_ENV: token, CLASS_DIR_ENV: str(self.class_dir.resolve())}
        if self.db_url:
            env[CLASS_DB_ENV] = self.db_url
        if request.cookies.get(LANG_COOKIE) in LANGUAGES:  # checked: only "zh" or "en" gets through
            env["OBJECTIVES_TUTOR_LANG"] = request.cookies[LANG_COOKIE]
        service = SessionAppService(
            self.command,
            env,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
        )
        holder = {"token": token}  # the tab's token, renewed when its exam starts
        service.on_renew = lambda: self._renewed(holder, websocket)
        seen = asyncio.create_task(self._keep_seen(holder, websocket))
        try:
            await service.start(width, height)
            await self._relay(websocket, service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # one tab's trouble never stops the server
            log.error("session ended by an error: %s", plain(error))
        finally:
            seen.cancel()
            await service.stop()
            if self.sockets.get(holder["token"]) is websocket:
                del self.sockets[holder["token"]]
        return websocket

    async def _keep_seen(self, holder: dict, websocket: web.WebSocketResponse) -> None:
        """ "Live" on the dashboard is measured here: every SEEN_SECONDS while this tab's
        websocket is open (aiohttp's ping every 15 s closes a dead one), the session is
        marked seen. A session process that outlived its server cannot mark itself."""
        from exercises.classdb import ClassStoreError

        while not websocket.closed:
            with contextlib.suppress(ClassStoreError):
                await self._store(self.store.seen, holder["token"], self.clock())
            await asyncio.sleep(SEEN_SECONDS)

    async def _relay(self, websocket: web.WebSocketResponse, service: AppService) -> None:
        """textual-serve's messages from the page, checked: anything else is ignored."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except (ValueError, RecursionError):  # not JSON, or nested past Python's stack: ignored
                continue
            if not isinstance(envelope, list) or len(envelope) != 2:
                continue
            kind, data = envelope
            if kind == "stdin" and isinstance(data, str):
                await service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(
                    _dimension(data.get("width"), 80), _dimension(data.get("height"), 24)
                )
            elif kind == "ping":
                await websocket.send_json(["pong", plain(data, 100)])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()

    async def _close_sockets(self, _app) -> None:
        for websocket in list(self.sockets.values()):
            with contextlib.suppress(Exception):
                await websocket.close()


class RepeatFilter(logging.Filter):
    """At most LOG_REPEATS warnings of one kind (the message's pattern: "sign-in refused: %s
    from %s (%s)") per LOG_WINDOW seconds; the next line of that kind after the window
    first says how many were left out. A flood of bad sign-ins grew the log by 3.4 MB in
    6 minutes; now it costs a few lines a minute per kind, with the count kept."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.clock = clock
        self.kinds: dict[tuple[int, str], list] = {}  # kind -> [window start, lines, left out]

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:  # "signed in": one line per student, all kept
            return True
        now = self.clock()
        key = (record.levelno, str(record.msg)[:200])
        entry = self.kinds.get(key)
        if entry is None or now - entry[0] >= LOG_WINDOW:
            left_out = entry[2] if entry is not None else 0
            if len(self.kinds) >= 1000:  # kinds are the code's own patterns; bounded all the same
                self.kinds.clear()
            self.kinds[key] = [now, 1, 0]
            if left_out:
                record.msg = f"({left_out} more like the next line were left out) {record.msg}"
            return True
        if entry[1] < LOG_REPEATS:
            entry[1] += 1
            return True
        entry[2] += 1
        return False


def cap_connections(site_server: web.Server, trusted: frozenset[str]) -> None:
    """Close a new connection at once beyond MAX_CONNECTIONS, or beyond
    MAX_CONNECTIONS_PER_ADDRESS from one address (a trusted proxy carries a whole class:
    only the total counts for it). 1,100 slow sockets once took the server past its
    1,024 files; with HEADER_SECONDS (aiohttp's keepalive_timeout, which closes a
    connection that has not sent a whole request) they no longer stay, and one address
    cannot take the room the class needs."""
    made = site_server.connection_made

    def connection_made(handler, transport) -> None:
        made(handler, transport)
        peer = transport.get_extra_info("peername")
        address = _address(peer[0]) if isinstance(peer, tuple) and peer else None
        connections = site_server._connections  # aiohttp's own map: handler -> transport
        if len(connections) > MAX_CONNECTIONS:
            transport.close()
            return
        if address is None or address in trusted:
            return
        same = 0
        for other in connections.values():
            other_peer = other.get_extra_info("peername")
            if isinstance(other_peer, tuple) and other_peer and _address(other_peer[0]) == address:
                same += 1
        if same > MAX_CONNECTIONS_PER_ADDRESS:
            transport.close()

    site_server.connection_made = connection_made


async def start_site(server: ClassWebServer, host: str, port: int) -> web.AppRunner:
    """The server listening, with its header timeout and connection caps (cleanup() it)."""
    runner = web.AppRunner(server.make_app(), access_log=None, keepalive_timeout=HEADER_SECONDS)
    await runner.setup()
    cap_connections(runner.server, server.trusted_proxies)
    try:
        await web.TCPSite(runner, host, port).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner


def _address(text: str) -> str | None:
    """An IP address as written (IPv4, IPv6, IPv4-mapped IPv6 as IPv4), or None."""
    if not isinstance(text, str) or len(text) > 60:
        return None
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return str(mapped or address)


def _dimension(value: object, default: int) -> int:
    """A terminal size from the page: a whole number within reason, else the default."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 5:  # not "²"
        number = int(value)
    else:
        return default
    return min(500, max(10, number))


def student_urls(host: str, port: int) -> list[str]:
    """The addresses students type: loopback as given; for a wildcard bind, this
    machine's name and its outward address (found without sending anything)."""
    import socket

    from tui.commands.serve import public_url

    urls = [public_url(host, port) + "/"]
    if host in ("0.0.0.0", "::", ""):
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # UDP connect: picks the route, sends no packet
            address = probe.getsockname()[0]
            if address and not address.startswith("0."):
                urls.append(f"http://{address}:{port}/")
    return list(dict.fromkeys(urls))


def start_warm_process(lang: str | None):
    """The warm process (tui/classweb/warm.py) and the session command that uses it;
    (None, None) when it does not start (the server then starts sessions the slow way)."""
    import subprocess
    import tempfile
    import types

    folder = tempfile.mkdtemp(prefix="objectives-tutor-warm-")  # mode 0700: this user only
    path = str(Path(folder) / "sessions.sock")
    language = ["--lang", lang] if lang else []
    environment = AppService._build_environment(
        types.SimpleNamespace(debug=False)
    )  # Textual reads it at import
    environment[PARENT_ENV] = str(os.getpid())  # it ends with this server, kill -9 included
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.classweb.warm", path, *language],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        env=environment,
        start_new_session=True,  # the terminal's Ctrl+C goes to the server, which ends this process
    )
    if process.stdout.readline() != b"ready\n":
        process.kill()
        return None, None
    process.socket_folder = folder  # removed when the server stops
    client = Path(__file__).with_name("warm_client.py")
    fallback = [sys.executable, "-m", "tui.classweb.student_app", *language]
    return process, "exec " + shlex.join([sys.executable, "-S", str(client), path, *fallback])


def serve(
    server: ClassWebServer, host: str, port: int, announce: Callable[[str], None], warm: bool = True
) -> None:
    """Run until Ctrl+C (or SIGTERM). ``announce`` prints the URLs once the port is open
    (not before: a student who types them at once is answered)."""
    import signal

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    log.addFilter(RepeatFilter())
    warm_process = None
    if warm:
        warm_process, command = start_warm_process(server.app_lang)
        if command is not None:
            server.command = command

    async def run() -> None:
        runner = await start_site(server, host, port)
        try:
            lines = [t("class-serve-urls", server.lang), *(f"  {url}" for url in student_urls(host, port))]
            announce("\n".join([*lines, t("class-serve-stop", server.lang)]))
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for number in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(number, stop.set)
            await stop.wait()
        finally:
            await runner.cleanup()  # closes every websocket: each session process is told to quit

    try:
        asyncio.run(run())
    finally:
        server.db.shutdown(wait=False)
        server.pins.shutdown(wait=False)
        if warm_process is not None:
            import shutil

            warm_process.terminate()
            shutil.rmtree(warm_process.socket_folder, ignore_errors=True)
