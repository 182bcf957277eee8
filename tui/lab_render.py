"""A code-lab check's result for people, shared by `lab check`, `lab watch` (the
command line) and the lab screen (the app): one renderer, so both show the same."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from exercises.classroom.safe import printable_lines
from exercises.text import pick
from tui.i18n import t


def render_result(result, task, lang: str, *, verbose: bool = True):
    """A check's result for people: status, the counterexample table, the rule in
    words, the misconception, a convention the case shows. Shared by `lab check`, `lab
    watch` and the lab screen. Every text from the learner's code (messages, printed
    output, the values in the table) is a Text, never read as markup, and goes through
    ``printable_lines``: no escape sequence, control character or bidi override of theirs
    reaches the terminal or the widget."""
    from exercises.lab.checks import diagnosis_text

    parts: list = []
    mark = {"pass": "✓", "not-started": "·"}.get(result.status, "✗")
    style = {"pass": "green", "not-started": "dim"}.get(result.status, "red")
    head = Text(f"{mark} {task.number:02d} {task.id}  ", style=f"bold {style}")
    head.append(t(f"lab-status-{result.status}", lang), style=style)  # one key per LabResult status
    if verbose:
        seconds = t("lab-seconds", lang, seconds=result.seconds, calls=result.calls)
        head.append(t("aside", lang, text=seconds), style="dim")
    parts.append(head)
    if result.message is not None:
        message = pick(result.message, lang)
        parts.append(Text("  " + printable_lines(message)))
    failure = result.failure
    if failure is not None:
        parts.append(
            Text(
                t("lab-rule-text", lang, code=failure.rule.code, text=pick(failure.rule.text, lang)),
                style="bold",
            )
        )
        table = Table(show_lines=True, expand=False, pad_edge=False)
        table.add_column(t("lab-input", lang), overflow="fold")
        table.add_column(t("lab-yours", lang), overflow="fold", style="red")
        table.add_column(t("lab-required", lang), overflow="fold", style="green")
        table.add_row(
            Text(printable_lines(failure.input.pick(lang))),
            Text(printable_lines(failure.yours.pick(lang))),
            Text(printable_lines(pick(failure.required, lang))),
        )
        parts.append(table)
        explanation = diagnosis_text(failure.diagnosis)
        if explanation is not None:
            parts.append(
                Text(
                    t("lab-misconception", lang, code=failure.diagnosis, text=pick(explanation, lang)),
                    style="yellow",
                )
            )
        if failure.note is not None:
            parts.append(Text(t("lab-convention", lang, text=pick(failure.note, lang)), style="cyan"))
    if result.passed and result.exact is not None:
        parts.append(Text("  " + t("lab-exact" if result.exact else "lab-not-exact", lang), style="dim"))
    if verbose and result.printed.strip() and not result.passed:
        parts.append(Text(t("lab-printed", lang), style="dim"))
        parts.append(Text(printable_lines(result.printed.strip()[-400:]), style="dim"))
    return Group(*parts)
