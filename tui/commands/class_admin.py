"""``objectives-tutor class init | quiz open|close|extend|release``: the teacher's
side of the class server (issue 15), and the class database behind ``quiz grade
--class DIR``. Serving the class (``class serve``, ``class dashboard``) lives in
tui/commands/class_serve.py.

Every command opens the class's store (SQLite in DIR, or the PostgreSQL of --db /
$OBJECTIVES_TUTOR_DB), does one thing, and reports it in one line; bad input is
one line on stderr and exit 2."""

from __future__ import annotations

import argparse
import re
import time
import unicodedata
from pathlib import Path

from rich.console import Console
from rich.text import Text

from exercises.text import cannot, pick
from tui.errors import UsageError
from tui.i18n import t

ACTIONS = ("init", "quiz")  # the `class` actions this module runs (h6 adds serve, dashboard)


def _seconds(text: str) -> float:
    """--extend's time: 300, 300s, 5m, 5min, 1h, full-width digits, a minus to take time back."""
    value = unicodedata.normalize("NFKC", text).strip().lower().replace(" ", "")
    found = re.fullmatch(r"([+-]?\d{1,6}(?:\.\d{1,3})?)(s|sec|m|min|h)?", value)
    if not found:
        raise argparse.ArgumentTypeError(f"not a time like 300, 5m or 1h: {text[:20]!r}")
    scale = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, None: 1}[found.group(2)]
    return float(found.group(1)) * scale


def add_class_parser(commands, common, parser_class):
    """The ``class`` command with h5's actions; returns its subparsers so h6 adds serve/dashboard."""
    group = commands.add_parser(
        "class", parents=[common], help="the class server: init, quiz, serve, dashboard"
    )
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=parser_class)
    init = actions.add_parser("init", parents=[common], help="make a class folder from a roster (a PIN each)")
    init.add_argument("dir", metavar="DIR", help="the class folder to make")
    init.add_argument("--roster", required=True, help="CSV of student id,name (UTF-8 or GB18030)")
    init.add_argument(
        "--db", help="postgresql://... to keep the class in PostgreSQL (default: SQLite in DIR)"
    )
    init.add_argument("--teacher-id", default="teacher", help="the teacher's sign-in id (default: teacher)")
    init.add_argument(
        "--add", action="store_true", help="DIR holds a class: add the roster's new students (new PIN file)"
    )
    quiz = actions.add_parser(
        "quiz", parents=[common], help="open, close, extend, release a quiz on the server"
    )
    steps = quiz.add_subparsers(dest="step", metavar="STEP", required=True, parser_class=parser_class)
    where = parser_class(add_help=False)
    where.add_argument("--class", dest="class_dir", required=True, metavar="DIR", help="the class folder")
    where.add_argument("--db", help="postgresql://... when the class is in PostgreSQL")
    opened = steps.add_parser("open", parents=[common, where], help="open a quiz (TOML) for the whole class")
    opened.add_argument("quiz", metavar="QUIZ.toml")
    opened.add_argument("--name", help="what the dashboard calls it (default: the quiz's title)")
    steps.add_parser("close", parents=[common, where], help="close the open quiz: no more saves")
    extend = steps.add_parser("extend", parents=[common, where], help="give one student more time")
    extend.add_argument("student", metavar="STUDENT")
    extend.add_argument("seconds", metavar="SECONDS", type=_seconds, help="300, 5m, 1h (negative: less)")
    release = steps.add_parser("release", parents=[common, where], help="let students see their results")
    release.add_argument(
        "--number", type=int, help="the quiz's number (class quiz list; default: the latest)"
    )
    steps.add_parser("list", parents=[common, where], help="the class's quizzes and their state")
    return actions


