"""A radio button that shows its state by a glyph, not by colour alone.

Textual draws the same "●" for on and off and changes only its colour, which a
colour-blind learner, a monochrome terminal or a light theme can lose. Here the
glyph itself changes: ● chosen, ○ not."""

from __future__ import annotations

from textual.widgets import RadioButton

ON, OFF = "●", "○"


class GlyphRadioButton(RadioButton):
    @property
    def _button(self):
        self.BUTTON_INNER = ON if self.value else OFF  # read by RadioButton's own drawing
        return super()._button
