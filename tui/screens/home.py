"""Home: the objectives in teaching order, each with its progress, and
"continue where I left off"."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from exercises.objectives import BY_ID, OBJECTIVES
from tui.i18n import t


def _pick(text: dict[str, str], lang: str) -> str:
    return text.get(lang) or text["en"]


class HomeScreen(Screen):
    DEFAULT_CSS = """
    HomeScreen #intro { padding: 1 2 0 2; color: $text-muted; }
    HomeScreen OptionList { margin: 1 2; height: 1fr; border: round $primary 40%; }
    HomeScreen #engine { padding: 0 2; color: $text-muted; height: 1; }
    """

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(markup=False, id="intro")
        yield OptionList(id="lessons")
        yield Static(markup=False, id="engine")
        yield Footer()

    def on_mount(self) -> None:
        self.watch(self.app, "lang", lambda _lang: self.refresh_list(), init=False)
        self.watch(self.app, "engine_state", self._engine_state, init=True)
        self.refresh_list()
        self.query_one(OptionList).focus()

    def on_screen_resume(self) -> None:
        self.refresh_list()

    def _engine_state(self, state: str) -> None:
        lang = self.app.lang
        message = {"loading": t("engine-loading", lang), "ready": t("engine-ready", lang)}.get(
            state, t("engine-failed", lang, error=state)
        )
        self.query_one("#engine", Static).update(message)

    def refresh_list(self) -> None:
        lang = self.app.lang
        self.app.sub_title = t("app-subtitle", lang)
        self.query_one("#intro", Static).update(t("home-intro", lang))
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        last = self.app.progress.last_objective
        if last in BY_ID:
            options.add_option(
                Option(
                    Text(t("continue", lang, title=_pick(BY_ID[last].title, lang)), style="bold"),
                    id=f"continue:{last}",
                )
            )
        for number, objective in enumerate(OBJECTIVES, start=1):
            done = self.app.progress.done_in(objective.exercises)
            line = Text()
            line.append(f"{number}. ", style="bold")
            line.append(_pick(objective.title, lang), style="bold")
            line.append(f" — {_pick(objective.summary, lang)}")
            status = t("progress", lang, done=done, total=len(objective.exercises))
            line.append(f"  [{status}]", style="green" if done == len(objective.exercises) else "dim")
            options.add_option(Option(line, id=objective.id))
        options.highlighted = highlighted if highlighted is not None else 0
        self._engine_state(self.app.engine_state)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        objective_id = (event.option.id or "").removeprefix("continue:")
        self.app.open_lesson(objective_id)
