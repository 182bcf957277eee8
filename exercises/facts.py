"""Where a lesson's facts come from: placeholders the lesson renderer fills.

A lesson (zh and en alike) never types a measured number or a lesson's number by hand:
it writes a placeholder, and this module fills it when the lesson is rendered, in the
reader's language.

- ``{{lesson:ID}}``: a cross-reference to another lesson, by the curriculum's id; rendered
  as that lesson's number and title in the reader's language ("lesson 9, "Prefix LM"",
  "第 9 课“前缀语言模型”"), so reordering the course or renaming a lesson cannot leave a
  stale reference behind.
- ``{{run:WHAT}}``: a figure of the training lab's recorded runs
  (``exercises.training.recorded``: data in the repo, with the command that regenerates
  it). The toy language is the reader's (the lab opens on it), so the English lesson
  quotes the English toy language's runs and the Chinese lesson the Chinese one's.
  WHAT is one of
  ``seeds`` (the recorded seeds, "0–7"), ``corpus`` (the toy language's name),
  ``steps``, ``OBJ.TASK`` (``clm``/``mlm``/``prefix``/``span`` and ``continue``/``fill``/
  ``final_loss``: the range over the seeds, one value when all agree),
  ``OBJ.TASK.list`` (each seed's value, in order), ``bug.SLUG.TASK`` and
  ``bug.SLUG.TASK.list`` (a classic bug's masked LM), ``chance.TASK`` and
  ``majority.TASK`` (the baselines).
- ``{{engine:NAME}}``: a figure of the lessons' own runs (the seeds' printed outputs: the
  causal-LM demo's loss, the masked-LM demo's split, T5's float32 arithmetic), computed
  by the engine, recorded in ``engine_figures.json`` by ``python -m exercises.facts
  --record`` (torch, milliseconds) and recomputed by a test, so that rendering stays
  torch-free.

A paper's figure is written in the text beside its citation (the paragraph names the
paper's arXiv id or its section/table): ``tests/test_facts.py`` fails on a figure in a
lesson that has none of these sources, and on a zh/en pair that states different ones.
Rendering reads JSON and constants only: it never trains and never imports torch."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

from exercises.text import L, fmt, listing, pick

# How a figure and a cross-reference read in each language.
LESSON_REFERENCE = L('lesson {number}, "{title}"', "第 {number} 课“{title}”")
PERCENT = L("{value} %", "{value}%")

PLACEHOLDER = re.compile(r"\{\{(lesson|run|engine):([A-Za-z0-9_.\-]+)\}\}")


def lesson_reference(objective_id: str, lang: str) -> str:
    """'lesson 9, "Prefix LM"' / '第 9 课“前缀语言模型”': the curriculum's number and title."""
    from exercises.curriculum import OBJECTIVES

    ids = [objective.id for objective in OBJECTIVES]
    objective = OBJECTIVES[ids.index(objective_id)]
    number = ids.index(objective_id) + 1
    title = pick(objective.title, lang)
    return pick(fmt(LESSON_REFERENCE, number=number, title=title), lang)


def _two(value: float) -> str:
    return f"{value:.2f}"


def _span(values: list[float], lang: str) -> str:
    low, high = min(values), max(values)
    if _two(low) == _two(high):
        return _two(low)
    return f"{_two(low)}–{_two(high)}"


def run_figure(what: str, lang: str) -> str:
    """One figure of the recorded training-lab runs, for the reader's toy language."""
    from exercises.training.recorded import CORPUS_NAMES, recorded

    data = recorded()
    seeds = data["settings"]["seeds"]
    corpus = lang if f"{lang}/{seeds[0]}" in data["runs"] else "zh"
    runs = [data["runs"][f"{corpus}/{seed}"] for seed in seeds]
    parts = what.split(".")
    if what == "seeds":
        return f"{seeds[0]}–{seeds[-1]}"
    if what == "corpus":
        return pick(CORPUS_NAMES[corpus], lang)
    if what == "steps":
        return str(data["settings"]["steps"])
    if parts[0] in ("chance", "majority") and len(parts) == 2:
        values = [run["baselines"][parts[1]][parts[0]] for run in runs]
        return (
            _span([round(value, 3) for value in values], lang) if parts[1] != "fill" else f"{values[0]:.3g}"
        )
    as_list = parts[-1] == "list"
    if as_list:
        parts = parts[:-1]
    if parts[0] == "bug" and len(parts) == 3:
        values = [run["bugs"][parts[1]][parts[2]] for run in runs]
    elif len(parts) == 2:
        values = [run["objectives"][parts[0]][parts[1]] for run in runs]
    else:
        raise KeyError(what)
    if any(value is None for value in values):
        raise KeyError(what)
    return listing([_two(value) for value in values], lang) if as_list else _span(values, lang)


ENGINE_PATH = Path(__file__).with_name("engine_figures.json")
ENGINE_COMMAND = ".venv/bin/python -m exercises.facts --record"
SPREAD_SEEDS = 100  # the causal-LM demo's loss over seeds 0..99: the middle 90 of them


