"""The training lab's exercises, graded against the table of the learner's own
last run (``objectives-tutor train`` or the lesson's lab), or, before any run,
against the reference table the benchmark measured (the feedback says which).

* ``trainlab-predict``: predict each cell of the 2×2 table (high or low) before
  training; the feedback reveals the run's numbers (predict-then-reveal).
* ``trainlab-surprise``: explain the cell that surprises most (reflection).
* ``trainlab-which``: which of your models suits a task — the answer is read
  from your table, so it is quiz-able and checked against evidence, not a slogan.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from engine.train_lab_spec import DEFAULT_STEPS, OBJECTIVES
from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant
from exercises.items.reflection import reflection
from exercises.text import L
from exercises.training.runs import last_table
from exercises.training.table import OBJECTIVE_NAMES

HIGH = 0.5  # a cell at or above this is "high": the gap the lab shows is 0.1-0.3 vs 0.9-1.0

# What benchmarks/train.py measured over seeds 0-7 at the default budget (the
# worst seed of each cell), used until the learner has a run of their own.
REFERENCE = {
    "objectives": {
        "clm": {"continue": 1.0, "fill": 0.15},
        "mlm": {"continue": 0.0, "fill": 1.0},
    },
    "settings": {"steps": 500, "seed": 0, "corpus": "zh"},
    "reference": True,
}

LEVEL_WORDS = {"en": {"high": "high", "low": "low"}, "zh": {"high": "高", "low": "低"}}
CELLS = (("clm", "continue"), ("clm", "fill"), ("mlm", "continue"), ("mlm", "fill"))
_HIGH_WORDS = ("high", "h", "yes", "good", "高", "好", "会", "能", "对", "行", "强")
_LOW_WORDS = ("low", "l", "no", "bad", "poor", "低", "差", "不会", "不能", "不行", "弱", "否")


def current_table() -> dict:
    """The learner's last run, or the reference (marked ``reference``). A run shorter
    than the lab's default budget, or on the arithmetic toy, is not what the questions
    ask about (after 50 steps no model has learned either task, and marking "the causal
    LM continues well" wrong against it taught the opposite of the lesson): the
    reference then, with the run's steps noted (``short_run``) for the feedback to say why."""
    table = last_table()
    if table is None or not all(
        table.get("objectives", {}).get(name, {}).get(task) is not None for name, task in CELLS
    ):
        return REFERENCE
    settings = table.get("settings", {})
    if settings.get("corpus") not in ("zh", "en"):
        return REFERENCE
    if not isinstance(settings.get("steps"), int) or settings["steps"] < DEFAULT_STEPS:
        return {**REFERENCE, "short_run": settings.get("steps")}
    return table


def read_level(text: str) -> bool | None:
    """ "high" / "低" / "0.9" / "15%" / "90 %" -> True (high) or False (low); None when unreadable."""
    cleaned = parsing.without_trailing_punctuation(parsing.clean(text)).strip().lower()
    if not cleaned or len(cleaned) > 40:
        return None
    number = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*(%?)", cleaned)
    if number:
        value = float(number.group(1)) / (100 if number.group(2) else 1)
        if number.group(2) == "" and value > 1 and "." not in number.group(1):  # "90" means 90 %
            value /= 100
        return value >= HIGH if 0 <= value <= 1 else None
    if cleaned in _LOW_WORDS or any(cleaned.startswith(word) for word in ("low", "低", "不")):
        return False
    if cleaned in _HIGH_WORDS or any(cleaned.startswith(word) for word in ("high", "高")):
        return True
    return None


def _source(table: dict) -> dict:
    if table.get("short_run") is not None:
        steps = table["short_run"]
        return L(
            f"the reference run, {DEFAULT_STEPS} steps: your last run had {steps}, too few for any model to learn"
            " either task; train with the default budget to check against your own",
            f"参考运行，{DEFAULT_STEPS} 步：你上一次只训练了 {steps} 步，太少，哪个模型都还没学会；"
            "用默认步数训练一次，就会对照你自己的结果",
        )
    if table.get("reference"):
        return L(
            "the reference run (train in the lab to check against your own)",
            "参考运行（在实验里自己训练一次，就会对照你自己的结果）",
        )
    settings = table["settings"]
    return L(
        f"your last run ({settings['corpus']}, {settings['steps']} steps, seed {settings['seed']})",
        f"你上一次的运行（{settings['corpus']}，{settings['steps']} 步，种子 {settings['seed']}）",
    )


PREDICT_PARTS = tuple(
    Part(
        f"{name}_{task}",
        L(
            f"{OBJECTIVE_NAMES[name]['en']}: {'continue' if task == 'continue' else 'fill the middle'}",
            f"{OBJECTIVE_NAMES[name]['zh']}：{'续写' if task == 'continue' else '填中间'}",
        ),
        L("high or low (or a number like 0.9)", "高 或 低（也可写 0.9 这样的数）"),
    )
    for name, task in CELLS
)

_WHY = {
    ("clm", "continue"): L(
        "The causal LM practised exactly this: predict the next token from the left.",
        "因果语言建模练的正是这个：从左边预测下一个 token。",
    ),
    ("clm", "fill"): L(
        "Reading left to right, it never sees the noun after the blank, and the noun decides the measure word.",
        "它只从左往右读，看不到空位后面的名词，而量词恰恰由那个名词决定。",
    ),
    ("mlm", "continue"): L(
        "Every training window ended at a sentence end: it was never trained to predict a token at the end of the text.",
        "训练窗口总在句末结束：它从没练过在文本末尾预测下一个 token。",
    ),
    ("mlm", "fill"): L(
        "Filling a [MASK] from both sides is what it practised.", "从两侧填 [MASK] 正是它练的。"
    ),
}


def _cells(table: dict) -> dict[str, float]:
    return {f"{name}_{task}": table["objectives"][name][task] for name, task in CELLS}


@dataclass(eq=False)
class PredictTable(Exercise):
    """The prompt shows no number, so the answer is checked against the table as it is
    when the learner answers: a variant opened before training is graded against the
    run the learner trained meanwhile, not against the reference it was opened with."""

    def generate(self, seed: int) -> Variant:
        table = current_table()
        cells = _cells(table)
        prompt = L(
            "Before training: the same tiny model is trained twice on the toy language, once as a causal LM "
            "and once as a masked LM (same data, steps and learning rate). For each model and task, will "
            "the accuracy be high or low?",
            "训练之前先预测：同一个小模型在玩具语言上训练两次，一次做因果语言建模，一次做掩码语言建模（数据、步数、"
            "学习率都相同）。每个模型在每个任务上的准确率会高还是低？",
        )
        return Variant(self.id, seed, {"cells": cells, "source": _source(table)}, prompt, "predict-table")

    def solve(self, variant: Variant) -> dict[str, str]:
        return {name: "high" if value >= HIGH else "low" for name, value in _cells(current_table()).items()}

    def shown_solution(self, variant: Variant, lang: str) -> tuple[dict[str, str], bool]:
        """The levels in the learner's language (a Chinese learner read "low")."""
        words = LEVEL_WORDS[lang]
        return {name: words[level] for name, level in self.solve(variant).items()}, True

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        level = read_level(text)
        if level is None:
            return Parsed(
                None,
                L("Write high or low (or a number from 0 to 1).", "请写“高”或“低”（或 0 到 1 之间的数）。"),
            )
        return Parsed(level)

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        results = {}
        table = current_table()  # now, not when the variant was opened
        cells, source = _cells(table), _source(table)
        for (name, task), part in zip(CELLS, self.parts, strict=True):
            if part.name not in parsed:
                continue
            value = cells[part.name]
            right = parsed[part.name].value == (value >= HIGH)
            verdict = L("Right", "对") if right else L("Not so", "不对")
            why = _WHY[(name, task)]
            if not results:  # which run the numbers come from, said once, on the first line
                feedback = L(
                    f"{verdict['en']}: {value:.2f} ({source['en']}). {why['en']}",
                    f"{verdict['zh']}：{value:.2f}（{source['zh']}）。{why['zh']}",
                )
            else:  # (four copies of it filled an 80x24 screen)
                feedback = L(
                    f"{verdict['en']}: {value:.2f}. {why['en']}", f"{verdict['zh']}：{value:.2f}。{why['zh']}"
                )
            results[part.name] = PartResult(1.0 if right else 0.0, True, feedback)
        return results, []


PREDICT = PredictTable(
    id="trainlab-predict",
    kind="parts",
    title=L("Predict the table", "预测这张表"),
    parts=PREDICT_PARTS,
    hint_texts=(
        L("Which direction of context decides each task's answer?", "每个任务的答案由哪一侧的上下文决定？"),
        L(
            "A causal LM sees only the left; a masked LM was trained on blanks inside full windows.",
            "因果语言模型只看得到左边；掩码语言建模练的是完整窗口里面的空。",
        ),
    ),
    rubric=Rubric(
        full=L("All four cells right.", "四个格子都对。"),
        partial=(L("A quarter per cell.", "每格四分之一。"),),
    ),
)


SURPRISE = reflection(
    "trainlab-surprise",
    L("Explain a surprising cell", "解释一个出乎意料的格子"),
    L(
        "Pick the cell of your table that surprised you most — for many it is the masked LM's "
        "'continue' score: it read the connective that decides the answer, yet it rarely names the "
        "right word. Explain in two or three sentences what in its training made that cell come out so.",
        "挑出你表里最出乎意料的一格——很多人选掩码语言模型的“续写”：决定答案的关联词它明明读到了，"
        "却很少说出正确的词。用两三句话解释：它的训练里有什么让这一格变成这样？",
    ),
    L(
        "The masked LM only ever predicted blanks inside windows that ended at a sentence end; the "
        "position at the very end of a text was always a full stop. Asked with a [MASK] appended, it "
        "answers what it practised there. It is not trained to continue; that does not prove it "
        "cannot — a different packing of the windows changes the cell. Likewise the causal LM fills "
        "the blank badly only when it reads the left context alone: scoring every candidate sentence "
        "shows it does know which noun takes which measure word.",
        "掩码语言模型只练过预测窗口内部的空，而窗口总在句末结束，文本最末的位置永远是句号。"
        "在末尾补一个 [MASK] 去问它，它就答它在那里练过的东西。它是没被训练去续写，"
        "这并不证明它做不到——换一种切窗口的方式，这一格就会变。同理，因果语言模型只有在只看左边时"
        "才填不好空：给每个候选句子打分，就能看出它其实知道哪个名词配哪个量词。",
    ),
    (
        L("the objective decides what each position practised", "训练目标决定了每个位置练的是什么"),
        L("the masked LM never predicted at the end of a text", "掩码语言模型从没在文本末尾做过预测"),
        L("'not trained to' is not 'cannot'", "“没被训练去做”不等于“做不到”"),
    ),
)


TASKS = (
    (
        "continue",
        L(
            "An input method must suggest the next word while the user types. Going by YOUR table, "
            "which of your models do you ship?",
            "输入法要在用户打字时推荐下一个词。根据你自己的表，你会上线哪个模型？",
        ),
    ),
    (
        "fill",
        L(
            "A form checker must fill one missing word in the middle of a finished sentence, with one "
            "forward pass per blank. Going by YOUR table, which of your models do you ship?",
            "表单检查器要给一个写完的句子补上中间缺的一个词，每个空只能做一次前向计算。"
            "根据你自己的表，你会上线哪个模型？",
        ),
    ),
)


@dataclass(eq=False)
class WhichObjective(Exercise):
    def generate(self, seed: int) -> Variant:
        table = current_table()
        task, stem = TASKS[seed % len(TASKS)]
        names = [name for name in OBJECTIVES if name in table["objectives"]]
        scores = {name: table["objectives"][name].get(task) for name in names}
        scores = {name: value for name, value in scores.items() if value is not None}
        best = max(scores, key=lambda name: (scores[name], -names.index(name)))
        lines = {
            lang: "\n".join(
                f"{chr(65 + index)}) {OBJECTIVE_NAMES[name][lang]} — {scores[name]:.2f}"
                for index, name in enumerate(scores)
            )
            for lang in ("en", "zh")
        }
        source = _source(table)
        prompt = L(
            f"{stem['en']}\n({source['en']})\n{lines['en']}",
            f"{stem['zh']}\n（{source['zh']}）\n{lines['zh']}",
        )
        data = {"task": task, "options": list(scores), "scores": scores, "best": best, "source": source}
        return Variant(self.id, seed, data, prompt, f"which-{task}")

    def solve(self, variant: Variant) -> dict[str, str]:
        return {"choice": chr(65 + variant.data["options"].index(variant.data["best"]))}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        options = variant.data["options"]
        index = parsing.choice(text, len(options))
        for lang in ("en", "zh"):
            if index is None:
                index = parsing.choice(text, len(options), [OBJECTIVE_NAMES[name][lang] for name in options])
        if index is None:  # "mlm", "BERT", "gpt": the model's short names
            words = parsing.clean(text).lower()
            short = {
                "clm": ("clm", "gpt", "因果"),
                "mlm": ("mlm", "bert", "掩码"),
                "prefix": ("prefix", "前缀"),
                "span": ("span", "t5", "片段"),
            }
            hits = [i for i, name in enumerate(options) if any(word in words for word in short[name])]
            index = hits[0] if len(hits) == 1 else None
        if index is None:
            return Parsed(
                None,
                L(
                    f"Answer with one letter, A to {chr(64 + len(options))}.",
                    f"请用一个字母作答，A 到 {chr(64 + len(options))}。",
                ),
            )
        return Parsed(index)

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        picked = data["options"][parsed["choice"].value]
        best = data["best"]
        task = L("continue", "续写") if data["task"] == "continue" else L("fill the middle", "填中间")
        right = data["scores"][picked] >= data["scores"][best] - 1e-9
        feedback = {
            lang: (
                f"{'Right' if right else 'Not the best'}: in {data['source'][lang]} the "
                f"'{task[lang]}' score of {OBJECTIVE_NAMES[picked][lang]} is {data['scores'][picked]:.2f}; "
                f"the best is {OBJECTIVE_NAMES[best][lang]} with {data['scores'][best]:.2f}."
                if lang == "en"
                else f"{'对' if right else '不是最好的'}：在{data['source'][lang]}里，"
                f"{OBJECTIVE_NAMES[picked][lang]} 的“{task[lang]}”得分是 {data['scores'][picked]:.2f}；"
                f"最高的是 {OBJECTIVE_NAMES[best][lang]}，{data['scores'][best]:.2f}。"
            )
            for lang in ("en", "zh")
        }
        return {"choice": PartResult(1.0 if right else 0.0, True, feedback)}, []


WHICH = WhichObjective(
    id="trainlab-which",
    kind="choice",
    title=L("Which of your models for this task?", "你的哪个模型适合这个任务？"),
    parts=(Part("choice", L("your choice", "你的选择"), L("one letter", "一个字母")),),
    hint_texts=(
        L("Look at the column of the task, not at the loss.", "看这个任务那一列，而不是损失。"),
        L("The objective a model practised is the ability it grew.", "模型练的是什么目标，就长出什么能力。"),
    ),
)

EXERCISES = (PREDICT, SURPRISE, WHICH)
