"""The class server against an attacker (issue 21): outside text drawn as plain text
in every widget, sessions that expire and are renewed, the teacher ending one, a
flood of sign-ins that never slows a signed-in page, each student's files their
own, and a student's process that holds only its session. Injected clocks, no sleeps."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from class_web_helpers import PINS, Clock, make_class, open_quiz, quiz_text, screen_lines, signed_in

from exercises.classdb import SessionEnded, Student
from exercises.classdb.model import IDLE_SECONDS, SESSION_SECONDS


@pytest.fixture
def store(tmp_path):
    store = make_class(tmp_path / "class")
    yield store
    store.close()


# -- outside text is plain text in every widget ------------------------------------------

# What people (and attackers) put in names and titles: markup, Rich and Textual tags,
# actions, CJK, full-width brackets, backslashes. Printable: control characters are
# taken out before anything is drawn (exercises.classroom.safe.plain).
OUTSIDE = st.lists(
    st.sampled_from(
        [*list("[]/@=()$\\'\"ab李明王五 ：【】{}#.!,"), "[b]", "[/]", "[@click=app.quit]", "[link=x]"]
    ),
    min_size=1,
    max_size=5,
).map(lambda parts: "".join(parts).strip() or "x")


def _on_screen(text: str, lines: list[str]) -> bool:
    return any(text in line for line in lines)


async def drawn(app, pilot, text: str) -> bool:
    """Whether ``text`` is on screen once the app has drawn (a loaded machine takes a few frames)."""
    for _ in range(50):
        await pilot.pause()
        if _on_screen(text, screen_lines(app)):
            return True
    return False


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=OUTSIDE, title=OUTSIDE, typed=OUTSIDE)
@pytest.mark.slow
async def test_names_titles_and_typed_ids_appear_verbatim_on_the_dashboard(
    tmp_path_factory, name, title, typed
):
    from exercises.classdb import open_class_store
    from exercises.classdb.pins import typed_id
    from exercises.classroom.quiz import dump_toml, new_quiz
    from tui.screens.dashboard import NAME_CELLS, WHO_CELLS, DashboardApp, _fit

    folder = tmp_path_factory.mktemp("markup") / "class"
    store = open_class_store(folder, create=True, pin_cost=2**4)
    try:
        store.add_student(Student("s1", name), "PIN-0000", 1.0)
        store.open_quiz(dump_toml(new_quiz(title, ["perplexity"], 10)), 49_000.0, title)
        store.sign_in(typed, "wrong", 49_990.0, "10.0.0.1")
        app = DashboardApp(store, folder, lang="en", clock=Clock())
        async with app.run_test(size=(160, 40)) as pilot:
            # as written (a cell too narrow cuts the end off, with "…": the start is verbatim)
            assert await drawn(app, pilot, _fit(name, NAME_CELLS)), name
            assert await drawn(app, pilot, title), title
            await pilot.press("v", "v")  # the failed sign-ins
            as_logged = typed_id(typed)  # an id is read as sign-in reads it (NFKC: "：" is ":")
            assert await drawn(app, pilot, _fit(as_logged, WHO_CELLS)), as_logged
            await pilot.click("#students", offset=(20, 2))
            await pilot.pause()
            assert app.is_running  # a name like [@click=app.quit] is a name
    finally:
        store.close()


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(title=OUTSIDE)
@pytest.mark.slow
async def test_a_quiz_title_appears_verbatim_over_the_exam(tmp_path_factory, title):
    from exercises.classdb import open_class_store
    from exercises.classdb.render import render_questions
    from exercises.classroom.quiz import dump_toml, loads, new_quiz
    from tui.classweb.student_app import ClassTutorApp

    folder = tmp_path_factory.mktemp("title") / "class"
    store = open_class_store(folder, create=True, pin_cost=2**4)
    try:
        store.add_student(Student("s1", "x"), PINS["s1"], 1.0)
        text = dump_toml(new_quiz(title, ["perplexity"], 10))
        store.open_quiz(text, 49_000.0, title, render_questions(loads(text), ["s1"]))
        session = signed_in(store, "s1", Clock()())
        app = ClassTutorApp(session, lang="en", clock=Clock(), load_engine=False, still=True)
        async with app.run_test(size=(120, 30)) as pilot:
            assert await drawn(app, pilot, title), title
    finally:
        store.close()


# -- sessions ------------------------------------------------------------------------------


def test_a_token_expires_when_idle_and_after_its_hours(store):
    token = store.start_session("s1", 1_000.0)
    store.session(token, 1_000.0 + IDLE_SECONDS)  # at the edge: still live
    with pytest.raises(SessionEnded) as ended:
        store.session(token, 1_000.0 + IDLE_SECONDS + 1)  # the tab closed 10 minutes ago
    assert ended.value.reason == "expired"
    busy_token = store.start_session("s2", 1_000.0)
    busy = store.session(busy_token, 1_000.0)
    now = 1_000.0
    while now < 1_000.0 + SESSION_SECONDS:  # a tab kept open all day: the server sees it ...
        now += 60
        if now <= 1_000.0 + SESSION_SECONDS:
            store.seen(busy_token, now)
            busy.heartbeat(now, "home")
    with pytest.raises(SessionEnded) as ended:  # ... until the absolute limit
        busy.heartbeat(now + 60, "home")
    assert ended.value.reason == "expired"
    assert [s.student.id for s in store.live_sessions(now + 60)] == []


async def test_an_expired_cookie_gets_the_sign_in_page(store, tmp_path):
    from tui.classweb.server import COOKIE, ClassWebServer

    clock = Clock()
    server = ClassWebServer(store, tmp_path / "class", lang="en", clock=clock, command="true")
    async with TestClient(TestServer(server.make_app())) as client:
        response = await client.post(
            "/sign-in", data={"student": "s1", "pin": PINS["s1"]}, allow_redirects=False
        )
        assert COOKIE in response.cookies
        assert 'id="terminal"' in await (await client.get("/")).text()
        clock.now += IDLE_SECONDS + 1
        assert 'id="sign-in"' in await (await client.get("/")).text()
        assert (await client.get("/ws")).status == 403


@pytest.mark.parametrize("lang, words", [("en", "your teacher signed you out"), ("zh", "老师让你退出了登录")])
async def test_the_teacher_ends_a_session_and_the_students_tab_says_so(store, lang, words):
    from tui.classweb.student_app import ClassTutorApp
    from tui.screens.session_ended import SessionEndedScreen

    clock = Clock()
    session = signed_in(store, "s1", clock.now)
    app = ClassTutorApp(session, lang=lang, clock=clock, load_engine=False, still=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert store.end_sessions_of("s1", clock.now + 1) == 1
        clock.now += 2
        app.beat()
        await pilot.pause()
        assert isinstance(app.screen, SessionEndedScreen)
        assert words in str(app.screen.query_one("#ended").render())
    assert not session.is_live()


def test_end_session_from_the_command_line(tmp_path, capsys):
    from exercises.classdb import open_class_store
    from tui.cli import main

    folder = tmp_path / "class"
    make_class(folder).close()
    with open_class_store(folder) as store:
        token = store.start_session("s2", 10**10)
    try:
        status = main(["class", "end-session", "s2", "--class", str(folder), "--lang", "en"])
    except SystemExit as exit_:
        status = exit_.code
    assert status == 0 and "s2 is signed out" in capsys.readouterr().out
    with open_class_store(folder) as store, pytest.raises(SessionEnded) as ended:
        store.session(token, 10**10)
    assert ended.value.reason == "ended-by-teacher"


def test_a_renewed_token_opens_the_same_session_and_the_old_one_nothing(store):
    open_quiz(store, 1_000.0)
    old = store.start_session("s1", 1_000.0)
    session = store.session(old, 1_000.0)
    session.start_exam(1_000.0)
    fresh = store.renew_token(old, 1_010.0)
    assert fresh != old
    with pytest.raises(SessionEnded):
        store.session(old, 1_011.0)
    assert store.session(fresh, 1_011.0).student.id == "s1"
    session.save_answer("0:perplexity", "4", 1_012.0)  # the process goes on under the new token
    assert session.exam().answers == {"0:perplexity": "4"}


async def test_the_page_collects_its_renewed_token_once_with_the_code_the_server_sent(store, tmp_path):
    from tui.classweb.server import COOKIE, ClassWebServer

    class Socket:
        sent: list = []

        async def send_json(self, data):
            self.sent.append(data)

    server = ClassWebServer(store, tmp_path / "class", lang="en", clock=Clock(), command="true")
    async with TestClient(TestServer(server.make_app())) as client:
        response = await client.post(
            "/sign-in", data={"student": "s1", "pin": PINS["s1"]}, allow_redirects=False
        )
        old = response.cookies[COOKIE].value
        socket = Socket()
        holder = {"token": old}
        await server._renewed(holder, socket)  # what the app's "class-renew" meta packet starts
        ((_, code),) = socket.sent
        assert holder["token"] != old
        assert 'id="sign-in"' in await (await client.get("/")).text()  # the old cookie opens nothing now
        client.session.cookie_jar.update_cookies({COOKIE: old})
        renewed = await client.post("/renew", data={"code": code})
        assert renewed.status == 200 and renewed.cookies[COOKIE].value == holder["token"]
        assert 'id="terminal"' in await (await client.get("/")).text()
        again = await client.post("/renew", data={"code": code})  # a code works once
        assert again.status == 403


async def test_a_flood_of_sign_ins_never_holds_up_a_signed_in_page(store, tmp_path):
    """PIN checks queue on their own thread: with every one of them stuck, a signed-in
    student's page and state are still answered (no timing: the checks never finish first)."""
    import asyncio
    import threading

    from tui.classweb.server import COOKIE, ClassWebServer

    server = ClassWebServer(store, tmp_path / "class", lang="en", clock=Clock(), command="true")
    async with TestClient(TestServer(server.make_app())) as client:
        response = await client.post(
            "/sign-in", data={"student": "s1", "pin": PINS["s1"]}, allow_redirects=False
        )
        token = response.cookies[COOKIE].value
        stuck, real, stuck_calls = threading.Event(), store.sign_in, []

        def slow_sign_in(*args):
            stuck_calls.append(1)
            stuck.wait(30)
            return real(*args)

        store.sign_in = slow_sign_in
        flood = [
            asyncio.create_task(
                client.post("/sign-in", data={"student": "s2", "pin": f"x{n}"}, allow_redirects=False)
            )
            for n in range(12)
        ]
        while stuck_calls == []:
            await asyncio.sleep(0.01)
        client.session.cookie_jar.update_cookies({COOKIE: token})
        page = await asyncio.wait_for(client.get("/"), timeout=20)
        assert 'id="terminal"' in await page.text() and not stuck.is_set()
        state = await (await client.get("/state")).json()
        assert state["state"] == "live" and not stuck.is_set()
        stuck.set()
        await asyncio.gather(*flood)


