"""Textual's Input, with the cursor blink set by the app (tests and snapshots
turn it off so that every frame is reproducible)."""

from __future__ import annotations

from textual.widgets import Input


class TextInput(Input):
    def on_mount(self) -> None:
        self.cursor_blink = getattr(self.app, "cursor_blink", True)
