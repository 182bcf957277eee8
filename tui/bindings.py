"""Key labels in the learner's language, for the footer and for the help screen.

Textual's bindings carry one fixed English description; each node keeps its own
copy (``_bindings``), so on a language switch we swap in translated copies. The
translation is looked up by the binding's action: ``ACTION_KEYS`` below for the
actions the whole app shares, a class's own ``ACTION_KEYS`` attribute over it for
a screen whose actions mean something else there (the code lab's ``check``). The
help screen reads the same table, so the footer and the help never disagree."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import format_key

from tui.i18n import t

# action (as written in a Binding, parameters included) -> the i18n key of its label.
# Two actions that share a label (a "-" and a "+" of one control) share one help row.
ACTION_KEYS = {
    "quit": "key-quit",
    "help": "key-help",
    "toggle_language": "key-language",
    "change_theme": "key-theme",
    "command_palette": "key-palette",
    "app.focus_next": "key-focus-next",
    "app.focus_previous": "key-focus-previous",
    "leave": "key-back",
    "escape": "key-back",
    "hint": "key-hint",
    "solution": "key-solution",
    "new_variant": "key-new",
    "next_lesson": "key-next-lesson",
    "glossary": "key-glossary",
    "open_code_lab": "key-code-lab",
    "tab('lesson')": "tab-lesson",
    "tab('figure')": "tab-figure",
    "tab('practice')": "tab-practice",
    # the mask-matrix grid
    "move(-1, 0)": "key-move-cell",
    "move(1, 0)": "key-move-cell",
    "move(0, -1)": "key-move-cell",
    "move(0, 1)": "key-move-cell",
    "toggle": "key-toggle",
    "finish": "key-check",
    # the exam
    "move(1)": "exam-next",
    "move(-1)": "exam-prev",
    "submit": "exam-submit",
    "enter": "key-exam-enter",
    # the live figures' controls
    "length(-1)": "key-length",
    "length(1)": "key-length",
    "toggle_scaling": "key-scaling",
    "reseed": "key-reseed",
    "p(-0.05)": "key-p",
    "p(0.05)": "key-p",
    "batch(-1)": "key-batch",
    "batch(1)": "key-batch",
    "resample": "key-resample",
    "wrap": "key-wrap",
    "density(-0.05)": "key-density",
    "density(0.05)": "key-density",
    "mean(-0.5)": "key-mean",
    "mean(0.5)": "key-mean",
    "kind('causal')": "key-kind-causal",
    "kind('bidirectional')": "key-kind-bidirectional",
    "kind('prefix')": "key-kind-prefix",
    "prefix(-1)": "key-prefix",
    "prefix(1)": "key-prefix",
    "random_cut": "key-random-cut",
    "row(-1)": "key-row",
    "row(1)": "key-row",
    "pan(-1)": "key-pan",
    "pan(1)": "key-pan",
    "predict": "key-predict",
    "edit": "key-edit",
    "start": "key-train",
    "cancel": "key-cancel",
}

# How a key is written for people where Textual's own name would not do.
KEY_NAMES = {"escape": "Esc", "pagedown": "PgDn", "pageup": "PgUp", "tab": "Tab"}
TRANSLATED_KEY_NAMES = {"enter": "key-name-enter", "space": "key-name-space"}


def label_key(action: str, owner: object = None) -> str | None:
    """The i18n key of ``action``'s label: ``owner``'s own table first (a class or
    a node with an ``ACTION_KEYS`` attribute), then the shared one; None when the
    action has no translation (its binding's own description is shown)."""
    own: Mapping[str, str] = getattr(owner, "ACTION_KEYS", None) or {}
    return own.get(action) or ACTION_KEYS.get(action)


def binding_label(binding: Binding, lang: str, owner: object = None) -> str:
    """The binding's description in ``lang``."""
    key = label_key(binding.action, owner)
    return t(key, lang) if key is not None else (binding.description or binding.action)


def key_label(key: str, lang: str) -> str:
    """A Textual key name as a person writes it: "ctrl+q" -> "Ctrl+Q",
    "left_square_bracket" -> "[", "f8" -> "F8", "enter" -> "回车" in Chinese."""
    *modifiers, base = key.split("+")
    if base in TRANSLATED_KEY_NAMES:
        name = t(TRANSLATED_KEY_NAMES[base], lang)
    elif base in KEY_NAMES:
        name = KEY_NAMES[base]
    elif base[:1] == "f" and base[1:].isdigit():
        name = base.upper()
    else:
        name = format_key(base)
        if modifiers:
            name = name.upper()
    return "+".join([modifier.capitalize() for modifier in modifiers] + [name])


def localise_tree(root: DOMNode, lang: str) -> None:
    """``localise_bindings`` for ``root`` and every node under it that has keys."""
    for node in root.walk_children(with_self=True):
        if node._bindings.key_to_bindings:
            localise_bindings(node, lang)


def localise_bindings(node: DOMNode, lang: str) -> None:
    """Translate the descriptions of ``node``'s bindings, then redraw the footer."""
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [
            replace(binding, description=binding_label(binding, lang, node))
            if label_key(binding.action, node) is not None
            else binding
            for binding in bindings
        ]
    node.refresh_bindings()
