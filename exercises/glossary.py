"""The course's words, once, in both languages: what each term means here.

Read by the app's glossary screen and its command palette (torch-free)."""

from __future__ import annotations

from dataclasses import dataclass

from exercises.text import Bilingual, L, fmt, pick


@dataclass(frozen=True)
class Term:
    id: str
    name: Bilingual
    meaning: Bilingual
    # The lesson that states the term's rules: the entry says what the word names and
    # links there, instead of restating the lesson (a second copy would drift; issue 32).
    lesson: str | None = None


SEE_LESSON = L(" See {where}.", "详见{where}。")


def meaning_text(term: Term, lang: str) -> str:
    """The entry as a reader sees it: its meaning, then the lesson that states its rules."""
    from exercises.facts import lesson_reference

    if term.lesson is None:
        return pick(term.meaning, lang)
    where = lesson_reference(term.lesson, lang)
    return pick(term.meaning, lang) + pick(fmt(SEE_LESSON, where=where), lang)


TERMS: tuple[Term, ...] = (
    Term(
        "self-supervision",
        L("Self-supervision", "自监督"),
        L(
            "Training signals made from the raw text itself: hide or shift part of it and ask the model for what was there. No human labels.",
            "训练信号直接取自原始文本：藏起或错开一部分，让模型说出原来是什么。不需要人工标注。",
        ),
    ),
    Term(
        "clm",
        L("CLM (causal language modelling)", "CLM（因果语言建模）"),
        L(
            "Predict token t+1 from tokens 0..t. GPT's objective; every position is trained, each seeing only its left.",
            "根据位置 0..t 上的 token 预测位置 t+1 上的那个。GPT 的目标；每个位置都参与训练，且只能看到左边。",
        ),
    ),
    Term(
        "mlm",
        L("MLM (masked language modelling)", "MLM（掩码语言建模）"),
        L(
            "Select some of the ordinary tokens, corrupt them by BERT's 80/10/10 rule ([MASK], a random token, unchanged) and predict the originals, seeing both sides. BERT's objective.",
            "在普通 token 中选出一部分，按 BERT 的 80/10/10 规则加以破坏（换成 [MASK]、换成随机词、保持不变），再借助左右两侧预测原词。BERT 的目标。",
        ),
    ),
    Term(  # issue 24
        "subword",
        L("Subword / WordPiece (##)", "子词 / WordPiece（##）"),
        L(
            "BERT's tokenizer keeps a fixed vocabulary: frequent words are one entry, rarer words are cut into pieces, and a piece that continues a word is written ##piece. Chinese BERT reads one character per token.",
            "BERT 的分词器有固定的词表：常见词是一项，少见的词被切成几片，接着前一片的那一片写作 ##片。中文 BERT 一个字一个 token。",
        ),
    ),
    Term(  # issue 24
        "whole-word-masking",
        L("Whole-word masking (wwm)", "整词掩码（wwm）"),
        L(
            "Masking that selects words, not pieces: every piece of a selected word is hidden together (for Chinese, every character of a word a segmenter found). Each piece keeps its own label and its own 80/10/10 fate.",
            "按词而不是按片选的掩码：被选中的词的所有片一起遮住（中文则是分词器切出的词里的每个字）。每一片仍有自己的标签，也各自按 80/10/10 处理。",
        ),
    ),
    Term(  # issue 24
        "packing",
        L("Packing (training windows)", "打包（训练窗口）"),
        L(
            "Documents, each followed by an end-of-document token (</s>), concatenated and cut into windows of L tokens: a document may run across windows, and the causal-LM labels shift inside each window, across document boundaries too.",
            "把文档各自接上文档结束符（</s>）后首尾相连，再切成每段 L 个 token 的窗口：一篇文档可以跨越窗口，因果语言建模的标签在每个窗口内错一位，跨过文档边界也一样。",
        ),
    ),
    Term(
        "ignore-index",
        L("-100 / ignore_index", "-100 / ignore_index"),
        L(
            "The label that means 'no loss here'. PyTorch's cross-entropy skips every position whose label is -100, so only selected (MLM) or real next-token (CLM) positions count.",
            "表示“这里不计损失”的标签。PyTorch 的交叉熵会跳过标签为 -100 的位置，于是只有被选中的（MLM）或真有下一个词的（CLM）位置计入损失。",
        ),
    ),
    Term(
        "sentinel",
        L("Sentinel (<extra_id_0> …)", "哨兵（<extra_id_0> …）"),
        L(
            "In T5's span corruption, each removed span is replaced by one sentinel in the input; the target lists each sentinel followed by the span it stands for.",
            "T5 的片段破坏中，输入里每个被删掉的片段换成一个哨兵；目标序列依次写出每个哨兵和它代表的片段。",
        ),
    ),
    Term(
        "span-corruption",
        L("Span corruption", "片段破坏"),
        L(
            'T5\'s objective: replace runs of consecutive tokens (about 15 % of the tokens, mean length 3) by one sentinel each, and train an encoder-decoder to write each sentinel followed by the run it hides. (T5 calls removing tokens with no sentinel a different objective, "drop".)',
            "T5 的目标：把若干段连续的 token（约占 15%，平均长度 3）各换成一个哨兵，训练编码器-解码器写出每个哨兵和它藏起的那段。（不留哨兵、直接删掉 token，在 T5 里是另一个叫“drop”的目标。）",
        ),
    ),
    Term(
        "prefix",
        L("Prefix (prefix LM)", "前缀（前缀语言模型）"),
        L(
            "In a prefix LM, the first part of the sequence: every position may read all of it, in both directions; the text after it is continued causally. Which positions carry labels, the last prefix position included, is the lesson's.",
            "前缀语言模型里序列开头的一段：每个位置都能双向地读到它的全部；它后面的文本按因果方式续写。哪些位置带标签（包括前缀的最后一个位置），以讲解为准。",
        ),
        lesson="prefix-lm",
    ),
    Term(
        "visibility",
        L("Visibility (attention mask)", "可见性（注意力掩码）"),
        L(
            "Which positions a position may look at. In this course a mask cell is 1 (True) when blocked, 0 when it may look, as in the boolean attn_mask and key_padding_mask of PyTorch's nn.MultiheadAttention and nn.Transformer. The boolean attn_mask of F.scaled_dot_product_attention is the opposite (True = may attend), and so is Hugging Face's attention_mask (1 = attend, 0 = padding).",
            "一个位置能看到哪些位置。本课程中掩码格子为 1（True）表示被遮盖，0 表示可以看，和 PyTorch 的 nn.MultiheadAttention、nn.Transformer 的布尔 attn_mask 与 key_padding_mask 一样。F.scaled_dot_product_attention 的布尔 attn_mask 正好相反（True 表示可以看），Hugging Face 的 attention_mask 也相反（1 表示可以看，0 表示填充）。",
        ),
    ),
    Term(
        "causal-mask",
        L("Causal mask", "因果掩码"),
        L(
            "Row q may look at columns k <= q: everything to the right is blocked.",
            "第 q 行只能看 k <= q 的列：右边全部被遮盖。",
        ),
    ),
    Term(
        "bidirectional-mask",
        L("Bidirectional mask", "双向掩码"),
        L(
            "Every position sees every position (all zeros): the encoder's mask, and MLM's.",
            "每个位置都能看到所有位置（全为 0）：编码器和 MLM 用的掩码。",
        ),
    ),
    Term(
        "prefix-mask",
        L("Prefix-LM mask", "前缀语言模型掩码"),
        L(
            "Row q sees column k when k <= q or k is inside the prefix: bidirectional over the prefix, causal after it.",
            "当 k <= q 或 k 在前缀内时，第 q 行能看到第 k 列：前缀内双向，之后因果。",
        ),
    ),
    Term(
        "perplexity",
        L("Perplexity", "困惑度"),
        L(
            "exp(mean cross-entropy). A model guessing uniformly over V tokens has loss ln V and perplexity V; lower is better.",
            "exp(平均交叉熵)。在 V 个 token 上均匀乱猜的模型损失为 ln V、困惑度为 V；越低越好。",
        ),
    ),
)

BY_ID = {term.id: term for term in TERMS}
