"""A mask the learner fills in: arrows move, Space (or a click) toggles a cell,
and after grading each wrong cell shows the learner's value and the one it
should have ("1→0"), until the learner toggles it."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.message import Message
from textual.widget import Widget

CELL = 4  # three characters (" 1 " or, when wrong, "1→0") and a space between cells


class MatrixEditor(Widget, can_focus=True):
    DEFAULT_CSS = """
    MatrixEditor { width: auto; height: auto; padding: 0 1; border: round $primary 50%; }
    MatrixEditor:focus { border: round $accent; }
    """
    BINDINGS = [
        Binding("up", "move(-1, 0)", "↑", show=False),
        Binding("down", "move(1, 0)", "↓", show=False),
        Binding("left", "move(0, -1)", "←", show=False),
        Binding("right", "move(0, 1)", "→", show=False),
        Binding("space", "toggle", "toggle"),
        Binding("enter", "finish", "check"),
    ]

    class Submitted(Message):
        """The learner pressed Enter on the grid."""

    class Changed(Message):
        """A cell was toggled (exams save at once)."""

    def __init__(self, n: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.n = n
        self.cells = [[0] * n for _ in range(n)]
        self.cursor = (0, 0)
        self.wrong: dict[tuple[int, int], int] = {}  # cell -> the value it should have

    def as_text(self) -> str:
        return "\n".join(" ".join(map(str, row)) for row in self.cells)

    def set_cells(self, cells: list[list[int]]) -> None:
        self.cells = [list(row) for row in cells]
        self.wrong = {}
        self.refresh()

    def mark_wrong(self, corrections: dict[tuple[int, int], int]) -> None:
        """Show each wrong cell as "given→expected"."""
        self.wrong = dict(corrections)
        self.refresh()

    def action_move(self, rows: int, columns: int) -> None:
        row, column = self.cursor
        self.cursor = ((row + rows) % self.n, (column + columns) % self.n)
        self.refresh()

    def action_toggle(self) -> None:
        row, column = self.cursor
        self.cells[row][column] ^= 1
        self.wrong.pop((row, column), None)
        self.refresh()
        self.post_message(self.Changed())

    def action_finish(self) -> None:
        self.post_message(self.Submitted())

    def on_mount(self) -> None:
        from tui.bindings import localise_bindings

        localise_bindings(self, self.app.lang)

    def on_click(self, event: Click) -> None:
        column = (event.x - 1 - 3) // CELL
        row = event.y - 1
        if 0 <= row < self.n and 0 <= column < self.n:
            self.cursor = (row, column)
            self.action_toggle()

    def get_content_width(self, container, viewport) -> int:
        return 3 + CELL * self.n

    def get_content_height(self, container, viewport, width) -> int:
        return self.n + 1

    def render(self) -> Text:
        text = Text(no_wrap=True)
        text.append("   ")
        for column in range(self.n):
            text.append(str(column).center(CELL - 1) + " ", style="bold")
        for row in range(self.n):
            text.append("\n" + str(row).rjust(2) + " ", style="bold")
            for column in range(self.n):
                value = self.cells[row][column]
                style = "on #7f1d1d" if value else "on #14532d"
                cell = f" {value} "
                if (row, column) in self.wrong:
                    style, cell = "bold black on yellow", f"{value}→{self.wrong[row, column]}"
                if (row, column) == self.cursor and self.has_focus:
                    style += " reverse"
                text.append(cell, style=style)
                text.append(" ")
        return text
