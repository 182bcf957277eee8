"""A scrolling page of text (a lesson, the glossary, help) that takes the keys for its
scrolling, and whose focus changes cost one node's styles, not a hundred.

Textual restyles a widget *and every node below it* when the widget gains or loses
focus, in case a rule styles a descendant by its ancestor's focus (``A:focus B``). A
lesson's page holds about a hundred Markdown blocks: each focus change of its scroll
(opening the lesson, every tab switch) re-applied the CSS to all of them, 120–490 ms of
the UI thread on this 2-core machine. No rule in the app's stylesheet styles a node by an
ancestor's focus (``tests/test_reading_scroll.py`` reads every rule, Textual's own
included, and compares the styles of every node against a full restyle), so the page
restyles itself and its scrollbars alone: the same styles, without the cost."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.css.model import CombinatorType, Selector, SelectorType
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

FOCUS_STATES = frozenset({"focus", "blur"})


def _compounds(selectors: list[Selector]) -> list[list[Selector]]:
    """A selector chain cut into its compounds: "A:focus.b > C" is [[A:focus, .b], [C]]."""
    compounds: list[list[Selector]] = []
    for selector in selectors:
        if compounds and selector.combinator == CombinatorType.SAME:
            compounds[-1].append(selector)
        else:
            compounds.append([selector])
    return compounds


def _names(selector: Selector, node: DOMNode) -> bool:
    """Whether ``selector`` names ``node`` (its type, a base type, a class or its id)."""
    if selector.type == SelectorType.TYPE:
        return selector.name in {cls.__name__ for cls in type(node).__mro__}
    if selector.type == SelectorType.CLASS:
        return selector.name in node.classes
    if selector.type == SelectorType.ID:
        return selector.name == node.id
    return True  # universal, nested


def focus_rules_reaching_below(stylesheet: Stylesheet, node: DOMNode) -> list[str]:
    """The rules in which ``node``'s focus would style a node below it ("A:focus B",
    "A:focus > B" with A naming ``node``). Empty means that a focus change of ``node``
    may restyle ``node`` alone."""
    found = []
    for rule in stylesheet.rules:
        for selector_set in rule.selector_set:
            for compound in _compounds(selector_set.selectors)[:-1]:
                focused = any(selector.pseudo_classes & FOCUS_STATES for selector in compound)
                if focused and all(_names(selector, node) for selector in compound):
                    found.append(rule.css.splitlines()[0])
    return found


class ReadingScroll(VerticalScroll):
    """A ``VerticalScroll`` whose own focus restyles only itself (see the module's why)."""

    def watch_has_focus(self, _has_focus: bool) -> None:
        self.app.stylesheet.update_nodes([self], animate=True)
