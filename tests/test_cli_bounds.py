"""Issue 22, "no runaway inputs": the command line's rules, one for every command
(tui/commands/arguments.py, docs/learner.md "The command line").

The first tests walk every parser argparse knows, so a command added later (or
another engineer's) is held to the same rules without an edit here: every number has
stated limits, nothing a learner types makes a reader raise, every option is given at
most once, every word is UTF-8, every --seed is the same seed. Then each size of the
commands that compute is tried at its limit (it runs) and one past it (refused before
the engine is imported), and each option that does not apply is refused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tui.cli import SENTENCE_CHARS, ArgumentsError, build_parser, main
from tui.commands import arguments
from tui.commands.arguments import MAX_ANSWER_CHARS, MAX_SEED, SEED, Bounded
from tui.commands.train import MAX_PROMPT

ROOT = Path(__file__).resolve().parent.parent


def every_parser(parser=None, path=()):
    """(command path, parser) for the top parser and every subcommand's."""
    parser = parser or build_parser()
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from every_parser(child, (*path, name))


def every_argument(root=None, *, with_parser: bool = False):
    """(command path, option or positional name, action) for every argument a learner types
    (and the parser it belongs to, ``with_parser``)."""
    for path, parser in every_parser(root):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction | argparse._HelpAction) or action.nargs == 0:
                continue
            name = max(action.option_strings, key=len) if action.option_strings else action.dest
            yield (path, name, action, parser) if with_parser else (path, name, action)


# Numbers other commands read with plain int, until their owners give them limits (issue 22
# asks each command's owner to bound its own inputs with tui/commands/arguments.py). Each
# entry must still be unbounded: when one is bounded, this list must lose it.
UNBOUNDED_ELSEWHERE: dict[tuple[str, ...], str] = {}


def test_the_walk_sees_every_command():
    paths = {path for path, _ in every_parser()}
    assert {("show", "mask"), ("textbook",), ("check",), ("train",), ("probe",), ("quiz", "grade")} <= paths
    names = {(path, name) for path, name, _ in every_argument()}
    assert (("textbook",), "--seq-len") in names and (("check",), "--answer") in names


def test_every_number_a_learner_types_has_stated_limits():
    for path, name, action in every_argument():
        where = " ".join((*path, name))
        if action.type in (int, float):
            assert (*path, name) in UNBOUNDED_ELSEWHERE, (
                f"{where}: a number without limits (use arguments.whole)"
            )
            continue
        if isinstance(action.type, Bounded):
            assert action.type.limits in (action.help or ""), (
                f"{where}: --help must state {action.type.limits}"
            )
    for entry in UNBOUNDED_ELSEWHERE:
        action = next(action for path, name, action in every_argument() if (*path, name) == entry)
        assert action.type in (int, float), f"{' '.join(entry)} is bounded now: remove it from the list"


def test_every_bounded_reader_takes_its_limit_and_refuses_one_past_it():
    seen = 0
    for _, _, action in every_argument():
        if not isinstance(action.type, Bounded):
            continue
        seen += 1
        reader = action.type
        reader(reader.at_limit())  # accepted
        for outside in (
            reader.past_limit(),
            *([reader.below_limit()] if hasattr(reader, "below_limit") else []),
        ):
            with pytest.raises(arguments.Refusal):
                reader(outside)
    assert seen >= 25


# What people type, on purpose or not: signs, NaN, infinities, full-width and Arabic digits,
# a 5000-digit number, a megabyte of text, an empty word, control and bidi characters.
HOSTILE = [
    "",
    " ",
    "0",
    "-1",
    "-0",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e999",
    "1e-999",
    "２",
    "１２３４５６７８９０１２３４５６７８９０",
    "٣",
    "½",
    "²",
    "1.5",
    "0x10",
    "1_000",
    "1,000",
    "9" * 5000,
    "99999999999999999999999",
    "x" * 1_000_000,
    "\x1b[2J",
    "\u202e",
    "clm,clm,clm,clm,clm",
    "a=b",
    "=",
    "2:5",
    "5:2,2:5",
    "、，,",
]


