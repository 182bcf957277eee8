"""``objectives-tutor lab``: the code lab from the command line.

    lab [--dir DIR]                   the lab screen in the app
    lab init [--dir DIR]              the learner's files (never overwriting one)
    lab check [TASK] [--dir DIR] [--json]   run the checks once: exit 0 all pass, 1 a failure, 2 usage
    lab watch [--dir DIR]             re-check the current task on every save (watchfiles)
    lab hint TASK                     the next hint
    lab solution TASK                 the reference, after a first attempt

Every action takes the folder the same way, ``--dir DIR``, defaulting to the
current directory when it holds lab files, else the default lab folder
(``exercises.lab.workspace.default_folder``). The older forms keep working: a
folder in place of the task (``lab init mylab``, ``lab watch mylab``, ``lab check
mylab``) and ``lab mylab`` for a folder that exists. Any other word where an action
goes is a typo and an error (never a folder created and remembered).

``init``, ``hint`` and the argument checks import no torch; the checks do.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from exercises.lab.workspace import default_lab_dir
from exercises.text import L, pick
from tui.errors import UsageError
from tui.i18n import t
from tui.lab_render import render_result
from tui.render import emit_json
from tui.sandbox_notice import warn_unisolated


def add_parser(commands, common) -> None:
    """The `lab` subcommand (tui/cli.py calls this: its one-line hook)."""
    lab = commands.add_parser(
        "lab",
        parents=[common],
        help=L("the code lab: write each objective in torch", "代码实验室：用 torch 写出每个目标"),
        description=L(
            "lab [--dir DIR]: the lab screen in the app; lab init [--dir DIR]: the task files (never overwritten); "
            "lab check [TASK] [--dir DIR] [--json]: exit 0 all pass, 1 a failure, 2 usage; "
            "lab watch [--dir DIR]: re-check on every save; lab hint TASK; lab solution TASK (after a first try). "
            "DIR defaults to the current directory when it holds lab files, else $OBJECTIVES_TUTOR_HOME/code-lab "
            "(when set) or ~/objectives-lab",
            (
                "lab [--dir DIR]：应用中的实验室界面；lab init [--dir DIR]：任务文件（从不覆盖）；"
                "lab check [TASK] [--dir DIR] [--json]：全部通过退出码 0，有失败 1，用法错误 2；"
                "lab watch [--dir DIR]：每次保存后重新检查；lab hint TASK；lab solution TASK（先尝试一次之后）。"
                "DIR 默认是当前文件夹（其中有实验室文件时），否则是 $OBJECTIVES_TUTOR_HOME/code-lab"
                "（已设置时）或 ~/objectives-lab。"
            ),
        ),
    )
    lab.add_argument(
        "action",
        nargs="?",
        default=None,
        help=L("init | check | watch | hint | solution", "要做的事：init | check | watch | hint | solution"),
    )
    lab.add_argument(
        "target",
        nargs="?",
        default=None,
        help=L(
            "check/hint/solution: the task; init/watch: the folder (as --dir)",
            "check/hint/solution：任务；init/watch：文件夹（同 --dir）",
        ),
    )
    lab.add_argument(
        "--dir", default=None, help=L("the lab folder (default: see above)", "实验室文件夹（默认：见上文）")
    )
    lab.add_argument("--json", action="store_true", help=L("check: print JSON", "check：输出 JSON"))


ACTIONS = ("init", "check", "watch", "hint", "solution")


def _folder(given: str | None, flag: str | None, action: str, lang: str) -> Path:
    """The folder an action works on: a positional folder or --dir (the same one if both)."""
    if given is not None and flag is not None and Path(given).resolve() != Path(flag).resolve():
        raise UsageError(f"objectives-tutor lab {action}: {t('lab-two-folders', lang, a=given, b=flag)}")
    chosen = given if given is not None else flag
    return Path(chosen).expanduser() if chosen is not None else default_lab_dir()


def _unknown_action(action: str, lang: str) -> UsageError:
    guess = difflib.get_close_matches(action.lower(), ACTIONS, n=1, cutoff=0.6)
    named = repr(action) + (t("lab-did-you-mean", lang, action=guess[0]) if guess else "")
    message = t("lab-unknown-action", lang, action=named, actions=", ".join(ACTIONS))
    return UsageError(f"objectives-tutor lab: {message}")


def run_lab(args: argparse.Namespace, lang: str, console: Console, app_lang: str | None = None) -> int:
    action = args.action
    if action is None or action not in ACTIONS:
        if action is not None and (
            args.target is not None or args.dir is not None or not Path(action).is_dir()
        ):
            raise _unknown_action(action, lang)  # `lab DIR` opens only a folder that exists
        folder = Path(action) if action is not None else Path(args.dir) if args.dir else None
        run_lab_app(app_lang, folder)
        return 0
    if action == "init":
        return _init(_folder(args.target, args.dir, action, lang), lang, console)
    if action == "watch":
        return _watch(_folder(args.target, args.dir, action, lang), lang, console)
    if action == "check":
        name, given = args.target, None
        if name is not None and _is_folder_not_task(name):
            name, given = None, name  # `lab check mylab`: the folder, as init and watch take it
        elif name is not None and args.dir is None and Path(name).is_file():
            given = str(Path(name).parent)  # `lab check mylab/06_bert_mask.py`: that file's folder
        return _check(_folder(given, args.dir, action, lang), name, args.json, lang, console)
    if args.target is None:
        raise UsageError(f"objectives-tutor lab {action}: {t('lab-name-the-task', lang, action=action)}")
    task = _task(args.target, lang)
    if action == "hint":
        return _hint(task, lang, console)
    return _solution(task, lang, console)


def _is_folder_not_task(name: str) -> bool:
    from exercises.lab.tasks import find_task

    return find_task(name) is None and Path(name).expanduser().is_dir()


def _task(name: str, lang: str):
    from exercises.lab.tasks import TASKS, find_task

    task = find_task(name)
    if task is None:
        raise UsageError(
            f"objectives-tutor lab: {t('lab-unknown-task', lang, task=name, ids=', '.join(x.id for x in TASKS))}"
        )
    return task


def _init(folder: Path, lang: str, console: Console) -> int:
    from exercises.lab.tasks import TASKS
    from exercises.lab.workspace import init

    try:
        report = init(folder)
    except OSError as error:
        raise UsageError(f"objectives-tutor lab init: {error}") from None
    console.print(Text(t("lab-init-created", lang, n=len(report.created), dir=folder)))
    if report.kept:
        console.print(Text(t("lab-init-kept", lang, n=len(report.kept))))
    console.print(Text(t("lab-init-next", lang, file=folder / TASKS[0].file_name, dir=_shell(folder))))
    return 0


def _shell(folder: Path) -> str:
    """A folder as it is typed in a command (quoted when it holds spaces or quotes)."""
    import shlex

    return shlex.quote(str(folder))


def _record(results, lang: str) -> None:
    from exercises.lab.record import LabRecord

    record = LabRecord()
    for result in results:
        if not record.record(result):
            sys.stderr.write(f"objectives-tutor: {t('lab-not-saved', lang, why=pick(record.notice, lang))}\n")
            return


def _check(folder: Path, name: str | None, as_json: bool, lang: str, console: Console) -> int:
    from exercises.lab.tasks import TASKS
    from exercises.lab.workspace import present, task_path

    if not folder.is_dir() or not present(folder):
        raise UsageError(f"objectives-tutor lab check: {t('lab-no-workspace', lang, dir=_shell(folder))}")
    if name is not None:
        task = _task(name, lang)
        if not task_path(folder, task).is_file():
            raise UsageError(
                f"objectives-tutor lab check: {t('lab-missing-file', lang, file=task.file_name, dir=_shell(folder))}"
            )
        tasks = [task]
    else:
        tasks = present(folder)
    warn_unisolated(lang)  # issue 20: said once, where this machine cannot isolate learner code
    from exercises.lab.checks import run_check
    from exercises.lab.sandbox import cleaned_up_on_signals

    results = []
    with cleaned_up_on_signals():  # a terminated check leaves no scratch folder, no child
        for task in tasks:
            result = run_check(task, task_path(folder, task))
            results.append(result)
            if not as_json:
                console.print(render_result(result, task, lang))
    _record(results, lang)
    done = _passing(folder, results)
    total = len(TASKS)
    if as_json:
        payload = {
            "tasks": [result.to_json() for result in results],
            "passed": sum(r.passed for r in results),
            "checked": len(results),
            "done": len(done),
            "total": total,
        }
        emit_json(payload)
    else:
        console.print(Text(t("lab-progress", lang, done=len(done), total=total)))
    return 0 if all(result.passed for result in results) else 1


def _passing(folder: Path, results=()) -> set[str]:
    """The tasks of ``folder`` whose file, as it is now, passes: from the record, and from
    this run's results (which count even when the record cannot be written)."""
    from exercises.lab.record import LabRecord
    from exercises.lab.tasks import BY_ID
    from exercises.lab.workspace import file_digest, task_path

    passing = LabRecord().passing(folder)
    for result in results:
        if file_digest(task_path(folder, BY_ID[result.task])) == result.digest:
            (passing.add if result.passed else passing.discard)(result.task)
    return passing


