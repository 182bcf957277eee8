"""Score distributions as text a teacher reads at a glance: the class's scores in
ten-point bins, and each question as one stacked bar (right, partly, wrong, not
answered). Plain text (block characters, no markup), so the same lines go to the
terminal (`quiz grade`), into the Markdown report (in a code block) and onto the
class server's dashboard; every line fits 80 columns.

    score_bins(percents) -> bins       bar_lines(bins, width) -> one line per bin
    answer_counts(scores) -> counts    stacked_bar(counts, width) -> one bar
    answer_bins(counts, lang) -> bins (a question's counts, labelled for bar_lines)"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from exercises.grading.marks import full_marks
from exercises.text import Bilingual, L

EIGHTHS = " ▏▎▍▌▋▊▉"  # a bar's last cell, in eighths of a cell
FULL = "█"
SHADES = ("█", "▒", "░", "·")  # right, partly, wrong, not answered
LABEL_WIDTH = 6
BAR_WIDTH = 50  # cells: with the label, the frame and the count, a line stays within 80 columns
LEGEND = L("█ right  ▒ partly  ░ wrong  · not answered", "█ 全对  ▒ 部分对  ░ 错  · 未作答")
ANSWER_LABELS: tuple[Bilingual, ...] = (
    L("right", "全对"),
    L("partly", "部分对"),
    L("wrong", "错"),
    L("blank", "未作答"),
)


@dataclass(frozen=True)
class Bin:
    label: str  # "0–9", "90–99", "100"
    count: int


def score_bins(percents: Iterable[float]) -> list[Bin]:
    """Ten-point bins of percentages (0–9 … 90–99) and full marks on its own: "100" is
    what a teacher looks for first, and a bin 90–100 would hide it."""
    counts = [0] * 11
    for percent in percents:
        value = min(100.0, max(0.0, float(percent)))
        counts[10 if value >= 100.0 - 1e-9 else int(value // 10)] += 1
    labels = [f"{10 * n}–{10 * n + 9}" for n in range(10)] + ["100"]
    return [Bin(label, count) for label, count in zip(labels, counts, strict=True)]


def bar(count: int, most: int, width: int) -> str:
    """``count`` of ``most`` as a bar of ``width`` cells, to an eighth of a cell; a
    count above zero always shows (at least an eighth), zero shows nothing."""
    if most <= 0 or count <= 0:
        return ""
    eighths = max(1, round(8 * width * count / most))
    return FULL * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def columns(text: str) -> int:
    """Terminal columns: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def bar_lines(bins: Sequence[Bin], width: int = BAR_WIDTH) -> list[str]:
    """One line per bin: the label, a bar scaled to the largest bin, the count."""
    most = max((b.count for b in bins), default=0)
    total = sum(b.count for b in bins)
    label_width = max([LABEL_WIDTH, *(columns(b.label) for b in bins)])
    lines = []
    for entry in bins:
        share = f" ({100 * entry.count / total:.0f}%)" if total and entry.count else ""
        drawn = bar(entry.count, most, width)
        pad = " " * (label_width - columns(entry.label))
        lines.append(f"{pad}{entry.label} │{drawn:<{width}} {entry.count}{share}".rstrip())
    return lines


def answer_bins(counts: Sequence[int], lang: str) -> list[Bin]:
    """One question's counts (answer_counts) as labelled bins, for bar_lines."""
    return [Bin(label[lang], count) for label, count in zip(ANSWER_LABELS, counts, strict=True)]


def answer_counts(scores: Iterable[tuple[float, bool]]) -> tuple[int, int, int, int]:
    """(right, partly, wrong, not answered) from (score 0..1, answered) pairs."""
    right = partly = wrong = blank = 0
    for score, answered in scores:
        if not answered:
            blank += 1
        elif full_marks(score):
            right += 1
        elif score > 0:
            partly += 1
        else:
            wrong += 1
    return right, partly, wrong, blank


def stacked_bar(counts: Sequence[int], width: int = 30) -> str:
    """The counts as one bar of exactly ``width`` cells, one shade each (SHADES), sized by
    largest remainder so the cells add up; any count above zero gets at least one cell
    while there is room."""
    total = sum(counts)
    if total <= 0:
        return " " * width
    exact = [width * count / total for count in counts]
    cells = [int(value) for value in exact]
    for index in sorted(range(len(counts)), key=lambda i: exact[i] - cells[i], reverse=True):
        if sum(cells) >= width:
            break
        cells[index] += 1
    for index, count in enumerate(counts):  # a rare answer stays visible
        if count and not cells[index]:
            donor = max(range(len(cells)), key=lambda i: cells[i])
            if cells[donor] > 1:
                cells[donor] -= 1
                cells[index] = 1
    return "".join(shade * cell for shade, cell in zip(SHADES, cells, strict=False))
