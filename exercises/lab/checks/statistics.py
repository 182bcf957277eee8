"""The MLM tasks' statistical rules: exact binomial tests on large calls and on many
short ones (the 15 %, the 80/10/10, the random word's distribution).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch

from engine import mlm as engine_mlm
from exercises.lab import stats
from exercises.lab.checks.core import (
    IGNORE,
    SHAPE,
    Checker,
    Failure,
    Rule,
    Said,
    Shown,
    Unfit,
    call,
    show,
)
from exercises.lab.checks.masking import (
    INDEPENDENT,
    RANDOM_UNIFORM,
    SELECTION_RATE,
    SHORT_ROWS,
    SPLIT,
    in_pool,
    judge_mlm,
    read_mlm,
    special_mask,
)
from exercises.lab.sandbox import Sandbox
from exercises.text import Bilingual, L

# -- statistics ----------------------------------------------------------------------


STAT_CALL_LIMIT_S = 60.0  # a learner's loop over 100,000 tokens on a loaded machine
SHORT_CALLS = 100  # calls on short inputs for the selection rate where a row has 1 to 3 tokens


def binomial_test(
    report: list[dict], name: str, count: int, trials: int, p: float, alpha: float = stats.ALPHA
):
    """One exact two-sided test, recorded in the result's statistics; True when it passes."""
    value = stats.p_value(count, trials, p)
    low, high = stats.acceptance_region(trials, p, alpha)
    report.append(
        {
            "name": name,
            "count": count,
            "trials": trials,
            "p": p,
            "p_value": value,
            "alpha": alpha,
            "accepted": [low, high],
            "ok": value > alpha,
        }
    )
    return value > alpha


def fits(count: int, trials: int, p: float, alpha: float = 1e-3) -> bool:
    """Whether a count fits another hypothesis (used to name a mistake, never to fail one)."""
    if trials == 0:
        return count == 0
    low, high = stats.acceptance_region(trials, p, alpha)
    return low <= count <= high


def rate_failure(rule: Rule, where: Said, entry: dict, what: Bilingual, diagnosis: str | None) -> Failure:
    count, trials, low, high = entry["count"], entry["trials"], *entry["accepted"]
    odds = f"{1 / entry['alpha']:,.0f}"
    share = f"{count / max(trials, 1):.1%}"
    return Failure(
        rule,
        where,
        L(f"{count} of {trials} ({share})", f"{trials} 个中有 {count} 个（{share}）"),
        L(
            f"{what['en']}: between {low} and {high} of {trials} (rate {entry['p']:.3f}); a correct solution lands outside less than once in {odds} runs",
            f"{what['zh']}：{trials} 个中应有 {low} 到 {high} 个（比例 {entry['p']:.3f}）；正确的实现落在范围外的概率不到 {odds} 分之一",
        ),
        diagnosis,
    )


@dataclass(frozen=True)
class StatCall:
    """One large call of a statistics test: its arguments, the ids it masks and how to
    describe a row (or window) of it where a deterministic rule is broken."""

    args: tuple
    ids: torch.Tensor
    specials: set[int]
    mask_id: int
    vocab_size: int
    p: float
    title: Bilingual  # e.g. "a (200, 200) batch, p = 0.15, generator seed 12345"


