"""The class database (issue 15), one suite for both backends: SQLite, and a real
PostgreSQL (tests/pg_server.py says where it comes from and when it may skip).
The clock is injected everywhere: no test sleeps."""

from __future__ import annotations

import inspect
import sqlite3
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exercises.classdb import (
    GRACE_SECONDS,
    RATE_LIMIT_FAILURES,
    ClassLearnerStore,
    ClassStoreError,
    ExamClosed,
    ExamQuestion,
    SessionEnded,
    Student,
    StudentSession,
    answer_key,
    open_class_store,
)
from exercises.classdb.model import SLOW_DOWN_MAX
from exercises.classdb.pins import hash_pin
from exercises.classroom.identity import normalise_pin
from exercises.classroom.quiz import dump_toml, new_quiz
from exercises.learner.store import Attempt, ProgressStore
from tests import pg_server

T0 = 1_800_000_000.0  # the injected clock's start
COST = 2**4  # scrypt's cost in tests: the rules, not the hardness, are under test
ALICE, BOB = Student("alice", "Alice"), Student("bob", "Bob")
PINS = {"alice": "ABCD-EFGH", "bob": "JKLM-NPQR", "mr-t": "TTTT-TTTT"}


@pytest.fixture(params=["sqlite", "postgresql"])
def open_store(request, tmp_path):
    """A function making stores on one fresh class database (call it twice: two servers)."""
    made = []
    if request.param == "sqlite":
        url = None
        context = None
    else:
        context = pg_server.fresh_url(request.getfixturevalue("postgres_url"))
        url = context.__enter__()

    def make(create: bool = True):
        store = open_class_store(tmp_path / "class", url, create=create, pin_cost=COST)
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()
    if context is not None:
        context.__exit__(None, None, None)


@pytest.fixture
def store(open_store):
    store = open_store()
    store.add_students(
        [(ALICE, PINS["alice"]), (BOB, PINS["bob"]), (Student("mr-t", "T", "teacher"), "TTTT-TTTT")]
    )
    return store


def signed_in(store, student_id: str, now: float = T0) -> StudentSession:
    return store.session(store.start_session(student_id, now), now)


def quiz_text(minutes: int | None = 10) -> str:
    return dump_toml(new_quiz("Quiz", ["clm-shift", "mlm-abcde"], minutes))


def attempt(exercise="clm-shift", diagnoses=(), at=T0) -> Attempt:
    return Attempt(exercise, "clm", 0, {"labels": "x"}, 0.0, True, True, False, list(diagnoses), at=at)


# -- roster ---------------------------------------------------------------------------


def test_roster_keeps_order_and_roles_and_refuses_duplicates(store):
    assert [(s.id, s.role) for s in store.students()] == [
        ("alice", "student"),
        ("bob", "student"),
        ("mr-t", "teacher"),
    ]
    with pytest.raises(ClassStoreError, match="already"):
        store.add_student(Student("alice", "again"), "ZZZZ-ZZZZ")
    with pytest.raises(ClassStoreError, match="already"):
        store.add_students([(Student("carol", "C"), "A"), (Student("carol", "C2"), "B")])
    with pytest.raises(ClassStoreError):
        store.add_student(Student(" spaced ", "x"), "ZZZZ-ZZZZ")
    assert len(store.students()) == 3  # nothing of a refused batch was added


def test_pins_are_stored_hashed_and_salted(open_store, tmp_path):
    store = open_store()
    store.add_students([(Student("a", ""), "SAME-PIN1"), (Student("b", ""), "SAME-PIN1")])
    with store.backend.read() as tx:
        hashes = [row[0] for row in tx.all("SELECT pin_hash FROM students")]
    assert all("SAMEPIN1" not in h and "SAME-PIN1" not in h for h in hashes)
    assert hashes[0] != hashes[1]  # salted


# -- signing in -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "typed_id, typed_pin",
    [
        ("alice", "ABCD-EFGH"),
        ("  alice\t", "abcd efgh"),  # spaces around, lower case, a space for the dash
        ("ＡＬＩＣＥ", "ＡＢＣＤ－ＥＦＧＨ"),  # a Chinese input method's full-width forms
        ("Alice", "abcdefgh"),
    ],
)
def test_sign_in_takes_what_people_type(store, typed_id, typed_pin):
    result = store.sign_in(typed_id, typed_pin, T0, "10.0.0.5")
    assert (result.ok, result.reason, result.student) == (True, "ok", ALICE)


