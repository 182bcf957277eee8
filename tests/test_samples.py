import pytest

from engine import samples
from engine.errors import InvalidInput

LESSON = "transformer models learn patterns from large text corpora"


def test_clm_sample_is_the_lessons_shift():
    sample = samples.clm_sample(LESSON)
    assert sample.inputs == LESSON.split()[:-1]
    assert sample.labels == LESSON.split()[1:]
    assert len(sample.mask) == 7 and sample.mask[0][1] == 1 and sample.mask[6][0] == 0


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


def test_span_sample_explicit_is_the_lessons_and_random_is_seeded():
    sample = samples.span_sample(LESSON, spans=[(2, 5)])
    assert sample.inputs == ["transformer", "models", "<extra_id_0>", "large", "text", "corpora"]
    assert sample.targets == ["<extra_id_0>", "learn", "patterns", "from", "<extra_id_1>"]
    assert samples.span_sample(LESSON, seed=4) == samples.span_sample(LESSON, seed=4)
    chinese = samples.span_sample("今天天气很好我们去公园", density=0.3, mean_span=2, seed=1)
    assert sum(end - start for start, end in chinese.spans) == 3


def test_prefix_sample_takes_loss_only_after_the_prefix():
    sample = samples.prefix_sample("a b c d e", prefix=2)
    assert sample.inputs == ["a", "b", "c", "d"]
    assert sample.labels == [None, "c", "d", "e"]
    assert sample.mask[0] == [0, 0, 1, 1]
    with pytest.raises(InvalidInput):
        samples.prefix_sample("a b c", prefix=3)
