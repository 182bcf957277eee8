"""Issue 11.7: in every theme, mask cells (blocked, may look, picked row, wrong
cells after grading) and their headers keep WCAG AA contrast (>= 4.5:1)."""

import pytest
from rich.style import Style

from tui.app import TutorApp
from tui.widgets.mask_view import mask_text

AA = 4.5


def luminance(hex_colour: str) -> float:
    """WCAG 2 relative luminance of #rrggbb (computed here from the spec, not by Textual)."""
    value = hex_colour.lstrip("#")
    channels = [int(value[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_contrast_formula_matches_known_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic AA near-miss
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)


def _hex(colour) -> str:
    triplet = colour.get_truecolor()
    return f"#{triplet.red:02x}{triplet.green:02x}{triplet.blue:02x}"


THEMES = sorted(
    name for name in TutorApp(lang="en", load_engine=False).available_themes if not name.startswith("ansi")
)


@pytest.mark.parametrize("theme_name", THEMES)
def test_mask_cells_are_readable_in_every_theme(theme_name):
    theme = TutorApp(lang="en", load_engine=False).available_themes[theme_name]
    variables = theme.to_color_system().generate()
    foreground, background = variables["foreground"][:7], variables["background"][:7]
    mask = [[int(k > q) for k in range(6)] for q in range(6)]
    text = mask_text(mask, ["A", "B", "C", "D", "E", "F"], highlight_row=2, wrong_cells={(0, 3), (4, 1)})
    checked = 0
    for span in text.spans:
        style = Style.parse(str(span.style)) if not isinstance(span.style, Style) else span.style
        fg = _hex(style.color) if style.color else foreground
        bg = _hex(style.bgcolor) if style.bgcolor else background
        if style.reverse:
            fg, bg = bg, fg
        glyphs = text.plain[span.start : span.end]
        ratio = contrast(fg, bg)
        assert ratio >= AA, f"{theme_name}: {glyphs!r} in {style} is {ratio:.2f}:1"
        checked += 1
    assert checked >= 10
