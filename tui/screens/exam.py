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

from exercises.classroom.quiz import is_lab, question_title
from exercises.grading.marks import full_marks
from exercises.text import pick
from tui.i18n import t
from tui.widgets.matrix_editor import MatrixEditor
from tui.widgets.parts import choose_by_letter, part_widgets, read_answers, restore_answers

# The countdown shows seconds in the last five minutes only: before that the title changes
# once a minute, and each change repaints the header (in a class, in every open tab).
SECONDS_SHOWN = 300


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
        from exercises.classroom.submission import MAX_TEXT

        too_long = 0
        for part, text in read_answers(self, self.exercise).items():
            if len(text) > MAX_TEXT:  # refused whole, in words: never cut without a word
                too_long = max(too_long, len(text))
                continue
            self.session.set_answer(self.question.index, part, text)
        self.screen.say_too_long(too_long)
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


class LabQuestionView(VerticalScroll):
    """A code-lab task: its statement, and the student's file attached by path (read
    again on Ctrl+R after each save). Nothing is run before submitting: the exam
    only says whether Python can read the file."""

    DEFAULT_CSS = """
    LabQuestionView { padding: 0 1; }
    LabQuestionView .prompt { margin-bottom: 1; }
    LabQuestionView .part-label { color: $accent; }
    LabQuestionView Input { border: none; height: 1; padding: 0 1; background: $boost; }
    LabQuestionView Input:focus { border: none; background: $primary 30%; }
    LabQuestionView #lab-attach { border: none; height: 1; min-width: 10; padding: 0 1; margin-top: 1; }
    LabQuestionView #lab-status { margin-top: 1; }
    """

    def __init__(self, session, question, **kwargs) -> None:
        super().__init__(**kwargs)
        from exercises.lab.grading import task_of

        self.session, self.question = session, question
        self.lab_task = task_of(question.exercise)

    def compose(self) -> ComposeResult:
        from exercises.lab.grading import FILE_PART

        lang = self.app.lang
        total = len(self.session.quiz.exercises)
        yield Static(
            t("exam-question", lang, n=self.question.index + 1, total=total), markup=False, classes="heading"
        )
        yield Static(Text(pick(question_title(self.question.exercise), lang), style="bold"), classes="prompt")
        yield Static(pick(self.lab_task.statement, lang), markup=False, classes="prompt")
        yield Static(
            t("exam-lab-function", lang, signature=self.lab_task.signature), markup=False, classes="prompt"
        )
        yield Static(t("exam-lab-file", lang), markup=False, classes="part-label")
        saved = self.session.answers.get(self.question.index, {}).get(FILE_PART)
        yield Input(value=saved or self.lab_task.file_name, id="lab-path")
        yield Button(t("exam-lab-attach", lang), id="lab-attach")
        yield Static(markup=False, id="lab-status")

    def on_mount(self) -> None:
        lang = self.app.lang
        attached = self.session.attached(self.question.index)
        if attached is None:
            self._show(Text(t("exam-lab-none", lang), style="dim"))
        else:
            self._show(
                self._describe(t("exam-lab-saved", lang, size=attached.size, lines=attached.lines), attached)
            )

    def _describe(self, head: str, attached) -> Text:
        lang = self.app.lang
        out = Text(head + "\n", style="green" if attached.problem is None else "yellow")
        if attached.problem is None:
            out.append(t("exam-lab-readable", lang), style="dim")
        else:
            out.append(pick(attached.problem, lang), style="yellow")
        return out

    def _show(self, text: Text) -> None:
        status = self.query_one("#lab-status", Static)
        status.update(text)
        self.call_after_refresh(status.scroll_visible, animate=False)  # below the fold at 80x24

    def attach(self) -> None:
        """Read the file at the typed path now (Enter, the button, or Ctrl+R)."""
        import time

        from exercises.classroom.exam import ExamError
        from exercises.classroom.safe import plain

        lang = self.app.lang
        path = self.query_one("#lab-path", Input).value
        try:
            attached = self.session.attach(self.question.index, path)
        except ExamError as error:
            out = Text(pick(error.text, lang), style="bold red")
            if self.session.attached(self.question.index) is not None:
                out.append("\n" + t("exam-lab-kept", lang), style="dim")
            self._show(out)
            return
        head = t(
            "exam-lab-attached",
            lang,
            path=_tail(plain(path.strip(), 1000), 50),
            size=attached.size,
            lines=attached.lines,
            at=time.strftime("%H:%M:%S"),
        )
        self._show(self._describe(head, attached))
        self.screen.mark_answered(self.question.index)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.attach()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.attach()


