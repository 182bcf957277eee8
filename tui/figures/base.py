"""What every live figure shares: it waits for the engine, follows the
language, and redraws from the engine whenever a control changes."""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.i18n import t


class Figure(VerticalScroll, can_focus=True):
    """A live figure. Subclasses compose their controls and implement ``redraw``,
    which reads the engine (imported only once the worker has loaded it)."""

    BINDINGS = [Binding("escape", "escape", "back")]

    DEFAULT_CSS = """
    Figure { height: 1fr; padding: 0 1; overflow-x: auto; }
    Figure .keys { color: $text-muted; }
    Figure .readout { margin-top: 1; }
    Figure Input { width: 1fr; }
    Figure .row { height: auto; margin-top: 1; }
    Figure .side { width: auto; margin-right: 3; }
    """

    def action_escape(self) -> None:
        """Esc leaves a text box for this panel's own keys; a second Esc goes back."""
        if self.has_focus:
            self.screen.action_leave()
        else:
            self.focus()

    def on_mount(self) -> None:
        self.watch(self.app, "engine_loaded", self._engine_changed, init=True)
        self.watch(self.app, "lang", lambda _lang: self.refresh_figure(), init=False)

    @property
    def lang(self) -> str:
        return self.app.lang

    def _engine_changed(self, loaded: bool) -> None:
        if loaded:
            self.refresh_figure()
        else:
            self.waiting()

    def waiting(self) -> None:
        """Before the engine is in: say so where the figure will be."""
        for static in self.query(".output").results(Static):
            static.update(t("waiting-engine", self.lang))

    def refresh_figure(self) -> None:
        if not getattr(self.app, "engine_loaded", False):
            self.waiting()
            return
        try:
            self.redraw()
        except ValueError as error:  # the engine's InvalidInput: say it, keep the controls
            from tui.i18n import error_text

            for static in self.query(".readout").results(Static):
                static.update("")
            self.show_error(error_text(error, self.lang))

    def redraw(self) -> None:
        raise NotImplementedError

    def show_error(self, message: str) -> None:
        for static in self.query(".error").results(Static):
            static.update(message)
            static.display = True

    def clear_error(self) -> None:
        for static in self.query(".error").results(Static):
            static.display = False
