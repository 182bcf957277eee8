"""Chinese text uses full-width punctuation: a half-width ( ) : or , between Chinese reads
as a typo (`最看重 小(0) 41%`, `位置 0, 1, 2 的标签不对`, `自监督  (Self-supervision)`).

The rule, as ``problems`` applies it to a Chinese string:

- flagged: a half-width ``(`` or ``)`` touching a Chinese character (``小(0)``, ``(参考``),
  a half-width ``:`` or ``,`` touching a Chinese character or a full-width mark
  (``位置:token``, ``（行, 列）``, ``）, (``); an English name in parentheses inside
  Chinese ones keeps its own, ``（Causal LM (causal language modelling)）``;
- flagged: a half-width parenthesis separated from Chinese by spaces only
  (``自监督  (Self-supervision)``, ``家  (只看…``);
- flagged: a list of numbers joined by half-width commas and spaces next to Chinese
  (``位置 0, 1, 2 的``: Chinese lists them with ``、``); a thousands separator
  (``1,024 个 token``) is no list.

Code is not Chinese prose and keeps its ASCII punctuation; these runs are taken out first:
text in backticks; anything in square brackets (``[MASK]``, a token list as Python
prints it, ``[我, 们, 用]``); a choice's letter at the start of a line (``A) ``, what the
learner types); a call ``name(...)``; a bracketed tuple, shape, interval or slice whose
content is ASCII with a ``,`` ``:`` or ``.`` in it (``(B, L)``, ``(L,)``, ``[5, 10000)``,
``[:, 1:]``); a dict literal ``{位置: 原词}``; a URL; a token table entry ``0:[CLS]``; and
what follows 如/像 up to the next Chinese (an example of what to type: ``如 2: play, 3: ##ing``,
``像 2,5``). The roster's CSV line ``学号,姓名`` is allowed by name (ALLOWED): its comma is the
file's. A message's ``{parameters}`` are read as a neutral placeholder.

Where the strings come from: every zh message of tui/i18n.py, every ``L(en, zh)`` whose
Chinese is written in the source (f-strings with their fields as placeholders), every
exercise's prompt, hints, part labels and formats and the feedback on its solution and its
scripted wrong answers (a few variants each), the misconceptions, the glossary as drawn,
and the places that wrap a message in punctuation of their own (the lab's result line,
the training lab's probe lines and attention summary).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from exercises.text import pick
from tui.i18n import MESSAGES, t

ROOT = Path(__file__).resolve().parent.parent

HAN = "\u3400-\u9fff\u3000-\u303f\uff00-\uffef“”‘’…—"
_H = f"[{HAN}]"
_CODE = re.compile(
    "|".join(
        [
            r"`[^`]*`",  # code in backticks
            r"\[[^\[\]\n]*\]",  # a list of tokens as Python prints it, [MASK], [CLS]
            r"(?:^|(?<=[\s：；，]))[A-F]\) ",  # a choice's letter, as the learner types it
            r"[A-Za-z_][\w.]*\((?:[^()]|\([^()]*\))*\)",  # a call: name(...)
            rf"[(\[](?:[^()\[\]{HAN}]*[,:.][^()\[\]{HAN}]*)?[)\]]",  # a tuple, shape, interval, slice
            r"\{[^{}]*:[^{}]*\}",  # a dict literal
            r"[a-z]+://\S+",  # a URL
            rf"(?<=[如像])[ \t]*[^{HAN}]+",  # what to type, after 如 / 例如 / 像
            r"\d+:\S+",  # a token table entry: 0:[CLS]
        ]
    )
)
IDEOGRAPH = "[\u3400-\u9fff]"
_TOUCH = re.compile(rf"(?<={IDEOGRAPH})[()]|[()](?={IDEOGRAPH})|(?<={_H})[,:]|[,:](?={_H})")
_SPACED_OPEN = re.compile(rf"{_H}[ \t]+\(")
_SPACED_CLOSE = re.compile(rf"\)[ \t]+{_H}")
_NUMBER_LIST = re.compile(rf"{_H}[ \t]*\d+(?:[ \t]*,[ \t]+\d+)+|\d+(?:[ \t]*,[ \t]+\d+)+[ \t]*{_H}")
_FIELD = re.compile(r"\{[A-Za-z_]\w*(?:[.\[][^{}]*)?(?:![rs])?(?::[^{}]*)?\}")

ALLOWED = {
    "学号,姓名": "the roster's CSV line as it is typed: its comma is the file's",
}


def problems(text: str, template: bool = False) -> list[str]:
    """Each half-width mark the rule flags in ``text``, with a little context."""
    if template:
        text = _FIELD.sub("\x00", text)
    for allowed in ALLOWED:
        text = text.replace(allowed, "\x01" * len(allowed))
    text = _CODE.sub(lambda m: "\x01" * len(m.group()), text)
    found = []
    for pattern in (_TOUCH, _SPACED_OPEN, _SPACED_CLOSE, _NUMBER_LIST):
        for match in pattern.finditer(text):
            found.append(text[max(0, match.start() - 10) : match.end() + 10].replace("\x01", "·"))
    return found


@pytest.mark.parametrize(
    "text",
    [
        "因果 LM（GPT）：家  (只看空位左边：…)",
        "最看重 小(0) 41%、猫(1) 34%",
        "✓ 02 clm_shift  通过  (0.9 秒，调用 81 次)",
        "（位置: token）",
        "输入为（位置:token）0:[CLS] 1:猫",
        "位置 0, 1, 2, 3, 4 的标签不对",
        "选中了位置 8, 12 所在的词",
        "自监督  (Self-supervision)",
        "错了（行, 列）",
    ],
)
def test_the_rule_flags_what_the_tester_saw(text):
    assert problems(text)


@pytest.mark.parametrize(
    "text",
    [
        "形状 (B, L) 的张量，(L,) 也行",
        "输入为（位置：token）0:[CLS] 1:猫 2:[SEP]",
        "如 2: play, 3: ##ing，或一行标签",
        "取自 [5, 10000)，logits[:, :-1] 与 sqrt(64)",
        "labels = {位置: 原词}；",
        "位置 0、1、2 的标签不对",
        "自监督（Self-supervision）",
        "应为像 2,5 这样的位置",
        "GPT-2 是 1,024 个 token",
    ],
)
def test_the_rule_leaves_code_and_chinese_alone(text):
    assert problems(text) == []


def _report(found: dict[str, list[str]]) -> str:
    return "\n".join(f"{where}: {hits}" for where, hits in found.items())


def test_every_zh_message():
    found = {key: problems(pick(pair, "zh"), template=True) for key, pair in MESSAGES.items()}
    found = {key: hits for key, hits in found.items() if hits}
    assert not found, _report(found)


def _written(node: ast.expr) -> str | None:
    """A string as the source writes it; an f-string's fields become a placeholder."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(value.value if isinstance(value, ast.Constant) else "\x00" for value in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _written(node.left), _written(node.right)
        return None if left is None or right is None else left + right
    return None