def test_sign_in_refuses_wrong_pin_unknown_id_and_another_students_pin(store):
    assert store.sign_in("alice", "ABCD-EFGX", T0).reason == "bad-pin"
    assert store.sign_in("alice", PINS["bob"], T0).reason == "bad-pin"
    assert store.sign_in("nobody", PINS["alice"], T0).reason == "unknown"
    assert store.sign_in("alice", "", T0).reason == "bad-pin"
    for result in (store.sign_in("alice", "ABCD-EFGX", T0), store.sign_in("nobody", "x", T0)):
        assert not result.ok and result.student is None


def test_ids_equal_up_to_case_need_the_exact_spelling(open_store):
    store = open_store()
    store.add_students([(Student("Li", ""), "AAAA-AAAA"), (Student("li", ""), "BBBB-BBBB")])
    assert store.sign_in("LI", "AAAA-AAAA", T0).reason == "unknown"  # two candidates: never a guess
    assert store.sign_in("Li", "AAAA-AAAA", T0).student.id == "Li"
    assert store.sign_in("li", "BBBB-BBBB", T0).student.id == "li"
    assert store.sign_in("li", "AAAA-AAAA", T0).reason == "bad-pin"


def sign_in_when_allowed(store, student, pin, now, source="10.0.0.5"):
    """A person who is told to wait, waits, and tries again: (result, when it was answered)."""
    for _ in range(10):
        result = store.sign_in(student, pin, now, source)
        if result.reason != "too-soon":
            return result, now
        assert 0 < result.wait <= SLOW_DOWN_MAX
        now += result.wait
    raise AssertionError("never checked")


def test_wrong_pins_slow_the_next_try_and_never_lock_the_student_out(store):
    for n in range(RATE_LIMIT_FAILURES):
        assert store.sign_in("alice", f"WRONG-{n}", T0 + n, "10.0.0.66").reason == "bad-pin"
    # that address's next try for alice waits a second after its last failure; refused at once,
    # not counted; another address (alice's own) never waits for the guesser
    too_soon = store.sign_in("alice", PINS["alice"], T0 + 4.5, "10.0.0.66")
    assert (too_soon.reason, too_soon.wait) == ("too-soon", 0.5)
    assert store.sign_in_wait("alice", T0 + 4.5, "10.0.0.7") == 0
    assert store.sign_in("bob", PINS["bob"], T0 + 4.5).ok  # other ids are not slowed
    # an attacker who goes on guessing waits longer and longer (1, 2, 4, ... at most SLOW_DOWN_MAX) ...
    now, waits = T0 + 5, []
    for n in range(10):
        waits.append(store.sign_in_wait("alice", now, "10.0.0.66"))
        now += waits[-1]
        assert store.sign_in("alice", f"GUESS-{n}", now, "10.0.0.66").reason == "bad-pin"
    assert waits == [
        0.0,
        2.0,
        4.0,
        8.0,
        16.0,
        SLOW_DOWN_MAX,
        SLOW_DOWN_MAX,
        SLOW_DOWN_MAX,
        SLOW_DOWN_MAX,
        SLOW_DOWN_MAX,
    ]
    # ... while Alice, with her PIN, is in after at most that wait, from the same address too
    result, answered = sign_in_when_allowed(store, "alice", PINS["alice"], now + 1, "10.0.0.66")
    assert result.ok and answered - (now + 1) <= SLOW_DOWN_MAX
    # a success starts the count afresh
    assert store.sign_in_wait("alice", answered + 1, "10.0.0.66") == 0
    log = store.failed_sign_ins(T0)
    assert [row[3] for row in log].count("bad-pin") == RATE_LIMIT_FAILURES + 10
    assert [row[3] for row in log].count("too-soon") == 2  # the early try, and Alice's first
    assert {row[0] for row in log} == {"alice"} and log[0][1] == "10.0.0.66" and log[0][2] == T0


def test_the_teacher_unlocks_an_id_and_sees_who_is_slowed(store):
    for n in range(RATE_LIMIT_FAILURES + 4):
        store.sign_in("alice", "NOPE", T0 + 20 * n, "10.9.9.9")  # far apart: each one checked
    (trouble,) = store.sign_in_trouble(T0 + 20 * (RATE_LIMIT_FAILURES + 3) + 1)
    assert (trouble.who, trouble.student, trouble.last_source) == ("alice", "alice", "10.9.9.9")
    assert trouble.failures >= RATE_LIMIT_FAILURES and trouble.wait > 0
    store.unlock("alice", T0 + 20 * (RATE_LIMIT_FAILURES + 3) + 2)
    assert store.sign_in_wait("alice", T0 + 20 * (RATE_LIMIT_FAILURES + 3) + 3, "10.9.9.9") == 0
    assert store.sign_in_trouble(T0 + 20 * (RATE_LIMIT_FAILURES + 3) + 3) == []


