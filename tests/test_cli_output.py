"""Issue 22, "output that is what it says": piped or redirected, plain output does not
depend on any terminal (the textbook runs print the lines the lessons' code prints,
whole); in a terminal, it fits the terminal's width; large drawings are capped with a
pointer to --json; and probe never trains unasked."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from tui.cli import main

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

# Every command of the learner's command line that prints plain text (not JSON).
PLAIN = [
    ["textbook", "clm"],
    ["textbook", "clm", "--seq-len", "60"],
    ["textbook", "mlm", "--batch", "6", "--seq-len", "30", "--p", "0.3"],
    ["textbook", "visibility", "--seq-len", "24"],
    ["textbook", "three-samples"],
    ["textbook", "three-samples", "--text", "今天天气很好，我们一起去公园散步吧，然后回家吃饭"],
    ["show", "mask", "prefix", "--n", "40", "--prefix", "9"],
    ["show", "sample", "clm", "--text", "今天天气很好，我们一起去公园散步吧"],
    ["show", "sample", "mlm", "--cls-sep", "--p", "0.4"],
    ["show", "sample", "span", "--density", "0.4", "--mean-span", "2"],
    ["show", "sample", "prefix", "--text", "translate English to German : that is good . das ist gut ."],
    ["exercises"],
    ["exercise", "mlm-abcde", "--solution", "--hints"],
    ["exercise", "mask-matrix", "--seed", "3", "--solution"],
    ["exercise", "span-corruption", "--rubric"],
    ["check", "mlm-abcde", "--answer", "inputs=A [MASK] C D [MASK]", "--answer", "loss_positions=1"],
    [
        "check",
        "reflect-clm-generation",
        "--answer",
        "answer=it predicts the next token",
        "--answer",
        "self_mark=y",
    ],
    ["progress"],
    ["train", "--rules", "--corpus", "en"],
]


def plain(capsys, monkeypatch, argv, *, lang: str, columns: int, terminal: bool) -> str:
    """What ``argv`` prints with stdout piped (or a terminal), beside a terminal of ``columns``
    (on stdin and stderr, as when a learner types `... > out.txt`)."""
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=None: os.terminal_size((columns, 24)))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: terminal)
    assert main(["--lang", lang, *argv]) == 0
    return ANSI.sub("", capsys.readouterr().out)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_piped_output_does_not_depend_on_the_terminal(argv, lang, capsys, monkeypatch):
    narrow = plain(capsys, monkeypatch, argv, lang=lang, columns=40, terminal=False)
    wide = plain(capsys, monkeypatch, argv, lang=lang, columns=200, terminal=False)
    assert narrow == wide and narrow.strip()
    monkeypatch.delenv("COLUMNS")
    assert plain(capsys, monkeypatch, argv, lang=lang, columns=80, terminal=False) == narrow


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_output_in_a_terminal_fits_its_width(argv, lang, capsys, monkeypatch):
    for columns in (40, 200):
        out = plain(capsys, monkeypatch, argv, lang=lang, columns=columns, terminal=True)
        assert max(cell_len(line) for line in out.splitlines()) <= columns, (columns, out)


def _rows(grid, width: int = 5) -> list[str]:
    """The lessons' show_int: '  ' + ' '.join(f'{v:5d}')."""
    return ["  " + " ".join(f"{value:{width}d}" for value in row) for row in grid]


def _bits(grid) -> list[str]:
    """The lessons' show_bool: '  ' + ' '.join('1' if v else '0')."""
    return ["  " + " ".join("1" if value else "0" for value in row) for row in grid]


def _three_samples(run) -> str:
    """What "Pretraining methods" prints with print("causal inputs :", list) ..."""
    out = io.StringIO()
    print("causal inputs :", run.causal_inputs, file=out)
    print("causal labels :", run.causal_labels, file=out)
    print(file=out)
    print("masked inputs :", run.masked_inputs, file=out)
    print("masked labels :", run.masked_labels, file=out)
    print(file=out)
    print("span inputs   :", run.span_inputs, file=out)
    print("span target   :", run.span_target, file=out)
    return out.getvalue()


