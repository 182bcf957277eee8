"""``objectives-tutor progress``: the learner's history as a summary, JSON or
CSV, and ``--reset`` (confirmed, with a backup)."""

from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import asdict

from rich.console import Console
from rich.table import Table
from rich.text import Text

from exercises.text import L, pick
from tui.commands.arguments import refuse_inapplicable
from tui.errors import UsageError
from tui.i18n import notice_text, t
from tui.render import emit_json


def run_progress(args: argparse.Namespace, lang: str, console: Console) -> None:
    from exercises.learner.progress import Progress
    from exercises.learner.store import ProgressStore

    if sum(map(bool, (args.json, args.csv, args.reset))) > 1:
        raise UsageError(f"objectives-tutor progress: {t('progress-one-output', lang)}")
    refuse_inapplicable(args, "objectives-tutor progress", [("yes", args.reset, L("--reset", "--reset"))])
    store = ProgressStore()
    for notice in store.notices:
        sys.stderr.write(f"objectives-tutor: {notice_text(notice, lang)}\n")
    progress = Progress(store)
    if args.reset:
        _reset(store, args.yes, lang)
    elif args.json:
        payload = {
            "attempts": [asdict(attempt) for attempt in progress.attempts],
            "objectives": {key: asdict(counts) for key, counts in progress.per_objective().items()},
            "due": [asdict(item) for item in progress.due()],
            "store": str(store.path),
        }
        emit_json(payload)
    elif args.csv:
        writer = csv.writer(sys.stdout)
        writer.writerow(
            [
                "at",
                "exercise",
                "objective",
                "seed",
                "score",
                "valid",
                "correct",
                "diagnoses",
                "hints_used",
                "seconds",
                "kind",
            ]
        )
        for a in progress.attempts:
            writer.writerow(
                [
                    time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(a.at)),
                    a.exercise,
                    a.objective,
                    a.seed,
                    "" if a.score is None else a.score,
                    int(a.valid),
                    int(a.correct),
                    " ".join(a.diagnoses),
                    a.hints_used,
                    a.seconds,
                    a.kind,
                ]
            )
    else:
        _print_summary(progress, lang, console)
    store.close()


def _print_summary(progress, lang: str, console: Console) -> None:
    from exercises.curriculum import BY_ID

    table = Table(box=None, header_style="bold", pad_edge=False)
    columns = (
        "objective",
        "history-attempts",
        "history-solved",
        "history-mastered",
        "history-due",
        "progress-predictions",
    )
    for key in columns:
        table.add_column(t(key, lang), justify="left" if key == "objective" else "right")
    for objective_id, row in progress.per_objective().items():
        table.add_row(
            pick(BY_ID[objective_id].title, lang),
            str(row.attempts),
            f"{row.solved}/{row.exercises}",
            str(row.mastered),
            Text(str(row.due), style="bold yellow" if row.due else ""),
            f"{row.predictions_right}/{row.predictions}",
        )
    console.print(table)
    console.print(Text(t("progress-store", lang, path=progress.store.path), style="dim"))


def _reset(store, confirmed: bool, lang: str) -> None:
    if not confirmed:
        if not sys.stdin.isatty():
            raise UsageError(f"objectives-tutor progress --reset: {t('progress-reset-needs-yes', lang)}")
        try:
            reply = input(t("reset-confirm", lang, path=store.path))
        except EOFError:  # Ctrl+D: no
            reply = ""
        if reply.strip().lower() not in ("yes", "y", "是"):
            sys.stdout.write(t("reset-kept", lang) + "\n")
            return
    from exercises.training.runs import set_aside_for_reset

    backup = store.reset()
    training = set_aside_for_reset(store.path.parent)
    if backup is None and training is None:
        sys.stdout.write(t("reset-nothing", lang) + "\n")
    if backup is not None:
        sys.stdout.write(t("reset-done", lang, backup=backup) + "\n")
    if training is not None:
        sys.stdout.write(t("reset-training-done", lang, backup=training) + "\n")
