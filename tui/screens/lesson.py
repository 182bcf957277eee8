"""A lesson: its text, its live figure and its exercises, one tab each (tabs
fit 80×24 where three panes side by side would not)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Header, Static, TabbedContent, TabPane, Tabs

from exercises.curriculum import BY_ID, next_objective
from exercises.facts import lesson_text
from exercises.text import pick
from tui.cjk_wrap import join_soft_breaks
from tui.figures import figure_for
from tui.i18n import notice_text, t
from tui.screens.lab import LabLink  # h6: the code lab
from tui.widgets.exercise_panel import ExercisePanel
from tui.widgets.fitting_footer import FittingFooter
from tui.widgets.lesson_markdown import LessonMarkdown
from tui.widgets.reading_scroll import ReadingScroll


class LessonScreen(Screen):
    DEFAULT_CSS = """
    LessonScreen TabbedContent { height: 1fr; }
    LessonScreen TabPane { padding: 0; }
    LessonScreen #lesson-scroll { padding: 0 1; }
    LessonScreen #no-figure { padding: 1 2; }
    """
    BINDINGS = [
        Binding("escape", "leave", "back"),
        Binding("f5", "tab('lesson')", "lesson", show=False),
        Binding("f6", "tab('figure')", "figure", show=False),
        Binding("f7", "tab('practice')", "practice", show=False),
        Binding("ctrl+n", "next_lesson", "next lesson"),
        Binding("f9", "glossary", "glossary"),
    ]

    def __init__(
        self, objective_id: str, exercise_id: str | None = None, seed: int = 0, tab: str | None = None
    ) -> None:
        super().__init__()
        self.objective = BY_ID[objective_id]
        self.start_exercise = exercise_id
        self.start_seed = seed
        self.start_tab = tab

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(id="tabs"):
            with TabPane("", id="lesson"), ReadingScroll(id="lesson-scroll"):
                yield LessonMarkdown(id="lesson-text")
            with TabPane("", id="figure"):
                if self.objective.figure:
                    yield figure_for(self.objective.figure)
                else:
                    yield Static(markup=False, id="no-figure")
            with TabPane("", id="practice"):
                yield ExercisePanel(self.objective.exercises, id="practice-panel")
                yield LabLink(self.objective.id)  # h6: the code lab, from every lesson's practice tab
        yield FittingFooter()

    async def on_mount(self) -> None:
        self.watch(self.app, "lang", lambda _lang: self.relabel(), init=True)
        if self.start_exercise is not None:
            await self.show_exercise(self.start_exercise, self.start_seed, self.start_tab)
        elif self.start_tab is not None:
            self.action_tab(self.start_tab)

    def on_screen_resume(self) -> None:
        """Back on this lesson (reopened, or from the palette): the header and keys follow."""
        self.sub_title = pick(self.objective.title, self.app.lang)
        self.refresh_bindings()
        self._underline_active_tab()

    def _underline_active_tab(self) -> None:
        """The tab bar's underline under the active tab's label as it is now: labels
        relabelled in another language, or while this lesson waited behind another
        screen, left it where the old label was (issue 23.10)."""
        tabs = self.query_one(TabbedContent).query_one(Tabs)
        self.call_after_refresh(tabs._highlight_active, animate=False)  # pinned textual

    def _refresh_layout(self, size=None, scroll: bool = False) -> None:
        """After each layout of this screen, the underline where the active tab now is.
        A relabelled tab is laid out when it next idles, which may be after the refresh
        that moved the underline (Textual's and ours): the underline then stayed under the
        old label's columns, until some other work happened to lay the screen out again."""
        super()._refresh_layout(size, scroll)  # pinned textual
        tabs = next(iter(self.query(Tabs)), None)
        if tabs is None or tabs.active_tab is None:
            return
        active = tabs.active_tab.virtual_region.shrink(tabs.active_tab.styles.gutter)
        underline = tabs.query_one("Underline")
        if (underline.highlight_start, underline.highlight_end) != active.column_span:
            tabs._highlight_active(animate=False)

    def relabel(self) -> None:
        from tui.bindings import localise_bindings

        lang = self.app.lang
        localise_bindings(self, lang)
        for node in self.query("ExercisePanel, Figure"):
            localise_bindings(node, lang)
        self.sub_title = pick(self.objective.title, lang)
        tabs = self.query_one(TabbedContent)
        for pane, key in (("lesson", "tab-lesson"), ("figure", "tab-figure"), ("practice", "tab-practice")):
            tabs.get_tab(pane).label = t(key, lang)
        self._underline_active_tab()
        self.query_one("#lesson-text", LessonMarkdown).update(
            join_soft_breaks(lesson_text(self.objective.id, lang))
        )
        for static in self.query("#no-figure").results(Static):
            static.update(t("no-figure", lang))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """ "Next lesson" is offered (and shown) once each of this lesson's exercises was tried."""
        if action == "next_lesson":
            following = next_objective(self.objective.id)
            return following is not None and self.app.progress.lesson_tried(self.objective.id)
        return True

    def action_glossary(self) -> None:
        from tui.screens.glossary import GlossaryScreen

        self.app.push_screen(GlossaryScreen())

    def action_next_lesson(self) -> None:
        following = next_objective(self.objective.id)
        if following is not None:
            self.app.open_lesson(following.id)

    def action_tab(self, pane: str) -> None:
        self.query_one(TabbedContent).active = pane

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Give the keys to what the tab shows, so its shortcuts work at once."""
        self.call_after_refresh(self._focus_active_pane)
        self.remember_place()

    def on_figure_predicted(self, event) -> None:
        """A prediction made on this lesson's figure: kept as an attempt of its own kind."""
        event.stop()
        progress = self.app.progress
        was_saving = progress.store.saving
        progress.record_prediction(
            self.objective.id, event.question, event.answer, event.verdict, event.seconds
        )
        if was_saving and not progress.store.saving:
            self.notify(notice_text(progress.notices[-1], self.app.lang), severity="error", timeout=15)

    def on_exercise_panel_variant_shown(self, event: ExercisePanel.VariantShown) -> None:
        event.stop()
        self.remember_place()

    def remember_place(self) -> None:
        """This lesson, its tab and the practice tab's variant: where "continue" returns."""
        from exercises.learner.progress import Place

        if self.app.screen is not self:  # a lesson left behind does not move the place
            return
        tabs = self.query_one(TabbedContent)
        panel = self.query_one(ExercisePanel)
        self.app.progress.remember_place(
            Place(self.objective.id, tabs.active or "lesson", panel.exercise_id, panel.seed)
        )

    def _focus_active_pane(self) -> None:
        """Focus what the active tab shows, unless focus is in it already. Read at run time
        (h4): a stale activation, or one caused by a focus inside the pane, changes nothing,
        where focusing again would make two panes take the focus in turn, forever."""
        tabs = self.query_one(TabbedContent)
        pane = tabs.get_pane(tabs.active) if tabs.active else None
        if pane is None or pane.has_focus_within:
            return
        panel = next(iter(pane.query(ExercisePanel)), None)
        if panel is not None:
            panel.focus_first()
            return
        target = next(iter(pane.query("Figure, #lesson-scroll")), None)
        if target is not None and target.focusable:
            target.focus()

    def action_leave(self) -> None:
        """Back to the lessons (a figure or the practice panel first takes Esc
        to leave its text boxes)."""
        self.app.pop_screen()

    async def show_exercise(self, exercise_id: str, seed: int = 0, tab: str | None = None) -> None:
        """The practice tab on this variant; with ``tab``, that tab stays in front (the
        variant waits in the practice tab, the cursor is not pulled into it)."""
        tab = tab or "practice"
        self.query_one(TabbedContent).active = tab
        await self.query_one(ExercisePanel).select_exercise(exercise_id, seed, focus=tab == "practice")
