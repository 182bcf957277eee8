"""The review queue, the history of attempts and the settings."""

from __future__ import annotations

import time

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import (
    DataTable,
    Header,
    Label,
    OptionList,
    RadioSet,
    Select,
    Static,
)
from textual.widgets.option_list import Option

from exercises.grading.policy import HINT_POLICIES
from exercises.learner.review import INTERVALS_DAYS, is_prediction
from exercises.text import listing
from tui.i18n import t
from tui.widgets.fitting_footer import FittingFooter
from tui.widgets.glyph_radio import GlyphRadioButton


def misconception_words(codes: list[str], lang: str) -> str:
    """Diagnosis codes as the learner reads them (a code no longer known stays a code):
    whole sentences one after the other, as a paragraph runs, not a list's "。、"."""
    from exercises.grading.diagnoses import explain
    from exercises.text import pick

    out = ""
    for sentence in (pick(explain(code), lang) for code in codes):
        if out:
            ended = out.endswith(("。", "！", "？", ".", "!", "?"))
            out += ("" if ended else "；") if lang == "zh" else (" " if ended else "; ")
        out += sentence
    return out


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


def exercise_words(app, exercise_id: str) -> str:
    """An exercise's or a prediction's title; its id when this version no longer has it."""
    from exercises.predictions import title
    from exercises.text import pick

    if title(exercise_id) is not None:
        return pick(title(exercise_id), app.lang)
    try:
        return app.exercise_title(exercise_id)
    except (KeyError, ValueError, LookupError):
        return exercise_id


def when_words(days: int, lang: str) -> str:
    """Calendar days ahead (``review.days_ahead``) as a person says them."""
    if days <= 0:
        return t("when-today", lang)
    return t("when-tomorrow", lang) if days == 1 else t("when-days", lang, days=days)


def schedule_line(queue, now: float, lang: str) -> str:
    """ "Due now: 2 · tomorrow: 3 · in 3 days: 2": what is due now and what comes when."""
    from exercises.learner.review import schedule

    due_now, later = schedule(queue, now)
    parts = [t("review-schedule-now", lang, n=due_now) if due_now else t("review-schedule-none-now", lang)]
    parts += [t("review-schedule-later", lang, when=when_words(days, lang), n=n) for days, n in later]
    return " · ".join(parts)


