"""``objectives-tutor exercises | exercise | check``: the catalogue, one
variant, and grading an answer, as text or JSON."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from exercises.text import L
from tui.commands.arguments import ArgumentsError, Refusal, refuse_inapplicable
from tui.errors import UsageError
from tui.i18n import MESSAGES, notice_text, t
from tui.render import emit_json


def _exercise(exercise_id: str):
    from exercises.catalogue import UnknownExercise, get

    try:
        return get(exercise_id)
    except UnknownExercise as error:
        raise UsageError(f"objectives-tutor: {error}") from None


def run_catalogue(args: argparse.Namespace, lang: str, console: Console) -> None:
    from exercises.catalogue import EXERCISES
    from exercises.curriculum import OBJECTIVES
    from exercises.text import pick

    catalogue = L("the catalogue (without --check)", "题目列表（不带 --check）")
    refuse_inapplicable(args, "objectives-tutor exercises", [("json", not args.check, catalogue)])
    if args.check:
        _self_check(console)
        return

    rows = [
        {
            "id": exercise.id,
            "objective": exercise.objective,
            "title": pick(exercise.title, lang),
            "kind": exercise.kind,
            "parts": exercise.part_names(),
            "graded": exercise.graded,
            "pool_size": exercise.pool_size(),
        }
        for exercise in EXERCISES
    ]
    if args.json:
        emit_json({"exercises": rows})
        return
    lesson_titles = {objective.id: pick(objective.title, lang) for objective in OBJECTIVES}
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    # An id is what a user copies into `exercise ID`: never wrapped; the words wrap instead.
    table.add_column("id", no_wrap=True, min_width=max(len(row["id"]) for row in rows))
    for header in (t("objective", lang), t("title", lang), t("pool", lang)):
        table.add_column(header, overflow="fold")
    for row in rows:
        title = row["title"] if row["graded"] else t("self-marked-title", lang, title=row["title"])
        pool = t("pool-endless", lang) if row["pool_size"] is None else str(row["pool_size"])
        table.add_row(row["id"], lesson_titles.get(row["objective"], row["objective"]), title, pool)
    console.print(table)


def _self_check(console: Console) -> None:
    from exercises.selfcheck import problems

    found = problems()
    for line in found:
        console.print(Text(f"✗ {line}", style="red"))
    if found:
        raise SystemExit(1)
    console.print(Text("✓ the catalogue checks out", style="green"))


def describe(exercise, variant, lang: str, with_solution: bool) -> dict:
    """An exercise variant as JSON: prompt, parts, hints, and the solution if asked."""
    from exercises.text import pick

    payload = {
        "exercise": exercise.id,
        "seed": variant.seed,
        "objective": exercise.objective,
        "title": pick(exercise.title, lang),
        "kind": exercise.kind,
        "graded": exercise.graded,
        "prompt": pick(variant.prompt, lang),
        "parts": [
            {"name": part.name, "label": pick(part.label, lang), "example": pick(part.example, lang)}
            for part in exercise.parts
        ],
        "hints": [pick(hint, lang) for hint in exercise.hints(variant)],
    }
    if with_solution:
        payload["solution"], computed = exercise.shown_solution(variant, lang)
        payload["solution_source"] = "engine" if computed else "course"
    return payload


def print_rubric(exercise, lang: str, console: Console) -> None:
    from exercises.text import pick

    rubric = exercise.scoring()
    console.print(Text(f"{t('rubric-title', lang)}  [{exercise.id}]", style="bold"))
    console.print(Text.assemble((t("rubric-full", lang), "bold green"), " ", pick(rubric.full, lang)))
    if rubric.partial:
        console.print(Text(t("rubric-partial", lang), style="bold yellow"))
        for line in rubric.partial:
            console.print(Text(f"  • {pick(line, lang)}"))
    if rubric.caps:
        console.print(Text(t("rubric-caps", lang), style="bold magenta"))
        for entry in rubric.to_json(lang)["caps"]:
            console.print(Text(f"  {entry['max_score']:.0%}  {entry['code']}: {entry['misconception']}"))


def run_exercise(args: argparse.Namespace, lang: str, console: Console) -> None:
    without_rubric = L("an exercise's variant (without --rubric)", "题目的某个变体（不带 --rubric）")
    refuse_inapplicable(
        args,
        "objectives-tutor exercise",
        [(name, not args.rubric, without_rubric) for name in ("seed", "solution", "hints")],
    )
    exercise = _exercise(args.id)
    if args.rubric:
        if args.json:
            emit_json({"exercise": exercise.id, "rubric": exercise.scoring().to_json(lang)})
        else:
            print_rubric(exercise, lang, console)
        return
    variant = exercise.generate(args.seed)
    payload = describe(exercise, variant, lang, args.solution)
    if args.json:
        emit_json(payload)
        return
    console.print(
        Text(f"{payload['title']}  [{exercise.id} · {t('seed-shown', lang, seed=args.seed)}]", style="bold")
    )
    console.print(payload["prompt"])
    console.print()
    for part in payload["parts"]:
        console.print(
            Text.assemble(
                (f"{part['name']}", "bold cyan"),
                f"  {t('part-format', lang, label=part['label'], example=part['example'])}",
            )
        )
    if args.hints:
        console.print()
        console.print(Text(t("hints-heading", lang), style="bold yellow"))
        for number, hint in enumerate(payload["hints"], 1):
            console.print(Text(f"  {number}. {hint}"))
    if args.solution:
        console.print()
        heading = "solution" if payload["solution_source"] == "engine" else "solution-model-answer"
        console.print(Text(t(heading, lang), style="bold green"))
        for name, text in payload["solution"].items():
            if "\n" in text:  # a matrix: one row a line, under its name
                console.print(Text.assemble((name, "bold"), ":"))
                for row in text.splitlines():
                    console.print(Text(f"  {row}"))
            else:
                console.print(Text.assemble((name, "bold"), ": ", text))


def parse_answers(pairs: list[tuple[str, str]] | None) -> dict[str, str]:
    """The --answer PART=TEXT pairs argparse read (tui/cli.py: answer_pair), one per part:
    a part answered twice is refused, not "the last one wins"."""
    answers: dict[str, str] = {}
    for name, text in pairs or []:
        if name in answers:
            refusal = Refusal(MESSAGES["usage-answer-twice"], part=name)
            raise ArgumentsError("objectives-tutor check", str(refusal))
        answers[name] = text
    return answers


def _record(exercise, variant, answers: dict[str, str], result, lang: str) -> bool:
    """Store the attempt exactly as the app does; a failure is reported, not fatal."""
    from exercises.learner.progress import Progress
    from exercises.learner.store import ProgressStore

    store = ProgressStore()
    saved = Progress(store).record_result(
        exercise.id, exercise.objective, variant.seed, answers, result, 0, 0.0
    )
    for notice in store.notices:
        sys.stderr.write(f"objectives-tutor: {notice_text(notice, lang)}\n")
    store.close()
    return saved


def run_check(args: argparse.Namespace, lang: str, console: Console) -> None:
    from exercises.grading.model import UnknownPart
    from exercises.text import pick

    answers = parse_answers(args.answer)
    exercise = _exercise(args.id)
    if not answers:
        refusal = Refusal(MESSAGES["usage-no-answer"], parts=", ".join(exercise.part_names()))
        raise ArgumentsError("objectives-tutor check", str(refusal))
    variant = exercise.generate(args.seed)
    try:
        result = exercise.grade(variant, answers)
    except UnknownPart as error:
        raise UsageError(f"objectives-tutor check: {error}") from None
    payload = result.to_json(lang)
    if args.record:
        payload["recorded"] = _record(exercise, variant, answers, result, lang)
    if args.json:
        emit_json(payload)
        return
    if not result.graded:
        if result.score is not None:
            console.print(Text(t("self-marked-as", lang, mark=f"{result.score:.0%}"), style="bold"))
        elif answers.get("self_mark", "").strip():
            console.print(Text(t("self-mark-unread", lang), style="bold red"))
        else:
            console.print(Text(t("not-graded", lang), style="bold"))
        console.print(pick(result.feedback, lang))
        return
    style = "bold green" if result.correct else "bold yellow" if result.valid else "bold red"
    mark = result.mark
    console.print(Text(f"{mark} {t('score', lang)} {result.score:.0%}", style=style))
    for name, part in result.parts.items():
        glyph = part.mark
        console.print(Text.assemble((f"{glyph} {name}", "bold"), f"  {pick(part.feedback, lang)}"))
    for code, words in payload["misconceptions"].items():
        console.print(Text.assemble(("! ", "bold magenta"), (code, "magenta"), f"  {words}"))
