"""One i18n mechanism, the bilingual pair ``L(en, zh)``: every pair (MESSAGES' keys, the
ones written inline beside their rule, argparse's catalogue) has both languages with the
same parameters, and no key is left unused. The engine's errors: tests/test_i18n_errors.py;
argparse's sentences: tests/test_i18n_argparse.py; strings outside the mechanism:
tests/test_i18n_strays.py."""

import ast
import re
import string
from pathlib import Path

import pytest

from tui.i18n import ARGPARSE, MESSAGES, t

ROOT = Path(__file__).resolve().parent.parent

# Keys built at run time from a prefix (t(f"hints-{policy}", ...)): the only ones
# the scan below cannot see written out. Each prefix must really be used so.
DYNAMIC_PREFIXES = ("mask-title-", "tb-mlm-", "hints-", "lab-status-")


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def python_files(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def test_every_key_has_both_languages_with_the_same_parameters():
    for key, text in MESSAGES.items():
        assert set(text) == {"en", "zh"}, key
        assert text["en"].strip() and text["zh"].strip(), key
        assert fields(text["en"]) == fields(text["zh"]), key


def inline_pairs() -> list[tuple[str, str, str]]:
    """Every ``L("…", "…")`` written with two literal sentences in tui/ and exercises/:
    (where, en, zh). A pair built from variables is checked where it is built."""
    found = []
    for path in python_files("tui", "exercises"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "L" and len(node.args) == 2:
                en, zh = node.args
                if all(isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in (en, zh)):
                    found.append((f"{path.relative_to(ROOT)}:{node.lineno}", en.value, zh.value))
    return found


def test_the_scan_finds_the_inline_pairs():
    where = {place.split(":")[0] for place, _, _ in inline_pairs()}
    assert {"exercises/items/mask_matrix.py", "exercises/text.py", "tui/i18n.py"} <= where
    assert len(inline_pairs()) > 1000


SPEC = re.compile(r"(.?[<>=^])?[+\- ]?#?0?\d*[,_]?(\.\d+)?[bcdeEfFgGnosxX%]?")


def parameters(template: str) -> set[str] | None:
    """The {parameters} a template is formatted with; None for prose that holds braces
    of its own ("{0..5}", "{位置: 原 token}"), which is never formatted."""
    try:
        parsed = [(name, spec) for _, name, spec, _ in string.Formatter().parse(template) if name is not None]
    except ValueError:
        return None
    if any(not name.isidentifier() or not SPEC.fullmatch(spec or "") for name, spec in parsed):
        return None
    return {name for name, _ in parsed}


def test_every_inline_pair_has_both_languages_with_the_same_parameters():
    """Both sides say something (or both nothing: ``L("", "")`` is "no note" in both),
    and name the same {parameters}; prose braces are the same in number on both sides."""
    bad = []
    for place, en, zh in inline_pairs():
        if bool(en.strip()) != bool(zh.strip()):
            bad.append((place, "one language is empty", en, zh))
            continue
        said = parameters(en), parameters(zh)
        if None in said:
            same = sorted(re.findall(r"[{}]", en)) == sorted(re.findall(r"[{}]", zh))
        else:
            same = said[0] == said[1]
        if not same:
            bad.append((place, "parameters differ", en, zh))
    assert bad == []


def test_the_pair_check_sees_a_missing_parameter_and_an_empty_side():
    assert parameters("got {value!r} of {limit:,}") == {"value", "limit"}
    assert parameters("labels = {位置: 原 token}") is None
    assert parameters("收到 {值}") == {"值"}  # a Chinese name is still a parameter: it differs


def test_every_argparse_sentence_has_both_languages_with_the_same_placeholders():
    percent = re.compile(r"%(?:\(\w+\))?[sdr]")
    for msgid, text in ARGPARSE.items():
        assert set(text) == {"en", "zh"} and text["en"] == msgid, msgid  # English: argparse's own
        assert text["zh"].strip(), msgid
        assert sorted(percent.findall(text["en"])) == sorted(percent.findall(text["zh"])), msgid


def used_strings() -> set[str]:
    """Every string literal in a module that speaks through tui.i18n."""
    found: set[str] = set()
    for path in python_files("tui", "exercises"):
        source = path.read_text(encoding="utf-8")
        if path.name == "i18n.py":  # its own keys count only where it calls t() itself
            found |= {
                node.args[0].value
                for node in ast.walk(ast.parse(source))
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "t"
                if node.args and isinstance(node.args[0], ast.Constant)
            }
        elif "tui.i18n" in source:
            found |= {
                node.value
                for node in ast.walk(ast.parse(source))
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
            }
    return found


def test_every_key_is_used():
    used = used_strings()
    unused = [key for key in MESSAGES if key not in used and not key.startswith(DYNAMIC_PREFIXES)]
    assert unused == []


def test_each_dynamic_prefix_is_really_built():
    sources = "\n".join(path.read_text(encoding="utf-8") for path in python_files("tui", "exercises"))
    for prefix in DYNAMIC_PREFIXES:
        assert re.search(r"t\(f[\"']" + re.escape(prefix) + r"\{", sources), prefix
        assert any(key.startswith(prefix) for key in MESSAGES), prefix


def test_no_inline_language_switch_outside_the_classroom():
    """No `"…" if lang == "zh" else "…"`: a word lives in MESSAGES (or beside its exercise)."""
    pattern = re.compile(r"""["'][^"']*["']\s+if\s+\w*lang\w*\s*==\s*["'](zh|en)["']\s+else""")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in python_files("tui", "exercises")
        if "classroom" not in path.parts  # h3 converts the classroom
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]
    assert offenders == []


def test_t_fills_parameters_in_the_asked_language():
    assert t("variant", "zh", seed=3) == "变体 3"
    assert t("variant", "en", seed=3) == "variant 3"


def _os_error(action) -> OSError:
    try:
        action()
    except OSError as error:
        return error
    raise AssertionError("no OSError")


def test_a_failed_file_operation_reads_in_chinese_through_the_reason(tmp_path):
    """The OS gives its reason in English only; a zh message must not switch to it halfway."""
    from exercises.text import cannot, reason_of

    blocker = tmp_path / "file"
    blocker.write_text("x")
    cases = {
        "没有这个文件或文件夹": _os_error(lambda: (tmp_path / "none.toml").read_text()),
        "这是文件夹": _os_error(lambda: tmp_path.read_text()),
        "路径中有一段不是文件夹": _os_error(lambda: (blocker / "x").mkdir()),
        "已经存在": _os_error(lambda: blocker.mkdir()),
    }
    for zh, error in cases.items():
        said = cannot("read", "q.toml", error)
        assert said["zh"] == f"无法读取 q.toml：{zh}"
        assert said["en"] == f"cannot read q.toml: {error.strerror}"  # the OS's own English words
        assert not re.search("[A-Za-z]{3,}", said["zh"].replace("q.toml", ""))
    try:
        b"\xff".decode("utf-8")
    except UnicodeDecodeError as error:
        assert reason_of(error) == {"en": "not UTF-8 text", "zh": "不是 UTF-8 文本"}
    odd = OSError(1234, "Strange failure")  # an errno we do not know: its text, in both
    assert reason_of(odd) == {"en": "Strange failure", "zh": "Strange failure"}


@pytest.mark.parametrize(
    "argv",
    [
        ["quiz", "grade", "{tmp}/none.toml", "{tmp}"],
        [
            "quiz",
            "new",
            "--title",
            "T",
            "--exercises",
            "clm-shift",
            "--roster",
            "{tmp}/none.csv",
            "-o",
            "{tmp}/q.toml",
        ],
        ["class", "init", "{tmp}/c", "--roster", "{tmp}/none.csv"],
    ],
    ids=["quiz-grade", "quiz-new-roster", "class-init-roster"],
)
def test_a_missing_file_is_told_in_chinese_without_english(tmp_path, capsys, argv):
    from tui.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["--lang", "zh", *(part.replace("{tmp}", str(tmp_path)) for part in argv)])
    status, err = stopped.value.code, capsys.readouterr().err
    assert status == 2 and "没有这个文件或文件夹" in err, err
    assert "No such file" not in err and "Errno" not in err
