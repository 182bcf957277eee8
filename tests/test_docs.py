"""The docs show only commands and flags that exist.

Every command line the README and docs/ show (``objectives-tutor ...`` anywhere, and
inline code that starts with a command, such as `class quiz extend s017 5m`) is walked
through the real argparse tree: each subcommand word must be one the parser offers and
each ``--flag`` one that the command it reached accepts. A flag removed from the code, or
renamed in one place only, fails here with the page and the line.
"""

from __future__ import annotations

import argparse
import itertools
import re
import shlex
from pathlib import Path

import pytest

from tui.cli import PROG, build_parser

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Words that end a command as the docs write it: comments, pipes, redirections, prose.
STOP = {"#", "|", ">", ">>", "<", "&&", "||", ";", "->", "→", "..."}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _flags(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return parser._option_string_actions


def _code(text: str) -> list[tuple[int, str]]:
    """(line number, code) for each line of a fenced block and each inline code span:
    prose that names the program is not a command."""
    code = []
    lines = text.split("\n")
    fenced = False
    index = 0
    while index < len(lines):
        line, number = lines[index], index + 1
        index += 1
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            # a shell line continued with a backslash is one command
            while line.rstrip().endswith("\\") and index < len(lines):
                line = line.rstrip()[:-1] + " " + lines[index].strip()
                index += 1
            code.append((number, line))
        else:
            code.extend((number, span) for span in re.findall(r"`([^`]+)`", line))
    return code


def _commands_in(text: str) -> list[tuple[int, str]]:
    """(line number, command words) for every command line shown on a page."""
    top = "|".join(sorted(_subparsers(build_parser()), key=len, reverse=True))
    found = []
    for number, code in _code(text):
        for match in re.finditer(rf"{PROG}((?:\s+\S+)*)", code):
            found.append((number, match.group(1)))
        match = re.match(rf"((?:{top})\s.*)", code)
        if match and PROG not in code:
            found.append((number, " " + match.group(1)))
    return found


def _words(command: str) -> list[str]:
    words = []
    for raw in command.split():
        if raw in STOP or raw.startswith("#"):
            break
        word = raw.strip("[](){},'\"`（）：，。")
        if word:
            words.append(word)
    return words


def _problems(command: str) -> list[str]:
    """What in one shown command does not exist: an unknown subcommand or flag."""
    parser = build_parser()
    problems = []
    takes_value = False
    for word in _words(command):
        if word.startswith("--"):
            flag = word.split("=", 1)[0]
            for alternative in re.split(r"[|/]", flag):
                if alternative.startswith("--") and alternative not in _flags(parser):
                    problems.append(f"{alternative} is not an option of '{parser.prog}'")
            action = _flags(parser).get(flag)
            takes_value = "=" not in word and action is not None and action.nargs != 0
            continue
        if takes_value:  # the value of the option before it
            takes_value = False
            continue
        choices = _subparsers(parser)
        if word in choices:
            parser = choices[word]
        elif choices and not word.startswith("-") and word.islower() and word.isascii() and word.isalpha():
            # a lowercase word where a subcommand is due, which is none of them
            problems.append(f"'{word}' is not a subcommand of '{parser.prog}' ({', '.join(choices)})")
            break
    return problems


def _shown_commands():
    for page in PAGES:
        for line, command in _commands_in(page.read_text(encoding="utf-8")):
            yield pytest.param(command, id=f"{page.name}:{line}")


@pytest.mark.parametrize("command", list(_shown_commands()))
def test_every_command_the_docs_show_exists(command):
    assert _problems(command) == []


def test_the_docs_show_commands_at_all():
    """The walk above finds what it should: a page without commands is a broken reader."""
    shown = [command for _, command in (c for page in PAGES for c in _commands_in(page.read_text()))]
    assert len(shown) > 50
    assert any("quiz grade" in command for command in shown)


def test_a_removed_flag_or_command_is_caught():
    """The checker itself can fail: a flag and a subcommand that do not exist are named."""
    assert _problems(" show sample mlm --no-such-flag") == [
        "--no-such-flag is not an option of 'objectives-tutor show sample'"
    ]
    assert _problems(" quiz frobnicate quiz.toml")[0].startswith("'frobnicate' is not a subcommand")
    assert _problems(" quiz grade quiz.toml subs/ --csv grades.csv --all") == []


NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
} | {"thirty": 30, "forty": 40}


