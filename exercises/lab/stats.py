"""Exact binomial tests for the lab's statistical rules (15 %, 80/10/10, the
random word's distribution).

A correct solution must fail less than once in a million runs: the tests of one
check spend at most ``TESTS_PER_TASK * ALPHA`` = 1e-6 of significance between
them (Bonferroni): most tests use ``ALPHA`` each, a family of k tests (one per id
of a small vocabulary) ``ALPHA / k`` each. Every result records its alpha, and a
test counts them. The two-sided p-value is exact (the 'minlike' rule: the
probability of every count no more likely than the one observed), computed in log
space over the counts within 40 standard deviations of the mean (plus 10): the
mass beyond is below 1e-25, far under any alpha used here, so a count out there
has a p-value of 0 to the precision that matters.
"""

from __future__ import annotations

import math

TESTS_PER_TASK = 10
ALPHA = 1e-7


def _window(n: int, p: float) -> tuple[int, int]:
    """The counts whose probability can matter: mean ± (40 sd + 10), within [0, n]."""
    spread = 40 * math.sqrt(n * p * (1 - p)) + 10
    return max(0, math.floor(n * p - spread)), min(n, math.ceil(n * p + spread))


def _log_pmf(n: int, p: float, low: int, high: int) -> list[float]:
    """log P(X = k) for k in [low, high], X ~ Binomial(n, p)."""
    if p <= 0.0 or p >= 1.0:
        edge = 0 if p <= 0.0 else n
        return [0.0 if k == edge else -math.inf for k in range(low, high + 1)]
    log_p, log_q = math.log(p), math.log1p(-p)
    base = math.lgamma(n + 1)
    return [
        base - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_p + (n - k) * log_q
        for k in range(low, high + 1)
    ]


def p_value(successes: int, trials: int, p: float) -> float:
    """Two-sided exact binomial p-value of ``successes`` out of ``trials`` at rate ``p``."""
    if trials == 0:
        return 1.0
    low, high = _window(trials, p)
    if not low <= successes <= high:
        return 0.0  # beyond 40 standard deviations: below 1e-25
    logs = _log_pmf(trials, p, low, high)
    threshold = logs[successes - low] + 1e-7  # scipy's relative tolerance of 1e-7 on the probability
    total = sum(math.exp(value) for value in logs if value <= threshold)
    return min(1.0, total)


def acceptance_region(trials: int, p: float, alpha: float = ALPHA) -> tuple[int, int]:
    """The counts [low, high] a test at ``alpha`` accepts."""
    start, end = _window(trials, p)
    logs = _log_pmf(trials, p, start, end)
    order = sorted(range(len(logs)), key=lambda i: logs[i])
    rejected, mass = set(), 0.0
    for i in order:  # least likely counts first, while their total stays within alpha
        weight = math.exp(logs[i])
        if mass + weight > alpha:
            break
        mass += weight
        rejected.add(i)
    accepted = [start + i for i in range(len(logs)) if i not in rejected]
    return min(accepted), max(accepted)


def power(trials: int, p: float, true_p: float, alpha: float = ALPHA) -> float:
    """How often the test at ``p`` rejects when the real rate is ``true_p``."""
    low, high = acceptance_region(trials, p, alpha)
    start, end = _window(trials, true_p)
    logs = _log_pmf(trials, true_p, start, end)
    inside = sum(math.exp(value) for k, value in enumerate(logs, start) if low <= k <= high)
    return 1.0 - inside
