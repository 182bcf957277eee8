"""``objectives-tutor train`` and ``objectives-tutor probe``: the training lab
from the command line.

    train [--objectives clm,mlm[,prefix,span]] [--steps N] [--seed S]
          [--corpus zh|en|arith] [--device cpu|cuda] [--threads N] [--json]
          [--with-lab DIR] [--bug NAME,...|all]
                                 also train from your code-lab files, or a classic bug,
                                 each under its objective's reference row
    probe "prompt" [--json]      the last trained models continue it, or fill its _ blank
    probe --attention "text" [--layer N] [--head H] [--json]
                                 what each model looked at: its attention, beside its mask

Argument checks import no torch; training and probing do.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Mapping
from typing import NoReturn

from rich.console import Console
from rich.table import Table
from rich.text import Text

from exercises.text import L, pick
from tui.commands.arguments import SEED, names, refuse_inapplicable, text, whole
from tui.errors import UsageError
from tui.i18n import t

# engine.train_lab_spec's and engine.toy_corpus's facts, copied because `--help` and the
# argument checks import nothing of the engine (tests/test_layers.py); a test keeps them equal.
CORPORA = ("zh", "en", "arith")
OBJECTIVES = ("clm", "mlm", "prefix", "span")
DEFAULT_STEPS = 500
MAX_STEPS = 100_000
MAX_PROMPT = 2000  # characters a probe reads
STEPS = whole(1, MAX_STEPS)  # LabSettings.check's bounds, checked here without torch
THREADS = whole(1, 64)
DEVICE = text(32)
PROMPT = text(MAX_PROMPT)
LAYER = whole(1, 16)  # checked again against the saved model, which has fewer
HEAD = whole(1, 16)
OBJECTIVE_NAMES = names(len(OBJECTIVES))
# exercises.training.own_code's shipped bugs, copied for --help (a test keeps them equal).
BUG_SLUGS = ("labels_everywhere", "specials_selectable", "no_keep", "mask_never_applied")
BUG_NAMES = names(len(BUG_SLUGS) + 1)
LAB_DIR = text(4096)


def add_parser(commands, common) -> None:
    """The `train` and `probe` subcommands (tui/cli.py calls this: its one-line hook)."""
    train = commands.add_parser(
        "train",
        parents=[common],
        help=L("the training lab: train tiny models with each objective", "训练实验室：用每种目标训练小模型"),
    )
    train.add_argument(
        "--objectives",
        type=OBJECTIVE_NAMES,
        default=["clm", "mlm"],
        help=L(
            f"comma-separated: clm,mlm,prefix,span ({OBJECTIVE_NAMES.limits})",
            f"用逗号分隔：clm,mlm,prefix,span（{OBJECTIVE_NAMES.limits_zh}）",
        ),
    )
    train.add_argument(
        "--steps",
        type=STEPS,
        default=DEFAULT_STEPS,
        help=L(
            f"steps per model, {STEPS.limits} (default {DEFAULT_STEPS})",
            f"每个模型的训练步数，{STEPS.limits_zh}（默认 {DEFAULT_STEPS}）",
        ),
    )
    train.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help=L(
            f"seed for the text, the weights and the masks, {SEED.limits}",
            f"文本、权重和掩码的种子，{SEED.limits_zh}",
        ),
    )
    train.add_argument(
        "--corpus",
        choices=CORPORA,
        default=None,
        help=L("which toy language (default: the one of --lang)", "哪种玩具语言（默认：与 --lang 相同）"),
    )
    train.add_argument(
        "--device",
        type=DEVICE,
        default="cpu",
        help=L(f"cpu (default) or cuda ({DEVICE.limits})", f"cpu（默认）或 cuda（{DEVICE.limits_zh}）"),
    )
    train.add_argument(
        "--threads",
        type=THREADS,
        default=1,
        help=L(
            f"CPU threads, {THREADS.limits} (default 1: steadiest on a busy machine)",
            f"CPU 线程数，{THREADS.limits_zh}（默认 1：在繁忙的机器上最稳定）",
        ),
    )
    train.add_argument("--json", action="store_true", help=L("print JSON", "输出 JSON"))
    train.add_argument(
        "--no-save",
        action="store_true",
        help=L("do not keep the models for `probe`", "不为 `probe` 保留模型"),
    )
    train.add_argument(
        "--rules",
        action="store_true",
        help=L("print the toy language's rules and exit", "输出玩具语言的规则后退出"),
    )
    train.add_argument(
        "--with-lab",
        type=LAB_DIR,
        metavar="DIR",
        help=L(
            "also train with your own code from the code lab's folder DIR (bert_mask, prefix_lm_mask: "
            f"each once its lab check passes), run in the lab's sandbox ({LAB_DIR.limits})",
            (
                "同时用代码实验室文件夹 DIR 中你自己的代码训练（bert_mask、prefix_lm_mask："
                f"各自在通过实验室检查之后），在实验室的沙箱中运行（{LAB_DIR.limits_zh}）"
            ),
        ),
    )
    train.add_argument(
        "--bug",
        type=BUG_NAMES,
        metavar="NAME",
        help=L(
            f"also train from a classic bert_mask bug (comma-separated, or all): {', '.join(BUG_SLUGS)} "
            f"({BUG_NAMES.limits})",
            (
                f"同时用一个经典的 bert_mask 错误训练（用逗号分隔，或 all）：{'、'.join(BUG_SLUGS)}"
                f"（{BUG_NAMES.limits_zh}）"
            ),
        ),
    )
    probe = commands.add_parser(
        "probe",
        parents=[common],
        help=L("ask the last trained models: continue or fill _", "询问最近训练的模型：续写，或填空 _"),
    )
    probe.add_argument(
        "prompt",
        type=PROMPT,
        help=L(
            f"text to continue, or a sentence with one blank written _ or [MASK] ({PROMPT.limits})",
            f"要续写的文本，或含一个空（写作 _ 或 [MASK]）的句子（{PROMPT.limits_zh}）",
        ),
    )
    probe.add_argument(
        "--attention",
        action="store_true",
        help=L(
            "print what each model looked at: its attention weights (rows: queries, columns: keys) "
            "and the mask it was trained with",
            ("输出每个模型关注了什么：它的注意力权重（行：query，列：key）以及训练时所用的掩码"),
        ),
    )
    probe.add_argument(
        "--layer",
        type=LAYER,
        help=L(
            f"with --attention: which layer, {LAYER.limits} (default: the last)",
            f"与 --attention 一起：哪一层，{LAYER.limits_zh}（默认：最后一层）",
        ),
    )
    probe.add_argument(
        "--head",
        type=HEAD,
        help=L(
            f"with --attention: one head, {HEAD.limits} (default: the mean of the heads)",
            f"与 --attention 一起：某一个头，{HEAD.limits_zh}（默认：各个头的平均）",
        ),
    )
    probe.add_argument("--json", action="store_true", help=L("print JSON", "输出 JSON"))


def _check(args: argparse.Namespace, lang: str) -> None:
    """The engine's own checks of the settings (engine.train_lab.LabSettings.check), made
    here without torch so that a typo is told at once; said in the engine's words."""

    def refuse(code: str, **params) -> NoReturn:
        from engine.errors import InvalidInput  # its sentences only: no torch

        raise UsageError(f"objectives-tutor train: {InvalidInput(code, **params).said(lang)}")

    unknown = [name for name in args.objectives if name not in OBJECTIVES]
    if not args.objectives:
        refuse("no-objectives")
    if unknown:
        refuse("unknown-objective", objective=unknown[0])
    if len(set(args.objectives)) != len(args.objectives):
        refuse("repeated-objective")
    if args.device not in ("cpu", "cuda") and not args.device.startswith("cuda:"):
        raise UsageError(f"objectives-tutor train: {t('train-bad-device', lang)}")
    for bug in args.bug or ():
        if bug not in (*BUG_SLUGS, "all"):
            raise UsageError(
                f"objectives-tutor train: {t('train-unknown-bug', lang, bug=bug, bugs=', '.join(BUG_SLUGS))}"
            )


