"""loss-sanity: an untrained model's loss is about ln V; a loss far above it
means the logits are too large (the missing 1/sqrt(d) scaling). The observed
losses come from the engine's rerun of the section “Self-supervision and LM objectives”'s CLM demo."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from pathlib import Path

from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import close_enough, fewer_decimals, precision_slip, right
from exercises.items.banks import rng_for
from exercises.text import L

ID = "loss-sanity"
VERDICTS = ("normal", "scaling-bug")
SANE_MARGIN = 5.0  # nats above ln V: scaled random logits land within about 2, unscaled ones 13 or more
VOCAB_SIZES = (1000, 2000, 5000, 8000, 10000)  # the vocabularies a variant asks about
RUN_SEEDS = 1000  # the CLM demo runs a variant may show, per vocabulary and scaling
BASELINE_DECIMALS = 2  # what the prompt asks the uniform-guess loss to
RUNS_FILE = Path(__file__).with_name("loss_sanity_runs.json")
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
        "vocab": rng.choice(VOCAB_SIZES),
        "run_seed": rng.randrange(RUN_SEEDS),
        "scaled": rng.random() < 0.5,
    }


def run_loss(vocab: int, run_seed: int, scaled: bool) -> float:
    """The loss of the CLM demo's run ``run_seed`` with this vocabulary: the engine's number.

    Every run a variant can show (``VOCAB_SIZES`` × ``RUN_SEEDS`` × scaled or not) was run once
    by the engine and recorded in ``RUNS_FILE`` (``python -m exercises.items.loss_sanity``
    records them again; a test reruns a sample and requires them bit for bit). Why: one run
    draws a 64 × V projection, about 4 ms, and a quiz regenerates one per student, so this
    question alone was half of grading a class. Recorded, it also reads the same on every
    machine. Without the file (or outside the grid) the engine runs it now."""
    recorded = _recorded_runs()
    if recorded is not None and vocab in recorded and 0 <= run_seed < RUN_SEEDS:
        return recorded[vocab]["scaled" if scaled else "unscaled"][run_seed]
    from engine.textbook import clm_demo_loss  # the engine (torch) only where it computes

    return clm_demo_loss(seed=run_seed, vocab_size=vocab, scaled=scaled)


@functools.cache
def _recorded_runs() -> dict[int, dict[str, list[float]]] | None:
    """``RUNS_FILE`` read once, or None when it is missing, unreadable or not for this grid."""
    try:
        recorded = json.loads(RUNS_FILE.read_text(encoding="utf-8"))
        runs = {int(vocab): losses for vocab, losses in recorded["losses"].items()}
        complete = set(runs) == set(VOCAB_SIZES) and all(
            len(losses[kind]) == RUN_SEEDS for losses in runs.values() for kind in ("scaled", "unscaled")
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return runs if complete else None


def record_runs(path: Path = RUNS_FILE) -> None:
    """Run the engine on every (vocabulary, run seed, scaling) a variant can ask about and
    write the losses to ``path`` (float32 values, written exactly)."""
    from engine.textbook import clm_demo_loss

    losses = {
        str(vocab): {
            kind: [
                clm_demo_loss(seed=run, vocab_size=vocab, scaled=kind == "scaled") for run in range(RUN_SEEDS)
            ]
            for kind in ("scaled", "unscaled")
        }
        for vocab in VOCAB_SIZES
    }
    about = "engine.textbook.clm_demo_loss(seed, vocab_size, scaled) for loss-sanity's variants"
    path.write_text(json.dumps({"about": about, "losses": losses}) + "\n", encoding="utf-8")


@functools.lru_cache(maxsize=1024)
def _generate(seed: int) -> Variant:
    from engine.clm import uniform_baseline  # the engine (torch) only where it computes

    params = _draw(seed)
    vocab = params["vocab"]
    loss = run_loss(vocab, params["run_seed"], params["scaled"])
    data = {
        **params,
        "loss": round(loss, 4),
        "baseline": round(uniform_baseline(vocab), 4),
        "verdict": verdict(loss, vocab),
    }
    prompt = L(
        f"An untrained causal LM with a vocabulary of V = {vocab} tokens reports a loss of {loss:.4f} on its "
        f"first batch.\n1. What loss would a uniform guess give (to {BASELINE_DECIMALS} decimals)?\n"
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
            elif precision_slip(raw["baseline"], value, math.log(vocab), BASELINE_DECIMALS):
                results["baseline"] = fewer_decimals(BASELINE_DECIMALS)
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


if __name__ == "__main__":
    import torch

    torch.set_num_threads(1)  # many small runs: a thread pool only adds overhead
    record_runs()
    print(f"wrote {RUNS_FILE}")
