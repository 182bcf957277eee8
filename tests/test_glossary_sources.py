"""The glossary names a term and links to the lesson that states its rules (issue 32:
the 前缀 entry once said the prefix takes no part in prediction, while the lesson and its
question teach that the last prefix position carries the first label)."""

from exercises.glossary import BY_ID, TERMS, meaning_text


def test_the_prefix_entry_links_to_the_prefix_lm_lesson_and_does_not_restate_the_loss():
    term = BY_ID["prefix"]
    assert term.lesson == "prefix-lm"
    for lang, phrases in (("zh", ("不参与预测", "计入损失")), ("en", ("not predicted", "enter the loss"))):
        text = meaning_text(term, lang)
        assert not any(phrase in text for phrase in phrases)
    assert "前缀语言模型" in meaning_text(term, "zh") and '"Prefix LM"' in meaning_text(term, "en")


def test_every_linked_lesson_exists():
    from exercises.curriculum import BY_ID as LESSONS

    assert all(term.lesson in LESSONS for term in TERMS if term.lesson is not None)
