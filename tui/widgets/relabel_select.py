"""A Select's options said again in another language, its choice kept.

Textual's ``Select.set_options`` resets the choice, and setting the same value back does
not redraw the label shown (the value did not change): after Ctrl+L a Select showed its
choice in the old language. One function for every Select whose options are words."""

from __future__ import annotations

from textual.widgets import Select


def relabel(select: Select, options: list[tuple[object, str]], keep: str | None = None) -> None:
    """Give ``select`` the ``options`` (label, value) and choose ``keep`` again (default: the
    value chosen now; the first option when that value is gone), without a Changed message,
    and show the chosen option's new label."""
    from textual.widgets._select import SelectCurrent  # pinned textual: the shown value

    chosen = select.value if keep is None else keep
    values = [value for _label, value in options]
    with select.prevent(Select.Changed):
        select.set_options(options)
        select.value = chosen if chosen in values else values[0]
    label = next(label for label, value in options if value == select.value)
    select.query_one(SelectCurrent).update(label)
