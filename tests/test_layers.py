"""Dependencies point one way: tui -> exercises -> engine -> torch.

Each probe runs in a fresh interpreter and imports every module of a package
(found by walking it, so a module added tomorrow is checked too), then reports
the top-level packages that got loaded."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_engine_imports_neither_textual_rich_exercises_nor_tui():
    loaded = modules_after(import_all("engine"))
    assert "torch" in loaded  # the probe did import the engine
    assert not loaded & {"textual", "rich", "exercises", "tui"}, loaded & {
        "textual",
        "rich",
        "exercises",
        "tui",
    }


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


HEAVY = ("torch", "tokenizers")  # the engine's libraries that take time to import (issue 24: tokenizers)


def torch_loaded_by(argv: list[str], heavy: tuple[str, ...] = HEAVY) -> bool:
    """Did running ``argv`` import torch, or another of the engine's heavy libraries?"""
    code = (
        "import sys\nfrom tui.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        f"sys.stderr.write('\\nTORCH=' + str(any(name in sys.modules for name in {heavy!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return result.stderr.rsplit("TORCH=", 1)[1].strip() == "True"


@pytest.mark.parametrize("argv", TORCH_FREE_COMMANDS, ids=" ".join)
def test_commands_that_compute_nothing_import_no_torch(argv, tmp_path):
    assert not torch_loaded_by([arg.replace("{tmp}", str(tmp_path)) for arg in argv])


def test_the_probe_sees_torch_where_the_engine_computes():
    assert torch_loaded_by(["show", "mask", "causal", "--n", "3"])


def test_the_probe_sees_tokenizers_where_the_subwords_are_cut():
    """The whole-word exercise trains the tokenizer: tokenizers is loaded, and the probe says so."""
    assert torch_loaded_by(["exercise", "whole-word-masking", "--seed", "3"], heavy=("tokenizers",))