def own_sources(args: argparse.Namespace, lang: str) -> list:
    """The learner's passing files of --with-lab, then the bugs of --bug (torch-free)."""
    from pathlib import Path

    from exercises.training.own_code import BUGS, bug_source, ready

    sources = []
    if args.with_lab is not None:
        folder = Path(args.with_lab).expanduser()
        if not folder.is_dir():
            raise UsageError(f"objectives-tutor train: {t('train-lab-no-folder', lang, folder=folder)}")
        sources = ready(folder)
        if not sources:
            raise UsageError(f"objectives-tutor train: {t('train-lab-none-ready', lang, folder=folder)}")
    slugs = [bug.slug for bug in BUGS] if "all" in (args.bug or ()) else list(dict.fromkeys(args.bug or ()))
    return sources + [bug_source(slug) for slug in slugs]


def run_train(args: argparse.Namespace, lang: str, console: Console) -> int:
    from exercises.training.table import rules_text

    if args.corpus is None:  # the learner's own language, as the app's lab and probe's offer
        args.corpus = lang if lang in CORPORA else "zh"
    if args.rules:
        training = ("objectives", "steps", "seed", "device", "threads", "json", "no_save", "with_lab", "bug")
        refuse_inapplicable(
            args,
            "objectives-tutor train",
            [(name, False, L("training (without --rules)", "训练（不带 --rules）")) for name in training],
        )
        console.print(rules_text(args.corpus, lang))
        return 0
    _check(args, lang)
    if args.device != "cpu":
        import torch

        if not torch.cuda.is_available():
            raise UsageError(f"objectives-tutor train: {t('train-no-cuda', lang)}")
    sources = own_sources(args, lang)
    objectives = list(args.objectives)
    objectives += [name for name in dict.fromkeys(s.objective for s in sources) if name not in objectives]
    if sources and args.with_lab is not None:
        from tui.sandbox_notice import warn_unisolated

        warn_unisolated(lang)  # as `lab check` does: said once where this machine cannot isolate
    from engine.train_lab import LabSettings, run_lab
    from exercises.training.runs import save_run

    settings = LabSettings(
        corpus=args.corpus,
        objectives=tuple(objectives),
        steps=args.steps,
        seed=args.seed,
        threads=args.threads,
        device=args.device,
    )
    announce = None if args.json else _announcer(settings.steps, lang)
    if sources:
        from exercises.training.own_code import warm_up

        warm_up()  # the sandbox's fork server starts while the reference models train
    run = run_lab(settings, on_step=announce)
    own = []
    if sources:
        from exercises.training.own_code import train_sources

        own = [entry.to_json() for entry in train_sources(sources, settings, on_step=announce, data=run.data)]
    result = run.to_json()
    if own:
        result["own"] = own
    if not args.no_save:
        try:
            result["saved_to"] = str(save_run(run, own=own))
        except OSError as error:
            sys.stderr.write(t("train-not-saved", lang, why=error) + "\n")
    failed = any(entry["status"] != "done" for entry in own)
    if args.json:
        from tui.render import emit_json

        emit_json(result)
        return 1 if failed else 0
    print_table(result, lang, console)
    return 1 if failed else 0


