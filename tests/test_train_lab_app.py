"""The training lab in the app (Pilot): start with a short budget, cancel,
read the table, probe; the command line's train and probe."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.test_app import engine_ready, text_of
from tui.app import TutorApp
from tui.cli import main
from tui.figures.train_lab import TrainLabFigure, loss_chart


async def _until(condition, seconds: float = 120.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


async def _open_lab(app, pilot) -> TrainLabFigure:
    await engine_ready(app)
    app.open_lesson("train-lab")
    await pilot.pause()
    await pilot.press("f6")
    await pilot.pause()
    return app.screen.query_one(TrainLabFigure)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
async def test_train_with_a_short_budget_then_read_the_table_and_probe(lang):
    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        figure.query_one("#tl-steps").value = "4"
        await pilot.press("ctrl+s")
        await _until(lambda: figure.result is not None and not figure.training)
        assert figure.result is not None and set(figure.result["objectives"]) == {"clm", "mlm"}
        assert all(len(losses) == 4 for losses in figure.curves.values())
        table = text_of(figure.query_one("#tl-table"))
        assert ("causal LM" if lang == "en" else "因果 LM") in table
        assert ("majority" if lang == "en" else "多数类") in table
        probe = figure.query_one("#tl-probe")
        probe.focus()
        probe.value = "因为小明昨天买了三_书和两杯茶，所以大家很高兴。"
        await pilot.press("enter")
        await _until(lambda: figure.probe_result is not None, 30)
        await pilot.pause()
        assert figure.probe_result["task"] == "fill"
        assert set(figure.probe_result["models"]) == {"clm", "mlm"}
        shown = text_of(figure.query_one("#tl-probe-out"))
        assert str(figure.probe_result["models"]["clm"]["scored_passes"]) in shown  # #23 item 11


async def test_opening_the_lab_warms_torchs_optimizer_imports_before_train(monkeypatch):
    """Torch's first optimizer imports torch._dynamo (seconds of CPU): the lab starts that
    import in the background when it opens, so that Train's first loss point does not wait."""
    import threading

    from tui.figures import train_lab

    warmed = threading.Event()
    monkeypatch.setattr(train_lab, "_warm_up", warmed.set)
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        await _until(warmed.is_set, 10)
        assert not figure.training  # nothing pressed: only the imports were warmed


