"""The command line as scripts and people use it."""

import json
import os
import re
import subprocess
import sys

import pytest

from tui.cli import main


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def run_json(capsys, *argv):
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    return json.loads(out)


def test_show_mask_json(capsys):
    payload = run_json(capsys, "show", "mask", "prefix", "--n", "4", "--prefix", "2")
    assert payload["mask"] == [[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]]
    assert run_json(capsys, "show", "mask", "causal", "--n", "3")["mask"] == [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    assert run_json(capsys, "show", "mask", "bidirectional", "--n", "2")["mask"] == [[0, 0], [0, 0]]


def test_show_sample_mlm_json_has_per_token_lists(capsys):
    payload = run_json(
        capsys, "show", "sample", "mlm", "--text", "A B C D E", "--positions", "1,4", "--fates", "mask,random"
    )
    assert payload["tokens"] == ["A", "B", "C", "D", "E"]
    assert payload["inputs"][1] == "[MASK]"
    assert payload["labels"] == [None, "B", None, None, "E"]
    assert payload["selected"] == [0, 1, 0, 0, 1]
    assert payload["fates"] == [None, "mask", None, None, "random"]


def test_show_sample_span_and_clm_and_prefix_json(capsys):
    span = run_json(capsys, "show", "sample", "span", "--spans", "2:5")
    assert span["inputs"] == ["transformer", "models", "<extra_id_0>", "large", "text", "corpora", "</s>"]
    assert span["targets"] == ["<extra_id_0>", "learn", "patterns", "from", "<extra_id_1>", "</s>"]
    assert span["closed"] is True
    end = run_json(capsys, "show", "sample", "span", "--spans", "6:8")
    assert end["targets"] == ["<extra_id_0>", "text", "corpora", "</s>"] and end["closed"] is False
    clm = run_json(capsys, "show", "sample", "clm", "--text", "今天天气很好")
    assert clm["inputs"] == list("今天天气很") and clm["labels"] == list("天天气很好")
    assert len(clm["mask"]) == 5
    assert clm["loss_side_labels"] == list("今天天气很好") and clm["loss_pairs"][0] == [0, 1]
    prefix = run_json(capsys, "show", "sample", "prefix", "--text", "a b c d e", "--prefix", "2")
    assert prefix["labels"] == [None, "c", "d", "e"]


def test_full_width_arguments_are_read(capsys):
    payload = run_json(capsys, "show", "sample", "span", "--spans", "２：５，６：７")
    assert payload["spans"] == [[2, 5], [6, 7]]


def test_textbook_json_reproduces_the_lessons(capsys):
    clm = run_json(capsys, "textbook", "clm")
    assert clm["loss"] == 9.6401
    assert clm["input_ids"][1][-1] == 376
    assert clm["causal_mask"][0] == [0, 1, 1, 1, 1, 1, 1, 1]
    mlm = run_json(capsys, "textbook", "mlm")
    assert mlm["counts"] == {"mask": 3, "random": 0, "keep": 1}
    assert mlm["selected"][1] == [0, 0, 0, 1, 1, 0, 0, 0]
    assert mlm["labels"][3][1] == 1766
    three = run_json(capsys, "textbook", "three-samples")
    assert three["masked_labels"] == {"2": "learn", "5": "large"}


def test_textbook_plain_output_is_the_lessons_layout(capsys):
    status, out, _ = run(capsys, "textbook", "clm", "--lang", "en")
    assert status == 0
    assert "   6044  8239  4933  3760  8963  8379  5427  8503" in out
    assert "CLM loss: 9.6401" in out
    assert "  0 1 1 1 1 1 1 1" in out
    status, out, _ = run(capsys, "--lang", "zh", "textbook", "mlm")
    assert "[MASK] 替换：3（75.0%）" in out
    assert "     4  4038" in out


def test_action_items_change_the_run(capsys):
    short = run_json(capsys, "textbook", "clm", "--seq-len", "4")
    assert len(short["causal_mask"]) == 4
    assert short["loss"] != 9.6401
    higher = run_json(capsys, "textbook", "mlm", "--p", "0.3")
    assert sum(map(sum, higher["selected"])) > 4


def in_a_terminal(monkeypatch, columns: int) -> None:
    """Plain output as a terminal of ``columns`` gets it (stdout a terminal, no colour)."""
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", str(columns))


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_plain_output_fits_80_columns_in_a_terminal(capsys, monkeypatch):
    from rich.cells import cell_len

    for argv in (
        ["textbook", "mlm", "--seq-len", "40"],
        ["textbook", "clm", "--seq-len", "60"],
        ["show", "mask", "causal", "--n", "64"],
        [
            "show",
            "sample",
            "mlm",
            "--text",
            "今天天气很好，我们一起去公园散步吧",
            "--p",
            "0.5",
            "--lang",
            "zh",
        ],
    ):
        in_a_terminal(monkeypatch, 80)
        status, out, _ = run(capsys, *argv)
        assert status == 0
        assert "columns 0-" in out or "第 0-" in out or argv[0] == "show", (
            argv
        )  # the grid was cut into blocks
        assert max(cell_len(ANSI.sub("", line)) for line in out.splitlines()) <= 80, argv


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["show", "sample", "mlm", "--p", "1.5"], "argument --p: must be from 0 to 1, got 1.5"),
        (["show", "sample", "clm", "--text", "one"], "at least 2 tokens"),
        (["show", "mask", "prefix", "--n", "4", "--prefix", "9"], "prefix length 9"),
        (["show", "sample", "span", "--spans", "2:5,4:6"], "overlap"),
        (["show", "sample", "span", "--spans", "2:50"], "outside"),
        (
            [
                "show",
                "sample",
                "span",
                "--text",
                "好" * 256,
                "--spans",
                ",".join(f"{2 * i}:{2 * i + 1}" for i in range(100)),
            ],
            "sentinels",
        ),
        (["show", "mask", "causal", "--n", "x"], "not a whole number"),
        (["show", "sample", "span", "--p", "0.3"], "--p applies to mlm without --positions only"),
        (["textbook", "visibility", "--p", "0.3"], "--p applies to mlm only"),
        (["textbook", "nonsense"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, fragment):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    _, err = capsys.readouterr()
    assert exit_info.value.code == 2
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_errors_speak_chinese(capsys):
    with pytest.raises(SystemExit):
        main(["--lang", "zh", "show", "sample", "mlm", "--p", "2"])
    assert "参数 --p：必须在 0 到 1 之间，收到 2" in capsys.readouterr().err


@pytest.mark.slow
def test_real_binary_exit_codes_and_no_traceback():
    binary = os.path.join(os.path.dirname(sys.executable), "objectives-tutor")
    bad = subprocess.run([binary, "show", "sample", "span", "--spans", "5:2"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.splitlines()) == 1
    good = subprocess.run(
        [binary, "show", "mask", "causal", "--n", "3", "--json"], capture_output=True, text=True
    )
    assert good.returncode == 0 and json.loads(good.stdout)["mask"][0] == [0, 1, 1]


def test_exercises_catalogue_json(capsys):
    payload = run_json(capsys, "exercises")
    ids = [row["id"] for row in payload["exercises"]]
    assert "mlm-abcde" in ids and "clm-shift" in ids and "span-corruption" in ids
    row = next(row for row in payload["exercises"] if row["id"] == "mlm-abcde")
    assert row["parts"] == ["inputs", "loss_positions", "labels"] and row["objective"] == "mlm"
    assert next(r for r in payload["exercises"] if r["id"] == "reflect-mlm-fill")["graded"] is False


@pytest.mark.slow
def test_exercise_with_solution_then_check_scores_one(capsys):
    for exercise_id in ("mlm-abcde", "mask-matrix", "span-corruption", "concept-task", "expected-counts"):
        for seed in (0, 7):
            shown = run_json(capsys, "exercise", exercise_id, "--seed", str(seed), "--solution")
            answers = [f"--answer={part}={text}" for part, text in shown["solution"].items()]
            graded = run_json(capsys, "check", exercise_id, "--seed", str(seed), *answers)
            assert graded["score"] == 1.0 and graded["correct"] and graded["valid"], graded


def test_check_names_the_misconception_and_exits_0_on_a_wrong_answer(capsys):
    graded = run_json(
        capsys,
        "check",
        "mlm-abcde",
        "--seed",
        "0",
        "--answer",
        "input=A [MASK] C D [MASK]",
        "--answer",
        "loss_positions=1",
        "--answer",
        "labels=1: B",
    )
    assert graded["score"] < 1 and not graded["correct"] and graded["valid"]
    assert {"random-shown-as-mask", "loss-omits-random"} <= set(graded["diagnoses"])
    assert set(graded["parts"]) == {"inputs", "loss_positions", "labels"}
    status, out, _ = run(capsys, "--lang", "zh", "check", "mlm-abcde", "--answer", "loss_positions=1")
    assert status == 0 and "loss-omits-random" in out and "被换成随机词" in out


def test_unreadable_answer_is_invalid_not_wrong(capsys):
    graded = run_json(capsys, "check", "mask-matrix", "--answer", "matrix=hello")
    assert graded["valid"] is False and graded["score"] == 0
    assert "4 rows" in graded["parts"]["matrix"]["feedback"]


def test_reflection_says_not_graded(capsys):
    shown = run_json(capsys, "exercise", "reflect-clm-generation")
    assert shown["graded"] is False
    graded = run_json(capsys, "check", "reflect-clm-generation", "--answer", "answer=because ...")
    assert graded["graded"] is False and graded["score"] is None


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["check", "nope", "--answer", "x=1"], "no exercise 'nope'"),
        (["check", "mlm-abcde", "--answer", "outputs=A"], "has no part 'outputs'"),
        (["check", "mlm-abcde", "--answer", "A B C"], "PART=TEXT"),
        (["check", "mlm-abcde"], "at least one --answer"),
        (["exercise", "mlm-abcde", "--seed", "-1"], "argument --seed: must be from 0 to 4294967295, got -1"),
    ],
)
def test_exercise_commands_bad_input(capsys, argv, fragment):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and fragment in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_content_self_check_command(capsys):
    status, out, _ = run(capsys, "exercises", "--check")
    assert status == 0 and "checks out" in out