def test_every_zh_pair_written_in_the_source():
    found = {}
    files = sorted((ROOT / "exercises").rglob("*.py")) + sorted((ROOT / "tui").rglob("*.py"))
    assert len(files) > 100
    pairs = 0
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "L" and len(node.args) == 2:
                zh = _written(node.args[1])
                if zh is None:
                    continue
                pairs += 1
                hits = problems(zh, template=True)
                if hits:
                    found[f"{path.relative_to(ROOT)}:{node.lineno}"] = hits
    assert pairs > 1000
    assert not found, _report(found)


def _exercise_texts():
    """Every Chinese text an exercise shows, for a few variants: prompt, hints, parts,
    and the feedback on its solution and on each scripted wrong answer."""
    from exercises.catalogue import EXERCISES
    from exercises.grading.diagnoses import explain
    from tests.exercise_scripts import SCRIPTS

    for exercise in EXERCISES:
        for part in exercise.parts:
            yield f"{exercise.id} part {part.name}", part.label
            yield f"{exercise.id} part {part.name} format", part.example
        for seed in range(4):
            variant = exercise.generate(seed)
            where = f"{exercise.id} seed {seed}"
            yield f"{where} prompt", variant.prompt
            for hint in exercise.hints(variant):
                yield f"{where} hint", hint
            if exercise.kind == "reflection":
                continue
            solution = exercise.solve(variant)
            answers = [("solution", solution)]
            for name, script in SCRIPTS.get(exercise.id, []):
                answer = script(variant, solution)
                if answer is not None:
                    answers.append((name, {**solution, **answer}))
            for name, answer in answers:
                result = exercise.grade(variant, answer)
                yield f"{where} {name} feedback", result.feedback
                for part_name, part in result.parts.items():
                    yield f"{where} {name} {part_name}", part.feedback
                for code in result.diagnoses:
                    yield f"{where} {name} misconception {code}", explain(code)


def test_every_exercise_as_a_learner_reads_it():
    found = {}
    seen = 0
    for where, text in _exercise_texts():
        seen += 1
        hits = problems(pick(text, "zh"))
        if hits:
            found.setdefault(where, hits)
    assert seen > 300
    assert not found, _report(found)


def test_the_glossary_as_drawn():
    from tui.screens.glossary import glossary_text

    shown = glossary_text("zh").plain
    assert "自监督" in shown and "Self-supervision" in shown
    assert problems(shown) == []
    english = glossary_text("en").plain
    assert "Self-supervision  (自监督)" in english  # the English page keeps its own form


