"""Issue 11, glossary: one bilingual glossary, reachable from every lesson (F9) and
from Ctrl+P, by a term's name in either language."""

import pytest

from exercises.glossary import BY_ID, TERMS
from exercises.text import LANGS
from tests.test_app_palette import palette_hits
from tui.app import TutorApp
from tui.screens.glossary import GlossaryScreen


def test_every_term_exists_in_both_languages_and_the_course_words_are_there():
    for term in TERMS:
        for lang in LANGS:
            assert term.name[lang].strip() and term.meaning[lang].strip()
    names = " ".join(term.name["en"] + term.name["zh"] for term in TERMS)
    for word in (
        "CLM",
        "MLM",
        "-100",
        "ignore_index",
        "哨兵",
        "Sentinel",
        "Prefix",
        "Visibility",
        "Perplexity",
    ):
        assert word in names
    assert {"causal-mask", "bidirectional-mask", "prefix-mask"} <= set(BY_ID)


def plain(widget) -> str:
    return widget.content.plain if hasattr(widget.content, "plain") else str(widget.content)


@pytest.mark.parametrize("objective", ["self-supervision", "misconceptions"])
async def test_f8_opens_the_glossary_from_a_lesson(objective):
    app = TutorApp(lang="zh", still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson(objective)
        await pilot.pause()
        await pilot.press("f9")
        await pilot.pause()
        assert isinstance(app.screen, GlossaryScreen)
        text = plain(app.screen.query_one("#glossary"))
        assert "哨兵" in text and BY_ID["perplexity"].meaning["zh"] in text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.objective.id == objective


@pytest.mark.parametrize(
    ("query", "term"), [("哨兵", "sentinel"), ("ignore_index", "ignore-index"), ("困惑度", "perplexity")]
)
async def test_ctrl_p_finds_a_term_in_either_language(query, term):
    app = TutorApp(lang="en", still=True, load_engine=False)
    async with app.run_test(size=(100, 30)) as pilot:
        hits = await palette_hits(pilot, query)
        assert any(BY_ID[term].name["en"] in hit for hit in hits), hits
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, GlossaryScreen)
        assert plain(app.screen.query_one("#glossary")).startswith(BY_ID[term].name["en"])
