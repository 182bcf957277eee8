"""Home: the objectives in teaching order with their progress, "continue
where I left off", the review queue, the history and the settings."""

from __future__ import annotations

import time

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from exercises.curriculum import BY_ID, OBJECTIVES
from exercises.learner.review import schedule
from exercises.text import pick
from tui.i18n import t
from tui.widgets.fitting_footer import FittingFooter


def _looks(lines: list[tuple[str, str | Text]]) -> list[tuple[str, str, object, object]]:
    """What the list shows: ids, text, spans and each line's own style (which Text's ==
    leaves out)."""
    return [
        (option_id, str(prompt), getattr(prompt, "spans", None), getattr(prompt, "style", None))
        for option_id, prompt in lines
    ]


class HomeScreen(Screen):
    DEFAULT_CSS = """
    HomeScreen #intro { padding: 1 2 0 2; color: $text-muted; }
    HomeScreen OptionList { margin: 1 2; height: 1fr; border: round $primary 40%; }
    HomeScreen #course { padding: 0 2; height: auto; color: $text; }
    HomeScreen #engine { padding: 0 2; color: $text-muted; height: 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        # What the list and the lines show now: the home screen is refreshed on every
        # resize and every return to it, and rebuilding an unchanged list cost the first
        # frame four rebuilds and re-renders of every line.
        self._lines: list[tuple[str, str | Text]] = []
        self._shown: dict[str, str] = {}
        self._width = -1  # the list's width when the lines were last cut to it
        self._left = False  # another screen was shown over this one since on_mount

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(markup=False, id="intro")
        yield Static(markup=False, id="course")
        yield OptionList(id="lessons")
        yield Static(markup=False, id="engine")
        yield FittingFooter()

    def on_mount(self) -> None:
        self.watch(self.app, "lang", lambda _lang: self.refresh_list(), init=False)
        self.watch(self.app, "engine_state", self._engine_state, init=True)
        self.refresh_list()
        self.query_one(OptionList).focus()

    def on_screen_suspend(self) -> None:
        self._left = True

    def on_screen_resume(self) -> None:
        """Back from a lesson or a page: its progress is shown. (The first resume, as the
        app starts, comes just after on_mount built the list: nothing changed since.)"""
        if self._left:
            self.refresh_list()

    def on_resize(self) -> None:
        """The lines are cut to the list's width: rebuilt when that changes (Textual sends
        the screen several resizes of the same size as the app starts)."""
        if self.query_one(OptionList).size.width != self._width:
            self.refresh_list()

    def _engine_state(self, state: str) -> None:
        lang = self.app.lang
        message = {"loading": t("engine-loading", lang), "ready": t("engine-ready", lang)}.get(
            state, t("engine-failed", lang, error=state)
        )
        if not self.app.progress.store.saving:
            message += " · " + t("not-saving", lang, why=self.app.progress.store.home)
        self._show("#engine", message)

    def refresh_list(self) -> None:
        lang = self.app.lang
        progress = self.app.progress
        counts = progress.per_objective()  # computed once, in exercises/learner/progress.py (h4)
        self.sub_title = t("app-subtitle", lang)
        self._show("#intro", t("home-intro", lang))
        self._show(
            "#course",
            t(
                "course-progress",
                lang,
                lessons=sum(progress.lesson_done(objective.id) for objective in OBJECTIVES),
                lessons_total=len(OBJECTIVES),
                solved=sum(count.solved for count in counts.values()),
                total=sum(count.exercises for count in counts.values()),
                mastered=sum(count.mastered for count in counts.values()),
            ),
        )
        options = self.query_one(OptionList)
        self._width = options.size.width
        lines: list[tuple[str, str | Text]] = []  # (id, prompt) of each option, top to bottom
        place = progress.place
        if place is not None:
            lines.append((f"continue:{place.objective}", self._continue_line(place)))
        for number, objective in enumerate(OBJECTIVES, start=1):
            solved, mastered, total = (
                counts[objective.id].solved,
                counts[objective.id].mastered,
                counts[objective.id].exercises,
            )
            status = t("progress", lang, done=solved, total=total)
            if mastered:
                status += t("progress-mastered", lang, mastered=mastered)
            if counts[objective.id].predictions:
                status += t(
                    "progress-predicted",
                    lang,
                    right=counts[objective.id].predictions_right,
                    made=counts[objective.id].predictions,
                )
            line = Text()
            line.append(f"{number}. ", style="bold")
            title = pick(objective.title, lang)
            status_text = f"  [{status}]"
            # One line per lesson: the summary is cut to fit, then the title, so the review,
            # history and settings entries stay on screen at 80×24 and 60×18.
            title_room = options.size.width - 4 - cell_len(f"{number}. ") - cell_len(status_text)
            if options.size.width and cell_len(title) > title_room:
                title = set_cell_size(title, max(title_room - 1, 1)) + "…"
            line.append(title, style="bold")
            line.append(status_text, style="green" if solved == total else "dim")
            room = options.size.width - 4 - line.cell_len
            summary = f" — {pick(objective.summary, lang)}"
            if room < cell_len(summary):
                summary = set_cell_size(summary, max(room - 1, 0)) + "…" if room > 4 else ""
            line.append(summary, style="dim")
            lines.append((objective.id, line))
        now = time.time()
        queue = progress.queue(now)
        due_now, later = schedule(queue, now)
        if due_now:
            review = t("home-review", lang, n=due_now)
        elif later:
            from tui.screens.pages import when_words

            days, n = later[0]
            review = t("home-review-next", lang, when=when_words(days, lang), n=n)
        else:
            review = t("home-review-none", lang)
        lines.append(("review", Text(review, style="bold yellow" if due_now else "dim")))
        lines.append(("history", t("home-history", lang)))
        lines.append(("settings", t("home-settings", lang)))
        if _looks(lines) != _looks(self._lines):
            self._replace_options(options, lines)
        self._engine_state(self.app.engine_state)

    def _replace_options(self, options: OptionList, lines: list[tuple[str, str | Text]]) -> None:
        """The list rebuilt, the cursor kept on the same entry."""
        previous = options.highlighted
        highlighted_id = options.get_option_at_index(previous).id if previous is not None else None
        options.clear_options()
        options.add_options([Option(prompt, id=option_id) for option_id, prompt in lines])
        self._lines = lines
        try:
            options.highlighted = options.get_option_index(highlighted_id) if highlighted_id else 0
        except OptionDoesNotExist:  # that option is gone (e.g. "continue" for another lesson)
            options.highlighted = 0

    def _show(self, selector: str, text: str) -> None:
        """``text`` in that line, unless it is there already (each update lays the screen out again)."""
        if self._shown.get(selector) != text:
            self._shown[selector] = text
            self.query_one(selector, Static).update(text)

    def _continue_line(self, place) -> Text:
        """ "Continue: Causal LM · Practice: Perplexity (variant 3)": where Enter returns."""
        lang = self.app.lang
        title = pick(BY_ID[place.objective].title, lang)
        if place.tab == "practice" and place.exercise is not None:
            where = t(
                "continue-exercise",
                lang,
                tab=t("tab-practice", lang),
                exercise=self.app.exercise_title(place.exercise),
                seed=place.seed,
            )
        else:
            where = t(f"tab-{place.tab}", lang)
        line = Text(t("continue", lang, title=title), style="bold")
        line.append(f" · {where}", style="bold dim")
        room = self.query_one(OptionList).size.width - 4
        if room > 8 and line.cell_len > room:  # one line, like every lesson's
            line.truncate(room - 1)
            line.append("…")
        return line

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        choice = event.option.id or ""
        if choice in ("review", "history", "settings"):
            self.app.open_page(choice)
        elif choice.startswith("continue:"):
            self.app.continue_course()
        else:
            self.app.open_lesson(choice)
