"""Signing in: an id and a PIN as people type them, checked against the salted
hash, every failure logged with its source.

Wrong PINs slow the next try down and never lock anyone out. After
RATE_LIMIT_FAILURES failures for one id (within RATE_LIMIT_WINDOW, since its last
success or the teacher's unlock), a try for that id is checked only once a wait
has passed since the last failure: 1 s, then 2, 4, ... at most SLOW_DOWN_MAX. So
whoever types a classmate's id with wrong PINs makes their own next guess wait,
while the classmate, who knows the PIN, is in after at most that wait. The same
holds per address after SOURCE_FAILURES (a class behind one NAT shares an
address: sixty typos are not an attack). A try made too soon is refused at once
("too-soon", with the wait), costs no PIN check and counts as nothing. The PINs
have ~35 bits: at one guess per second for a month an attacker would still be
unlikely (odds 1 in 13,000) to find one.

Every wait is the database's (several servers on one database share it), from
the ``now`` given: tests inject the clock."""

from __future__ import annotations

import math
from dataclasses import dataclass

from exercises.classdb.backends import Backend, Tx
from exercises.classdb.model import (
    RATE_LIMIT_FAILURES,
    RATE_LIMIT_WINDOW,
    SLOW_DOWN_MAX,
    SOURCE_FAILURES,
    SignIn,
    SignInTrouble,
)
from exercises.classdb.pins import check_pin, loggable, typed_id
from exercises.classdb.roster import match
from exercises.classdb.rows import finite

TEACHER_SOURCE = "teacher"  # the source of an unlock row


