"""mask-matrix: write the n×n causal or prefix-LM mask (1 = blocked), graded
cell by cell with the wrong cells listed."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from exercises.grading import parsing
from exercises.grading.model import Exercise, Parsed, Part, PartResult, Rubric, Variant, question_key_of
from exercises.grading.scoring import right
from exercises.items.banks import rng_for
from exercises.text import L

ID = "mask-matrix"
MAX_LISTED_CELLS = 8


def _draw(seed: int) -> dict:
    if seed == 0:
        # the action item of the section “Self-supervision and LM objectives”: length 8 -> 4
        return {"kind": "causal", "n": 4, "prefix": 0}
    rng = rng_for(ID, seed)
    kind = rng.choice(("causal", "prefix"))
    n = rng.randint(3, 7)
    return {"kind": kind, "n": n, "prefix": rng.randint(2, n - 1) if kind == "prefix" else 0}


def _fair(params: dict) -> bool:
    """A prefix-LM mask is worth drawing only with a prefix of 2 or more (a
    prefix of 1 is the causal mask) that leaves something after it."""
    if params["kind"] == "prefix":
        return 2 <= params["prefix"] <= params["n"] - 1
    return params["kind"] == "causal" and params["prefix"] == 0 and params["n"] >= 2


def all_questions() -> list[dict]:
    causal = [{"kind": "causal", "n": n, "prefix": 0} for n in range(3, 8)]
    prefix = [{"kind": "prefix", "n": n, "prefix": p} for n in range(3, 8) for p in range(2, n)]
    return causal + prefix


@functools.lru_cache(maxsize=256)
def _mask_rows(kind: str, n: int, prefix: int) -> tuple[tuple[int, ...], ...]:
    """The engine's mask as 0/1 rows, once per question (the pool has 20; seeds repeat them)."""
    import torch  # the engine (torch) only where it computes

    from engine.masks import mask_for

    return tuple(map(tuple, mask_for(kind, n, prefix).to(torch.int).tolist()))


@functools.lru_cache(maxsize=4096)
def _generate(seed: int) -> Variant:
    params = _draw(seed)
    kind, n, prefix = params["kind"], params["n"], params["prefix"]
    matrix = [list(row) for row in _mask_rows(kind, n, prefix)]
    data = {"kind": kind, "n": n, "prefix": prefix, "mask": matrix}
    what = (
        L("the causal attention mask", "因果注意力掩码")
        if kind == "causal"
        else L(f"the prefix-LM mask with prefix length {prefix}", f"前缀语言模型掩码（前缀长度 {prefix}）")
    )
    prompt = L(
        f"Write {what['en']} for a sequence of {n} tokens: {n} rows (query positions 0..{n - 1}) of {n} "
        "cells (key positions), 1 = blocked (may not look), 0 = may look.",
        f"序列长度为 {n}，写出它的{what['zh']}：{n} 行（查询位置 0..{n - 1}），每行 {n} 个格子（键位置），"
        "1 表示被遮盖（不能看），0 表示可以看。",
    )
    return Variant(ID, seed, data, prompt, question_key_of(params))


def diff_cells(given: list[list[int]], expected: list[list[int]]) -> list[tuple[int, int]]:
    """The (row, column) cells where two masks differ."""
    return [
        (row, column)
        for row, cells in enumerate(expected)
        for column, cell in enumerate(cells)
        if given[row][column] != cell
    ]


def blocks_diagonal(wrong: list[tuple[int, int]], given: list[list[int]], n: int, prefix: int) -> bool:
    """Is the answer right but for a blocked diagonal ("a position may not see itself")? Every
    wrong cell is a diagonal cell blocked, and they cover the diagonal after the prefix (row 0,
    which would then see nothing, may be left open), two cells at least: one blocked cell is a slip."""
    after = {(row, row) for row in range(max(1, prefix), n)}
    return (
        len(wrong) >= 2
        and all(row == column and given[row][column] == 1 for row, column in wrong)
        and after <= set(wrong)
    )


