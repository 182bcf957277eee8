"""The answer widgets of an exercise variant, shared by practice and exams:
a text box per part, a toggle grid for mask matrices, a radio list for
multiple choice and for a reflection's self-mark."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Input, Label, RadioButton, RadioSet

from exercises.text import pick
from tui.i18n import t
from tui.widgets.matrix_editor import MatrixEditor
from tui.widgets.text_input import TextInput

LETTERS = "ABCDEF"
SELF_MARKS = ("yes", "partly", "no")


def part_widgets(exercise, variant, lang: str, with_self_mark: bool = True) -> list[Widget]:
    """A label and an input widget per part, ids ``label-<part>`` / ``part-<part>``."""
    widgets: list[Widget] = []
    for part in exercise.parts:
        if part.name == "self_mark" and not with_self_mark:
            continue
        widgets.append(
            Label(pick(part.label, lang), markup=False, classes="part-label", id=f"label-{part.name}")
        )
        if exercise.kind == "matrix":
            widgets.append(MatrixEditor(variant.data["n"], id=f"part-{part.name}"))
        elif exercise.kind == "choice":
            count = len(variant.data["order"])
            widgets.append(RadioSet(*(RadioButton(LETTERS[i]) for i in range(count)), id=f"part-{part.name}"))
        elif part.name == "self_mark":
            widgets.append(
                RadioSet(*(RadioButton(t(f"mark-{m}", lang)) for m in SELF_MARKS), id="part-self_mark")
            )
        else:
            widgets.append(TextInput(placeholder=pick(part.example, lang), id=f"part-{part.name}"))
    return widgets


def relabel_parts(root: Widget, exercise, lang: str) -> None:
    """Labels, placeholders and self-mark choices in ``lang``."""
    for part in exercise.parts:
        for label in root.query(f"#label-{part.name}").results(Label):
            label.update(pick(part.label, lang))
        for box in root.query(f"#part-{part.name}").results(Input):
            box.placeholder = pick(part.example, lang)
    radios = root.query("#part-self_mark RadioButton").results(RadioButton)
    for radio, mark in zip(radios, SELF_MARKS, strict=False):
        radio.label = t(f"mark-{mark}", lang)


def choose_by_letter(focused, character: str | None) -> bool:
    """In a multiple-choice list, typing an option's letter picks it; True if it did."""
    if not isinstance(focused, RadioSet) or focused.id != "part-choice" or not character:
        return False
    buttons = list(focused.query(RadioButton))
    letter = character.upper()
    if letter not in LETTERS[: len(buttons)]:
        return False
    buttons[LETTERS.index(letter)].value = True
    return True


def read_answers(root: Widget, exercise) -> dict[str, str]:
    """What the learner has entered, part by part (empty parts left out)."""
    answer: dict[str, str] = {}
    for part in exercise.parts:
        for widget in root.query(f"#part-{part.name}"):
            if isinstance(widget, Input) and widget.value.strip():
                answer[part.name] = widget.value
            elif isinstance(widget, MatrixEditor):
                answer[part.name] = widget.as_text()
            elif isinstance(widget, RadioSet) and widget.pressed_index >= 0:
                marks = SELF_MARKS if part.name == "self_mark" else LETTERS
                answer[part.name] = marks[widget.pressed_index]
    return answer


def restore_answers(root: Widget, exercise, answer: dict[str, str]) -> None:
    """Put saved answers back into the widgets (an exam resumed after a crash)."""
    for part in exercise.parts:
        text = answer.get(part.name)
        if text is None:
            continue
        for widget in root.query(f"#part-{part.name}"):
            if isinstance(widget, Input):
                widget.value = text
            elif isinstance(widget, MatrixEditor):
                from exercises.grading.parsing import matrix

                cells = matrix(text, widget.n)
                if cells is not None:
                    widget.set_cells(cells)
            elif isinstance(widget, RadioSet):
                marks = SELF_MARKS if part.name == "self_mark" else LETTERS
                buttons = list(widget.query(RadioButton))
                if text in marks and marks.index(text) < len(buttons):
                    with widget.prevent(RadioSet.Changed):
                        buttons[marks.index(text)].value = True
