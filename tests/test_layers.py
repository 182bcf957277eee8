"""Dependencies point one way: tui -> exercises -> engine -> torch.

Each probe runs in a fresh interpreter (the commands: one interpreter, a fork per command)
and imports every module of a package
(found by walking it, so a module added tomorrow is checked too), then reports
the top-level packages that got loaded."""

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

# One worker runs this file: its module-scoped set-up is made once (see the Makefile).
pytestmark = pytest.mark.xdist_group("test_layers")

ROOT = Path(__file__).resolve().parent.parent


def modules_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nsys.stderr.write('\\n'.join(sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return {name.split(".")[0] for name in result.stderr.split()}


def every_module(package: str) -> list[str]:
    """The dotted names of ``package`` and every module below it."""
    path = ROOT / package
    return [package] + [info.name for info in pkgutil.walk_packages([str(path)], prefix=f"{package}.")]


def import_all(package: str) -> str:
    return "\n".join(f"import {name}" for name in every_module(package))


def test_the_walk_finds_the_modules_that_matter():
    """The probes below are only as good as this list."""
    assert {"engine.masks", "engine.samples", "engine.errors"} <= set(every_module("engine"))
    assert {
        "exercises.catalogue",
        "exercises.items.mlm_abcde",
        "exercises.grading.model",
        "exercises.learner.store",
        "exercises.classroom.quiz",
    } <= set(every_module("exercises"))


@pytest.mark.slow
def test_engine_imports_neither_textual_rich_exercises_nor_tui():
    loaded = modules_after(import_all("engine"))
    assert "torch" in loaded  # the probe did import the engine
    assert not loaded & {"textual", "rich", "exercises", "tui"}, loaded & {
        "textual",
        "rich",
        "exercises",
        "tui",
    }


@pytest.mark.slow
def test_exercises_never_import_textual():
    loaded = modules_after(import_all("exercises"))
    assert "engine" in loaded  # every item module was imported, the engine with it
    assert not loaded & {"textual", "tui"}, loaded & {"textual", "tui"}


def test_help_does_not_import_torch():
    loaded = modules_after(
        "from tui.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert "tui" in loaded
    assert "torch" not in loaded and "engine" not in loaded


# Commands that compute nothing with the engine: none of them may import torch
# (one process each, as a learner runs them). `{tmp}` is a fresh folder.
TORCH_FREE_COMMANDS = [
    ["exercises"],
    ["exercises", "--json"],
    ["exercises", "--lang", "zh"],
    ["exercise", "--help"],
    ["exercise", "concept-nsp"],
    ["exercise", "reflect-mlm-fill", "--solution"],
    ["exercise", "no-such-exercise"],
    ["check", "--help"],
    ["show", "--help"],
    ["textbook", "--help"],
    ["progress"],
    ["progress", "--json"],
    ["progress", "--csv"],
    ["progress", "--reset", "--yes"],
    ["quiz", "--help"],
    ["quiz", "new", "--title", "T", "--exercises", "mlm-abcde,clm-shift", "-o", "{tmp}/quiz.toml"],
    ["serve", "--help"],
    ["lab", "--help"],
    ["lab", "init", "{tmp}/lab"],
    ["lab", "hint", "causal_mask"],
    ["lab", "solution", "causal_mask"],
    ["lab", "check", "--dir", "{tmp}/no-lab"],
    ["train", "--rules"],
    ["train", "--objectives", "xyz"],
    ["probe", " "],
    ["exercise", "mask-matrix", "--rubric"],
    ["exercise", "whole-word-masking", "--rubric"],  # issue 24: its module reads engine.subwords
    ["exercise", "packing-windows", "--rubric"],
    ["check", "no-such-exercise", "--answer", "a=b"],
    ["show", "mask", "causal", "--n", "abc"],
    ["--lang", "zh", "exercise"],
    ["quiz", "key", "{tmp}/no-quiz.toml", "--student", "s1"],
    ["quiz", "grade", "{tmp}/no-quiz.toml", "{tmp}"],
]


def subcommands(parser, path=()) -> list[tuple[str, ...]]:
    """Every command path the parser knows (``quiz grade``, ``lab``...), read from argparse:
    a command added later (``class ...``, ``glossary``) is covered without an edit here."""
    import argparse

    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found.append((*path, name))
                found += subcommands(child, (*path, name))
    return found


def test_no_commands_help_imports_torch():
    from tui.cli import build_parser

    paths = subcommands(build_parser())
    assert ("quiz", "grade") in paths and ("lab",) in paths and ("train",) in paths  # the walk works
    code = (
        "import sys\nfrom tui.cli import main\n"
        "for path in sys.argv[1:]:\n"
        "    try:\n        main([*path.split(), '--help'])\n    except SystemExit:\n        pass\n"
        "    if 'torch' in sys.modules:\n        sys.stderr.write('TORCH-BY=' + path)\n        break\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, *(" ".join(path) for path in paths)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert "TORCH-BY=" not in result.stderr, result.stderr.rsplit("TORCH-BY=", 1)[1]


# One interpreter imports tui.cli (as `objectives-tutor` does first), checks that this
# loaded no torch, then forks a child per command: each child starts from that state, runs
# main(argv) and reports which of the engine's heavy libraries got imported (torch, and
# tokenizers since issue 24). As honest as a fresh process per
# command (the same imports precede main in both), for one interpreter's start-up instead
# of one per command. Each child has its own progress folder.
FORKING_PROBE = """
import json, os, sys
from tui.cli import main

def run(index, argv):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.environ["OBJECTIVES_TUTOR_HOME"] = os.path.join(sys.argv[1], f"home-{index}")
        quiet = os.open(os.devnull, os.O_RDWR)
        os.dup2(quiet, 0), os.dup2(quiet, 1), os.dup2(quiet, 2)
        try:
            main(argv)
        except SystemExit:
            pass
        except BaseException as error:
            os.write(write, ("ERROR " + repr(error)).encode())
            os._exit(1)
        heavy = [name for name in ("torch", "tokenizers") if name in sys.modules]
        os.write(write, (" ".join(heavy) or "none").encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        said = pipe.read()
    os.waitpid(pid, 0)
    return said

commands = json.loads(sys.stdin.read())
before = "torch" in sys.modules or "tokenizers" in sys.modules
report = {"before": before, "after": [run(i, argv) for i, argv in enumerate(commands)]}
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def torch_after(tmp_path_factory):
    """argv (joined) -> the heavy libraries running it imported ("none", "torch", "torch tokenizers"),
    for every command below, in one probe."""
    tmp = tmp_path_factory.mktemp("commands")
    probed = [*TORCH_FREE_COMMANDS, TORCH_USER, TOKENIZERS_USER]
    commands = [[arg.replace("{tmp}", str(tmp)) for arg in argv] for argv in probed]
    result = subprocess.run(
        [sys.executable, "-c", FORKING_PROBE, str(tmp)],
        input=json.dumps(commands),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    report = json.loads(result.stdout)
    assert report["before"] is False, "importing tui.cli loaded torch or tokenizers"
    said = dict(zip((" ".join(argv) for argv in probed), report["after"], strict=True))
    assert not [line for line in said.values() if line.startswith("ERROR")], said
    return said


TORCH_USER = ["show", "mask", "causal", "--n", "3"]  # the engine computes: the probe must see torch
TOKENIZERS_USER = ["exercise", "whole-word-masking", "--seed", "3"]  # trains the WordPiece tokenizer


@pytest.mark.parametrize("argv", TORCH_FREE_COMMANDS, ids=" ".join)
@pytest.mark.slow
def test_commands_that_compute_nothing_import_no_torch(argv, torch_after):
    assert torch_after[" ".join(argv)] == "none"


@pytest.mark.slow
def test_the_probe_sees_torch_where_the_engine_computes(torch_after):
    assert "torch" in torch_after[" ".join(TORCH_USER)].split()


@pytest.mark.slow
def test_the_probe_sees_tokenizers_where_the_subwords_are_cut(torch_after):
    """The whole-word exercise trains the tokenizer: tokenizers is loaded, and the probe says so."""
    assert "tokenizers" in torch_after[" ".join(TOKENIZERS_USER)].split()
