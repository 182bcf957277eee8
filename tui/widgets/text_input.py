"""Textual's Input, with the cursor blink set by the app (tests and snapshots
turn it off so that every frame is reproducible) and without Textual's select-all
on focus: Tab into a box and the next letter replaced the whole sentence there
(issue 23.15); here it is added where the cursor is, at the end."""

from __future__ import annotations

from textual.widgets import Input


class TextInput(Input):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("select_on_focus", False)
        super().__init__(*args, **kwargs)

    def on_mount(self) -> None:
        self.cursor_blink = getattr(self.app, "cursor_blink", True)
