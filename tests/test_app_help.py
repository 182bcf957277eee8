"""Issue 11.13: `?` opens help on every screen where focus is not in a text box;
and the help screen's key tables are made from the bindings (issue 10), F8 included
(issue 13)."""

import ast
import re
import types
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import Static

from exercises.text import pick
from tui.app import TutorApp
from tui.bindings import key_label
from tui.i18n import MESSAGES
from tui.screens.help import HelpScreen, app_sections, exam_sections, help_text, plain, rows

TUI = Path(__file__).resolve().parent.parent / "tui"
# Bound by Textual itself, not in tui/: the palette key and the focus keys.
TEXTUAL_OWN = {("ctrl+p", "command_palette"), ("tab", "app.focus_next"), ("shift+tab", "app.focus_previous")}
KEY_NAMES = {"minus": "-", "plus": "+", "equals_sign": "=", "question_mark": "?"}


def declared_bindings() -> set[tuple[str, str]]:
    """Every (key, action) a Binding(...) in tui/ declares, read from the source:
    an independent account of the keys (the help screen reads the classes)."""
    found = set()
    for path in TUI.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Binding":
                keys, action = (arg.value for arg in node.args[:2])
                if path.name == "help.py":  # the help screen's own "close", and its palette row
                    continue
                if path.name == "dashboard.py":  # h6: the teacher's dashboard is an app of its own
                    continue
                found |= {(KEY_NAMES.get(key, key), action) for key in keys.split(",")}
    return found


def shown(lang: str, exam: bool, app: type = TutorApp) -> set[tuple[str, str]]:
    sections = exam_sections(lang, app) if exam else app_sections(lang, app)
    pairs = set()
    for section in sections:
        for row in rows(section, lang):
            pairs |= {(KEY_NAMES.get(b.key, b.key), b.action) for b in row.bindings}
    return pairs


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_help_shows_every_declared_key_and_no_other(lang):
    declared = declared_bindings()
    assert ("f8", "open_code_lab") in declared and ("ctrl+n", "next_lesson") in declared  # the scan works
    from tui.classweb.student_app import ClassTutorApp

    in_help = shown(lang, exam=False) | shown(lang, exam=True) | shown(lang, exam=False, app=ClassTutorApp)
    assert sorted(declared - in_help) == []
    assert sorted(in_help - declared - TEXTUAL_OWN) == []


def test_a_key_bound_or_rebound_on_a_screen_changes_the_help(monkeypatch):
    from tui.screens.lesson import LessonScreen
    from tui.widgets.matrix_editor import MatrixEditor

    before = help_text("en", TutorApp)
    assert re.search(r"Ctrl\+N +Next lesson", before) and "Ctrl+J" not in before
    rebound = [
        binding.with_key("ctrl+j") if binding.action == "next_lesson" else binding
        for binding in LessonScreen.BINDINGS
    ]
    monkeypatch.setattr(LessonScreen, "BINDINGS", rebound)
    monkeypatch.setattr(
        MatrixEditor, "BINDINGS", [*MatrixEditor.BINDINGS, Binding("f11", "frobnicate", "Frob")]
    )
    after = help_text("en", TutorApp)
    assert re.search(r"Ctrl\+J +Next lesson", after) and "Ctrl+N" not in after
    assert re.search(r"F11 +Frob", after)  # a new action: its own description until it is translated


def test_every_key_in_the_chinese_help_is_described_in_chinese():
    chinese = {pick(text, "zh") for text in MESSAGES.values()}
    for section in app_sections("zh", TutorApp) + exam_sections("zh", TutorApp):
        for row in rows(section, "zh"):
            assert row.description in chinese, (section.title, row.keys, row.description)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_f8_the_code_lab_is_in_the_lesson_keys_and_not_in_the_exam(lang):
    lesson = app_sections(lang, TutorApp)[1]
    assert any("f8" in row.keys for row in rows(lesson, lang))
    assert "F8" in help_text(lang, TutorApp)
    assert "F8" not in help_text(lang, TutorApp, exam=True)


def test_the_exam_help_leaves_out_what_the_exam_refuses():
    exam_app = types.SimpleNamespace(exam=object())
    refused = help_text("en", TutorApp, exam=True, allowed=lambda a: TutorApp.check_action(exam_app, a, ()))
    assert "Ctrl+L" not in refused and "Ctrl+P" not in refused and "Ctrl+T" not in refused
    for line in (r"Ctrl\+S +Submit", r"F1 / \? +Help", r"Ctrl\+Q +Quit"):
        assert re.search(line, refused), line
    # the exam's own Enter (priority) hides the grid's "Enter: check"
    assert len(re.findall(r"^ *Enter ", refused, re.MULTILINE)) == 1


@pytest.mark.parametrize(
    ("key", "lang", "label"),
    [
        ("ctrl+q", "en", "Ctrl+Q"),
        ("f8", "zh", "F8"),
        ("left_square_bracket", "en", "["),
        ("question_mark", "en", "?"),
        ("equals_sign", "zh", "="),
        ("minus", "en", "-"),
        ("enter", "zh", "回车"),
        ("enter", "en", "Enter"),
        ("space", "zh", "空格"),
        ("escape", "zh", "Esc"),
        ("shift+tab", "en", "Shift+Tab"),
        ("pagedown", "en", "PgDn"),
        ("up", "en", "↑"),
        ("h", "en", "h"),
    ],
)
def test_keys_are_written_as_people_write_them(key, lang, label):
    assert key_label(key, lang) == label


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_f1_opens_the_help_made_from_the_bindings(lang, monkeypatch):
    """What F1 shows follows the bindings: next lesson rebound to Ctrl+J shows Ctrl+J
    (a page written by hand, or read once at import, would still say Ctrl+N)."""
    from tui.screens.lesson import LessonScreen

    rebound = [b.with_key("ctrl+j") if b.action == "next_lesson" else b for b in LessonScreen.BINDINGS]
    monkeypatch.setattr(LessonScreen, "BINDINGS", rebound)
    app = TutorApp(lang=lang, still=True, load_engine=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        shown = plain(app.screen.query_one("#help-page", Static).content)
        assert "F8" in shown and "Ctrl+J" in shown and "Ctrl+Q" in shown
        assert "Ctrl+N" not in shown


# `?` opening help wherever focus is not in a text box is checked on the walk through every
# screen that tests/test_app_footers.py makes for the footers (one walk for both).