def test_the_code_lab_result_line():
    from tui.lab_render import render_result

    result = SimpleNamespace(
        status="pass", seconds=0.9, calls=81, message=None, failure=None, passed=True, exact=None, printed=""
    )
    task = SimpleNamespace(number=2, id="clm_shift")
    head = render_result(result, task, "zh").renderables[0].plain
    assert "0.9 秒，调用 81 次" in head
    assert problems(head) == []
    assert "(0.9 s, 81 calls)" in render_result(result, task, "en").renderables[0].plain


class _View:
    """What ``looks_at`` reads of an attention map."""

    objective = "clm"
    tokens = ["小", "猫", "在", "睡"]

    def matrix(self, layer, head):
        import numpy

        return numpy.array([[1.0, 0, 0, 0], [0.5, 0.5, 0, 0], [0.2, 0.3, 0.5, 0], [0.41, 0.34, 0.15, 0.1]])

    def top(self, row, layer, head):
        return [(0, 0.41), (1, 0.34)]


def test_the_attention_summary():
    from tui.figures.train_lab import looks_at

    line = looks_at(_View(), 3, None, None, "zh").plain
    assert "小" in line and "41%" in line and "猫" in line
    assert problems(line) == []
    assert "小(0) 41%, 猫(1) 34%" in looks_at(_View(), 3, None, None, "en").plain


def test_the_probe_lines():
    from tui.commands.train import probe_text

    result = {
        "corpus": "zh",
        "unknown": [],
        "models": {
            "clm": {"answer": ["家"], "method": "left-context"},
            "mlm": {"answer": ["都"], "method": "mask"},
        },
    }
    shown = probe_text(result, "zh").plain
    assert "只看空位左边" in shown and "两侧都能看" in shown
    assert problems(shown) == [], shown
    english = probe_text(result, "en").plain
    assert "(the blank is a [MASK]; it reads both sides)" in english


def test_the_continue_entry_after_a_question_title():
    zh = t("continue-exercise", "zh", tab=t("tab-practice", "zh"), exercise="位置 i 能看到谁？", seed=1)
    en = t(
        "continue-exercise", "en", tab=t("tab-practice", "en"), exercise="Where can position i look?", seed=1
    )
    assert "？，" not in zh and "1" in zh
    assert "?," not in en and "1" in en


_DOUBLED = re.compile(r"[。？！][ \t]*[。，]")


def test_no_sentence_ends_twice():
    """A sentence's own end followed by the text's 。 or ， reads as a typo: the whole-word
    prompt listed the words "… / 词 / 。" and then ended with its own 。."""
    found = {}
    for where, text in _exercise_texts():
        hits = _DOUBLED.findall(pick(text, "zh"))
        if hits:
            found.setdefault(where, hits)
    assert not found, _report(found)


def test_the_whole_word_prompt_quotes_its_words():
    from exercises.catalogue import get

    exercise = get("whole-word-masking")
    prompts = [exercise.generate(seed).prompt for seed in range(6)]
    chinese = [prompt["zh"] for prompt in prompts if "中文 BERT" in prompt["zh"]]
    assert chinese, "no Chinese sentence among the first variants"
    for prompt in prompts:
        assert "。。" not in prompt["zh"] and " ..\n" not in prompt["en"] and " .." not in prompt["en"]


def test_a_wrong_prediction_says_the_positions_in_chinese():
    """The figures' predict-then-reveal check names the engine's positions: 、 in zh."""
    from engine.tokens import LESSON_SENTENCE
    from exercises import predictions

    questions = [
        predictions.visibility("causal", 6, 0, 3),
        predictions.visibility("prefix", 8, 3, 1),
        predictions.mlm_loss(LESSON_SENTENCE, 0, 0.5, True),
    ]
    for question in questions:
        assert len(question.expected) > 1
        verdict = predictions.grade(question, "5")
        assert not verdict.correct
        assert problems(pick(verdict.feedback, "zh")) == [], pick(verdict.feedback, "zh")
        assert ", ".join(map(str, question.expected)) in pick(verdict.feedback, "en")


def test_the_chinese_lessons():
    """The lesson texts as Markdown: code blocks (```) are code and left out."""
    found = {}
    lessons = sorted((ROOT / "exercises" / "lessons").glob("*.zh.md"))
    assert len(lessons) >= 8
    for path in lessons:
        text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
        for number, line in enumerate(text.splitlines(), start=1):
            hits = problems(line)
            if hits:
                found[f"{path.name} line {number} (code blocks left out)"] = hits
    assert not found, _report(found)
