"""What a learner met working through every exercise in zh and en (session 3,
issue 9 "tried as a learner would"): each test here failed before its fix."""

from __future__ import annotations

import re

import pytest

from exercises.catalogue import get
from exercises.curriculum import OBJECTIVES
from tui.cli import main


def run(capsys, *argv: str) -> str:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


# ---------------------------------------------------------------- the command line


@pytest.mark.parametrize("lang, word", [("zh", "如"), ("en", "e.g.")])  # 例如 holds 如
def test_exercise_command_says_for_example_at_most_once_per_part(capsys, lang, word):
    for exercise_id in ("mlm-abcde", "prefix-lm-labels", "three-masks", "expected-counts"):
        out = run(capsys, "--lang", lang, "exercise", exercise_id, "--seed", "0")
        part_lines = [
            line for line in out.splitlines() if line.split("  ")[0] in get(exercise_id).part_names()
        ]
        assert part_lines, out
        for line in part_lines:
            assert line.count(word) <= 1, line


def test_the_chinese_catalogue_names_each_lesson_in_chinese(capsys):
    out = run(capsys, "--lang", "zh", "exercises")
    for objective in OBJECTIVES:
        assert objective.title["zh"].split()[0] in out
        assert not re.search(rf"^\S+\s+{re.escape(objective.id)}\s", out, re.MULTILINE), objective.id
    assert "(自评)" not in out and "（自评）" in out
    assert "Causal LM" in run(capsys, "--lang", "en", "exercises")
