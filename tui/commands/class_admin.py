"""``objectives-tutor class init | quiz open|close|extend|release|list | unlock |
sign-ins | end-session | settings``: the teacher's side of the class server (issue
15), and the class database behind ``quiz grade --class DIR``. Serving the class
(``class serve``, ``class dashboard``) lives in tui/commands/class_serve.py.

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

from exercises.classdb.settings import MAX_TRAINING_SLOTS, MAX_TRAINING_STEPS
from exercises.text import L, cannot, pick
from tui.commands.arguments import Refusal, shown, whole
from tui.errors import UsageError
from tui.i18n import t

QUIZ_NUMBER = whole(1, 1_000_000)  # a class's quizzes, numbered from 1
WEEK_MINUTES = whole(1, 7 * 24 * 60)  # how far back `class sign-ins` looks

ACTIONS = ("init", "quiz", "unlock", "sign-ins", "end-session", "settings")  # class_serve: serve, dashboard
OUTCOME_KEYS = {"unknown": "sign-in-unknown", "bad-pin": "sign-in-bad-pin", "too-soon": "sign-in-too-soon"}
TRAINING_KEYS = {"off": "class-training-off", "on": "class-training-on"}
TIME = r"([+-]?\d{1,6}(?:\.\d{1,3})?)(s|sec|m|min|h)?"


def _seconds(text: str) -> float:
    """--extend's time: 300, 300s, 5m, 5min, 1h, full-width digits, a minus to take time back."""
    value = unicodedata.normalize("NFKC", text).strip().lower().replace(" ", "").replace("−", "-")
    found = re.fullmatch(TIME, value)
    if not found:
        raise Refusal(
            L("not a time like 300, 5m or 1h: {value}", "不是像 300、5m 或 1h 这样的时间：{value}"),
            value=shown(text),
        )
    scale = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, None: 1}[found.group(2)]
    return float(found.group(1)) * scale


