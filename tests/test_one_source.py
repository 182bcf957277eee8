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
        (r"stdout\.write\(json\.dumps\(", "tui/render.py"),  # every command prints JSON through emit_json
        (r"^BERT_SPLIT = ", "engine/mlm.py"),
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
        (r"\b0\.8\b.*\b0\.1\b", {"engine/mlm.py"}),  # the 80/10/10 split typed again
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


def test_the_review_text_follows_the_schedule():
    from exercises.learner.review import INTERVALS_DAYS
    from tui.i18n import listing, t

    for lang in ("en", "zh"):
        text = t("review-empty", lang, days=listing(INTERVALS_DAYS, lang))
        assert all(str(days) in text for days in INTERVALS_DAYS)