def stat_call(checker: Checker, box: Sandbox, plan: StatCall) -> tuple[torch.Tensor, torch.Tensor] | Failure:
    """Make one large call; its (input_ids, labels), or the failure of a rule it breaks
    (shown on the first row, or window of 12 positions, that breaks it)."""
    out = call(box, checker, plan.args, limit=STAT_CALL_LIMIT_S, global_seed=7).out
    try:
        input_ids, labels = read_mlm(out, tuple(plan.ids.shape))
    except Unfit as unfit:
        return Failure(unfit.rule, plan.title, unfit.yours, unfit.required, unfit.rule.diagnosis)
    ids = plan.ids
    special = special_mask(ids, plan.specials)
    selected = labels != IGNORE
    changed = input_ids != ids
    replaced = selected & changed & (input_ids != plan.mask_id)
    bad = (
        (special & (selected | changed))
        | (selected & (labels != ids))
        | (~selected & changed)
        | (replaced & ~in_pool(input_ids, plan.specials, plan.vocab_size))
    )
    if plan.p == 1.0:
        bad |= ~special & ~selected
    if not bool(bad.any()):
        return input_ids, labels
    first = tuple(int(v) for v in bad.nonzero()[0])
    if ids.dim() == 2:
        rows = slice(first[0], first[0] + 1)
        where = L(f"row {first[0]} of {plan.title['en']}", f"{plan.title['zh']}的第 {first[0]} 行")
    else:
        start = max(0, first[0] - 5)
        rows = slice(start, start + 12)
        last = min(start + 12, ids.shape[0]) - 1
        where = L(
            f"positions {start}..{last} of {plan.title['en']}", f"{plan.title['zh']}的位置 {start}..{last}"
        )
    window = (ids[rows], input_ids[rows], labels[rows])
    values = f"ids = {window[0].tolist()}\nspecial_ids = {sorted(plan.specials)}, mask_id = {plan.mask_id}, vocab_size = {plan.vocab_size}, p = {plan.p}"
    shown = Shown(L(f"{where['en']}\n{values}", f"{where['zh']}\n{values}"))
    failure = judge_mlm(
        checker,
        shown,
        window[0],
        (window[1], window[2]),
        plan.specials,
        plan.mask_id,
        plan.vocab_size,
        plan.p,
    )
    return failure or Failure(SHAPE, shown.text, show(window[1]), L("a masked row", "一行掩码后的结果"))


def selection_test(
    report: list[dict],
    name: str,
    chosen: int,
    trials: int,
    p: float,
    rule: Rule,
    where: Said,
    diagnosis=None,
) -> Failure | None:
    if binomial_test(report, name, chosen, trials, p):
        return None
    what = L(f"selected at rate p = {p}", f"按概率 p = {p} 选中")
    return rate_failure(rule, where, report[-1], what, diagnosis)


def second_rate_test(
    report: list[dict], chosen: int, trials: int, p: float, first_p: float, where: Said
) -> Failure | None:
    """The selection rate at a second p, on the call that tests the split: a rate that
    is right at one p only (0.15 written in the code) fails here, and is named when the
    count fits the first p."""
    if binomial_test(report, f"selection at p = {p}", chosen, trials, p):
        return None
    diagnosis = "selection-ignores-p" if fits(chosen, trials, first_p) else None
    what = L(f"selected at rate p = {p}", f"按概率 p = {p} 选中")
    return rate_failure(SELECTION_RATE, where, report[-1], what, diagnosis)


def independence_test(
    report: list[dict],
    name: str,
    first: torch.Tensor,
    second: torch.Tensor,
    eligible: torch.Tensor,
    p: float,
    where: Said,
) -> Failure | None:
    """Disjoint pairs of eligible positions (``first[i]``, ``second[i]``: two rows at one
    column, or two neighbours): selected independently at rate p each, both are selected
    at rate p², and the pairs are independent of each other, so the count is exactly
    binomial. A selection drawn once and repeated (per column over the rows, per row over
    the positions) gives both at rate p instead: far outside (at p = 0.15, 0.15 against
    0.0225)."""
    trials = int(eligible.sum())
    both = int((first & second & eligible).sum())
    if binomial_test(report, name, both, trials, p * p):
        return None
    what = L(
        f"pairs both selected, as independent selections at p = {p} give (p² = {p * p:.4f})",
        f"两者同时被选中的配对（p = {p} 时相互独立的选中给出 p² = {p * p:.4f}）",
    )
    return rate_failure(INDEPENDENT, where, report[-1], what, INDEPENDENT.diagnosis)