def add_class_parser(commands, common, parser_class):
    """The ``class`` command with h5's actions; returns its subparsers so h6 adds serve/dashboard."""
    group = commands.add_parser(
        "class",
        parents=[common],
        help=L("the class server: init, quiz, serve, dashboard", "班级服务器：init、quiz、serve、dashboard"),
    )
    actions = group.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=parser_class)
    init = actions.add_parser(
        "init",
        parents=[common],
        help=L("make a class folder from a roster (a PIN each)", "按名单创建班级文件夹（每人一个 PIN）"),
    )
    init.add_argument("dir", metavar="DIR", help=L("the class folder to make", "要创建的班级文件夹"))
    init.add_argument(
        "--roster",
        required=True,
        help=L("CSV of student id,name (UTF-8 or GB18030)", "学生名单 CSV：学号,姓名（UTF-8 或 GB18030）"),
    )
    init.add_argument(
        "--db",
        help=L(
            "postgresql://... to keep the class in PostgreSQL (default: SQLite in DIR)",
            "postgresql://...：把班级存在 PostgreSQL 中（默认：DIR 里的 SQLite）",
        ),
    )
    init.add_argument(
        "--teacher-id",
        default="teacher",
        help=L("the teacher's sign-in id (default: teacher)", "教师的登录名（默认：teacher）"),
    )
    init.add_argument(
        "--add",
        action="store_true",
        help=L(
            "DIR holds a class: add the roster's new students (new PIN file)",
            "DIR 里已有班级：加入名单中的新学生（新的 PIN 文件）",
        ),
    )
    quiz = actions.add_parser(
        "quiz",
        parents=[common],
        help=L("open, close, extend, release a quiz on the server", "在服务器上开放、关闭、延时、公布测验"),
    )
    steps = quiz.add_subparsers(dest="step", metavar="STEP", required=True, parser_class=parser_class)
    where = parser_class(add_help=False)
    where.add_argument(
        "--class", dest="class_dir", required=True, metavar="DIR", help=L("the class folder", "班级文件夹")
    )
    where.add_argument(
        "--db",
        help=L(
            "postgresql://... when the class is in PostgreSQL", "postgresql://...：班级存在 PostgreSQL 中时"
        ),
    )
    opened = steps.add_parser(
        "open",
        parents=[common, where],
        help=L("open a quiz (TOML) for the whole class", "为全班开放一份测验（TOML）"),
    )
    opened.add_argument("quiz", metavar="QUIZ.toml")
    opened.add_argument(
        "--name",
        help=L(
            "what the dashboard calls it (default: the quiz's title)", "看板上显示的名称（默认：测验的标题）"
        ),
    )
    steps.add_parser(
        "close",
        parents=[common, where],
        help=L("close the open quiz: no more saves", "关闭开放中的测验：不再接受保存"),
    )
    extend = steps.add_parser(
        "extend",
        parents=[common, where],
        help=L(
            "give one student more time (-2m takes 2 minutes back)", "给一名学生延长时间（-2m 收回 2 分钟）"
        ),
    )
    # "-2m" is a time here, not an option: argparse reads a leading minus as an option unless
    # the word looks like a negative number, and this parser has no option that does.
    extend._negative_number_matcher = re.compile(r"^-\d+(?:\.\d+)?(?:s|sec|m|min|h)?$")
    extend.add_argument("student", metavar="STUDENT")
    extend.add_argument(
        "seconds",
        metavar="TIME",
        type=_seconds,
        help=L("300, 5m, 1h; -2m takes time back", "300、5m、1h；-2m 收回时间"),
    )
    release = steps.add_parser(
        "release", parents=[common, where], help=L("let students see their results", "让学生看到自己的成绩")
    )
    release.add_argument(
        "--number",
        type=QUIZ_NUMBER,
        help=L(
            f"the quiz's number, {QUIZ_NUMBER.limits} (class quiz list; default: the latest)",
            f"测验编号，{QUIZ_NUMBER.limits_zh}（见 class quiz list；默认：最新的）",
        ),
    )
    steps.add_parser(
        "list", parents=[common, where], help=L("the class's quizzes and their state", "班级的测验及其状态")
    )
    unlock = actions.add_parser(
        "unlock",
        parents=[common, where],
        help=L(
            "forget a student's (or an address's) wrong PINs", "清除某个学生（或某个地址）输错的 PIN 记录"
        ),
    )
    unlock.add_argument("student", metavar="STUDENT|ADDRESS")
    failures = actions.add_parser(
        "sign-ins",
        parents=[common, where],
        help=L("failed sign-ins, latest last", "登录失败记录，最新的在最后"),
    )
    failures.add_argument(
        "--minutes",
        type=WEEK_MINUTES,
        default=60,
        help=L(
            f"how far back, {WEEK_MINUTES.limits} (default 60)",
            f"往前看多少分钟，{WEEK_MINUTES.limits_zh}（默认 60）",
        ),
    )
    ended = actions.add_parser(
        "end-session",
        parents=[common, where],
        help=L("sign a student out (their tab says so)", "让一名学生退出登录（其页面会提示）"),
    )
    ended.add_argument("student", metavar="STUDENT")
    settings = actions.add_parser(
        "settings",
        parents=[common, where],
        help=L("the class's settings (the training lab on the server)", "班级设置（服务器上的训练实验室）"),
    )
    settings.add_argument(
        "--training",
        choices=("off", "on"),
        help=L("train on the server: off (default) or on", "在服务器上训练：off（默认）或 on"),
    )
    steps_type, slots_type = whole(1, MAX_TRAINING_STEPS), whole(1, MAX_TRAINING_SLOTS)
    settings.add_argument(
        "--training-steps",
        type=steps_type,
        help=L(
            f"most steps per objective a student may train, {steps_type.limits}",
            f"每个学生每个目标最多可训练的步数，{steps_type.limits_zh}",
        ),
    )
    settings.add_argument(
        "--training-slots",
        type=slots_type,
        help=L(
            f"trainings at once per host, {slots_type.limits}; the rest wait their turn",
            f"每台主机同时进行的训练数，{slots_type.limits_zh}；其余的排队等待",
        ),
    )
    return actions


