"""``objectives-tutor quiz new | take | key | grade | release``: a class's quiz
from files. Every line printed from a student's file goes through ``safe.plain``
(no escape sequences reach the teacher's terminal)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from exercises.grading.marks import full_marks
from exercises.text import L, cannot, pick
from tui.errors import UsageError
from tui.i18n import MESSAGES, t
from tui.render import emit_json

PIN_ENV = "OBJECTIVES_TUTOR_PIN"  # the PIN for `quiz take` without a terminal (never on the command line)
PIN_TRIES = 3


def _minutes(text: str | None, lang: str) -> int | None:
    """--time-limit: exactly what a quiz file's time_limit_minutes accepts (checked after
    parsing, so that the message is in the user's language)."""
    import unicodedata

    from exercises.classroom.quiz import QuizFileError, check_time_limit

    if text is None:
        return None
    value = unicodedata.normalize("NFKC", text).strip()
    try:
        return check_time_limit(int(value) if value.isascii() and value.isdigit() else value)
    except QuizFileError as error:
        raise UsageError(f"objectives-tutor quiz new: --time-limit: {error.text[lang]}") from None


def _grace(text: str, lang: str) -> float:
    import math
    import unicodedata

    try:
        value = float(unicodedata.normalize("NFKC", text).strip())
    except ValueError:
        value = math.nan
    if not 0 <= value <= 24 * 60:
        raise UsageError(
            "objectives-tutor quiz grade: --grace: " + t("quiz-grace-bad", lang, value=text[:20])
        )
    return value


