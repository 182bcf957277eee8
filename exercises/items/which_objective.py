"""which-objective: an (input, label) pair the engine built with one of the four objectives;
which objective built it, and how many predictions does one forward pass on it train?
(issue 32's "which objective built this pair?" and "how many positions does one pass
train: CLM, MLM, T5?"). Both answers come from the engine's own samples: a causal LM
trains T-1 predictions, a masked LM only its selected positions, a prefix LM the
positions from the last prefix one on, T5 every position of its target."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import right
from exercises.items.banks import EN_SENTENCES, ZH_SENTENCES, language_note, rng_for
from exercises.text import L

ID = "which-objective"
OBJECTIVES = ("clm", "mlm", "span", "prefix")
NAMES = {
    "clm": L("causal LM", "因果语言建模"),
    "mlm": L("masked LM", "掩码语言建模"),
    "span": L("span corruption (T5)", "片段破坏（T5）"),
    "prefix": L("prefix LM", "前缀语言建模"),
}
# What a learner may call each objective (one of them, never two).
_WORDS = {
    "clm": r"causal|clm|gpt|next[- ]token|因果|续写",
    "mlm": r"mask(?:ed)?[- ]?lm|mlm|bert|掩码|填空",
    "span": r"span|t5|sentinel|片段|哨兵",
    "prefix": r"prefix|前缀",
}
WHY_WRONG = {  # (built by, named): the misconception that confusion shows
    ("prefix", "clm"): "prefix-lm-is-causal",
    ("span", "mlm"): "span-for-single-tokens",
}


def _draw(seed: int) -> dict:
    rng = rng_for(ID, seed)
    objective = OBJECTIVES[seed % 4] if seed < 4 else rng.choice(OBJECTIVES)
    text = rng.choice((*EN_SENTENCES, *(sentence.replace(" ", "") for sentence in ZH_SENTENCES)))
    n = len(text.split()) if " " in text else len(text)
    return {
        "objective": objective,
        "text": text,
        "sample_seed": rng.randrange(1000),
        "prefix": rng.randint(2, n - 2),
    }


def _sample(params: dict) -> tuple[list[str], list[str], int]:
    """(inputs, labels shown with -100 where no loss is taken, predictions trained)."""
    from engine.samples import clm_sample, mlm_sample, prefix_sample, span_sample

    objective, text = params["objective"], params["text"]
    if objective == "span":
        sample = span_sample(text, seed=params["sample_seed"])
        return list(sample.inputs), list(sample.targets), len(sample.targets)
    if objective == "clm":
        built = clm_sample(text)
    elif objective == "prefix":
        built = prefix_sample(text, params["prefix"])
    else:
        built = mlm_sample(text, seed=params["sample_seed"])
    labels = ["-100" if label is None else label for label in built.labels]
    return list(built.inputs), labels, sum(label is not None for label in built.labels)


@functools.lru_cache(maxsize=1024)
def _generate(seed: int) -> Variant:
    params = key = _draw(seed)
    for attempt in range(50):  # a masked-LM draw that selects nothing shows no objective
        inputs, labels, trained = _sample(params)
        if trained:
            break
        params = {**params, "sample_seed": params["sample_seed"] + 1000 * (attempt + 1)}
    data = {**params, "inputs": inputs, "labels": labels, "trained": trained}
    label_word = L("targets", "目标序列") if params["objective"] == "span" else L("labels", "标签")
    prompt = L(
        f"One training example, as the engine built it with one of the four objectives (-100: no loss there).\n"
        f"inputs: {' '.join(inputs)}\n{label_word['en']}: {' '.join(labels)}\n"
        "1. Which objective built it: causal LM, masked LM, span corruption (T5) or prefix LM?\n"
        "2. How many predictions does one forward pass on this example train?",
        f"下面是引擎用四种目标之一造出的一个训练样本（-100 表示那里不计算损失）。\n"
        f"输入：{' '.join(inputs)}\n{label_word['zh']}：{' '.join(labels)}\n"
        "1. 它是哪种目标造出来的：因果语言建模、掩码语言建模、片段破坏（T5）还是前缀语言建模？\n"
        "2. 在这个样本上做一次前向传播，训练了多少个预测？",
    )
    prompt = language_note(prompt, [*inputs, *labels])
    return Variant(ID, seed, data, prompt, question_key_of(key))


# Every word an answer naming one objective may hold; anything else ("causal [MASK]") is
# not read as a name, so an answer with a stray word is unreadable rather than guessed.
_ALLOWED_WORDS = frozenset(
    [
        "causal",
        "clm",
        "gpt",
        "next",
        "token",
        "masked",
        "mlm",
        "bert",
        "span",
        "corruption",
        "t5",
        "sentinel",
        "sentinels",
        "prefix",
        "lm",
        "language",
        "model",
        "modeling",
        "modelling",
        "objective",
        "style",
        "the",
        "a",
        "it",
        "is",
        "by",
        "with",
    ]
)
_ALLOWED_CHARS = frozenset("因果语言建模掩码填空片段破坏前缀续写哨兵模型目标是的用")


def _objective_named(text: str) -> str | None:
    cleaned = parsing.without_trailing_punctuation(parsing.clean(text)).lower()
    units = re.findall(r"[a-z0-9]+|[\u3400-\u9fff]|[^\sa-z0-9\u3400-\u9fff,.()（）:：-]", cleaned)
    if not units or any(unit not in _ALLOWED_WORDS and unit not in _ALLOWED_CHARS for unit in units):
        return None
    named = [objective for objective, words in _WORDS.items() if re.search(words, cleaned)]
    return named[0] if len(named) == 1 else None


def _count_misconception(data: dict, given: int) -> list[str]:
    """What a wrong count shows, from the example itself."""
    objective, inputs, labels = data["objective"], data["inputs"], data["labels"]
    if objective == "mlm" and given == len(inputs):
        return ["mlm-signal-every-token"]
    if objective == "mlm" and given == inputs.count("[MASK]"):
        return ["loss-omits-random"]
    if objective == "clm" and given == 1:
        return ["teacher-forcing-one-position"]
    if objective == "clm" and given == len(inputs) + 1:
        return ["inputs-keep-last"]
    if objective == "prefix" and given == len(inputs):
        return ["prefix-loss-everywhere"]
    if objective == "prefix" and given == data["trained"] - 1:
        return ["prefix-loss-starts-late"]
    if objective == "span" and given == sum(not token.startswith("<") for token in labels):
        return ["target-without-sentinels"]
    return []


class WhichObjective(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        data = variant.data
        return data["objective"] in OBJECTIVES and data["trained"] >= 1

    def solve(self, variant: Variant) -> dict[str, str]:
        return {"objective": NAMES[variant.data["objective"]]["en"], "trained": str(variant.data["trained"])}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        if part == "objective":
            named = _objective_named(text)
            return Parsed(
                named,
                None
                if named
                else L(
                    "Name one of the four objectives, by its name or a model trained with it.",
                    "请写出四种目标之一：写名称，或写用它训练的模型。",
                ),
            )
        value = parsing.number(text)
        ok = value is not None and value == int(value) and 0 <= value <= 10_000
        return Parsed(
            int(value) if ok else None, None if ok else L("Write one whole number.", "请写一个整数。")
        )

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        results: dict[str, PartResult] = {}
        codes: list[str] = []
        if "objective" in parsed:
            named = parsed["objective"].value
            if named == data["objective"]:
                results["objective"] = right()
            else:
                codes.append(WHY_WRONG.get((data["objective"], named), "names-without-labels"))
                results["objective"] = PartResult(
                    0.0,
                    True,
                    L(
                        "Read where the labels are and what the input hides: that is the objective.",
                        "看标签在哪里、输入藏起了什么：这就是目标。",
                    ),
                )
        if "trained" in parsed:
            given = parsed["trained"].value
            if given == data["trained"]:
                results["trained"] = right()
            else:
                codes += _count_misconception(data, given)
                results["trained"] = PartResult(
                    0.0,
                    True,
                    L(
                        "Count the positions whose label is not -100 (for T5, every target token).",
                        "数一数标签不是 -100 的位置（T5 则是目标序列里的每个 token）。",
                    ),
                )
        return results, codes


RUBRIC = Rubric(
    full=L(
        "The objective that built the example, and the number of predictions it trains.",
        "造出这个样本的目标，以及它训练的预测个数。",
    ),
    partial=(L("Each part counts half.", "两部分各占一半。"),),
)


EXERCISES = (
    WhichObjective(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Which objective built this example?", "这个样本是哪种目标造的？"),
        parts=(
            Part(
                "objective",
                L("objective", "目标"),
                L("an objective's name, e.g. masked LM", "目标名称，如 掩码语言建模"),
            ),
            Part("trained", L("predictions trained", "训练的预测个数"), L("a whole number", "一个整数")),
        ),
        hint_texts=(
            L(
                "Look at what the input hides, and what stands in its place.",
                "看输入藏起了什么，又用什么顶替了它。",
            ),
            L(
                "Look at where the labels start, and whether each label is the token after its position.",
                "看标签从哪里开始，以及每个标签是不是它所在位置的下一个 token。",
            ),
        ),
    ),
)
