"""The class server under load (issue 15).

Database part (h5): a whole class answering at once. Every student has a live
session and an open exam; each saves one answer a second (``save_answer``, one
transaction each, as the exam screen does while a student types) for the whole
run, from worker processes with one thread and one real database connection per
student. Afterwards every acknowledged save is looked for in the database: the
answer log must hold each one, and each answer box must hold its last text (no
lost write). Reported: saves, p50/p95/p99/max save latency, and the targets
(p99 under 100 ms, nothing lost), on SQLite and on PostgreSQL in one run.

    .venv/bin/python benchmarks/class_server.py --part db [--students 60] [--seconds 120]
        [--backend sqlite|postgresql|both] [--processes 4]

PostgreSQL: $OBJECTIVES_TUTOR_TEST_PG, else a throwaway cluster (tests/pg_server.py).
CI never runs this file: it takes minutes by design.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pathlib
import statistics
import tempfile
import threading
import time

import repository  # noqa: F401  (first: the project, not this folder's engine.py)

PIN = "ABCD-EFGH"
BOXES = 5  # answer boxes each student cycles through


def _quiz_text(minutes: int) -> str:
    from exercises.classroom.quiz import dump_toml, new_quiz

    return dump_toml(new_quiz("Load test", ["clm-shift", "mlm-abcde"], minutes))


def _student_thread(store, token: str, seconds: float, start_at: float, out: dict) -> None:
    from exercises.classdb import answer_key

    session = store.session(token, time.time())
    latencies, acked = [], []
    count = 0
    while True:
        due = start_at + count
        if due >= start_at + seconds:
            break
        pause = due - time.time()
        if pause > 0:
            time.sleep(pause)
        key = answer_key(count % BOXES, "labels")
        text = f"{session.student.id}-{count}"
        began = time.perf_counter()
        try:
            session.save_answer(key, text, time.time())
        except Exception as error:  # reported as a failed save, never silently dropped
            out.setdefault("errors", []).append(f"{type(error).__name__}: {error}"[:200])
        else:
            latencies.append(time.perf_counter() - began)
            acked.append((key, text))
        count += 1
    out["latencies"], out["acked"], out["student"] = latencies, acked, session.student.id


def _worker(class_dir: str, url: str | None, tokens: list[str], seconds: float, ready, go, results) -> None:
    """One process: a thread (and a connection) per student it was given. It says when
    it is ready, waits for the common start, and sends back what each student saw."""
    from exercises.classdb import open_class_store

    store = open_class_store(pathlib.Path(class_dir), url)
    store.current_quiz()  # connected before the clock starts
    ready.put(len(tokens))
    go.wait()
    start_at = go.start_at.value
    outs = [{} for _ in tokens]
    threads = [
        threading.Thread(
            target=_student_thread, args=(store, token, seconds, start_at + n / len(tokens), out)
        )
        for n, (token, out) in enumerate(zip(tokens, outs, strict=True))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    results.put(outs)


class _Go:
    """An event and the common start time (set just before the event)."""

    def __init__(self, context) -> None:
        self.event = context.Event()
        self.start_at = context.Value("d", 0.0)

    def wait(self) -> None:
        self.event.wait()

    def set(self, start_at: float) -> None:
        self.start_at.value = start_at
        self.event.set()


def _run_workers(
    folder: str, url: str | None, tokens: list[str], seconds: float, processes: int
) -> list[dict]:
    context = multiprocessing.get_context("spawn")  # fresh processes: no connection inherited
    ready, results, go = context.Queue(), context.Queue(), _Go(context)
    chunks = [chunk for chunk in (tokens[n::processes] for n in range(processes)) if chunk]
    workers = [
        context.Process(target=_worker, args=(folder, url, chunk, seconds, ready, go, results))
        for chunk in chunks
    ]
    for worker in workers:
        worker.start()
    for _ in workers:
        ready.get(timeout=300)
    go.set(time.time() + 1.0)
    collected = [result for _ in workers for result in results.get(timeout=seconds + 300)]
    for worker in workers:
        worker.join()
    return collected


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def database_load(backend: str, url: str | None, students: int, seconds: float, processes: int) -> dict:
    """60 students (by default) saving one answer a second each; see the module docstring."""
    from exercises.classdb import Student, open_class_store

    with tempfile.TemporaryDirectory(prefix="tutor-class-bench-") as folder:
        store = open_class_store(pathlib.Path(folder), url, create=True)
        roster = [Student(f"s{n:03d}", f"学生{n}") for n in range(students)]
        store.add_students([(student, PIN) for student in roster])
        store.open_quiz(_quiz_text(max(1, int(seconds // 60) + 10)), time.time())
        sign_in = []
        tokens = []
        for student in roster:
            began = time.perf_counter()
            assert store.sign_in(student.id, PIN, time.time(), "bench").ok
            sign_in.append(time.perf_counter() - began)
            token = store.start_session(student.id, time.time())
            store.session(token, time.time()).start_exam(time.time())
            tokens.append(token)
        results = _run_workers(folder, url, tokens, seconds, processes)
        latencies = [value for result in results for value in result["latencies"]]
        errors = [error for result in results for error in result.get("errors", [])]
        # every acknowledged save, looked for in the database
        quiz_id = store.current_quiz().quiz_id
        exams = {exam.student: exam for exam in store.exams(quiz_id)}
        lost = 0
        for result in results:
            log = store.answer_log(quiz_id, result["student"])
            lost += max(0, len(result["acked"]) - len(log))
            last = {}
            for key, text in result["acked"]:
                last[key] = text
            saved = exams[result["student"]].answers
            lost += sum(1 for key, text in last.items() if saved.get(key) != text)
        store.close()
    return {
        "backend": backend,
        "students": students,
        "seconds": seconds,
        "processes": processes,
        "saves": len(latencies),
        "expected_saves": students * int(seconds),
        "failed_saves": len(errors),
        "first_errors": errors[:3],
        "lost_writes": lost,
        "save_ms": {
            "p50": round(1000 * _percentile(latencies, 0.50), 2),
            "p95": round(1000 * _percentile(latencies, 0.95), 2),
            "p99": round(1000 * _percentile(latencies, 0.99), 2),
            "max": round(1000 * max(latencies, default=float("nan")), 2),
            "mean": round(1000 * statistics.fmean(latencies), 2) if latencies else None,
        },
        "sign_in_ms_p50": round(1000 * _percentile(sign_in, 0.5), 1),
        "p99_under_100ms": _percentile(latencies, 0.99) < 0.100,
        "no_lost_write": lost == 0 and not errors,
    }


def run_database_part(args: argparse.Namespace) -> list[dict]:
    reports = []
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    cluster = None
    for backend in backends:
        url = None
        if backend == "postgresql":
            from tests import pg_server

            url, cluster, why = pg_server.server_url()
            if url is None:
                reports.append({"backend": backend, "skipped": why})
                continue
            schema_context = pg_server.fresh_url(url)
            url = schema_context.__enter__()
        try:
            reports.append(database_load(backend, url, args.students, args.seconds, args.processes))
        finally:
            if backend == "postgresql":
                schema_context.__exit__(None, None, None)
                if cluster is not None:
                    cluster.stop()
        print(json.dumps(reports[-1], ensure_ascii=False), flush=True)
    return reports


# -- Sessions part (h6): memory per signed-in session, time to usable ---------------------
#
# The real server (`class serve`) on loopback, a class of N students signing in within
# SPREAD seconds (evenly spaced), each through the HTTP sign-in and a websocket, as a
# browser tab does (aiohttp clients: no browser, so only the server's side is measured).
# "Usable": the first frame the student can work in has arrived (the exam's first
# question; in the tutor, the lesson list). Memory: PSS of every session process tree
# (/proc/PID/smaps_rollup; the shell textual-serve starts plus the app), once every
# student is connected; in the tutor after the engine (torch) has loaded in each.

SESSION_PIN = "WXYZ-2345"
_ANSI = __import__("re").compile(rb"\x1b\[[0-9;?$]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


IDLE_SECONDS = 10.0  # how long the class sits still, every tab open, to measure what idling costs


def _cpu_seconds(pids: list[int]) -> dict[int, float]:
    """CPU seconds (user + system) each process has used so far (gone ones left out)."""
    ticks = os.sysconf("SC_CLK_TCK")
    used = {}
    for pid in pids:
        try:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return used


def _children(pid: int) -> list[int]:
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def _descendants(pid: int) -> list[int]:
    """Every process under the server: the sessions' shells and processes, and the warm
    process with the sessions it forked."""
    found, todo = [], _children(pid)
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(_children(child))
    return found


async def _one_student(url: str, student: str, delay: float, marker: str, ready, loaded, stop) -> dict:
    """One browser tab: sign in, open the websocket, read frames until ``marker``
    (usable), then, in the tutor, until "engine ready"; stay connected until ``stop``."""
    import asyncio

    import aiohttp

    await asyncio.sleep(delay)
    began = time.perf_counter()
    times = {"sign_in": None, "usable": None, "engine_loaded": None}
    # unsafe=True: keep cookies from an IP-address host (127.0.0.1), as a browser does
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as client:
        response = await client.post(
            url + "sign-in", data={"student": student, "pin": SESSION_PIN}, allow_redirects=False
        )
        times["sign_in"] = time.perf_counter() - began
        assert response.status == 303, response.status
        socket = await client.ws_connect(
            url.replace("http", "ws", 1) + "ws?width=100&height=30", headers={"Origin": url.rstrip("/")}
        )
        tail = b""
        await socket.send_json(["resize", {"width": 100, "height": 30}])  # as the page does on open
        async for message in socket:
            if message.type != aiohttp.WSMsgType.BINARY:
                continue
            tail = (tail + message.data)[-20_000:]
            text = _ANSI.sub(b"", tail)  # styles and cursor moves split the words
            if times["usable"] is None and marker.encode() in text:
                times["usable"] = time.perf_counter() - began
                ready.set_result(True)
                if loaded is None:
                    break
            if loaded is not None and times["usable"] is not None and b"engine ready" in text:
                times["engine_loaded"] = time.perf_counter() - began
                loaded.set_result(True)
                break
        await stop.wait()
        await socket.close()
    return times


def session_load(students: int, spread: float, mode: str, warm: bool) -> dict:
    """N students signing in within ``spread`` seconds; ``mode`` "exam" (a quiz is open)
    or "tutor" (no quiz: lessons, the engine loads in each session); ``warm``: sessions
    forked from the warm process (the default) or each started from scratch (--cold)."""
    import asyncio
    import signal
    import subprocess

    from exercises.classdb import Student, open_class_store
    from tests.class_web_helpers import free_port, serve_class

    with tempfile.TemporaryDirectory(prefix="tutor-sessions-bench-") as folder:
        store = open_class_store(pathlib.Path(folder), create=True)
        roster = [Student(f"s{n:03d}", f"学生{n}") for n in range(students)]
        store.add_students([(student, SESSION_PIN) for student in roster])
        if mode == "exam":
            from exercises.classdb.render import render_questions
            from exercises.classroom.quiz import loads

            text = _quiz_text(30)
            store.open_quiz(text, time.time(), "bench", render_questions(loads(text), [s.id for s in roster]))
        store.close()
        port = free_port()
        server = serve_class(folder, port, *([] if warm else ["--cold"]), stderr=subprocess.DEVNULL)
        try:
            server.stdout.readline()
            url = server.stdout.readline().strip()
            marker = "Question 1 of" if mode == "exam" else "Course:"

            async def run() -> tuple[list[dict], dict]:
                stop = asyncio.Event()
                loop = asyncio.get_running_loop()
                readies = [loop.create_future() for _ in roster]
                loads = [loop.create_future() if mode == "tutor" else None for _ in roster]
                tasks = [
                    asyncio.create_task(
                        _one_student(
                            url, s.id, spread * n / max(1, students), marker, readies[n], loads[n], stop
                        )
                    )
                    for n, s in enumerate(roster)
                ]
                for task, ready in zip(tasks, readies, strict=True):  # a failed tab stops the wait
                    task.add_done_callback(
                        lambda t, r=ready: r.done() or r.set_exception(t.exception() or RuntimeError("ended"))
                    )
                await asyncio.wait_for(asyncio.gather(*readies), timeout=900)
                if mode == "tutor":
                    await asyncio.wait_for(asyncio.gather(*loads), timeout=1800)
                processes = _descendants(server.pid)
                before = _cpu_seconds([server.pid, *processes])
                await asyncio.sleep(IDLE_SECONDS)  # every tab open, nobody typing
                after = _cpu_seconds([server.pid, *processes])
                idle_cpu = (
                    sum(after[pid] - before[pid] for pid in after.keys() & before.keys()) / IDLE_SECONDS
                )
                memory = {
                    "idle_cores": round(idle_cpu, 3),
                    "processes": len(processes),
                    "pss_mb_all": round(sum(_pss_kb(p) for p in processes) / 1024, 1),
                    "server_pss_mb": round(_pss_kb(server.pid) / 1024, 1),
                }
                stop.set()
                return await asyncio.gather(*tasks), memory

            results, memory = asyncio.run(run())
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
    usable = sorted(r["usable"] for r in results)
    return {
        "part": "sessions",
        "mode": mode,
        "warm": warm,
        "students": students,
        "signing_in_within_s": spread,
        "usable_p50_s": round(statistics.median(usable), 2),
        "usable_p95_s": round(_percentile(usable, 0.95), 2),
        "usable_max_s": round(usable[-1], 2),
        "usable_s_in_arrival_order": [round(r["usable"], 2) for r in results],
        "sign_in_max_s": round(max(r["sign_in"] for r in results), 3),
        # everything under the server (shells, session processes, the warm process) / students
        "pss_mb_per_session": round(memory["pss_mb_all"] / students, 1),
        "pss_mb_all_sessions": memory["pss_mb_all"],
        "server_pss_mb": memory["server_pss_mb"],
        "processes": memory["processes"],
        # cores the server and every session use while the class sits still for IDLE_SECONDS
        "idle_cores_all_sessions": memory["idle_cores"],
    }


def run_sessions_part(args: argparse.Namespace) -> list[dict]:
    reports = []
    for mode in args.modes.split(","):
        for students in (int(n) for n in args.session_counts.split(",")):
            for warm in {"both": (False, True), "warm": (True,), "cold": (False,)}[args.which]:
                report = session_load(students, args.spread, mode, warm)
                print(json.dumps(report, ensure_ascii=False), flush=True)
                reports.append(report)
    pairs = zip(reports[::2], reports[1::2], strict=True) if args.which == "both" else ()
    for cold, warm in pairs:  # the ratios, in one run
        print(
            json.dumps(
                {
                    "part": "sessions",
                    "mode": cold["mode"],
                    "students": cold["students"],
                    "cold_over_warm_pss": round(cold["pss_mb_per_session"] / warm["pss_mb_per_session"], 2),
                    "cold_over_warm_usable_p95": round(cold["usable_p95_s"] / warm["usable_p95_s"], 2),
                }
            ),
            flush=True,
        )
    return reports


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("db", "sessions", "all"), default="db", help="which measurements")
    # h6: the sessions part
    parser.add_argument(
        "--session-counts", default="10,30", help="sessions part: class sizes (default 10,30)"
    )
    parser.add_argument("--spread", type=float, default=10.0, help="sessions part: sign-ins within seconds")
    parser.add_argument("--modes", default="exam,tutor", help="sessions part: exam, tutor or both")
    parser.add_argument(
        "--which", choices=("both", "warm", "cold"), default="both", help="sessions part: warm, cold or both"
    )
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument(
        "--seconds", type=float, default=120.0, help="how long the class answers (default 120)"
    )
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument(
        "--processes", type=int, default=4, help="worker processes (threads: one per student)"
    )
    args = parser.parse_args()
    reports = run_database_part(args) if args.part in ("db", "all") else []
    if args.part in ("sessions", "all"):  # h6
        run_sessions_part(args)
    ok = all(r.get("p99_under_100ms") and r.get("no_lost_write") for r in reports if "skipped" not in r)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
