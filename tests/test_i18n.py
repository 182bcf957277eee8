"""One i18n mechanism: every app and command-line word is a key of MESSAGES, in both
languages, with the same parameters; every error code the engine raises has both
languages too; and no key is left unused."""

import ast
import re
import string
from pathlib import Path

import pytest

from tui.i18n import ERRORS, MESSAGES, error_text, t

ROOT = Path(__file__).resolve().parent.parent

# Keys built at run time from a prefix (t(f"hints-{policy}", ...)): the only ones
# the scan below cannot see written out. Each prefix must really be used so.
DYNAMIC_PREFIXES = ("mask-title-", "tb-mlm-", "hints-", "lab-status-")


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def python_files(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("table", [MESSAGES, ERRORS], ids=["MESSAGES", "ERRORS"])
def test_every_entry_has_both_languages_with_the_same_parameters(table):
    for key, text in table.items():
        assert set(text) == {"en", "zh"}, key
        assert text["en"].strip() and text["zh"].strip(), key
        assert fields(text["en"]) == fields(text["zh"]), key


def engine_raises() -> dict[str, list[set[str]]]:
    """Every InvalidInput raised in engine/: code -> the parameter names of each raise."""
    found: dict[str, list[set[str]]] = {}
    for path in python_files("engine"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "InvalidInput":
                code = node.args[0]
                assert isinstance(code, ast.Constant), (
                    f"{path.name}:{node.lineno}: the code must be a literal"
                )
                found.setdefault(code.value, []).append({kw.arg for kw in node.keywords})
    return found


def test_the_scan_finds_the_engine_errors():
    assert {"sequence-too-short", "spans-overlap", "bad-shape"} <= set(engine_raises())


def test_every_engine_error_code_speaks_both_languages():
    raised = engine_raises()
    assert sorted(set(raised) - set(ERRORS)) == []
    assert sorted(set(ERRORS) - set(raised)) == []  # no text for an error that no longer exists
    for code, sites in raised.items():
        for params in sites:  # every raise passes what the text names
            assert fields(ERRORS[code]["en"]) <= params, (code, params)


def test_an_engine_error_reads_in_either_language():
    from engine.errors import InvalidInput

    error = InvalidInput("spans-overlap", "spans 1:3 and 2:4 overlap", first="1:3", second="2:4")
    assert error_text(error, "zh") == "片段 1:3 与 2:4 重叠"
    assert error_text(error, "en") == "spans 1:3 and 2:4 overlap"
    assert error_text(InvalidInput("a-new-code", "something new"), "zh") == "something new"


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