def add_quiz_parser(commands, common, parser_class) -> None:
    """The ``quiz`` subcommands (the hook tui/cli.py calls)."""
    from tui.commands.class_admin import QUIZ_NUMBER  # `class quiz`'s numbers: one rule

    quiz = commands.add_parser(
        "quiz",
        parents=[common],
        help=L(
            "classroom quizzes: new, take, key, grade, release", "课堂测验：new、take、key、grade、release"
        ),
    )
    actions = quiz.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=parser_class)
    new = actions.add_parser(
        "new", parents=[common], help=L("write a quiz definition (TOML)", "写一份测验定义（TOML）")
    )
    new.add_argument("--title", required=True)
    new.add_argument(
        "--exercises", required=True, help=L("exercise ids, comma-separated", "练习编号，用逗号分隔")
    )
    new.add_argument(
        "--time-limit", help=L("minutes, a whole number from 1 to 1440", "分钟数，1 到 1440 的整数")
    )
    new.add_argument(
        "--roster",
        help=L(
            "CSV of student id,name: writes the teacher file with a PIN each",
            "学生名单 CSV：学号,姓名；写出教师文件，每人一个 PIN",
        ),
    )
    new.add_argument(
        "--teacher",
        help=L(
            "where the teacher file goes (default: <output>.teacher.toml)",
            "教师文件写到哪里（默认：<output>.teacher.toml）",
        ),
    )
    new.add_argument(
        "--results",
        choices=("after-submit", "after-release"),
        default="after-submit",
        help=L(
            "when students see their results (default after-submit)",
            "学生何时看到自己的成绩（默认 after-submit）",
        ),
    )
    new.add_argument(
        "-o",
        "--output",
        required=True,
        help=L("the quiz file to hand out, e.g. quiz.toml", "要发给学生的测验文件，例如 quiz.toml"),
    )
    new.add_argument("--force", action="store_true", help=L("overwrite existing files", "覆盖已有的文件"))
    take = actions.add_parser(
        "take",
        parents=[common],
        help=L("take a quiz in exam mode (answers autosaved)", "以考试模式参加测验（答案自动保存）"),
    )
    take.add_argument("quiz")
    take.add_argument("--student", required=True)
    # refused with a reason: a command line is readable by every account on the machine (ps)
    take.add_argument(
        "--pin",
        help=L(
            f"refused: type the PIN when asked, or set ${PIN_ENV}",
            f"不接受：请在提示时输入 PIN，或设置 ${PIN_ENV}",
        ),
    )
    take.add_argument(
        "--out",
        default=".",
        help=L("where the submission is written (default: here)", "提交文件写到哪里（默认：当前文件夹）"),
    )
    key = actions.add_parser(
        "key", parents=[common], help=L("one student's questions and solutions", "一名学生的题目和答案")
    )
    key.add_argument("quiz")
    key.add_argument("--student", required=True)
    key.add_argument("--json", action="store_true")
    grade = actions.add_parser(
        "grade",
        parents=[common],
        help=L("regrade every submission; gradebook and report", "重新评分每一份提交；成绩册和报告"),
    )
    grade.add_argument(
        "quiz", nargs="?", help=L("the quiz file (not with --class)", "测验文件（不能与 --class 同用）")
    )
    grade.add_argument(
        "submissions",
        nargs="*",
        metavar="SUBMISSION",
        help=L("files, or folders of *.json", "文件，或装有 *.json 的文件夹"),
    )
    # h5 (issue 15): grade a quiz taken on the class server, from the class database
    grade.add_argument(
        "--class",
        dest="class_dir",
        metavar="DIR",
        help=L("grade from this class's database", "从这个班级的数据库评分"),
    )
    grade.add_argument(
        "--db",
        help=L(
            "with --class: postgresql://... when the class is in PostgreSQL",
            "与 --class 一起：postgresql://...，班级存在 PostgreSQL 中时",
        ),
    )
    grade.add_argument(
        "--number",
        type=QUIZ_NUMBER,
        help=L(
            f"with --class: the quiz's number, {QUIZ_NUMBER.limits} (default: the latest)",
            f"与 --class 一起：测验编号，{QUIZ_NUMBER.limits_zh}（默认：最新的）",
        ),
    )
    grade.add_argument(
        "--teacher",
        help=L(
            "the teacher file: roster and PINs (signatures checked)", "教师文件：名单和 PIN（会核对签名）"
        ),
    )
    grade.add_argument(
        "--grace",
        default="1",
        help=L("minutes of grace before 'late' (default 1)", "算作“迟交”之前的宽限分钟数（默认 1）"),
    )
    grade.add_argument(
        "--csv", metavar="FILE", help=L("write the gradebook CSV here", "把成绩册 CSV 写到这里")
    )
    grade.add_argument(  # checked after parsing (report.FORMATS): --help imports no grading
        "--format",
        default="plain",
        help=L(
            "the gradebook's columns: plain (every detail), canvas or moodle (what each imports)",
            "成绩册的列：plain（全部细节）、canvas 或 moodle（各自能导入的格式）",
        ),
    )
    grade.add_argument(
        "--report",
        metavar="FILE",
        help=L("write the class report (Markdown) here", "把班级报告（Markdown）写到这里"),
    )
    grade.add_argument(
        "--all",
        action="store_true",
        help=L("every misconception and every name in the report", "报告中列出每一个误解和每一个名字"),
    )
    grade.add_argument(
        "--run-student-code-unisolated",
        action="store_true",
        help=L(
            "where this computer cannot isolate lab files (no Landlock/seccomp: macOS, old kernels), "
            "run the students' code anyway, with your rights over your files (rows flagged 'unisolated')",
            (
                "在这台电脑无法隔离实验室文件的地方（没有 Landlock/seccomp：macOS、旧内核），"
                "仍然以你对自己文件的权限运行学生的代码（这些行标记为 'unisolated'）"
            ),
        ),
    )
    release = actions.add_parser(
        "release", parents=[common], help=L("let students see their results", "让学生看到自己的成绩")
    )
    release.add_argument("quiz")
    release.add_argument(
        "--out",
        default=".",
        help=L("the folder the students' submissions are in", "存放学生提交文件的文件夹"),
    )
    release.add_argument(
        "--teacher",
        help=L(
            "the teacher file (default: <quiz>.teacher.toml beside the quiz)",
            "教师文件（默认：测验旁边的 <quiz>.teacher.toml）",
        ),
    )