async def test_the_page_is_told_why_its_connection_closed(store, tmp_path):
    from tui.classweb.server import COOKIE, ClassWebServer

    server = ClassWebServer(store, tmp_path / "class", lang="zh", clock=Clock(), command="true")
    async with TestClient(TestServer(server.make_app())) as client:
        response = await client.post(
            "/sign-in?lang=zh", data={"student": "s1", "pin": PINS["s1"]}, allow_redirects=False
        )
        token = response.cookies[COOKIE].value
        live = await (await client.get("/state")).json()
        assert live["state"] == "live" and "会话仍然有效" in live["message"]  # not "session ended"
        store.start_session("s1", Clock()())  # signed in somewhere else
        client.session.cookie_jar.update_cookies({COOKIE: token})
        ended = await (await client.get("/state")).json()
        assert ended["state"] == "ended" and "你在别处登录了" in ended["message"]


# -- each student's files, and the process's boundary ----------------------------------------


def test_each_students_training_run_lives_under_that_student_only(tmp_path, monkeypatch):
    import os
    import stat

    from exercises.training.runs import TABLE_NAME, lab_dir, last_table
    from tui.classweb.training import private_home

    monkeypatch.setenv("OBJECTIVES_TUTOR_HOME", str(tmp_path / "shared"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    homes = {}
    for student in ("张伟", "li ming"):
        homes[student] = private_home(tmp_path / "class", student)
        assert os.environ["OBJECTIVES_TUTOR_HOME"] == str(homes[student])
        assert stat.S_IMODE(homes[student].stat().st_mode) == 0o700
    assert homes["张伟"] != homes["li ming"] and homes["张伟"].parent == homes["li ming"].parent
    lab = lab_dir(homes["li ming"])
    lab.mkdir(parents=True)
    (lab / TABLE_NAME).write_text('{"objectives": {}, "settings": {}}', encoding="utf-8")
    assert last_table(homes["li ming"]) is not None
    assert last_table(homes["张伟"]) is None  # 张伟 does not see li ming's run
    assert not (tmp_path / "shared").exists()


def test_training_on_the_class_server_is_off_by_default_and_queues_when_on(tmp_path):
    from exercises.classdb.settings import ClassSettings
    from tui.classweb.training import TrainingGate

    assert TrainingGate(ClassSettings(), tmp_path).enabled is False
    gate = TrainingGate(ClassSettings("on", 200, 1), tmp_path / "slots", sleep=lambda s: None)
    assert gate.enabled and gate.max_steps == 200
    first = gate.acquire(lambda: False, lambda: None)
    assert first is not None
    told, tries = [], []

    def cancelled() -> bool:
        tries.append(1)
        return len(tries) > 3  # the learner gives up after a few looks

    assert gate.acquire(cancelled, lambda: told.append(1)) is None  # the one slot is taken: waited, in turn
    assert told == [1]
    first.release()
    assert gate.acquire(lambda: False, lambda: None) is not None


def test_the_class_setting_is_the_teachers_and_checked(store, tmp_path, capsys):
    from exercises.classdb import ClassStoreError
    from exercises.classdb.settings import ClassSettings

    assert store.class_settings() == ClassSettings()
    store.set_class_settings(ClassSettings("on", 300, 2))
    session = signed_in(store, "s1", 1_000.0)
    assert session.class_settings() == ClassSettings("on", 300, 2)  # a student reads it, never writes it
    assert not hasattr(session, "set_class_settings")
    for bad in (ClassSettings("maybe"), ClassSettings("on", 0), ClassSettings("on", 100, 99)):
        with pytest.raises(ClassStoreError):
            store.set_class_settings(bad)


def test_a_students_process_holds_its_session_and_nothing_of_the_teachers(store, tmp_path):
    from exercises.classdb import ClassStore
    from exercises.classdb.sessions import open_student_session

    token = store.start_session("s1", 1_000.0)
    session = open_student_session(tmp_path / "class", None, token, 1_000.0)
    try:
        assert session.student.id == "s1"
        assert not any(isinstance(value, ClassStore) for value in vars(session).values())
        for teacher_only in ("open_quiz", "sign_in", "students", "exams", "end_sessions_of", "unlock"):
            assert not hasattr(session, teacher_only)
    finally:
        session.close()
    with pytest.raises(SessionEnded):
        open_student_session(tmp_path / "class", None, "forged", 1_000.0)
    assert quiz_text()  # the helpers stay importable


# -- issue 31: someone who wants to annoy the class --------------------------------------------
# The real server (aiohttp on loopback, an ephemeral port) with an injected clock and sleep;
# addresses other than 127.0.0.1 are nginx's X-Real-IP from a trusted proxy (the test client).


def _annoyed_server(store, tmp_path, sleep, clock=None, trusted=("127.0.0.1",)):
    from tui.classweb.server import ClassWebServer

    return ClassWebServer(
        store,
        tmp_path / "class",
        lang="en",
        clock=clock or Clock(),
        command="true",
        sleep=sleep,
        trusted_proxies=frozenset(trusted),
    )


async def _try(client, student, pin, address="127.0.0.1", **headers):
    return await client.post(
        "/sign-in",
        data={"student": student, "pin": pin},
        headers={"X-Real-IP": address, **headers},
        allow_redirects=False,
    )


@pytest.mark.parametrize("owner", ["s2", "t1"])  # a student, and the teacher's own id
async def test_a_guesser_at_another_address_never_keeps_the_owner_out(store, tmp_path, owner):
    """Wrong PINs for an id from one address, then MAX_PENDING_PER_SOURCE more held
    waiting: the owner, at another address, with the right PIN, is in at once (a sleep
    for them fails the test) every time, for as long as the guessing goes on."""
    import asyncio

    from tui.classweb.server import COOKIE, MAX_PENDING_PER_SOURCE

    held, release = [], asyncio.Event()

    async def sleep(seconds: float) -> None:
        held.append(seconds)
        if len(held) > MAX_PENDING_PER_SOURCE:
            raise RuntimeError("someone who was not guessing was made to wait")
        await release.wait()

    server = _annoyed_server(store, tmp_path, sleep)
    async with TestClient(TestServer(server.make_app())) as client:
        for n in range(5):  # from here on, this address's tries for this id wait
            assert (await _try(client, owner, f"WRONG-{n}", "10.0.0.66")).status == 403
        guesses = [
            asyncio.create_task(_try(client, owner, f"GUESS-{n}", "10.0.0.66"))
            for n in range(MAX_PENDING_PER_SOURCE)
        ]
        for _ in range(10_000):  # every guess held (bounded: the loop only yields)
            if len(held) == MAX_PENDING_PER_SOURCE:
                break
            await asyncio.sleep(0)
        assert len(held) == MAX_PENDING_PER_SOURCE
        one_more = await _try(client, owner, "GUESS-X", "10.0.0.66")
        assert one_more.status == 429  # the guesser is turned away, at no cost
        for _ in range(3):  # the owner, again and again, during the attack
            client.session.cookie_jar.clear()
            response = await _try(client, owner, PINS[owner], "10.0.0.7")
            assert response.status == 303 and COOKIE in response.cookies
        release.set()
        assert {(await guess).status for guess in guesses} == {403}  # held, then checked
    assert {row[1] for row in store.failed_sign_ins(0)} == {"10.0.0.66"}  # the teacher sees the guesser


async def test_one_address_that_floods_unknown_ids_never_locks_out_its_class(store, tmp_path):
    """A class behind one NAT (or nginx): ~90 unknown-id failures from the address, then
    MAX_PENDING_PER_SOURCE held: everyone else there, with their PIN, is in at once."""
    import asyncio

    from tui.classweb.server import MAX_PENDING_PER_SOURCE

    clock, held, release = Clock(), [], asyncio.Event()

    async def sleep(seconds: float) -> None:
        held.append(seconds)
        if len(held) > MAX_PENDING_PER_SOURCE:
            raise RuntimeError("a classmate was made to wait")
        await release.wait()

    server = _annoyed_server(store, tmp_path, sleep, clock)
    nat = "192.0.2.1"
    async with TestClient(TestServer(server.make_app())) as client:
        for n in range(90):  # 90 failures in 8 s
            clock.now += 8 / 90
            assert (await _try(client, f"nobody{n}", "WRONG", nat)).status == 403
        for _ in range(5):  # one unknown id guessed on: its tries are held
            assert (await _try(client, "ghost", "WRONG", nat)).status == 403
        flood = [asyncio.create_task(_try(client, "ghost", "X", nat)) for _ in range(MAX_PENDING_PER_SOURCE)]
        for _ in range(10_000):
            if len(held) == MAX_PENDING_PER_SOURCE:
                break
            await asyncio.sleep(0)
        assert len(held) == MAX_PENDING_PER_SOURCE
        for student in ("s1", "s2", "t1"):  # the class, behind the same address
            client.session.cookie_jar.clear()
            assert (await _try(client, student, PINS[student], nat)).status == 303, student
        release.set()
        await asyncio.gather(*flood)


async def test_x_real_ip_counts_only_from_a_trusted_proxy(store, tmp_path):
    """From an address nobody named, X-Real-IP is the attacker's own text: a guesser who
    writes a new one each try is still one address (its 6th try is held)."""
    import asyncio

    from tui.classweb.server import ClassWebServer

    held = []

    async def sleep(seconds: float) -> None:
        held.append(seconds)

    untrusted = _annoyed_server(store, tmp_path, sleep, trusted=())
    async with TestClient(TestServer(untrusted.make_app())) as client:
        for n in range(6):
            await _try(client, "s1", f"WRONG-{n}", f"10.9.0.{n}")
    assert held == [1.0]
    assert {row[1] for row in store.failed_sign_ins(0)} == {"127.0.0.1"}
    held.clear()
    trusted = ClassWebServer(
        store,
        tmp_path / "class",
        clock=Clock(),
        command="true",
        sleep=sleep,
        trusted_proxies=frozenset({"::1"}),
    )
    assert trusted.trusted_proxies == {"::1"} and asyncio.iscoroutinefunction(sleep)


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},  # a sandboxed frame, a data: page
        {"Sec-Fetch-Site": "cross-site"},  # a browser that sent no Origin
        {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
    ],
)
async def test_a_sign_in_posted_from_another_site_gets_no_cookie(store, tmp_path, headers):
    """Login CSRF: another site's page posts our form with the attacker's id and PIN; the
    victim's browser would then be signed in as the attacker. Refused; the page's own
    POST (Origin = the Host the browser used, as behind nginx) signs in."""
    from tui.classweb.server import COOKIE

    server = _annoyed_server(store, tmp_path, None)
    async with TestClient(TestServer(server.make_app())) as client:
        response = await _try(client, "s1", PINS["s1"], **headers)
        assert response.status == 403 and COOKIE not in response.cookies
        assert "another site" in await response.text()
        assert (await client.post("/sign-out", headers=headers, allow_redirects=False)).status == 403
        assert (await client.post("/renew", data={"code": "x"}, headers=headers)).status == 403
        host = "class.example:8080"  # behind nginx: Host is the browser's ($http_host)
        own = {"Host": host, "Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"}
        response = await _try(client, "s1", PINS["s1"], **own)
        assert response.status == 303 and COOKIE in response.cookies


