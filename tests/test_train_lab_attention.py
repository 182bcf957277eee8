"""The mask, inside the model: each trained model's attention weights against the mask
it was trained with, on the command line and in the app."""

from __future__ import annotations

import asyncio
import json

import pytest
import torch

from engine import toy_corpus
from engine.train_lab import LabSettings, attention_map, run_lab

# One worker runs this file: its module-scoped set-up is made once (see the Makefile).
pytestmark = pytest.mark.xdist_group("test_train_lab_attention")

SENTENCE = "因为小明昨天买了两杯茶和三_书，所以大家很高兴。"
QUICK = LabSettings(
    objectives=("clm", "mlm", "prefix", "span"), steps=30, train_sentences=300, eval_sentences=20
)


@pytest.fixture(scope="module")
def quick_run():
    return run_lab(QUICK)


def _maps(run, text=SENTENCE):
    tokens = toy_corpus.tokenize("zh", text)
    return {
        name: attention_map(name, trained.model, run.data.vocab, tokens)
        for name, trained in run.models.items()
    }


@pytest.mark.parametrize("text", [SENTENCE, "因为小明昨天买了两杯茶和三本书，所以大家很高兴。", "如果老师"])
@pytest.mark.slow
def test_each_models_weights_are_zero_exactly_where_its_mask_blocks(quick_run, text):
    for view in _maps(quick_run, text).values():
        weights = view.weights  # (layers, heads, L, L)
        blocked = view.mask.expand_as(weights)
        assert torch.all(weights[blocked] == 0)  # softmax of -inf: 0, not small
        assert torch.all(weights[~blocked] > 0)  # every key the mask allows gets some weight
        assert torch.allclose(weights.sum(-1), torch.ones(weights.shape[:-1]), atol=1e-5)


def test_the_causal_model_never_looks_right_the_masked_model_does_the_prefix_model_both_in_its_prefix(
    quick_run,
):
    maps = _maps(quick_run)
    n = len(maps["clm"].tokens)
    above = torch.ones(n, n, dtype=torch.bool).triu(1)
    assert torch.all(maps["clm"].weights[..., above] == 0)
    assert (maps["mlm"].weights[..., above] > 1e-3).any()
    prefix = maps["prefix"].prefix
    assert prefix == SENTENCE.index("_")  # the prefix LM's prefix ends at the blank
    block = maps["prefix"].weights[..., :prefix, :prefix]
    inside = torch.ones(prefix, prefix, dtype=torch.bool)
    assert (block[..., inside.triu(1)] > 0).all() and (block[..., inside.tril(-1)] > 0).all()
    assert torch.all(maps["prefix"].weights[..., prefix:, :][..., above[prefix:]] == 0)  # then causal
    assert maps["clm"].answer_row == SENTENCE.index("_") - 1  # 三 predicts the blank
    assert maps["mlm"].answer_row == SENTENCE.index("_")  # the [MASK] itself


def test_the_span_model_reads_the_blank_behind_a_sentinel_and_answers_from_the_target(quick_run):
    view = _maps(quick_run)["span"]
    assert view.tokens[-2:] == ["</s>", "<extra_id_0>"] and view.answer_row == len(view.tokens) - 1
    assert "<extra_id_0>" in view.tokens[: view.prefix] and "<extra_id_1>" in view.tokens[: view.prefix]
    assert view.mask[: view.prefix, : view.prefix].any().item() is False  # the input reads both ways
    assert view.mask[-1, -1].item() is False and view.mask[view.prefix - 1, -1].item() is True


def test_the_weights_are_what_the_trained_model_computes(quick_run):
    """The written-out attention gives the same logits as PyTorch's fused one."""
    model = quick_run.models["mlm"].model
    ids = torch.tensor([quick_run.data.vocab.encode(toy_corpus.tokenize("zh", SENTENCE))])
    for blocked in (None, "causal", torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool).triu(1)):
        kept: list = []
        with torch.no_grad():
            assert torch.allclose(model(ids, blocked), model(ids, blocked, weights=kept), atol=1e-4)
        assert len(kept) == model.shape.layers


def test_two_blanks_are_refused(quick_run):
    with pytest.raises(ValueError):
        attention_map("mlm", quick_run.models["mlm"].model, quick_run.data.vocab, ["因", "[MASK]", "[MASK]"])


# -- the command line ---------------------------------------------------------------


@pytest.fixture
def saved_quick_run(quick_run):
    from exercises.training.runs import save_run

    save_run(quick_run)


