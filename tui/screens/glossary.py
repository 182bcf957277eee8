"""The glossary: every term of the course in the learner's language, with the other
language's name beside it (students read both). Reached from every lesson (F9) and
from Ctrl+P; Esc goes back."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static

from exercises.glossary import TERMS, meaning_text
from exercises.text import LANGS, pick
from tui.i18n import t
from tui.widgets.fitting_footer import FittingFooter
from tui.widgets.reading_scroll import ReadingScroll


def glossary_text(lang: str, first: str | None = None) -> Text:
    other = next(code for code in LANGS if code != lang)
    out = Text()
    for term in sorted(TERMS, key=lambda term: term.id != first):  # the asked-for term first
        out.append(pick(term.name, lang), style="bold")
        if term.name[other] != term.name[lang]:
            out.append(t("aside", lang, text=term.name[other]), style="dim")
        out.append("\n  " + meaning_text(term, lang) + "\n\n")
    return out


class GlossaryScreen(Screen):
    DEFAULT_CSS = """
    GlossaryScreen VerticalScroll { padding: 1 2; }
    """
    BINDINGS = [Binding("escape", "leave", "back")]

    def __init__(self, first: str | None = None) -> None:
        super().__init__()
        self.first = first

    def compose(self) -> ComposeResult:
        yield Header()
        with ReadingScroll(id="glossary-scroll"):
            yield Static(id="glossary", markup=False)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "lang", self._relabel, init=True)
        self.query_one("#glossary-scroll").focus()

    def _relabel(self, lang: str) -> None:
        from tui.bindings import localise_bindings

        localise_bindings(self, lang)
        self.sub_title = t("glossary-title", lang)
        self.query_one("#glossary", Static).update(glossary_text(lang, self.first))

    def action_leave(self) -> None:
        self.app.pop_screen()
