"""The curriculum, declared once: the objectives in teaching order, each with its
lesson text, its live figure and its exercises in order.

This is the only place an exercise is placed in the course: its objective, its
position and the catalogue's order all come from here (``exercises.catalogue``
checks that every exercise module is declared, and every declared id exists).
Torch-free, so the app's first frame can list the course before the engine loads.
Adding an exercise: one module in ``exercises/items/`` plus its id below."""

from __future__ import annotations

from dataclasses import dataclass

from exercises.text import Bilingual, L


@dataclass(frozen=True)
class Objective:
    id: str
    title: Bilingual
    summary: Bilingual
    figure: str | None  # which live figure the lesson shows
    exercises: tuple[str, ...]


OBJECTIVES: tuple[Objective, ...] = (
    Objective(
        "self-supervision",
        L("Self-supervision", "自监督"),
        L("Labels made from the text itself", "从文本本身造出标签"),
        "samples",
        ("concept-self-supervision",),
    ),
    Objective(
        "clm",
        L("Causal LM", "因果语言建模"),
        L("GPT's 'continue': predict the next token", "GPT 的“续写”：预测下一个词"),
        "clm",
        ("clm-shift", "loss-sanity", "perplexity", "reflect-clm-generation"),
    ),
    Objective(  # issue 24: how a corpus becomes the windows a causal LM trains on
        "packing",
        L("Packing documents into windows", "把文档打包成训练窗口"),
        L("Concatenate, cut into windows, shift inside each", "首尾相连、切成窗口、窗口内错位"),
        "packing",
        ("packing-windows",),
    ),
    Objective(
        "mlm",
        L("Masked LM", "掩码语言建模"),
        L("BERT's 'fill in the blank': 15 %, 80/10/10", "BERT 的“填空”：15%，80/10/10"),
        "mlm",
        (
            "mlm-abcde",
            "mlm-eligible",
            "expected-counts",
            "concept-80-10-10",
            "concept-nsp",
            "reflect-mlm-fill",
            "reflect-mask-rate",
        ),
    ),
    Objective(  # issue 24: what BERT really reads, and why whole words are masked together
        "subwords",
        L("Subwords and whole-word masking", "子词与整词掩码"),
        L(
            "WordPiece pieces, Chinese characters, masking whole words",
            "WordPiece 子词、中文按字、整词一起遮",
        ),
        "subwords",
        ("whole-word-masking",),
    ),
    Objective(
        "visibility",
        L("CLM vs MLM: who sees what", "CLM 与 MLM：谁能看到什么"),
        L("Causal and bidirectional attention masks", "因果掩码与双向掩码"),
        "visibility",
        ("visibility", "mask-matrix", "three-masks"),
    ),
    Objective(
        "span",
        L("Span corruption", "片段破坏"),
        L("T5's 'repair the missing span'", "T5 的“修复缺失片段”"),
        "span",
        ("span-corruption", "bart-vs-t5", "reflect-summarisation"),
    ),
    Objective(
        "architecture",
        L("Objective ↔ architecture", "目标 ↔ 架构"),
        L("Decoder-only, encoder-only, encoder-decoder", "仅解码器、仅编码器、编码器-解码器"),
        "samples",
        ("concept-architecture", "concept-task"),
    ),
    Objective(
        "prefix-lm",
        L("Prefix LM", "前缀语言模型"),
        L("A bidirectional prefix, a causal continuation", "双向的前缀，因果的续写"),
        "prefix",
        ("prefix-lm-labels", "concept-prefix-lm"),
    ),
    Objective(  # h7: the training lab
        "train-lab",
        L("Objective decides ability", "目标决定能力"),
        L("Train tiny models with each objective, live", "用不同目标现场训练小模型"),
        "train-lab",
        ("trainlab-predict", "trainlab-surprise", "trainlab-which"),
    ),
    Objective(
        "misconceptions",
        L("Common misconceptions", "常见误区"),
        L("What the objective really decides", "训练目标真正决定了什么"),
        None,
        ("concept-misconceptions", "which-objective"),
    ),
)

BY_ID = {objective.id: objective for objective in OBJECTIVES}

EXERCISE_IDS: tuple[str, ...] = tuple(eid for objective in OBJECTIVES for eid in objective.exercises)

_OBJECTIVE_OF = {eid: objective.id for objective in OBJECTIVES for eid in objective.exercises}


def objective_of(exercise_id: str) -> str:
    """The objective whose lesson practises ``exercise_id``."""
    return _OBJECTIVE_OF[exercise_id]


def next_objective(objective_id: str) -> Objective | None:
    """The lesson taught after ``objective_id`` (None after the last one)."""
    ids = [objective.id for objective in OBJECTIVES]
    index = ids.index(objective_id) + 1
    return OBJECTIVES[index] if index < len(OBJECTIVES) else None


def lesson_source(objective_id: str, lang: str) -> str:
    """The lesson's Markdown in ``lang`` as written, placeholders and all (shipped in the
    package, read on demand)."""
    from importlib import resources

    folder = resources.files("exercises") / "lessons"
    return (folder / f"{objective_id}.{lang}.md").read_text(encoding="utf-8")
