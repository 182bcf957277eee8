"""How a learner reads a training-lab run: the names of the models and tasks,
the table with its baselines, the rules of the toy language, and what each
cell means. Shared by the command line and the app (torch-free)."""

from __future__ import annotations

from exercises.text import Bilingual, L, pick

OBJECTIVE_NAMES: dict[str, Bilingual] = {
    "clm": L("causal LM (GPT)", "因果 LM（GPT）"),
    "mlm": L("masked LM (BERT)", "掩码 LM（BERT）"),
    "prefix": L("prefix LM", "前缀 LM"),
    "span": L("span corruption (T5)", "片段破坏（T5）"),
}

TASK_NAMES: dict[str, Bilingual] = {
    "continue": L("continue", "续写"),
    "fill": L("fill the middle", "填中间"),
    "fill_scored": L("fill, scoring each sentence", "填空·逐句打分"),
}

METHODS: dict[str, Bilingual] = {
    "next-token": L("reads the text and predicts the next token", "读前文，预测下一个 token"),
    "mask-appended": L(
        "given the text with one [MASK] appended: it was never trained to predict at the end",
        "在文本末尾补一个 [MASK] 让它猜：它从没练过在末尾预测",
    ),
    "sentinel": L("the missing part is hidden behind a sentinel", "缺的部分用哨兵符遮住"),
    "mask": L("the blank is a [MASK]; it reads both sides", "空位换成 [MASK]，两侧都能看"),
    "left-context": L(
        "only the text left of the blank: the words after it are invisible to a next-token predictor",
        "只看空位左边：空位右边的词对“预测下一个”的模型不可见",
    ),
}

SHORT_NAMES: dict[str, Bilingual] = {  # the form's tick boxes
    "clm": L("causal", "因果"),
    "mlm": L("masked", "掩码"),
    "prefix": L("prefix", "前缀"),
    "span": L("T5 spans", "T5 片段"),
}

# The sentence the attention view opens on: the fill-the-middle rule of each language,
# with the blank where the test sentences have it (the last counted thing).
EXAMPLES: dict[str, str] = {
    "zh": "因为小明昨天买了两杯茶和三_书，所以大家很高兴。",
    "en": "because tom bought two bowls of rice and three _ of tea yesterday, so everyone smiled.",
    "arith": "3+_=7;",
}


def rules_text(corpus: str, lang: str) -> str:
    """The rules of a toy language, for the learner to read before predicting."""
    from engine import toy_corpus  # torch-free module

    language = toy_corpus.grammar(corpus)
    if corpus == "arith":
        return pick(
            L(
                "Sentences are a+b=c; with one-digit a and b. Continue: what follows '=' "
                "is decided on the left (a and b). Fill: the blank in a+_=c; needs a (left) and c (right).",
                "句子形如 a+b=c;，a、b 是一位数。续写：'=' 后面是什么由左边（a 和 b）决定。"
                "填空：a+_=c; 的空要同时看左边的 a 和右边的 c。",
            ),
            lang,
        )
    sep = language.joiner
    pairs = ", ".join(f"{a} … {b}" for a, b in language.pairs)
    measures = "; ".join(f"{m} ← {'/'.join(nouns)}" for m, nouns in language.measures)
    # Chinese punctuation in the Chinese text (full-width, 因为……所以), whichever the toy language
    gap, sep_nouns = ("……", "、") if corpus == "zh" else (" … ", "/")
    zh_pairs = "；".join(f"{a}{gap}{b}" for a, b in language.pairs)
    zh_measures = "；".join(f"{m} ← {sep_nouns.join(nouns)}" for m, nouns in language.measures)
    example = sep.join(toy_corpus.sentences(corpus, 1, 0)[0].tokens)
    return pick(
        L(
            f"Example: {example}\n"
            f"Continue (decided on the LEFT): the connective at the start decides the word after the comma: {pairs}.\n"
            f"Fill the middle (decided on the RIGHT): the noun after the measure word decides it: {measures}.",
            f"例句：{example}\n"
            f"续写（由左边决定）：句首的关联词决定逗号后的词：{zh_pairs}。\n"
            f"填中间（由右边决定）：量词由它后面的名词决定：{zh_measures}。",
        ),
        lang,
    )


