"""argparse speaks the learner's language through its own gettext hook: each msgid it
hands to ``_()``/``ngettext()`` is looked up in tui/i18n.py's ARGPARSE (tui/commands/
arguments.py's ``speaking``). No regex reads its English back."""

import argparse
import ast
import re

import pytest

from tui.cli import main
from tui.commands.arguments import speaking
from tui.i18n import ARGPARSE

# argparse's msgids that only a mistake in building a parser can produce (a programming
# error of ours, raised before any learner types anything): they stay English.
BUILDING_MISTAKES = {
    "conflicting option string: %s",
    "conflicting option strings: %s",
    ".__call__() not defined",
    "'required' is an invalid argument for positionals",
    "mutually exclusive arguments must be optional",
    "%r is not callable",
    "cannot merge actions - two groups are named %r",
    "invalid option string %(option)r: must start with a character %(prefix_chars)r",
    "dest= is required for options like %r",
    "invalid conflict_resolution value: %r",
    "cannot have multiple subparser arguments",
    "conflicting subparser: %s",
    "conflicting subparser alias: %s",
    'argument "-" with mode %r',
}


def argparse_msgids() -> set[str]:
    """Every literal msgid the running Python's argparse.py passes to _() or ngettext()."""
    with open(argparse.__file__, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("_", "ngettext"):
            found |= {
                arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
            }
    return found


def test_the_scan_reads_argparse():
    assert {"usage: ", "expected one argument", "expected %s arguments"} <= argparse_msgids()


def test_every_msgid_a_learner_can_meet_is_translated():
    """A new Python's new sentence fails here until it has its pair."""
    assert sorted(argparse_msgids() - BUILDING_MISTAKES - set(ARGPARSE)) == []


def test_every_pair_is_one_of_argparses_msgids():
    assert sorted(set(ARGPARSE) - argparse_msgids()) == []
    assert sorted(BUILDING_MISTAKES - argparse_msgids()) == []


def run(argv, capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    captured = capsys.readouterr()
    return stopped.value.code, captured.out, captured.err


# What learners type wrong, in every command that reads values, and the Chinese line.
ZH = [
    (
        ["show", "mask", "--seq-len", "x"],
        "objectives-tutor show mask：参数 kind：无效的选择 'x'（可选：'causal', 'bidirectional', 'prefix'）（见 --help）",
    ),
    (
        ["show", "mask", "causal", "--seq-len", "x"],
        "objectives-tutor：无法识别的参数：--seq-len x（见 --help）",
    ),
    (
        ["textbook", "clm", "--seq-len", "x"],
        "objectives-tutor textbook：参数 --seq-len：不是整数：'x'（见 --help）",
    ),
    (["check"], "objectives-tutor check：缺少必需的参数：id（见 --help）"),
    (
        ["train", "--corpus", "fr"],
        "objectives-tutor train：参数 --corpus：无效的选择 'fr'（可选：'zh', 'en', 'arith'）（见 --help）",
    ),
    (
        ["show", "mask", "causal", "--n", "3", "--n", "4"],
        "objectives-tutor show mask：参数 --n：只能给出一次（见 --help）",
    ),
    (
        ["show", "sample", "mlm", "--s", "1"],
        "objectives-tutor show sample：选项 --s 有歧义，可能是 --seed, --spans（见 --help）",
    ),
    (["show", "mask", "causal", "--n"], "objectives-tutor show mask：参数 --n：后面需要一个值（见 --help）"),
    (["frobnicate"], "objectives-tutor：参数 COMMAND：无效的选择 'frobnicate'（可选："),
    (
        ["class", "quiz", "extend", "--class", "c", "s1", "soon"],
        "objectives-tutor class quiz extend：参数 TIME：不是像 300、5m 或 1h 这样的时间：'soon'（见 --help）",
    ),
]


@pytest.mark.parametrize(("argv", "chinese"), ZH)
def test_a_usage_error_is_one_chinese_line(argv, chinese, capsys):
    code, out, err = run(["--lang", "zh", *argv], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert err.startswith(chinese), err
    assert not re.search(r"\b(argument|arguments|required|invalid|unrecognized|expected|choose)\b", err), err


def test_help_headings_are_chinese(capsys):
    code, out, err = run(["--lang", "zh", "show", "mask", "--help"], capsys)
    assert code == 0 and err == ""
    assert out.startswith("用法：objectives-tutor show mask")
    # argparse writes the colon after a heading itself (HelpFormatter._Section): after a
    # Chinese heading it is the full-width one (a half-width ':' after Chinese reads as a typo)
    assert "\n位置参数：\n" in out and "\n选项：\n" in out and "显示此帮助信息并退出" in out
    assert not re.search(r"[^\x00-\x7f]:$", out, re.MULTILINE), out
    assert not re.search(r"\b(usage|positional arguments|options|show this help)\b", out)
    code, out, err = run(["--lang", "en", "show", "mask", "--help"], capsys)
    assert out.startswith("usage: objectives-tutor show mask") and "\noptions:\n" in out


def test_speaking_puts_argparse_back_even_after_an_error():
    before = argparse._, argparse.ngettext
    with pytest.raises(RuntimeError), speaking("zh"):
        assert argparse._("usage: ") == "用法："
        raise RuntimeError
    assert (argparse._, argparse.ngettext) == before
    assert argparse._("usage: ") == "usage: "


def test_outside_speaking_a_parser_speaks_english():
    from tui.cli import ArgumentsError, build_parser

    with pytest.raises(ArgumentsError) as refused:
        build_parser().parse_args(["show", "mask", "sideways"])
    assert refused.value.message.startswith("argument kind: invalid choice: 'sideways'")
    with speaking("zh"), pytest.raises(ArgumentsError) as refused:
        build_parser().parse_args(["show", "mask", "sideways"])
    assert refused.value.message.startswith("参数 kind：无效的选择 'sideways'")


def test_plural_forms_pick_the_english_form_then_translate():
    from tui.commands.arguments import ngettext

    assert ngettext("expected %s argument", "expected %s arguments", 1) == "expected %s argument"
    assert ngettext("expected %s argument", "expected %s arguments", 2) == "expected %s arguments"
    with speaking("zh"):
        assert ngettext("expected %s argument", "expected %s arguments", 2) == "后面需要 %s 个值"


# -- the parser's own texts: every help= and description= is an L(en, zh) pair -------

CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")


def parser_texts(lang: str) -> list[tuple[str, str, str | None]]:
    """(command, option or argument, its text) for every text of the real parser built in
    ``lang``: each parser's description, each action's help, each subcommand's help."""
    from tui.cli import build_parser

    def walk(parser, path):
        found = [(path, "description", parser.description)]
        for action in parser._actions:
            found.append((path, "/".join(action.option_strings) or action.dest, action.help))
            if isinstance(action, argparse._SubParsersAction):
                found += [(path, choice.dest, choice.help) for choice in action._choices_actions]
                for name, sub in action.choices.items():
                    found += walk(sub, f"{path} {name}")
        return found

    with speaking(lang):
        return walk(build_parser(), "objectives-tutor")


def parsers(lang: str):
    """Every parser of the real command line built in ``lang``, with its command."""
    from tui.cli import build_parser

    def walk(parser, path):
        yield path, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, f"{path} {name}")

    with speaking(lang):
        yield from walk(build_parser(), "objectives-tutor")


def test_every_help_text_of_the_zh_parser_is_chinese():
    english = parser_texts("en")
    chinese = parser_texts("zh")
    assert [where for *where, _ in english] == [where for *where, _ in chinese]
    stray = [
        (command, name, zh)
        for (command, name, en), (_, _, zh) in zip(english, chinese, strict=True)
        if zh is not None and zh != argparse.SUPPRESS and (zh == en or not CJK.search(zh))
    ]
    assert stray == []
    assert len([zh for *_, zh in chinese if zh and zh != argparse.SUPPRESS]) >= 189  # all were walked


# The English texts as the parser printed them before they became pairs (issue #25),
# captured once: docs and tests quote them, so a pair must not change its English.
ENGLISH_TEXTS = (
    272,
    "9fc0dbc199ee9e329b8de1a9858b0af6c374dbb0e92cd5556750ec65998d5a67",
)  # + class serve --trusted-proxy
SHOW_MASK_HELP = """\
usage: objectives-tutor show mask [-h] [--n N] [--prefix PREFIX] [--json]
                                  {causal,bidirectional,prefix}

positional arguments:
  {causal,bidirectional,prefix}

options:
  -h, --help            show this help message and exit
  --n N                 sequence length, 1..512 (default 8)
  --prefix PREFIX       prefix mask: prefix length, 0..512 and at most n
                        (default n/2)
  --json                print JSON: key 'mask', 1 = blocked
"""


def test_the_english_texts_are_unchanged():
    import hashlib
    import json

    texts = parser_texts("en")
    digest = hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode()).hexdigest()
    assert (len(texts), digest) == ENGLISH_TEXTS


def test_the_english_help_prints_as_before(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(["--lang", "en", "show", "mask", "--help"], capsys)
    assert (code, out) == (0, SHOW_MASK_HELP)


def test_the_zh_help_fits_80_columns_and_keeps_every_word(monkeypatch):
    """argparse counts characters and breaks at spaces; a Chinese help is wrapped by
    columns (two a character) and between characters, with nothing lost."""
    from tui.cli import cells

    monkeypatch.setenv("COLUMNS", "80")
    for command, parser in parsers("zh"):
        with speaking("zh"):
            printed = parser.format_help()
        wide = [
            line for line in printed.splitlines() if cells(line) > 80 and not line.lstrip().startswith("-")
        ]
        assert wide == [], command
        flat = re.sub(r"\s", "", printed)
        for action in parser._actions:
            if action.help and action.help != argparse.SUPPRESS:
                assert re.sub(r"\s", "", action.help.replace("%%", "%")) in flat, (command, action.help)
