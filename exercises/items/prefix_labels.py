"""prefix-lm-labels: a prefix task as a decoder-only prefix LM, either a labelled
pair (translate, answer, summarise: the pair fixes the prefix) or plain text cut at
a random point (how T5 pretrains a prefix LM on unlabelled text, Section 3.2.3):
write the inputs, the input positions that enter the loss and the label row. The
classic slip is one position late: the last prefix position already predicts the
first token of the continuation."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import (
    HALF,
    LabelComparison,
    grade_label_map,
    grade_position_set,
    grade_token_parts,
    read_tokens_certain,
    same_token,
)
from exercises.items.banks import EN_SENTENCES, language_note, rng_for
from exercises.text import L

ID = "prefix-lm-labels"
STARTS_LATE = "prefix-loss-starts-late"  # the off-by-one this exercise targets

# (prefix, continuation): the prefix is the task and its input, read both ways;
# the continuation is the answer, written left to right.
TASKS = (
    ("translate English to German : good morning", "guten Morgen"),
    ("翻译 成 英文 ： 早上 好", "good morning"),
    ("question : capital of France ? answer :", "Paris is"),
    ("summarize : the meeting moved to Friday afternoon", "meeting on Friday"),
    ("英译中 ： thank you", "谢谢 你"),
    ("translate English to French : thank you very much", "merci beaucoup"),
    ("sentiment : what a lovely film", "very positive"),
    ("问题 ： 一 加 一 等于 几 ？ 答 ：", "等于 二"),
    ("continue the story : once upon a", "time there lived"),
    ("translate Chinese to English : 我 喜欢 猫", "I like cats"),
)


PLAIN_SHARE = 0.4  # of the seeds that ask about plain text cut at random (T5's pretraining)
# Plain texts: the bank's sentences with no word twice (a label is then named by its token alone).
PLAIN_TEXTS = tuple(s.split() for s in EN_SENTENCES if len(set(s.split())) == len(s.split()))


def _draw(seed: int) -> dict:
    """A labelled pair (its own split), or plain text cut at a random point, as T5
    pretrains a prefix LM on unlabelled text (Section 3.2.3; T5's code draws the cut
    uniformly from 1 to N-1: here from 2 to N-2, see ``_fair``)."""
    if seed == 0:  # the lesson's kind of question: a labelled pair
        task = TASKS[0]
    else:
        rng = rng_for(ID, seed)
        if rng.random() < PLAIN_SHARE:
            tokens = list(rng.choice(PLAIN_TEXTS))
            return {"kind": "plain", "tokens": tokens, "prefix": rng.randint(2, len(tokens) - 2)}
        task = TASKS[rng.randrange(len(TASKS))]
    prefix, continuation = (part.split() for part in task)
    return {"kind": "pair", "tokens": [*prefix, *continuation], "prefix": len(prefix)}


def _fair(params: dict) -> bool:
    """A prefix of at least 2 tokens and a continuation of at least 2, so that
    the loss neither starts at 0 nor is a single position."""
    n, prefix = len(params["tokens"]), params["prefix"]
    unique = params.get("kind") != "plain" or len(set(params["tokens"])) == n
    return 2 <= prefix <= n - 2 and unique


@functools.lru_cache(maxsize=1024)
def _generate(seed: int) -> Variant:
    from engine.samples import prefix_sample  # the engine (torch) only where it computes

    params = _draw(seed)
    tokens, prefix = params["tokens"], params["prefix"]
    sample = prefix_sample(" ".join(tokens), prefix)
    loss_positions = [i for i, label in enumerate(sample.labels) if label is not None]
    data = {
        **params,
        "inputs": sample.inputs,
        "loss_positions": loss_positions,
        "labels": {str(i): sample.labels[i] for i in loss_positions},
    }
    listing_text = " ".join(tokens)
    head, tail = " ".join(tokens[:prefix]), " ".join(tokens[prefix:])
    if params.get("kind") == "plain":
        setting = L(
            f"A decoder-only prefix LM is pretrained on plain text, as T5 does: each text is cut at a random point. "
            f"The text [{listing_text}] ({len(tokens)} tokens) was cut after position {prefix - 1}: the prefix is "
            f"[{head}] (read in both directions), the continuation [{tail}].",
            f"一个仅解码器的前缀语言模型在普通文本上预训练，和 T5 一样：每段文本在随机的位置切开。"
            f"文本 [{listing_text}]（{len(tokens)} 个 token）在位置 {prefix - 1} 之后切开：前缀是 [{head}]（双向读取），"
            f"续写是 [{tail}]。",
        )
    else:
        setting = L(
            f"A decoder-only prefix LM learns this pair: the prefix [{head}] (positions 0 to {prefix - 1}, read in "
            f"both directions) and its continuation [{tail}]. The whole sequence is [{listing_text}] "
            f"({len(tokens)} tokens).",
            f"一个仅解码器的前缀语言模型学习这一对：前缀 [{head}]（位置 0 到 {prefix - 1}，双向读取）和它的续写 "
            f"[{tail}]。整个序列是 [{listing_text}]（{len(tokens)} 个 token）。",
        )
    prompt = L(
        f"{setting['en']} Lay it out as the engine does: the inputs are the tokens without the last one, and input "
        "position t is trained to predict token t+1; the loss covers exactly the tokens of the continuation.\n"
        "1. The inputs?\n2. Which input positions enter the loss?\n"
        "3. The label row, one entry per input position, -100 where no loss is taken?",
        f"{setting['zh']}按引擎的方式排列：输入是去掉最后一个 token 的序列，"
        "输入位置 t 学习预测位置 t+1 上的 token；损失恰好覆盖续写部分的 token。\n"
        "1. 输入是什么？\n2. 哪些输入位置参与损失？\n3. 标签行是什么？每个输入位置一项，不计损失的位置写 -100。",
    )
    prompt = language_note(prompt, tokens, typed=True)
    return Variant(ID, seed, data, prompt, question_key_of(params))


class PrefixLabels(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        data = variant.data
        first = data["prefix"] - 1  # the last prefix position already predicts
        return _fair(data) and data["loss_positions"] == list(range(first, len(data["tokens"]) - 1))

    def pool_size(self) -> int:
        plain = sum(len(tokens) - 3 for tokens in PLAIN_TEXTS)  # cuts 2 .. N-2 of each
        return len(TASKS) + plain

    def solve(self, variant: Variant) -> dict[str, str]:
        data = variant.data
        row = [data["labels"].get(str(i), "-100") for i in range(len(data["inputs"]))]
        return {
            "inputs": " ".join(data["inputs"]),
            "loss_positions": ", ".join(map(str, data["loss_positions"])),
            "labels": " ".join(row),
        }

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        data = variant.data
        if part == "inputs":
            tokens, certain = read_tokens_certain(text, data["inputs"], data["tokens"])
            return Parsed(tokens, certain=certain)
        if part == "loss_positions":
            return Parsed(parsing.positions(text, None, n=len(data["inputs"])))
        # a row of every input position is read where it labels the sequence: the next tokens, or the inputs
        found = parsing.labels(text, len(data["inputs"]), (tuple(data["tokens"][1:]), tuple(data["inputs"])))
        whole = None if found is not None else _whole_sequence_row(text, data["tokens"])
        if whole is not None:
            return Parsed(whole, note=LOSS_SIDE_NOTE)
        return Parsed(
            found,
            L(
                f"A label row of {len(data['inputs'])} entries with -100 where no loss is taken "
                "(e.g. -100 -100 b c), or position: token pairs (e.g. 1: b, 2: c).",
                f"一行 {len(data['inputs'])} 项的标签，不计损失处写 -100（如 -100 -100 b c），"
                "或“位置：token”（如 1: b, 2: c）。",
            ),
        )

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        results, codes = grade_token_parts(
            ("inputs",),
            parsed,
            data,
            lambda part, given: ["inputs-keep-last"] if _same(given, data["tokens"]) else [],
            _length_note,
        )
        if "loss_positions" in parsed:
            result, found = _grade_positions(set(parsed["loss_positions"].value), data)
            results["loss_positions"] = result
            codes += found
        if "labels" in parsed:
            result, found = _grade_labels(parsed["labels"].value, data)
            results["labels"] = result
            codes += found
        return results, codes


LOSS_SIDE_NOTE = L(
    "(Read as one entry per token of the whole sequence, the loss-side layout: labels = input_ids, where "
    "the loss pairs input position t with entry t+1. The row asked for has one entry per input position.)",
    "（按整个序列每个 token 一项来读，即损失端的排法：标签 = input_ids，损失把输入位置 t 和第 t+1 项配对。"
    "题目要的标签行是每个输入位置一项。）",
)


def _whole_sequence_row(text: str, tokens: list[str]) -> dict[int, str] | None:
    """A label row with one entry per token of the whole sequence ``tokens`` (the
    loss-side layout, or the labels of every token), as the input positions' labels: entry
    t+1 is what input position t predicts (entry 0 predicts nothing). Read so only where
    the row holds the sequence's own tokens (loss-side labels are input_ids): the right row
    with a stray entry after it ("-100 b c 1") is unreadable, never a layout."""
    row = parsing.label_row(text, len(tokens))
    if row is not None and 2 * sum(same_token(token, tokens[i]) for i, token in row.items()) < len(row):
        row = None  # its labels are not the sequence's tokens at their places: no layout of this sequence
    if row is None:
        row = parsing.full_row(text, len(tokens), (tuple(tokens),))
    return None if row is None else {i - 1: token for i, token in row.items() if i > 0}


def _same(given: list[str], expected: list[str]) -> bool:
    return len(given) == len(expected) and all(same_token(a, b) for a, b in zip(given, expected, strict=True))


def _length_note(part: str, given: int, expected: int):
    return L(
        f"The inputs have one token fewer than the sequence; you wrote {given}.",
        f"输入比整个序列少一个 token；你写了 {given} 个。",
    )


LOSS_RULE = L(
    "Count the input positions whose next token belongs to the continuation.",
    "数一数：哪些输入位置的下一个 token 属于续写部分。",
)


# Written one position late, the answer names the continuation tokens' own positions: the
# prompt numbers the prefix from 0, so that is this exercise's off-by-one, not counting from 1.
AT_TOKEN_POSITIONS = L(
    "These are the continuation tokens' own positions; the loss sits at the input positions that predict them.",
    "这些是续写 token 自己的位置；损失落在预测它们的那些输入位置上。",
)


def _at_token_positions() -> tuple[PartResult, list[str]]:
    return PartResult(HALF, True, AT_TOKEN_POSITIONS), [STARTS_LATE]


def loss_misconceptions(chosen: set[int], expected: set[int]) -> list[str]:
    """What a wrong set of prefix-LM loss positions shows: the loss starting one place late
    (the last prefix position left out), or taken over the whole prefix too. The one rule
    for this exercise and the prefix figure's prediction."""
    first = min(expected)
    if chosen == expected - {first}:
        return [STARTS_LATE]
    if chosen >= expected | set(range(first)):
        return ["prefix-loss-everywhere"]
    return []