def test_unknown_ids_are_slowed_down_too(store):
    for n in range(RATE_LIMIT_FAILURES):
        assert store.sign_in("mallory", "X", T0 + n).reason == "unknown"
    assert store.sign_in("mallory", "X", T0 + 4.5).reason == "too-soon"


def test_a_class_behind_one_address_is_never_locked_out(open_store):
    """Sixty students behind one NAT, each typing the PIN wrong once first: every one
    signs in, none waits more than a few seconds."""
    store = open_store()
    roster = [Student(f"s{n:02d}", "") for n in range(60)]
    store.add_students([(s, "AAAA-AAAA") for s in roster])
    now, longest = T0, 0.0
    for student in roster:
        assert store.sign_in(student.id, "AAAA-AAAB", now, "192.0.2.1").reason in ("bad-pin", "too-soon")
        result, answered = sign_in_when_allowed(store, student.id, "aaaa aaaa", now + 0.5, "192.0.2.1")
        assert result.ok, student.id
        longest = max(longest, answered - (now + 0.5))
        now = answered + 0.5
    assert longest <= 2.0


def test_an_address_that_fails_a_lot_slows_only_its_own_guesses(store):
    """Sixty unknown ids from one address (a class's NAT): nobody else there waits, nor
    does the address for an id it did not get wrong; a try the server held for its wait is
    checked; the teacher's unlock of the address clears its guesses."""
    for n in range(60):
        store.sign_in(f"guess{n}", "X", T0 + n / 100, "203.0.113.9")
    for _ in range(RATE_LIMIT_FAILURES):
        store.sign_in("alice", "X", T0 + 1, "203.0.113.9")
    assert store.sign_in_wait("anyone", T0 + 1, "203.0.113.9") == 0
    assert store.sign_in_wait("bob", T0 + 1, "203.0.113.9") == 0
    assert store.sign_in_wait("alice", T0 + 1, "203.0.113.9") > 0
    assert store.sign_in_wait("alice", T0 + 1, "198.51.100.1") == 0
    assert store.sign_in("alice", PINS["alice"], T0 + 1, "203.0.113.9").reason == "too-soon"
    assert store.sign_in("alice", PINS["alice"], T0 + 1, "203.0.113.9", waited=True).ok
    for _ in range(RATE_LIMIT_FAILURES):
        store.sign_in("alice", "X", T0 + 2, "203.0.113.9")
    store.unlock("203.0.113.9", T0 + 2)  # the teacher can clear an address too
    assert store.sign_in_wait("alice", T0 + 2.5, "203.0.113.9") == 0


@pytest.mark.parametrize(
    "typed_id, typed_pin",
    [
        ("alice", "9" * 5000),  # a 5,000-digit PIN
        ("9" * 5000, "ABCD-EFGH"),
        ("\x1b[2J\x1b[Halice", "ABCD-EFGH"),  # an escape sequence
        ("alice\x00", "ABCD-EFGH"),
        ("ali\ud800ce", "ABCD-EFGH"),  # a lone surrogate
        ("=cmd|' /C calc'!A0", "ABCD-EFGH"),
        ("alice' OR '1'='1", "' OR '1'='1"),
        (None, None),
        (12345, 67890),
        ("alice", b"ABCD-EFGH"),
        ("", ""),
    ],
)
def test_sign_in_never_raises_on_hostile_input(store, typed_id, typed_pin):
    result = store.sign_in(typed_id, typed_pin, T0, "\x1b]0;owned\x07" + "s" * 500)
    assert not result.ok and result.reason in ("unknown", "bad-pin")


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    typed_id=st.one_of(
        st.text(max_size=30),
        st.sampled_from(["alice", "ALICE", " alice ", "bob", "Bob\n", "mr-t", "ａｌｉｃｅ", "alice\u200b"]),
    ),
    typed_pin=st.one_of(st.text(max_size=20), st.sampled_from(list(PINS.values())), st.just("7" * 5000)),
)
def test_sign_in_never_raises_and_never_signs_in_wrongly(store, typed_id, typed_pin):
    result = store.sign_in(typed_id, typed_pin, T0, "fuzz")
    assert result.reason in ("ok", "unknown", "bad-pin", "too-soon")
    if result.ok:
        # an independent check: the PIN typed is the one issued to the student returned,
        # and the id typed is that student's id up to spaces, width and case
        import unicodedata

        assert normalise_pin(typed_pin) == normalise_pin(PINS[result.student.id])
        assert unicodedata.normalize("NFKC", typed_id).strip().casefold() == result.student.id.casefold()
    else:
        assert result.student is None


