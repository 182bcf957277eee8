"""The one error type the engine raises for bad input, and its sentences.

An error carries a stable ``code`` and its parameters. Each code's sentence lives
here once, in English and Chinese (plain tuples: the engine imports nothing of
exercises/ or tui/): ``str()`` of the error is the English one with the parameters
filled in, and the user interface asks ``said(lang)`` for the learner's language
(tui/i18n.py's ``error_text``). tests/test_i18n_errors.py checks that every code
raised in engine/ is here, in both languages, with the parameters its sentence names.
"""

from __future__ import annotations

# code -> (English, Chinese); ``{name}`` fields are the error's parameters.
SENTENCES: dict[str, tuple[str, str]] = {
    "sequence-too-short": (
        "the text is too short: at least {need} tokens are needed, got {n}",
        "序列太短：至少需要 {need} 个 token，实际只有 {n} 个",
    ),
    "length-too-small": (
        "a mask needs at least 1 position, got n={n}",
        "掩码至少需要 1 个位置，收到 n={n}",
    ),
    "p-out-of-range": (
        "the selection probability p must be in [0, 1], got {p}",
        "选择概率 p 必须在 [0, 1] 之间，收到 {p}",
    ),
    "bad-split": (
        "the mask/random/keep split must be three numbers in [0, 1] adding up to 1, got {split}",
        "mask/random/keep 三个比例必须都在 [0, 1] 之间且相加为 1，收到 {split}",
    ),
    "prefix-out-of-range": (
        "the prefix length {prefix} must be between 0 and {n}",
        "前缀长度 {prefix} 必须在 0 到 {n} 之间",
    ),
    "span-out-of-range": (
        "span {start}:{end} is empty or outside the sequence of {n} tokens (need 0 <= start < end <= {n})",
        "片段 {start}:{end} 为空或超出了 {n} 个 token 的序列（需要 0 <= 起点 < 终点 <= {n}）",
    ),
    "window-out-of-range": (
        "the window length must be between {low} and {high}, got {window}",
        "窗口长度必须在 {low} 到 {high} 之间，收到 {window}",
    ),
    "corpus-too-long": (
        "the documents hold {n} tokens with their separators; at most {limit} are packed",
        "这些文档连同分隔符共 {n} 个 token；最多打包 {limit} 个",
    ),
    "vocab-out-of-range": (
        "the vocabulary size must be in [0, 100000], got {size}",
        "词表大小必须在 [0, 100000] 之间，收到 {size}",
    ),
    "text-too-long": (
        "the text has {n} characters; at most {limit} are read",
        "文本有 {n} 个字符；最多读取 {limit} 个",
    ),
    "spans-overlap": (
        "spans {first} and {second} overlap",
        "片段 {first} 与 {second} 重叠",
    ),
    "too-many-spans": (
        "{spans} spans need {need} sentinels, but there are only {sentinels}",
        "{spans} 个片段需要 {need} 个哨兵，但只有 {sentinels} 个",
    ),
    "density-out-of-range": (
        "the noise density must be in [0, 1], got {density}",
        "噪声比例必须在 [0, 1] 之间，收到 {density}",
    ),
    "mean-span-out-of-range": (
        "the mean span length must be positive, got {mean}",
        "平均片段长度必须为正数，收到 {mean}",
    ),
    "position-out-of-range": (
        "position {position} is outside the text of {n} tokens (positions count from 0)",
        "位置 {position} 超出了 {n} 个 token 的范围（位置从 0 开始计数）",
    ),
    "special-selected": (
        "position {position} is the special token {token}, which masking never selects",
        "位置 {position} 是特殊符号 {token}，掩码从不选中它",
    ),
    "unknown-fate": (
        "unknown fate {fate!r}: use mask, random or keep",
        "未知的处理方式 {fate!r}：请用 mask、random 或 keep",
    ),
    "size-too-small": (
        "{name} must be at least {low}, got {value}",
        "{name} 至少为 {low}，收到 {value}",
    ),
    "unknown-mask-kind": (
        "unknown mask kind {kind!r}: use causal, bidirectional or prefix",
        "未知的掩码类型 {kind!r}：请用 causal、bidirectional 或 prefix",
    ),
    "no-spans": (
        "give at least one span to hide",
        "请至少给出一个要遮盖的片段",
    ),
    "bad-shape": (
        "the token ids have the wrong shape: (length,) or (batch, length)",
        "token ids 的形状不对：应为 (length,) 或 (batch, length)",
    ),
    "shape-mismatch": (
        "two inputs that belong together have different shapes",
        "两个应当对应的输入形状不一致",
    ),
    "bad-vocab-size": (
        "the vocabulary needs at least 1 token",
        "词表至少需要 1 个 token",
    ),
    "bad-prefix": (
        "the prefix length must be a whole number (or one per row)",
        "前缀长度必须是整数（或每行一个）",
    ),
    "bad-attention-mask": (
        "the attention mask must have shape (batch, length)",
        "注意力掩码的形状必须是 (batch, length)",
    ),
    "no-replacement": (
        "the vocabulary has no ordinary token to use as a random replacement",
        "词表里没有可用作随机替换的普通 token",
    ),
    "fates-without-positions": (
        "fates can only be given together with positions",
        "只有同时给出位置时才能指定处理方式",
    ),
    "fates-count": (
        "give one fate per selected position",
        "每个选中的位置需要恰好一个命运",
    ),
    "unknown-corpus": (
        "unknown corpus {corpus!r}; use zh, en or arith",
        "未知语料 {corpus!r}；请用 zh、en 或 arith",
    ),
    "no-objectives": (
        "name at least one objective: clm, mlm, prefix or span",
        "请至少指定一个目标：clm、mlm、prefix 或 span",
    ),
    "unknown-objective": (
        "unknown objective {objective!r}; use clm, mlm, prefix or span",
        "未知目标 {objective!r}；请用 clm、mlm、prefix 或 span",
    ),
    "repeated-objective": (
        "each objective can be named only once",
        "每个目标只能写一次",
    ),
    "steps-out-of-range": (
        "steps must be between 1 and 100000, got {steps}",
        "步数必须在 1 到 100000 之间，收到 {steps}",
    ),
    "seed-out-of-range": (
        "the seed must be a whole number from 0 to 4294967295",
        "种子必须是 0 到 4294967295 之间的整数",
    ),
    "threads-out-of-range": (
        "threads must be between 1 and 64",
        "线程数必须在 1 到 64 之间",
    ),
    "bad-schedule": (
        "unknown learning-rate schedule; use constant or cosine",
        "未知的学习率计划；请用 constant 或 cosine",
    ),
    "one-blank": (
        "mark exactly one blank with _ or [MASK]",
        "请用 _ 或 [MASK] 标出恰好一个空",
    ),
    "empty-text": (
        "the text is empty",
        "文本是空的",
    ),
    "blank-first": (
        "a next-token predictor needs at least one token before the blank",
        "“预测下一个”的模型需要空位前至少有一个 token",
    ),
}


class InvalidInput(ValueError):
    """Input the engine cannot work with; ``str()`` is its one-line English sentence.

    A ``ValueError``, so plain Python callers catch it as usual."""

    def __init__(self, code: str, **params: object) -> None:
        if code not in SENTENCES:
            raise KeyError(f"engine/errors.py has no sentence for the error code {code!r}")
        self.code, self.params = code, params
        super().__init__(self.said("en"))

    def said(self, lang: str) -> str:
        """The sentence in ``lang`` (zh or en), its parameters filled in."""
        en, zh = SENTENCES[self.code]
        return (zh if lang == "zh" else en).format(**self.params)
