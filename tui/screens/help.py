"""F1 / ?: every key, in the learner's language.

The tables are made from the screens' and widgets' own ``BINDINGS`` (labelled by
``tui.bindings``, as the footers are), so a key bound anywhere shows up here with
no second edit, and a key that is no longer bound disappears. What the bindings
cannot say (how practice goes, how to read a figure) is a note under its table."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

from exercises.text import pick
from tui.bindings import binding_label, key_label
from tui.i18n import t
from tui.widgets.reading_scroll import ReadingScroll


@dataclass(frozen=True)
class Source:
    """Where a table's keys are declared: a class whose ``BINDINGS`` and
    ``ACTION_KEYS`` are read, or loose bindings (``owner`` None)."""

    bindings: tuple[Binding, ...]
    owner: object = None


@dataclass(frozen=True)
class Section:
    title: str  # already in the learner's language
    sources: tuple[Source, ...]
    note: str | None = None  # i18n key of what the table cannot say


@dataclass(frozen=True)
class Row:
    bindings: tuple[Binding, ...]  # one key each, in the order they were declared
    description: str

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(binding.key for binding in self.bindings))


def own_bindings(cls: type) -> Source:
    """The bindings a class declares itself (Textual merges its parents' at run time)."""
    return Source(tuple(vars(cls).get("BINDINGS", ())), cls)


def app_sections(lang: str, app: type) -> list[Section]:
    """Every key of the self-paced app, by where it works. ``app``: the running app's
    class (the class server's tutor adds a key of its own), passed in so that this
    screen, which the app opens, never imports the app."""
    from textual.screen import Screen

    from exercises.curriculum import OBJECTIVES
    from tui.figures import figure_for
    from tui.figures.base import Figure
    from tui.screens.lab import OPEN_LAB, LabScreen
    from tui.screens.lesson import LessonScreen
    from tui.screens.pages import ReviewScreen
    from tui.widgets.exercise_panel import ExercisePanel
    from tui.widgets.matrix_editor import MatrixEditor
    from tui.widgets.prediction_box import PredictionBox

    sections = [
        Section(t("help-everywhere", lang), everywhere(app, Screen), "help-home"),
        Section(
            t("help-lessons", lang),
            (own_bindings(LessonScreen), Source((OPEN_LAB,)), own_bindings(Figure)),
        ),
        Section(
            t("help-practice", lang),
            (own_bindings(ExercisePanel), own_bindings(MatrixEditor)),
            "help-practice-note",
        ),
        # every figure's keys (predict mode's box too), then each figure's own table
        Section(t("help-figures", lang), (own_bindings(PredictionBox),), "help-figure-note"),
    ]
    figures: dict[type, str] = {}
    for objective in OBJECTIVES:  # each figure once, under the first lesson that shows it
        if objective.figure:
            figures.setdefault(type(figure_for(objective.figure)), pick(objective.title, lang))
    for cls, title in figures.items():
        sections.append(Section(t("help-figure", lang, title=title), (own_bindings(cls),)))
    sections.append(Section(t("help-review", lang), (own_bindings(ReviewScreen),)))
    sections.append(Section(t("help-lab", lang), (own_bindings(LabScreen),)))
    return sections


def exam_sections(lang: str, app: type) -> list[Section]:
    """The keys of a quiz taken in exam mode."""
    from textual.screen import Screen

    from tui.screens.exam import ExamScreen
    from tui.widgets.matrix_editor import MatrixEditor

    return [
        Section(
            t("help-exam", lang),
            (own_bindings(ExamScreen), own_bindings(MatrixEditor), *everywhere(app, Screen)),
            "help-exam-note",
        )
    ]


def everywhere(app: type, screen: type) -> tuple[Source, ...]:
    """The app's own keys (the tutor's, then a subclass's: the classes of the MRO that
    are this project's), the command palette's and Textual's focus keys."""
    palette = Binding(app.COMMAND_PALETTE_BINDING, "command_palette")
    focus = tuple(binding for binding in screen.BINDINGS if binding.action.startswith("app.focus_"))
    apps = tuple(own_bindings(cls) for cls in reversed(app.__mro__) if cls.__module__.startswith("tui."))
    return (*apps, Source((palette,), app), Source(focus))


def rows(section: Section, lang: str, allowed: Callable[[str], bool] = lambda action: True) -> list[Row]:
    """One row per description: keys that do the same thing share a row ("-" and "+"
    of one control, F1 and ?). ``allowed`` drops actions refused where help was opened;
    a key an earlier source binds with priority hides the later sources' use of it, as
    Textual does (the exam's Enter over the matrix grid's)."""
    merged: dict[str, list[Binding]] = {}
    taken: set[str] = set()
    for source in section.sources:
        for binding in Binding.make_bindings(source.bindings):
            if binding.key in taken or not allowed(binding.action):
                continue
            if binding.priority:
                taken.add(binding.key)
            merged.setdefault(binding_label(binding, lang, source.owner), []).append(binding)
    return [Row(tuple(bindings), text) for text, bindings in merged.items()]


def help_page(
    lang: str, app: type, exam: bool = False, allowed: Callable[[str], bool] = lambda action: True
) -> Group:
    """The help page: a table per section, its note below it. Rich tables, not Markdown:
    Textual's Markdown widget takes about a second to lay these tables out."""
    sections = exam_sections(lang, app) if exam else app_sections(lang, app)
    parts: list[object] = [Text(t("help-exam-title" if exam else "help-title", lang), style="bold")]
    for section in sections:
        table = rows(section, lang, allowed)
        if not table and not section.note:  # a figure without keys of its own
            continue
        parts.append(Text("\n" + section.title, style="bold"))
        if table:
            grid = Table(
                box=box.SIMPLE_HEAD, show_edge=False, padding=(0, 1), pad_edge=False, header_style="dim"
            )
            grid.add_column(t("help-key", lang), style="bold", no_wrap=True)
            grid.add_column(t("help-does", lang))
            for row in table:
                grid.add_row(Text(keys_cell(row.keys, lang)), Text(row.description))  # text, not markup
            parts.append(grid)
        if section.note:
            parts.append(Text(t(section.note, lang)))
    return Group(*parts)


def help_text(
    lang: str, app: type, exam: bool = False, allowed: Callable[[str], bool] = lambda action: True
) -> str:
    """The help page as plain text (what a reader sees), at the help screen's width."""
    return plain(help_page(lang, app, exam, allowed))


def plain(page: Group) -> str:
    console = Console(width=HELP_WIDTH, record=True, file=io.StringIO(), color_system=None)
    console.print(page)
    return console.export_text()


def keys_cell(keys: Iterable[str], lang: str) -> str:
    return " / ".join(key_label(key, lang) for key in keys)


HELP_WIDTH = 92  # the page's widest: max-width 96 less the border and padding


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen VerticalScroll { width: 90%; max-width: 96; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,f1,question_mark,q", "dismiss", "close")]

    def __init__(self, exam: bool = False) -> None:
        super().__init__()
        self.exam = exam

    def compose(self) -> ComposeResult:
        app = self.app
        # The keys the app refuses here (an exam's language switch) are left out.
        page = help_page(
            app.lang, type(app), self.exam, lambda action: app.check_action(action, ()) is not False
        )
        with ReadingScroll():
            yield Static(page, id="help-page")
