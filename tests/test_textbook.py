"""The lessons' printed outputs, to the digit."""

import pytest
import torch

from engine import textbook


def test_first_lesson_clm_run():
    run = textbook.clm_run()
    assert run.input_ids.tolist() == [
        [6044, 8239, 4933, 3760, 8963, 8379, 5427, 8503],
        [3497, 5683, 4101, 6866, 2756, 1399, 5878, 376],
    ]
    assert f"{run.loss:.4f}" == "9.6401"
    assert f"{run.baseline:.2f}" == "9.21"
    assert run.loss_unscaled > 20  # the lesson: "二三十" without 1/sqrt(d)
    assert torch.equal(run.causal_mask, torch.triu(torch.ones(8, 8), diagonal=1).bool())
    assert run.counted_positions == 14


def test_first_lesson_clm_with_length_4_follows_the_same_algorithm():
    torch.manual_seed(0)
    ids = torch.randint(0, 10000, (2, 4))
    projection = torch.randn(64, 10000) / 64**0.5
    hidden = torch.randn(2, 4, 64)
    logits = torch.matmul(hidden, projection)
    expected = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, 10000), ids[:, 1:].reshape(-1))
    run = textbook.clm_run(seq_len=4)
    assert torch.equal(run.input_ids, ids)
    # The same draws and formula; not bit for bit (the engine's matmul is laid out otherwise, and
    # float32 kernels round differently by shape and CPU): another draw order moves it by far more.
    assert run.loss == pytest.approx(expected.item(), rel=1e-5, abs=0)


def test_first_lesson_mlm_run():
    run = textbook.mlm_run()
    assert run.original_ids.tolist() == [
        [5204, 2004, 1563, 7715, 4038, 1729, 6142, 8873],
        [3747, 5448, 1846, 2736, 2941, 674, 1908, 2231],
        [546, 5688, 2644, 2328, 4196, 3114, 2756, 7514],
        [3304, 1766, 5969, 7334, 179, 400, 4686, 9647],
    ]
    assert run.selected.int().tolist() == [
        [0, 0, 0, 1, 0, 0, 0, 0],
        [0, 0, 0, 1, 1, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 1, 0, 0, 0, 0, 0, 0],
    ]
    assert run.input_ids.tolist() == [
        [5204, 2004, 1563, 4, 4038, 1729, 6142, 8873],
        [3747, 5448, 1846, 2736, 4, 674, 1908, 2231],
        [546, 5688, 2644, 2328, 4196, 3114, 2756, 7514],
        [3304, 4, 5969, 7334, 179, 400, 4686, 9647],
    ]
    minus = -100
    assert run.labels.tolist() == [
        [minus, minus, minus, 7715, minus, minus, minus, minus],
        [minus, minus, minus, 2736, 2941, minus, minus, minus],
        [minus] * 8,
        [minus, 1766, minus, minus, minus, minus, minus, minus],
    ]
    assert run.counts() == {"mask": 3, "random": 0, "keep": 1}


def _lesson_mlm(seed, batch, seq_len, p):
    """The first lesson's MLM code, transcribed loop for loop, as the reference."""
    torch.manual_seed(seed)
    original = torch.randint(5, 10000, (batch, seq_len))
    candidates = torch.rand(original.shape) < p
    fate_random = torch.rand(original.shape)
    inputs = original.clone()
    labels = torch.full_like(original, -100)
    for i in range(batch):
        for j in range(seq_len):
            if candidates[i, j]:
                fate = fate_random[i, j]
                if fate < 0.8:
                    inputs[i, j] = 4
                elif fate < 0.9:
                    inputs[i, j] = torch.randint(5, 10000, (1,)).item()
                labels[i, j] = original[i, j]
    return original, candidates, inputs, labels


def test_mlm_run_matches_the_lessons_algorithm_for_other_settings():
    for seed, batch, seq_len, p in [(0, 4, 8, 0.3), (1, 16, 32, 0.15), (7, 8, 64, 0.5), (3, 2, 5, 1.0)]:
        original, candidates, inputs, labels = _lesson_mlm(seed, batch, seq_len, p)
        run = textbook.mlm_run(seed=seed, batch=batch, seq_len=seq_len, p=p)
        assert torch.equal(run.original_ids, original)
        assert torch.equal(run.selected, candidates)
        assert torch.equal(run.input_ids, inputs)
        assert torch.equal(run.labels, labels)


def test_visibility_run_lists_what_each_position_sees():
    run = textbook.visibility_run()
    assert run.causal_visible == [list(range(i + 1)) for i in range(6)]
    assert run.full_visible == [list(range(6))] * 6


def test_second_lesson_three_samples():
    run = textbook.three_samples()
    assert run.causal_inputs == ["transformer", "models", "learn", "patterns", "from", "large", "text"]
    assert run.causal_labels == ["models", "learn", "patterns", "from", "large", "text", "corpora"]
    assert run.masked_inputs == [
        "transformer",
        "models",
        "[MASK]",
        "patterns",
        "from",
        "[MASK]",
        "text",
        "corpora",
    ]
    assert run.masked_labels == {2: "learn", 5: "large"}
    assert run.span_inputs == ["transformer", "models", "<extra_id_0>", "large", "text", "corpora"]
    assert run.span_target == ["<extra_id_0>", "learn", "patterns", "from", "<extra_id_1>"]


SEED_002_PRINTS = """\
causal inputs : ['transformer', 'models', 'learn', 'patterns', 'from', 'large', 'text']
causal labels : ['models', 'learn', 'patterns', 'from', 'large', 'text', 'corpora']

masked inputs : ['transformer', 'models', '[MASK]', 'patterns', 'from', '[MASK]', 'text', 'corpora']
masked labels : {2: 'learn', 5: 'large'}

span inputs   : ['transformer', 'models', '<extra_id_0>', 'large', 'text', 'corpora']
span target   : ['<extra_id_0>', 'learn', 'patterns', 'from', '<extra_id_1>']
"""


def test_textbook_three_samples_prints_exactly_what_seed_002_prints(capsys, monkeypatch):
    """The seed's simplified function (always a closing sentinel, no </s>), kept as printed."""
    from tui.cli import main

    monkeypatch.setenv("COLUMNS", "200")
    assert main(["textbook", "three-samples"]) == 0
    assert capsys.readouterr().out == SEED_002_PRINTS


def test_the_seeds_span_function_differs_from_t5_only_where_the_lesson_says():
    from engine.samples import span_sample

    tokens = ["a", "b", "c", "d", "e"]
    assert textbook.lesson_span_corruption(tokens, 3, 5) == (
        ["a", "b", "c", "<extra_id_0>"],
        ["<extra_id_0>", "d", "e", "<extra_id_1>"],
    )
    t5 = span_sample("a b c d e", spans=[(3, 5)])
    assert t5.targets == ["<extra_id_0>", "d", "e", "</s>"]  # no closing sentinel, then EOS


def test_three_samples_on_a_learners_short_chinese_sentence():
    run = textbook.three_samples("我爱学习")
    assert run.causal_inputs == ["我", "爱", "学"]
    assert all(0 <= p < 4 for p in run.mask_positions)
    assert run.span_target[0] == "<extra_id_0>" and run.span_target[-1] == "<extra_id_1>"