def cell(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def table_rows(result: dict, lang: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the run's table: one row per model, then the baselines."""
    header = [
        pick(L("model", "模型"), lang),
        pick(TASK_NAMES["continue"], lang),
        pick(TASK_NAMES["fill"], lang),
        pick(TASK_NAMES["fill_scored"], lang),
        pick(L("final loss", "最终损失"), lang),
        pick(L("seconds", "秒"), lang),
    ]
    rows = []
    for name, entry in result["objectives"].items():
        rows.append(
            [
                pick(OBJECTIVE_NAMES[name], lang),
                cell(entry.get("continue")),
                cell(entry.get("fill")),
                cell(entry.get("fill_scored")),
                cell(entry.get("final_loss")),
                f"{entry['seconds']:.1f}",
            ]
        )
    base = result["baselines"]
    rows.append(
        [
            pick(L("chance (uniform)", "随机猜（均匀）"), lang),
            cell(base["continue"]["chance"]),
            cell(base["fill"]["chance"]),
            "",
            cell(base["loss"]["untrained"]),
            "",
        ]
    )
    rows.append(
        [
            pick(L("majority (commonest)", "多数类（总猜最常见）"), lang),
            cell(base["continue"]["majority"]),
            cell(base["fill"]["majority"]),
            "",
            "",
            "",
        ]
    )
    return header, rows


def span_limit(lang: str) -> str:
    """The T5 row's known limit, with the recorded runs' figures (the lesson quotes the same
    placeholders: one source, ``exercises/training/recorded_runs.json``)."""
    from exercises.facts import render

    return render(
        pick(
            L(
                "  a known limit: at {{run:steps}} steps this T5 model fills the middle near chance "
                "({{run:span.fill}} over seeds {{run:seeds}} of the {{run:corpus}}; chance {{run:chance.fill}}). "
                "It learned to find the blank's sentinel in its input, not to read the noun beside it; "
                "its low loss is the last span, always at the input's end. See the lesson.",
                "  已知的局限：训练 {{run:steps}} 步时，这个 T5 模型填中间接近随机猜的水平（{{run:corpus}}，"
                "种子 {{run:seeds}} 为 {{run:span.fill}}；随机猜是 {{run:chance.fill}}）。它学会了在输入里找到"
                "空位的哨兵，却没学会读哨兵旁边的名词；它的损失低，是因为最后一段总在输入末尾，很好猜。详见讲解。",
            ),
            lang,
        ),
        lang,
    )


def notes(result: dict, lang: str) -> list[str]:
    """One line per model on how it was asked, and what the scoring fill cost."""
    lines = []
    for name, entry in result["objectives"].items():
        how = pick(METHODS[entry["continue_method"]], lang)
        fill = pick(METHODS[entry["fill_method"]], lang)
        model = pick(OBJECTIVE_NAMES[name], lang)
        lines.append(
            pick(
                L(f"{model}: continue — {how}; fill — {fill}.", f"{model}：续写——{how}；填空——{fill}。"), lang
            )
        )
        if name == "span":
            lines.append(span_limit(lang))
        if entry.get("fill_scored") is not None:
            passes = entry["fill_scored_passes"]
            lines.append(
                pick(
                    L(
                        f"  scoring: write each of the {passes} measure words into the blank and keep the likeliest "
                        f"sentence — {passes} forward passes per blank instead of 1.",
                        f"  逐句打分：把 {passes} 个量词逐个填进空位，选整句概率最高的——每个空要 {passes} 次前向计算，而不是 1 次。",
                    ),
                    lang,
                )
            )
    loss = result["baselines"]["loss"]["untrained"]
    lines.append(
        pick(
            L(
                f"Untrained loss: ln V = ln {result['vocab_size']} = {loss:.2f} (a uniform guess over the vocabulary).",
                f"未训练时的损失：ln V = ln {result['vocab_size']} = {loss:.2f}（在整个词表上均匀地猜）。",
            ),
            lang,
        )
    )
    return lines
