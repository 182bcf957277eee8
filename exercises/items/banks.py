"""The material variants are drawn from: sentences, letters, replacement words.

Seed 0 of an exercise taken from a lesson uses the lesson's own material; other
seeds draw from these banks with ``random.Random`` seeded by a string, which
gives the same draw on every machine and Python version.
"""

from __future__ import annotations

import random

from engine.tokens import LESSON_SENTENCE  # stated once, in the engine (torch-free module)
from exercises.text import Bilingual

LETTERS = tuple("ABCDEFGHIJKLMNOP")

EN_SENTENCES = (
    LESSON_SENTENCE,
    "the cat sat quietly on the warm mat today",
    "language models predict the next word from context",
    "attention lets every token look at other tokens",
    "we pretrain small models on large text collections",
    "masked tokens are filled in from both sides",
    "a decoder continues text one token at a time",
    "an encoder reads the whole sentence at once",
    "self supervision builds labels from the text itself",
    "summaries need a model that reads then writes",
)

# Words spaced: the tokens are the characters, and a question that shows the first few
# of them ends on a whole word ("[自, 监, 督, 从, 文]" cut 文本 in two: issue 23).
ZH_SENTENCES = (
    "今天 天气 很 好 我们 去 公园 散步",
    "模型 根据 上文 预测 下 一个 词",
    "自监督 从 文本 本身 造出 标签",
    "编码器 一次 读完 整个 句子",
    "解码器 只能 看到 过去 的 内容",
    "我们 用 大量 文本 预训练 模型",
    "填空题 要 看 左右 两边 的 词",
    "续写题 只 看 前面 的 文字",
)
_ZH_WORD_ENDS = {
    sentence.replace(" ", ""): tuple(
        sum(len(word) for word in sentence.split()[: count + 1]) for count in range(len(sentence.split()))
    )
    for sentence in ZH_SENTENCES
}

EN_REPLACEMENTS = ("banana", "river", "purple", "seven", "guitar", "window", "planet", "coffee")
ZH_REPLACEMENTS = ("猫", "山", "雨", "笔", "船", "花", "鱼", "灯")


def rng_for(exercise_id: str, seed: int) -> random.Random:
    """A generator private to one exercise and seed."""
    return random.Random(f"{exercise_id}:{seed}")


def sentence_tokens(rng: random.Random, language: str) -> list[str]:
    """A sentence of the bank as tokens (words, or Chinese characters)."""
    if language == "zh":
        return list(rng.choice(ZH_SENTENCES).replace(" ", ""))
    return rng.choice(EN_SENTENCES).split()


def first_tokens(tokens: list[str], n: int, least: int = 1, most: int | None = None) -> list[str]:
    """About the first ``n`` tokens of a bank sentence, ending on a whole word: a
    Chinese sentence is cut at the last word end at or before ``n``, or the first after
    it, staying within [``least``, ``most``] (the draw's own bounds); exactly ``n``
    when no word end fits them."""
    ends = _ZH_WORD_ENDS.get("".join(tokens))
    allowed = [end for end in ends or () if least <= end <= (most if most is not None else len(tokens))]
    if not allowed:
        return tokens[:n]
    before = [end for end in allowed if end <= n]
    return tokens[: before[-1] if before else allowed[0]]


def shown(tokens: list[str]) -> str:
    """Tokens as a reader expects them: Chinese characters run together, words spaced."""
    from engine.tokens import is_cjk

    if tokens and all(
        len(token) == 1 and is_cjk(token) for token in tokens if not token.startswith(("[", "<"))
    ):
        return "".join(tokens)
    return " ".join(tokens)


# Said in an English prompt whose material is Chinese: the course draws Chinese and English
# sentences alike (its learners are both), so a variant may not be in the learner's language;
# the prompt says so, and how the text is cut. ``exercises --check`` holds every English
# prompt with Chinese characters in it to this.
CHINESE_MATERIAL_NOTE = "This course mixes Chinese and English examples."  # what --check looks for
_HOW_SPLIT = {
    True: "The sentence is Chinese, one token per character, as Chinese BERT splits text.",
    False: "The text holds Chinese words, one token each, as the spaces show.",
}
COPY_NOTE = "Copy the characters as shown, or ask for another variant."


def is_chinese(tokens: list[str]) -> bool:
    """Does the material hold Chinese characters (outside special tokens)?"""
    from engine.tokens import is_cjk

    return any(is_cjk(char) for token in tokens if not token.startswith(("[", "<")) for char in token)


def language_note(prompt: Bilingual, tokens: list[str], typed: bool = False) -> Bilingual:
    """``prompt`` with a note appended to its English side when ``tokens`` are Chinese: how
    the text is cut, that the course mixes both languages, and (``typed``: the answer is
    written in those tokens) how to answer."""
    chinese = [token for token in tokens if is_chinese([token])]
    if not chinese:
        return prompt
    parts = [_HOW_SPLIT[all(len(token) == 1 for token in chinese)], CHINESE_MATERIAL_NOTE]
    if typed:
        parts.append(COPY_NOTE)
    return {**prompt, "en": f"{prompt['en']}\n({' '.join(parts)})"}
