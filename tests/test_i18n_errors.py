"""The engine's errors: one table (engine/errors.py) holds each code's sentence in
English and Chinese; ``str()`` of an error is the English one, ``error_text`` the
learner's language. Every code raised in engine/ is found by reading the code."""

import ast
import string
from pathlib import Path

import pytest

from engine.errors import SENTENCES, InvalidInput
from tui.i18n import error_text

ROOT = Path(__file__).resolve().parent.parent


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def engine_raises() -> dict[str, list[tuple[str, ast.Call]]]:
    """Every ``InvalidInput(...)`` in engine/: code -> (where, the call) of each."""
    found: dict[str, list[tuple[str, ast.Call]]] = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "InvalidInput":
                where = f"{path.name}:{node.lineno}"
                assert node.args and isinstance(node.args[0], ast.Constant), (
                    f"{where}: the code must be a literal"
                )
                found.setdefault(node.args[0].value, []).append((where, node))
    return found


def test_the_scan_finds_the_engine_errors():
    raised = engine_raises()
    assert {"sequence-too-short", "spans-overlap", "bad-shape", "unknown-objective"} <= set(raised)
    assert sum(len(sites) for sites in raised.values()) > 50


def test_every_code_the_engine_raises_has_one_sentence_in_both_languages():
    raised = engine_raises()
    assert sorted(set(raised) - set(SENTENCES)) == []
    assert sorted(set(SENTENCES) - set(raised)) == []  # no sentence for an error that no longer exists
    for code, (en, zh) in SENTENCES.items():
        assert en.strip() and zh.strip(), code
        assert fields(en) == fields(zh), code


def test_every_raise_passes_what_its_sentence_names_and_no_sentence_of_its_own():
    """The message is made from the table: a raise gives the code and parameters only,
    so the English a Python caller reads and the one the app shows cannot drift apart."""
    for code, sites in engine_raises().items():
        for where, call in sites:
            assert len(call.args) == 1, f"{where}: {code} is given a sentence of its own"
            given = {keyword.arg for keyword in call.keywords}
            assert fields(SENTENCES[code][0]) <= given, (where, code, given)


def sample_params(code: str) -> dict[str, object]:
    return {name: f"<{name}>" for name in fields(SENTENCES[code][0])}


@pytest.mark.parametrize("code", sorted(SENTENCES))
def test_an_error_says_the_tables_sentence_in_either_language(code):
    params = sample_params(code)
    error = InvalidInput(code, **params)
    en, zh = SENTENCES[code]
    assert str(error) == en.format(**params) == error_text(error, "en")
    assert error_text(error, "zh") == zh.format(**params)
    assert error.code == code and error.params == params


def test_a_real_engine_error_reads_in_either_language():
    from engine.masks import causal_mask
    from engine.spans import check_spans

    with pytest.raises(InvalidInput) as overlap:
        check_spans([(1, 3), (2, 4)], 8)
    assert str(overlap.value) == "spans 1:3 and 2:4 overlap"
    assert error_text(overlap.value, "zh") == "片段 1:3 与 2:4 重叠"
    with pytest.raises(InvalidInput) as empty:
        causal_mask(0)
    assert str(empty.value) == SENTENCES["length-too-small"][0].format(n=0)
    assert error_text(empty.value, "zh") == "掩码至少需要 1 个位置，收到 n=0"


def test_a_code_without_a_sentence_is_refused_where_it_is_raised():
    with pytest.raises(KeyError, match="a-new-code"):
        InvalidInput("a-new-code")


def test_any_other_error_is_its_own_text():
    assert error_text(ValueError("something else"), "zh") == "something else"
