"""The ``objectives-tutor`` command line.

Heavy imports (torch, the engine, rich) happen inside the command that needs
them, so ``--help`` and the app's first frame stay fast. Bad input exits 2 with
one line on stderr; nothing here ever shows a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import unicodedata
from collections.abc import Sequence
from typing import NoReturn

from exercises.text import L
from tui.cjk_wrap import CJK_WORD
from tui.commands import arguments
from tui.commands.arguments import (
    MAX_ANSWER_CHARS,
    PORT,
    SEED,
    ArgumentsError,
    named_text,
    names,
    positions,
    real,
    refuse_undecodable,
    said,
    span_list,
    speaking,
    text,
    whole,
)
from tui.errors import UsageError
from tui.i18n import LANGUAGES, detect_language, error_text, t

PROG = "objectives-tutor"
__all__ = ["ArgumentsError", "OneLineParser", "build_parser", "main", "usage_line"]

# The sizes of show and exercise/check (textbook's are in tui/commands/textbook.py, the
# training lab's in tui/commands/train.py), stated in --help and docs/learner.md.
MASK_N = whole(1, 512)  # show mask --n: a 512 × 512 mask is 262,144 cells (JSON ~0.6 MB)
PREFIX = whole(0, MASK_N.high)  # the engine checks it against n and the text
PROBABILITY = real(0, 1, percent=True)
MEAN_SPAN = real(1, 100)
HOST = text(253)  # the longest DNS name
URL = text(2048)
EXERCISE_ID = text(100)
SENTENCE_CHARS = 256  # --text: a sentence (a clm or prefix sample holds its n × n mask: 65,536 cells)
SENTENCE = text(SENTENCE_CHARS)
POSITIONS, SPANS, FATES = positions(SENTENCE_CHARS), span_list(SENTENCE_CHARS), names(SENTENCE_CHARS)
SENTENCE_PREFIX = whole(0, SENTENCE_CHARS)
ANSWER = named_text(MAX_ANSWER_CHARS)


def cells(text: str) -> int:
    """The columns ``text`` takes in a terminal: a Chinese character (or a full-width
    sign) takes two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def wrap_cells(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken where tui/cjk_wrap.py allows:
    between Chinese characters (not before ，。） nor after （), at spaces between Latin
    words. A word wider than ``width`` has a line of its own."""
    lines, line = [], ""
    for word in CJK_WORD.findall(text):
        if line.strip() and cells((line + word).rstrip()) > width:
            lines.append(line.rstrip())
            line = word.lstrip()
        else:
            line += word
    if line.strip():
        lines.append(line.rstrip())
    return lines


class CellsFormatter(argparse.HelpFormatter):
    """argparse wraps help at spaces, counting characters: a Chinese sentence has no
    spaces and each of its characters is two columns wide, so its lines would run past
    the terminal's edge. Text with wide characters is wrapped by columns (``wrap_cells``);
    any other text exactly as argparse wraps it (the English --help is unchanged)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        if cells(text) == len(text):
            return super()._split_lines(text, width)
        return wrap_cells(self._whitespace_matcher.sub(" ", text).strip(), width)

    # A section's heading line, which argparse ends with ':' itself (HelpFormatter._Section),
    # when the heading is Chinese ("选项:"): Chinese takes the full-width colon.
    _WIDE_HEADING = re.compile(r"^(\S[^\n]*[^\x00-\x7f]):$", re.MULTILINE)

    def format_help(self) -> str:
        return self._WIDE_HEADING.sub(r"\1：", super().format_help())

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if cells(text) == len(text):
            return super()._fill_text(text, width, indent)
        flat = self._whitespace_matcher.sub(" ", text).strip()
        return "\n".join(indent + line for line in wrap_cells(flat, width - len(indent)))


class Subcommands(argparse._SubParsersAction):
    """``add_parser`` takes a command's ``help=`` as an ``L(en, zh)`` pair too (``said``)."""

    def add_parser(self, name, **kwargs):
        if "help" in kwargs:
            kwargs["help"] = said(kwargs["help"])
        return super().add_parser(name, **kwargs)


class OneLineParser(argparse.ArgumentParser):
    """argparse prints the usage and the error on two lines; we print one (in the
    learner's language: built and read inside ``speaking``). Its actions refuse an option
    given twice and record the options typed (tui/commands/arguments.py: rule 3). Its own
    texts (``description=``, every ``help=``) are ``L(en, zh)`` pairs, said in the
    language it is built in (``said``): one mechanism, as everywhere else."""

    def __init__(self, *args, description=None, **kwargs) -> None:
        kwargs.setdefault("formatter_class", CellsFormatter)
        super().__init__(*args, description=said(description), **kwargs)
        for name, action in arguments.ACTIONS.items():
            self.register("action", name, action)
        self.register("action", "parsers", Subcommands)

    def add_argument(self, *args, **kwargs):
        if "help" in kwargs:
            kwargs["help"] = said(kwargs["help"])
        return super().add_argument(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise ArgumentsError(self.prog, message)


def usage_line(error: ArgumentsError, lang: str) -> str:
    """A usage error's one line: its sentence is in ``lang`` already (``speaking``)."""
    return t("usage-line", lang, prog=error.prog, message=error.message)


def requested_language(argv: Sequence[str]) -> str:
    """The language asked for on the command line (``--lang zh`` or ``--lang=zh``, anywhere),
    else the locale's: known before argparse reads the line, so its errors speak it too."""
    words = list(argv)
    for index, word in enumerate(words):
        if word == "--":  # what follows is not an option
            break
        if word == "--lang" and index + 1 < len(words):
            value = words[index + 1]
        elif word.startswith("--lang="):
            value = word.removeprefix("--lang=")
        else:
            continue
        if value in LANGUAGES:
            return value
    return detect_language()


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description=L(
            "Learn how language models are pretrained: causal LM, masked LM, span corruption, prefix LM.",
            "学习语言模型是怎样预训练的：因果语言模型（causal LM）、掩码语言模型（masked LM）、片段破坏（span corruption）、前缀语言模型（prefix LM）。",
        ),
    )
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        help=L("language of the output (default: from the locale)", "输出的语言（默认：按系统区域设置）"),
    )
    # --lang is accepted after any subcommand too, without overriding an earlier one.
    common = OneLineParser(add_help=False)
    common.add_argument("--lang", choices=LANGUAGES, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)

    show = commands.add_parser(
        "show",
        parents=[common],
        help=L("compute and show a mask or a training sample", "计算并显示一个掩码或一个训练样本"),
    )
    show_kinds = show.add_subparsers(dest="what", metavar="WHAT", required=True, parser_class=OneLineParser)

    mask = show_kinds.add_parser(
        "mask",
        parents=[common],
        help=L(
            "an attention mask: causal | bidirectional | prefix",
            "注意力掩码：causal | bidirectional | prefix",
        ),
    )
    mask.add_argument("kind", choices=("causal", "bidirectional", "prefix"))
    mask.add_argument(
        "--n",
        type=MASK_N,
        default=8,
        help=L(f"sequence length, {MASK_N.limits} (default 8)", f"序列长度，{MASK_N.limits_zh}（默认 8）"),
    )
    mask.add_argument(
        "--prefix",
        type=PREFIX,
        help=L(
            f"prefix mask: prefix length, {PREFIX.limits} and at most n (default n/2)",
            f"前缀掩码：前缀长度，{PREFIX.limits_zh}，且不超过 n（默认 n/2）",
        ),
    )
    mask.add_argument(
        "--json",
        action="store_true",
        help=L("print JSON: key 'mask', 1 = blocked", "输出 JSON：键 'mask'，1 = 屏蔽"),
    )

    sample = show_kinds.add_parser(
        "sample",
        parents=[common],
        help=L(
            "one sentence as a training sample: clm | mlm | span | prefix",
            "把一句话做成训练样本：clm | mlm | span | prefix",
        ),
    )
    sample.add_argument("objective", choices=("clm", "mlm", "span", "prefix"))
    sample.add_argument(
        "--text",
        type=SENTENCE,
        help=L(
            f"the sentence, {SENTENCE.limits} (English words or Chinese characters; default: the lesson's)",
            f"句子，{SENTENCE.limits_zh}（英文单词或汉字；默认：课上的句子）",
        ),
    )
    sample.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help=L(
            f"mlm, random spans: seed of the draws, {SEED.limits} (default 0)",
            f"mlm、随机片段：抽样的种子，{SEED.limits_zh}（默认 0）",
        ),
    )
    sample.add_argument(
        "--p",
        type=PROBABILITY,
        help=L(
            f"mlm: selection probability, {PROBABILITY.limits} (default 0.15, BERT's)",
            f"mlm：选中概率，{PROBABILITY.limits_zh}（默认 0.15，即 BERT 的 15 %%）",
        ),
    )
    sample.add_argument(
        "--positions",
        type=POSITIONS,
        help=L(
            f"mlm: select exactly these positions, e.g. 1,4 ({POSITIONS.limits})",
            f"mlm：正好选中这些位置，例如 1,4（{POSITIONS.limits_zh}）",
        ),
    )
    sample.add_argument(
        "--fates",
        type=FATES,
        help=L(
            f"mlm, with --positions: each one's fate, e.g. mask,random,keep ({FATES.limits})",
            f"mlm，与 --positions 一起：每个位置的处理，例如 mask,random,keep（{FATES.limits_zh}）",
        ),
    )
    sample.add_argument(
        "--whole-word",
        action="store_true",
        help=L("mlm: select all pieces of a word together", "mlm：一个词的所有子词一起选中"),
    )
    sample.add_argument(
        "--cls-sep",
        action="store_true",
        help=L("mlm: wrap the text in [CLS] ... [SEP]", "mlm：用 [CLS] ... [SEP] 包住文本"),
    )
    sample.add_argument(
        "--spans",
        type=SPANS,
        help=L(
            f"span: hide these spans, e.g. 2:5,7:8, end exclusive ({SPANS.limits})",
            f"span：遮住这些片段，例如 2:5,7:8，不含终点（{SPANS.limits_zh}）",
        ),
    )
    sample.add_argument(
        "--density",
        type=PROBABILITY,
        help=L(
            f"span without --spans: noise density, {PROBABILITY.limits} (default 0.15, T5's)",
            f"span，不带 --spans：噪声密度，{PROBABILITY.limits_zh}（默认 0.15，即 T5 的）",
        ),
    )
    sample.add_argument(
        "--mean-span",
        type=MEAN_SPAN,
        help=L(
            f"span without --spans: mean span length, {MEAN_SPAN.limits} (default 3, T5's)",
            f"span，不带 --spans：平均片段长度，{MEAN_SPAN.limits_zh}（默认 3，即 T5 的）",
        ),
    )
    sample.add_argument(
        "--prefix",
        type=SENTENCE_PREFIX,
        help=L(
            f"prefix: prefix length, {SENTENCE_PREFIX.limits} and at most the text's length (default: half)",
            f"prefix：前缀长度，{SENTENCE_PREFIX.limits_zh}，且不超过文本长度（默认：一半）",
        ),
    )
    sample.add_argument(
        "--json", action="store_true", help=L("print JSON instead of tables", "输出 JSON，而不是表格")
    )

    from tui.commands import textbook as textbook_run  # its sizes: light, no rich, no torch

    textbook = commands.add_parser(
        "textbook",
        parents=[common],
        help=L("the lessons' code runs, reproduced by the engine", "课上的代码运行结果，由引擎重现"),
    )
    textbook.add_argument("run", choices=textbook_run.RUNS)
    textbook.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help=L(
            f"clm, mlm: torch seed, {SEED.limits} (default 0, the lessons')",
            f"clm、mlm：torch 种子，{SEED.limits_zh}（默认 0，与课上相同）",
        ),
    )
    textbook.add_argument(
        "--batch",
        type=textbook_run.ANY_BATCH,
        help=L(
            f"batch size, default (limits): {textbook_run.sizes_help('batch')}",
            f"批大小，默认值（范围）：{textbook_run.sizes_help('batch', 'zh')}",
        ),
    )
    textbook.add_argument(
        "--seq-len",
        type=textbook_run.ANY_SEQ_LEN,
        help=L(
            f"sequence length, default (limits): {textbook_run.sizes_help('seq_len')}",
            f"序列长度，默认值（范围）：{textbook_run.sizes_help('seq_len', 'zh')}",
        ),
    )
    textbook.add_argument(
        "--p",
        type=PROBABILITY,
        help=L(
            f"mlm: mask probability, {PROBABILITY.limits} (default 0.15, BERT's)",
            f"mlm：掩码概率，{PROBABILITY.limits_zh}（默认 0.15，即 BERT 的 15 %%）",
        ),
    )
    textbook.add_argument(
        "--text",
        type=SENTENCE,
        help=L(
            f"three-samples: the sentence, {SENTENCE.limits} (default: the lesson's)",
            f"three-samples：句子，{SENTENCE.limits_zh}（默认：课上的句子）",
        ),
    )
    textbook.add_argument(
        "--json",
        action="store_true",
        help=L("print JSON instead of the lesson's layout", "输出 JSON，而不是课上的排版"),
    )
    catalogue = commands.add_parser(
        "exercises", parents=[common], help=L("list the exercises", "列出所有练习")
    )
    catalogue.add_argument("--json", action="store_true", help=L("print JSON", "输出 JSON"))
    catalogue.add_argument(
        "--check",
        action="store_true",
        help=L(
            "self-test the content (both languages, solutions score 1.0, hints)",
            "自检内容（两种语言、参考答案得 1.0 分、提示）",
        ),
    )

    exercise = commands.add_parser(
        "exercise", parents=[common], help=L("show one variant of an exercise", "显示一道练习的一个变体")
    )
    exercise.add_argument(
        "id",
        type=EXERCISE_ID,
        help=L(
            f"exercise id (see `objectives-tutor exercises`; {EXERCISE_ID.limits})",
            f"练习编号（见 `objectives-tutor exercises`；{EXERCISE_ID.limits_zh}）",
        ),
    )
    exercise.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help=L(
            f"which variant, {SEED.limits} (default 0, the lesson's)",
            f"哪个变体，{SEED.limits_zh}（默认 0，即课上的）",
        ),
    )
    exercise.add_argument(
        "--solution",
        action="store_true",
        help=L("also print the engine's solution", "同时输出引擎算出的答案"),
    )
    exercise.add_argument(
        "--rubric",
        action="store_true",
        help=L(
            "print how the exercise is scored (not with --seed, --solution, --hints)",
            "输出这道练习的评分方式（不能与 --seed、--solution、--hints 同用）",
        ),
    )
    exercise.add_argument(
        "--hints", action="store_true", help=L("also print the hints, in order", "同时按顺序输出提示")
    )
    exercise.add_argument("--json", action="store_true", help=L("print JSON", "输出 JSON"))

    check = commands.add_parser(
        "check", parents=[common], help=L("grade an answer to an exercise", "给一道练习的答案评分")
    )
    check.add_argument(
        "id",
        type=EXERCISE_ID,
        help=L(f"exercise id ({EXERCISE_ID.limits})", f"练习编号（{EXERCISE_ID.limits_zh}）"),
    )
    check.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help=L(f"which variant, {SEED.limits} (default 0)", f"哪个变体，{SEED.limits_zh}（默认 0）"),
    )
    check.add_argument(
        "--answer",
        action="append",
        type=ANSWER,
        metavar="PART=TEXT",
        help=L(
            f"one part's answer ({ANSWER.limits}); once per part",
            f"一个小题的答案（{ANSWER.limits_zh}）；每个小题给一次",
        ),
    )
    check.add_argument("--json", action="store_true", help=L("print JSON", "输出 JSON"))
    check.add_argument(
        "--record",
        action="store_true",
        help=L(
            "save the graded attempt in your progress, as the app does",
            "把评过分的作答存入你的学习记录，与应用里一样",
        ),
    )

    progress = commands.add_parser(
        "progress", parents=[common], help=L("your practice history", "你的练习记录")
    )
    progress.add_argument(
        "--json",
        action="store_true",
        help=L(
            "print JSON: attempts, per-objective summaries, due reviews",
            "输出 JSON：作答、各目标的汇总、到期的复习",
        ),
    )
    progress.add_argument(
        "--csv", action="store_true", help=L("print every attempt as CSV", "以 CSV 输出每一次作答")
    )
    progress.add_argument(
        "--reset",
        action="store_true",
        help=L("erase your progress (asks first; keeps a backup)", "清除你的学习记录（先询问；保留备份）"),
    )
    progress.add_argument(
        "--yes", action="store_true", help=L("with --reset: do not ask", "与 --reset 一起：不询问")
    )

    serve = commands.add_parser(
        "serve",
        parents=[common],
        help=L(
            "serve the app to browsers (the 'serve' extra)", "在浏览器中提供本应用（需要 'serve' 可选依赖）"
        ),
    )
    serve.add_argument(
        "--host",
        type=HOST,
        default="127.0.0.1",
        help=L(
            f"address to listen on, {HOST.limits} (default 127.0.0.1, this machine only)",
            f"监听的地址，{HOST.limits_zh}（默认 127.0.0.1，仅本机）",
        ),
    )
    serve.add_argument(
        "--port",
        type=PORT,
        default=8000,
        help=L(f"port, {PORT.limits} (default 8000)", f"端口，{PORT.limits_zh}（默认 8000）"),
    )
    serve.add_argument(
        "--public-url",
        type=URL,
        help=L(
            f"the URL browsers use to reach this server, {URL.limits} (default: from --host)",
            f"浏览器访问本服务器所用的 URL，{URL.limits_zh}（默认：由 --host 得出）",
        ),
    )

    from tui.commands.quiz import add_quiz_parser  # the quiz subcommands live with their commands

    add_quiz_parser(commands, common, OneLineParser)

    from tui.commands.class_admin import add_class_parser  # h5: `class init|quiz`; h6 adds serve|dashboard

    class_actions = add_class_parser(commands, common, OneLineParser)
    __import__("tui.commands.class_serve").commands.class_serve.add_parsers(class_actions, common)  # h6

    from tui.commands import lab as lab_commands  # the code lab's subcommands live with their commands
    from tui.commands import train as train_commands  # the training lab's too

    lab_commands.add_parser(commands, common)
    train_commands.add_parser(commands, common)
    return parser


