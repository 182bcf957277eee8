from hypothesis import given
from hypothesis import strategies as st

from engine.tokens import BASE_SPECIALS, Vocab, is_special, sentinel, split_text


def test_whitespace_text_splits_into_words_like_the_lesson():
    text = "transformer models learn patterns from large text corpora"
    assert split_text(text) == text.split()


def test_chinese_without_spaces_splits_per_character_with_full_width_punctuation():
    assert split_text("今天天气很好，我们去公园。") == list("今天天气很好，我们去公园。")


def test_latin_runs_inside_chinese_stay_whole():
    assert split_text("我用PyTorch训练GPT模型") == ["我", "用", "PyTorch", "训", "练", "GPT", "模", "型"]


def test_chinese_with_spaces_keeps_its_words():
    assert split_text("我 喜欢 深度 学习") == ["我", "喜欢", "深度", "学习"]
    assert split_text("今天\u3000天气") == ["今天", "天气"]  # the ideographic space is a space


def test_specials_are_tokens_of_their_own_anywhere():
    assert split_text("[CLS]今天很好[SEP]") == ["[CLS]", "今", "天", "很", "好", "[SEP]"]
    assert split_text("a [MASK] c <extra_id_0>") == ["a", "[MASK]", "c", "<extra_id_0>"]


def test_vocab_puts_the_lessons_specials_first_then_text_then_sentinels():
    vocab = Vocab.from_tokens(["b", "a", "b"], n_sentinels=2)
    assert vocab.tokens[:5] == list(BASE_SPECIALS)
    assert vocab.encode(["b", "a", "zzz"]) == [5, 6, 1]  # unknown -> [UNK]
    assert vocab.mask_id == 4 and vocab.pad_id == 0
    assert vocab.sentinel_ids() == [7, 8]
    assert vocab.decode([7, 8]) == [sentinel(0), sentinel(1)]
    assert set(vocab.special_ids()) == {0, 1, 2, 3, 4, 7, 8}
    assert all(is_special(token) for token in vocab.decode(vocab.special_ids()))


@given(st.text())
def test_split_never_raises_and_yields_no_empty_or_space_tokens(text):
    tokens = split_text(text)
    assert all(token and not any(c.isspace() for c in token) for token in tokens)
    vocab = Vocab.from_tokens(tokens, n_sentinels=1)
    assert vocab.decode(vocab.encode(tokens)) == tokens
