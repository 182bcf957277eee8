"""The ``objectives-tutor`` command line.

Heavy imports (torch, the engine, rich) happen inside the command that needs
them, so ``--help`` and the app's first frame stay fast. Bad input exits 2 with
one line on stderr; nothing here ever shows a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

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


class OneLineParser(argparse.ArgumentParser):
    """argparse prints the usage and the error on two lines; we print one (in the
    learner's language: built and read inside ``speaking``). Its actions refuse an option
    given twice and record the options typed (tui/commands/arguments.py: rule 3)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for name, action in arguments.ACTIONS.items():
            self.register("action", name, action)

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
        description="Learn how language models are pretrained: causal LM, masked LM, span corruption, prefix LM.",
    )
    parser.add_argument("--lang", choices=LANGUAGES, help="language of the output (default: from the locale)")
    # --lang is accepted after any subcommand too, without overriding an earlier one.
    common = OneLineParser(add_help=False)
    common.add_argument("--lang", choices=LANGUAGES, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)

    show = commands.add_parser("show", parents=[common], help="compute and show a mask or a training sample")
    show_kinds = show.add_subparsers(dest="what", metavar="WHAT", required=True, parser_class=OneLineParser)

    mask = show_kinds.add_parser(
        "mask", parents=[common], help="an attention mask: causal | bidirectional | prefix"
    )
    mask.add_argument("kind", choices=("causal", "bidirectional", "prefix"))
    mask.add_argument("--n", type=MASK_N, default=8, help=f"sequence length, {MASK_N.limits} (default 8)")
    mask.add_argument(
        "--prefix",
        type=PREFIX,
        help=f"prefix mask: prefix length, {PREFIX.limits} and at most n (default n/2)",
    )
    mask.add_argument("--json", action="store_true", help="print JSON: key 'mask', 1 = blocked")

    sample = show_kinds.add_parser(
        "sample", parents=[common], help="one sentence as a training sample: clm | mlm | span | prefix"
    )
    sample.add_argument("objective", choices=("clm", "mlm", "span", "prefix"))
    sample.add_argument(
        "--text",
        type=SENTENCE,
        help=f"the sentence, {SENTENCE.limits} (English words or Chinese characters; default: the lesson's)",
    )
    sample.add_argument(
        "--seed",
        type=SEED,
        default=0,
        help=f"mlm, random spans: seed of the draws, {SEED.limits} (default 0)",
    )
    sample.add_argument(
        "--p",
        type=PROBABILITY,
        help=f"mlm: selection probability, {PROBABILITY.limits} (default 0.15, BERT's)",
    )
    sample.add_argument(
        "--positions",
        type=POSITIONS,
        help=f"mlm: select exactly these positions, e.g. 1,4 ({POSITIONS.limits})",
    )
    sample.add_argument(
        "--fates",
        type=FATES,
        help=f"mlm, with --positions: each one's fate, e.g. mask,random,keep ({FATES.limits})",
    )
    sample.add_argument("--whole-word", action="store_true", help="mlm: select all pieces of a word together")
    sample.add_argument("--cls-sep", action="store_true", help="mlm: wrap the text in [CLS] ... [SEP]")
    sample.add_argument(
        "--spans",
        type=SPANS,
        help=f"span: hide these spans, e.g. 2:5,7:8, end exclusive ({SPANS.limits})",
    )
    sample.add_argument(
        "--density",
        type=PROBABILITY,
        help=f"span without --spans: noise density, {PROBABILITY.limits} (default 0.15, T5's)",
    )
    sample.add_argument(
        "--mean-span",
        type=MEAN_SPAN,
        help=f"span without --spans: mean span length, {MEAN_SPAN.limits} (default 3, T5's)",
    )
    sample.add_argument(
        "--prefix",
        type=SENTENCE_PREFIX,
        help=f"prefix: prefix length, {SENTENCE_PREFIX.limits} and at most the text's length (default: half)",
    )
    sample.add_argument("--json", action="store_true", help="print JSON instead of tables")

    from tui.commands import textbook as textbook_run  # its sizes: light, no rich, no torch

    textbook = commands.add_parser(
        "textbook", parents=[common], help="the lessons' code runs, reproduced by the engine"
    )
    textbook.add_argument("run", choices=textbook_run.RUNS)
    textbook.add_argument(
        "--seed", type=SEED, default=0, help=f"clm, mlm: torch seed, {SEED.limits} (default 0, the lessons')"
    )
    textbook.add_argument(
        "--batch",
        type=textbook_run.ANY_BATCH,
        help=f"batch size, default (limits): {textbook_run.sizes_help('batch')}",
    )
    textbook.add_argument(
        "--seq-len",
        type=textbook_run.ANY_SEQ_LEN,
        help=f"sequence length, default (limits): {textbook_run.sizes_help('seq_len')}",
    )
    textbook.add_argument(
        "--p", type=PROBABILITY, help=f"mlm: mask probability, {PROBABILITY.limits} (default 0.15, BERT's)"
    )
    textbook.add_argument(
        "--text",
        type=SENTENCE,
        help=f"three-samples: the sentence, {SENTENCE.limits} (default: the lesson's)",
    )
    textbook.add_argument("--json", action="store_true", help="print JSON instead of the lesson's layout")
    catalogue = commands.add_parser("exercises", parents=[common], help="list the exercises")
    catalogue.add_argument("--json", action="store_true", help="print JSON")
    catalogue.add_argument(
        "--check",
        action="store_true",
        help="self-test the content (both languages, solutions score 1.0, hints)",
    )

    exercise = commands.add_parser("exercise", parents=[common], help="show one variant of an exercise")
    exercise.add_argument(
        "id", type=EXERCISE_ID, help=f"exercise id (see `objectives-tutor exercises`; {EXERCISE_ID.limits})"
    )
    exercise.add_argument(
        "--seed", type=SEED, default=0, help=f"which variant, {SEED.limits} (default 0, the lesson's)"
    )
    exercise.add_argument("--solution", action="store_true", help="also print the engine's solution")
    exercise.add_argument(
        "--rubric",
        action="store_true",
        help="print how the exercise is scored (not with --seed, --solution, --hints)",
    )
    exercise.add_argument("--hints", action="store_true", help="also print the hints, in order")
    exercise.add_argument("--json", action="store_true", help="print JSON")

    check = commands.add_parser("check", parents=[common], help="grade an answer to an exercise")
    check.add_argument("id", type=EXERCISE_ID, help=f"exercise id ({EXERCISE_ID.limits})")
    check.add_argument("--seed", type=SEED, default=0, help=f"which variant, {SEED.limits} (default 0)")
    check.add_argument(
        "--answer",
        action="append",
        type=ANSWER,
        metavar="PART=TEXT",
        help=f"one part's answer ({ANSWER.limits}); once per part",
    )
    check.add_argument("--json", action="store_true", help="print JSON")
    check.add_argument(
        "--record", action="store_true", help="save the graded attempt in your progress, as the app does"
    )

    progress = commands.add_parser("progress", parents=[common], help="your practice history")
    progress.add_argument(
        "--json", action="store_true", help="print JSON: attempts, per-objective summaries, due reviews"
    )
    progress.add_argument("--csv", action="store_true", help="print every attempt as CSV")
    progress.add_argument(
        "--reset", action="store_true", help="erase your progress (asks first; keeps a backup)"
    )
    progress.add_argument("--yes", action="store_true", help="with --reset: do not ask")

    serve = commands.add_parser(
        "serve", parents=[common], help="serve the app to browsers (the 'serve' extra)"
    )
    serve.add_argument(
        "--host",
        type=HOST,
        default="127.0.0.1",
        help=f"address to listen on, {HOST.limits} (default 127.0.0.1, this machine only)",
    )
    serve.add_argument("--port", type=PORT, default=8000, help=f"port, {PORT.limits} (default 8000)")
    serve.add_argument(
        "--public-url",
        type=URL,
        help=f"the URL browsers use to reach this server, {URL.limits} (default: from --host)",
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
