"""loss-sanity: an untrained model's loss is about ln V; a loss far above it
means the logits are too large (the missing 1/sqrt(d) scaling). The observed
losses come from the engine's rerun of the section “Self-supervision and LM objectives”'s CLM demo."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import close_enough, right
from exercises.items.banks import rng_for
from exercises.text import L

ID = "loss-sanity"
VERDICTS = ("normal", "scaling-bug")
SANE_MARGIN = 5.0  # nats above ln V: scaled random logits land within about 2, unscaled ones 13 or more
OPTIONS = (
    L("normal for an untrained model", "对未训练的模型来说正常"),
    L(
        "something is wrong (e.g. a projection not scaled by 1/sqrt(d))",
        "出了问题（例如投影层没有按 1/sqrt(d) 缩放）",
    ),
)
GOOD_WORDS = (
    "normal",
    "fine",
    "ok",
    "okay",
    "plausible",
    "reasonable",
    "sane",
    "expected",
    "正常",
    "合理",
    "没错",
    "可以",
)
BAD_WORDS = (
    "wrong",
    "bug",
    "problem",
    "broken",
    "abnormal",
    "too high",
    "too large",
    "问题",
    "错",
    "异常",
    "不对",
    "太大",
    "偏大",
    "过大",
)


def verdict(loss: float, vocab_size: int) -> str:
    """Is this loss sane for an untrained model? "normal" when it is within a few
    nats of the uniform guess ln V (random logits of size about 1 add about
    sigma^2/2, and a small batch scatters), "scaling-bug" when it is far above:
    the logits are too large and the softmax is saturated. The one rule the exercise grades with and the
    causal-LM figure's "is this loss sane?" line shows."""
    return "normal" if loss - math.log(vocab_size) < SANE_MARGIN else "scaling-bug"


def _draw(seed: int) -> dict:
    if seed == 0:
        return {"vocab": 10000, "run_seed": 0, "scaled": True}
    rng = rng_for(ID, seed)
    return {
        "vocab": rng.choice((1000, 2000, 5000, 8000, 10000)),  # the rerun costs ~V/4000 ms
        "run_seed": rng.randrange(1000),
        "scaled": rng.random() < 0.5,
    }


@functools.lru_cache(maxsize=1024)
def _generate(seed: int) -> Variant:
    from engine.clm import uniform_baseline  # the engine (torch) only where it computes
    from engine.textbook import clm_demo_loss  # clm_run's loss alone: a quiz makes one per student

    params = _draw(seed)
    vocab = params["vocab"]
    loss = clm_demo_loss(seed=params["run_seed"], vocab_size=vocab, scaled=params["scaled"])
    data = {
        **params,
        "loss": round(loss, 4),
        "baseline": round(uniform_baseline(vocab), 4),
        "verdict": verdict(loss, vocab),
    }
    prompt = L(
        f"An untrained causal LM with a vocabulary of V = {vocab} tokens reports a loss of {loss:.4f} on its "
        "first batch.\n1. What loss would a uniform guess give (to 2 decimals)?\n"
        f"2. Verdict: A) {OPTIONS[0]['en']}, or B) {OPTIONS[1]['en']}?",
        f"一个未训练的因果语言模型，词表大小 V = {vocab}，第一个批次的损失为 {loss:.4f}。\n"
        "1. 均匀猜测的损失应是多少（保留两位小数）？\n"
        f"2. 判断：A) {OPTIONS[0]['zh']}；B) {OPTIONS[1]['zh']}？",
    )
    return Variant(ID, seed, data, prompt, question_key_of(params))


class LossSanity(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        """The verdict is clear-cut: the loss is far from the line between the two."""
        data = variant.data
        distance = abs(data["loss"] - data["baseline"] - SANE_MARGIN)
        expected = "normal" if data["scaled"] else "scaling-bug"
        return data["verdict"] == expected and distance > 0.5

    def solve(self, variant: Variant) -> dict[str, str]:
        verdict = "A" if variant.data["verdict"] == "normal" else "B"
        return {"baseline": f"{variant.data['baseline']:.2f}", "verdict": verdict}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        if part == "baseline":
            data = variant.data
            return Parsed(parsing.number(text, near=data["baseline"], symbols={"V": data["vocab"]}))
        index = parsing.choice(text, 2, [option["en"] for option in OPTIONS])
        if index is None:
            index = parsing.choice(text, 2, [option["zh"] for option in OPTIONS])
        if index is None:
            good = parsing.judgement(text, GOOD_WORDS, BAD_WORDS)
            index = None if good is None else 0 if good else 1
        return Parsed(
            None if index is None else VERDICTS[index],
            L("A or B (or in words: normal / something is wrong).", "A 或 B（或用文字：正常 / 有问题）。"),
        )

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        results: dict[str, PartResult] = {}
        codes: list[str] = []
        if "baseline" in parsed:
            value, vocab = parsed["baseline"].value, data["vocab"]
            if close_enough(value, data["baseline"], relative=0.002, absolute=0.011):
                results["baseline"] = right()
            else:
                if close_enough(value, math.log10(vocab), relative=0.002):
                    codes.append("log-base-10")
                elif close_enough(value, math.log2(vocab), relative=0.002):
                    codes.append("log-base-2")
                elif close_enough(value, 1 / vocab, relative=0.01, absolute=1e-6):
                    codes.append("baseline-is-probability")
                results["baseline"] = PartResult(
                    0.0,
                    True,
                    L(
                        "Not the uniform-guess loss: each of the V tokens gets 1/V, and the loss is minus the "
                        "natural log of the right token's probability.",
                        "这不是均匀猜测的损失：V 个 token 各得 1/V，损失是正确 token 概率的负自然对数。",
                    ),
                )
        if "verdict" in parsed:
            if parsed["verdict"].value == data["verdict"]:
                results["verdict"] = right()
            else:
                codes.append("scaling-bug-missed" if data["verdict"] == "scaling-bug" else "false-alarm")
                results["verdict"] = PartResult(
                    0.0,
                    True,
                    L(
                        "Compare the reported loss with the uniform-guess loss: how far above it is it?",
                        "把报告的损失和均匀猜测的损失比一比：高出多少？",
                    ),
                )
        return results, codes


RUBRIC = Rubric(
    full=L(
        "ln V to within 0.01 (any way of writing it: 9.21, ln 10000, -ln(1/10000)) and the right verdict.",
        "ln V 误差不超过 0.01（怎么写都行：9.21、ln 10000、-ln(1/10000)），并且判断正确。",
    ),
    partial=(L("Each part counts a half.", "两个部分各占一半。"),),
)


EXERCISES = (
    LossSanity(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Is this loss plausible?", "这个损失值合理吗？"),
        parts=(
            Part(
                "baseline",
                L("uniform-guess loss", "均匀猜测的损失"),
                L("a number, e.g. 1.23, or ln 42", "一个数，如 1.23，或 ln 42"),
            ),
            Part("verdict", L("verdict (A or B)", "判断（A 或 B）"), L("A or B", "A 或 B")),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "A uniform guess gives each of the V tokens probability 1/V.",
                "均匀猜测给 V 个 token 中的每一个概率 1/V。",
            ),
            L(
                "Cross-entropy is −ln(probability of the right token), in natural log.",
                "交叉熵是 −ln(正确 token 的概率)，用自然对数。",
            ),
            L(
                "Random logits of size about 1 give a loss a little above the uniform one; much larger logits saturate "
                "the softmax.",
                "量级约为 1 的随机 logits 会让损失略高于均匀猜测；大得多的 logits 会让 softmax 饱和。",
            ),
        ),
    ),
)