def _hint(task, lang: str, console: Console) -> int:
    """Hints come one at a time: each call shows the next (kept per task in the lab record's folder)."""
    from exercises.lab.record import LabRecord

    record = LabRecord()
    state = record.path.parent / "lab-hints.json"
    try:
        seen = json.loads(state.read_text(encoding="utf-8"))
        if not isinstance(seen, dict):
            seen = {}
    except (OSError, ValueError):
        seen = {}
    index = int(seen.get(task.id, 0)) if str(seen.get(task.id, 0)).isdigit() else 0
    if index >= len(task.hints):
        console.print(Text(t("lab-no-hints-left", lang)))
        index = len(task.hints) - 1
    console.print(
        Text(t("lab-hint", lang, i=index + 1, n=len(task.hints), text=pick(task.hints[index], lang)))
    )
    seen[task.id] = min(index + 1, len(task.hints))
    try:
        state.parent.mkdir(parents=True, exist_ok=True)
        state.write_text(json.dumps(seen), encoding="utf-8")
    except OSError:
        pass
    return 0


def _solution(task, lang: str, console: Console) -> int:
    from exercises.lab.record import LabRecord
    from exercises.lab.tasks import solution

    if not LabRecord().attempted(task.id):
        console.print(Text(t("lab-solution-locked", lang, task=task.id)))
        return 1
    sys.stdout.write(solution(task))
    return 0