def short_rows_test(
    checker: Checker,
    box: Sandbox,
    report: list[dict],
    plans: list[tuple[tuple, tuple[int, ...]]],
    p: float,
    count: Callable[[tuple, torch.Tensor], tuple[int, list[int]]],
    where: Said,
    more: Callable[[list[list[int]]], list[tuple[str, float, float]]] | None = None,
) -> Failure | None:
    """Many calls on short inputs (rows of 1 to 3 eligible tokens, or 1 to 3 words): the
    selection rate, pooled over the calls, in one exact test. ``plans`` are each call's
    arguments and the shape of its output; ``count(args, labels)`` gives one call's
    selected units and each row's eligible units. When the test fails, the
    count a known mistake predicts names it: a fixed number per row or per call (that
    count exactly), or (``more``) p rescaled (within 3 standard deviations)."""
    chosen, per_call = 0, []
    for args, shape in plans:
        out = call(box, checker, args, limit=STAT_CALL_LIMIT_S).out
        try:
            _input_ids, labels = read_mlm(out, shape)
        except Unfit as unfit:
            return Failure(unfit.rule, where, unfit.yours, unfit.required, unfit.rule.diagnosis)
        got, rows = count(args, labels)
        chosen += got
        per_call.append(rows)
    trials = sum(sum(rows) for rows in per_call)
    if binomial_test(report, "selection, short rows", chosen, trials, p):
        return None
    predictions = fixed_count_predictions(per_call, p) + (more(per_call) if more else [])
    diagnosis = next((code for code, mean, sd in predictions if abs(chosen - mean) <= 3 * sd), None)
    what = L(f"selected at rate p = {p}, in short rows too", f"短行里也按概率 p = {p} 选中")
    return rate_failure(SHORT_ROWS, where, report[-1], what, diagnosis)


def fixed_count_predictions(per_call: list[list[int]], p: float) -> list[tuple[str, float, float]]:
    """What selecting a fixed number per row (or per call) would count, exactly (a
    standard deviation of 0): round(p·n), floor, ceil, or at least one."""
    rows = [n for units in per_call for n in units if n]
    calls = [sum(units) for units in per_call if sum(units)]
    counts = (round, math.floor, math.ceil, lambda x: max(1, round(x)))
    return [
        ("selection-fixed-count", float(sum(rule(p * n) for n in units)), 0.0)
        for units in (rows, calls)
        for rule in counts
    ]


def split_test(
    report: list[dict],
    ids: torch.Tensor,
    input_ids: torch.Tensor,
    selected: torch.Tensor,
    mask_id: int,
    pool_size: int,
    where: Said,
    p: float,
) -> Failure | None:
    """The 80/10/10 of the selected tokens, on a call at ``p`` < 1: three exact tests. A
    random draw gives the original back with probability 1/pool_size, which then looks
    unchanged. At p < 1 a fate read from the selection's own uniform (u < p selects, then
    u < 0.8 [MASK], u < 0.9 random) shows: every selected u is below p."""
    n = int(selected.sum())
    masked = int((selected & (input_ids == mask_id)).sum())
    kept = int((selected & (input_ids == ids)).sum())
    randomised = n - masked - kept
    hit = 1.0 / pool_size
    to_mask, to_random, to_keep = engine_mlm.BERT_SPLIT
    rates = {"[MASK]": to_mask, "random": to_random * (1 - hit), "unchanged": to_keep + to_random * hit}
    counts = {"[MASK]": masked, "random": randomised, "unchanged": kept}
    if all(binomial_test(report, f"split: {name}", counts[name], n, rates[name]) for name in rates):
        return None
    regions = {name: stats.acceptance_region(n, rate) for name, rate in rates.items()}
    zh_names = {"[MASK]": "[MASK]", "random": "随机词", "unchanged": "不变"}
    shares = ", ".join(f"{name} {counts[name]} ({counts[name] / max(n, 1):.1%})" for name in rates)
    shares_zh = "，".join(
        f"{zh_names[name]} {counts[name]}（{counts[name] / max(n, 1):.1%}）" for name in rates
    )
    wanted = ", ".join(f"{name} {rates[name]:.1%} ({regions[name][0]}–{regions[name][1]})" for name in rates)
    wanted_zh = "，".join(
        f"{zh_names[name]} {rates[name]:.1%}（{regions[name][0]}–{regions[name][1]}）" for name in rates
    )
    rest, misread = 1 - to_mask, to_random  # Hugging Face halves the rest (0.5); 0.1 there is a misreading
    alternatives = {  # (mask, random, unchanged) shares of a known mistake
        "random-excludes-original": (to_mask, to_random, to_keep),
        "split-rest-not-halved": (
            to_mask,
            rest * misread * (1 - hit),
            rest * (1 - misread) + rest * misread * hit,
        ),
        "fate-reuses-selection-draw": (
            min(p, to_mask) / p,
            max(0.0, min(p, to_mask + to_random) - to_mask) / p * (1 - hit),
            (max(0.0, p - to_mask - to_random) + max(0.0, min(p, to_mask + to_random) - to_mask) * hit) / p,
        ),
    }
    diagnosis = next(
        (
            code
            for code, shares_ in alternatives.items()
            if all(fits(counts[name], n, share) for name, share in zip(rates, shares_, strict=True))
        ),
        "split-not-80-10-10",
    )
    return Failure(
        SPLIT,
        where,
        L(f"of {n} selected: {shares}", f"{n} 个被选中的 token 中：{shares_zh}"),
        L(
            f"{wanted} (a random draw gives the original back 1 time in {pool_size}: it then counts as unchanged); a correct solution lands outside less than once in {1 / stats.ALPHA:,.0f} runs per share",
            f"{wanted_zh}（随机抽样有 1/{pool_size} 的机会抽回原词，这时算作不变）；正确的实现每一项落在范围外的概率不到 {1 / stats.ALPHA:,.0f} 分之一",
        ),
        diagnosis,
    )


