"""Signing in: an id and a PIN as people type them, checked against the salted
hash, every failure logged with its source.

Wrong PINs slow the guesser down, never the id, and never lock anyone out. The
count is kept per (id, address) pair: after RATE_LIMIT_FAILURES failures for one id
from one address (within RATE_LIMIT_WINDOW, since that pair's last success or the
teacher's unlock of the id or the address), that address's next try for that id is
checked only once a wait has passed since the pair's last failure: 1 s, then 2, 4,
... at most SLOW_DOWN_MAX. The owner, typing the right PIN from their own address, is
never slowed by a guesser at another address; a class behind one NAT shares an
address, but a guesser there slows only the ids it guessed (an unknown id slows only
itself). A try made too soon is refused at once ("too-soon", with the wait), costs no
PIN check and counts as nothing; the web server never lets that happen to a try it
held for its wait (``waited``): a held try is checked.

What bounds a brute force, then, is not a lock on the id: the PINs have 32**7 (~3.4e10,
~35 bits) values; one pair guesses at most 5 + 10 times per 5 minutes once slowed (a
try every 30 s), the web server holds at most 16 slowed tries per address, and every
check is a scrypt hash on the server's one PIN thread (~30 ms: ~33 checks a second per
host, whatever the number of addresses). At that ceiling, one PIN takes ~16 years on
average to find (see docs/class-server.md for the figures).

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


def _count(tx: Tx, who: str, source: str | None, now: float) -> _Count:
    """Failures in the window for one id from one address (``source`` None: from every
    address, the teacher's view), since that address's last success for the id, the
    teacher's unlock of the id, or the teacher's unlock of the address."""
    if source is None:
        reset = tx.one(
            "SELECT MAX(at) FROM sign_in_log WHERE who = ? AND outcome IN ('ok', 'unlocked')", (who,)
        )[0]
        where, values = "who = ?", (who,)
    else:
        reset = tx.one(
            "SELECT MAX(at) FROM sign_in_log WHERE (who = ? AND (outcome = 'unlocked' "
            "OR (outcome = 'ok' AND source = ?))) OR (who = '' AND source = ? AND outcome = 'unlocked')",
            (who, source, source),
        )[0]
        where, values = "who = ? AND source = ?", (who, source)
    since = max(now - RATE_LIMIT_WINDOW, reset if reset is not None else -math.inf)
    row = tx.one(
        f"SELECT COUNT(*), MAX(at) FROM sign_in_log WHERE {where} AND at > ? AND at <= ? "
        "AND outcome IN ('unknown', 'bad-pin')",
        (*values, since, now),
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
        return _wait(_count(tx, who, source, now), RATE_LIMIT_FAILURES, 1, now)

    def sign_in_wait(self, student_id: object, now: float, source: object = "") -> float:
        """How long a try for this id from this address must wait now (0: at once): only an
        address that got this id's PIN wrong waits. The web server holds the try this long
        and then has it checked (``sign_in(..., waited=True)``), so nobody is refused."""
        return self.sign_in_plan(student_id, now, source)[0]

    def sign_in_plan(self, student_id: object, now: float, source: object = "") -> tuple[float, str]:
        """(sign_in_wait, the roster id it names or "" for none): the web server queues PIN
        checks in turn per (roster id, address), every unknown id of an address in one queue."""
        now = finite(now)
        typed = typed_id(student_id)
        with self.backend.read() as tx:
            found = match(tx, typed) if typed else None
            who = found[0].id if found else loggable(typed or student_id)
            return self._waits(tx, who, loggable(source, 100), now), (found[0].id if found else "")

    def sign_in(
        self, student_id: object, pin: object, now: float, source: object = "", waited: bool = False
    ) -> SignIn:
        """Check an id and PIN as typed. Never raises on what was typed: an id that
        cannot be one is "unknown", a PIN that cannot be one is "bad-pin"; "too-soon"
        (with the wait) when wrong PINs for this id from this address asked for a wait
        that has not passed, unless the caller held the try for its wait (``waited``:
        the web server, which holds at most a few such tries per address). An unknown
        id costs one PIN check, like a known one."""
        now = finite(now)
        typed = typed_id(student_id)
        where = loggable(source, 100)
        with self.backend.write(lock="sign-in") as tx:  # count and log at once: parallel guesses count too
            found = match(tx, typed) if typed else None
            who = found[0].id if found else loggable(typed or student_id)
            student = found[0].id if found else None
            wait = 0.0 if waited else self._waits(tx, who, where, now)
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
        """The ids with failures counted now (the teacher's view: who is being guessed,
        from where, and how long the last guessing address waits), the most failures first."""
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
                count = _count(tx, who, None, now)
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
                        _wait(_count(tx, who, last[0], now), RATE_LIMIT_FAILURES, 1, now),
                    )
                )
        return sorted(found, key=lambda t: (-t.failures, -t.last_at, t.who))