@pytest.mark.slow
def test_warm_up_imports_what_the_first_optimizer_imports():
    import subprocess
    import sys

    code = (
        "import sys, torch; from engine.train_lab import warm_up; "
        "assert 'torch._dynamo' not in sys.modules; warm_up(); "
        "assert 'torch._dynamo' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


@pytest.mark.slow
async def test_cancel_stops_training_and_shows_no_table():
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        figure.query_one("#tl-steps").value = "3000"
        figure.action_start()
        await _until(lambda: sum(map(len, figure.curves.values())) >= 2, 60)
        await pilot.pause()
        assert "4.2 ┤" in text_of(figure.query_one("#tl-chart"))  # ln V = ln 70 (the en text) on top
        await pilot.press("ctrl+x")
        await _until(lambda: not figure.training, 30)
        await pilot.pause()
        assert figure.result is None
        assert figure.status_key == "tl-cancelled"
        assert sum(map(len, figure.curves.values())) < 3000


@pytest.mark.parametrize("where", ["steps box", "clicked Train"])
@pytest.mark.slow
async def test_ctrl_x_cancels_wherever_the_focus_is(where):
    """#23 item 2: the steps box's own Ctrl+X (cut) and the clicked button kept the key."""
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        steps = figure.query_one("#tl-steps")
        steps.value = "3000"
        if where == "steps box":
            steps.focus()
            await pilot.press("ctrl+s")
            assert steps.has_focus
        else:
            await pilot.click("#tl-start")
        await _until(lambda: figure.training and sum(map(len, figure.curves.values())) >= 1, 60)
        await pilot.press("ctrl+x")
        await _until(lambda: not figure.training, 30)
        assert figure.status_key == "tl-cancelled" and steps.value == "3000"  # nothing cut


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_form_is_labelled_in_the_learners_language(lang):
    """#23 item 17 and the corpus: every field says what it is, the objectives are named
    in the learner's language, an unticked box is empty, and the text is theirs."""
    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        await pilot.pause()
        labels = " ".join(
            [text_of(figure.query_one(f"#tl-{name}-label")) for name in ("objectives", "steps", "corpus")]
            + [str(figure.query_one(f"#tl-{name}").label) for name in ("clm", "mlm", "prefix", "span")]
        )
        said = ("Objectives:", "Steps:", "Text:", "causal", "masked", "prefix", "T5 spans")
        for word in (
            said if lang == "en" else ("训练目标：", "步数：", "语料：", "因果", "掩码", "前缀", "T5 片段")
        ):
            assert word in labels
        if lang == "zh":
            assert not any(name in labels for name in ("clm", "mlm", "prefix", "span"))
        assert figure.query_one("#tl-prefix")._button.plain.strip(" ▐▌") == ""  # unticked: no mark
        assert "✓" in figure.query_one("#tl-clm")._button.plain
        assert figure._corpus() == lang


async def test_nothing_ticked_or_a_bad_budget_is_said_not_started():
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        figure.query_one("#tl-steps").value = "0"
        figure.action_start()
        assert not figure.training and figure.status_key == "tl-bad-steps"
        for name in ("clm", "mlm"):
            figure.query_one(f"#tl-{name}").value = False
        figure.query_one("#tl-steps").value = "５"  # full-width digits read as 5
        figure.action_start()
        assert not figure.training and figure.status_key == "tl-pick-one"


def test_loss_chart_draws_ln_v_on_top_and_each_objective_with_its_letter():
    chart = loss_chart({"clm": [4.0, 2.0, 0.5], "mlm": [4.2, 3.0, 1.0]}, 4.4, 3, width=9, height=5).plain
    lines = chart.splitlines()
    assert lines[0].startswith(" 4.4 ┤") and "┈" in lines[0]
    assert "C" in chart and "M" in chart
    assert "C" in lines[-2] or "C" in lines[-3]  # the CLM ends low


def test_loss_chart_reaches_the_highest_loss_and_still_draws_ln_v():
    """A fresh model's first losses can lie above ln V (5.9 at step 1 against ln 82 = 4.41):
    drawn on the top line they read as ln V, and the dotted line had no room left."""
    chart = loss_chart({"clm": [5.9, 4.0, 1.0]}, 4.41, 3, width=9, height=7).plain
    lines = chart.splitlines()
    assert float(lines[0].split("┤")[0]) >= 5.9 and "C" in lines[0]  # the axis reaches 5.9
    below = [line for line in lines[1:-1] if "┈" in line]
    assert len(below) == 1 and float(below[0].split("┤")[0]) <= 4.41 + 1e-9  # ln V, under the top


# -- the command line ---------------------------------------------------------------


def test_train_prints_json_with_the_issue_keys_and_probe_uses_the_saved_models(capsys):
    assert main(["train", "--objectives", "clm，mlm", "--steps", "3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) >= {"objectives", "baselines", "settings"}
    for name in ("clm", "mlm"):
        entry = result["objectives"][name]
        assert set(entry) >= {"continue", "fill", "loss", "seconds"}
        assert len(entry["loss"]) == 3
    assert "fill_scored" in result["objectives"]["clm"]
    assert result["settings"]["steps"] == 3 and result["settings"]["objectives"] == ["clm", "mlm"]
    assert main(["probe", "因为小明昨天买了三本书，", "--json"]) == 0
    probe = json.loads(capsys.readouterr().out)
    assert probe["task"] == "continue" and set(probe["models"]) == {"clm", "mlm"}
    assert main(["probe", "因为小明买了三_书", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "scoring every candidate" in out
    assert "likeliest for the blank" in out
    assert main(["probe", "因为小明买了三_书", "--json"]) == 0
    for name, answer in json.loads(capsys.readouterr().out)["models"].items():
        chances = [chance for _token, chance in answer["top"]]  # the cloze view (#24)
        assert len(chances) == 5 and chances == sorted(chances, reverse=True) and sum(chances) <= 1 + 1e-6
        assert answer["top"][0][0] == answer["answer"][0], name  # one pass: its answer is its likeliest


def test_the_command_lines_copies_of_the_lab_facts_equal_the_engines():
    from engine import toy_corpus, train_lab_spec
    from tui.commands import train

    assert train.CORPORA == toy_corpus.CORPORA and train.OBJECTIVES == train_lab_spec.OBJECTIVES
    assert (train.DEFAULT_STEPS, train.MAX_STEPS) == (train_lab_spec.DEFAULT_STEPS, train_lab_spec.MAX_STEPS)
    from exercises.classdb.settings import MAX_TRAINING_STEPS  # a class server's bound: the app's

    assert MAX_TRAINING_STEPS == train_lab_spec.APP_MAX_STEPS


@pytest.mark.slow
def test_train_follows_the_learners_language():
    """Under --lang en the toy language is the English one unless --corpus says otherwise."""
    assert main(["train", "--objectives", "clm", "--steps", "2", "--json", "--lang", "en"]) == 0
    from exercises.training.runs import last_table

    assert last_table()["settings"]["corpus"] == "en"
    assert main(["train", "--objectives", "clm", "--steps", "2", "--lang", "en", "--corpus", "zh"]) == 0
    assert last_table()["settings"]["corpus"] == "zh"


@pytest.mark.parametrize(
    "argv",
    [
        ["train", "--objectives", "gpt"],
        ["train", "--objectives", "clm,clm"],
        ["train", "--steps", "0"],
        ["train", "--steps", "ten"],
        ["train", "--corpus", "fr"],
        ["train", "--device", "tpu"],
        ["train", "--threads", "0"],
        ["train", "--seed", "-1"],
        ["train", "--seed", "9" * 5000],
        ["train", "--seed", "99999999999"],
    ],
)
def test_bad_train_arguments_exit_2_with_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture
def small_saved_run():
    """A tiny run saved where probe looks for it (a probe never trains unasked)."""
    from engine import train_lab
    from exercises.training.runs import save_run

    save_run(train_lab.run_lab(train_lab.LabSettings(steps=2, train_sentences=200, eval_sentences=20)))


def test_a_saved_run_that_does_not_load_is_reported_moved_aside_and_the_probe_says_what_to_run(capsys):
    from exercises.training.runs import run_path

    path = run_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a model at all")
    with pytest.raises(SystemExit) as exit_info:
        main(["probe", "因为", "--json", "--lang", "en"])
    captured = capsys.readouterr()
    assert exit_info.value.code == 2 and captured.out == ""
    assert "could not be read" in captured.err and "`objectives-tutor train --corpus en`" in captured.err
    aside = list(path.parent.glob("last-run.unreadable-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == b"not a model at all"
    assert not path.exists()


def test_probe_rejects_two_blanks_with_one_line(capsys, small_saved_run):
    with pytest.raises(SystemExit) as exit_info:
        main(["probe", "因为_买了三_书"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.count("\n") >= 1


def test_probe_never_echoes_control_characters_and_names_unknown_ones(capsys, small_saved_run):
    assert main(["probe", "因为\x1b[31mTom", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b" in out and "T o m" in out