def run_class(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classdb import ClassStoreError
    from exercises.classroom.quiz import ClassroomError

    name = f"objectives-tutor class {args.action}" + (f" {args.step}" if args.action == "quiz" else "")
    try:
        if args.action == "init":
            return _init(args, lang, console)
        return {"open": _open, "close": _close, "extend": _extend, "release": _release, "list": _list}[
            args.step
        ](args, lang, console)
    except (ClassStoreError, ClassroomError) as error:
        raise UsageError(f"{name}: {error.text.get(lang, str(error))}") from None


def _init(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classdb.folder import init_class
    from exercises.classroom.identity import decode_roster, read_roster

    try:
        data = Path(args.roster).read_bytes()
    except OSError as error:
        raise UsageError(
            "objectives-tutor class init: " + pick(cannot("read", args.roster, error), lang)
        ) from None
    roster = read_roster(decode_roster(data))
    teacher = unicodedata.normalize("NFKC", args.teacher_id).strip()
    made = init_class(Path(args.dir), roster, args.db, teacher or "teacher", add=args.add)
    console.print(Text(t("class-made", lang, count=made.added, path=args.dir, db=made.database)))
    if made.added:
        console.print(Text(t("class-pin-file", lang, path=made.pin_file)))
    if made.skipped:
        console.print(Text(t("class-skipped", lang, count=made.skipped)))
    return 0


def _store(args: argparse.Namespace):
    from exercises.classdb.folder import open_class

    return open_class(Path(args.class_dir), args.db)


def _open(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classdb.render import render_questions
    from exercises.classroom.quiz import loads

    path = Path(args.quiz)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(
            "objectives-tutor class quiz open: " + pick(cannot("read", path, error), lang)
        ) from None
    quiz = loads(text)  # a bad quiz is reported before anything is opened
    with _store(args) as store:
        students = [s.id for s in store.students() if s.role == "student"]
        if store.current_quiz() is not None:  # said before the engine spends time rendering
            store.open_quiz(text, time.time(), args.name or "")  # raises the one-line "still open"
        rendered = render_questions(quiz, students)
        opened = store.open_quiz(text, time.time(), args.name or "", rendered)
    limit = (
        t("class-no-limit", lang)
        if opened.time_limit_seconds is None
        else t("class-minutes", lang, minutes=f"{opened.time_limit_seconds / 60:g}")
    )
    console.print(
        Text(
            t(
                "class-quiz-opened",
                lang,
                number=opened.quiz_id,
                name=opened.name,
                students=len(students),
                questions=len(quiz.exercises),
                limit=limit,
            )
        )
    )
    return 0


def _close(args: argparse.Namespace, lang: str, console: Console) -> int:
    with _store(args) as store:
        closed = store.close_quiz(time.time())
        if closed is None:
            raise UsageError("objectives-tutor class quiz close: " + t("class-no-open-quiz", lang))
        exams = store.exams(closed.quiz_id)
    submitted = sum(1 for exam in exams if exam.submitted_at is not None)
    console.print(
        Text(
            t(
                "class-quiz-closed",
                lang,
                number=closed.quiz_id,
                name=closed.name,
                started=sum(1 for exam in exams if exam.started_at is not None),
                submitted=submitted,
            )
        )
    )
    return 0


def _extend(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.safe import plain

    with _store(args) as store:
        found = store.find_student(args.student)
        if found is None:
            raise UsageError(
                "objectives-tutor class quiz extend: "
                + t("class-no-student", lang, student=plain(args.student, 60))
            )
        total = store.extend_time(found.id, args.seconds)
    console.print(Text(t("class-extended", lang, student=plain(found.id, 60), minutes=f"{total / 60:g}")))
    return 0


def _release(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classdb.grading import pick_quiz

    with _store(args) as store:
        quiz = pick_quiz(store, args.number)
        store.release_results(quiz.quiz_id, time.time())
    console.print(Text(t("class-released", lang, number=quiz.quiz_id, name=quiz.name)))
    return 0


def _list(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.safe import plain

    with _store(args) as store:
        quizzes = store.quizzes()
        counts = {q.quiz_id: store.exams(q.quiz_id) for q in quizzes}
    if not quizzes:
        console.print(Text(t("class-no-quizzes", lang)))
    for quiz in quizzes:
        exams = counts[quiz.quiz_id]
        state = t("class-state-open" if quiz.is_open else "class-state-closed", lang)
        if quiz.released_at is not None:
            state += " · " + t("class-state-released", lang)
        console.print(
            Text(
                t(
                    "class-quiz-line",
                    lang,
                    number=quiz.quiz_id,
                    name=plain(quiz.name, 60),
                    state=state,
                    started=sum(1 for exam in exams if exam.started_at is not None),
                    submitted=sum(1 for exam in exams if exam.submitted_at is not None),
                )
            )
        )
    return 0


def graded_class(args: argparse.Namespace, lang: str):
    """(Quiz, ClassResult) for ``quiz grade --class DIR [--quiz N]`` (the hook in tui/commands/quiz.py)."""
    from exercises.classdb import ClassStoreError
    from exercises.classdb.grading import grade_from_store

    try:
        with _store(args) as store:
            return grade_from_store(store, getattr(args, "number", None))
    except ClassStoreError as error:
        raise UsageError(f"objectives-tutor quiz grade: {error.text.get(lang, str(error))}") from None
