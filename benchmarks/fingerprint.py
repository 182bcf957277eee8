"""The grading fingerprint: every exercise's variants and grades over many seeds and
answers, and the figures' predictions, written as JSON lines so that a change to the
readers, the scoring or the diagnoses can be compared with what came before, answer by
answer (``--compare``). Every difference it prints must be an intended fix.

The answers are made from each variant's own solution, so the same set is graded before
and after a change: the solution; per part a slip, a dropped and a doubled token, the
numbers one off, reversed tokens, the part left empty, another part's text, "???";
the scripted misconceptions of ``tests/exercise_scripts.py``; every option letter of a
concept check; and the forms people write that issue 24 lists (Chinese choice phrasing,
pasted tensors, spaced conjunctions, "all positions", T5's <X>/<Y> ...).

    .venv/bin/python benchmarks/fingerprint.py --seeds 150 --out /tmp/before.jsonl
    .venv/bin/python benchmarks/fingerprint.py --seeds 150 --compare /tmp/before.jsonl
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import re
import sys

import repository  # noqa: F401  (first: the project, not this folder's engine.py)

# Forms from outside the engine's own output, tried in every part (issue 24's list and more).
FORMS = (
    "选项B。",
    "选B",
    "答案是 B",
    "答案：C",
    "我选 A",
    "inf",
    "enc",
    "B 和 E",
    "B和E",
    "B 与 E",
    "all positions",
    "every position",
    "所有位置",
    "B at 1, E at 4",
    "0,1,2,3,4",
    "A B C D E",
    "tensor([1, 4])",
    "[[0, 1], [0, 0]]",
    "none",
    "8.5",
    "不知道",
)


def _numbers_shifted(text: str, by: int) -> str:
    return re.sub(r"\d+", lambda m: str(max(0, int(m.group(0)) + by)), text)


def mutations(text: str) -> list[str]:
    tokens = text.split()
    found = [
        text,
        text + " 1",
        "???",
        " ".join(tokens[:-1]),
        " ".join([*tokens[:1], *tokens]),
        " ".join(reversed(tokens)),
        _numbers_shifted(text, 1),
        _numbers_shifted(text, -1),
        text.replace(" ", "，"),
        text.replace(" ", ""),
    ]
    return list(dict.fromkeys(found))


def pasted_forms(text: str) -> list[str]:
    """What the lessons' code prints for this answer: a tensor, a list, a numpy array."""
    rows = [row.split() for row in text.splitlines() if row.strip()]
    if len(rows) > 1 and all(cell in ("0", "1") for row in rows for cell in row):
        as_bool = ",\n        ".join(
            "[" + ", ".join("True" if cell == "1" else "False" for cell in row) + "]" for row in rows
        )
        as_int = ", ".join("[" + ", ".join(row) + "]" for row in rows)
        return [f"tensor([{as_bool}])", f"[{as_int}]", f"array([{as_int}])", f"tensor([{as_int}])"]
    numbers = re.findall(r"\d+", text)
    if numbers and re.fullmatch(r"[\d,\s]+", text):
        listed = ", ".join(numbers)
        return [f"tensor([{listed}])", f"[{listed}]", f"array([{listed}])"]
    return []


def answers_for(exercise, variant) -> list[dict[str, str]]:
    from tests.exercise_scripts import SCRIPTS

    solution = exercise.solve(variant)
    found = [dict(solution)]
    names = list(solution)
    for part, text in solution.items():
        for changed in [*mutations(text), *pasted_forms(text), *FORMS]:
            found.append({**solution, part: changed})
        found.append({name: solution[name] for name in names if name != part})  # this part unanswered
        for other in names:
            if other != part:
                found.append({**solution, part: solution[other]})
    for letter in "ABCDEF"[: len(variant.data.get("order", ()))]:
        found.append({"choice": letter})
    for _code, script in SCRIPTS.get(exercise.id, ()):
        wrong = script(variant, solution)
        if wrong is not None:
            found.append({**solution, **wrong})
    unique = {json.dumps(answer, sort_keys=True, ensure_ascii=False): answer for answer in found}
    return list(unique.values())


def result_record(result) -> dict:
    en, zh = result.to_json("en"), result.to_json("zh")
    return {
        "score": en["score"],
        "valid": en["valid"],
        "diagnoses": en["diagnoses"],
        "parts": {
            name: [part["score"], part["valid"], part["feedback"], zh["parts"][name]["feedback"]]
            for name, part in en["parts"].items()
        },
        "feedback": [en["feedback"], zh["feedback"]],
    }


def exercise_records(seeds: int):
    from exercises.catalogue import EXERCISES

    for exercise in EXERCISES:
        if not exercise.graded:
            continue
        for seed in range(seeds if exercise.id != "trainlab-predict" else 2):
            variant = exercise.generate(seed)
            yield {
                "key": f"{exercise.id}|{seed}|variant",
                "value": {"data": variant.data, "prompt": variant.prompt, "question": variant.question},
            }
            for answer in answers_for(exercise, variant):
                key = f"{exercise.id}|{seed}|{json.dumps(answer, sort_keys=True, ensure_ascii=False)}"
                yield {"key": key, "value": result_record(exercise.grade(variant, answer))}


