"""Train with your own code (issue 26, part 2): the training lab's batches built by a
learner's code-lab function in the lab's sandbox, or by a shipped classic bug; the
sandbox's answers checked before use; the command line's --with-lab and --bug."""

from __future__ import annotations

import difflib
import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from engine.train_lab import LabSettings, build_data, initial_model, train_objective
from exercises.lab.checks import run_check
from exercises.lab.tasks import BY_ID, code
from exercises.text import L
from exercises.training.own_code import (
    BUGS,
    MINE,
    Bug,
    OwnCodeFailed,
    OwnRun,
    Source,
    bug_source,
    checked_mask,
    checked_mlm,
    train_own,
)

# A short run: the same code paths as the default budget, in a second or two.
SHORT = LabSettings(objectives=("mlm",), steps=6, train_sentences=300, eval_sentences=24)


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _exit(argv: list[str]) -> int:
    """The command's exit status, whether main returns it or raises SystemExit."""
    from tui import cli

    try:
        return cli.main(argv)
    except SystemExit as stop:
        return int(stop.code or 0)


def _reference(objective: str, settings: LabSettings, data):
    start = initial_model(data.vocab, settings).state_dict()
    return start, train_objective(objective, data, settings, start)


# -- the shipped bugs are the solution with one change, and each is a bug the checks catch --


@pytest.mark.parametrize("bug", BUGS, ids=lambda bug: bug.slug)
def test_each_bug_is_the_solution_with_one_change_that_compiles(bug):
    solution = code("solutions", BY_ID[bug.task].file_name)
    assert solution.count(bug.find) == 1
    built = bug.source()
    changed = [line for line in difflib.ndiff(solution.splitlines(), built.splitlines()) if line[:1] in "+-"]
    assert changed and all(bug.find.strip() in line or bug.replace.strip() in line for line in changed)
    compile(built, bug.file_name, "exec")
    assert bug.path.name == bug.file_name
    assert bug.path.read_text(encoding="utf-8") == built


def test_a_bug_whose_change_is_not_in_the_solution_once_is_refused():
    for find in ("this line is not in the solution", "ids"):
        with pytest.raises(ValueError, match="exactly once"):
            Bug("broken", "bert_mask", L("x", "x"), "split-80-10-10", find, "").source()


def test_the_solution_the_bugs_change_passes_its_lab_check(tmp_path):
    task = BY_ID["bert_mask"]
    result = run_check(task, _write(tmp_path, task.file_name, code("solutions", task.file_name)))
    assert result.status == "pass", result.failure


@pytest.mark.parametrize("bug", BUGS, ids=lambda bug: bug.slug)
def test_each_shipped_bug_fails_its_lab_check(bug):
    assert bug.path.is_file()
    result = run_check(BY_ID[bug.task], bug.path)
    assert result.status == "fail"
    assert result.failure.rule.code == bug.rule


# -- the same run as the reference, but for where the batches come from --------------------


def test_the_reference_solution_in_the_sandbox_trains_the_reference_model(tmp_path):
    """Same windows, weights, order and generator stream: the engine's draw order gives
    the engine's batches, so the losses are the reference run's, step for step."""
    data = build_data(SHORT)
    start, reference = _reference("mlm", SHORT, data)
    path = _write(tmp_path, "06_bert_mask.py", code("solutions", "06_bert_mask.py"))
    run = train_own(Source(MINE, "bert_mask", path), data, SHORT, start)
    assert run.status == "done", run.error
    assert run.steps_done == SHORT.steps
    assert run.losses == pytest.approx(reference.losses, rel=1e-5, abs=1e-6)
    assert run.scores is not None and run.model is not None


def test_the_reference_prefix_mask_in_the_sandbox_trains_the_reference_prefix_model(tmp_path):
    settings = replace(SHORT, objectives=("prefix",))
    data = build_data(settings)
    start, reference = _reference("prefix", settings, data)
    path = _write(tmp_path, "13_prefix_lm_mask.py", code("solutions", "13_prefix_lm_mask.py"))
    run = train_own(Source(MINE, "prefix_lm_mask", path), data, settings, start)
    assert run.status == "done", run.error
    assert run.losses == pytest.approx(reference.losses, rel=1e-5, abs=1e-6)


def test_a_bug_changes_the_batches_and_the_run_still_completes():
    data = build_data(SHORT)
    start, reference = _reference("mlm", SHORT, data)
    run = train_own(bug_source("labels_everywhere"), data, SHORT, start)
    assert run.status == "done"
    assert run.losses != pytest.approx(reference.losses, rel=1e-3)
    assert run.to_json()["label"]["en"] == "bug: labels on every position"