@pytest.mark.parametrize("columns", [40, 80, 200])
def test_piped_the_textbook_runs_print_the_lines_the_lessons_code_prints(columns, capsys, monkeypatch):
    """Whole rows at any width: each run's lines, as the lessons' own print statements
    format the engine's numbers (a 60-long row is one line of 361 characters)."""
    from engine import textbook

    def lines(*argv) -> list[str]:
        return plain(capsys, monkeypatch, list(argv), lang="en", columns=columns, terminal=False).splitlines()

    clm = textbook.clm_run(seq_len=60)
    out = lines("textbook", "clm", "--seq-len", "60")
    for expected in (*_rows(clm.input_ids.tolist()), *_bits(clm.causal_mask.tolist())):
        assert expected in out
    mlm = textbook.mlm_run(seed=3, batch=6, seq_len=30, p=0.3)
    out = lines("textbook", "mlm", "--seed", "3", "--batch", "6", "--seq-len", "30", "--p", "0.3")
    for grid in (mlm.original_ids, mlm.input_ids, mlm.labels):
        assert all(row in out for row in _rows(grid.tolist()))
    assert all(row in out for row in _bits(mlm.selected.tolist()))
    out = lines("textbook", "visibility", "--seq-len", "24")
    assert f"  position 23: {list(range(24))}" in out and "  " + " ".join(["0"] * 24) in out
    text = "transformer models learn patterns from large text corpora and then some more words"
    assert "\n".join(lines("textbook", "three-samples", "--text", text)) + "\n" == _three_samples(
        textbook.three_samples(text)
    )


def _in_a_pty(argv: list[str], *, columns: int, stdout_too: bool, out_path: Path | None = None) -> str:
    """The real binary run from a terminal of ``columns`` (no COLUMNS in the environment):
    stdin and stderr are the terminal; stdout too, or the file ``out_path`` (`> out.txt`)."""
    import fcntl
    import pty
    import struct
    import termios

    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {key: value for key, value in os.environ.items() if key not in ("COLUMNS", "LINES")}
    binary = os.path.join(os.path.dirname(sys.executable), "objectives-tutor")
    with open(out_path or os.devnull, "w") as out:
        process = subprocess.Popen(
            [binary, *argv],
            stdin=terminal,
            stdout=terminal if stdout_too else out,
            stderr=terminal,
            env={**env, "NO_COLOR": "1"},
        )
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait() == 0
    os.close(controller)
    return ANSI.sub("", b"".join(chunks).decode()).replace("\r\n", "\n")


def test_the_real_binary_redirected_from_a_narrow_terminal_prints_whole_lines(tmp_path, capsys):
    """`objectives-tutor exercises > out.txt` typed in a 40-column terminal: stdin and
    stderr are that terminal (Rich used to take its width from them and wrap the file)."""
    assert main(["--lang", "en", "exercises", "--json"]) == 0
    titles = [row["title"] for row in json.loads(capsys.readouterr().out)["exercises"]]
    _in_a_pty(["--lang", "en", "exercises"], columns=40, stdout_too=False, out_path=tmp_path / "out.txt")
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert len(lines) == len(titles) + 1 and all(
        title in line for title, line in zip(titles, lines[1:], strict=True)
    )


def test_the_real_binary_in_a_narrow_terminal_wraps_to_it():
    out = _in_a_pty(["--lang", "zh", "exercises"], columns=40, stdout_too=True)
    assert "concept-sel" in out and "f-supervisi" in out  # the id column folded to fit
    assert max(cell_len(line) for line in out.splitlines()) <= 40


# -- large drawings are capped, with --json for the whole ----------------------------------