def _number(text: str) -> int | None:
    """'Twenty-eight' -> 28, '28' -> 28 (None: not a number)."""
    if text.isdigit():
        return int(text)
    parts = text.lower().split("-")
    if not all(part in NUMBER_WORDS for part in parts):
        return None
    return sum(NUMBER_WORDS[part] for part in parts)


def test_the_counts_the_docs_state_are_the_codes():
    """ "Twenty-three exercises" stayed after five were added (issue 32): every count of
    exercises or lessons a page states is the curriculum's."""
    from exercises.curriculum import EXERCISE_IDS, OBJECTIVES

    actual = {"exercises": len(EXERCISE_IDS), "lessons": len(OBJECTIVES)}
    wrong = []
    for page in PAGES:
        for match in re.finditer(
            r"\b([A-Za-z]+(?:-[a-z]+)?|\d+) (exercises|lessons) (?:cover|in all)\b", page.read_text()
        ):
            value = _number(match.group(1))
            if value is not None and value != actual[match.group(2)]:
                wrong.append(f"{page.name}: {match.group(0)} (the code has {actual[match.group(2)]})")
    assert wrong == []


def test_the_dependency_list_names_every_runtime_and_test_dependency():
    """docs/architecture.md lists the project's dependencies: each one pyproject.toml
    declares (runtime and dev) is named there."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = [*project["dependencies"], *project.get("optional-dependencies", {}).get("dev", [])]
    names = {re.split(r"[<>=\[; ]", spec, maxsplit=1)[0].lower() for spec in declared}
    text = (ROOT / "docs" / "architecture.md").read_text().lower()
    assert sorted(name for name in names if f"`{name}`" not in text and name not in text) == []


def test_the_grading_speed_notes_describe_the_schedule_that_exists():
    """docs/contributing.md once described a gc freeze, run-queue workers and chunks of 16
    that the code no longer had (issue 32): the figures it names are the code's."""
    from exercises.classroom import schedule

    text = (ROOT / "docs" / "contributing.md").read_text()
    assert f"up to {['zero', 'one', 'two', 'three', 'four'][schedule.MAX_WORKERS]} workers" in text
    assert f"{['zero', 'one', 'two', 'three'][schedule.CHUNK]} students a task" in text
    assert "chunks of 16 to forked workers" not in text


# Commands that only read and print: safe to run as shown, in any order, with no state.
RUNNABLE = ("show ", "textbook ", "exercises", "exercise ", "check ")


def _runnable_commands():
    for page in PAGES:
        for line, command in _commands_in(page.read_text(encoding="utf-8")):
            try:
                shell = shlex.split(command, comments=True)
            except ValueError:  # prose around an inline span, not a command line
                continue
            words = list(itertools.takewhile(lambda word: word not in STOP, shell))
            text = " ".join(words)
            if words and text.startswith(RUNNABLE) and not re.search(r"\b[A-Z]{2,}\b|…|\.\.\.", text):
                yield pytest.param(words, id=f"{page.name}:{line}")


@pytest.mark.slow
@pytest.mark.parametrize("words", list(_runnable_commands()))
def test_a_read_only_command_the_docs_show_runs(words):
    """The read-only commands the docs show run as shown (exit 0, or 2 with a one-line
    message where the page shows a refusal), never a traceback."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", *words], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert "Traceback" not in done.stderr
    assert done.returncode in (0, 2), done.stderr