@pytest.mark.parametrize("value", HOSTILE, ids=[repr(value)[:20] for value in HOSTILE])
def test_no_value_makes_any_reader_raise(value):
    """Every argument of every command: argparse either reads the value or refuses it
    in one line (ArgumentsError); no reader lets another exception out."""
    parser = build_parser()
    for path, name, action, owner in every_argument(parser, with_parser=True):
        if action.option_strings:
            argv = [*path, name, value]
        else:  # the positionals before it are filled in
            before = [
                a for a in owner._get_positional_actions() if not isinstance(a, argparse._SubParsersAction)
            ]
            argv = [*path, *["x"] * before.index(action), value]
        with contextlib.suppress(ArgumentsError):  # refused in one line: fine
            parser.parse_args(argv)


def _accepted(action) -> str:
    """A value the action's reader takes, to give it twice."""
    if action.choices:
        return str(next(iter(action.choices)))
    if isinstance(action.type, Bounded):
        return action.type.at_limit() if not isinstance(action.type, arguments.text) else "x"
    for candidate in ("1", "x", "2:5", "clm", "a=b"):
        try:
            (action.type or str)(candidate)
        except (ValueError, TypeError, argparse.ArgumentTypeError):
            continue
        return candidate
    raise AssertionError(f"no sample value for {action}")


def test_every_option_given_twice_is_refused():
    parser = build_parser()
    checked = 0
    for path, parser_of_path in every_parser():
        for action in parser_of_path._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction | argparse._AppendAction):
                continue
            option = max(action.option_strings, key=len)
            once = [option] if action.nargs == 0 else [option, _accepted(action)]
            with pytest.raises(ArgumentsError) as refused:
                parser.parse_args([*path, *once, *once])
            assert (
                refused.value.message == f"argument {'/'.join(action.option_strings)}: given more than once"
            ), (
                path,
                option,
            )
            checked += 1
    assert checked >= 60


