"""A radio button that shows its state by a glyph, not by colour alone.

Textual draws the same "●" for on and off and changes only its colour, which a
colour-blind learner, a monochrome terminal or a light theme can lose. Here the
glyph itself changes: ● chosen, ○ not."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import RadioButton

ON, OFF = "●", "○"


class GlyphRadioButton(RadioButton):
    def _make_label(self, label):
        """A label is plain text: Textual reads a str as markup (an option's "[MASK]")."""
        return super()._make_label(Content(label) if isinstance(label, str) else label)

    @property
    def _button(self):
        self.BUTTON_INNER = ON if self.value else OFF  # read by RadioButton's own drawing
        return super()._button
