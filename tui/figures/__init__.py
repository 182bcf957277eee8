"""The live figures, one per kind of lesson."""

from __future__ import annotations

from tui.figures.base import Figure


def figure_for(name: str) -> Figure:
    """A new figure widget by the name an objective gives (see exercises.curriculum)."""
    from tui.figures.clm import ClmFigure
    from tui.figures.mlm import MlmFigure
    from tui.figures.packing import PackingFigure
    from tui.figures.prefix import PrefixFigure
    from tui.figures.samples import SamplesFigure
    from tui.figures.span import SpanFigure
    from tui.figures.subwords import SubwordsFigure
    from tui.figures.visibility import VisibilityFigure

    kinds = {
        "clm": ClmFigure,
        "mlm": MlmFigure,
        "visibility": VisibilityFigure,
        "prefix": PrefixFigure,
        "span": SpanFigure,
        "samples": SamplesFigure,
        "subwords": SubwordsFigure,  # issue 24
        "packing": PackingFigure,  # issue 24
        "train-lab": __import__("tui.figures.train_lab").figures.train_lab.TrainLabFigure,  # h7
    }
    return kinds[name](id=f"figure-{name}")