def engine_values() -> dict:
    """What the engine computes for the lessons' own runs (the seeds' printed outputs),
    computed by the engine (torch): ``--record`` keeps them in ``engine_figures.json``
    and a test recomputes them, so the file cannot drift from the engine."""
    from engine import textbook
    from engine.settings import NOISE_DENSITY
    from engine.spans import _float32
    from engine.textbook import clm_demo_loss

    clm = textbook.clm_run()
    mlm = textbook.mlm_run()
    counts = mlm.counts()  # the fate each selected token drew: mask, random, keep
    losses = sorted(clm_demo_loss(seed) for seed in range(SPREAD_SEEDS))
    trim = SPREAD_SEEDS // 20
    return {
        "command": ENGINE_COMMAND,
        "clm": {
            "loss": round(clm.loss, 4),
            "loss_unscaled": round(clm.loss_unscaled, 4),
            "baseline": round(clm.baseline, 4),
            "logit_variance": round(clm.logit_variance, 4),
            "spread": [round(losses[trim], 4), round(losses[-trim - 1], 4)],
        },
        "mlm": {"selected": int(mlm.selected.sum()), **counts},
        "t5": {"noise_190": _float32(_float32(190.0) * _float32(NOISE_DENSITY))},
    }


@cache
def _engine_recorded() -> dict:
    return json.loads(ENGINE_PATH.read_text(encoding="utf-8"))


def _percent(count: int, total: int, lang: str) -> str:
    return pick(fmt(PERCENT, value=round(100 * count / total)), lang)


def engine_figure(name: str, lang: str) -> str:
    """A figure of the lessons' own runs, as the engine computed it (recorded)."""
    values = _engine_recorded()
    clm, mlm = values["clm"], values["mlm"]
    shares = [mlm[key] for key in ("mask", "random", "keep")]
    formats: dict[str, Callable[[], str]] = {
        "clm.loss": lambda: f"{clm['loss']:.4f}",
        "clm.loss2": lambda: f"{clm['loss']:.2f}",
        "clm.loss_unscaled": lambda: f"{clm['loss_unscaled']:.2f}",
        "clm.baseline": lambda: f"{clm['baseline']:.2f}",
        "clm.variance": lambda: f"{clm['logit_variance']:.2f}",
        "clm.half_variance": lambda: f"{clm['logit_variance'] / 2:.2f}",
        "clm.estimate": lambda: f"{clm['baseline'] + clm['logit_variance'] / 2:.2f}",
        "clm.spread": lambda: f"{clm['spread'][0]:.1f}–{clm['spread'][1]:.1f}",
        "mlm.split": lambda: " / ".join(_percent(count, mlm["selected"], lang) for count in shares),
        "mlm.split_short": lambda: "/".join(f"{round(100 * count / mlm['selected'])}" for count in shares),
        "clm.perplexity": lambda: f"{math.exp(clm['loss']):.0f}",
        "t5.noise_190": lambda: f"{values['t5']['noise_190']:.6f}",
    }
    return formats[name]()


SOURCES: dict[str, Callable[[str, str], str]] = {
    "lesson": lesson_reference,
    "run": run_figure,
    "engine": engine_figure,
}

# What each kind of source is, for the test's and a contributor's messages.
KINDS = {
    "lesson": L("the curriculum (exercises/curriculum.py)", "课程表（exercises/curriculum.py）"),
    "run": L(
        "the training lab's recorded runs (exercises/training/recorded_runs.json)",
        "训练实验记录下来的运行（exercises/training/recorded_runs.json）",
    ),
    "engine": L(
        "the engine's runs of the lessons' examples (exercises/engine_figures.json)",
        "引擎对讲解中示例的运行结果（exercises/engine_figures.json）",
    ),
}


def render(text: str, lang: str) -> str:
    """``text`` with every placeholder filled in ``lang`` (an unknown one raises KeyError:
    a lesson naming a fact nobody computes is a defect, caught by the tests)."""
    return PLACEHOLDER.sub(lambda match: SOURCES[match.group(1)](match.group(2), lang), text)


def placeholders(text: str) -> list[str]:
    """The placeholders of ``text``, in order, as written."""
    return [match.group(0) for match in PLACEHOLDER.finditer(text)]


def lesson_text(objective_id: str, lang: str) -> str:
    """The lesson as the reader sees it: every figure and cross-reference filled from its
    source, in ``lang`` (here, not in ``exercises.curriculum``: the references read the
    curriculum, so the curriculum must not read them)."""
    from exercises.curriculum import lesson_source

    return render(lesson_source(objective_id, lang), lang)


def main(argv: list[str]) -> int:
    """``--record``: compute the engine's figures and write them beside this module."""
    if argv != ["--record"]:
        print(f"usage: {ENGINE_COMMAND}", file=sys.stderr)
        return 2
    ENGINE_PATH.write_text(json.dumps(engine_values(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {ENGINE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
