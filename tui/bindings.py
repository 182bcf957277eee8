"""Footer key labels in the learner's language.

Textual's bindings carry one fixed description; each node keeps its own copy
(``_bindings``), so on a language switch we swap in translated copies, keyed
by the binding's action."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from textual.dom import DOMNode

from tui.i18n import t

ACTION_KEYS = {
    "quit": "key-quit",
    "help": "key-help",
    "toggle_language": "key-language",
    "leave": "key-back",
    "hint": "key-hint",
    "solution": "key-solution",
    "new_variant": "key-new",
    "escape": "key-back",
    "command_palette": "key-palette",
    "submit": "exam-submit",
    "toggle": "key-toggle",
    "finish": "key-check",
    "next_lesson": "key-next-lesson",
    "glossary": "key-glossary",
}


def localise_bindings(node: DOMNode, lang: str, own: Mapping[str, str] | None = None) -> None:
    """Translate the descriptions of ``node``'s bindings, then redraw the footer.
    ``own`` maps a screen's own actions to their keys, over the shared table."""
    keys = {**ACTION_KEYS, **(own or {})}
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [
            replace(binding, description=t(keys[binding.action], lang)) if binding.action in keys else binding
            for binding in bindings
        ]
    node.refresh_bindings()