class MaskMatrix(Exercise):
    def matrix_size(self, variant: Variant) -> int:
        return variant.data["n"]

    def variant_is_fair(self, variant: Variant) -> bool:
        return _fair(variant.data)

    def pool_size(self) -> int:
        return len(all_questions())

    def solve(self, variant: Variant) -> dict[str, str]:
        return {"matrix": "\n".join(" ".join(map(str, row)) for row in variant.data["mask"])}

    def parse(self, part: str, text: str, variant: Variant) -> Parsed:
        n = variant.data["n"]
        value = parsing.matrix(text, n)
        if value is None:
            return Parsed(
                None,
                L(
                    f"Expected {n} rows of {n} cells, 1 or 0 (rows on separate lines or split by ';').",
                    f"需要 {n} 行、每行 {n} 个 1 或 0（每行一行，或用“;”分隔）。",
                ),
            )
        return Parsed(value)

    def grade_parts(
        self, variant: Variant, parsed: dict[str, Parsed], raw: Mapping[str, str]
    ) -> tuple[dict[str, PartResult], list[str]]:
        data = variant.data
        given, expected, n = parsed["matrix"].value, data["mask"], data["n"]
        wrong = diff_cells(given, expected)
        if not wrong:
            return {"matrix": right()}, []
        codes = []
        transposed = [list(row) for row in zip(*expected, strict=True)]
        inverted = [[1 - cell for cell in row] for row in expected]
        causal = [[1 if column > row else 0 for column in range(n)] for row in range(n)]
        nothing_blocked = not any(map(any, given))
        if given == transposed:
            codes.append("mask-transposed")
        elif given == inverted:
            codes.append("mask-inverted")
        elif blocks_diagonal(wrong, given, n, data["prefix"]):
            codes.append("mask-blocks-diagonal")
        elif (
            data["kind"] == "causal" and nothing_blocked
        ):  # also the grid left (or toggled back) as it started
            codes.append("causal-sees-future")
        elif data["kind"] == "prefix" and given == causal:
            codes.append("prefix-ignored")
        elif data["kind"] == "prefix" and nothing_blocked:
            codes.append("prefix-fully-bidirectional")
        cells = ", ".join(f"({r},{c})" for r, c in wrong[:MAX_LISTED_CELLS])
        more = f" +{len(wrong) - MAX_LISTED_CELLS}" if len(wrong) > MAX_LISTED_CELLS else ""
        return {
            "matrix": PartResult(
                1 - len(wrong) / (n * n),
                True,
                L(
                    f"{len(wrong)} of {n * n} cells wrong (row, column): {cells}{more}.",
                    f"{n * n} 个格子中有 {len(wrong)} 个不对（行，列）：{cells}{more}。",
                ),
            )
        }, codes


RUBRIC = Rubric(
    full=L("Every cell right: 1 exactly where the mask blocks.", "每个格子都对：恰好在被遮盖处为 1。"),
    partial=(L("The share of cells right.", "按写对的格子比例给分。"),),
    caps=(
        ("causal-sees-future", 0.5),
        ("mask-transposed", 0.5),
        ("mask-inverted", 0.5),
        ("mask-blocks-diagonal", 0.5),
        ("prefix-ignored", 0.5),
        ("prefix-fully-bidirectional", 0.5),
    ),
)


EXERCISES = (
    MaskMatrix(
        id=ID,
        make_variant=_generate,
        draw=_draw,
        rubric=RUBRIC,
        kind="matrix",
        title=L("Draw the mask matrix", "画出掩码矩阵"),
        parts=(
            Part(
                "matrix",
                L("mask matrix", "掩码矩阵"),
                L(
                    "one row per line (or split by ;), e.g. 0 1 / 1 0",
                    "每行一行（或用 ; 分隔），如 0 1 / 1 0",
                ),
                kind="matrix",
            ),
        ),
        from_lesson=True,
        hint_texts=(
            L(
                "Row q, column k: may position q look at position k?",
                "第 q 行第 k 列：位置 q 能不能看位置 k？",
            ),
            L("A position always sees itself: the diagonal is 0.", "位置总能看到自己：对角线都是 0。"),
            L(
                "Causal: 1 exactly where the column is greater than the row. Prefix LM: also 0 in every column inside "
                "the prefix.",
                "因果：恰好在列号大于行号的地方为 1。前缀语言模型：前缀内的每一列也都是 0。",
            ),
        ),
    ),
)