def run_class(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classdb import ClassStoreError
    from exercises.classroom.quiz import ClassroomError

    name = f"objectives-tutor class {args.action}" + (f" {args.step}" if args.action == "quiz" else "")
    try:
        if args.action == "init":
            return _init(args, lang, console)
        if args.action != "quiz":
            return {
                "unlock": _unlock,
                "sign-ins": _sign_ins,
                "end-session": _end_session,
                "settings": _settings,
            }[args.action](args, lang, console)
        return {"open": _open, "close": _close, "extend": _extend, "release": _release, "list": _list}[
            args.step
        ](args, lang, console)
    except (ClassStoreError, ClassroomError) as error:
        raise UsageError(f"{name}: {error.text.get(lang, str(error))}") from None


def _init(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classdb.folder import init_class
    from exercises.classroom.identity import decode_roster, read_roster, read_roster_file

    try:
        data = read_roster_file(args.roster)
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
    from exercises.classdb.teacher import open_quiz_file

    with _store(args) as store:
        opened = open_quiz_file(store, Path(args.quiz), time.time(), args.name or "")
        students = sum(1 for s in store.students() if s.role == "student")
    quiz = opened.quiz()
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
                students=students,
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


def _found(store, typed: str, lang: str, command: str):
    from exercises.classroom.safe import plain

    found = store.find_student(typed)
    if found is None:
        raise UsageError(
            f"objectives-tutor class {command}: " + t("class-no-student", lang, student=plain(typed, 60))
        )
    return found


def _extend(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.safe import plain

    now = time.time()
    with _store(args) as store:
        found = _found(store, args.student, lang, "quiz extend")
        total = store.extend_time(found.id, args.seconds, now)
        exam = next((e for e in store.exams(store.current_quiz().quiz_id) if e.student == found.id), None)
    left = exam.seconds_left(now) if exam is not None and exam.started_at is not None else None
    line = t("class-extended", lang, student=plain(found.id, 60), minutes=f"{total / 60:+g}")
    if left is not None:
        line += " · " + t("class-left", lang, minutes=int(left) // 60, seconds=int(left) % 60)
    console.print(Text(line))
    return 0


def _unlock(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.safe import plain

    with _store(args) as store:
        found = store.find_student(args.student)
        who = found.id if found is not None else args.student.strip()
        if found is None and not any(row[1] == who for row in store.failed_sign_ins(time.time() - 86400)):
            raise UsageError(
                "objectives-tutor class unlock: "
                + t("class-no-student", lang, student=plain(args.student, 60))
            )
        store.unlock(who, time.time())
    console.print(Text(t("class-unlocked", lang, who=plain(who, 60))))
    return 0


def _sign_ins(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.safe import plain

    now = time.time()
    with _store(args) as store:
        rows = store.failed_sign_ins(now - 60 * args.minutes)
        trouble = store.sign_in_trouble(now)
    if not rows:
        console.print(Text(t("class-no-failures", lang, minutes=args.minutes)))
    for who, source, at, outcome in rows:
        stamp = time.strftime("%H:%M:%S", time.localtime(at))
        console.print(
            Text(f"{stamp}  {plain(who, 40)}  {plain(source, 40)}  {t(OUTCOME_KEYS[outcome], lang)}")
        )
    for entry in trouble:
        if entry.wait > 0:
            console.print(
                Text(
                    t(
                        "class-slowed",
                        lang,
                        who=plain(entry.who, 40),
                        failures=entry.failures,
                        wait=int(entry.wait) + 1,
                    )
                )
            )
    return 0


def _end_session(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.safe import plain

    with _store(args) as store:
        found = _found(store, args.student, lang, "end-session")
        count = store.end_sessions_of(found.id, time.time())
    console.print(
        Text(
            t(
                "class-session-ended-by-teacher" if count else "class-not-signed-in",
                lang,
                student=plain(found.id, 60),
            )
        )
    )
    return 0


def _settings(args: argparse.Namespace, lang: str, console: Console) -> int:
    from dataclasses import replace

    with _store(args) as store:
        settings = store.class_settings()
        changes = {
            key: value
            for key, value in (
                ("training", args.training),
                ("training_steps", args.training_steps),
                ("training_slots", args.training_slots),
            )
            if value is not None
        }
        if changes:
            settings = store.set_class_settings(replace(settings, **changes))
    console.print(
        Text(
            t(
                "class-settings",
                lang,
                training=t(TRAINING_KEYS[settings.training], lang),
                steps=settings.training_steps,
                slots=settings.training_slots,
            )
        )
    )
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