def _tail(text: str, width: int) -> str:
    """A long path keeps its end (the file's name) and loses its start."""
    return text if len(text) <= width else "…" + text[-(width - 1) :]


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
        Binding("ctrl+r", "recheck", "re-read file"),
        # Enter in an answer box moves on at once, in the app's own key handling: keys typed
        # ahead (a burst over SSH) then land in the box they were typed for.
        Binding("enter", "enter", show=False, priority=True),
        Binding("escape", "leave", "back", show=False),  # results seen again in a class session only
    ]
    ACTION_KEYS = {"recheck": "key-recheck"}  # the help and footer label of Ctrl+R (tui/bindings.py)

    def __init__(self, session) -> None:
        super().__init__()
        self.session = session
        self.confirming = False
        self._titles: tuple[str, str] | None = None
        self._too_long = False  # the status line says an answer is too long

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
        self._titles = (self.app.title, self.app.sub_title)
        self.app.title = self.session.quiz.title
        self.query_one("#results").display = False
        for button, key in (("prev", "exam-prev"), ("next", "exam-next"), ("submit", "exam-submit")):
            self.query_one(f"#{button}", Button).label = t(key, lang)
        if self.session.notice:
            self.notify(pick(self.session.notice, lang), severity="warning", timeout=12)
        self.watch(self.app, "engine_loaded", self._engine_changed, init=True)
        self.watch(self.app, "lang", self._relabel, init=False)
        self.set_interval(1.0, self._tick)
        self._tick()

    def _relabel(self, lang: str) -> None:
        """Ctrl+L, refused while an exam is taken, works on a past exam's results seen
        again in a class session: the keys, the buttons, the header and the results in
        ``lang`` (they stayed in the other language)."""
        from tui.bindings import localise_bindings

        localise_bindings(self, lang)
        for button, key in (("prev", "exam-prev"), ("next", "exam-next"), ("submit", "exam-submit")):
            self.query_one(f"#{button}", Button).label = t(key, lang)
        self._tick()
        if self.query_one("#results").display:
            self.show_results()

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
        views = [
            (LabQuestionView if is_lab(q.exercise) else QuestionView)(self.session, q, id=f"view-q{q.index}")
            for q in self.session.questions()
        ]
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
            self.set_focus(
                first, scroll_visible=False
            )  # now, not after a refresh: keys typed next land there

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

        exercise_id = self.session.quiz.exercises[index]
        kind = "lab" if is_lab(exercise_id) else get(exercise_id).kind
        key = {"choice": "exam-enter-choice", "matrix": "exam-enter-matrix", "lab": "exam-enter-lab"}.get(
            kind, "exam-enter-parts"
        )
        self.query_one("#exam-help", Static).update(t(key, self.app.lang))
        self.refresh_bindings()  # Ctrl+R shows on a lab question only

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Once submitted, Ctrl+S leaves the footer: there is nothing left to hand in.
        if action == "recheck":
            return self.session.submitted_at is None and self._current_lab() is not None
        if action == "leave":  # results of a past quiz, opened over the tutor: Esc goes back
            return self.app.exam is None and len(self.app.screen_stack) > 1
        return not (action == "submit" and self.session.submitted_at is not None)

    def _current_lab(self) -> LabQuestionView | None:
        if not self.is_mounted:
            return None
        switcher = self.query_one(ContentSwitcher)
        view = next((child for child in switcher.children if child.id == switcher.current), None)
        return view if isinstance(view, LabQuestionView) else None

    def action_recheck(self) -> None:
        view = self._current_lab()
        if view is not None:
            view.attach()

    def action_leave(self) -> None:
        self.app.pop_screen()

    def on_unmount(self) -> None:
        self.session.close()  # the lock goes with the window
        if self._titles is not None and self.app.exam is None:  # back over the tutor: its own titles
            self.app.title, self.app.sub_title = self._titles

    def say_too_long(self, length: int) -> None:
        """An answer longer than a submission keeps: said in words, the box keeps every
        character, and nothing of it is saved until it is short enough."""
        from exercises.classroom.submission import MAX_TEXT

        status = self.query_one("#exam-status", Static)
        if length:
            status.update(t("exam-too-long", self.app.lang, length=length, limit=MAX_TEXT))
        elif self._too_long:
            status.update("")
        self._too_long = bool(length)

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
            done = getattr(self.session, "done_key", "exam-done")  # a class exam not handed in says so
            self.app.sub_title = f"{self.session.student} · {t(done, lang)}"
            return
        left = self.session.seconds_left()
        if left is None:
            self.app.sub_title = t("exam-no-limit", lang, student=self.session.student)
            return
        if left > SECONDS_SHOWN:  # whole minutes, rounded up: the title changes once a minute
            minutes = -(-int(left) // 60)
            self.app.sub_title = t("exam-left-minutes", lang, student=self.session.student, minutes=minutes)
        else:
            self.app.sub_title = t(
                "exam-left",
                lang,
                student=self.session.student,
                minutes=int(left) // 60,
                seconds=int(left) % 60,
            )
        if (
            left <= 0
            and self.session.submitted_at is None
            and (self.app.engine_loaded or getattr(self.session, "rendered", False))
        ):
            closed = getattr(self.session, "closed", None)  # a class-server exam the teacher closed
            key = "exam-closed-by-teacher" if closed is not None and closed() else "exam-time-up"
            self.notify(t(key, lang), severity="warning", timeout=15)
            self._hand_in()

    def show_results(self) -> None:
        """After submitting: the grade and the grader's feedback for every question
        (carried by the grade: nothing is graded twice), or a note that the teacher
        releases results later. Lab files run in the sandbox (seconds each): in a
        thread, so the screen keeps answering keys meanwhile."""
        lang = self.app.lang
        for widget_id in ("#questions", "#switcher", "#exam-buttons", "#exam-status"):
            self.query_one(widget_id).display = False
        self.query_one("#exam-help", Static).update(t("exam-scroll", lang))
        results = self.query_one("#results")
        results.display = True
        results.focus()
        note = getattr(self.session, "ended_note", None)  # "the teacher closed the quiz"
        self._head = Text(pick(note, lang) + "\n\n", style="bold yellow") if note else Text()
        self._held = not self.session.results_visible()
        if self._held:
            self.query_one("#results-text", Static).update(
                self._head + Text(t("exam-results-held", lang), style="bold")
            )
            self.refresh_bindings()
            return
        self.refresh_bindings()
        if any(is_lab(exercise_id) for exercise_id in self.session.quiz.exercises):
            self.query_one("#results-text", Static).update(Text(t("exam-lab-checking", lang), style="bold"))
            self.run_worker(self._grade_in_thread, thread=True, group="exam-results", exclusive=True)
        elif getattr(self.session, "rendered", False):  # a class session: the engine may still be loading
            self.query_one("#results-text", Static).update(
                self._head + Text(t("exam-grading", lang), style="dim")
            )
            self.run_worker(self._grade_in_thread, thread=True, group="exam-results", exclusive=True)
        else:
            self._show_grade(self.session.results())

    def show_released(self) -> None:
        """Results released while the held-results note is on screen: show them now (once)."""
        if getattr(self, "_held", False) and self.session.results_visible():
            self.show_results()

    def _grade_in_thread(self) -> None:
        grade = self.session.results()
        self.app.call_from_thread(self._show_grade, grade)

    def _show_grade(self, grade) -> None:
        from exercises.grading.diagnoses import explain

        lang = self.app.lang
        out = getattr(self, "_head", Text()).copy()
        out.append(
            t("exam-results", lang, total=grade.total, count=grade.maximum, percent=grade.percent) + "\n",
            style="bold",
        )
        for question in grade.questions:
            style = "green" if full_marks(question.score) else "yellow" if question.score > 0 else "red"
            title = pick(question_title(question.exercise), lang)
            line = t(
                "exam-result-line", lang, n=question.index + 1, title=title, score=f"{question.score:.0%}"
            )
            out.append(f"\n{line}\n", style="bold " + style)
            if not question.answered:
                out.append("   " + t("exam-unanswered", lang) + "\n", style="dim")
                continue
            for label, feedback in question.feedback:
                part = t("exam-result-part", lang, label=pick(label, lang), feedback=pick(feedback, lang))
                out.append(f"   {part}\n")
            for code in question.diagnoses:
                out.append(f"   ! {pick(explain(code), lang)}\n", style="magenta")
        self.query_one("#results-text", Static).update(out)
