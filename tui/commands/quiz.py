"""``objectives-tutor quiz new | take | key | grade | release``: a class's quiz
from files. Every line printed from a student's file goes through ``safe.plain``
(no escape sequences reach the teacher's terminal)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from exercises.text import cannot, pick
from tui.errors import UsageError
from tui.i18n import MESSAGES, t
from tui.render import emit_json

STATUS_KEYS = {"did not submit": "quiz-status-did-not-submit", "conflict": "quiz-status-conflict"}


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
    quiz = commands.add_parser(
        "quiz", parents=[common], help="classroom quizzes: new, take, key, grade, release"
    )
    actions = quiz.add_subparsers(dest="action", metavar="ACTION", required=True, parser_class=parser_class)
    new = actions.add_parser("new", parents=[common], help="write a quiz definition (TOML)")
    new.add_argument("--title", required=True)
    new.add_argument("--exercises", required=True, help="exercise ids, comma-separated")
    new.add_argument("--time-limit", help="minutes, a whole number from 1 to 1440")
    new.add_argument("--roster", help="CSV of student id,name: writes the teacher file with a PIN each")
    new.add_argument("--teacher", help="where the teacher file goes (default: <output>.teacher.toml)")
    new.add_argument(
        "--results",
        choices=("after-submit", "after-release"),
        default="after-submit",
        help="when students see their results (default after-submit)",
    )
    new.add_argument("-o", "--output", required=True, help="the quiz file to hand out, e.g. quiz.toml")
    new.add_argument("--force", action="store_true", help="overwrite existing files")
    take = actions.add_parser("take", parents=[common], help="take a quiz in exam mode (answers autosaved)")
    take.add_argument("quiz")
    take.add_argument("--student", required=True)
    take.add_argument("--pin", help="your PIN from the teacher (asked for when the quiz is signed)")
    take.add_argument("--out", default=".", help="where the submission is written (default: here)")
    key = actions.add_parser("key", parents=[common], help="one student's questions and solutions")
    key.add_argument("quiz")
    key.add_argument("--student", required=True)
    key.add_argument("--json", action="store_true")
    grade = actions.add_parser(
        "grade", parents=[common], help="regrade every submission; gradebook and report"
    )
    grade.add_argument("quiz", nargs="?", help="the quiz file (not with --class)")
    grade.add_argument("submissions", nargs="*", metavar="SUBMISSION", help="files, or folders of *.json")
    # h5 (issue 15): grade a quiz taken on the class server, from the class database
    grade.add_argument("--class", dest="class_dir", metavar="DIR", help="grade from this class's database")
    grade.add_argument("--db", help="with --class: postgresql://... when the class is in PostgreSQL")
    grade.add_argument("--number", type=int, help="with --class: the quiz's number (default: the latest)")
    grade.add_argument("--teacher", help="the teacher file: roster and PINs (signatures checked)")
    grade.add_argument("--grace", default="1", help="minutes of grace before 'late' (default 1)")
    grade.add_argument("--csv", metavar="FILE", help="write the gradebook CSV here")
    grade.add_argument("--report", metavar="FILE", help="write the class report (Markdown) here")
    grade.add_argument("--all", action="store_true", help="every misconception and every name in the report")
    grade.add_argument(
        "--run-student-code-unisolated",
        action="store_true",
        help="where this computer cannot isolate lab files (no Landlock/seccomp: macOS, old kernels), "
        "run the students' code anyway, with your rights over your files (rows flagged 'unisolated')",
    )
    release = actions.add_parser("release", parents=[common], help="let students see their results")
    release.add_argument("quiz")
    release.add_argument("--out", default=".", help="the folder the students' submissions are in")


def run_quiz(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.quiz import ClassroomError

    try:
        return {"new": _new, "take": _take, "key": _key, "grade": _grade, "release": _release}[args.action](
            args, lang, console
        )
    except ClassroomError as error:
        raise UsageError(f"objectives-tutor quiz {args.action}: {error.text.get(lang, str(error))}") from None


def _write(path: Path, text: str, action: str, lang: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(
            f"objectives-tutor quiz {action}: " + pick(cannot("write", path, error), lang)
        ) from None


def _new(args: argparse.Namespace, lang: str, console: Console) -> int:
    from dataclasses import replace

    from exercises.classroom.identity import decode_roster, dump_teacher_file, read_roster
    from exercises.classroom.quiz import dump_toml, new_quiz

    out = Path(args.output)
    teacher = Path(args.teacher) if args.teacher else out.with_name(out.stem + ".teacher.toml")
    if args.teacher and not args.roster:
        raise UsageError("objectives-tutor quiz new: " + t("quiz-teacher-needs-roster", lang))
    for target in (out, teacher) if args.roster else (out,):
        if target.exists() and not args.force:
            raise UsageError("objectives-tutor quiz new: " + t("quiz-exists", lang, path=target))
    ids = [part.strip() for part in args.exercises.replace("，", ",").split(",") if part.strip()]
    quiz = new_quiz(args.title, ids, _minutes(args.time_limit, lang), args.results)
    students = None
    if args.roster:
        try:
            roster_bytes = Path(args.roster).read_bytes()
        except OSError as error:
            raise UsageError(
                "objectives-tutor quiz new: " + pick(cannot("read", args.roster, error), lang)
            ) from None
        students = read_roster(decode_roster(roster_bytes))
        quiz = replace(quiz, signed=True)
        _write(teacher, dump_teacher_file(quiz, students), "new", lang)
        with contextlib.suppress(OSError):
            teacher.chmod(0o600)
    _write(out, dump_toml(quiz), "new", lang)
    console.print(Text(t("quiz-made", lang, id=quiz.id, count=len(quiz.exercises), path=out)))
    if students is not None:
        console.print(Text(t("quiz-teacher-file", lang, count=len(students), path=teacher)))
    return 0


def _take(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.exam import ExamSession
    from exercises.classroom.quiz import load

    student = args.student.strip()
    quiz = load(Path(args.quiz))
    pin = args.pin
    if quiz.signed and pin is None:
        if not sys.stdin.isatty():
            raise UsageError("objectives-tutor quiz take: " + t("quiz-pin-needed", lang))
        import getpass

        pin = getpass.getpass(t("quiz-pin-prompt", lang))
    folder = Path(args.out)
    try:
        session = ExamSession.open(quiz, student, folder, pin=pin if quiz.signed or pin else None)
    except OSError as error:
        raise UsageError("objectives-tutor quiz take: " + pick(cannot("use", folder, error), lang)) from None
    from tui.app import run_app

    try:
        run_app(args.lang, exam=session)
    finally:
        session.close()
    return 0


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
        console.print(Text(f"\n{row['index'] + 1}. {row['exercise']} (seed {row['seed']})", style="bold"))
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
    from exercises.classroom.grading import GRADED, grade_class, lab_files_unisolated
    from exercises.classroom.identity import load_teacher_file
    from exercises.classroom.quiz import is_lab, load
    from exercises.classroom.report import gradebook_csv, lab_outcome, points_text, report_markdown
    from exercises.classroom.safe import plain
    from exercises.lab.isolation import probe as isolation_report

    if args.class_dir is not None:  # h5 (issue 15): the quiz and its answers come from the class database
        from tui.commands.class_admin import graded_class

        quiz, result = graded_class(args, lang)
    elif args.quiz is None or not args.submissions:
        raise UsageError("objectives-tutor quiz grade: " + t("quiz-grade-needs-files", lang))
    else:
        quiz = load(Path(args.quiz))
        roster = load_teacher_file(Path(args.teacher), quiz) if args.teacher else None
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
        (args.csv, lambda: gradebook_csv(quiz, result.grades)),
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
        if grade.status == GRADED:
            cells = [
                Text(
                    points_text(q.points),
                    style="green" if q.score >= 1 else "red" if q.score == 0 else "yellow",
                )
                for q in grade.questions
            ]
            labs = [
                t("quiz-lab-rule", lang, n=q.index + 1, rule=_outcome_words(lab_outcome(q), lang))
                for q in grade.questions
                if is_lab(q.exercise) and q.answered
            ]
            table.add_row(
                Text(plain(grade.student, 60)),
                *cells,
                f"{points_text(grade.total)}/{points_text(grade.maximum)}",
                f"{grade.percent:.0f}",
                Text(" ".join([*grade.flags, *labs]), style="magenta"),
            )
        else:
            table.add_row(
                Text(plain(grade.student, 60)),
                *([""] * len(quiz.exercises)),
                "",
                "",
                Text(t(STATUS_KEYS[grade.status], lang), style="red"),
            )
    console.print(table)
    console.print(
        Text(
            t(
                "quiz-grade-summary",
                lang,
                graded=len(result.graded),
                rejected=len(result.rejected),
                conflicts=len(result.conflicts),
                missing=sum(1 for g in result.grades if g.status == "did not submit"),
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


def _release(args: argparse.Namespace, lang: str, console: Console) -> int:
    import time

    from exercises.classroom.grading import release_stem
    from exercises.classroom.quiz import load

    quiz = load(Path(args.quiz))
    folder = Path(args.out)
    if not folder.is_dir():
        raise UsageError("objectives-tutor quiz release: " + t("quiz-no-folder", lang, path=folder))
    target = folder / release_stem(quiz)
    release = {"kind": "release", "quiz": quiz.id, "released_at": time.time()}
    _write(target, json.dumps(release) + "\n", "release", lang)
    console.print(Text(t("quiz-released", lang, path=target)))
    return 0