# -- sessions -------------------------------------------------------------------------


def test_one_live_session_per_student(store):
    first = signed_in(store, "alice", T0)
    first.heartbeat(T0 + 1, "lesson clm")
    second = signed_in(store, "alice", T0 + 2)
    with pytest.raises(SessionEnded) as ended:
        first.heartbeat(T0 + 3, "lesson mlm")
    assert ended.value.reason == "signed-in-elsewhere"
    second.heartbeat(T0 + 3, "exam")
    live = store.live_sessions(T0 + 3)
    assert [(s.student.id, s.where) for s in live] == [("alice", "exam")]


def test_a_superseded_session_can_neither_read_nor_write(store):
    old = signed_in(store, "alice", T0)
    old_progress = old.learner_store()
    store.open_quiz(quiz_text(), T0)
    old.start_exam(T0)
    signed_in(store, "alice", T0 + 5)
    assert old_progress.record(attempt()) is False
    assert not old_progress.saving and "signed-in-elsewhere" in old_progress.notices[0]
    assert old_progress.attempts() == [] and old_progress.settings() == {}
    assert old_progress.set_setting("lang", "zh") is False
    for call in (
        lambda: old.save_answer(answer_key(0, "labels"), "late", T0 + 6),
        lambda: old.submit(T0 + 6),
        lambda: old.exam(),
        lambda: old.start_exam(T0 + 6),
        lambda: old.current_quiz(),
    ):
        with pytest.raises(SessionEnded):
            call()
    with store.backend.read() as tx:
        assert tx.one("SELECT COUNT(*) FROM attempts")[0] == 0
        assert tx.one("SELECT COUNT(*) FROM answers")[0] == 0


@pytest.mark.parametrize("token", ["", "nope", "x" * 5000, None, 42, "é" * 10, "\x00"])
def test_unknown_tokens_are_refused(store, token):
    with pytest.raises(SessionEnded) as ended:
        store.session(token, T0)
    assert ended.value.reason == "unknown"


def test_sign_out_ends_the_session(store):
    token = store.start_session("bob", T0)
    store.session(token, T0).sign_out(T0 + 1)
    with pytest.raises(SessionEnded) as ended:
        store.session(token, T0 + 2)
    assert ended.value.reason == "signed-out"


# -- a student's rows and nobody else's --------------------------------------------------


def test_a_student_session_reaches_only_its_own_rows(store):
    store.open_quiz(quiz_text(), T0)
    alice, bob = signed_in(store, "alice"), signed_in(store, "bob")
    a, b = alice.learner_store(), bob.learner_store()
    assert a.record(attempt("clm-shift")) and a.set_setting("lang", "zh")
    alice.start_exam(T0)
    alice.save_answer(answer_key(0, "labels"), "alice's secret answer", T0 + 1)
    # Bob sees none of it, through every method he has
    assert b.attempts() == [] and b.settings() == {}
    bob_exam = bob.start_exam(T0 + 2)
    assert bob_exam.answers == {} and bob_exam.student == "bob"
    assert bob.exam().answers == {}
    bob.save_answer(answer_key(0, "labels"), "bob's", T0 + 3)
    assert alice.exam().answers == {answer_key(0, "labels"): "alice's secret answer"}
    assert [x.exercise for x in a.attempts()] == ["clm-shift"] and a.settings() == {"lang": "zh"}


def test_no_student_method_takes_a_student_id():
    """The session is the scope: nothing a student's process can call names another student."""
    for cls in (StudentSession, ClassLearnerStore):
        for name, member in inspect.getmembers(cls, inspect.isfunction):
            if name.startswith("_"):
                continue
            parameters = set(inspect.signature(member).parameters)
            assert not parameters & {"student", "student_id", "who", "token"}, (cls.__name__, name)


def test_the_learner_store_has_the_progress_stores_methods():
    for name, member in inspect.getmembers(ProgressStore, inspect.isfunction):
        if name.startswith("_"):
            continue
        assert hasattr(ClassLearnerStore, name), name
        ours = list(inspect.signature(getattr(ClassLearnerStore, name)).parameters)
        assert ours == list(inspect.signature(member).parameters), name


