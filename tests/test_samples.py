import pytest

from engine import samples
from engine.errors import InvalidInput

LESSON = "transformer models learn patterns from large text corpora"


def test_clm_sample_is_the_lessons_shift():
    sample = samples.clm_sample(LESSON)
    assert sample.inputs == LESSON.split()[:-1]
    assert sample.labels == LESSON.split()[1:]
    assert len(sample.mask) == 7 and sample.mask[0][1] == 1 and sample.mask[6][0] == 0


def test_clm_sample_loss_side_layout_is_hugging_faces():
    """Seed 000 and HF: all n tokens in, labels = input_ids, logits[:, :-1] meet labels[:, 1:]."""
    tokens = LESSON.split()
    sample = samples.clm_sample(LESSON)
    assert sample.loss_side_inputs == tokens and sample.loss_side_labels == tokens
    assert sample.loss_pairs == [[t, t + 1] for t in range(7)]
    # Both layouts ask each position for the same next token.
    assert [sample.loss_side_labels[label] for _, label in sample.loss_pairs] == sample.labels


def test_both_clm_layouts_give_the_same_loss():
    import torch

    from engine.clm import causal_lm_loss, loss_side_loss, shift_for_next_token

    generator = torch.Generator().manual_seed(3)
    ids = torch.randint(0, 50, (2, 9), generator=generator)
    logits = torch.randn(2, 9, 50, generator=generator)
    _, labels = shift_for_next_token(ids)
    data_side = causal_lm_loss(logits[:, :-1], labels)
    assert torch.allclose(loss_side_loss(logits, ids.clone()), data_side)
    # Without the shift inside the loss, labels = input_ids would score each position
    # against its own token: a different (copying) objective.
    assert not torch.allclose(causal_lm_loss(logits, ids), data_side)


def test_mlm_sample_with_fixed_positions_and_fates():
    sample = samples.mlm_sample("A B C D E", positions=[1, 4], fates=["mask", "random"], seed=0)
    assert sample.inputs[1] == "[MASK]"
    assert sample.inputs[4] in {"A", "B", "C", "D", "E"}  # a random non-special token
    assert sample.labels == [None, "B", None, None, "E"]
    assert sample.selected == [0, 1, 0, 0, 1]
    assert sample.fates == [None, "mask", None, None, "random"]
    assert sample.counts == {"mask": 1, "random": 1, "keep": 0}


def test_mlm_never_selects_cls_and_sep():
    for seed in range(30):
        sample = samples.mlm_sample("a b c d e f", p=1.0, seed=seed, add_cls_sep=True)
        assert sample.tokens[0] == "[CLS]" and sample.tokens[-1] == "[SEP]"
        assert sample.selected[0] == 0 and sample.selected[-1] == 0
        assert sample.selected[1:-1] == [1] * 6
        assert sample.eligible == [0, 1, 1, 1, 1, 1, 1, 0]


def test_whole_word_masking_of_chinese_words():
    pieces, words = samples.pieces_with_words("我 喜欢 深度 学习")
    assert pieces == ["我", "喜", "欢", "深", "度", "学", "习"]
    assert words == [0, 1, 1, 2, 2, 3, 3]
    for seed in range(30):
        sample = samples.mlm_sample("我 喜欢 深度 学习", p=0.5, seed=seed, whole_word=True)
        picked = sample.selected
        assert picked[1] == picked[2] and picked[3] == picked[4] and picked[5] == picked[6]


def test_mlm_sample_refuses_special_and_out_of_range_positions():
    with pytest.raises(InvalidInput) as error:
        samples.mlm_sample("a b c", positions=[3])
    assert error.value.code == "position-out-of-range"
    with pytest.raises(InvalidInput) as error:
        samples.mlm_sample("[CLS] a b", positions=[0])
    assert error.value.code == "special-selected"
    with pytest.raises(InvalidInput):
        samples.mlm_sample("a b c", positions=[0], fates=["mask", "keep"])
    with pytest.raises(InvalidInput):
        samples.mlm_sample("a b c", positions=[0], fates=["hide"])


def test_span_sample_explicit_is_t5s_and_random_is_seeded():
    sample = samples.span_sample(LESSON, spans=[(2, 5)])
    assert sample.inputs == ["transformer", "models", "<extra_id_0>", "large", "text", "corpora", "</s>"]
    assert sample.targets == ["<extra_id_0>", "learn", "patterns", "from", "<extra_id_1>", "</s>"]
    assert sample.closed
    end = samples.span_sample(LESSON, spans=[(5, 8)])
    assert end.inputs == ["transformer", "models", "learn", "patterns", "from", "<extra_id_0>", "</s>"]
    assert end.targets == ["<extra_id_0>", "large", "text", "corpora", "</s>"]
    assert not end.closed
    touching = samples.span_sample(LESSON, spans=[(2, 3), (3, 4)])
    assert touching.spans == [[2, 4]]
    assert touching.targets == ["<extra_id_0>", "learn", "patterns", "<extra_id_1>", "</s>"]
    # Seeded: seed 4 computed afresh (not the memo's copy) is the same, and the seed is used
    # (the lesson's 8 tokens have one place for their one span; 40 tokens have many).
    longer = " ".join(f"w{index}" for index in range(40))
    first = samples.span_sample(longer, seed=4)
    samples._random_corruption.cache_clear()
    assert samples.span_sample(longer, seed=4) == first
    assert len({str(samples.span_sample(longer, seed=seed).spans) for seed in range(8)}) > 1
    chinese = samples.span_sample("今天天气很好我们去公园", density=0.3, mean_span=2, seed=1)
    assert sum(end - start for start, end in chinese.spans) == 3


def test_the_lessons_settings_give_a_short_sentence_one_final_span():
    """0.15 x 8 = 1.2 -> 1 noise token, max(round(1 / 3), 1) = 1 span; T5 ends on noise."""
    for seed in range(20):
        sample = samples.span_sample(LESSON, seed=seed)
        assert (sample.noise_tokens, sample.span_count) == (1, 1)
        assert sample.spans == [[7, 8]]
        assert sample.targets == ["<extra_id_0>", "corpora", "</s>"]


def test_prefix_sample_takes_loss_only_after_the_prefix():
    sample = samples.prefix_sample("a b c d e", prefix=2)
    assert sample.inputs == ["a", "b", "c", "d"]
    assert sample.labels == [None, "c", "d", "e"]
    assert sample.mask[0] == [0, 0, 1, 1]
    with pytest.raises(InvalidInput):
        samples.prefix_sample("a b c", prefix=3)
