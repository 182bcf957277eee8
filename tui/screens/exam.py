"""Exam mode: one quiz, this student's variants, answers saved as they are
typed, no feedback or hints until the student submits, an optional countdown;
after submitting, the student sees their results."""

from __future__ import annotations

from rich.text import Text
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, ContentSwitcher, Footer, Header, Input, RadioSet, Static, Tab, Tabs

from exercises.text import pick
from tui.i18n import t
from tui.widgets.matrix_editor import MatrixEditor
from tui.widgets.parts import choose_by_letter, part_widgets, read_answers, restore_answers


class QuestionView(VerticalScroll):
    """One question: its prompt and answer widgets, saving every change."""

    DEFAULT_CSS = """
    QuestionView { padding: 0 1; }
    QuestionView .prompt { margin-bottom: 1; }
    QuestionView .part-label { color: $accent; }
    QuestionView Input { border: none; height: 1; padding: 0 1; margin-bottom: 1; background: $boost; }
    QuestionView Input:focus { border: none; background: $primary 30%; }
    """

    def __init__(self, session, question, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session, self.question = session, question
        from exercises.catalogue import get

        self.exercise = get(question.exercise)
        # A class-server exam hands its questions over already rendered (no engine needed).
        self.variant = getattr(question, "variant", None) or self.exercise.generate(question.seed)

    def compose(self) -> ComposeResult:
        lang = self.app.lang
        total = len(self.session.quiz.exercises)
        yield Static(
            t("exam-question", lang, n=self.question.index + 1, total=total), markup=False, classes="heading"
        )
        yield Static(pick(self.variant.prompt, lang), markup=False, classes="prompt")
        yield from part_widgets(self.exercise, self.variant, lang, with_self_mark=False)

    def on_mount(self) -> None:
        restore_answers(self, self.exercise, self.session.answers.get(self.question.index, {}))

    def save(self) -> None:
        for part, text in read_answers(self, self.exercise).items():
            self.session.set_answer(self.question.index, part, text)
        self.screen.mark_answered(self.question.index)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.save()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self.save()

    def on_matrix_editor_changed(self, event: MatrixEditor.Changed) -> None:
        self.save()

    def on_matrix_editor_submitted(self, event: MatrixEditor.Submitted) -> None:
        event.stop()
        self.screen.action_move(1)

    def on_key(self, event) -> None:
        if choose_by_letter(self.app.focused, event.character):
            event.stop()


class ExamScreen(Screen):
    DEFAULT_CSS = """
    ExamScreen Tabs { height: 2; }
    ExamScreen ContentSwitcher { height: 1fr; }
    ExamScreen #exam-help { color: $text-muted; padding: 0 1; }
    ExamScreen #exam-buttons { height: 1; padding: 0 1; }
    ExamScreen #exam-buttons Button { border: none; height: 1; min-width: 10; margin-right: 1; padding: 0 1; }
    ExamScreen #exam-status { padding: 0 1; color: $warning; }
    ExamScreen #results { padding: 0 1; }
    """
    BINDINGS = [
        Binding("pagedown", "move(1)", "next", show=False, priority=True),
        Binding("pageup", "move(-1)", "previous", show=False, priority=True),
        Binding("ctrl+s", "submit", "submit"),
        # Enter in an answer box moves on at once, in the app's own key handling: keys typed
        # ahead (a burst over SSH) then land in the box they were typed for.
        Binding("enter", "enter", show=False, priority=True),
    ]

    def __init__(self, session) -> None:
        super().__init__()
        self.session = session
        self.confirming = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Tabs(
            *(Tab(str(i + 1), id=f"q{i}") for i in range(len(self.session.quiz.exercises))), id="questions"
        )
        yield ContentSwitcher(id="switcher")
        yield VerticalScroll(Static(markup=False, id="results-text"), id="results")
        yield Static(markup=False, id="exam-status")
        yield Static(markup=False, id="exam-help")
        with Horizontal(id="exam-buttons"):
            yield Button(id="prev")
            yield Button(id="next")
            yield Button(id="submit", variant="warning")
        yield Footer()

    def on_mount(self) -> None:
        from tui.bindings import localise_bindings

        lang = self.app.lang
        localise_bindings(self, lang)
        self.app.title = self.session.quiz.title
        self.query_one("#results").display = False
        for button, key in (("prev", "exam-prev"), ("next", "exam-next"), ("submit", "exam-submit")):
            self.query_one(f"#{button}", Button).label = t(key, lang)
        if self.session.notice:
            self.notify(pick(self.session.notice, lang), severity="warning", timeout=12)
        self.watch(self.app, "engine_loaded", self._engine_changed, init=True)
        self.set_interval(1.0, self._tick)
        self._tick()

    async def _engine_changed(self, loaded: bool) -> None:
        loaded = loaded or getattr(self.session, "rendered", False)  # class-server exams: see tui/classweb
        if not loaded:
            self.query_one("#exam-status", Static).update(t("waiting-engine", self.app.lang))
            return
        if self.query(QuestionView):  # shown already (a rendered exam, then the engine arrived)
            return
        self.query_one("#exam-status", Static).update("")
        if self.session.submitted_at is not None:
            self.show_results()
            return
        switcher = self.query_one(ContentSwitcher)
        views = [QuestionView(self.session, q, id=f"view-q{q.index}") for q in self.session.questions()]
        for view in views[1:]:
            view.display = False  # ContentSwitcher shows one child; it only hides on a change
        await switcher.mount(*views)
        switcher.current = "view-q0"
        self._explain_keys(0)
        for question in self.session.questions():
            if self.session.answers.get(question.index):
                self.mark_answered(question.index)
        first = next(iter(views[0].query("Input, MatrixEditor, RadioSet")), None) if views else None
        if first is not None:
            first.focus(scroll_visible=False)  # the question stays in view, from its first line

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        switcher = self.query_one(ContentSwitcher)
        target = f"view-{event.tab.id}"
        if any(child.id == target for child in switcher.children):
            switcher.current = target
            self._explain_keys(int(event.tab.id[1:]))

    def _explain_keys(self, index: int) -> None:
        """The line above the footer says what Enter does on this kind of question."""
        from exercises.catalogue import get

        if self.session.submitted_at is not None:
            return

        kind = get(self.session.quiz.exercises[index]).kind
        key = {"choice": "exam-enter-choice", "matrix": "exam-enter-matrix"}.get(kind, "exam-enter-parts")
        self.query_one("#exam-help", Static).update(t(key, self.app.lang))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Once submitted, Ctrl+S leaves the footer: there is nothing left to hand in.
        return not (action == "submit" and self.session.submitted_at is not None)

    def on_unmount(self) -> None:
        self.session.close()  # the lock goes with the window

    def mark_answered(self, index: int) -> None:
        tab = self.query_one(f"#q{index}", Tab)
        tab.label = f"{index + 1} ✓" if self.session.answers.get(index) else str(index + 1)

    def action_move(self, step: int) -> None:
        if self.session.submitted_at is not None:  # the results page: PgDn/PgUp scroll it
            results = self.query_one("#results", VerticalScroll)
            (results.scroll_page_down if step > 0 else results.scroll_page_up)(animate=False)
            return
        self._disarm()
        tabs = self.query_one(Tabs)
        total = len(self.session.quiz.exercises)
        current = int((tabs.active or "q0")[1:])
        target = min(total - 1, max(0, current + step))
        tabs.active = f"q{target}"
        view = next(iter(self.query(f"#view-q{target}")), None)
        if view is None:
            return
        self.query_one(ContentSwitcher).current = view.id  # now, not when the tab's message arrives
        self._explain_keys(target)
        first = next(iter(view.query("Input, MatrixEditor, RadioSet")), None)
        if first is not None:
            self.set_focus(first, scroll_visible=False)  # synchronous: the next key goes there
            view.scroll_home(animate=False)

    def action_enter(self) -> None:
        """In an answer box: the next box of this question, or the next question."""
        focused = self.focused
        view = (
            next((node for node in focused.ancestors if isinstance(node, QuestionView)), None)
            if focused
            else None
        )
        if not isinstance(focused, Input) or view is None:
            raise SkipAction()  # Enter keeps its meaning elsewhere (choices, grid, buttons)
        view.save()
        boxes = list(view.query(Input))
        later = boxes[boxes.index(focused) + 1 :]
        if later:
            self.set_focus(later[0])
        else:
            self.action_move(1)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {
            "prev": lambda: self.action_move(-1),
            "next": lambda: self.action_move(1),
            "submit": self.action_submit,
        }[event.button.id]()

    def action_submit(self) -> None:
        if self.session.submitted_at is not None:
            return
        if not self.confirming:
            self.confirming = True
            answered = sum(1 for parts in self.session.answers.values() if parts)
            self.query_one("#exam-status", Static).update(
                t("exam-confirm", self.app.lang, answered=answered, total=len(self.session.quiz.exercises))
            )
            return
        self._hand_in()

    def _disarm(self) -> None:
        if self.confirming:
            self.confirming = False
            self.query_one("#exam-status", Static).update("")

    def _hand_in(self) -> None:
        path = self.session.submit()
        self.notify(t("exam-submitted", self.app.lang, path=path), timeout=10)
        self.show_results()

    def _tick(self) -> None:
        lang = self.app.lang
        if self.session.submitted_at is not None:
            self.app.sub_title = f"{self.session.student} · {t('exam-done', lang)}"
            return
        left = self.session.seconds_left()
        if left is None:
            self.app.sub_title = t("exam-no-limit", lang, student=self.session.student)
            return
        self.app.sub_title = t(
            "exam-left", lang, student=self.session.student, minutes=int(left) // 60, seconds=int(left) % 60
        )
        if (
            left <= 0
            and self.session.submitted_at is None
            and (self.app.engine_loaded or getattr(self.session, "rendered", False))
        ):
            self.notify(t("exam-time-up", lang), severity="warning", timeout=15)
            self._hand_in()

    def show_results(self) -> None:
        """After submitting: the grade and the grader's feedback for every question
        (carried by the grade: nothing is graded twice), or a note that the teacher
        releases results later."""
        from exercises.catalogue import get
        from exercises.grading.diagnoses import explain

        lang = self.app.lang
        for widget_id in ("#questions", "#switcher", "#exam-buttons", "#exam-status"):
            self.query_one(widget_id).display = False
        self.query_one("#exam-help", Static).update(t("exam-scroll", lang))
        results = self.query_one("#results")
        results.display = True
        results.focus()
        if not self.session.results_visible():
            self.query_one("#results-text", Static).update(Text(t("exam-results-held", lang), style="bold"))
            self.refresh_bindings()
            return
        grade = self.session.results()
        out = Text(
            t("exam-results", lang, total=grade.total, count=grade.maximum, percent=grade.percent) + "\n",
            style="bold",
        )
        for question in grade.questions:
            exercise = get(question.exercise)
            style = "green" if question.score >= 1 else "yellow" if question.score > 0 else "red"
            out.append(
                f"\n{question.index + 1}. {pick(exercise.title, lang)}: {question.score:.0%}\n",
                style="bold " + style,
            )
            if not question.answered:
                out.append("   " + t("exam-unanswered", lang) + "\n", style="dim")
                continue
            for label, feedback in question.feedback:
                out.append(f"   {pick(label, lang)}: {pick(feedback, lang)}\n")
            for code in question.diagnoses:
                out.append(f"   ! {pick(explain(code), lang)}\n", style="magenta")
        self.query_one("#results-text", Static).update(out)
        self.refresh_bindings()