def test_the_app_progress_model_runs_on_a_class_session(store):
    from exercises.learner.progress import Progress

    progress = Progress(signed_in(store, "alice").learner_store())
    assert progress.record(attempt(at=T0))
    again = Progress(signed_in(store, "alice", T0 + 1).learner_store())
    assert [x.exercise for x in again.attempts] == ["clm-shift"]
    assert Progress(signed_in(store, "bob").learner_store()).attempts == []


def test_reset_keeps_the_rows_but_starts_over(store):
    progress = signed_in(store, "alice").learner_store()
    progress.record(attempt())
    assert progress.reset() is None and progress.attempts() == []
    with store.backend.read() as tx:
        assert tx.one("SELECT COUNT(*) FROM attempts")[0] == 1


# -- exams on the server's clock -----------------------------------------------------------


def test_the_clock_starts_at_first_open_and_a_reload_resumes(store):
    store.open_quiz(quiz_text(10), T0)
    alice = signed_in(store, "alice")
    exam = alice.start_exam(T0 + 100)
    assert exam.started_at == T0 + 100 and exam.deadline == T0 + 100 + 600
    alice.save_answer(answer_key(0, "labels"), "B C D", T0 + 120)
    again = signed_in(store, "alice", T0 + 200)  # a dropped connection, a new tab
    resumed = again.start_exam(T0 + 200)
    assert resumed.started_at == T0 + 100
    assert resumed.answers == {answer_key(0, "labels"): "B C D"}
    assert resumed.status(T0 + 200) == "in-progress" and resumed.seconds_left(T0 + 200) == 500


def test_save_after_submit_and_late_submit_are_refused(store):
    store.open_quiz(quiz_text(10), T0)
    alice, bob = signed_in(store, "alice"), signed_in(store, "bob")
    alice.start_exam(T0)
    bob.start_exam(T0)
    alice.save_answer(answer_key(0, "labels"), "kept", T0 + 10)
    done = alice.submit(T0 + 20)
    assert done.submitted_at == T0 + 20 and done.status(T0 + 21) == "submitted"
    with pytest.raises(ExamClosed) as closed:
        alice.save_answer(answer_key(0, "labels"), "changed", T0 + 30)
    assert closed.value.reason == "submitted"
    assert alice.submit(T0 + 40).submitted_at == T0 + 20  # a second submit changes nothing
    # Bob: a save within the grace is taken, a later one and a late submit are not
    deadline = T0 + 600
    bob.save_answer(answer_key(1, "positions"), "in grace", deadline + GRACE_SECONDS - 1)
    for call in (
        lambda: bob.save_answer(answer_key(1, "positions"), "too late", deadline + GRACE_SECONDS + 1),
        lambda: bob.submit(deadline + GRACE_SECONDS + 1),
    ):
        with pytest.raises(ExamClosed) as closed:
            call()
        assert closed.value.reason == "time-up"
    exam = bob.exam()
    assert exam.answers == {answer_key(1, "positions"): "in grace"} and exam.submitted_at is None
    assert exam.status(deadline + 60) == "time-up"


def test_an_extension_gives_one_student_more_time(store):
    store.open_quiz(quiz_text(10), T0)
    alice, bob = signed_in(store, "alice"), signed_in(store, "bob")
    alice.start_exam(T0)
    bob.start_exam(T0)
    late = T0 + 600 + GRACE_SECONDS + 60
    with pytest.raises(ExamClosed):
        alice.save_answer(answer_key(0, "labels"), "x", late)
    assert store.extend_time("alice", 300) == 300  # after her time ran out: reopened
    alice.save_answer(answer_key(0, "labels"), "x", late)
    assert alice.exam().deadline == T0 + 900
    with pytest.raises(ExamClosed):
        bob.save_answer(answer_key(0, "labels"), "y", late)
    assert alice.submit(late + 1).submitted_at == late + 1


def test_an_extension_before_the_start_counts_from_the_start(store):
    store.open_quiz(quiz_text(10), T0)
    assert store.extend_time("bob", 120) == 120
    bob = signed_in(store, "bob")
    assert bob.start_exam(T0 + 50).deadline == T0 + 50 + 600 + 120


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), 10**9, True])
def test_absurd_extensions_are_refused(store, seconds):
    store.open_quiz(quiz_text(), T0)
    with pytest.raises((ClassStoreError, ValueError)):
        store.extend_time("alice", seconds)


def test_extension_needs_an_open_quiz_and_a_student(store):
    with pytest.raises(ClassStoreError, match="no quiz"):
        store.extend_time("alice", 60)
    store.open_quiz(quiz_text(), T0)
    with pytest.raises(ClassStoreError, match="no student"):
        store.extend_time("nobody", 60)