def slow_down(failures: int, free: int, step: int = 1) -> float:
    """Seconds a try waits after the last failure, once ``failures`` reached ``free``:
    doubling every ``step`` more failures, at most SLOW_DOWN_MAX."""
    if failures < free:
        return 0.0
    return min(SLOW_DOWN_MAX, 2.0 ** ((failures - free) // step))


@dataclass(frozen=True)
class _Count:
    failures: int
    last_at: float | None


def _count(tx: Tx, column: str, value: str, now: float) -> _Count:
    """Failures for one id (``column`` "who") or one address ("source") in the window,
    since the last success or unlock of that id / address."""
    if column == "who":
        reset = tx.one(
            "SELECT MAX(at) FROM sign_in_log WHERE who = ? AND outcome IN ('ok', 'unlocked')", (value,)
        )[0]
    else:
        reset = tx.one(
            "SELECT MAX(at) FROM sign_in_log WHERE source = ? AND who = '' AND outcome = 'unlocked'", (value,)
        )[0]
    since = max(now - RATE_LIMIT_WINDOW, reset if reset is not None else -math.inf)
    row = tx.one(
        f"SELECT COUNT(*), MAX(at) FROM sign_in_log WHERE {column} = ? AND at > ? AND at <= ? "
        "AND outcome IN ('unknown', 'bad-pin')",
        (value, since, now),
    )
    return _Count(int(row[0]), row[1])


def _wait(count: _Count, free: int, step: int, now: float) -> float:
    if count.last_at is None:
        return 0.0
    return max(0.0, count.last_at + slow_down(count.failures, free, step) - now)


def _log(tx: Tx, who: str, student: str | None, source: str, now: float, outcome: str) -> int:
    return tx.one(
        "INSERT INTO sign_in_log (who, student, source, at, outcome) VALUES (?, ?, ?, ?, ?) RETURNING id",
        (who, student, source, now, outcome),
    )[0]


class SignIns:
    backend: Backend
    pin_cost: int

    def _waits(self, tx: Tx, who: str, source: str, now: float) -> float:
        by_id = _wait(_count(tx, "who", who, now), RATE_LIMIT_FAILURES, 1, now)
        by_source = _wait(_count(tx, "source", source, now), SOURCE_FAILURES, 10, now)
        return max(by_id, by_source)

    def sign_in_wait(self, student_id: object, now: float, source: object = "") -> float:
        """How long a try for this id from this address must wait now (0: at once). The web
        server waits this long before it asks sign_in, so a student is never refused."""
        now = finite(now)
        typed = typed_id(student_id)
        with self.backend.read() as tx:
            found = match(tx, typed) if typed else None
            who = found[0].id if found else (typed or loggable(student_id))
            return self._waits(tx, who, loggable(source, 100), now)

    def sign_in(self, student_id: object, pin: object, now: float, source: object = "") -> SignIn:
        """Check an id and PIN as typed. Never raises on what was typed: an id that
        cannot be one is "unknown", a PIN that cannot be one is "bad-pin"; "too-soon"
        (with the wait) when wrong PINs for this id or address asked for a wait that has
        not passed. An unknown id costs one PIN check, like a known one."""
        now = finite(now)
        typed = typed_id(student_id)
        where = loggable(source, 100)
        with self.backend.write(lock="sign-in") as tx:  # count and log at once: parallel guesses count too
            found = match(tx, typed) if typed else None
            who = found[0].id if found else (typed or loggable(student_id))
            student = found[0].id if found else None
            wait = self._waits(tx, who, where, now)
            if wait > 0:
                _log(tx, who, student, where, now, "too-soon")
                return SignIn(False, None, "too-soon", wait)
            entry = _log(tx, who, student, where, now, "unknown" if found is None else "bad-pin")
        good = check_pin(pin if isinstance(pin, str) else "", found[1] if found else None, self.pin_cost)
        if found is None:
            return SignIn(False, None, "unknown")
        if not good:
            return SignIn(False, None, "bad-pin")
        with self.backend.write() as tx:
            tx.run("UPDATE sign_in_log SET outcome = 'ok' WHERE id = ?", (entry,))
        return SignIn(True, found[0], "ok")

    def unlock(self, who: str, now: float) -> None:
        """The teacher's unlock: failures for this student id (or, for an address, from
        it) before ``now`` no longer slow anything down. Logged like a sign-in."""
        with self.backend.write(lock="sign-in") as tx:
            if tx.one("SELECT 1 FROM students WHERE id = ?", (who,)):
                _log(tx, who, who, TEACHER_SOURCE, finite(now), "unlocked")
            else:
                tx.run(
                    "INSERT INTO sign_in_log (who, student, source, at, outcome) VALUES ('', NULL, ?, ?, ?)",
                    (loggable(who, 100), finite(now), "unlocked"),
                )

    def failed_sign_ins(self, since: float) -> list[tuple[str, str, float, str]]:
        """(id as typed or matched, source, time, reason) of every failure since ``since``,
        the refused tries ("too-soon") included."""
        with self.backend.read() as tx:
            return [
                tuple(row)
                for row in tx.all(
                    "SELECT who, source, at, outcome FROM sign_in_log WHERE at >= ? "
                    "AND outcome IN ('unknown', 'bad-pin', 'too-soon') ORDER BY at, id",
                    (finite(since),),
                )
            ]

    def sign_in_trouble(self, now: float) -> list[SignInTrouble]:
        """The ids with failures counted now (the teacher's view: who is being slowed
        down, from where), the most failures first."""
        now = finite(now)
        with self.backend.read() as tx:
            whos = [
                row[0]
                for row in tx.all(
                    "SELECT DISTINCT who FROM sign_in_log WHERE at > ? AND outcome IN ('unknown', 'bad-pin')",
                    (now - RATE_LIMIT_WINDOW,),
                )
            ]
            found = []
            for who in whos:
                count = _count(tx, "who", who, now)
                if count.failures == 0:
                    continue
                last = tx.one(
                    "SELECT source, student FROM sign_in_log WHERE who = ? AND outcome IN ('unknown', 'bad-pin') "
                    "ORDER BY at DESC, id DESC LIMIT 1",
                    (who,),
                )
                found.append(
                    SignInTrouble(
                        who,
                        last[1],
                        count.failures,
                        float(count.last_at),
                        last[0],
                        _wait(count, RATE_LIMIT_FAILURES, 1, now),
                    )
                )
        return sorted(found, key=lambda t: (-t.failures, -t.last_at, t.who))
