"""``objectives-tutor quiz new | key | grade``: a teacher's side of a quiz."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tui.errors import UsageError
from tui.render import emit_json


def run_quiz(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.quiz import QuizFileError

    try:
        if args.action == "new":
            return _new(args, console)
        if args.action == "key":
            return _key(args, lang, console)
        if args.action == "take":
            return _take(args, lang)
        return _grade(args, lang, console)
    except QuizFileError as error:
        raise UsageError(f"objectives-tutor quiz {args.action}: {error}") from None


def _new(args: argparse.Namespace, console: Console) -> int:
    from exercises.classroom.quiz import dump_toml, new_quiz

    out = Path(args.output)
    if out.exists() and not args.force:
        raise UsageError(f"objectives-tutor quiz new: {out} exists; choose another -o or add --force")
    ids = [part.strip() for part in args.exercises.replace("，", ",").split(",") if part.strip()]
    quiz = new_quiz(args.title, ids, args.time_limit)
    try:
        out.write_text(dump_toml(quiz), encoding="utf-8")
    except OSError as error:
        raise UsageError(f"objectives-tutor quiz new: cannot write {out}: {error}") from None
    console.print(Text(f"{quiz.id}: {len(quiz.exercises)} questions -> {out}"))
    return 0


def _take(args: argparse.Namespace, lang: str) -> int:
    from exercises.classroom.exam import ExamSession
    from exercises.classroom.quiz import load
    from tui.app import run_app

    if not args.student.strip():
        raise UsageError("objectives-tutor quiz take: --student must not be empty")
    quiz = load(Path(args.quiz))
    folder = Path(args.out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"objectives-tutor quiz take: cannot use {folder}: {error}") from None
    run_app(args.lang, exam=ExamSession.open(quiz, args.student, folder))
    return 0


def _key(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.catalogue import get
    from exercises.classroom.quiz import load, questions_for
    from exercises.text import pick

    quiz = load(Path(args.quiz))
    rows = []
    for question in questions_for(quiz, args.student):
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
        payload = {"quiz": quiz.id, "student": args.student.strip(), "questions": rows}
        emit_json(payload)  # one JSON writer for every command (h4, issue 10)
        return 0
    console.print(Text(f"{quiz.title} · {args.student}", style="bold"))
    for row in rows:
        console.print(Text(f"\n{row['index'] + 1}. {row['exercise']} (seed {row['seed']})", style="bold"))
        console.print(Text(row["prompt"]))
        for part, text in row["solution"].items():
            console.print(Text.assemble((f"  {part}: ", "green"), text.replace("\n", " / ")))
    return 0


def _grade(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.classroom.quiz import grade_class, gradebook_csv, load, report_markdown

    quiz = load(Path(args.quiz))
    result = grade_class(quiz, [Path(p) for p in args.submissions])
    for path, why in result.rejected:
        sys.stderr.write(f"objectives-tutor quiz grade: rejected {path}: {why}\n")
    for target, text in (
        (args.csv, gradebook_csv(quiz, result.grades)),
        (args.report, report_markdown(quiz, result, lang)),
    ):
        if target:
            try:
                Path(target).write_text(text, encoding="utf-8")
            except OSError as error:
                raise UsageError(f"objectives-tutor quiz grade: cannot write {target}: {error}") from None
    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("student")
    for index in range(len(quiz.exercises)):
        table.add_column(f"q{index + 1}", justify="right")
    table.add_column("total", justify="right")
    table.add_column("%", justify="right")
    for grade in sorted(result.grades, key=lambda g: g.student):
        cells = [
            Text(f"{q.score:.2f}", style="green" if q.score >= 1 else "red" if q.score == 0 else "yellow")
            for q in grade.questions
        ]
        table.add_row(grade.student, *cells, f"{grade.total:.2f}", f"{grade.percent:.0f}")
    console.print(table)
    console.print(Text(f"{len(result.grades)} graded, {len(result.rejected)} rejected", style="bold"))
    return 1 if result.rejected else 0
