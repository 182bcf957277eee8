"""Saying once, where the code lab runs learner code, that this machine does not isolate
it (``exercises.lab.isolation.probe``): on stderr for ``lab check`` and ``lab watch``, as
a notification in the lab screen. Nothing is said where the code is isolated."""

from __future__ import annotations

import sys

from exercises.text import pick
from tui.i18n import t

_told = False


def unisolated_notice(lang: str) -> str | None:
    """The notice the first time this process asks; None after that, and where code is isolated."""
    global _told
    from exercises.lab.isolation import probe

    report = probe()
    if report.isolated or _told:
        return None
    _told = True
    return t("lab-unisolated", lang, why=pick(report.reasons(), lang))


def warn_unisolated(lang: str) -> None:
    """`lab check` / `lab watch`: one line on stderr (stdout may be JSON)."""
    notice = unisolated_notice(lang)
    if notice is not None:
        sys.stderr.write(f"objectives-tutor: {notice}\n")


def notify_unisolated(app) -> None:
    """The lab screen: a warning that stays a while (plain text: the reasons are the OS's
    words), worked out in a thread so that the screen never waits for the probe (ctypes)."""

    def probe_and_tell() -> None:
        notice = unisolated_notice(app.lang)
        if notice is not None:
            app.call_from_thread(app.notify, notice, severity="warning", timeout=20, markup=False)

    app.run_worker(probe_and_tell, thread=True, group="lab-isolation-notice")