def _grade_positions(given: set[int], data: dict) -> tuple[PartResult, list[str]]:
    expected = set(data["loss_positions"])
    if given == {i + 1 for i in expected}:
        return _at_token_positions()
    return grade_position_set(
        given, expected, lambda chosen: loss_misconceptions(chosen, expected), LOSS_RULE
    )


def _grade_labels(given: dict[int, str], data: dict) -> tuple[PartResult, list[str]]:
    expected = {int(i): token for i, token in data["labels"].items()}
    inputs = data["inputs"]

    def diagnose(found: LabelComparison) -> list[str]:
        codes = []
        if found.missing == [min(expected)] and not found.extra:
            codes.append(STARTS_LATE)  # the one story: also the copying it implies at the other positions
        elif found.wrong and all(same_token(given[i], inputs[i]) for i in found.wrong):
            codes.append("labels-not-shifted")
        if found.extra and set(found.extra) == set(range(min(expected))):
            codes.append("prefix-loss-everywhere")
        return codes

    return grade_label_map(given, expected, diagnose, one_place_late=_at_token_positions)


RUBRIC = Rubric(
    full=L(
        "The inputs (the tokens without the last), the loss positions from the last prefix position to the end, "
        "and each label the next token.",
        "输入（去掉最后一个 token）、从前缀最后一个位置到结尾的损失位置、每个标签都是下一个 token。",
    ),
    partial=(
        L("Each of the three parts counts a third.", "三个部分各占三分之一。"),
        L("Inputs: the share of positions right.", "输入：按写对的位置比例给分。"),
        L("Loss positions: overlap with the right set.", "损失位置：与正确集合的重合度。"),
        L(
            "Labels: right labels ÷ (labels expected + labels given where -100 belongs).",
            "标签：写对的标签 ÷（应有的标签数 + 多写的标签数）。",
        ),
        L(
            "Positions or labels all one place late name the continuation tokens' own positions (the prompt "
            "numbers the prefix from 0): half credit for that part, as the late start it is.",
            "位置或标签整体晚一位，写的是续写 token 自己的位置（题目已从 0 给前缀编号）：该部分得一半分，"
            "按“损失起点晚了一位”处理。",
        ),
    ),
    caps=(
        (STARTS_LATE, HALF),
        ("prefix-loss-everywhere", HALF),
        ("labels-not-shifted", HALF),
    ),
)

EXERCISES = (
    PrefixLabels(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Prefix LM: where the loss begins", "前缀语言模型：损失从哪里开始"),
        parts=(
            Part("inputs", L("inputs", "输入"), L("tokens separated by spaces", "用空格分隔的 token")),
            Part(
                "loss_positions",
                L("input positions in the loss", "参与损失的输入位置"),
                L("positions, e.g. 3, 4, 5 or 3-5", "位置，如 3, 4, 5 或 3-5"),
            ),
            Part(
                "labels",
                L("label row", "标签行"),
                L("one entry per input position, e.g. -100 -100 b c", "每个输入位置一项，如 -100 -100 b c"),
            ),
        ),
        hint_texts=(
            L(
                "Input position t is trained to predict token t+1. Which token does the last prefix position predict?",
                "输入位置 t 学习预测位置 t+1 上的 token。前缀的最后一个位置在预测哪个 token？",
            ),
            L(
                "A label is -100 where the token to predict lies inside the prefix: the prefix is given, not learnt.",
                "要预测的 token 落在前缀里时标签为 -100：前缀是给定的，不是要学的。",
            ),
            L("The label row is as long as the inputs.", "标签行和输入一样长。"),
        ),
    ),
)
