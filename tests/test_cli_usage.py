"""Issue 11.9: argparse's usage errors speak the learner's language: one line on
stderr, exit 2, in Chinese under --lang zh (anywhere on the line) or a Chinese
locale, argparse's own English otherwise."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.cli import main, requested_language
from tui.commands.arguments import speaking

# What people really type wrong, with what the Chinese line must say.
CASES = [
    (["exercise"], "objectives-tutor exercise：缺少必需的参数：id（见 --help）"),
    (["exercises", "--bogus"], "objectives-tutor：无法识别的参数：--bogus（见 --help）"),
    (
        ["show", "mask", "sideways"],
        "objectives-tutor show mask：参数 kind：无效的选择 'sideways'（可选：'causal', 'bidirectional', 'prefix'）（见 --help）",
    ),
    (
        ["show", "mask", "causal", "--n", "abc"],
        "objectives-tutor show mask：参数 --n：不是整数：'abc'（见 --help）",
    ),
    (["show", "mask", "causal", "--n"], "objectives-tutor show mask：参数 --n：后面需要一个值（见 --help）"),
    (
        ["show", "sample", "mlm", "--p", "lots"],
        "objectives-tutor show sample：参数 --p：不是数：'lots'（见 --help）",
    ),
    (
        ["show", "sample", "mlm", "--positions", "1到4"],
        "objectives-tutor show sample：参数 --positions：应为像 2,5 这样的位置，收到 '1到4'（见 --help）",
    ),
    (
        ["show", "sample", "span", "--spans", "2"],
        "objectives-tutor show sample：参数 --spans：应为像 2:5,7:8 这样的片段（不含结尾），收到 '2'（见 --help）",
    ),
    (["quiz", "key"], "objectives-tutor quiz key：缺少必需的参数：quiz, --student（见 --help）"),
    (["class", "quiz"], "objectives-tutor class quiz：缺少必需的参数：STEP（见 --help）"),
    (["show"], "objectives-tutor show：缺少必需的参数：WHAT（见 --help）"),
]
ENGLISH = re.compile(r"\b(argument|arguments|required|invalid|unrecognized|expected|choose|usage)\b")


def run(argv, capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    captured = capsys.readouterr()
    assert captured.out == ""
    return stopped.value.code, captured.err


@pytest.mark.parametrize(("argv", "chinese"), CASES)
def test_a_usage_error_is_one_chinese_line_under_lang_zh(argv, chinese, capsys):
    for line in (["--lang", "zh", *argv], [*argv, "--lang=zh"]):
        code, err = run(line, capsys)
        assert code == 2 and err == chinese + "\n"
        assert not ENGLISH.search(err), err


@pytest.mark.parametrize(("argv", "chinese"), CASES)
def test_a_chinese_locale_is_enough(argv, chinese, capsys, monkeypatch):
    for name in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert run(argv, capsys) == (2, chinese + "\n")


@pytest.mark.parametrize(("argv", "chinese"), CASES)
def test_in_english_argparse_says_it_in_one_line(argv, chinese, capsys):
    code, err = run(["--lang", "en", *argv], capsys)
    assert code == 2 and err.count("\n") == 1 and err.endswith(" (see --help)\n")
    assert ENGLISH.search(err) and not re.search(r"[\u4e00-\u9fff]", err.replace(argv[-1], ""))


def test_an_unknown_language_is_told_in_the_locales_language(capsys, monkeypatch):
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    code, err = run(["--lang", "fr"], capsys)
    assert (
        code == 2
        and err == "objectives-tutor：参数 --lang：无效的选择 'fr'（可选：'zh', 'en'）（见 --help）\n"
    )


@pytest.mark.parametrize(
    ("argv", "lang"),
    [
        (["--lang", "zh", "exercises"], "zh"),
        (["exercises", "--lang=zh"], "zh"),
        (["check", "x", "--answer", "--lang"], "en"),  # --lang with no language after it
        (["check", "x", "--", "--lang", "zh"], "en"),  # after --, words are not options
        (["--lang", "de"], "en"),
        ([], "en"),
        (["--lang"], "en"),
    ],
)
def test_the_language_is_read_before_argparse(argv, lang, monkeypatch):
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")
    assert requested_language(argv) == lang


def _not_a_whole_number(text: str) -> bool:
    from tui.commands.arguments import normalise

    try:
        int(normalise(text))
    except ValueError:
        return not text.startswith("-")  # argparse would read it as an option
    return False


@given(st.text(min_size=1, max_size=60).filter(_not_a_whole_number))
def test_the_learners_own_words_come_through_unchanged(value):
    """Braces, quotes, full-width text or an escape sequence in the value are quoted
    back as given (cut when long), never formatted; the refusal travels through argparse intact."""
    from tui.cli import ArgumentsError, build_parser, usage_line
    from tui.commands.arguments import MAX_SHOWN, shown

    quoted = shown(value)
    assert quoted == repr(value) or (len(quoted) == MAX_SHOWN and repr(value).startswith(quoted[:-1]))
    for lang, line in (
        ("zh", f"objectives-tutor show mask：参数 --n：不是整数：{quoted}（见 --help）"),
        ("en", f"objectives-tutor show mask: argument --n: not a whole number: {quoted} (see --help)"),
    ):
        with speaking(lang), pytest.raises(ArgumentsError) as refused:
            build_parser().parse_args(["show", "mask", "causal", "--n", value])
        assert usage_line(refused.value, lang) == line


# The readers of values every command shares (tui/commands/arguments.py), with the
# forms learners type: full-width digits and commas, 、, spaces, percent signs.
@pytest.mark.parametrize(
    ("reader", "text", "value"),
    [
        ("whole(0, 10**6)", "１２", 12),
        ("whole(0, 10**6)", " 7 ", 7),
        ("whole(0, 10**6)", "1_000", 1000),
        ("whole(-5, 5)", "-0", 0),
        ("real(0, 1, percent=True)", "15%", 0.15),
        ("real(0, 1, percent=True)", "０．３", 0.3),
        ("real(0, 1, percent=True)", "１５％", 0.15),
        ("positions(256)", "1、4", [1, 4]),
        ("positions(256)", "１，４,", [1, 4]),
        ("names(8)", "CLM，MLM", ["clm", "mlm"]),
        ("names(8)", "clm mlm、prefix", ["clm", "mlm", "prefix"]),
        ("span_list(256)", "2:5，7-8", [(2, 5), (7, 8)]),
        ("span_list(256)", "２：５", [(2, 5)]),
    ],
)
def test_values_read_as_learners_write_them(reader, text, value):
    from tui.commands import arguments

    assert eval(reader, vars(arguments))(text) == value


@given(st.integers(0, 10**6))
def test_full_width_whole_numbers_read_as_their_value(value):
    from tui.commands.arguments import whole

    full_width = "".join(chr(ord("０") + int(digit)) for digit in str(value))
    assert whole(0, 10**6)(full_width) == value


@pytest.mark.parametrize("text", ["1到4", "", "x", "1.5", "5" * 5000 + "x", "nan", "1e3", "0x10"])
def test_an_unreadable_whole_number_is_refused_in_a_sentence_we_translate(text):
    import argparse

    from tui.commands.arguments import whole

    with pytest.raises(argparse.ArgumentTypeError) as refused:
        whole(0, 10)(text)
    assert refused.value.said("zh").startswith("不是整数：")


# The commands' own refusals, after argparse: one line, exit 2, in the learner's language,
# and (where nothing needs computing) before any model is trained or torch imported.
REFUSALS = [
    (["progress", "--json", "--csv"], "--json、--csv、--reset 只能选一个"),
    (["progress", "--reset"], "请加 --yes 确认"),  # stdin is not a terminal under pytest
    (["train", "--objectives", "xyz"], "未知目标 'xyz'"),
    (["train", "--objectives", "clm，clm"], "每个目标只能写一次"),
    (["train", "--objectives", "、"], "请至少指定一个目标"),
    (["train", "--steps", "0"], "参数 --steps：必须在 1 到 100000 之间，收到 0"),
    (["train", "--threads", "65"], "参数 --threads：必须在 1 到 64 之间，收到 65"),
    (["train", "--device", "tpu"], "--device 只能是 cpu 或 cuda"),
    (["train", "--rules", "--steps", "5"], "--steps 只适用于：训练（不带 --rules）"),
    (["probe", ""], "参数 prompt：文本为空"),
    (["probe", "  \t "], "参数 prompt：文本为空"),
    (["probe", "好" * 2001], "参数 prompt：最多 2000 个字符，收到 2001 个"),
    (["probe", "因为"], "还没有可用的训练好的模型：请先运行 `objectives-tutor train --corpus zh` 训练"),
    (["lab", "hint"], "请指明题目，例如 `lab hint bert_mask`"),
    (["lab", "frob", "x"], "未知操作 'frob'"),
]


@pytest.mark.parametrize(("argv", "chinese"), REFUSALS)
def test_a_commands_refusal_speaks_chinese(argv, chinese, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    code, err = run(["--lang", "zh", *argv], capsys)
    assert code == 2 and err.count("\n") == 1 and chinese in err
    assert not ENGLISH.search(err.replace(argv[-1], "")), err
    code, err = run(["--lang", "en", *argv], capsys)
    assert code == 2 and err.count("\n") == 1 and not re.search(r"[\u4e00-\u9fff]", err.replace(argv[-1], ""))


def test_an_empty_probe_is_refused_before_a_model_is_trained(capsys):
    from exercises.training.runs import run_path

    assert run(["probe", " "], capsys)[0] == 2

    assert not run_path().exists()  # nothing was trained and saved for it


def _parser_words() -> list[str]:
    """Every subcommand and option name the parser knows."""
    import argparse

    from tui.cli import build_parser

    words: set[str] = set()

    def walk(parser) -> None:
        for action in parser._actions:
            words.update(action.option_strings)
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    words.add(name)
                    walk(child)

    walk(build_parser())
    return sorted(words - {"-h", "--help"})


@given(
    st.lists(
        st.one_of(
            st.sampled_from(_parser_words()),
            st.sampled_from(["1", "-1", "abc", "０", "1到4", "2:5", "", "--", "-x", "--no-such", "clm"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_every_usage_error_the_parser_can_make_is_said_in_chinese(argv):
    """Whatever a learner types, argparse's complaint reaches them in Chinese: no
    sentence of argparse's is left untranslated (the words they typed may be English)."""
    from tui.cli import ArgumentsError, build_parser

    try:
        with speaking("zh"):
            build_parser().parse_args(argv)
    except ArgumentsError as error:
        said = error.message
        for word in argv:
            said = said.replace(word, "")
        assert not ENGLISH.search(said), (argv, error.message)


def test_any_commands_type_function_can_refuse_in_both_languages():
    """The hook for every command's own argument types (quiz, class...): raise Refusal."""
    from exercises.text import L
    from tui.cli import ArgumentsError, OneLineParser, usage_line
    from tui.commands.arguments import Refusal

    def colour(text):
        raise Refusal(L("not a colour: {value}", "不是颜色：{value}"), value=repr(text))

    for lang, line in (
        ("zh", "objectives-tutor paint：参数 --colour：不是颜色：'{x}'（见 --help）"),
        ("en", "objectives-tutor paint: argument --colour: not a colour: '{x}' (see --help)"),
    ):
        with speaking(lang):
            parser = OneLineParser(prog="objectives-tutor paint")
            parser.add_argument("--colour", type=colour)
            with pytest.raises(ArgumentsError) as refused:
                parser.parse_args(["--colour", "{x}"])
        assert usage_line(refused.value, lang) == line