@pytest.mark.parametrize(
    ("argv", "most_lines"),
    [
        (["textbook", "visibility", "--seq-len", "512"], 3),
        (["textbook", "mlm", "--batch", "4096", "--seq-len", "128"], 8),
        (["show", "mask", "causal", "--n", "512"], 2),
        (["show", "sample", "clm", "--text", "好" * 256], 12),
        (["show", "sample", "mlm", "--text", "好" * 256, "--p", "0.5"], 4),
    ],
    ids=lambda v: " ".join(v)[:50] if isinstance(v, list) else str(v),
)
def test_large_outputs_are_capped_and_json_has_them_whole(argv, most_lines, capsys):
    assert main(["--lang", "en", *argv]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) <= most_lines and "--json prints them all" in out, out
    assert main([*argv, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    sizes = {key: len(value) for key, value in payload.items() if isinstance(value, list)}
    assert max(sizes.values()) >= 256


def test_the_last_drawable_size_is_drawn(capsys):
    assert main(["textbook", "visibility", "--seq-len", "128"]) == 0
    out = capsys.readouterr().out
    assert "too many" not in out and "  position 127: [0, 1," in out


def test_control_characters_from_the_text_never_reach_the_terminal(capsys):
    for objective in ("clm", "mlm", "span", "prefix"):
        assert main(["show", "sample", objective, "--text", "a \x1b[2Jb c\u202e d e f g h"]) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "\u202e" not in out and "\\x1b[2Jb" in out, objective


# -- probe never trains unasked ------------------------------------------------------------


@pytest.mark.parametrize(("lang", "corpus"), [("en", "en"), ("zh", "zh")])
def test_probe_without_models_refuses_with_the_command_and_imports_no_torch(lang, corpus, tmp_path):
    code = (
        "import sys\nfrom tui.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n"
        "    sys.stderr.write(f'\\nEXIT={e.code}')\nsys.stderr.write('\\nTORCH=' + str('torch' in sys.modules))"
    )
    env = {**os.environ, "OBJECTIVES_TUTOR_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", code, "--lang", lang, "probe", "because Tom"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=True,
    )
    assert "EXIT=2" in result.stderr and "TORCH=False" in result.stderr
    assert f"`objectives-tutor train --corpus {corpus}`" in result.stderr
    assert result.stdout == "" and not (tmp_path / "training-lab").exists()


def _as_a_terminal(monkeypatch, reply: str) -> list[str]:
    asked: list[str] = []
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return reply

    monkeypatch.setattr("builtins.input", answer)
    return asked


@pytest.mark.parametrize(
    ("lang", "reply", "corpus_name"), [("en", "n", "English toy language"), ("zh", "否", "中文玩具语言")]
)
def test_probe_in_a_terminal_asks_first_and_a_no_trains_nothing(
    lang, reply, corpus_name, capsys, monkeypatch
):
    from exercises.training.runs import run_path

    asked = _as_a_terminal(monkeypatch, reply)
    assert main(["--lang", lang, "probe", "because Tom"]) == 0
    out = capsys.readouterr().out
    assert asked == ["[y/N] "] and corpus_name in out.replace("\n", "")
    assert f"objectives-tutor train --corpus {lang}" in out.replace("\n", "")
    assert not run_path().exists()


def test_probe_in_a_terminal_trains_on_the_learners_language_when_asked(capsys, monkeypatch):
    from engine import train_lab
    from exercises.training.runs import load_run
    from tui.commands import train as train_command

    small = train_lab.LabSettings(steps=2, train_sentences=200, eval_sentences=20)
    monkeypatch.setattr(train_command, "default_settings", lambda: small)
    asked = _as_a_terminal(monkeypatch, "y")
    assert main(["--lang", "en", "probe", "because Tom"]) == 0
    assert len(asked) == 1
    captured = capsys.readouterr()
    assert "training clm: 2 steps" in captured.err and "causal LM" in captured.out
    assert load_run().settings.corpus == "en"
    asked.clear()
    assert main(["--lang", "en", "probe", "because Tom"]) == 0  # the saved run is used: nothing asked
    assert asked == []


def test_probe_with_json_never_asks(capsys, monkeypatch):
    asked = _as_a_terminal(monkeypatch, "y")
    with pytest.raises(SystemExit) as exit_info:
        main(["--lang", "en", "probe", "because Tom", "--json"])
    assert exit_info.value.code == 2 and asked == []
    assert "`objectives-tutor train --corpus en`" in capsys.readouterr().err