def prediction_questions():
    from exercises import predictions

    for kind in ("causal", "bidirectional", "prefix"):
        for n in range(2, 10):
            for prefix in range(0, n + 1) if kind == "prefix" else (0,):
                for row in range(n):
                    yield predictions.visibility(kind, n, prefix, row)
    ids = [101, 2023, 2003, 1037, 7099, 102, 4821, 17]
    for position in range(len(ids) - 1):
        yield predictions.clm_label(ids, ids[1:], position, 0)
    for seed in range(6):
        yield predictions.mlm_loss(
            "the cat sat on the mat and the dog sat on the log", seed, 0.3, seed % 2 == 0
        )
        yield predictions.span_start("A B C D E F G H I J", None, 0.3, 2.0, seed)
    for prefix in range(0, 7):
        yield predictions.prefix_loss_start("A B C D E F G", prefix)


def prediction_answers(question) -> list[str]:
    expected = question.expected_text()
    n = len(question.tokens) or (question.context[1] if question.figure == "visibility" else 8)
    found = [
        expected,
        *mutations(expected),
        "0-" + str(n - 1),
        ", ".join(map(str, range(n))),
        ", ".join(map(str, range((question.row or 0) + 1))),
        ", ".join(map(str, range(question.row or 0))),
        ", ".join(map(str, range((question.row or 0) + 2))),
        *FORMS,
    ]
    return list(dict.fromkeys(found))


def prediction_records():
    from exercises import predictions

    for question in prediction_questions():
        name = json.dumps([question.figure, question.context, question.row], ensure_ascii=False)
        for answer in prediction_answers(question):
            verdict = predictions.grade(question, answer)
            yield {
                "key": f"prediction|{name}|{answer}",
                "value": {
                    "valid": verdict.valid,
                    "correct": verdict.correct,
                    "diagnoses": list(verdict.diagnoses),
                    "feedback": verdict.feedback,
                },
            }


def write(seeds: int, out: pathlib.Path) -> int:
    count = 0
    with out.open("w", encoding="utf-8") as file:
        for record in (*exercise_records(seeds), *prediction_records()):
            file.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
            count += 1
    return count


def compare(seeds: int, before: pathlib.Path, limit: int) -> int:
    old = {}
    with before.open(encoding="utf-8") as file:
        for line in file:
            record = json.loads(line)
            old[record["key"]] = record["value"]
    changed: dict[str, list[tuple[str, dict, dict]]] = collections.defaultdict(list)
    seen = 0
    for record in (*exercise_records(seeds), *prediction_records()):
        key, value = record["key"], json.loads(json.dumps(record["value"], ensure_ascii=False))
        if key not in old:
            continue
        seen += 1
        if old[key] != value:
            changed[key.split("|", 1)[0]].append((key, old[key], value))
    print(f"{seen} records compared, {sum(map(len, changed.values()))} differ")
    for name, rows in sorted(changed.items()):
        print(f"\n== {name}: {len(rows)} differ")
        kinds: dict[str, list] = collections.defaultdict(list)
        for row in rows:
            kinds[_kind_of_change(row[1], row[2])].append(row)
        for kind, found in sorted(kinds.items(), key=lambda item: -len(item[1])):
            print(f"   {len(found):6d}  {kind}")
            for key, a, b in found[:limit]:
                print(f"           - {key[:200]}")
                print(f"             before: {_short(a)}")
                print(f"             after:  {_short(b)}")
    return 0


def _kind_of_change(a: dict, b: dict) -> str:
    if "data" in a:
        return "variant changed"
    parts = []
    for field in ("valid", "correct", "score", "diagnoses"):
        if field in a and a.get(field) != b.get(field):
            parts.append(f"{field} {a.get(field)} -> {b.get(field)}")
    if parts:
        return "; ".join(parts)
    if "parts" not in a:
        return "feedback (prediction)"
    changed = sorted(name for name in a["parts"] if a["parts"][name] != b["parts"].get(name))
    if changed:
        return "part feedback: " + ", ".join(changed)
    return "overall feedback of an unread answer" if not a["valid"] else "overall feedback"


def _short(value: dict) -> str:
    if "data" in value:
        return json.dumps(value, ensure_ascii=False)[:300]
    keep = {k: value[k] for k in ("score", "valid", "correct", "diagnoses") if k in value}
    feedback = value.get("feedback")
    text = feedback[0] if isinstance(feedback, list) else (feedback or {}).get("en", "")
    parts = value.get("parts", {})
    notes = {name: part[2] for name, part in parts.items() if part[0] != 1.0}
    return (
        f"{json.dumps(keep, ensure_ascii=False)} {text[:160]!r} {json.dumps(notes, ensure_ascii=False)[:300]}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=150, help="seeds per exercise (default 150)")
    parser.add_argument("--out", type=pathlib.Path, help="write the fingerprint here")
    parser.add_argument("--compare", type=pathlib.Path, help="compare with a fingerprint written before")
    parser.add_argument("--examples", type=int, default=6, help="examples printed per exercise")
    args = parser.parse_args(argv)
    if args.out:
        print(f"{write(args.seeds, args.out)} records written to {args.out}")
    if args.compare:
        return compare(args.seeds, args.compare, args.examples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