def test_a_quiz_closed_mid_exam_refuses_saves_and_keeps_answers(store):
    opened = store.open_quiz(quiz_text(30), T0)
    alice = signed_in(store, "alice")
    alice.start_exam(T0)
    alice.save_answer(answer_key(0, "labels"), "before", T0 + 5)
    assert store.close_quiz(T0 + 10).closed_at == T0 + 10
    assert alice.current_quiz() is None and store.current_quiz() is None
    for call in (
        lambda: alice.save_answer(answer_key(0, "labels"), "after", T0 + 11),
        lambda: alice.submit(T0 + 11),
    ):
        with pytest.raises(ExamClosed) as closed:
            call()
        assert closed.value.reason == "quiz-closed"
    with pytest.raises(ExamClosed) as closed:
        alice.start_exam(T0 + 12)
    assert closed.value.reason == "no-quiz"
    kept = alice.exam(opened.quiz_id)
    assert kept.answers == {answer_key(0, "labels"): "before"} and kept.status(T0 + 12) == "quiz-closed"
    assert [e.answers for e in store.exams(opened.quiz_id)] == [{answer_key(0, "labels"): "before"}]


def test_one_quiz_open_at_a_time_and_release(store):
    first = store.open_quiz(quiz_text(), T0, "week 1")
    with pytest.raises(ClassStoreError, match="still open"):
        store.open_quiz(quiz_text(), T0 + 1)
    store.close_quiz(T0 + 2)
    assert store.close_quiz(T0 + 3) is None
    second = store.open_quiz(quiz_text(), T0 + 4, "week 2")
    assert second.quiz_id != first.quiz_id and store.current_quiz().name == "week 2"
    assert [q.name for q in store.quizzes()] == ["week 2", "week 1"]
    alice = signed_in(store, "alice")
    assert alice.exam(first.quiz_id).results_released is False
    store.release_results(first.quiz_id, T0 + 5)
    assert alice.exam(first.quiz_id).results_released is True
    with pytest.raises(ClassStoreError):
        store.release_results(99999, T0)


@pytest.mark.parametrize("text", ["", "not toml [[", 'id = "x"'])
def test_a_bad_quiz_is_refused_in_one_line(store, text):
    with pytest.raises(ClassStoreError) as error:
        store.open_quiz(text, T0)
    assert "\n" not in str(error.value)
    assert store.current_quiz() is None


@pytest.mark.parametrize(
    "key",
    ["", "labels", "2:labels", "x:labels", "１:labels", "5000:labels", "0:", "9" * 5000 + ":a", None, 3],
)
def test_save_refuses_boxes_that_do_not_exist(store, key):
    store.open_quiz(quiz_text(), T0, questions=_rendered())
    alice = signed_in(store, "alice")
    alice.start_exam(T0)
    with pytest.raises(ExamClosed) as closed:
        alice.save_answer(key, "x", T0 + 1)
    assert closed.value.reason == "bad-key"


def _rendered() -> dict[str, list[ExamQuestion]]:
    """Two questions per student, as `class quiz open` stores them (hand-made: no engine here)."""
    variant = {
        "exercise": "clm-shift",
        "seed": 1,
        "data": {"tokens": ["a", "b"]},
        "prompt": {"en": "p", "zh": "题"},
    }
    return {
        sid: [ExamQuestion(i, "clm-shift", i, {**variant, "question": ""}, f"fp{i}") for i in range(2)]
        for sid in ("alice", "bob", "ghost")
    }


def test_rendered_questions_are_each_students_own(store):
    opened = store.open_quiz(quiz_text(), T0, questions=_rendered())
    exam = signed_in(store, "alice").start_exam(T0)
    assert [q.index for q in exam.questions] == [0, 1] and exam.questions[1].fingerprint == "fp1"
    assert exam.questions[0].to_variant().prompt == {"en": "p", "zh": "题"}
    assert store.questions(opened.quiz_id, "ghost") == ()  # not on the roster: not stored


def test_answers_keep_any_text_exactly(store):
    store.open_quiz(quiz_text(), T0)
    alice = signed_in(store, "alice")
    alice.start_exam(T0)
    texts = ["位置1是B，位置4是E", "【1】：B", "=cmd()", "\x1b[31mred", "a" * 20_000, "", "emoji 🙂"]
    for n, text in enumerate(texts):
        alice.save_answer(answer_key(n % 2, f"p{n}"), text, T0 + n)
    saved = alice.exam().answers
    assert [saved[answer_key(n % 2, f"p{n}")] for n in range(len(texts))] == texts
    assert [row[1] for row in store.answer_log(alice.exam().quiz_id, "alice")] == [len(t) for t in texts]