def _announcer(steps: int, lang: str):
    """An on_step that says on stderr which model is training, once per model."""
    last = {"name": None}

    def on_step(name: str, step: int, loss: float) -> None:
        if name != last["name"]:
            last["name"] = name
            sys.stderr.write(t("train-training", lang, objective=name, steps=steps) + "\n")
            sys.stderr.flush()

    return on_step


def print_table(result: dict, lang: str, console: Console) -> None:
    from exercises.training.own_code import failure_line, merged_rows
    from exercises.training.recorded import CORPUS_NAMES
    from exercises.training.table import notes, table_rows

    header, rows = table_rows(result, lang)
    rows = merged_rows(result, (header, rows), lang)
    settings = result["settings"]
    table = Table(
        title=t(
            "train-table-title",
            lang,
            corpus=pick(CORPUS_NAMES[settings["corpus"]], lang),
            steps=settings["steps"],
            seed=settings["seed"],
            n=result["test_examples"],
        )
    )
    for index, name in enumerate(header):
        table.add_column(name, justify="left" if index == 0 else "right")
    for row in rows:
        table.add_row(
            *(Text(value) for value in row)
        )  # an own-code row holds the learner's words: plain text
    console.print(table)
    for line in notes(result, lang):
        console.print(line)
    for entry in result.get("own", []):
        line = failure_line(entry, lang)
        if line is not None:
            console.print(Text(line))


def default_settings():
    """The run ``probe`` offers to train when no saved one can be used (tests shrink it)."""
    from engine.train_lab import LabSettings

    return LabSettings()


def _saved_run(args: argparse.Namespace, lang: str, console: Console):
    """The last saved run; when there is none (or it cannot be read), training one is
    offered in a terminal and refused elsewhere, with the command to run: a probe never
    starts a half-minute of training unasked. None: the learner said no."""
    from exercises.training.runs import RunUnreadable, run_path

    if run_path().exists():  # asked before torch is imported: a refusal costs nothing
        from exercises.training.runs import load_run

        try:
            saved = load_run()
        except RunUnreadable as error:
            sys.stderr.write(t("train-unreadable-moved", lang, why=error, moved=error.moved_to or "-") + "\n")
            saved = None
        if saved is not None:
            return saved
    corpus = lang  # the toy language in the learner's language (zh and en are corpora too)
    command = f"objectives-tutor train --corpus {corpus}"
    if args.json or not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(t("probe-not-trained", lang, command=command))
    from exercises.training.recorded import CORPUS_NAMES

    console.print(t("probe-train-now", lang, corpus=pick(CORPUS_NAMES[corpus], lang), command=command))
    try:
        reply = input("[y/N] ")
    except EOFError:  # Ctrl+D: no
        reply = ""
    if reply.strip().lower() not in ("y", "yes", "是", "好"):
        sys.stdout.write(t("probe-declined", lang, command=command) + "\n")
        return None
    return _train_for_probe(dataclasses.replace(default_settings(), corpus=corpus), lang)


