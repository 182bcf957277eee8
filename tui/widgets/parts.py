"""The answer widgets of an exercise variant, shared by practice and exams.

The exercise describes each part (``Part.kind``, its options for this variant,
the size of a matrix); this module only renders that description: a text box,
a toggle grid, or a list of choices with a key each."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Input, Label, RadioButton, RadioSet

from exercises.text import pick
from tui.widgets.glyph_radio import GlyphRadioButton  # ● chosen, ○ not: never colour alone
from tui.widgets.matrix_editor import MatrixEditor
from tui.widgets.text_input import TextInput


class ChoiceSet(RadioSet):
    """A choice part: one button per option; the option's key picks it."""

    def __init__(self, options, lang: str, **kwargs) -> None:
        self.options = tuple(options)
        super().__init__(*(GlyphRadioButton(pick(option.label, lang)) for option in self.options), **kwargs)

    @property
    def chosen(self) -> str | None:
        """The value of the chosen option, if any."""
        return self.options[self.pressed_index].value if self.pressed_index >= 0 else None

    def choose(self, value: str, quietly: bool = False) -> bool:
        """Press the option holding ``value``; True if there is one."""
        buttons = list(self.query(RadioButton))
        for option, button in zip(self.options, buttons, strict=False):
            if option.value == value:
                if quietly:
                    with self.prevent(RadioSet.Changed):
                        button.value = True
                else:
                    button.value = True
                return True
        return False

    def choose_by_key(self, character: str | None) -> bool:
        """Typing an option's key picks it; True if it did."""
        if not character:
            return False
        for option in self.options:
            if option.key == character.lower():
                return self.choose(option.value)
        return False

    def relabel(self, lang: str) -> None:
        for option, button in zip(self.options, self.query(RadioButton), strict=False):
            button.label = pick(option.label, lang)


def part_widgets(exercise, variant, lang: str, with_self_mark: bool = True) -> list[Widget]:
    """A label and an input widget per part, ids ``label-<part>`` / ``part-<part>``."""
    widgets: list[Widget] = []
    for part in exercise.parts:
        if part.kind == "self-mark" and not with_self_mark:
            continue
        widgets.append(
            Label(pick(part.label, lang), markup=False, classes="part-label", id=f"label-{part.name}")
        )
        widget_id = f"part-{part.name}"
        if part.kind == "matrix":
            widgets.append(MatrixEditor(exercise.matrix_size(variant), id=widget_id))
        elif part.kind in ("choice", "self-mark"):
            widgets.append(ChoiceSet(exercise.options(part, variant), lang, id=widget_id))
        else:
            widgets.append(TextInput(placeholder=pick(part.example, lang), id=widget_id))
    return widgets


def relabel_parts(root: Widget, exercise, lang: str) -> None:
    """Labels, placeholders and choices in ``lang``."""
    for part in exercise.parts:
        for label in root.query(f"#label-{part.name}").results(Label):
            label.update(pick(part.label, lang))
        for box in root.query(f"#part-{part.name}").results(Input):
            box.placeholder = pick(part.example, lang)
        for choices in root.query(f"#part-{part.name}").results(ChoiceSet):
            choices.relabel(lang)


def read_answers(root: Widget, exercise) -> dict[str, str]:
    """What the learner has entered, part by part (empty parts left out)."""
    answer: dict[str, str] = {}
    for part in exercise.parts:
        for widget in root.query(f"#part-{part.name}"):
            if isinstance(widget, Input) and widget.value.strip():
                answer[part.name] = widget.value
            elif isinstance(widget, MatrixEditor):
                answer[part.name] = widget.as_text()
            elif isinstance(widget, ChoiceSet) and widget.chosen is not None:
                answer[part.name] = widget.chosen
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
            elif isinstance(widget, ChoiceSet):
                widget.choose(text, quietly=True)


def choose_by_letter(focused, character: str | None) -> bool:
    """In a list of choices, typing an option's key picks it; True if it did."""
    return isinstance(focused, ChoiceSet) and focused.choose_by_key(character)


def part_feedback(exercise, variant, result, answer: dict[str, str], lang: str, indent: str = ""):
    """Each graded part's line, as practice and the history both show it: a glyph, the
    part and what is wrong with it; for a choice, the option picked and why it is
    right or not ("✗ your choice: <why>" read as if that sentence had been picked)."""
    from rich.text import Text

    from exercises.grading.marks import full_marks
    from exercises.grading.policy import choice_text
    from tui.i18n import t

    kinds = {part.name: part.kind for part in exercise.parts}
    labels = {part.name: pick(part.label, lang) for part in exercise.parts}
    out = Text()
    for name, part in result.parts.items():
        glyph = part.mark
        if kinds.get(name) == "choice" and part.valid:
            picked = pick(choice_text(exercise, variant, answer.get(name, "")), lang)
            key = "choice-right" if full_marks(part.score) else "choice-wrong"
            out.append(f"{indent}{glyph} " + t(key, lang, option=picked) + "\n", style="bold")
            out.append(f"{indent}  " + pick(part.feedback, lang) + "\n")
            continue
        out.append(f"{indent}{glyph} " + t("part-line", lang, part=labels.get(name, name)), style="bold")
        out.append(pick(part.feedback, lang) + "\n")
    return out
