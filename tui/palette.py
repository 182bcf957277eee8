"""Ctrl+P: every lesson, exercise and glossary term, found by its id or its title in either
language, before the engine has loaded as after (titles live with the exercises,
whose modules import no torch). Shown in the learner's language."""

from __future__ import annotations

import asyncio
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from exercises.text import pick
from tui.i18n import t


def course_entries(lang: str) -> list[tuple[str, list[str], str, tuple[str, str | None]]]:
    """(what is shown, what a search may match, help line, (objective, exercise)) for
    every lesson and exercise, in the course's order."""
    from exercises.catalogue import get
    from exercises.curriculum import OBJECTIVES

    entries = []
    for objective in OBJECTIVES:
        title = pick(objective.title, lang)
        searchable = [objective.id, *objective.title.values()]
        entries.append(
            (
                t("part-line", lang, part=t("tab-lesson", lang)) + title,
                searchable,
                pick(objective.summary, lang),
                (objective.id, None),
            )
        )
        for exercise_id in objective.exercises:
            exercise_title = get(exercise_id).title
            entries.append(
                (
                    t("part-line", lang, part=t("tab-practice", lang)) + pick(exercise_title, lang),
                    [exercise_id, *exercise_title.values()],
                    # the id (what `objectives-tutor exercise` takes) in English only: no
                    # English in the Chinese app, and the id still finds the exercise there
                    title if lang == "zh" else f"{title} · {exercise_id}",
                    (objective.id, exercise_id),
                )
            )
    from exercises.glossary import TERMS, meaning_text

    for term in TERMS:
        entries.append(
            (
                t("part-line", lang, part=t("palette-term", lang)) + pick(term.name, lang),
                [
                    term.id,
                    *term.name.values(),
                    *(name.split(" (")[0].split("（")[0] for name in term.name.values()),
                ],
                meaning_text(term, lang),
                ("glossary", term.id),
            )
        )
    return entries


def _highlight(matcher, display: str) -> Content:
    """The matched letters picked out. Textual's own highlight reads the title as
    markup, which swallowed "[CLS]" and "[SEP]" from exercise titles."""
    content = Content(display)
    score, offsets = matcher.fuzzy_search.match(matcher.query, display)
    if score:
        for offset in offsets:
            if not display[offset].isspace():
                content = content.stylize(matcher._match_style, offset, offset + 1)
    return content


class CourseCommands(Provider):
    """Lessons and exercises for the command palette."""

    async def startup(self) -> None:
        # Import the exercise modules (torch-free) off the event loop's hot path once.
        self.entries = await asyncio.to_thread(course_entries, self.app.lang)  # type: ignore[attr-defined]

    def _open(self, target: tuple[str, str | None]) -> None:
        objective, exercise = target
        if objective == "glossary":
            from tui.screens.glossary import GlossaryScreen

            self.app.push_screen(GlossaryScreen(first=exercise))
            return
        self.app.open_lesson(objective, exercise)  # type: ignore[attr-defined]

    async def discover(self) -> Hits:
        for display, _searchable, help_text, target in self.entries:
            if target[1] is None:  # lessons only; exercises appear when searched
                yield DiscoveryHit(
                    Content(display), partial(self._open, target), text=display, help=Content(help_text)
                )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for display, searchable, help_text, target in self.entries:
            score = min(0.99, max(matcher.match(display), *(matcher.match(text) for text in searchable)))
            if query.strip().lower() in (text.lower() for text in searchable):
                score = 1.0  # an exact id or title comes first
            elif target[0] == "glossary":
                score *= 0.9  # on a tie, the lesson before the term that names it
            if score > 0:
                yield Hit(
                    score,
                    _highlight(matcher, display),
                    partial(self._open, target),
                    text=display,
                    help=Content(help_text),  # Textual reads a str help as markup: "[MASK]" vanished
                )


def palette_screen(placeholder: str, **kwargs):
    """Textual's command palette, its one sentence of its own ("No matches found") in the
    learner's language. Made on demand: textual.command is imported when first needed."""
    from rich.align import Align
    from rich.text import Text
    from textual.command import CommandList, CommandPalette
    from textual.widgets.option_list import Option

    class TutorPalette(CommandPalette):
        def _start_no_matches_countdown(self, search_value: str) -> None:
            # Textual's own (pinned version), with the sentence translated.
            self._stop_no_matches_countdown()

            def _show_no_matches() -> None:
                if search_value:
                    message = Text(t("palette-no-matches", self.app.lang), style="not bold")
                    self.query_one(CommandList).add_option(
                        Option(Align.center(message), disabled=True, id=self._NO_MATCHES)
                    )
                    self._list_visible = True
                else:
                    self._list_visible = False

            self._no_matches_timer = self.set_timer(self._NO_MATCHES_COUNTDOWN, _show_no_matches)

    return TutorPalette(placeholder=placeholder, **kwargs)
