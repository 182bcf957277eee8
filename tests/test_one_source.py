"""Each fact is stated once: the other places import it (a second copy would drift)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(path for folder in ("engine", "exercises", "tui") for path in (ROOT / folder).rglob("*.py"))


def places(pattern: str) -> list[str]:
    regex = re.compile(pattern)
    return [
        f"{path.relative_to(ROOT)}:{number}"
        for path in SOURCES
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if regex.search(line)
    ]


@pytest.mark.parametrize(
    ("pattern", "home"),
    [
        (r"transformer models learn patterns", "engine/tokens.py"),  # the lesson sentence
        (r"^def pick\(", "exercises/text.py"),
        (r"^def emit_json\(", "tui/render.py"),
        # every command prints JSON through emit_json (which makes control characters inert)
        (r"(print|stdout\.write)\((_inert\()?json\.dumps\(", "tui/render.py"),
        (r"^BERT_SPLIT = ", "engine/settings.py"),
        (r"^MASK_RATE = ", "engine/settings.py"),  # BERT's 15 %, beside its split
        (r"^NOISE_DENSITY = ", "engine/settings.py"),  # T5's 15 %
        (r"^def full_marks\(", "exercises/grading/marks.py"),  # the one definition of "right"
        (r"^INTERVALS_DAYS = ", "exercises/learner/review.py"),
        (r"^MAX_POSITIONS = ", "tui/widgets/mask_view.py"),
    ],
)
def test_stated_once(pattern, home):
    found = places(pattern)
    assert len(found) == 1 and found[0].startswith(home + ":"), found


@pytest.mark.parametrize(
    ("pattern", "allowed"),
    [
        (r"\b0\.8\b.*\b0\.1\b", {"engine/settings.py"}),  # the 80/10/10 split typed again
        # "right" decided again by hand: a score compared with 1 (full_marks says it, with its tolerance)
        (r"score\)? *(>=|==|!=|<) *1(\.0)?\b|\bs >= 1\b|1\.0 - 1e-9", set()),
        # ... or written into a sentence (a concept question about the rule itself may name it;
        # the code lab's reference solutions are code a learner writes, literals included)
        (r"[\"'].*\b80 ?%.*10 ?%", {"exercises/items/concepts.py"}),
        (r"1 day, then 3|1 天后回来", set()),  # the review schedule written out
        (r"(min|max)\(64\b|, 64$", set()),  # the figures' 64-position cap
        (r"\.get\(lang\) or ", {"exercises/text.py"}),  # pick() written again
    ],
)
def test_no_second_copy(pattern, allowed):
    assert [place for place in places(pattern) if place.split(":")[0] not in allowed] == []


def test_the_masking_rate_is_written_once():
    """0.15 as a number in code (BERT's rate, T5's density) is engine.settings' alone; in
    strings and comments (a lesson's "mask_prob 0.15", a docstring) it is text. The training
    lab's measured accuracies are no rate (a cell happens to read 0.15)."""
    import io
    import tokenize

    found = [
        f"{path.relative_to(ROOT)}:{token.start[0]}"
        for path in SOURCES
        if path.relative_to(ROOT).as_posix() not in ("engine/settings.py", "exercises/items/trainlab.py")
        for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
        if token.type == tokenize.NUMBER and token.string in ("0.15", ".15", "15e-2")
    ]
    assert found == []


def test_the_review_text_follows_the_schedule():
    from exercises.learner.review import INTERVALS_DAYS
    from exercises.text import listing
    from tui.i18n import t

    for lang in ("en", "zh"):
        text = t("review-empty", lang, days=listing(INTERVALS_DAYS, lang))
        assert all(str(days) in text for days in INTERVALS_DAYS)