class ReviewScreen(Page):
    TITLE_KEY = "review-title"
    DEFAULT_CSS = """
    ReviewScreen OptionList { margin: 0 2 1 2; height: 1fr; }
    ReviewScreen #empty { padding: 1 2; }
    ReviewScreen #schedule { padding: 1 2 0 2; text-style: bold; }
    ReviewScreen #review-try { padding: 0 2; color: $text-muted; }
    """
    BINDINGS = [Binding("t", "try_now", "try another now")]
    ACTION_KEYS = {"try_now": "key-try-now"}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(markup=False, id="schedule")
        yield Static(markup=False, id="review-try")
        yield Static(markup=False, id="empty")
        yield OptionList(id="due")
        yield FittingFooter()

    def _relabel_page(self, lang: str) -> None:
        super()._relabel_page(lang)
        if hasattr(self, "queue"):  # Ctrl+L: the schedule and every line in the new language
            self._fill()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "try_now" or bool(getattr(self, "queue", None))

    def on_mount(self) -> None:
        super().on_mount()
        self._fill()

    def on_screen_resume(self) -> None:
        """Back from a lesson opened here: the queue as that attempt left it."""
        if hasattr(self, "queue"):
            self._fill()

    def _fill(self) -> None:
        from exercises.learner.review import days_ahead

        lang = self.app.lang
        now = time.time()
        queue = self.app.progress.queue(now)
        self.query_one("#schedule", Static).update(schedule_line(queue, now, lang))
        self.query_one("#review-try", Static).update(t("review-try", lang))
        self.query_one("#schedule").display = self.query_one("#review-try").display = bool(queue)
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        for item in queue:
            when = (
                t("review-due-now", lang) if item.due <= now else when_words(days_ahead(item.due, now), lang)
            )
            last = (
                t("review-last", lang, code=misconception_words(item.last_diagnoses, lang))
                if item.last_diagnoses
                else ""
            )
            line = t(
                "review-line",
                lang,
                exercise=exercise_words(self.app, item.exercise),
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
            options.highlighted = min(highlighted or 0, len(queue) - 1)
            options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.try_now(event.option.id)

    def action_try_now(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.try_now(options.get_option_at_index(options.highlighted).id)

    def try_now(self, exercise_id: str | None) -> None:
        """A new variant of a missed exercise, at once: due or not, it need not wait
        for its day (the attempt counts in the schedule like any other)."""
        from exercises.curriculum import objective_of

        item = self.queue.get(exercise_id or "")
        if item is None:
            return
        try:
            objective = objective_of(item.exercise)  # where the course teaches it now
        except KeyError:  # an exercise an older version had
            self.notify(t("review-gone", self.app.lang, exercise=item.exercise), timeout=6)
            return
        self.app.open_lesson(objective, item.exercise, seed=item.next_seed, over=True)  # Esc: back here


HISTORY_COLUMNS = ("history-when", "history-exercise", "history-score", "history-misconception")
MIN_MISCONCEPTION, MIN_TITLE = 12, 12


def _plain(cell) -> str:
    return cell[0] if isinstance(cell, tuple) else cell


def _fit(text: str, room: int) -> str:
    """``text`` in ``room`` cells, cut with "…" when it is longer."""
    return text if cell_len(text) <= room else set_cell_size(text, max(room - 1, 0)) + "…"


class HistoryScreen(Page):
    TITLE_KEY = "history-title"
    DEFAULT_CSS = """
    HistoryScreen DataTable { height: 1fr; margin: 0 1; }
    HistoryScreen #empty { padding: 1 2; }
    HistoryScreen #history-hint { padding: 0 2; color: $text-muted; }
    """

    def _title(self, exercise_id: str) -> str:
        """Words, not codes: the exercise's or the prediction's title (its id if it no
        longer exists)."""
        return exercise_words(self.app, exercise_id)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row: the attempt in full (needs the engine for the solution)."""
        if not self.app.engine_loaded:
            self.notify(t("attempt-waiting", self.app.lang), timeout=4)
            return
        from tui.screens.attempt import AttemptScreen

        self.app.push_screen(AttemptScreen(self.attempts[int(event.row_key.value)]))

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(markup=False, id="empty")
        yield Static(markup=False, id="history-hint")
        yield DataTable(id="attempts", cursor_type="row", zebra_stripes=True)
        yield FittingFooter()

    def on_mount(self) -> None:
        self.attempts = attempts = list(reversed(self.app.progress.attempts))
        super().on_mount()  # draws the page (the language watcher's first call)
        self.query_one("#history-hint", Static).display = bool(attempts)
        self.query_one("#empty", Static).display = not attempts
        table = self.query_one(DataTable)
        table.display = bool(attempts)
        table.focus()

    def _relabel_page(self, lang: str) -> None:
        """The header, the keys, the hint, the column headers and every row in ``lang``
        (Ctrl+L left all but the header in the other language)."""
        super()._relabel_page(lang)
        self.query_one("#history-hint", Static).update(t("attempt-open", lang))
        self.query_one("#empty", Static).update(t("history-empty", lang))
        self._fill()

    def on_resize(self) -> None:
        if getattr(self, "_filled_width", None) not in (None, self.size.width):
            self._fill()

    def _fill(self) -> None:
        """One row per attempt, newest first, each row fitting the width: the last
        column (the misconceptions, in full on Enter) is cut to what is left, with "…",
        and a long title gives way before it does (at 80 columns a row ran off the edge
        with no sign: issue 23)."""
        lang = self.app.lang
        table = self.query_one(DataTable)
        rows = []
        for attempt in self.attempts:
            if attempt.graded:
                score = "?" if not attempt.valid else f"{attempt.score:.0%}"
            else:
                score = "-" if attempt.score is None else f"({attempt.score:.0%})"
            style = "green" if attempt.correct else "red" if attempt.valid and attempt.graded else ""
            mark = "✓ " if attempt.correct else "✗ " if attempt.valid and attempt.graded else ""
            title = self._title(attempt.exercise) + ("" if is_prediction(attempt) else f" #{attempt.seed}")
            rows.append(
                (
                    time.strftime("%m-%d %H:%M", time.localtime(attempt.at)),
                    title,
                    (mark + score, style),
                    misconception_words(attempt.diagnoses, lang),
                )
            )
        headers = [t(key, lang) for key in HISTORY_COLUMNS]
        widths = [
            max([cell_len(headers[column])] + [cell_len(_plain(row[column])) for row in rows])
            for column in range(len(headers))
        ]
        self._filled_width = self.size.width
        room = (self.size.width or self.app.size.width) - 2 - 2  # the table's margin, its scroll bar
        room -= sum(width + 2 for width in widths[:3]) + 2  # each cell padded by one on each side
        if room < MIN_MISCONCEPTION:  # the title gives way first, down to a readable stub
            widths[1] = max(MIN_TITLE, widths[1] - (MIN_MISCONCEPTION - room))
            room = MIN_MISCONCEPTION
        cursor, scroll = table.cursor_coordinate, (table.scroll_x, table.scroll_y)
        table.clear(columns=True)
        for header in headers:
            table.add_column(Text(header))
        # Text, never str: a DataTable reads a str as markup ("tokens[start:end]" lost a word)
        for index, (when, title, (score, style), words) in enumerate(rows):
            table.add_row(
                Text(when),
                Text(_fit(title, widths[1])),
                Text(score, style=style),
                Text(_fit(words, room)),
                key=str(index),
            )
        if rows:  # drawn again (a resize, Ctrl+L): the learner stays on their row
            table.move_cursor(row=min(cursor.row, len(rows) - 1), column=cursor.column, scroll=False)
            # once the new rows are measured (a scroll before that is cut to nothing)
            table.call_after_refresh(table.scroll_to, *scroll, animate=False)


class SettingsScreen(Page):
    TITLE_KEY = "settings-title"
    DEFAULT_CSS = """
    SettingsScreen VerticalScroll { padding: 1 2; }
    SettingsScreen Label { margin-top: 1; color: $accent; }
    SettingsScreen RadioSet, SettingsScreen Select { width: 1fr; max-width: 60; }
    """

    def compose(self) -> ComposeResult:
        lang = self.app.lang
        progress = self.app.progress
        yield Header()
        with VerticalScroll():
            yield Label(t("settings-language", lang), markup=False, id="settings-language")
            with RadioSet(id="language"):
                yield GlyphRadioButton("中文", value=lang == "zh", id="lang-zh")
                yield GlyphRadioButton("English", value=lang == "en", id="lang-en")
            yield Label(t("settings-theme", lang), markup=False, id="settings-theme")
            themes = sorted(self.app.available_themes)
            yield Select(
                [(name, name) for name in themes], value=self.app.theme, allow_blank=False, id="theme"
            )
            yield Label(t("settings-hints", lang), markup=False, id="settings-hints")
            with RadioSet(id="hints"):
                for policy in HINT_POLICIES:
                    yield GlyphRadioButton(
                        t(f"hints-{policy}", lang),
                        value=progress.setting("hints") == policy,
                        id=f"hints-{policy}",
                    )
        yield FittingFooter()

    def _relabel_page(self, lang: str) -> None:
        """Every label in ``lang``, and the language chosen shown chosen: Ctrl+L here left
        the page in the other language, its radio on the old choice."""
        super()._relabel_page(lang)
        for key in ("settings-language", "settings-theme", "settings-hints"):
            self.query_one(f"#{key}", Label).update(t(key, lang))
        for policy in HINT_POLICIES:
            self.query_one(f"#hints-{policy}", GlyphRadioButton).label = t(f"hints-{policy}", lang)
        chosen = self.query_one(f"#lang-{lang}", GlyphRadioButton)
        if not chosen.value:
            chosen.value = True  # its RadioSet.Changed names the language already shown: nothing to do

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        pressed = event.pressed.id or ""
        if pressed.startswith("lang-"):
            lang = pressed.removeprefix("lang-")
            if lang != self.app.lang:  # the page follows through the language watcher
                self.app.lang = lang
                self.app.progress.set("lang", lang)
        elif pressed.startswith("hints-"):
            self.app.progress.set("hints", pressed.removeprefix("hints-"))
            self.notify(t("settings-saved", self.app.lang), timeout=2)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.value and event.value != self.app.theme:
            self.app.theme = str(event.value)  # the app saves it