def test_saves_from_many_threads_are_all_kept(open_store):
    store = open_store()
    students = [Student(f"s{n:02d}", "") for n in range(12)]
    store.add_students([(s, "AAAA-AAAA") for s in students])
    store.open_quiz(quiz_text(60), T0)
    sessions = [signed_in(store, s.id) for s in students]
    for session in sessions:
        session.start_exam(T0)
    errors = []

    def answer(session):
        try:
            for n in range(15):
                session.save_answer(answer_key(n % 2, "labels"), f"{session.student.id}-{n}", T0 + n)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=answer, args=(s,)) for s in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    quiz_id = store.current_quiz().quiz_id
    for exam in store.exams(quiz_id):
        assert exam.answers == {
            answer_key(0, "labels"): f"{exam.student}-14",
            answer_key(1, "labels"): f"{exam.student}-13",
        }
        assert len(store.answer_log(quiz_id, exam.student)) == 15


def test_two_servers_on_one_database_share_one_session_rule(open_store):
    one = open_store()
    one.add_student(ALICE, PINS["alice"])
    two = open_store(create=False)  # a second host, its own connections
    first = one.session(one.start_session("alice", T0), T0)
    two.session(two.start_session("alice", T0 + 1), T0 + 1)
    with pytest.raises(SessionEnded):
        first.heartbeat(T0 + 2)


# -- the dashboard's counts -------------------------------------------------------------------


def test_recent_misconceptions_count_attempts_and_students(store):
    a, b = signed_in(store, "alice").learner_store(), signed_in(store, "bob").learner_store()
    a.record(attempt("clm-shift", ["no-shift"], at=T0 + 10))
    a.record(attempt("clm-shift", ["no-shift", "count-from-1"], at=T0 + 20))
    b.record(attempt("clm-shift", ["no-shift"], at=T0 + 30))
    b.record(attempt("mlm-abcde", ["label-all"], at=T0 - 100))  # before the window
    counts = store.recent_misconceptions(T0)
    assert [(m.exercise, m.code, m.attempts, m.students) for m in counts] == [
        ("clm-shift", "no-shift", 3, ("alice", "bob")),
        ("clm-shift", "count-from-1", 1, ("alice",)),
    ]


# -- the file itself ----------------------------------------------------------------------------


def test_reopening_keeps_everything(open_store):
    store = open_store()
    store.add_student(ALICE, PINS["alice"])
    store.close()
    again = open_store(create=False)
    assert again.students() == [ALICE] and again.sign_in("alice", PINS["alice"], T0).ok


def test_no_class_is_a_one_line_error(tmp_path):
    with pytest.raises(ClassStoreError, match="class init") as error:
        open_class_store(tmp_path / "nothing")
    assert "\n" not in str(error.value)
    with pytest.raises(ClassStoreError, match="postgresql://"):
        open_class_store(tmp_path, "mysql://x")


def test_a_corrupt_or_newer_database_is_refused_and_left_alone(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "class.db").write_bytes(b"this is not a database" * 100)
    before = (folder / "class.db").read_bytes()
    with pytest.raises(ClassStoreError) as error:
        open_class_store(folder)
    assert "\n" not in str(error.value) and (folder / "class.db").read_bytes() == before
    (folder / "class.db").unlink()
    open_class_store(folder, create=True, pin_cost=COST).close()
    db = sqlite3.connect(folder / "class.db")
    db.execute("UPDATE class_meta SET value = '99' WHERE key = 'schema'")
    db.commit()
    db.close()
    with pytest.raises(ClassStoreError, match="newer"):
        open_class_store(folder)


def test_the_real_pin_cost_is_scrypt_with_its_parameters():
    """A floor, so the cost is never lowered by accident (2**13: ~30 core-years per stolen PIN)."""
    stored = hash_pin("ABCD-EFGH")
    kind, cost, salt, digest = stored.split("$")
    assert kind == "scrypt" and int(cost) >= 2**13
    assert (len(bytes.fromhex(salt)), len(bytes.fromhex(digest))) == (16, 32)


