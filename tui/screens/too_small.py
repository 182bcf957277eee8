"""Shown instead of a cramped, broken layout when the terminal is too small."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from tui.i18n import t


class TooSmallScreen(Screen):
    DEFAULT_CSS = """
    TooSmallScreen { align: center middle; }
    TooSmallScreen Static { width: 100%; content-align: center middle; text-align: center; padding: 1; }
    """

    def __init__(self, min_width: int, min_height: int) -> None:
        super().__init__()
        self.min_width, self.min_height = min_width, min_height

    def compose(self) -> ComposeResult:
        yield Static(markup=False, id="message")

    def on_mount(self) -> None:
        # Ctrl+L still works here: the message follows the language
        self.watch(self.app, "lang", lambda _lang: self.show(self.app.size.width, self.app.size.height))

    def show(self, width: int, height: int) -> None:
        self.query_one("#message", Static).update(
            t(
                "too-small",
                self.app.lang,
                width=width,
                height=height,
                min_width=self.min_width,
                min_height=self.min_height,
            )
        )