def run_quiz(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.quiz import ClassroomError

    try:
        return {"new": _new, "take": _take, "key": _key, "grade": _grade, "release": _release}[args.action](
            args, lang, console
        )
    except ClassroomError as error:
        raise UsageError(f"objectives-tutor quiz {args.action}: {error.text.get(lang, str(error))}") from None


def _write(path: Path, text: str, action: str, lang: str, private: bool = False) -> None:
    """Write ``text``; ``private``: created 0600 from the first byte (the teacher file)."""
    try:
        if private:
            import os

            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # --force: a new file of our own, not an old one's mode
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                handle.write(text)
        else:
            path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(
            f"objectives-tutor quiz {action}: " + pick(cannot("write", path, error), lang)
        ) from None


def _new(args: argparse.Namespace, lang: str, console: Console) -> int:
    from dataclasses import replace

    from exercises.classroom.identity import (
        QUIZ_PIN_BODY,
        TeacherFile,
        decode_roster,
        dump_teacher_file,
        lock_quiz,
        new_release_secret,
        read_roster,
        read_roster_file,
    )
    from exercises.classroom.quiz import dump_toml, new_quiz

    out = Path(args.output)
    teacher = Path(args.teacher) if args.teacher else teacher_path(out)
    if args.teacher and not args.roster:
        raise UsageError("objectives-tutor quiz new: " + t("quiz-teacher-needs-roster", lang))
    secrets_kept = bool(args.roster) or args.results == "after-release"  # a teacher file is written
    for target in (out, teacher) if secrets_kept else (out,):
        if target.exists() and not args.force:
            raise UsageError("objectives-tutor quiz new: " + t("quiz-exists", lang, path=target))
    ids = [part.strip() for part in args.exercises.replace("，", ",").split(",") if part.strip()]
    quiz = new_quiz(args.title, ids, _minutes(args.time_limit, lang), args.results)
    students = None
    if args.roster:
        try:
            roster_bytes = read_roster_file(args.roster)
        except OSError as error:
            raise UsageError(
                "objectives-tutor quiz new: " + pick(cannot("read", args.roster, error), lang)
            ) from None
        students = read_roster(decode_roster(roster_bytes), QUIZ_PIN_BODY)
        if len(students) > 50:  # a scrypt per PIN: a few seconds for a large roster
            sys.stderr.write(t("quiz-pin-checks", lang, count=len(students)) + "\n")
        quiz, students = lock_quiz(quiz, students)
    release = ""
    if quiz.results == "after-release":
        release, check = new_release_secret()
        quiz = replace(quiz, release_check=check)
    if secrets_kept:
        _write(
            teacher, dump_teacher_file(quiz, TeacherFile(students or [], release)), "new", lang, private=True
        )
    _write(out, dump_toml(quiz), "new", lang)
    console.print(Text(t("quiz-made", lang, id=quiz.id, count=len(quiz.exercises), path=out)))
    if students is not None:
        console.print(Text(t("quiz-teacher-file", lang, count=len(students), path=teacher)))
    elif secrets_kept:
        console.print(Text(t("quiz-release-file", lang, path=teacher)))
    return 0


def _take(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.quiz import load

    if args.pin is not None:
        raise UsageError("objectives-tutor quiz take: " + t("quiz-pin-flag", lang, env=PIN_ENV))
    student = args.student.strip()
    quiz = load(Path(args.quiz))
    folder = Path(args.out)
    session = _open_exam(quiz, student, folder, lang)
    from tui.app import run_app

    try:
        run_app(args.lang, exam=session)
    finally:
        session.close()
    return 0


def _open_exam(quiz, student: str, folder: Path, lang: str):
    """The exam, opened once the PIN is right: from $OBJECTIVES_TUTOR_PIN (one try), else
    typed at the terminal without echo (PIN_TRIES tries). A wrong PIN never starts the
    quiz: no clock, no autosave."""
    import getpass
    import os

    from exercises.classroom.exam import ExamSession
    from exercises.classroom.identity import PinError, signing_key

    pin = os.environ.pop(PIN_ENV, None) if quiz.signed else None  # read once; children never inherit it
    if quiz.signed and pin is None:
        if not sys.stdin.isatty():
            raise UsageError("objectives-tutor quiz take: " + t("quiz-pin-needed", lang, env=PIN_ENV))
        for attempt in range(1, PIN_TRIES + 1):
            pin = getpass.getpass(t("quiz-pin-prompt", lang))
            try:
                signing_key(quiz, student, pin)
                break
            except PinError as error:
                if attempt == PIN_TRIES:
                    raise
                sys.stderr.write(pick(error.text, lang) + "\n")
    try:
        return ExamSession.open(quiz, student, folder, pin=pin)
    except OSError as error:
        raise UsageError("objectives-tutor quiz take: " + pick(cannot("use", folder, error), lang)) from None


def _key(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.catalogue import get
    from exercises.classroom.quiz import is_lab, load, questions_for
    from exercises.classroom.safe import plain

    quiz = load(Path(args.quiz))
    student = args.student.strip()
    rows = []
    for question in questions_for(quiz, student):
        if is_lab(question.exercise):
            from exercises.lab.grading import SOURCE_PART, task_of
            from exercises.lab.tasks import solution

            task = task_of(question.exercise)
            rows.append(
                {
                    "index": question.index,
                    "exercise": question.exercise,
                    "seed": question.seed,
                    "prompt": pick(task.statement, lang),
                    "solution": {SOURCE_PART: solution(task)},
                }
            )
            continue
        exercise = get(question.exercise)
        variant = exercise.generate(question.seed)
        rows.append(
            {
                "index": question.index,
                "exercise": question.exercise,
                "seed": question.seed,
                "prompt": pick(variant.prompt, lang),
                "solution": exercise.solve(variant),
            }
        )
    if args.json:
        emit_json({"quiz": quiz.id, "student": student, "questions": rows})
        return 0
    console.print(Text(f"{plain(quiz.title)} · {plain(student)}", style="bold"))
    for row in rows:
        seed = t("seed-shown", lang, seed=row["seed"])
        console.print(Text(f"\n{row['index'] + 1}. {row['exercise']} ({seed})", style="bold"))
        console.print(Text(row["prompt"]))
        for part, text in row["solution"].items():
            if "\n" in text.strip():  # a lab task's reference file: as a file
                console.print(Text(f"  {part}:", style="green"))
                console.print(Text(text), soft_wrap=True)  # code keeps its own lines
                continue
            console.print(Text.assemble((f"  {part}: ", "green"), text.replace("\n", " / ")))
    return 0


def _submission_paths(arguments: list[str]) -> list[Path]:
    """Files as given; a folder stands for the *.json files in it."""
    paths: list[Path] = []
    for argument in arguments:
        path = Path(argument)
        paths.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    return paths


def _grade(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.grading import SUBMITTED, grade_class, lab_files_unisolated
    from exercises.classroom.histogram import bar_lines, score_bins
    from exercises.classroom.identity import load_teacher_file
    from exercises.classroom.quiz import is_lab, load
    from exercises.classroom.report import (
        FORMATS,
        STATUS,
        WORDS,
        gradebook_csv,
        lab_outcome,
        points_text,
        question_bars,
        report_markdown,
        status_counts,
    )
    from exercises.classroom.safe import plain
    from exercises.lab.isolation import probe as isolation_report

    if args.format not in FORMATS:
        raise UsageError(
            "objectives-tutor quiz grade: "
            + t("quiz-format-bad", lang, value=plain(args.format, 20), formats=", ".join(FORMATS))
        )
    if args.class_dir is not None:  # h5 (issue 15): the quiz and its answers come from the class database
        from tui.commands.class_admin import graded_class

        quiz, result = graded_class(args, lang)
    elif args.quiz is None or not args.submissions:
        raise UsageError("objectives-tutor quiz grade: " + t("quiz-grade-needs-files", lang))
    else:
        quiz = load(Path(args.quiz))
        roster = load_teacher_file(Path(args.teacher), quiz).students if args.teacher else None
        if quiz.signed and roster is None:
            sys.stderr.write("objectives-tutor quiz grade: " + t("quiz-unverified", lang) + "\n")
        grace = _grace(args.grace, lang)
        unisolated = lab_files_unisolated(quiz, args.run_student_code_unisolated)
        if unisolated:
            why = pick(isolation_report().reasons(), lang)
            sys.stderr.write(
                "objectives-tutor quiz grade: " + t("quiz-unisolated-running", lang, why=why) + "\n"
            )
        result = grade_class(
            quiz,
            _submission_paths(args.submissions),
            roster,
            grace,
            unisolated=args.run_student_code_unisolated,
        )
    for path in result.skipped:
        sys.stderr.write("objectives-tutor quiz grade: " + t("quiz-skipped", lang, path=plain(path)) + "\n")
    for path, why in result.rejected_text:
        sys.stderr.write(
            "objectives-tutor quiz grade: "
            + t("quiz-rejected", lang, path=plain(path), why=plain(pick(why, lang), 300))
            + "\n"
        )
    for student, files in result.conflicts:
        sys.stderr.write(
            "objectives-tutor quiz grade: "
            + t("quiz-conflict", lang, student=plain(student), files=plain(", ".join(files), 300))
            + "\n"
        )
    for target, text in (
        (args.csv, lambda: gradebook_csv(quiz, result.grades, args.format, lang)),
        (args.report, lambda: report_markdown(quiz, result, lang, args.all)),
    ):
        if target:
            _write(Path(target), text(), "grade", lang)
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column(t("quiz-col-student", lang), overflow="fold", max_width=24)
    for index in range(len(quiz.exercises)):
        table.add_column(f"q{index + 1}", justify="right")
    table.add_column(t("quiz-col-points", lang), justify="right")
    table.add_column("%", justify="right")
    table.add_column(t("quiz-col-notes", lang), overflow="fold")
    for grade in result.grades:
        if grade.graded:
            cells = [
                Text(
                    points_text(q.points),
                    style="green" if full_marks(q.score) else "red" if q.score == 0 else "yellow",
                )
                for q in grade.questions
            ]
            labs = [
                t("quiz-lab-rule", lang, n=q.index + 1, rule=_outcome_words(lab_outcome(q), lang))
                for q in grade.questions
                if is_lab(q.exercise) and q.answered
            ]
            how = [] if grade.status == SUBMITTED else [pick(STATUS[grade.status], lang)]
            table.add_row(
                Text(plain(grade.student, 60)),
                *cells,
                f"{points_text(grade.total)}/{points_text(grade.maximum)}",
                f"{grade.percent:.0f}",
                Text(" ".join([*how, *grade.flags, *labs]), style="magenta"),
            )
        else:
            table.add_row(
                Text(plain(grade.student, 60)),
                *([""] * len(quiz.exercises)),
                "",
                "",
                Text(pick(STATUS[grade.status], lang), style="red"),
            )
    console.print(table)
    graded = result.graded
    if graded:  # the distributions, as bars a teacher reads at a glance (80 columns)
        note = pick(WORDS["distribution-note"], lang).format(maximum=quiz.maximum, graded=len(graded))
        console.print(Text("\n" + note, style="bold"))
        for line in bar_lines(score_bins(g.percent for g in graded)):
            console.print(Text(line), no_wrap=True, crop=False)
        console.print(Text("\n" + pick(WORDS["per-question"], lang), style="bold"))
        for line in question_bars(quiz, graded, lang):
            console.print(Text(line), no_wrap=True, crop=False)
    statuses = " · ".join(f"{pick(STATUS[status], lang)} {count}" for status, count in status_counts(result))
    console.print(
        Text(
            "\n"
            + t(
                "quiz-grade-summary",
                lang,
                statuses=statuses,
                rejected=len(result.rejected),
                conflicts=len(result.conflicts),
            ),
            style="bold",
        )
    )
    return 1 if result.rejected or result.conflicts else 0


def _outcome_words(outcome: str, lang: str) -> str:
    """A lab outcome for the teacher's table: the lab's own words for pass, stopped,
    invalid and not-started; a rule by its stable code (the report explains each)."""
    key = f"lab-status-{outcome}"
    return t(key, lang) if outcome != "fail" and key in MESSAGES else outcome


def teacher_path(quiz_file: Path) -> Path:
    """Where ``quiz new`` puts the teacher file by default: beside the quiz."""
    return quiz_file.with_name(quiz_file.stem + ".teacher.toml")


def _release(args: argparse.Namespace, lang: str, console: Console) -> int:
    """Write the release file: the teacher file's release secret, which ``quiz take``
    checks against the hash in the handout (a file a student makes is not a release)."""
    from exercises.classroom.identity import load_teacher_file
    from exercises.classroom.quiz import load
    from exercises.classroom.release import release_payload, release_stem, release_text

    quiz_file = Path(args.quiz)
    quiz = load(quiz_file)
    folder = Path(args.out)
    if not folder.is_dir():
        raise UsageError("objectives-tutor quiz release: " + t("quiz-no-folder", lang, path=folder))
    teacher = Path(args.teacher) if args.teacher else teacher_path(quiz_file)
    if not teacher.exists():
        raise UsageError(
            "objectives-tutor quiz release: " + t("quiz-release-needs-teacher", lang, path=teacher)
        )
    payload = release_payload(quiz, load_teacher_file(teacher, quiz).release)
    target = folder / release_stem(quiz)
    _write(target, release_text(payload), "release", lang)
    console.print(Text(t("quiz-released", lang, path=target)))
    return 0
