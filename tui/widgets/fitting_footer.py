"""A footer that fits the terminal's width instead of running off its edge.

Textual's footer lays its keys out in one row and lets the last ones fall off
the right edge. This one measures them first: if they do not fit, it draws
them compactly (one column less per key), and if they still do not fit it
leaves out the keys that are always reachable otherwise and are listed in the
help screen (the language switch, help itself, the glossary, then the command palette),
so the keys of what has focus stay visible."""

from __future__ import annotations

from rich.cells import cell_len
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # pinned textual: the footer's key widget

from tui.i18n import t

# Keys that Textual's own widgets bring, in the learner's language (the Select's
# open list said "Dismiss menu" in the Chinese app).
TEXTUAL_ACTIONS = {"dismiss": "key-close"}

# Left out first to last when there is no room (each also lives in the help screen).
DROPPABLE = ("toggle_language", "help", "glossary", "command_palette")


def key_width(key: FooterKey, compact: bool) -> int:
    """Columns one key takes: Textual's padding and margins for each style."""
    body = cell_len(key.key_display) + (cell_len(key.description) + 1 if key.description else 0)
    palette = "-command-palette" in key.classes
    if compact:
        return body + (0 if palette else 1)
    return body + 2 - (1 if palette else 0)


class FittingFooter(Footer):
    """Recomposed only when what it shows changes: Textual recomposes its footer on every
    change of any binding on the screen (each mount, focus and relabel), a dozen times
    while a lesson opens, each time mounting and styling every key again."""

    _composed: tuple | None = None
    _recompose_pending = False

    def shown(self) -> tuple:
        """What the keys would show now: each shown binding as the footer draws it, the
        width they must fit and the language of Textual's own keys."""
        bindings = tuple(
            (
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
            )
            for (_node, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show or binding.action == "command_palette"
        )
        return bindings, self.show_command_palette, self.size.width or self.app.size.width, self.app.lang

    def bindings_changed(self, screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if not self._recompose_pending:  # one recomposition for a burst of changes
            self._recompose_pending = True
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._recompose_pending = False
        if self.is_attached and self.shown() != self._composed:
            await self.recompose()

    def compose(self):
        if self._bindings_ready:
            self._composed = self.shown()
        keys = list(super().compose())
        if not all(isinstance(key, FooterKey) for key in keys):  # grouped keys: as Textual draws them
            yield from keys
            return
        for key in keys:
            if key.action in TEXTUAL_ACTIONS:
                key.description = t(TEXTUAL_ACTIONS[key.action], self.app.lang)
        width = self._fitted_width = self.size.width or self.app.size.width

        def need(compact: bool) -> int:
            # +2: the palette key's dock gap, which Textual's layout adds and measuring cannot see
            return sum(key_width(key, compact) for key in keys) + 2

        compact = need(False) > width
        for action in DROPPABLE:
            if need(compact) <= width:
                break
            keys = [key for key in keys if key.action != action]
        self.compact = compact
        for key in keys:
            if "-command-palette" in key.classes:
                continue  # not bound to the footer's style: Textual draws it compact always
            # Born in the footer's style: a key created compact (Textual's default) and then
            # bound to a non-compact footer restyles itself once more; over the dozens of
            # footers a lesson's opening composes, that was a quarter of the time it took.
            key.set_reactive(FooterKey.compact, compact)
            key.set_class(compact, "-compact", update=False)
        yield from keys

    def on_resize(self) -> None:
        if self.size.width != getattr(self, "_fitted_width", self.size.width):
            self.call_after_refresh(self.recompose)  # a new terminal width: fit again
