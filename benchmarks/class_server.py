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
import pathlib
import statistics
import sys
import tempfile
import threading
import time

sys.path[:] = [
    p for p in sys.path if pathlib.Path(p or ".").resolve() != pathlib.Path(__file__).parent.resolve()
]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

PIN = "ABCD-EFGH"
BOXES = 5  # answer boxes each student cycles through


def _quiz_text(minutes: int) -> str:
    from exercises.classroom.quiz import dump_toml, new_quiz

    return dump_toml(new_quiz("Load test", ["clm-shift", "mlm-abcde"], minutes))


def _student_thread(store, token: str, seconds: float, start_at: float, out: dict) -> None:
    from exercises.classdb import answer_key

    session = store.session(token)
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
            store.session(token).start_exam(time.time())
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
            sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--part", choices=("db", "all"), default="db", help="which measurements (h6 adds sessions)"
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
    ok = all(r.get("p99_under_100ms") and r.get("no_lost_write") for r in reports if "skipped" not in r)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
