"""No user-facing string outside the mechanism: a sentence that reaches a screen, a
notification, stdout/stderr or a usage error is a pair said in the learner's language
(``t()``, ``pick()``, ``L()``, ``error.said()``...), never an English literal.

The scan reads tui/ and exercises/ and looks at what is handed to the places text
leaves the program; a literal there must hold no words. What is not a word: the
program's and its commands' names, option names (they are typed as they are)."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("tui", "exercises")

# Where text leaves the program for a person: app notifications, Rich consoles, widgets,
# Rich/Textual text.
SINKS = {"notify", "print", "update", "show_error", "Static", "Label", "Button", "Text", "Content"}
# In tui/, errors whose text main() prints (tui/cli.py). In exercises/ a ValueError is a
# reader's own signal, caught and said by its caller in both languages.
TOLD = {"UsageError", "ArgumentsError", "ArgumentTypeError", "ValueError"}
KEYWORDS = {"message", "title", "label", "placeholder", "renderable", "content", "tooltip"}
# ``X.write(...)`` counts when X is sys.stdout/stderr; ``X.error(...)`` when X is a parser.
STREAMS = {"stdout", "stderr"}

WORD = re.compile(r"[A-Za-z]{2,}|[\u4e00-\u9fff]")
NOT_WORDS = re.compile(r"objectives-tutor(?: [a-z][a-z-]*)*|--[a-z][a-z-]*")

# (file, literal): why it is not a sentence for the learner. Keep it short.
ALLOWED = {
    ("tui/classweb/warm.py", "ready\n"): "a protocol line the class server's parent reads",
    ("tui/figures/span.py", "not spans: "): "caught by the span figure, which says fig-span-bad",
    ("tui/commands/exercise.py", "✓ the catalogue checks out"): (
        "`exercises --check`, the authors' content self-test: its findings are English, "
        "like the code and files they point at"
    ),
    ("exercises/items/loss_sanity.py", "wrote "): "a maintainer's script (python -m ...), not the app",
    ("exercises/facts.py", "usage: "): "a maintainer's script (python -m exercises.facts --record)",
    ("exercises/facts.py", "wrote "): "a maintainer's script (python -m exercises.facts --record)",
    (
        "exercises/training/record_runs.py",
        "usage: ",
    ): "a maintainer's script (python -m exercises.training.record_runs)",
    (
        "exercises/training/record_runs.py",
        "wrote ",
    ): "a maintainer's script (python -m exercises.training.record_runs)",
}


def _name(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _is_sink(call: ast.Call, where: str) -> bool:
    name = _name(call.func)
    if name in SINKS or (name in TOLD and where.startswith("tui/")):
        return True
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if name == "write" and isinstance(receiver, ast.Attribute):
        return receiver.attr in STREAMS
    if name == "error" and receiver is not None:
        return "parser" in ast.unparse(receiver)
    return False


def _literals(node: ast.expr) -> list[str]:
    """The literal text in an expression as it is handed over: a string, the literal
    parts of an f-string, both sides of + and of a conditional. A call's result (``t()``,
    ``pick()``...) or a variable is not looked into: it comes from elsewhere."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [part.value for part in node.values if isinstance(part, ast.Constant)]
    if isinstance(node, ast.BinOp):
        return _literals(node.left) + _literals(node.right)
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []


def strays(source: str, where: str, allowed: dict = ALLOWED) -> list[tuple[int, str]]:
    """(line, literal) of each literal with words handed to a sink, in line order."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _is_sink(node, where):
            handed = list(node.args) + [kw.value for kw in node.keywords if kw.arg in KEYWORDS]
            for literal in (text for arg in handed for text in _literals(arg)):
                if WORD.search(NOT_WORDS.sub("", literal)) and (where, literal) not in allowed:
                    found.append((node.lineno, literal))
    return sorted(found)


def scan(allowed: dict = ALLOWED) -> list[tuple[str, int, str]]:
    return [
        (where, line, literal)
        for folder in FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for where in [str(path.relative_to(ROOT))]
        for line, literal in strays(path.read_text(encoding="utf-8"), where, allowed)
    ]


def test_no_user_facing_string_outside_the_mechanism():
    assert [f"{where}:{line}: {literal!r}" for where, line, literal in scan()] == []


def test_every_allowed_literal_is_still_met():
    """An allow-list entry the scan no longer meets is removed, not kept "just in case"."""
    met = {(where, literal) for where, _, literal in scan(allowed={})}
    assert sorted(set(ALLOWED) - met) == []


def test_the_scan_finds_strays_and_passes_pairs():
    stray = """
import sys
def run(args, lang, console, parser):
    console.print("Training finished")
    sys.stderr.write(f"objectives-tutor train: could not save {args.path}\\n")
    raise UsageError("objectives-tutor quiz grade: " + "no answers")
    parser.error(f"bad value {args.x}")
    self.notify(message="Saved")
    Static("Ready" if args.ok else t("busy", lang))
"""
    assert [literal for _, literal in strays(stray, "tui/x.py")] == [
        "Training finished",
        "objectives-tutor train: could not save ",
        "no answers",
        "bad value ",
        "Saved",
        "Ready",
    ]
    clean = """
import sys
def run(args, lang, console, parser):
    console.print(t("trained", lang))
    sys.stderr.write(f"objectives-tutor train: {t('cannot-save', lang, path=args.path)}\\n")
    raise UsageError("objectives-tutor quiz grade: " + pick(error.text, lang))
    console.print(Text(f"{name} · {score:.0%}", style="bold"))
    Static("", id="status-line", classes="muted")
    handle.write("first frame\\n")
    log.error("session ended by an error: %s", detail)
"""
    assert strays(clean, "tui/x.py") == []
