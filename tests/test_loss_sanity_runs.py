"""loss-sanity's recorded runs: the engine's own losses for every variant.

The exercise reads each CLM-demo loss from a file the engine wrote once (a run costs
~4 ms and a quiz makes one per student). These tests rerun the engine and require the
same float to float32 rounding, so a stale or edited file fails here, not in a class's
grades. Not bit for bit: a float32 matmul's last bits depend on the CPU's kernels (AVX2
or AVX-512, the thread count), and the file was written on one machine. What a learner
sees is read from the file, so it is the same on every machine."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.textbook import clm_demo_loss
from exercises.catalogue import get
from exercises.items import loss_sanity
from exercises.items.loss_sanity import RUN_SEEDS, SANE_MARGIN, VOCAB_SIZES, run_loss, verdict

KINDS = ("scaled", "unscaled")
# Another CPU's kernels move a loss by a few float32 ulps (1.9e-6 of 8.2 on an AVX-512
# machine); a stale file, another seed or another formula moves it by far more than this.
SAME_RUN = 1e-5


def the_engines(vocab: int, run: int, scaled: bool):
    return pytest.approx(clm_demo_loss(seed=run, vocab_size=vocab, scaled=scaled), rel=SAME_RUN, abs=0)


def test_the_file_holds_every_run_a_variant_can_ask_for():
    recorded = loss_sanity._recorded_runs()
    assert recorded is not None, "exercises/items/loss_sanity_runs.json is missing or incomplete"
    assert sorted(recorded) == sorted(VOCAB_SIZES)
    assert all(len(recorded[vocab][kind]) == RUN_SEEDS for vocab in VOCAB_SIZES for kind in KINDS)


@settings(max_examples=60, deadline=None)
@given(vocab=st.sampled_from(VOCAB_SIZES), run=st.integers(0, RUN_SEEDS - 1), scaled=st.booleans())
def test_a_recorded_loss_is_the_engines_float(vocab, run, scaled):
    assert run_loss(vocab, run, scaled) == the_engines(vocab, run, scaled)


@pytest.mark.parametrize("vocab", VOCAB_SIZES)
@pytest.mark.parametrize("scaled", [True, False])
@pytest.mark.parametrize("run", [0, RUN_SEEDS - 1])
def test_the_ends_of_each_list_are_the_engines(vocab, scaled, run):
    assert run_loss(vocab, run, scaled) == the_engines(vocab, run, scaled)


def test_every_recorded_run_makes_a_clear_cut_question():
    """Scaled runs are normal, unscaled ones a scaling bug, each far from the line: the
    verdict a variant asks for is never a coin toss (checked on all 10,000, not a sample)."""
    for vocab in VOCAB_SIZES:
        baseline = math.log(vocab)
        for kind in KINDS:
            for run in range(RUN_SEEDS):
                loss = run_loss(vocab, run, kind == "scaled")
                assert verdict(loss, vocab) == ("normal" if kind == "scaled" else "scaling-bug")
                assert abs(loss - baseline - SANE_MARGIN) > 0.5, (vocab, kind, run, loss)


@pytest.mark.parametrize(
    "content",
    [None, "", "{not json", json.dumps({"losses": {"1000": {"scaled": [1.0]}}}), json.dumps([1, 2])],
    ids=["missing", "empty", "not-json", "incomplete", "wrong-shape"],
)
def test_without_a_usable_file_the_engine_runs_and_the_variant_is_the_same(tmp_path, monkeypatch, content):
    expected = get("loss-sanity").generate(123)
    broken = tmp_path / "runs.json"
    if content is not None:
        broken.write_text(content, encoding="utf-8")
    monkeypatch.setattr(loss_sanity, "RUNS_FILE", broken)
    loss_sanity._recorded_runs.cache_clear()
    loss_sanity._generate.cache_clear()
    try:
        assert loss_sanity._recorded_runs() is None
        again = get("loss-sanity").generate(123)
        assert again.data == expected.data and again.prompt == expected.prompt
    finally:
        loss_sanity._recorded_runs.cache_clear()
        loss_sanity._generate.cache_clear()


def test_what_a_learner_sees_is_the_files_number_not_this_cpus(monkeypatch):
    """The prompt's "loss of 9.6401" and the fingerprint a quiz signs are the same on every
    machine: with the file there, no variant asks this CPU's float32 kernels for a loss."""
    import engine.textbook

    def this_cpu(**_):
        raise AssertionError("a variant ran the engine although the file has the run")

    monkeypatch.setattr(engine.textbook, "clm_demo_loss", this_cpu)
    loss_sanity._generate.cache_clear()
    try:
        for seed in range(40):
            data = get("loss-sanity").generate(seed).data
            recorded = loss_sanity._recorded_runs()[data["vocab"]]
            assert data["loss"] == round(
                recorded["scaled" if data["scaled"] else "unscaled"][data["run_seed"]], 4
            )
    finally:
        loss_sanity._generate.cache_clear()