# -- watch --------------------------------------------------------------------------------


def _watch(folder: Path, lang: str, console: Console) -> int:
    """Plain-terminal watch: check the current task now and after every save."""
    from exercises.lab.workspace import present

    if not folder.is_dir() or not present(folder):
        raise UsageError(f"objectives-tutor lab watch: {t('lab-no-workspace', lang, dir=_shell(folder))}")
    from watchfiles import watch

    warn_unisolated(lang)  # issue 20: said once, where this machine cannot isolate learner code
    from exercises.lab.sandbox import cleaned_up_on_signals

    with cleaned_up_on_signals():  # a terminated watch leaves no scratch folder, no child
        return _watch_rounds(folder, lang, console, watch)


def _watch_rounds(folder: Path, lang: str, console: Console, watch) -> int:
    current = _watch_round(folder, None, lang, console)
    console.print(Text(t("lab-watching", lang, dir=folder), style="dim"))
    try:
        for changes in watch(folder, debounce=300, rust_timeout=0):
            changed = {Path(path).name for _change, path in changes}
            if not any(name.endswith(".py") for name in changed):
                continue
            current = _watch_round(folder, changed, lang, console, current)
            console.print(Text(t("lab-watching", lang, dir=folder), style="dim"))
    except KeyboardInterrupt:
        return 0
    return 0


def _watch_round(folder: Path, changed: set[str] | None, lang: str, console: Console, current=None):
    """Check the task whose file was saved (or the current one), print the round."""
    from exercises.lab.checks import run_check
    from exercises.lab.record import LabRecord
    from exercises.lab.tasks import TASKS
    from exercises.lab.workspace import current_task, present, task_path

    record = LabRecord()
    tasks = present(folder)
    target = next((task for task in tasks if changed and task.file_name in changed), None)
    if target is None:
        target = current_task(folder, _passing(folder))
    if target is None:
        console.print(Text(t("lab-all-done", lang), style="bold green"))
        return None
    result = run_check(target, task_path(folder, target))
    record.record(result)
    done = _passing(folder, [result])
    console.rule(t("lab-progress", lang, done=len(done), total=len(TASKS)))
    console.print(Text(t("lab-current", lang, file=target.file_name), style="bold"))
    if not result.passed:
        console.print(Text(pick(target.statement, lang), style="dim"))
    console.print(render_result(result, target, lang))
    if result.passed:
        following = current_task(folder, done)
        if following is None:
            console.print(Text(t("lab-all-done", lang), style="bold green"))
        else:
            console.print(Text(t("lab-current", lang, file=following.file_name), style="bold"))
            console.print(Text(pick(following.statement, lang), style="dim"))
        return following
    return target


# -- the lab screen in the app ------------------------------------------------------------


def lab_app(lang: str | None, folder: Path | None, **options):
    """The app opened on the lab screen (Esc: the lessons). Without a folder, the one last
    used (else the default). A folder is remembered only once it holds the lab's files:
    a typo never becomes the lab."""
    from tui import app as tutor_app
    from tui.screens.lab import LabScreen, lab_folder

    class LabApp(tutor_app.TutorApp):
        CSS_PATH = str(
            Path(tutor_app.__file__).with_name("app.tcss")
        )  # relative paths resolve from this module

        def on_ready(self) -> None:
            from exercises.lab.workspace import present

            chosen = lab_folder(self) if folder is None else Path(folder)
            if present(chosen):
                self.progress.set("lab_dir", str(chosen.resolve()))
            self.push_screen(LabScreen(chosen))

    return LabApp(lang=lang, **options)


def run_lab_app(lang: str | None, folder: Path | None) -> None:
    """`objectives-tutor lab [--dir DIR]`."""
    lab_app(lang, folder).run()