def test_probe_attention_prints_json_per_model(capsys, saved_quick_run):
    from tui.cli import main

    assert main(["probe", "--attention", SENTENCE, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["models"]) == {"clm", "mlm", "prefix", "span"}
    clm = result["models"]["clm"]
    n = len(clm["tokens"])
    assert clm["tokens"][SENTENCE.index("_")] == "[MASK]"
    assert len(clm["attention"]) == n and all(len(row) == n for row in clm["attention"])
    assert clm["mask"] == [[int(key > query) for key in range(n)] for query in range(n)]
    assert all(clm["attention"][q][k] == 0 for q in range(n) for k in range(q + 1, n))
    assert result["models"]["mlm"]["mask"] == [[0] * n for _ in range(n)]
    assert clm["layer"] == 2 and clm["head"] == "mean"
    assert main(["probe", "--attention", SENTENCE, "--json", "--layer", "1", "--head", "3"]) == 0
    one = json.loads(capsys.readouterr().out)["models"]["mlm"]
    assert one["layer"] == 1 and one["head"] == 3


def test_probe_attention_prints_the_weights_beside_the_mask(capsys, saved_quick_run):
    from tui.cli import main

    assert main(["probe", "--attention", SENTENCE, "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert out.count("它训练时用的掩码") == 4 and "因果 LM" in out and "第 2 层" in out
    assert "·" in out  # the causal model's blocked weights are printed as exactly 0


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["probe", "--attention", "因_为_", "--json"], "one blank"),
        (["probe", "--attention", "因为", "--layer", "3"], "2 layers"),
        (["probe", "--attention", "因为", "--head", "9"], "4 heads"),
        (["probe", "因为", "--layer", "1"], "--attention"),
        (["probe", "--attention", "因为", "--layer", "0"], "from 1 to 16"),
    ],
)
def test_probe_attention_refuses_with_one_line(argv, said, capsys, saved_quick_run):
    from tui.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--lang", "en"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "Traceback" not in err


# -- the app ------------------------------------------------------------------------


async def _until(condition, seconds: float = 120.0) -> None:
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
async def test_the_attention_view_follows_the_keys(lang, saved_quick_run):
    from tests.test_app import text_of
    from tests.test_train_lab_app import _open_lab
    from tui.app import TutorApp

    app = TutorApp(lang=lang, still=True)
    async with app.run_test(size=(80, 24)) as pilot:
        figure = await _open_lab(app, pilot)
        await _until(lambda: figure.attention is not None, 60)  # the saved run, on the lesson's sentence
        await pilot.pause()
        assert figure.attn_model == "clm" and figure.attn_row == figure.attention["clm"].answer_row
        figure.focus()
        await pilot.press("p")
        assert figure.query_one("#tl-probe").has_focus  # one key to the probe box, not nine Tabs
        await pilot.press(*"因为小明昨天买了两杯茶和三_书，所以大家很高兴。", "enter")
        await _until(lambda: figure.probe_result is not None, 60)
        await pilot.pause()
        figure.focus()
        blank = SENTENCE.index("_")
        assert figure.attn_row == blank - 1
        await pilot.press("right")  # the masked LM, same row
        assert figure.attn_model == "mlm"
        await pilot.press("down")
        assert figure.attn_row == blank
        read = text_of(figure.query_one("#tl-attn-read"))
        assert (f"row {blank} ([MASK])" if lang == "en" else f"第 {blank} 行（[MASK]）") in read
        assert "▶" in text_of(figure.query_one("#tl-attn"))  # the picked row is marked
        await pilot.press("l")
        assert figure.attn_layer == 0
        await pilot.press("h", "h")
        assert figure.attn_head == 1
        title = text_of(figure.query_one("#tl-attn-title"))
        assert ("layer 1" if lang == "en" else "第 1 层") in title
        assert ("head 2" if lang == "en" else "第 2 个头") in title


# -- snapshots: the view at 80x24, on made-up weights (the same on every CPU) ----------


def _made_up_maps(lang: str) -> dict:
    """Attention maps with weights written by hand from each model's mask: every
    allowed key weighted 1/(1+distance), normalised, so the picture is stable."""
    from engine.masks import causal_mask, prefix_mask
    from engine.train_lab import AttentionMap
    from exercises.training.table import EXAMPLES

    tokens = ["[MASK]" if token == "_" else token for token in toy_corpus.tokenize(lang, EXAMPLES[lang])]
    tokens = [token for token in tokens]
    n = len(tokens)
    blank = tokens.index("[MASK]")
    masks = {
        "clm": (causal_mask(n), blank - 1, None),
        "mlm": (torch.zeros(n, n, dtype=torch.bool), blank, None),
        "prefix": (prefix_mask(n, blank), blank - 1, blank),
    }
    maps = {}
    distance = (torch.arange(n).view(-1, 1) - torch.arange(n).view(1, -1)).abs().float()
    for name, (mask, answer, prefix) in masks.items():
        weights = (1 / (1 + distance)).masked_fill(mask, 0)
        weights = weights / weights.sum(-1, keepdim=True)
        maps[name] = AttentionMap(name, tokens, weights.expand(2, 4, n, n).clone(), mask, answer, prefix)
    return maps


async def _show_made_up_attention(pilot) -> None:
    from tests.pilot import engine_ready
    from tui.figures.train_lab import TrainLabFigure

    app = pilot.app
    await engine_ready(app)
    app.open_lesson("train-lab")
    await pilot.pause()
    await pilot.press("f6")
    await pilot.pause()
    figure = app.screen.query_one(TrainLabFigure)
    maps = _made_up_maps(app.lang)
    figure._probe_done(None, maps, "made up")
    figure.focus()
    for key in ("right", "down"):  # the masked LM, the row of the blank
        await pilot.press(key)
    figure.query_one("#tl-attn-title").scroll_visible(top=True, animate=False)
    await pilot.pause()
    await pilot.pause()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
def test_attention_view_snapshot(snap_compare, lang):
    from tui.app import TutorApp

    app = TutorApp(lang=lang, still=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_show_made_up_attention)
