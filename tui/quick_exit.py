"""A terminal driver that gives the terminal back as soon as the app quits.

Textual's Linux driver stops its input thread by setting an event and joining the
thread, which notices only at its next 0.1 s poll and then polls once more: every
Ctrl+Q cost 0.2 s of a frozen screen. While the app is shutting down nothing more is
read, so this driver tells the thread to stop and does not wait for it (the thread
ends by itself; ``run_app`` ends the process right after). Suspending and resuming
(the app still running) keeps Textual's behaviour."""

from __future__ import annotations

import signal
import termios

from textual.drivers.linux_driver import LinuxDriver


class PromptExitDriver(LinuxDriver):
    def disable_input(self) -> None:
        if self._app.is_running:
            super().disable_input()
            return
        if self.exit_event.is_set():
            return
        try:
            signal.signal(signal.SIGWINCH, signal.SIG_DFL)
            self._disable_mouse_support()
            self.exit_event.set()  # left set: the input thread stops at its next poll
            termios.tcflush(self.fileno, termios.TCIFLUSH)
        except (OSError, ValueError, termios.error):  # a half-closed terminal must not stop the exit
            pass