def test_an_own_row_and_a_reference_row_write_the_model_fields_alike():
    """The same training numbers read the same in both tables' JSON."""
    from engine.train_lab import LabRun, Scores, TrainedModel

    scores = Scores(0.25, 0.5, None, 1, 1, None)
    losses, seconds, steps = [3.14159, 2.71828], 1.23456, 2
    own = OwnRun(bug_source("no_keep"), losses, seconds, steps, "done", scores=scores).to_json()
    trained = TrainedModel("mlm", None, losses, seconds, steps)
    lab = LabRun(SHORT, build_data(SHORT), {"mlm": trained}, {"mlm": scores}).to_json()["objectives"]["mlm"]
    expected = {
        "continue": 0.25,
        "fill": 0.5,
        "loss": [3.1416, 2.7183],
        "final_loss": 2.7183,
        "seconds": 1.235,
    }
    for row in (own, lab):
        assert {key: row[key] for key in expected} == expected
        assert row["steps"] == steps


# -- hostile code: a one-line failure in both languages, never a crash, never a hang ------

HOSTILE = {
    "wrong shape": (
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n"
        "    return ids[:, :-1].clone(), ids[:, :-1].clone()\n",
        "shape",
    ),
    "float labels": (
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n"
        "    return ids.clone(), ids.float()\n",
        "float32",
    ),
    "ids out of range": (
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n"
        "    return ids + 10**6, ids.clone()\n",
        "1000",
    ),
    "negative labels": (
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n"
        "    return ids.clone(), ids - 10**4\n",
        "-100",
    ),
    "nothing to learn": (
        "import torch\n"
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n"
        "    return ids.clone(), torch.full_like(ids, -100)\n",
        "-100",
    ),
    "not a pair": (
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n    return ids.clone()\n",
        "(input_ids, labels)",
    ),
    "a string": (
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n"
        "    return '[bold]x[/bold]', ids\n",
        "not a tensor",
    ),
    "raises, with markup in its words": (
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n"
        "    raise ValueError('[red]boom[/red]')\n",
        "[red]boom[/red]",
    ),
    "fails at its third call": (
        "calls = []\n"
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n"
        "    calls.append(1)\n"
        "    if len(calls) == 3:\n"
        "        return ids, ids[0]\n"
        "    return ids.clone(), ids.clone()\n",
        "step 3",
    ),
    "syntax error": ("def bert_mask(:\n", "Python"),
    "endless": (
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n    while True:\n        pass\n",
        "stopped",
    ),
    "exits the process": (
        "import os\ndef bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n    os._exit(3)\n",
        "died",
    ),
}


@pytest.mark.parametrize("case", HOSTILE, ids=str)
def test_hostile_code_fails_the_run_with_one_line(case, tmp_path):
    source_text, said = HOSTILE[case]
    data = build_data(SHORT)
    start = initial_model(data.vocab, SHORT).state_dict()
    path = _write(tmp_path, "06_bert_mask.py", source_text)
    run = train_own(Source(MINE, "bert_mask", path), data, SHORT, start, call_limit=1.0)
    assert run.status == "failed"
    entry = run.to_json()
    from exercises.training.own_code import failure_line

    en, zh = failure_line(entry, "en"), failure_line(entry, "zh")
    assert "\n" not in en and "\n" not in zh
    assert said in en
    assert en != zh and "失败" in zh
    assert run.steps_done < SHORT.steps


def test_checked_mlm_accepts_exactly_a_batch():
    windows = torch.randint(0, 50, (4, 8))
    labels = torch.full_like(windows, -100)
    labels[0, 0] = 7
    inputs, got = checked_mlm((windows.clone(), labels), windows, 50)
    assert torch.equal(got, labels) and torch.equal(inputs, windows)
    for bad in (
        (windows.int(), labels),  # int32
        (windows, labels.view(8, 4)),  # shape
        (windows, labels, labels),  # three
        [windows],  # one
        None,
        (windows.bool(), labels),
    ):
        with pytest.raises(OwnCodeFailed):
            checked_mlm(bad, windows, 50)


def test_checked_mask_refuses_a_row_that_sees_nothing():
    fine = torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1)
    assert checked_mask(fine, 5) is fine
    blind = fine.clone()
    blind[2] = True
    with pytest.raises(OwnCodeFailed) as caught:
        checked_mask(blind, 5)
    assert "row 2" in caught.value.words["en"]
    with pytest.raises(OwnCodeFailed):
        checked_mask(fine.int(), 5)
    with pytest.raises(OwnCodeFailed):
        checked_mask(fine[:4], 5)


# -- which of the learner's files are offered ---------------------------------------------


def _passing_lab(folder: Path) -> Path:
    from tui.cli import main

    assert main(["lab", "init", "--dir", str(folder)]) == 0
    path = folder / BY_ID["bert_mask"].file_name
    path.write_text(code("solutions", BY_ID["bert_mask"].file_name), encoding="utf-8")
    assert main(["lab", "check", "bert_mask", "--dir", str(folder)]) == 0
    return path