def _train_for_probe(settings, lang: str):
    from engine.train_lab import run_lab
    from exercises.training.runs import load_run, save_run

    run = run_lab(settings, on_step=_announcer(settings.steps, lang))
    try:
        save_run(run)
    except OSError as error:
        sys.stderr.write(t("train-not-saved", lang, why=error) + "\n")
        return _from_run(run)
    saved = load_run()
    return saved if saved is not None else _from_run(run)


def _from_run(run):
    from exercises.training.runs import SavedRun

    return SavedRun(
        run.to_json(), run.settings, run.data.vocab, {n: m.model for n, m in run.models.items()}, "", None
    )


def check_prompt(prompt: str, lang: str = "en") -> None:
    """What can be refused before any model is loaded or trained."""
    if not prompt.strip():
        raise UsageError(t("probe-empty", lang))
    if len(prompt) > MAX_PROMPT:
        raise UsageError(t("probe-too-long", lang, limit=MAX_PROMPT))


def probe_answers(saved, prompt: str, lang: str = "en") -> dict:
    """Every saved model's answer to ``prompt`` (continue it, or fill its blank).
    A prompt that cannot be read raises UsageError, in ``lang``."""
    from engine import toy_corpus
    from engine.tokens import MASK
    from engine.train_lab import probe_continue, probe_fill

    check_prompt(prompt, lang)
    corpus = saved.settings.corpus
    tokens = toy_corpus.tokenize(corpus, prompt)
    if not tokens:  # only spaces and characters the toy language drops
        raise UsageError(t("probe-empty", lang))
    unknown = toy_corpus.unknown(saved.vocab, [tok for tok in tokens if tok != MASK])
    stops = [saved.vocab.id_of(s) for s in ("。", ".", ";") if s in saved.vocab.tokens]
    task = "fill" if MASK in tokens else "continue"
    answers = {}
    for name, model in saved.models.items():
        if task == "fill":
            probe = probe_fill(name, model, saved.vocab, tokens)
        else:
            probe = probe_continue(name, model, saved.vocab, tokens, stops=stops)
        answers[name] = {"answer": probe.tokens, "method": probe.method, "passes": probe.passes}
        if probe.top is not None:  # the blank's likeliest tokens with their probabilities
            answers[name]["top"] = [[token, chance] for token, chance in probe.top]
        if probe.scored is not None:  # every ordinary token tried in the blank, one pass each
            answers[name]["scored"] = probe.scored
            answers[name]["scored_passes"] = probe.passes - 1
            answers[name]["table_passes"] = len(toy_corpus.grammar(corpus).fill_choices)
    return {"task": task, "corpus": corpus, "tokens": tokens, "unknown": unknown, "models": answers}


def shown(tokens: list[str]) -> str:
    """Tokens as text a terminal shows as typed: control characters escaped, at most 20."""
    visible = ["".join(c if c.isprintable() else repr(c)[1:-1] for c in token) for token in tokens[:20]]
    return " ".join(visible) + (" …" if len(tokens) > 20 else "")


def top_line(top: list, lang: str) -> str:
    """The blank's likeliest tokens: "top 5: 本 93% · 杯 3% · ..." """
    listed = " · ".join(f"{shown([token])} {chance:.0%}" for token, chance in top)
    return t("probe-top", lang, count=len(top), tokens=listed)


