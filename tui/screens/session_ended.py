"""The last screen of a class session that has ended (signed in elsewhere, signed
out, ended by the teacher, expired): one message, no way on. The app process ends
shortly after."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Center, Middle
from textual.screen import Screen
from textual.widgets import Static

from tui.i18n import t

REASON_KEYS = {
    "signed-in-elsewhere": "class-reason-signed-in-elsewhere",
    "signed-out": "class-reason-signed-out",
    "ended-by-teacher": "class-reason-ended-by-teacher",
    "expired": "class-reason-expired",
}


def ended_text(reason: str, lang: str) -> str:
    return t("class-session-ended", lang, reason=t(REASON_KEYS.get(reason, "class-reason-other"), lang))


class SessionEndedScreen(Screen):
    DEFAULT_CSS = """
    SessionEndedScreen { align: center middle; }
    SessionEndedScreen #ended { width: 60; max-width: 90%; padding: 1 2; border: heavy $warning; }
    """
    BINDINGS = []

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Middle(), Center():
            yield Static(ended_text(self.reason, self.app.lang), markup=False, id="ended")
