"""The learner's lab folder: one file per task in course order, and a README.

``init`` writes only what is missing: a file the learner has already touched
is never overwritten (files are created with O_EXCL, so not even a race can).
The default folder is ``$OBJECTIVES_TUTOR_HOME/code-lab`` when that variable is
set (everything the app writes then stays under it), else ``~/objectives-lab``.
Torch-free.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from exercises.lab.tasks import TASKS, Task, starter

README_NAME = "README.md"
MAX_FILE_BYTES = 1_000_000  # a task file is a page of code: a larger one is refused before it is read

README = """# objectives-tutor code lab / 代码实验

One file per task, in the course's order. Each file's docstring states the task
(English and 中文); write the function's body, then check it:

    objectives-tutor lab check            # every task in this folder
    objectives-tutor lab check bert_mask  # one task (id, number or file name)
    objectives-tutor lab watch .          # re-check the current task on every save
    objectives-tutor lab hint bert_mask   # the next hint
    objectives-tutor lab solution bert_mask   # the reference, after your first try

Your function runs in a separate process with a time and a memory limit; the
checks are properties (hypothesis tries many inputs and shows the smallest one
your code gets wrong), not a fixed list of answers. The engine's own modules
cannot be imported from your code: write it yourself, with torch.

每道题一个文件，按课程顺序排列。文件开头的说明写明了任务（中英文）；
写好函数体后用上面的命令检查。你的函数在独立进程里运行，有时间和内存限制；
检查的是性质（hypothesis 会尝试许多输入，并给出你的代码出错的最小例子），
而不是一张固定答案表。你的代码不能导入引擎本身：请用 torch 自己写。

Tasks / 题目:
{tasks}
"""


@dataclass
class InitReport:
    created: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def _write_new(path: Path, text: str) -> bool:
    """Create ``path`` with ``text``; False (and nothing written) if it exists."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return True


def readme_text() -> str:
    lines = [f"- {task.file_name}: {task.title['en']} / {task.title['zh']}" for task in TASKS]
    return README.format(tasks="\n".join(lines))


def init(folder: Path) -> InitReport:
    """Write the starter files and README that are missing; keep every existing file."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    report = InitReport()
    for name, text in [(task.file_name, starter(task)) for task in TASKS] + [(README_NAME, readme_text())]:
        (report.created if _write_new(folder / name, text) else report.kept).append(name)
    return report


def default_folder() -> Path:
    """Where the lab lives when no folder is named (see the module's docstring)."""
    home = os.environ.get("OBJECTIVES_TUTOR_HOME")
    return Path(home).expanduser() / "code-lab" if home else Path.home() / "objectives-lab"


def default_lab_dir() -> Path:
    """The folder an action works on when none is named: the current directory when it
    holds lab files, else the default lab folder."""
    here = Path.cwd()
    return here if present(here) else default_folder()


def digest(data: bytes) -> str:
    """What identifies a file's content in the lab's record of runs."""
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str | None:
    """The digest of a task file as it is now; None if it is missing, unreadable or too large."""
    from exercises.files import read_regular

    try:
        return digest(read_regular(path, MAX_FILE_BYTES))
    except OSError:  # FileRefused too: not a regular file, or too large
        return None


def task_path(folder: Path, task: Task) -> Path:
    return Path(folder) / task.file_name


def present(folder: Path) -> list[Task]:
    """The tasks whose file is in ``folder``, in course order."""
    return [task for task in TASKS if task_path(folder, task).is_file()]


def current_task(folder: Path, done: set[str]) -> Task | None:
    """The first task of the folder, in course order, not in ``done`` (the passing ones)."""
    for task in present(folder):
        if task.id not in done:
            return task
    return None
