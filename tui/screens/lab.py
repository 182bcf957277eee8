"""The code lab in the app: the task list with each one's state, the current
task's statement, and the result of its last check. The folder is watched
(watchfiles): saving a task's file checks it again (from the moment `i` creates
the folder, too). Checks run in a thread worker and the learner's code in a
sandboxed child, so a loop or a crash in their code never stops the app. A task
counts as done when its file, as it is now, passed; everything the learner's code
produced is shown as plain text.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Header, OptionList, Static
from textual.widgets.option_list import Option

from exercises.lab.tasks import TASKS, Task
from exercises.text import Bilingual, pick
from tui.i18n import t
from tui.sandbox_notice import notify_unisolated
from tui.widgets.fitting_footer import FittingFooter

TASK_IDS = {task.id for task in TASKS}  # a run of a task that no longer exists does not count as done


def lab_folder(app) -> Path:
    """The folder the learner last used (a setting), else the command line's default."""
    saved = app.progress.setting("lab_dir") if hasattr(app, "progress") else None
    if saved:
        return Path(saved)
    from exercises.lab.workspace import default_lab_dir

    return default_lab_dir()


def hints_text(task: Task, shown: int, lang: str) -> Text:
    """The first ``shown`` hints of ``task``, numbered, in ``lang``."""
    lines = [
        t("lab-hint", lang, i=i + 1, n=len(task.hints), text=pick(task.hints[i], lang)) for i in range(shown)
    ]
    return Text("\n".join(lines), style="cyan")


# F8 opens the code lab from a lesson; the help screen lists it from here.
OPEN_LAB = Binding("f8", "open_code_lab", "code lab", show=False)


class LabLink(Button):
    """One line in a lesson's practice tab that opens the code lab on its tasks
    (the hook tui/screens/lesson.py yields)."""

    DEFAULT_CSS = """
    LabLink { height: 1; min-width: 0; width: 100%; border: none; padding: 0 1; margin: 0; content-align: left middle; text-align: left; }
    """

    def __init__(self, objective: str) -> None:
        super().__init__("", id="lab-link", compact=True)
        self.objective = objective

    def on_mount(self) -> None:
        self.watch(self.app, "lang", lambda _lang: self._relabel(), init=True)
        app = self.app
        if getattr(app, "exam", None) is None and not hasattr(app, "action_open_code_lab"):
            # F8 from anywhere in a lesson (a text box keeps every other key); bound on the
            # app instance so that the lesson screen needs no more than this widget.
            app.action_open_code_lab = lambda: _open_from(app)
            app.bind(OPEN_LAB.key, OPEN_LAB.action, show=False)

    def _relabel(self) -> None:
        lang = self.app.lang
        tasks = [task.id for task in TASKS if task.objective == self.objective]
        self.label = t("lab-open-hint", lang, count=len(tasks)) if tasks else t("lab-open-all", lang)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.app.push_screen(LabScreen(lab_folder(self.app), self.objective))


def _open_from(app) -> None:
    """Open the lab on the lesson being read (its first task), unless it is open already."""
    if isinstance(app.screen, LabScreen):
        return
    links = list(app.screen.query(LabLink))
    objective = links[0].objective if links else None
    app.push_screen(LabScreen(lab_folder(app), objective))