def probe_text(result: dict, lang: str, styles: Mapping[str, str] | None = None) -> Text:
    """Each model's answer to a probe (``probe_answers``), how it was asked in an aside,
    and its likeliest tokens: what ``probe`` prints and the training lab shows (``styles``,
    each objective's colour there)."""
    from engine.toy_corpus import grammar
    from exercises.training.table import METHODS, OBJECTIVE_NAMES

    joiner = grammar(result["corpus"]).joiner
    text = Text()
    if result["unknown"]:
        text.append(t("probe-unknown", lang, tokens=shown(result["unknown"])) + "\n", style="yellow")
    for name, answer in result["models"].items():
        text.append(
            t("part-line", lang, part=pick(OBJECTIVE_NAMES[name], lang)), style=(styles or {}).get(name, "")
        )
        text.append(joiner.join(answer["answer"]) or "∅")
        text.append(t("aside", lang, text=pick(METHODS[answer["method"]], lang)) + "\n", style="dim")
        if "top" in answer:
            text.append("  " + top_line(answer["top"], lang) + "\n", style="dim")
        if "scored" in answer:
            said = t(
                "probe-scored",
                lang,
                token=joiner.join(answer["scored"]),
                passes=answer["scored_passes"],
                choices=answer["table_passes"],
            )
            text.append("  " + said + "\n", style="dim")
    text.rstrip()
    return text


def attention_maps(saved, prompt: str, lang: str = "en") -> dict:
    """Every saved model's attention on ``prompt``: objective -> engine AttentionMap.
    A prompt that cannot be read raises UsageError, in ``lang``."""
    from engine import toy_corpus
    from engine.tokens import MASK
    from engine.train_lab import attention_map

    check_prompt(prompt, lang)
    tokens = toy_corpus.tokenize(saved.settings.corpus, prompt)
    if not tokens:
        raise UsageError(t("probe-empty", lang))
    if tokens.count(MASK) > 1:
        raise UsageError(t("attention-one-blank", lang))
    return {name: attention_map(name, model, saved.vocab, tokens) for name, model in saved.models.items()}


def attention_answers(
    saved, prompt: str, lang: str = "en", layer: int | None = None, head: int | None = None
) -> dict:
    """``attention_maps`` as JSON. ``layer`` and ``head`` count from 1 as the learner
    writes them; None: the last layer, the mean of the heads."""
    from engine import toy_corpus
    from engine.tokens import MASK

    for model in saved.models.values():
        if layer is not None and layer > model.shape.layers:
            raise UsageError(t("attention-no-layer", lang, layer=layer, layers=model.shape.layers))
        if head is not None and head > model.shape.heads:
            raise UsageError(t("attention-no-head", lang, head=head, heads=model.shape.heads))
    maps = attention_maps(saved, prompt, lang)
    tokens = toy_corpus.tokenize(saved.settings.corpus, prompt)
    return {
        "corpus": saved.settings.corpus,
        "unknown": toy_corpus.unknown(saved.vocab, [token for token in tokens if token != MASK]),
        "models": {
            name: view.to_json(None if layer is None else layer - 1, None if head is None else head - 1)
            for name, view in maps.items()
        },
    }


def print_attention(result: dict, lang: str, console: Console) -> None:
    from exercises.training.table import OBJECTIVE_NAMES
    from tui.render import attention_grid, mask_grid

    if result["unknown"]:
        console.print(t("probe-unknown", lang, tokens=shown(result["unknown"])))
    for name, view in result["models"].items():
        head = (
            t("attention-mean-heads", lang)
            if view["head"] == "mean"
            else t("attention-head", lang, head=view["head"])
        )
        console.print(
            Text(
                f"{pick(OBJECTIVE_NAMES[name], lang)} · {t('attention-layer', lang, layer=view['layer'])} · {head}",
                style="bold",
            )
        )
        console.print(t("attention-legend", lang))
        console.print(attention_grid(view["attention"], view["tokens"], width=console.width, lang=lang))
        console.print(t("attention-trained-mask", lang))
        console.print(mask_grid(view["mask"], width=console.width, lang=lang))
        if view["answer_row"] is not None:
            row = view["answer_row"]
            console.print(t("attention-answer-row", lang, row=row, token=shown([view["tokens"][row]])))
        console.print("")


def run_probe(args: argparse.Namespace, lang: str, console: Console) -> int:

    if not args.attention:
        refuse_inapplicable(
            args,
            "objectives-tutor probe",
            [(name, False, L("--attention", "--attention")) for name in ("layer", "head")],
        )
    try:
        check_prompt(args.prompt, lang)  # before a model is trained for it
        saved = _saved_run(args, lang, console)
        if saved is None:
            return 0
        if args.attention:
            result = attention_answers(saved, args.prompt, lang, args.layer, args.head)
        else:
            result = probe_answers(saved, args.prompt, lang)
    except UsageError as error:
        raise UsageError(f"objectives-tutor probe: {error}") from None
    if args.attention:
        if args.json:
            from tui.render import emit_json

            emit_json(result)
        else:
            print_attention(result, lang, console)
        return 0
    if args.json:
        from tui.render import emit_json

        emit_json(result)
        return 0
    console.print(probe_text(result, lang))
    return 0
