"""A radio button and a checkbox that show their state by a glyph, not by colour alone.

Textual draws the same "●" (radio) or "X" (checkbox) for on and off and changes only
its colour, which a colour-blind learner, a monochrome terminal or a light theme can
lose. Here the glyph itself changes: ● chosen, ○ not; ✓ ticked, a blank box not."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox, RadioButton

ON, OFF = "●", "○"
TICKED, UNTICKED = "✓", " "


class GlyphRadioButton(RadioButton):
    def _make_label(self, label):
        """A label is plain text: Textual reads a str as markup (an option's "[MASK]")."""
        return super()._make_label(Content(label) if isinstance(label, str) else label)

    @property
    def _button(self):
        self.BUTTON_INNER = ON if self.value else OFF  # read by RadioButton's own drawing
        return super()._button


class GlyphCheckbox(Checkbox):
    @property
    def _button(self):
        self.BUTTON_INNER = TICKED if self.value else UNTICKED  # read by Checkbox's own drawing
        return super()._button
