"""The review queue, the history of attempts and the settings."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import (
    DataTable,
    Footer,
    Header,
    Label,
    OptionList,
    RadioButton,
    RadioSet,
    Select,
    Static,
)
from textual.widgets.option_list import Option

from exercises.learner.progress import HINT_POLICIES
from exercises.learner.review import INTERVALS_DAYS
from tui.i18n import listing, t


class Page(Screen):
    """A screen reached from home; Esc goes back."""

    BINDINGS = [Binding("escape", "leave", "back")]
    TITLE_KEY = ""

    def on_mount(self) -> None:
        self.watch(self.app, "lang", self._relabel_page, init=True)

    def _relabel_page(self, lang: str) -> None:
        """The header names this page (on the screen itself, so no other screen can leave
        its own title behind) and the footer speaks the learner's language."""
        from tui.bindings import localise_bindings

        localise_bindings(self, lang)
        self.sub_title = t(self.TITLE_KEY, lang)

    def action_leave(self) -> None:
        self.app.pop_screen()


class ReviewScreen(Page):
    TITLE_KEY = "review-title"
    DEFAULT_CSS = """
    ReviewScreen OptionList { margin: 1 2; height: 1fr; }
    ReviewScreen #empty { padding: 1 2; }
    """

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(markup=False, id="empty")
        yield OptionList(id="due")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        lang = self.app.lang
        now = time.time()
        queue = self.app.progress.queue(now)
        options = self.query_one(OptionList)
        for item in queue:
            when = (
                t("review-due-now", lang)
                if item.due <= now
                else t("review-due-in", lang, days=(item.due - now) / 86400)
            )
            last = t("review-last", lang, code=", ".join(item.last_diagnoses)) if item.last_diagnoses else ""
            line = t(
                "review-line",
                lang,
                exercise=self.app.exercise_title(item.exercise),
                misses=item.misses,
                when=when,
                last=last,
            )
            options.add_option(
                Option(Text(line, style="bold" if item.due <= now else "dim"), id=item.exercise)
            )
        self.queue = {item.exercise: item for item in queue}
        empty = self.query_one("#empty", Static)
        empty.update(t("review-empty", lang, days=listing(INTERVALS_DAYS, lang)))  # h4: schedule from review
        empty.display = not queue
        options.display = bool(queue)
        if queue:
            options.highlighted = 0
            options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        item = self.queue[event.option.id]
        self.app.open_lesson(item.objective, item.exercise, seed=item.next_seed)


class HistoryScreen(Page):
    TITLE_KEY = "history-title"
    DEFAULT_CSS = """
    HistoryScreen DataTable { height: 1fr; margin: 0 1; }
    HistoryScreen #empty { padding: 1 2; }
    """

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(markup=False, id="empty")
        yield DataTable(id="attempts", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        lang = self.app.lang
        table = self.query_one(DataTable)
        for key in ("history-when", "history-exercise", "history-score", "history-misconception"):
            table.add_column(t(key, lang))
        attempts = list(reversed(self.app.progress.attempts))
        for attempt in attempts:
            if attempt.graded:
                score = "?" if not attempt.valid else f"{attempt.score:.0%}"
            else:
                score = "-" if attempt.score is None else f"({attempt.score:.0%})"
            style = "green" if attempt.correct else "red" if attempt.valid and attempt.graded else ""
            table.add_row(
                time.strftime("%m-%d %H:%M", time.localtime(attempt.at)),
                f"{attempt.exercise} #{attempt.seed}",
                Text(score, style=style),
                ", ".join(attempt.diagnoses),
            )
        empty = self.query_one("#empty", Static)
        empty.update(t("history-empty", lang))
        empty.display = not attempts
        table.display = bool(attempts)
        table.focus()


class SettingsScreen(Page):
    TITLE_KEY = "settings-title"
    DEFAULT_CSS = """
    SettingsScreen VerticalScroll { padding: 1 2; }
    SettingsScreen Label { margin-top: 1; color: $accent; }
    SettingsScreen RadioSet, SettingsScreen Select { width: 60; }
    """

    def compose(self) -> ComposeResult:
        lang = self.app.lang
        progress = self.app.progress
        with VerticalScroll():
            yield Label(t("settings-language", lang), markup=False)
            with RadioSet(id="language"):
                yield RadioButton("中文", value=lang == "zh", id="lang-zh")
                yield RadioButton("English", value=lang == "en", id="lang-en")
            yield Label(t("settings-theme", lang), markup=False)
            themes = sorted(self.app.available_themes)
            yield Select(
                [(name, name) for name in themes], value=self.app.theme, allow_blank=False, id="theme"
            )
            yield Label(t("settings-hints", lang), markup=False)
            with RadioSet(id="hints"):
                for policy in HINT_POLICIES:
                    yield RadioButton(
                        t(f"hints-{policy}", lang),
                        value=progress.setting("hints") == policy,
                        id=f"hints-{policy}",
                    )
        yield Footer()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        pressed = event.pressed.id or ""
        if pressed.startswith("lang-"):
            self.app.lang = pressed.removeprefix("lang-")
            self.app.progress.set("lang", self.app.lang)
            self.app.pop_screen()
            self.app.open_page("settings")  # redrawn in the new language
        elif pressed.startswith("hints-"):
            self.app.progress.set("hints", pressed.removeprefix("hints-"))
            self.notify(t("settings-saved", self.app.lang), timeout=2)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.value and event.value != self.app.theme:
            self.app.theme = str(event.value)  # the app saves it