PIPED_WIDTH = 1_000_000  # piped or redirected: no width, nothing wrapped or cut into blocks


def _console():
    """The console plain output is printed to. In a terminal, its width (COLUMNS or the
    window's): grids cut into blocks, long lines wrapped. Piped or redirected, no width at
    all, whatever the terminal around it is: every line is printed whole, as the lessons
    print it (Rich would otherwise take the width of the terminal stderr is on)."""
    from rich.console import Console

    from tui import cjk_wrap

    cjk_wrap.install()
    # markup off: "[transformer, ...]" is text, not a style
    width = None if sys.stdout.isatty() else PIPED_WIDTH
    return Console(highlight=False, soft_wrap=False, markup=False, width=width)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = requested_language(argv)
    with speaking(lang):  # argparse's sentences and our refusals, in the learner's language
        return _run(argv, lang)


def _run(argv: list[str], lang: str) -> int:
    try:
        refuse_undecodable(PROG, argv)
        parser = build_parser()
        args = parser.parse_args(argv)
        lang = args.lang or lang
        if args.command is None:
            from tui.app import run_app

            run_app(args.lang)  # without --lang the app uses the saved language, then the locale
            return 0
        if args.command == "show":
            from tui.commands.show import run_show

            run_show(args, lang, _console())
        elif args.command == "textbook":
            from tui.commands.textbook import run_textbook

            run_textbook(args, lang, _console())
        elif args.command in ("exercises", "exercise", "check"):
            from tui.commands import exercise as exercise_commands

            runner = {
                "exercises": exercise_commands.run_catalogue,
                "exercise": exercise_commands.run_exercise,
                "check": exercise_commands.run_check,
            }[args.command]
            runner(args, lang, _console())
        elif args.command == "progress":
            from tui.commands.progress import run_progress

            run_progress(args, lang, _console())
        elif args.command == "serve":
            from tui.commands.serve import run_serve

            return run_serve(args, args.lang)
        elif args.command == "lab":
            from tui.commands.lab import run_lab

            return run_lab(args, lang, _console(), args.lang)
        elif args.command in ("train", "probe"):  # the training lab
            from tui.commands import train as train_commands

            return getattr(train_commands, f"run_{args.command}")(args, lang, _console())
        elif args.command == "class" and args.action not in ("serve", "dashboard"):  # the class database
            from tui.commands.class_admin import run_class

            return run_class(args, lang, _console())
        elif args.command == "class":  # h6: class serve|dashboard (tui/commands/class_serve.py)
            from tui.commands.class_serve import run_class_web

            return run_class_web(args, lang, args.lang)
        elif args.command == "quiz":
            from tui.commands.quiz import run_quiz

            return run_quiz(args, lang, _console())
        return 0
    except ArgumentsError as error:
        _fail(usage_line(error, lang))
    except UsageError as error:
        _fail(str(error))
    except ValueError as error:  # the engine's InvalidInput, or a bad value met later
        _fail(t("error-line", lang, prog=PROG, message=error_text(error, lang)))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `| head`: stop quietly, and keep Python from complaining at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:  # the last resort, a bug of ours: one line (exit 1), never a traceback
        if os.environ.get("OBJECTIVES_TUTOR_DEBUG"):
            raise
        _fail(
            f"{PROG}: {t('internal-error', lang, detail=type(error).__name__ + ': ' + str(error))}", status=1
        )
    return 0


def _fail(message: str, status: int = 2) -> NoReturn:
    sys.stderr.write(message.replace("\n", " ") + "\n")
    raise SystemExit(status)


if __name__ == "__main__":
    raise SystemExit(main())
