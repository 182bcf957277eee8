"""Every figure and cross-reference in a lesson has a source (issue 32, "by construction").

A *stated figure* is what a reader takes as a measured or quoted number: a decimal (0.34,
9.6401), a percent (15 %), a range (0.05–0.10, seeds 0–7) or a split (80/20/0). Integers
alone are not: they are counts and positions of the lesson's own examples ("2 layers",
"position 3"), which the reader can check by looking. A stated figure has a source when

- it is a placeholder (``exercises.facts``): the training lab's recorded runs, the engine's
  constants, the curriculum's lesson numbers, filled in when the lesson renders;
- its paragraph cites a paper: an arXiv id, a section or a table ("Section 3.2", "3.2 节",
  "Table 8", "表 8"), so the reader can look it up;
- it is the result of the arithmetic written before it ("32 × 0.15 = 4.8"), checked here;
- it is one of the engine's defining constants, written in words (BERT's 15 % and
  80/10/10, T5's 0.15), computed here from ``engine.settings``.

A lesson's zh and en versions use the same placeholders and state the same other figures."""

from __future__ import annotations

import re

import pytest

from exercises import facts
from exercises.curriculum import OBJECTIVES, lesson_source
from exercises.facts import lesson_text

LANGS = ("zh", "en")
LESSONS = [objective.id for objective in OBJECTIVES]

FIGURE = re.compile(
    r"(?<![\w.§:/^])(?:"
    r"\d+(?:\.\d+)?\s?[–-]\s?\d+(?:\.\d+)?(?!\d|\.\d)"  # a range
    r"|\d+/\d+/\d+"  # a split
    r"|\d+(?:\.\d+)?\s?[%％]"  # a percent
    r"|\d*\.\d+"  # a decimal
    r")"
)
CITATION = re.compile(r"arXiv:\d{4}\.\d{4,5}|Section \d|§ ?\d|Table \d|[\d.]+ ?节|表 ?\d")
ARITHMETIC = re.compile(r"(\d+(?:\.\d+)?) ?[x×] ?(\d+(?:\.\d+)?) ?= ?(\d+(?:\.\d+)?)")
# A lesson named by hand: its number, or its title quoted ("the lesson "CLM vs MLM"", "……一课")
TYPED_REFERENCE = re.compile(
    r"\b[Ll]essons? \d+|第 ?\d+ ?课|[Tt]he lesson (?:on |\")|\b(?!This|The|Each|Every|Next|Any)(?:[A-Z]\w*|LM) lesson\b|(?<![这本下上每])一课"
)


def constants() -> set[str]:
    """BERT's and T5's defining constants as a lesson writes them (from engine.settings)."""
    from engine import settings

    rate = f"{settings.MASK_RATE * 100:g}"
    mask, random, keep = (round(share * 100) for share in settings.BERT_SPLIT)
    no_keep = f"{mask}/{random + keep}/0"  # the code lab's bug that keeps none: its split, named
    return {
        f"{rate}%",
        f"{settings.MASK_RATE:g}",
        f"{settings.NOISE_DENSITY:g}",
        f"{mask}/{random}/{keep}",
        no_keep,
    } | {f"{share}%" for share in (mask, random, keep)}


