"""The lessons' Markdown, with code blocks that fit the terminal.

Textual scrolls a long line of a code block sideways behind a scroll bar of size
zero: at 80 columns the chain rule ended in "· P(w_{T-1} |" with no sign that more
followed (issue 23.5), and nothing in the lesson tab scrolls it by keyboard. Here a
line too long for the width is broken where the code allows it (a space outside
brackets first, then any space) and the rest goes on the next line behind a dim
"↪", indented like the line it continues. The code's own highlighting is kept."""

from __future__ import annotations

from functools import lru_cache

from rich.cells import cell_len
from textual.content import Content
from textual.widgets import Label, Markdown
from textual.widgets._markdown import MarkdownFence  # pinned textual: the code block widget

CONTINUED = "↪ "
OPENING, CLOSING = "([{", ")]}"


def break_points(line: str, width: int) -> list[tuple[int, int]]:
    """``line`` as (start, end) slices that each fit ``width`` cells, the first whole
    width and the others after the continuation mark and the line's indent. A break
    falls on a space (dropped), outside brackets where there is one, mid-token only
    where a token alone is wider than the room."""
    indent = len(line) - len(line.lstrip(" "))
    room_after = max(8, width - indent - cell_len(CONTINUED))
    pieces: list[tuple[int, int]] = []
    start, room = 0, max(8, width)
    while cell_len(line[start:]) > room:
        depth, cells, outside, anywhere, cut = 0, 0, None, None, None
        for index in range(start, len(line)):
            char = line[index]
            cells += cell_len(char)
            if cells > room:
                cut = index
                break
            if char in OPENING:
                depth += 1
            elif char in CLOSING:
                depth = max(0, depth - 1)
            elif char == " " and index > start:
                anywhere = index
                if depth == 0:
                    outside = index
        end = outside or anywhere or cut or len(line)
        pieces.append((start, end))
        start = end
        while start < len(line) and line[start] == " ":
            start += 1
        room = room_after
    pieces.append((start, len(line)))
    return pieces


def wrap_code(code: Content, width: int) -> Content:
    """``code`` (highlighted) with each line too wide for ``width`` broken as
    ``break_points`` says, its continuations marked."""
    lines: list[Content] = []
    for line in code.split("\n", allow_blank=True):
        plain = line.plain
        pieces = break_points(plain, width)
        indent = " " * (len(plain) - len(plain.lstrip(" ")))
        for number, (start, end) in enumerate(pieces):
            piece = line[start:end]
            if number:
                piece = Content.assemble((indent + CONTINUED, "dim"), piece)
            lines.append(piece)
    return Content("\n").join(lines)


@lru_cache(maxsize=256)
def _guess_language(code: str) -> str:
    from textual.highlight import guess_language

    return guess_language(code, None)


class WrappedFence(MarkdownFence):
    """A code block whose long lines wrap with a mark instead of running off the edge."""

    DEFAULT_CSS = """
    WrappedFence { overflow: hidden hidden; }
    """

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        """Textual's highlighting, the language of an untagged block guessed once per text:
        Textual guesses again (Pygments tries every lexer, ~10 ms a block) on every style
        update, and every reopening of a lesson updates its styles."""
        return super().highlight(code, language or _guess_language(code), ansi=ansi, dark=dark)

    def on_resize(self) -> None:
        self._fit()

    def set_content(self, content: Content) -> None:
        super().set_content(content)
        self._fit()

    def _fit(self) -> None:
        label = next(iter(self.query("#code-content").results(Label)), None)
        width = self.size.width - (label.styles.gutter.width if label is not None else 0)
        if label is None or width <= 0:
            return
        label.update(wrap_code(self._highlighted_code, width))


class LessonMarkdown(Markdown):
    BLOCKS = {**Markdown.BLOCKS, "fence": WrappedFence, "code_block": WrappedFence}