def uniform_test(
    report: list[dict],
    ids: torch.Tensor,
    input_ids: torch.Tensor,
    selected: torch.Tensor,
    mask_id: int,
    pool: list[int],
    where: Said,
) -> Failure | None:
    """The random replacements are uniform over the pool. Among the positions changed to
    a random word (not [MASK], not the original), the word is uniform over the pool minus
    the original: for each pool id j, the positions whose original is not j show j at
    rate 1/(m-1). One exact test per id, at ALPHA/m each (the family costs one ALPHA).
    Conditional on being changed, so a wrong split (or never drawing the original back)
    does not show here: the split test names those."""
    m = len(pool)
    changed = selected & (input_ids != ids) & (input_ids != mask_id)
    for j in pool:
        trials = int((changed & (ids != j)).sum())
        count = int((changed & (ids != j) & (input_ids == j)).sum())
        if not binomial_test(report, f"random word {j}", count, trials, 1 / (m - 1), stats.ALPHA / m):
            entry = report[-1]
            drawn = {k: int((changed & (input_ids == k)).sum()) for k in pool}
            low, high = entry["accepted"]
            return Failure(
                RANDOM_UNIFORM,
                where,
                L(
                    f"random words drawn (id: times) {drawn}; id {j}: {count} of {trials}",
                    f"抽到的随机词（id: 次数）{drawn}；id {j}：{trials} 个中有 {count} 个",
                ),
                L(
                    f"each of the {m} non-special ids equally often: id {j} between {low} and {high} of {trials} (rate 1/{m - 1}, the original excluded); a correct solution lands outside less than once in {1 / stats.ALPHA:,.0f} runs",
                    f"{m} 个非特殊 id 出现的机会相同：id {j} 在 {trials} 个中应有 {low} 到 {high} 个（比例 1/{m - 1}，不算原词）；正确的实现落在范围外的概率不到 {1 / stats.ALPHA:,.0f} 分之一",
                ),
                RANDOM_UNIFORM.diagnosis,
            )
    return None


def upper_half_test(
    report: list[dict], input_ids: torch.Tensor, selected: torch.Tensor, low: int, high: int, where: Said
) -> Failure | None:
    """For a vocabulary too large to test id by id: the originals all lie in the lower
    half of the pool [low, high), so a selected position shows an id of the upper half
    exactly when a random draw landed there: rate 0.1 * |upper| / |pool|."""
    middle = (low + high) // 2
    rate = engine_mlm.BERT_SPLIT[1] * (high - middle) / (high - low)
    n = int(selected.sum())
    count = int((selected & (input_ids >= middle) & (input_ids < high)).sum())
    if binomial_test(report, f"random words in [{middle}, {high})", count, n, rate):
        return None
    what = L(
        f"random words in the upper half [{middle}, {high}) of the pool, as often as in the lower half",
        f"随机词落在词池上半部分 [{middle}, {high}) 的次数与下半部分一样多",
    )
    return rate_failure(RANDOM_UNIFORM, where, report[-1], what, RANDOM_UNIFORM.diagnosis)
