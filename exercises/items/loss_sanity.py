"""loss-sanity: an untrained model's loss is about ln V; a loss far above it
means the logits are too large (the missing 1/sqrt(d) scaling). The observed
losses come from the engine's rerun of the first lesson's CLM demo."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

from engine.textbook import clm_run
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Variant
from exercises.grading.scoring import close_enough, right
from exercises.items.banks import rng_for
from exercises.text import L

ID = "loss-sanity"
VERDICTS = ("normal", "scaling-bug")


@functools.lru_cache(maxsize=1024)
def _generate(seed: int) -> Variant:
    if seed == 0:
        vocab, run_seed, scaled = 10000, 0, True
    else:
        rng = rng_for(ID, seed)
        vocab = rng.choice((1000, 2000, 5000, 8000, 10000))  # the rerun costs ~V/4000 ms
        run_seed = rng.randrange(1000)
        scaled = rng.random() < 0.5
    run = clm_run(seed=run_seed, vocab_size=vocab)
    loss = run.loss if scaled else run.loss_unscaled
    data = {
        "vocab": vocab,
        "loss": round(loss, 4),
        "baseline": round(run.baseline, 4),
        "verdict": "normal" if scaled else "scaling-bug",
    }
    prompt = L(
        f"An untrained causal LM with a vocabulary of V = {vocab} tokens reports a loss of {loss:.4f} on its "
        "first batch.\n1. What loss would a uniform guess give (to 2 decimals)?\n"
        "2. Verdict: A) normal for an untrained model, or B) something is wrong (e.g. a projection not "
        "scaled by 1/sqrt(d))?",
        f"一个未训练的因果语言模型，词表大小 V = {vocab}，第一个批次的损失为 {loss:.4f}。\n"
        "1. 均匀猜测的损失应是多少（保留两位小数）？\n"
        "2. 判断：A) 对未训练的模型来说正常；B) 出了问题（例如投影层没有按 1/sqrt(d) 缩放）？",
    )
    return Variant(ID, seed, data, prompt)


class LossSanity(Exercise):
    def solve(self, variant: Variant) -> dict[str, str]:
        verdict = "A" if variant.data["verdict"] == "normal" else "B"
        return {"baseline": f"{variant.data['baseline']:.2f}", "verdict": verdict}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        if part == "baseline":
            return Parsed(parsing.number(text))
        index = parsing.choice(text, 2)
        if index is None:
            words = parsing.clean(text).lower()
            if any(word in words for word in ("normal", "正常", "ok")):
                index = 0
            elif any(word in words for word in ("wrong", "bug", "问题", "错")):
                index = 1
        return Parsed(None if index is None else VERDICTS[index])

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
                    L(f"ln {vocab} = {data['baseline']:.4f}.", f"ln {vocab} = {data['baseline']:.4f}。"),
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
                        f"{data['loss']:.2f} against ln V = {data['baseline']:.2f}.",
                        f"{data['loss']:.2f} 对比 ln V = {data['baseline']:.2f}。",
                    ),
                )
        return results, codes


EXERCISES = (
    LossSanity(
        id=ID,
        make_variant=_generate,
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
