"""The Textual app. The first frame draws at once: torch and the engine load
in a thread worker while the learner reads, and every figure says it is waiting
until they arrive."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen

from exercises.learner.progress import Progress
from exercises.learner.store import ProgressStore
from exercises.text import pick
from tui import cjk_wrap
from tui.i18n import detect_language, notice_text, t

cjk_wrap.install()

MIN_WIDTH, MIN_HEIGHT = 60, 18


def _course_commands():
    """The palette's lessons and exercises, imported when the palette first opens."""
    from tui.palette import CourseCommands

    return CourseCommands


class TutorApp(App[None]):
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {_course_commands}
    TITLE = "objectives-tutor"
    BINDINGS = [
        Binding("ctrl+q", "quit", "quit", priority=True),
        Binding("f1", "help", "help"),
        Binding("question_mark", "help", "help", show=False),
        Binding("ctrl+l", "toggle_language", "中文/English"),
        Binding("ctrl+t", "change_theme", "theme", show=False),
    ]

    lang: reactive[str] = reactive("en")
    engine_loaded: reactive[bool] = reactive(False)
    engine_state: reactive[str] = reactive("loading")

    def __init__(
        self,
        lang: str | None = None,
        load_engine: bool = True,
        still: bool = False,
        store: ProgressStore | None = None,
        exam=None,
    ) -> None:
        """``still`` turns off cursor blink and animations (tests, snapshots);
        ``store`` defaults to the learner's progress file; ``exam`` (an
        ExamSession) opens the app in exam mode on that quiz."""
        super().__init__()
        self.exam = exam
        if exam is not None:  # no way out of the exam into lessons, solutions or hints
            self.use_command_palette = False
        self.progress = Progress(store if store is not None else ProgressStore())
        saved_lang = self.progress.setting("lang")
        self.set_reactive(
            TutorApp.lang, lang or (saved_lang if saved_lang in ("zh", "en") else detect_language())
        )
        self.cursor_blink = not still
        if still:
            self.animation_level = "none"
        self._load_engine = load_engine

    def get_driver_class(self):
        """Textual's terminal driver, made to let go at once when the app quits."""
        driver = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver is LinuxDriver:
            from tui.quick_exit import PromptExitDriver

            return PromptExitDriver
        return driver

    def get_default_screen(self) -> Screen:
        if self.exam is not None:
            from tui.screens.exam import ExamScreen

            return ExamScreen(self.exam)
        from tui.screens.home import HomeScreen

        return HomeScreen()

    def on_mount(self) -> None:
        self.watch_lang(self.lang)
        theme = self.progress.setting("theme")
        if theme in self.available_themes:
            self.theme = theme
        for notice in self.progress.notices:
            self.notify(notice_text(notice, self.lang), severity="warning", timeout=12)
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """Only now start importing torch: its import holds the GIL for a second or
        two, and the learner should be reading by then, not waiting."""
        marker = os.environ.get("OBJECTIVES_TUTOR_FIRST_FRAME_FILE")
        if marker:  # benchmarks/startup.py waits for this file
            with open(marker, "w") as handle:
                handle.write("first frame\n")
        if os.environ.get("OBJECTIVES_TUTOR_EXIT_AFTER_FIRST_FRAME"):
            self.exit()
            return
        if self._load_engine:
            # A daemon thread of our own, not a Textual thread worker: asyncio waits for
            # its executor's threads when the app ends, so quitting while torch was
            # still importing used to wait for the import (seconds on a busy machine).
            threading.Thread(target=self._import_engine, name="engine-import", daemon=True).start()

    def _import_engine(self) -> None:
        """In a thread: import torch, the engine and the catalogue, and warm them up."""
        try:
            from tui.torch_preload import preload_torch_libraries

            preload_torch_libraries()  # the slow dlopen, without blocking the main thread
            import exercises.catalogue  # noqa: F401  (imports the engine and torch)
            from engine.textbook import three_samples

            three_samples()
        except (ImportError, OSError, RuntimeError) as error:
            # Shown on the home screen; the app stays usable. A missing or broken torch
            # (ImportError), a shared library that will not load (OSError), torch failing
            # to start (RuntimeError); anything else is a bug and is not hidden.
            self._from_import_thread(setattr, self, "engine_state", f"{type(error).__name__}: {error}")
            return
        # The figures and exercises can work from here on: say so now, not after the
        # lesson modules below (they took a third of the wait for "engine ready").
        self._from_import_thread(self._engine_arrived)
        self._preload_lesson_modules()

    @staticmethod
    def _preload_lesson_modules() -> None:
        """While the learner reads the home screen: the modules a lesson's first opening
        would otherwise import then (its screen, figures, Markdown, Pygments' lexers for
        the lessons' code blocks), so that Enter on a lesson only builds widgets."""
        import importlib

        from textual.highlight import highlight

        for module in ("tui.screens.lesson", "tui.screens.glossary", "tui.screens.pages"):
            importlib.import_module(module)
        for figure in (
            "clm",
            "mlm",
            "packing",
            "prefix",
            "samples",
            "span",
            "subwords",
            "visibility",
            "train_lab",
        ):
            importlib.import_module(f"tui.figures.{figure}")
        highlight("x = 1\nprint(x)\n", language=None)  # the lexer guess loads Pygments' lexers
        from engine.subwords import vocabulary_size

        vocabulary_size(), vocabulary_size(0)  # the subwords figure's first redraw: trained ahead

    def _from_import_thread(self, callback, *args) -> None:
        # RuntimeError: the app ended while the engine was loading: nobody to tell.
        with contextlib.suppress(RuntimeError):
            self.call_from_thread(callback, *args)

    def _engine_arrived(self) -> None:
        self.engine_state = "ready"
        self.engine_loaded = True

    # -- navigation --------------------------------------------------------

    def open_lesson(
        self,
        objective_id: str,
        exercise_id: str | None = None,
        seed: int = 0,
        tab: str | None = None,
        over: bool = False,
    ) -> None:
        """The lesson's screen (one per lesson, kept for the session), on ``exercise_id``'s
        variant ``seed`` and on ``tab`` when they are given. ``over``: on top of the
        screen shown now, so that Esc comes back to it (the review queue); otherwise
        from the home screen."""
        from tui.screens.lesson import LessonScreen

        if self.exam is not None:  # exam mode: no way out to lessons (issue 12)
            return
        name = f"lesson-{objective_id}"
        stacked = self.is_screen_installed(name) and self.get_screen(name) in self.screen_stack
        if not over or stacked:
            while len(self.screen_stack) > 1:  # back to the home screen first
                self.pop_screen()
        self.progress.last_objective = objective_id
        if not self.is_screen_installed(name):  # one per lesson: answers and controls survive a visit home
            self.install_screen(LessonScreen(objective_id, exercise_id, seed, tab), name)
            self.push_screen(name)
        else:
            self.push_screen(name)
            if exercise_id is not None:
                self.call_later(self.get_screen(name).show_exercise, exercise_id, seed, tab)
            elif tab is not None:
                self.call_later(self.get_screen(name).action_tab, tab)

    def continue_course(self) -> None:
        """Back to the exact place: the lesson, its tab and the exercise variant. A lesson
        visited this session is still as the learner left it, answers typed included."""
        place = self.progress.place
        if place is None:
            return
        if self.is_screen_installed(f"lesson-{place.objective}"):
            self.open_lesson(place.objective)
        else:
            self.open_lesson(place.objective, place.exercise, place.seed, place.tab)

    def open_page(self, page: str) -> None:
        """The review queue, the history or the settings."""
        if self.exam is not None:  # exam mode: no way out (issue 12)
            return
        from tui.screens.pages import HistoryScreen, ReviewScreen, SettingsScreen

        screen = {"review": ReviewScreen, "history": HistoryScreen, "settings": SettingsScreen}[page]()
        self.push_screen(screen)

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(exam=self.exam is not None))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # An exam stays as it was handed out: no palette, language or theme switches.
        return self.exam is None or action not in ("toggle_language", "command_palette", "change_theme")

    def action_toggle_language(self) -> None:
        self.lang = "en" if self.lang == "zh" else "zh"
        self.progress.set("lang", self.lang)

    def watch_lang(self, lang: str) -> None:
        from tui.bindings import localise_bindings, localise_tree

        self.title = t("app-title", lang)
        localise_bindings(self, lang)
        # Every node's keys, not only the screens': a grid's "space toggle" stayed Chinese
        # in the English footer (issue 23.10). Lessons kept for the session too.
        kept = [screen for screen in self._installed_screens.values() if isinstance(screen, Screen)]
        for screen in dict.fromkeys([*self.screen_stack, *kept]):
            localise_tree(screen, lang)

    def notify(
        self, message: str, *, title: str = "", severity="information", timeout=None, markup=True
    ) -> None:
        """Every notification is plain text (issue 23.3): what it says comes from the
        course, a file name or an error, and Textual would read "[MASK]" as markup."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def on_exercise_panel_graded(self, graded) -> None:
        """Every graded attempt (posted up by the practice panel) is stored here;
        if it cannot be saved, say so once. The answer that solves a lesson's last
        exercise says so under its feedback, where the learner is reading (a toast
        covered the feedback and followed the learner into the next lesson)."""
        from exercises.curriculum import OBJECTIVES, next_objective

        exercise = graded.exercise
        was_done = self.progress.lesson_done(exercise.objective)
        was_saving = self.progress.store.saving
        self.progress.record_result(
            graded.exercise.id,
            graded.exercise.objective,
            graded.variant.seed,
            graded.answer,
            graded.result,
            graded.hints_used,
            graded.seconds,
        )
        if was_saving and not self.progress.store.saving:
            self.notify(notice_text(self.progress.notices[-1], self.lang), severity="error", timeout=15)
        solved_now = not was_done and self.progress.lesson_done(exercise.objective)
        following = next_objective(exercise.objective)
        unfinished = [objective for objective in OBJECTIVES if not self.progress.lesson_done(objective.id)]
        for panel in self.screen.query("ExercisePanel"):
            panel.progress_changed()  # the marks in its list of exercises
            if solved_now:
                panel.show_note(
                    following.title if following is not None else None,
                    (len(unfinished), unfinished[0].title) if unfinished else None,
                )
        self.screen.refresh_bindings()

    @property
    def hint_policy(self) -> str:
        """The learner's hint setting, read where a hint is asked for (it changes in Settings)."""
        return self.progress.setting("hints")

    def watch_theme(self, theme: str) -> None:
        """The theme is a setting: remembered for the next start."""
        if theme != self.progress.setting("theme"):
            self.progress.set("theme", theme)

    # -- command palette -----------------------------------------------------

    def exercise_title(self, exercise_id: str) -> str:
        """The exercise's title (titles live with the exercises, whose modules need no torch)."""
        from exercises.catalogue import get

        return pick(get(exercise_id).title, self.lang)

    def action_command_palette(self) -> None:
        """Textual's palette, with a placeholder in the learner's language."""
        from textual.command import CommandPalette

        from tui.palette import palette_screen

        if self.use_command_palette and not CommandPalette.is_open(self):
            self.push_screen(palette_screen(t("palette-placeholder", self.lang), id="--command-palette"))

    def search_themes(self) -> None:
        """Ctrl+T: Textual's theme picker, its prompt in the learner's language (Textual's
        own said "Search for themes…" in the Chinese app too)."""
        from textual.command import CommandPalette
        from textual.theme import ThemeProvider

        from tui.palette import palette_screen

        if not CommandPalette.is_open(self):
            self.push_screen(palette_screen(t("theme-search", self.lang), providers=[ThemeProvider]))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Beside the lessons and exercises (tui/palette.py): the app's own commands, in
        the learner's language (Textual's own are English only, so they are left out)."""
        lang = self.lang
        yield SystemCommand(
            t("key-language", lang), t("palette-language-help", lang), self.action_toggle_language
        )
        yield SystemCommand(t("key-help", lang), t("palette-help-help", lang), self.action_help)
        yield SystemCommand(t("palette-theme", lang), t("palette-theme-help", lang), self.action_change_theme)
        yield SystemCommand(t("key-quit", lang), t("palette-quit-help", lang), self.action_quit)

    # -- small terminals -----------------------------------------------------

    def on_resize(self, event) -> None:
        from tui.screens.too_small import TooSmallScreen

        too_small = event.size.width < MIN_WIDTH or event.size.height < MIN_HEIGHT
        showing = isinstance(self.screen, TooSmallScreen)
        if too_small and not showing:
            self.push_screen(TooSmallScreen(MIN_WIDTH, MIN_HEIGHT))
        elif too_small:
            self.screen.show(event.size.width, event.size.height)
        elif showing:
            self.pop_screen()


def run_app(lang: str | None = None, exam=None) -> None:
    """Run the app, then leave at once.

    Once Textual has given the terminal back, nothing is left to do: every attempt
    and exam answer was committed when it was made. A normal interpreter exit would
    still wait for torch's teardown (about 0.4 s) and, while the engine is still
    loading, for the import thread (seconds under load): the learner pressed Ctrl+Q
    and would stare at a blank screen. So the process ends here, with the app's
    return code, after the output streams and the progress file are closed."""
    app = TutorApp(lang=lang, exam=exam)
    app.run()
    app.progress.store.close()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(app.return_code or 0)