class LabScreen(Screen):
    DEFAULT_CSS = """
    LabScreen #lab-top { height: 1; padding: 0 1; background: $boost; text-wrap: nowrap; text-overflow: ellipsis; }
    LabScreen #lab-tasks { width: 27; height: 1fr; }
    LabScreen #lab-detail { width: 1fr; height: 1fr; padding: 0 1; }
    LabScreen #lab-result { margin-top: 1; }
    LabScreen #lab-extra { margin-top: 1; }
    """
    BINDINGS = [
        Binding("escape", "leave", "back"),
        Binding("c", "check", "check"),
        Binding("h", "hint", "hint"),
        Binding("s", "solution", "solution"),
        Binding("i", "init", "write files"),
    ]
    # The lab's own words for these actions (read by the footer and the help screen).
    ACTION_KEYS = {
        "check": "lab-key-check",
        "init": "lab-key-init",
        "solution": "lab-key-solution",
        "hint": "lab-key-hint",
    }

    def __init__(self, folder: Path, objective: str | None = None, watch: bool = True) -> None:
        super().__init__()
        self.folder = Path(folder).expanduser().resolve()
        self.objective = objective
        self.watch_folder_on = watch
        self.results: dict[str, object] = {}
        self.hints_shown: dict[str, int] = {}
        self.checking: set[str] = set()
        # What is shown under the result (hints, the solution), drawn in the language of
        # the moment: Ctrl+L left a hint already shown in the other language.
        self.extra: Callable[[str], object] | None = None
        self.current: Task = TASKS[0]
        self._stop = threading.Event()
        self._watching = False  # a watcher thread runs (it ends at once on a folder that does not exist)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="lab-top", markup=False)
        with Horizontal():
            yield OptionList(id="lab-tasks")
            with VerticalScroll(id="lab-detail"):
                yield Static(id="lab-statement", markup=False)
                yield Static(id="lab-result", markup=False)
                yield Static(id="lab-extra", markup=False)
        yield FittingFooter()  # h3: fits 80 columns in zh (Textual's Footer cut ^l English)

    # -- state ---------------------------------------------------------------------

    def _record(self):
        from exercises.lab.record import LabRecord

        return LabRecord()

    def on_mount(self) -> None:
        from exercises.lab.workspace import current_task

        self._previous_subtitle = self.app.sub_title
        done = self._record().done()
        first = next((task for task in TASKS if task.objective == self.objective), None)
        self.current = first or current_task(self.folder, done) or TASKS[0]
        self.watch(self.app, "lang", lambda _lang: self.refresh_all(), init=True)
        options = self.query_one("#lab-tasks", OptionList)
        options.highlighted = TASKS.index(self.current)
        options.focus()
        self._start_watching()
        self.run_worker(_warm_up, thread=True, group="lab-warm-up")  # the first check then starts at once
        notify_unisolated(self.app)  # issue 20: said once, where this machine cannot isolate learner code

    def _start_watching(self) -> None:
        if self.watch_folder_on and not self._watching:
            self._watching = True
            self.run_worker(self._watch_folder, thread=True, group="lab-watch")

    def on_unmount(self) -> None:
        self._stop.set()

    def refresh_all(self) -> None:
        from tui.bindings import localise_bindings

        lang = self.app.lang
        localise_bindings(self, lang)
        self.app.sub_title = t("lab-title", lang)
        self._fill_list()
        self._show()

    def _standing(self) -> dict[str, str]:
        """Each task's status for its file as it is now: the record's last run of that
        content, or this screen's own result of it (which counts when the record cannot
        be written)."""
        from exercises.lab.workspace import file_digest, task_path

        standing = {task: run.status for task, run in self._record().standing(self.folder).items()}
        for task in TASKS:
            result = self.results.get(task.id)
            if (
                result is not None
                and result.digest
                and result.digest == file_digest(task_path(self.folder, task))
            ):
                standing[task.id] = result.status
        return standing

    def _fill_list(self) -> None:
        from exercises.lab.workspace import task_path

        standing = self._standing()
        done = {task for task, status in standing.items() if status == "pass"}
        options = self.query_one("#lab-tasks", OptionList)
        highlighted = options.highlighted
        options.clear_options()
        for task in TASKS:
            status = standing.get(task.id)
            if task.id in self.checking:
                mark = "…"
            elif status == "pass":
                mark = "✓"
            elif status is not None and status != "not-started":
                mark = "✗"
            elif not task_path(self.folder, task).is_file():
                mark = " "
            else:
                mark = "·"  # not written yet, or changed since its last check
            options.add_option(Option(f"{mark} {task.number:02d} {task.id}", id=task.id))
        options.highlighted = highlighted if highlighted is not None else TASKS.index(self.current)
        lang = self.app.lang
        total = len(TASKS)
        top = f"{t('lab-title', lang)} · {self.folder} · {t('lab-progress', lang, done=len(done & TASK_IDS), total=total)}"
        if self.watch_folder_on:
            top += f" · {t('lab-watch-on', lang)}"
        self.query_one("#lab-top", Static).update(top)

    def _show(self) -> None:
        from exercises.lab.workspace import present, task_path

        lang = self.app.lang
        task = self.current
        statement = Text(f"{task.number:02d} · {pick(task.title, lang)}\n", style="bold")
        statement.append(f"{task_path(self.folder, task)}\n", style="dim")
        statement.append(pick(task.statement, lang))
        if task.exact is not None:
            statement.append("\n" + pick(task.exact, lang), style="dim")
        self.query_one("#lab-statement", Static).update(statement)
        result = self.results.get(task.id)
        widget = self.query_one("#lab-result", Static)
        if task.id in self.checking:
            widget.update(Text(t("lab-checking", lang, file=task.file_name), style="italic"))
        elif result is not None:
            from tui.lab_render import render_result

            widget.update(render_result(result, task, lang))
        elif not present(self.folder):
            widget.update(Text(t("lab-init-here", lang, dir=self.folder), style="yellow"))
        else:
            widget.update("")
        self.query_one("#lab-extra", Static).update(self.extra(lang) if self.extra is not None else "")

    # -- events --------------------------------------------------------------------------

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        task = next((task for task in TASKS if task.id == event.option.id), None)
        if task is not None and task is not self.current:
            self.current = task
            self.extra = None
            self._show()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_check()

    def action_leave(self) -> None:
        self.app.sub_title = self._previous_subtitle
        self.app.pop_screen()

    def action_init(self) -> None:
        from exercises.lab.workspace import init

        lang = self.app.lang
        try:
            report = init(self.folder)
        except OSError as error:
            self.app.notify(str(error), severity="error", markup=False)
            return
        if hasattr(self.app, "progress"):
            self.app.progress.set("lab_dir", str(self.folder.resolve()))
        message = t("lab-init-created", lang, n=len(report.created), dir=self.folder)
        if report.kept:
            message += "; " + t("lab-init-kept", lang, n=len(report.kept))
        self.app.notify(message, markup=False)
        self._start_watching()  # the folder may be new: watch it from now on
        self._fill_list()
        self._show()

    def action_hint(self) -> None:
        task = self.current
        shown = self.hints_shown.get(task.id, 0)
        if shown >= len(task.hints):
            self.extra = lambda lang: Text(t("lab-no-hints-left", lang), style="dim")
        else:
            self.hints_shown[task.id] = shown + 1
            self.extra = lambda lang: hints_text(task, shown + 1, lang)
        self._show()

    def action_solution(self) -> None:
        from exercises.lab.tasks import solution

        task = self.current
        if not self._record().attempted(task.id):
            self.extra = lambda lang: Text(t("lab-solution-locked", lang, task=task.id), style="yellow")
        else:
            code = Group(Syntax(solution(task), "python", word_wrap=True))
            self.extra = lambda lang: code
        self._show()

    def action_check(self, task: Task | None = None) -> None:
        from exercises.lab.workspace import task_path

        task = task or self.current
        if task.id in self.checking:
            return
        if not task_path(self.folder, task).is_file():
            self.app.notify(
                t("lab-missing-file", self.app.lang, file=task.file_name, dir=self.folder),
                severity="warning",
                markup=False,
            )
            return
        self.checking.add(task.id)
        self._fill_list()
        self._show()
        self.run_worker(lambda: self._check_in_thread(task), thread=True, group=f"lab-check-{task.id}")

    def _check_in_thread(self, task: Task) -> None:
        from exercises.lab.checks import run_check
        from exercises.lab.workspace import task_path

        try:
            result = run_check(task, task_path(self.folder, task))
            record = self._record()
            saved = record.record(result)
            notice = None if saved else record.notice
        except Exception as error:  # the worker's last resort: run_check raises for nothing the file
            # does, so this is a bug of ours, shown on the task rather than ending the app
            from exercises.lab.checks import LabResult
            from exercises.text import L

            result = LabResult(task.id, "invalid", message=L(str(error), str(error)))
            notice = None
        self.app.call_from_thread(self._checked, task, result, notice)

    def _checked(self, task: Task, result, notice: Bilingual | None) -> None:
        self.checking.discard(task.id)
        self.results[task.id] = result
        if notice:
            self.app.notify(
                t("lab-not-saved", self.app.lang, why=pick(notice, self.app.lang)),
                severity="warning",
                markup=False,
            )
        self._fill_list()
        self._show()
        if task is self.current and result.failure is not None:
            self.query_one("#lab-detail", VerticalScroll).scroll_to_widget(
                self.query_one("#lab-result"), animate=False
            )

    def _watch_folder(self) -> None:
        """In a thread: re-check a task whenever its file is saved."""
        try:
            self._watch_changes()
        finally:
            self._watching = False

    def _watch_changes(self) -> None:
        try:
            from watchfiles import watch

            by_file = {task.file_name: task for task in TASKS}
            for changes in watch(
                self.folder, stop_event=self._stop, debounce=300, rust_timeout=500, yield_on_timeout=False
            ):
                names = {Path(path).name for _change, path in changes}
                for name in sorted(names):
                    if name in by_file:
                        self.app.call_from_thread(self._saved, by_file[name])
        except (
            ImportError,
            OSError,
            RuntimeError,
        ):  # no watchfiles, a folder gone, a watch limit: `c` still works
            return

    def _saved(self, task: Task) -> None:
        self.current = task
        self.query_one("#lab-tasks", OptionList).highlighted = TASKS.index(task)
        self.action_check(task)


def _warm_up() -> None:
    """Import the checks and start the sandbox's fork server before the first check."""
    try:
        import exercises.lab.checks  # noqa: F401  (torch, hypothesis, the engine)
        from exercises.lab.sandbox import get_zygote

        get_zygote()
    except (ImportError, OSError):  # torch or hypothesis missing or broken: the first check will say so
        return