def prose(text: str) -> str:
    """The text a reader takes as statements: no code (fenced, indented or inline), no placeholder."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"^    .*$", "", text, flags=re.M)
    text = re.sub(r"`[^`]*`", "", text)
    return facts.PLACEHOLDER.sub("", text)


def normal(figure: str) -> str:
    return re.sub(r"\s", "", figure).replace("％", "%").replace("-", "–")


def unsourced(text: str) -> list[str]:
    """The stated figures of ``text`` (a lesson's source) that have no source."""
    found = []
    allowed = constants()
    for paragraph in re.split(r"\n\s*\n", prose(text)):
        if CITATION.search(paragraph):
            continue
        computed = set()
        for a, b, product in ARITHMETIC.findall(paragraph):
            assert abs(float(a) * float(b) - float(product)) < 1e-9 * max(1.0, float(product)), (
                a,
                b,
                product,
            )
            computed.add(product)
        for match in FIGURE.finditer(paragraph):
            figure = normal(match.group())
            if figure not in allowed and figure not in computed:
                found.append(figure)
    return found


def stated(text: str) -> set[str]:
    """Every figure a lesson's source states, placeholders included (as written)."""
    return {normal(match.group()) for match in FIGURE.finditer(prose(text))} | set(facts.placeholders(text))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("lesson", LESSONS)
def test_every_figure_in_a_lesson_has_a_source(lesson, lang):
    assert unsourced(lesson_source(lesson, lang)) == []


@pytest.mark.parametrize("lesson", LESSONS)
def test_zh_and_en_state_the_same_figures(lesson):
    zh, en = (stated(lesson_source(lesson, lang)) for lang in LANGS)
    assert (zh - en, en - zh) == (set(), set())


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("lesson", LESSONS)
def test_no_lesson_types_a_lesson_number(lesson, lang):
    assert TYPED_REFERENCE.findall(prose(lesson_source(lesson, lang))) == []


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("lesson", LESSONS)
def test_every_placeholder_renders(lesson, lang):
    text = lesson_text(lesson, lang)
    assert "{{" not in text and "}}" not in text


def test_a_cross_reference_is_the_curriculums_number_and_title():
    number = LESSONS.index("prefix-lm") + 1
    assert facts.render("{{lesson:prefix-lm}}", "zh") == f"第 {number} 课“前缀语言模型”"
    assert facts.render("{{lesson:prefix-lm}}", "en") == f'lesson {number}, "Prefix LM"'
    with pytest.raises(ValueError):
        facts.render("{{lesson:no-such-lesson}}", "en")


def test_recorded_figures_follow_the_readers_toy_language():
    """The English lesson quotes the English toy language's runs, the Chinese the Chinese."""
    from exercises.training.recorded import recorded

    runs = recorded()["runs"]
    for lang in LANGS:
        values = [
            runs[f"{lang}/{seed}"]["bugs"]["no_keep"]["fill"] for seed in recorded()["settings"]["seeds"]
        ]
        shown = facts.render("{{run:bug.no_keep.fill.list}}", lang)
        assert shown.replace("、", ", ") == ", ".join(f"{value:.2f}" for value in values)


def test_the_check_finds_a_typed_figure_and_a_typed_reference():
    """The checks above can fail: a measured number typed in, a lesson number typed in."""
    assert unsourced("The T5 row fills 0.12–0.15 on seeds 0–7.") == ["0.12–0.15", "0–7"]
    assert unsourced("It fills {{run:span.fill}} (BERT, arXiv:1810.04805, Table 8: 84.1).") == []
    assert unsourced("On average 32 × 0.15 = 4.8 tokens, of which 15 % ...") == []
    assert TYPED_REFERENCE.findall("see lesson 7, and 第 9 课") == ["lesson 7", "第 9 课"]
    assert (
        len(TYPED_REFERENCE.findall('the lesson "CLM vs MLM" and the Causal LM lesson; 片段破坏那一课')) == 3
    )
    with pytest.raises(AssertionError):
        unsourced("32 × 0.15 = 4.9")


def test_the_recorded_engine_figures_are_the_engines():
    """engine_figures.json is what the engine computes now (re-record with its command)."""
    import json

    recorded = json.loads(facts.ENGINE_PATH.read_text(encoding="utf-8"))
    fresh = facts.engine_values()
    assert recorded["command"] == facts.ENGINE_COMMAND
    assert recorded["mlm"] == fresh["mlm"]
    for group in ("clm", "t5"):
        for name, value in fresh[group].items():
            assert recorded[group][name] == pytest.approx(value, abs=1e-4), (group, name)


def test_the_recorded_runs_say_how_to_regenerate_them():
    from exercises.training.recorded import COMMAND, recorded

    assert recorded()["command"] == COMMAND
    assert set(recorded()["runs"]) == {f"{corpus}/{seed}" for corpus in ("zh", "en") for seed in range(8)}
