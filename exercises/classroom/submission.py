"""Reading what students hand in (submissions) and what the exam keeps on disk
(autosaves): the same shape, checked field by field, bounded in size, so that a
bad file is one rejected file with its reason and never an exception upstream.

A submission's fields (docs/formats.md): kind, format, quiz, quiz_hash, rules,
student, answers {"0": {exercise, seed, parts {part: text}}}, timeline
{"0": [{at, part, length}]}, started_at, submitted_at, app_version,
engine_version, signature."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from exercises.classroom.quiz import ClassroomError
from exercises.lab.grading import MAX_SOURCE_CHARS, SOURCE_PART
from exercises.text import L, reason_of

MAX_BYTES = 2_000_000
MAX_QUESTIONS = 200
MAX_PARTS = 20
MAX_TEXT = 20_000  # an answer's part; a lab task's file (part "source") may hold MAX_SOURCE_CHARS
MAX_EVENTS = 20_000
QUESTION_KEY = re.compile(r"[0-9]{1,3}")  # ASCII digits only: not '²', '①' or 5,000 digits
KINDS = ("submission", "autosave")


class SubmissionError(ClassroomError):
    """A submission that cannot be graded; reported per file."""


def _error(en: str, zh: str) -> SubmissionError:
    return SubmissionError(L(en, zh))


@dataclass(frozen=True)
class Answer:
    parts: dict[str, str]
    exercise: str | None = None  # the question the student saw (None in files of format 1)
    seed: int | None = None
    variant: str | None = None  # variant_fingerprint of what the student saw


@dataclass(frozen=True)
class Submission:
    quiz: str
    student: str
    answers: dict[int, Answer]
    timeline: dict[str, list[dict]] = field(default_factory=dict)
    started_at: float | None = None
    submitted_at: float | None = None
    quiz_hash: str | None = None
    signature: str | None = None
    kind: str = "submission"
    rules: str | None = None  # the handout's rules_hash as the student's copy had it
    payload: dict = field(default_factory=dict, compare=False, repr=False)  # as read, for the signature


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _short(value: object) -> str:
    return repr(value)[:30]


def _parts(key: str, parts: object) -> dict[str, str]:
    if not isinstance(parts, dict) or len(parts) > MAX_PARTS:
        raise _error(
            f"answer {key}: the parts must be {{part: text}}", f"第 {key} 题答案：各部分必须是 {{部分: 文本}}"
        )
    for name, text in parts.items():
        if not isinstance(text, str) or len(name) > 40:
            raise _error(
                f"answer {key}: part {_short(name)} must be text",
                f"第 {key} 题答案：部分 {_short(name)} 必须是文本",
            )
        if len(text) > (MAX_SOURCE_CHARS if name == SOURCE_PART else MAX_TEXT):
            raise _error(
                f"answer {key}: part {_short(name)} is too long", f"第 {key} 题答案：部分 {_short(name)} 太长"
            )
    return dict(parts)


def _answers(raw: object) -> dict[int, Answer]:
    if not isinstance(raw, dict) or len(raw) > MAX_QUESTIONS:
        raise _error("'answers' must map question numbers to answers", "'answers' 必须把题号映射到答案")
    answers: dict[int, Answer] = {}
    for key, value in raw.items():
        if not QUESTION_KEY.fullmatch(key):
            raise _error(
                f"answer key {_short(key)} is not a question number", f"答案的键 {_short(key)} 不是题号"
            )
        if isinstance(value, dict) and "parts" in value:
            exercise, seed = value.get("exercise"), value.get("seed")
            if not isinstance(exercise, str) or len(exercise) > 80:
                raise _error(
                    f"answer {key}: 'exercise' must be an exercise id",
                    f"第 {key} 题答案：'exercise' 必须是练习编号",
                )
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
                raise _error(
                    f"answer {key}: 'seed' must be a whole number", f"第 {key} 题答案：'seed' 必须是整数"
                )
            fingerprint = value.get("variant")
            if fingerprint is not None and (not isinstance(fingerprint, str) or len(fingerprint) > 64):
                raise _error(
                    f"answer {key}: 'variant' must be text", f"第 {key} 题答案：'variant' 必须是文本"
                )
            answers[int(key)] = Answer(_parts(key, value["parts"]), exercise, seed, fingerprint)
        else:
            answers[int(key)] = Answer(_parts(key, value))
    return answers


def _timeline(raw: object) -> dict[str, list[dict]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or len(raw) > MAX_QUESTIONS:
        raise _error("'timeline' must map question numbers to events", "'timeline' 必须把题号映射到事件")
    count = 0
    for key, events in raw.items():
        if not QUESTION_KEY.fullmatch(key) or not isinstance(events, list):
            raise _error(
                f"timeline {_short(key)}: not a question number with a list",
                f"时间线 {_short(key)}：不是题号加列表",
            )
        count += len(events)
        for event in events:
            if not isinstance(event, dict) or not _number(event.get("at")):
                raise _error(
                    f"timeline {key}: every event needs a time 'at'", f"时间线 {key}：每个事件都要有时间 'at'"
                )
    if count > MAX_EVENTS:
        raise _error("the timeline is too long", "时间线太长")
    return raw


def parse_submission(payload: object, kind: str = "submission") -> Submission:
    """Validate a submission's (or an autosave's) shape. Anything else in it, a
    claimed score say, is ignored: grading trusts no number a student wrote."""
    if not isinstance(payload, dict):
        raise _error("not a JSON object", "不是 JSON 对象")
    if payload.get("kind", kind) != kind:
        raise _error(
            f"it is an {payload.get('kind')} file, not a {kind}",
            f"这是 {payload.get('kind')} 文件，不是 {kind}",
        )
    quiz, student = payload.get("quiz"), payload.get("student")
    if not isinstance(quiz, str) or len(quiz) > 200:
        raise _error("missing 'quiz'", "缺少 'quiz'")
    if not isinstance(student, str) or not student.strip() or len(student) > 200:
        raise _error("missing 'student'", "缺少 'student'")
    times = {}
    for key in ("started_at", "submitted_at"):
        value = payload.get(key)
        if value is not None and not _number(value):
            raise _error(
                f"'{key}' must be a time in seconds, not {_short(value)}",
                f"'{key}' 必须是以秒计的时间，而不是 {_short(value)}",
            )
        times[key] = None if value is None else float(value)
    quiz_hash, signature, rules = payload.get("quiz_hash"), payload.get("signature"), payload.get("rules")
    for name, value in (("quiz_hash", quiz_hash), ("signature", signature), ("rules", rules)):
        if value is not None and (not isinstance(value, str) or len(value) > 128):
            raise _error(f"'{name}' must be text", f"'{name}' 必须是文本")
    return Submission(
        quiz,
        student,
        _answers(payload.get("answers")),
        _timeline(payload.get("timeline")),
        times["started_at"],
        times["submitted_at"],
        quiz_hash,
        signature,
        kind,
        rules,
        payload,
    )


# What Python's JSON reader says (its English only), in zh: what a hand-edited file gets wrong.
JSON_ERRORS_ZH = {
    "Expecting value": "这里应当是一个值",
    "Expecting ',' delimiter": "这里少了逗号",
    "Expecting ':' delimiter": "这里少了冒号",
    "Expecting property name enclosed in double quotes": "键名要用双引号括起来",
    "Unterminated string starting at": "字符串没有结束引号",
    "Invalid control character at": "字符串里有控制字符",
    "Invalid \\escape": "无效的转义",
    "Invalid \\uXXXX escape": "无效的 \\u 转义",
    "Extra data": "JSON 结束后还有多余内容",
}


def read_json(path: Path) -> object:
    """The JSON in ``path``; SubmissionError for anything unreadable, huge or absurdly nested."""
    from exercises.files import FileRefused, FileTooLarge, read_regular

    try:
        data = read_regular(path, MAX_BYTES)
    except FileTooLarge:
        raise _error(
            f"larger than {MAX_BYTES // 1_000_000} MB", f"超过 {MAX_BYTES // 1_000_000} MB"
        ) from None
    except FileRefused as error:  # a FIFO would block grading for ever, a device never end
        raise _error(error.why["en"], error.why["zh"]) from None
    except FileNotFoundError:
        raise _error("there is no such file", "没有这个文件") from None
    except IsADirectoryError:
        raise _error("it is a folder", "这是文件夹") from None
    except PermissionError:
        raise _error("not allowed to read it", "没有读取权限") from None
    except OSError as error:
        why = reason_of(error)
        raise _error(f"cannot read it: {why['en']}", f"无法读取：{why['zh']}") from None
    if len(data) > MAX_BYTES:
        raise _error(f"larger than {MAX_BYTES // 1_000_000} MB", f"超过 {MAX_BYTES // 1_000_000} MB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _error("not UTF-8 text", "不是 UTF-8 文本") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise _error(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}",
            f"不是有效的 JSON：第 {error.lineno} 行第 {error.colno} 列，{JSON_ERRORS_ZH.get(error.msg, error.msg)}",
        ) from None
    except (ValueError, RecursionError):  # a 5,000-digit number, nesting 100,000 deep
        raise _error(
            "not valid JSON (a number too long or nesting too deep)", "不是有效的 JSON（数字太长或嵌套太深）"
        ) from None


def is_autosave(path: Path, payload: object = None) -> bool:
    return path.name.endswith(".autosave.json") or (
        isinstance(payload, dict) and payload.get("kind") == "autosave"
    )


def load_submission(path: Path) -> Submission:
    return parse_submission(read_json(path))