def test_given_twice_is_said_in_chinese(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--lang", "zh", "textbook", "clm", "--seed", "1", "--seed", "2"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == "objectives-tutor textbook：参数 --seed：只能给出一次（见 --help）\n"


def test_an_option_typed_once_is_still_read():
    args = build_parser().parse_args(["show", "sample", "mlm", "--seed", "3", "--json"])
    assert (
        args.seed == 3 and args.json is True and arguments.given(args) == {"seed": "--seed", "json": "--json"}
    )


@pytest.mark.parametrize("path", sorted({path for path, _ in every_parser()}), ids=" ".join)
def test_every_command_refuses_a_word_that_is_not_utf8(path, capsys):
    """Python hands undecodable bytes over as lone surrogates (b'\\xff' -> '\\udcff')."""
    with pytest.raises(SystemExit) as exit_info:
        main([*path, "caf\udce9"])
    captured = capsys.readouterr()
    assert exit_info.value.code == 2 and captured.out == ""
    assert (
        captured.err
        == f"objectives-tutor: word {len(path) + 1} is not UTF-8 text: b'caf\\xe9' (see --help)\n"
    )


def test_non_utf8_text_never_reaches_json(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--lang", "zh", "show", "sample", "clm", "--text", "a b \udcff", "--json"])
    captured = capsys.readouterr()
    assert exit_info.value.code == 2 and captured.out == ""
    assert "第 7 个参数不是 UTF-8 文本：b'a b \\xff'" in captured.err


def test_every_seed_is_one_seed():
    """--seed means the same everywhere: 0 to 2**32 - 1, the range the progress store and
    the training lab accept (checked against the modules that enforce it)."""
    from engine.train_lab import LabSettings
    from exercises.grading.parsing import MAX_ANSWER_CHARS as GRADED_CHARS
    from exercises.learner.progress import MAX_SEED as STORED_SEED

    seeds = [action for path, name, action in every_argument() if name == "--seed"]
    assert len(seeds) >= 5 and all(action.type is SEED for action in seeds)
    assert SEED.low == 0 and SEED.high == MAX_SEED == STORED_SEED
    LabSettings(seed=MAX_SEED).check()
    with pytest.raises(ValueError):
        LabSettings(seed=MAX_SEED + 1).check()
    assert MAX_ANSWER_CHARS == GRADED_CHARS


# -- each size at its limit (it runs) and one past it (refused before anything runs) -----

TEXT_AT = "好" * SENTENCE_CHARS  # 256 characters: 256 tokens, positions 0..255
TEXT_PAST = TEXT_AT + "好"
# (argv with {} for the value, at the limit, one past it, just below the lowest value)
SIZES = [
    (["show", "mask", "causal", "--n", "{}", "--json"], "512", "513", "0"),
    (["show", "mask", "prefix", "--n", "512", "--prefix", "{}", "--json"], "512", "513", "-1"),
    (["show", "sample", "mlm", "--seed", "{}", "--json"], str(MAX_SEED), str(MAX_SEED + 1), "-1"),
    (["show", "sample", "mlm", "--p", "{}", "--json"], "1", "1.0000000000000002", "-0.0000001"),
    (["show", "sample", "mlm", "--text", TEXT_AT, "--positions", "{}", "--json"], "255", "256", "-1"),
    (["show", "sample", "span", "--density", "{}", "--json"], "100%", "100.0001%", "-1%"),
    (["show", "sample", "span", "--mean-span", "{}", "--json"], "100", "100.00000000000001", "0.99"),
    (
        ["show", "sample", "span", "--text", TEXT_AT, "--spans", "{}", "--json"],
        "250:256",
        "250:257",
        None,
    ),
    (["show", "sample", "mlm", "--text", "{}"], TEXT_AT, TEXT_PAST, ""),
    (["show", "sample", "clm", "--text", "{}", "--json"], TEXT_AT, TEXT_PAST, " "),
    (["textbook", "clm", "--batch", "{}", "--seq-len", "128"], "8", "9", "0"),
    (["textbook", "clm", "--seq-len", "{}"], "128", "129", "1"),
    (["textbook", "clm", "--seed", "{}", "--json"], str(MAX_SEED), str(MAX_SEED + 1), "-1"),
    (["textbook", "mlm", "--batch", "{}", "--seq-len", "128"], "4096", "4097", "0"),
    (["textbook", "mlm", "--seq-len", "{}"], "128", "129", "0"),
    (["textbook", "mlm", "--p", "{}"], "1", "1.0000000000000002", "-0.0000001"),
    (["textbook", "visibility", "--seq-len", "{}"], "512", "513", "0"),
    (["textbook", "three-samples", "--text", "{}"], TEXT_AT, TEXT_PAST, ""),
    (["exercise", "mlm-abcde", "--seed", "{}", "--json"], str(MAX_SEED), str(MAX_SEED + 1), "-1"),
    (
        ["check", "mlm-abcde", "--seed", "{}", "--answer", "inputs=A", "--json"],
        str(MAX_SEED),
        str(MAX_SEED + 1),
        "-1",
    ),
    (
        ["check", "mlm-abcde", "--answer", "{}", "--json"],
        "inputs=" + "A " * 10_000,
        "inputs=" + "A " * 10_001,
        None,
    ),
]
# Sizes of commands that would train, serve or look a file up: read, not run, at the limit.
PARSED_SIZES = [
    (["train", "--steps", "{}"], "100000", "100001", "0"),
    (["train", "--threads", "{}"], "64", "65", "0"),
    (["train", "--seed", "{}"], str(MAX_SEED), str(MAX_SEED + 1), "-1"),
    (["train", "--objectives", "{}"], "clm,mlm,prefix,span", "clm,mlm,prefix,span,clm", None),
    (["probe", "{}"], "好" * MAX_PROMPT, "好" * (MAX_PROMPT + 1), ""),
    (["serve", "--port", "{}"], "65535", "65536", "0"),
    (["exercise", "{}"], "x" * 100, "x" * 101, ""),
]


def _filled(argv: list[str], value: str) -> list[str]:
    return [value if word == "{}" else word for word in argv]


@pytest.fixture
def nothing_computed(monkeypatch):
    """Every engine entry the commands call raises: a refusal must come before them."""
    from engine import masks, samples, textbook

    def computed(*args, **kwargs):
        raise AssertionError("the engine was called for a value past the limit")

    for module, names in (
        (textbook, ("clm_run", "mlm_run", "visibility_run", "three_samples")),
        (samples, ("clm_sample", "mlm_sample", "span_sample", "prefix_sample")),
        (masks, ("mask_for",)),
    ):
        for name in names:
            monkeypatch.setattr(module, name, computed)
    monkeypatch.setattr("tui.commands.exercise._exercise", computed)


@pytest.mark.parametrize(("argv", "at", "past", "below"), SIZES, ids=lambda v: str(v)[:30])
def test_each_size_runs_at_its_limit_and_is_refused_one_past_it(argv, at, past, below, capsys, request):
    assert main(_filled(argv, at)) == 0
    capsys.readouterr()
    request.getfixturevalue("nothing_computed")
    for outside in (past, *([below] if below is not None else [])):
        with pytest.raises(SystemExit) as exit_info:
            main(_filled(argv, outside))
        captured = capsys.readouterr()
        assert exit_info.value.code == 2 and captured.out == "" and captured.err.count("\n") == 1, (
            captured.err
        )
        assert "the engine was called" not in captured.err


@pytest.mark.parametrize(("argv", "at", "past", "below"), PARSED_SIZES, ids=lambda v: str(v)[:30])
def test_each_size_of_the_other_commands_is_read_at_its_limit_and_refused_past_it(argv, at, past, below):
    build_parser().parse_args(_filled(argv, at))
    for outside in (past, *([below] if below is not None else [])):
        with pytest.raises(ArgumentsError):
            build_parser().parse_args(_filled(argv, outside))


def test_a_runs_own_limits_are_said_when_another_run_allows_more(capsys):
    """textbook --seq-len is read for every run (1..512), then held to the run's own."""
    with pytest.raises(SystemExit):
        main(["textbook", "clm", "--seq-len", "300"])
    assert "argument --seq-len: must be from 2 to 128, got 300" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["textbook", "clm", "--seq-len", "100000"])
    assert "(clm 2..128, mlm 1..128, visibility 1..512)" in capsys.readouterr().err


def test_zero_is_refused_not_replaced_by_the_default(capsys):
    for argv in (["textbook", "clm", "--seq-len", "0"], ["textbook", "mlm", "--batch", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2 and "got 0" in capsys.readouterr().err


def _torch_loaded_by(argv: list[str], env: dict | None = None) -> tuple[bool, str]:
    code = (
        "import sys\nfrom tui.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('\\nTORCH=' + str('torch' in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, env=env, check=True
    )
    err, _, loaded = result.stderr.rpartition("\nTORCH=")
    return loaded.strip() == "True", err


@pytest.mark.parametrize(
    "argv",
    [
        ["textbook", "visibility", "--seq-len", "100000"],
        ["textbook", "clm", "--seq-len", "300"],
        ["show", "mask", "causal", "--n", "9" * 5000],
        ["show", "sample", "span", "--spans", "2:5", "--density", "0.3"],
    ],
    ids=lambda argv: " ".join(argv)[:60],
)
def test_a_refused_size_never_imports_torch(argv):
    loaded, err = _torch_loaded_by(argv)
    assert not loaded and err.count("\n") == 1, err


# -- an option that does not apply is refused ---------------------------------------------

INAPPLICABLE = [
    (["show", "mask", "causal", "--prefix", "2"], "--prefix applies to prefix only"),
    (["show", "sample", "clm", "--p", "0.3"], "--p applies to mlm without --positions only"),
    (
        ["show", "sample", "mlm", "--positions", "1", "--p", "0.3"],
        "--p applies to mlm without --positions only",
    ),
    (["show", "sample", "mlm", "--fates", "mask"], "--fates applies to mlm with --positions only"),
    (["show", "sample", "span", "--whole-word"], "--whole-word applies to mlm only"),
    (["show", "sample", "prefix", "--cls-sep"], "--cls-sep applies to mlm only"),
    (["show", "sample", "mlm", "--spans", "2:5"], "--spans applies to span only"),
    (
        ["show", "sample", "span", "--spans", "2:5", "--density", "0.3"],
        "--density applies to span without --spans",
    ),
    (
        ["show", "sample", "span", "--spans", "2:5", "--mean-span", "2"],
        "--mean-span applies to span without --spans",
    ),
    (
        ["show", "sample", "span", "--spans", "2:5", "--seed", "1"],
        "--seed applies to what is drawn at random",
    ),
    (["show", "sample", "clm", "--seed", "1"], "--seed applies to what is drawn at random"),
    (
        ["show", "sample", "mlm", "--positions", "1", "--seed", "1"],
        "--seed applies to what is drawn at random",
    ),
    (["show", "sample", "clm", "--prefix", "2"], "--prefix applies to prefix only"),
    (["textbook", "visibility", "--p", "0.3"], "--p applies to mlm only"),
    (["textbook", "visibility", "--batch", "3"], "--batch applies to clm, mlm only"),
    (["textbook", "three-samples", "--seq-len", "3"], "--seq-len applies to clm, mlm, visibility only"),
    (["textbook", "visibility", "--seed", "3"], "--seed applies to clm, mlm only"),
    (["textbook", "clm", "--text", "a b"], "--text applies to three-samples only"),
    (["exercise", "mlm-abcde", "--rubric", "--solution"], "--solution applies to an exercise's variant"),
    (["exercise", "mlm-abcde", "--rubric", "--seed", "3"], "--seed applies to an exercise's variant"),
    (["exercise", "mlm-abcde", "--rubric", "--hints"], "--hints applies to an exercise's variant"),
    (["progress", "--yes"], "--yes applies to --reset only"),
    (["exercises", "--check", "--json"], "--json applies to the catalogue (without --check) only"),
    (["train", "--rules", "--seed", "3"], "--seed applies to training (without --rules) only"),
    (["train", "--rules", "--json"], "--json applies to training (without --rules) only"),
]


@pytest.mark.parametrize(
    ("argv", "said"), INAPPLICABLE, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_an_option_that_does_not_apply_is_refused_not_ignored(argv, said, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--lang", "en", *argv])
    captured = capsys.readouterr()
    assert exit_info.value.code == 2 and captured.out == "" and captured.err.count("\n") == 1
    assert said in captured.err, captured.err
    with pytest.raises(SystemExit):
        main(["--lang", "zh", *argv])
    assert "只适用于：" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "sample", "mlm", "--p", "0.3", "--seed", "2", "--whole-word", "--cls-sep"],
        ["show", "sample", "mlm", "--positions", "1", "--fates", "random", "--seed", "2"],
        ["show", "sample", "span", "--density", "0.3", "--mean-span", "2", "--seed", "1"],
        ["show", "sample", "span", "--spans", "2:5"],
        ["show", "sample", "prefix", "--prefix", "2"],
        ["show", "mask", "prefix", "--prefix", "2"],
        ["textbook", "mlm", "--seed", "1", "--batch", "8", "--seq-len", "16", "--p", "0.3"],
        ["textbook", "visibility", "--seq-len", "4"],
        ["exercise", "mlm-abcde", "--seed", "3", "--solution", "--hints"],
        ["exercise", "mlm-abcde", "--rubric"],
        ["train", "--rules", "--corpus", "en"],
    ],
    ids=" ".join,
)
def test_options_where_they_apply_are_accepted(argv, capsys):
    assert main(argv) == 0


def test_each_answer_part_is_given_once(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--lang", "zh", "check", "mlm-abcde", "--answer", "inputs=A", "--answer", "inputs ＝ B"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == "objectives-tutor check：--answer inputs 只能给出一次（见 --help）\n"
    graded = ["check", "mlm-abcde", "--answer", "inputs=A B", "--answer", "loss_positions=1", "--json"]
    assert main(graded) == 0 and set(json.loads(capsys.readouterr().out)["parts"]) == {
        "inputs",
        "loss_positions",
        "labels",
    }
