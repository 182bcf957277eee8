"""perplexity: perplexity = exp(loss), the loss being the mean cross-entropy in
nats; so a loss of ln V means perplexity V (as unsure as a uniform guess among V
tokens), and going back takes the natural log."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping

from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import close_enough, fewer_decimals, misconception_near, precision_slip, right
from exercises.items.banks import rng_for
from exercises.text import L

ID = "perplexity"
VOCABULARIES = (100, 1000, 5000, 10000, 32000, 50257)
PERPLEXITIES = (2, 4, 10, 20, 50, 100, 1000)
RELATIVE = 0.01  # a perplexity to 1 %: exp magnifies the rounding of the loss
LOSS_DECIMALS = 2  # what part 2 asks the loss to


def perplexity(loss: float) -> float:
    """Perplexity of a mean cross-entropy in nats."""
    return math.exp(loss)


def _draw(seed: int) -> dict:
    if seed == 0:
        return {"vocab": 10000, "loss": round(math.log(10000), 4), "target": 20}  # the lessons' V
    rng = rng_for(ID, seed)
    if rng.random() < 0.5:
        vocab = rng.choice(VOCABULARIES)
        loss = round(math.log(vocab), 4)
    else:
        vocab, loss = 0, round(rng.uniform(1.5, 5.0), 2)
    # Part 2 must not name the perplexity part 1 asks for.
    return {"vocab": vocab, "loss": loss, "target": rng.choice([p for p in PERPLEXITIES if p != vocab])}


def _wrong_perplexities(loss: float) -> tuple[tuple[str, float], ...]:
    """Each misconception's perplexity for a mean loss of ``loss`` nats, with its code."""
    return (
        ("perplexity-is-loss", loss),
        ("perplexity-base-10", 10**loss),
        ("perplexity-base-2", 2**loss),
        ("perplexity-log-not-exp", math.log(loss)),
    )


def _wrong_losses(target: float) -> tuple[tuple[str, float], ...]:
    """Each misconception's mean loss for a perplexity of ``target``, with its code."""
    return (
        ("perplexity-is-loss", target),
        ("log-base-10", math.log10(target)),
        ("log-base-2", math.log2(target)),
        ("baseline-is-probability", 1 / target),
    )


def _fair(params: dict) -> bool:
    """The right numbers differ from every misconception's number."""
    loss, target = params["loss"], params["target"]
    return (
        loss >= 1
        and target >= 2
        and not any(
            close_enough(value, perplexity(loss), relative=RELATIVE)
            for _code, value in _wrong_perplexities(loss)
        )
        and not any(
            close_enough(value, math.log(target), relative=0.005) for _code, value in _wrong_losses(target)
        )
    )


@functools.lru_cache(maxsize=1024)
def _generate(seed: int) -> Variant:
    params = _draw(seed)
    loss, target = params["loss"], params["target"]
    data = {**params, "perplexity": perplexity(loss), "target_loss": math.log(target)}
    # The loss alone: saying "(that is ln V)" would hand over the perplexity, V.
    prompt = L(
        f"A language model's mean cross-entropy on a test text is {loss} nats.\n"
        "1. What is its perplexity?\n"
        f"2. What mean loss (in nats, to 2 decimals) would a perplexity of {target} mean?",
        f"一个语言模型在测试文本上的平均交叉熵为 {loss} nat。\n"
        "1. 它的困惑度是多少？\n"
        f"2. 困惑度为 {target} 时，平均损失是多少 nat（保留两位小数）？",
    )
    return Variant(ID, seed, data, prompt, question_key_of(params))


class Perplexity(Exercise):
    def variant_is_fair(self, variant: Variant) -> bool:
        """The numbers tell the misconceptions apart, and the prompt does the learner's
        step for them nowhere: it never names the log of a number (\"that is ln V\") nor
        writes the perplexity it asks for."""
        asked = self.solve(variant)["perplexity"]
        written = re.compile(rf"(?<![\d.]){re.escape(asked)}(?![\d.])")
        return _fair(variant.data) and not any(
            re.search(r"\bln\b", text) or written.search(text) for text in variant.prompt.values()
        )

    def solve(self, variant: Variant) -> dict[str, str]:
        data = variant.data
        value = data["perplexity"]
        return {
            "perplexity": f"{value:.0f}" if data["vocab"] else f"{value:.2f}",
            "loss": f"{data['target_loss']:.2f}",
        }

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        data = variant.data
        near = data["perplexity"] if part == "perplexity" else data["target_loss"]
        symbols = {"V": data["vocab"]} if data["vocab"] else None  # "ln V", "V": the vocabulary it names
        return Parsed(parsing.number(text, near=near, symbols=symbols))

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        results: dict[str, PartResult] = {}
        codes: list[str] = []
        if "perplexity" in parsed:
            value = parsed["perplexity"].value
            if close_enough(value, data["perplexity"], relative=RELATIVE):
                results["perplexity"] = right()
            else:
                codes += misconception_near(value, _wrong_perplexities(data["loss"]), relative=RELATIVE)
                results["perplexity"] = PartResult(
                    0.0,
                    True,
                    L(
                        "Not the perplexity: it undoes the log in the loss (in nats).",
                        "这不是困惑度：困惑度要把损失里的（自然）对数还原回去。",
                    ),
                )
        if "loss" in parsed:
            value = parsed["loss"].value
            if close_enough(value, data["target_loss"], relative=0.005, absolute=0.011):
                results["loss"] = right()
            elif precision_slip(raw["loss"], value, data["target_loss"], LOSS_DECIMALS):
                results["loss"] = fewer_decimals(LOSS_DECIMALS)
            else:
                codes += misconception_near(
                    value, _wrong_losses(data["target"]), relative=0.005, absolute=0.011
                )
                results["loss"] = PartResult(
                    0.0,
                    True,
                    L(
                        "Not that loss: which loss, put through exp, gives this perplexity?",
                        "不是这个损失：哪个损失取 exp 之后等于这个困惑度？",
                    ),
                )
        return results, codes


RUBRIC = Rubric(
    full=L(
        "exp(loss) to within 1 % and ln(perplexity) to within 0.01 (any way of writing them: e^2.3, exp(2.3), ln 20).",
        "exp(损失) 误差不超过 1%，ln(困惑度) 误差不超过 0.01（怎么写都行：e^2.3、exp(2.3)、ln 20）。",
    ),
    partial=(L("Each part counts a half.", "两个部分各占一半。"),),
    caps=(("perplexity-is-loss", 0.5), ("perplexity-log-not-exp", 0.5)),
)

EXERCISES = (
    Perplexity(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="parts",
        title=L("Perplexity from a loss", "由损失求困惑度"),
        parts=(
            Part(
                "perplexity",
                L("perplexity", "困惑度"),
                L("a number, e.g. 12.5, or exp(2.5)", "一个数，如 12.5，或 exp(2.5)"),
            ),
            Part(
                "loss",
                L("loss for the given perplexity", "给定困惑度对应的损失"),
                L("a number, e.g. 1.23, or ln 42", "一个数，如 1.23，或 ln 42"),
            ),
        ),
        hint_texts=(
            L(
                "The loss is the mean of −ln p(right token); perplexity undoes the log.",
                "损失是 −ln p(正确 token) 的平均；困惑度把这个对数还原回去。",
            ),
            L(
                "A uniform guess among V tokens has loss ln V. How unsure is it, in tokens?",
                "在 V 个 token 里均匀猜测，损失是 ln V。它的犹豫程度相当于多少个 token？",
            ),
            L("Going back from perplexity to loss takes the natural log.", "从困惑度回到损失要取自然对数。"),
        ),
    ),
)
