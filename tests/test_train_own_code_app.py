"""Train with your own code in the app (Pilot, short budgets) and its snapshot at 80x24."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from exercises.lab.tasks import BY_ID, code
from tests.test_app import text_of
from tests.test_train_lab_app import _open_lab, _until
from tui.app import TutorApp
from tui.cli import main


def _passing_lab() -> Path:
    """A code lab in the default folder ($OBJECTIVES_TUTOR_HOME/code-lab) whose bert_mask passes."""
    folder = Path(os.environ["OBJECTIVES_TUTOR_HOME"]) / "code-lab"
    assert main(["lab", "init", "--dir", str(folder)]) == 0
    path = folder / BY_ID["bert_mask"].file_name
    path.write_text(code("solutions", BY_ID["bert_mask"].file_name), encoding="utf-8")
    assert main(["lab", "check", "bert_mask", "--dir", str(folder)]) == 0
    return folder


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
async def test_a_learner_trains_with_their_bert_mask(lang, capsys):
    _passing_lab()
    capsys.readouterr()
    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        own = figure.query_one("#tl-own-source")
        values = [value for _label, value in figure._own_options(lang)]
        assert "mine:bert_mask" in values and "bug:no_keep" in values
        hint = text_of(figure.query_one("#tl-own-hint"))
        assert ("bert_mask passed its lab check" if lang == "en" else "bert_mask 已通过实验检查") in hint
        for name in ("clm", "mlm"):  # the learner's objective is added even when unticked
            figure.query_one(f"#tl-{name}").value = name == "clm"
        own.value = "mine:bert_mask"
        figure.query_one("#tl-steps").value = "3"
        await pilot.press("ctrl+s")
        await _until(lambda: figure.result is not None and not figure.training)
        await pilot.pause()
        assert set(figure.result["objectives"]) == {"clm", "mlm"}
        [entry] = figure.result["own"]
        assert (entry["source"], entry["status"], entry["steps"]) == ("mine", "done", 3)
        assert len(figure.curves["mlm:mine"]) == 3
        table = text_of(figure.query_one("#tl-table"))
        assert ("└ your bert_mask" if lang == "en" else "└ 你的 bert_mask") in table
        lines = table.splitlines()
        mlm_row = next(
            i for i, line in enumerate(lines) if ("masked LM" if lang == "en" else "掩码 LM") in line
        )
        assert "bert_mask" in lines[mlm_row + 1]  # right under the reference row
        assert figure.status_key == "tl-done"


@pytest.mark.slow
async def test_a_failing_function_is_a_failed_row_in_plain_text(monkeypatch, tmp_path):
    from exercises.training import own_code

    bad = tmp_path / "06_bert_mask.py"
    bad.write_text(
        "def bert_mask(ids, special_ids, mask_id, vocab_size, p, generator):\n"
        "    raise ValueError('[red]boom[/red]')\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(
        own_code, "ready", lambda folder, home=None: [own_code.Source(own_code.MINE, "bert_mask", bad)]
    )
    app = TutorApp(lang="en", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        figure._refresh_own()
        figure.query_one("#tl-own-source").set_options(figure._own_options("en"))
        figure.query_one("#tl-own-source").value = "mine:bert_mask"
        figure.query_one("#tl-steps").value = "2"
        figure.action_start()
        await _until(lambda: figure.result is not None and not figure.training)
        await pilot.pause()
        assert figure.status_key == "tl-own-failed"
        table = text_of(figure.query_one("#tl-table"))
        assert "ValueError: [red]boom[/red]" in table  # the learner's words, not markup
        assert "your bert_mask failed (at step 1)" in table
        assert set(figure.result["objectives"]) == {"clm", "mlm"}  # the reference rows stay


@pytest.mark.slow
async def test_a_file_changed_since_its_check_is_not_trained(capsys):
    folder = _passing_lab()
    capsys.readouterr()
    app = TutorApp(lang="zh", still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        figure.query_one("#tl-own-source").value = "mine:bert_mask"
        path = folder / BY_ID["bert_mask"].file_name
        path.write_text(path.read_text(encoding="utf-8") + "\n# 改过\n", encoding="utf-8")
        figure.action_start()
        await pilot.pause()
        assert not figure.training and figure.status_key == "tl-own-not-passing"
        assert "重新检查" in text_of(figure.query_one("#tl-status"))


# -- snapshot: a made-up run with its own-code rows (the same on every CPU) ---------------


def _made_up_result() -> dict:
    from exercises.text import L

    def row(continue_, fill, loss, seconds):
        return {
            "continue": continue_,
            "fill": fill,
            "final_loss": loss,
            "seconds": seconds,
            "continue_method": "next-token",
            "fill_method": "left-context",
        }

    clm = {**row(1.0, 0.12, 0.82, 9.1), "fill_scored": 1.0, "fill_scored_passes": 8}
    mlm = {**row(0.0, 1.0, 0.9, 9.4), "continue_method": "mask-appended", "fill_method": "mask"}

    def own(source, label, status, continue_, fill, loss, error=None, step=None):
        return {
            "source": source,
            "task": "bert_mask",
            "objective": "mlm",
            "label": label,
            "status": status,
            "error": error,
            "failed_step": step,
            "continue": continue_,
            "fill": fill,
            "final_loss": loss,
            "seconds": 9.8,
        }

    return {
        "objectives": {"clm": clm, "mlm": mlm},
        "own": [
            own("mine", L("your bert_mask", "你的 bert_mask"), "done", 0.0, 1.0, 0.91),
            own(
                "mask_never_applied",
                L("bug: [MASK] never written", "错误：从不写入 [MASK]"),
                "done",
                0.0,
                0.13,
                0.35,
            ),
            own(
                "mine",
                L("your bert_mask", "你的 bert_mask"),
                "failed",
                None,
                None,
                None,
                L(
                    "input_ids has shape (32, 31), the batch needs (32, 32)",
                    "input_ids 的形状是 (32, 31)，批次需要 (32, 32)",
                ),
                1,
            ),
        ],
        "baselines": {
            "continue": {"chance": 0.25, "majority": 0.27},
            "fill": {"chance": 0.125, "majority": 0.11},
            "loss": {"untrained": 4.41},
        },
        "settings": {"corpus": "zh", "steps": 500, "seed": 0},
        "vocab_size": 82,
        "test_examples": 300,
    }


async def _show_made_up_run(pilot) -> None:
    figure = await _open_lab(pilot.app, pilot)
    figure.result = _made_up_result()
    figure.attention = {}  # no attention view: the table is the picture
    figure._draw_table()
    figure.focus()
    figure.query_one("#tl-table").scroll_visible(top=True, animate=False)
    await pilot.pause()
    await pilot.pause()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
def test_own_code_rows_snapshot(snap_compare, lang):
    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_show_made_up_run)