def test_only_a_file_that_passes_as_it_is_now_is_offered(tmp_path):
    from exercises.training.own_code import ready

    folder = tmp_path / "lab"
    assert ready(folder) == []
    path = _passing_lab(folder)
    assert [(source.task, source.path) for source in ready(folder)] == [("bert_mask", path)]
    path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert ready(folder) == []  # changed since its check


# -- the command line ---------------------------------------------------------------------


@pytest.mark.slow
def test_train_with_lab_and_a_bug_from_the_command_line(tmp_path, capsys, monkeypatch):
    from tui import cli

    folder = tmp_path / "lab"
    _passing_lab(folder)
    capsys.readouterr()
    code_ = cli.main(
        [
            "train",
            "--objectives",
            "clm",
            "--steps",
            "3",
            "--with-lab",
            str(folder),
            "--bug",
            "no_keep",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code_ == 0
    assert set(out["objectives"]) == {"clm", "mlm"}  # the reference row of the learner's objective is added
    assert [(e["source"], e["status"], e["steps"]) for e in out["own"]] == [
        ("mine", "done", 3),
        ("no_keep", "done", 3),
    ]
    saved = json.loads((tmp_path / "home" / "training-lab" / "last-run.json").read_text(encoding="utf-8"))
    assert [entry["source"] for entry in saved["own"]] == ["mine", "no_keep"]
    assert cli.main(["train", "--steps", "2", "--bug", "labels_everywhere", "--lang", "zh"]) == 0
    shown = capsys.readouterr().out
    assert "└ 错误：每个位置都有标签" in shown


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bug", "nope"], "nope"),
        (["--with-lab", "/no/such/folder"], "/no/such/folder"),
        (["--rules", "--bug", "all"], "--bug"),
    ],
)
def test_the_command_line_refuses_in_one_line(argv, said, capsys, tmp_path):

    assert _exit(["train", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and said in err and "Traceback" not in err


def test_a_lab_folder_with_nothing_passing_is_refused(tmp_path, capsys):
    from tui import cli

    folder = tmp_path / "lab"
    assert cli.main(["lab", "init", "--dir", str(folder)]) == 0
    capsys.readouterr()
    assert _exit(["train", "--steps", "2", "--with-lab", str(folder)]) == 2
    err = capsys.readouterr().err.strip()
    assert "lab check bert_mask" in err and "\n" not in err


@pytest.mark.slow
def test_a_failing_run_exits_1_and_says_why(tmp_path, capsys, monkeypatch):
    """A file that passed its check but misbehaves at training's batch size (it hard-codes
    the check's shapes) is a failed run: exit 1, the table, and the reason."""

    folder = tmp_path / "lab"
    path = _passing_lab(folder)
    monkeypatch.setattr(
        "exercises.training.own_code.ready",
        lambda folder, home=None: [
            Source(MINE, "bert_mask", _write(tmp_path, "bad.py", HOSTILE["wrong shape"][0]))
        ],
    )
    assert path.exists()
    assert _exit(["train", "--steps", "2", "--with-lab", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "your bert_mask failed (at step 1): input_ids has shape" in " ".join(out.split())


def test_specials_selectable_changes_nothing_here_as_the_lesson_says():
    """The lesson leaves this bug out of its table: no training window holds a special
    token, so selecting specials selects nothing more and the batches are the reference's."""
    from engine.train_lab import BUILDERS, training_windows
    from exercises.training.own_code import SandboxedBuilder

    data = build_data(SHORT)
    assert not torch.isin(data.stream, torch.tensor(data.vocab.special_ids())).any()
    next_windows = training_windows(data, SHORT)
    generator = torch.Generator().manual_seed(SHORT.seed + 17)
    with SandboxedBuilder(bug_source("specials_selectable")) as build:
        for _ in range(5):
            windows = next_windows()
            reference = BUILDERS["mlm"](windows, data.vocab, SHORT, generator)
            batch = build(windows, data.vocab, SHORT, generator)
            assert torch.equal(batch.inputs, reference.inputs) and torch.equal(batch.labels, reference.labels)


def test_the_command_lines_copy_of_the_bug_names_is_the_modules():
    from tui.commands.train import BUG_SLUGS

    assert tuple(bug.slug for bug in BUGS) == BUG_SLUGS


def test_a_cancelled_run_stops_between_steps_and_leaves_no_call_behind(tmp_path):
    data = build_data(SHORT)
    start = initial_model(data.vocab, SHORT).state_dict()
    path = _write(tmp_path, "06_bert_mask.py", code("solutions", "06_bert_mask.py"))
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 2

    run = train_own(Source(MINE, "bert_mask", path), data, SHORT, start, should_stop=stop)
    assert (run.status, run.steps_done, run.scores) == ("cancelled", 2, None)