async def test_slow_sockets_are_closed_and_never_take_the_room_of_the_class(store, tmp_path, monkeypatch):
    """Slowloris (issue 31: incomplete requests never timed out; 1,100 of them took the
    server past its 1,024 files). The real server on loopback, its caps made small: one
    address gets MAX_CONNECTIONS_PER_ADDRESS connections, the others are closed at once;
    a student at another address signs in meanwhile; the slow ones are closed after
    HEADER_SECONDS (aiohttp's loop clock: here a fraction of a second, the test's only wait)."""
    import asyncio
    import socket

    import aiohttp

    from tui.classweb import server as module

    monkeypatch.setattr(module, "HEADER_SECONDS", 0.3)
    monkeypatch.setattr(module, "MAX_CONNECTIONS_PER_ADDRESS", 5)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = _annoyed_server(store, tmp_path, None, trusted=())
    runner = await module.start_site(server, "127.0.0.1", port)
    slow = []
    try:
        for _ in range(8):
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=("127.0.0.2", 0))
            writer.write(b"POST /sign-in HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # never finished
            await writer.drain()
            slow.append((reader, writer))
        closed_at_once = 0
        for reader, _writer in slow:
            try:
                data = await asyncio.wait_for(reader.read(1), 0.05)
            except TimeoutError:
                continue
            closed_at_once += data == b""
        assert closed_at_once == 3
        jar = aiohttp.CookieJar(unsafe=True)
        async with (
            aiohttp.ClientSession(cookie_jar=jar) as http,
            http.post(
                f"http://127.0.0.1:{port}/sign-in",
                data={"student": "s1", "pin": PINS["s1"]},
                allow_redirects=False,
            ) as response,
        ):
            assert response.status == 303
        for reader, _writer in slow:  # every slow one is closed by the header timeout
            assert await asyncio.wait_for(reader.read(100), 30) == b""
    finally:
        for _reader, writer in slow:
            writer.close()
        await runner.cleanup()


@pytest.mark.parametrize(
    "invisible", ["\u200b", "\u200d", "\u2060", "\ufeff", "\u202e", "\u2066", "\u061c", "\u00ad"]
)
def test_an_invisible_character_in_a_typed_id_is_visible_in_the_failed_sign_ins(store, invisible):
    """issue 31: "s1" + a zero-width space was logged as typed, and the dashboard's failed
    sign-ins showed "s1": the teacher saw a student failing who was not. Every character
    that prints as nothing (or turns text around) is logged as its \\u escape."""
    store.sign_in(f"s1{invisible}", "WRONG", 1_000.0, "10.0.0.66")
    ((who, _source, _at, _reason),) = store.failed_sign_ins(0)
    assert who != "s1" and invisible not in who and who.isprintable()
    assert who.startswith("s1\\") and who.endswith(f"{ord(invisible):02x}")


@pytest.mark.parametrize(
    "lang, words, wrong",
    [("en", "not signed in", "the server ended it"), ("zh", "未登录", "服务器结束了它")],
)
async def test_a_forged_cookie_on_state_is_told_it_was_never_signed_in(store, tmp_path, lang, words, wrong):
    """issue 31: /state said a forged (or no) cookie's "session has ended (the server ended
    it)": no session ever was. It says this browser is not signed in."""
    from tui.classweb.server import COOKIE

    server = _annoyed_server(store, tmp_path, None)
    async with TestClient(TestServer(server.make_app())) as client:
        for forged in ("forged", "A" * 43, "\u202eabc", "a" * 500, None):
            client.session.cookie_jar.clear()
            if forged is not None:
                client.session.cookie_jar.update_cookies({COOKIE: forged})
            state = await (await client.get(f"/state?lang={lang}")).json()
            assert state["state"] == "ended"
            assert words in state["message"] and wrong not in state["message"], state


async def test_live_is_what_the_server_sees_not_what_a_session_says(store, tmp_path):
    """issue 31: sessions that outlived a killed server kept heartbeating, so the dashboard
    showed the class live. A session's own heartbeat says where it is, never that it is
    live; the server marks it seen while its tab's websocket is open."""
    from tui.classweb.server import COOKIE, ClassWebServer

    clock = Clock()
    token = store.start_session("s1", clock.now)
    session = store.session(token, clock.now)
    session.heartbeat(clock.now + 100, "home")  # the process alone: not live
    ((live,),) = [[s for s in store.live_sessions(clock.now + 100)]]
    assert live.last_seen == clock.now and live.where == "home"
    clock.now += 200
    server = ClassWebServer(store, tmp_path / "class", lang="en", clock=clock, command="sleep 30")
    async with TestClient(TestServer(server.make_app())) as client:
        client.session.cookie_jar.update_cookies({COOKIE: token})
        socket = await client.ws_connect("/ws")
        for _ in range(1000):  # the server's first look, at once (bounded: yields only)
            if store.live_sessions(clock.now)[0].last_seen == clock.now:
                break
            await __import__("asyncio").sleep(0.01)
        assert store.live_sessions(clock.now)[0].last_seen == clock.now
        await socket.close()


def test_the_pages_let_the_browser_name_their_origin_on_a_post():
    """The server refuses a POST whose Origin is not its own (login CSRF). Under
    Referrer-Policy: no-referrer a browser posts the sign-in form with "Origin: null", so
    no student could sign in (seen in real Chromium); same-origin still tells other sites
    nothing."""
    from tui.classweb.pages import new_nonce, security_headers

    assert security_headers(new_nonce())["Referrer-Policy"] == "same-origin"