def test_a_killed_server_keeps_every_save_it_acknowledged(tmp_path):
    """synchronous=NORMAL's promise, checked: the process dies by SIGKILL mid-stream and
    every save it reported before dying is in the database."""
    import os
    import signal
    import subprocess
    import sys

    store = open_class_store(tmp_path / "class", create=True, pin_cost=COST)
    store.add_student(ALICE, PINS["alice"])
    store.open_quiz(quiz_text(60), T0)
    token = store.start_session("alice", T0)
    store.session(token, T0).start_exam(T0)
    store.close()
    script = f"""
import sys
from pathlib import Path
from exercises.classdb import open_class_store, answer_key
session = open_class_store(Path({str(tmp_path / "class")!r})).session({token!r}, {T0})
n = 0
while True:
    session.save_answer(answer_key(n % 3, "labels"), f"text-{{n}}", {T0} + n / 1000)
    print(n, flush=True)
    n += 1
"""
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    acknowledged = -1
    for line in child.stdout:
        acknowledged = int(line)
        if acknowledged >= 300:
            break
    child.send_signal(signal.SIGKILL)
    child.wait()
    store = open_class_store(tmp_path / "class")
    quiz_id = store.current_quiz().quiz_id
    assert len(store.answer_log(quiz_id, "alice")) >= acknowledged + 1
    store.close()


def test_an_attempts_kind_is_kept_and_a_version_1_database_is_upgraded(open_store):
    from dataclasses import replace

    store = open_store()
    store.add_student(ALICE, PINS["alice"])
    progress = signed_in(store, "alice").learner_store()
    progress.record(replace(attempt("visibility"), kind="prediction"))
    progress.record(attempt("clm-shift"))
    assert [(a.exercise, a.kind) for a in progress.attempts()] == [
        ("visibility", "prediction"),
        ("clm-shift", "exercise"),
    ]
    with store.backend.write() as tx:  # back to what version 1 wrote
        for statement in (
            "DROP INDEX sessions_by_sid",
            "DROP INDEX sign_in_log_by_source",
            "ALTER TABLE sessions DROP COLUMN sid",
            "DROP TABLE class_settings",
        ):
            tx.run(statement)
        tx.run("ALTER TABLE attempts DROP COLUMN kind")
        if store.kind == "sqlite":
            tx.run("DROP TRIGGER answer_logged_on_insert")
            tx.run("DROP TRIGGER answer_logged_on_update")
        tx.run("UPDATE class_meta SET value = '1' WHERE key = 'schema'")
    store.close()
    again = open_store(create=False)
    with again.backend.read() as tx:
        assert tx.one("SELECT value FROM class_meta WHERE key = 'schema'")[0] == "4"
    progress = signed_in(again, "alice", T0 + 1).learner_store()
    assert [a.kind for a in progress.attempts()] == ["exercise", "exercise"]


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    key=st.one_of(
        st.text(max_size=12), st.builds(answer_key, st.integers(0, 3), st.text(min_size=1, max_size=8))
    ),
    text=st.text(max_size=200),
    token=st.text(max_size=60),
)
def test_saves_and_tokens_from_the_network_never_raise_anything_else(store, key, text, token):
    """Whatever a browser sends as a box name, an answer or a token: saved exactly (NUL and
    lone surrogates aside), or refused with ExamClosed / SessionEnded, never another error."""
    if store.current_quiz() is None:
        store.open_quiz(quiz_text(60), T0, questions=_rendered())
    session = signed_in(store, "alice", T0)
    session.start_exam(T0)
    try:
        session.save_answer(key, text, T0 + 1)
    except ExamClosed as closed:
        assert closed.reason == "bad-key"
    else:
        assert session.exam().answers[key.replace("\x00", "")] == text.replace("\x00", "")
    try:
        other = store.session(token, T0)
    except SessionEnded as ended:
        assert ended.reason == "unknown"
    else:  # pragma: no cover - a random text is never a live token
        raise AssertionError(f"{token!r} opened {other!r}")


def test_the_quiz_files_closing_time_caps_the_deadline(store):
    from dataclasses import replace

    quiz = replace(new_quiz("Quiz", ["clm-shift"], 10), closes_at=T0 + 120)
    store.open_quiz(dump_toml(quiz), T0)
    alice = signed_in(store, "alice")
    assert alice.start_exam(T0).deadline == T0 + 120  # earlier than the start + 10 minutes
    alice.save_answer(answer_key(0, "labels"), "in time", T0 + 100)
    with pytest.raises(ExamClosed) as closed:
        alice.save_answer(answer_key(0, "labels"), "too late", T0 + 120 + GRACE_SECONDS + 1)
    assert closed.value.reason == "time-up"
    store.extend_time("alice", 60)
    alice.save_answer(answer_key(0, "labels"), "extended", T0 + 120 + GRACE_SECONDS + 1)
    assert alice.exam().answers == {answer_key(0, "labels"): "extended"}
