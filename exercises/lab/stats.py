"""Exact binomial tests for the lab's statistical rules (15 %, 80/10/10).

A correct solution must fail less than once in a million runs: every task runs
at most ``TESTS_PER_TASK`` tests, each at ``ALPHA`` (Bonferroni), so a correct
solution fails with probability below TESTS_PER_TASK * ALPHA = 1e-6 per check.
The two-sided p-value is exact (the 'minlike' rule: the probability of every
count no more likely than the one observed), computed in log space.
"""

from __future__ import annotations

import math

TESTS_PER_TASK = 10
ALPHA = 1e-7


def _log_pmf(n: int, p: float) -> list[float]:
    if p <= 0.0 or p >= 1.0:
        edge = 0 if p <= 0.0 else n
        return [0.0 if k == edge else -math.inf for k in range(n + 1)]
    log_p, log_q = math.log(p), math.log1p(-p)
    base = math.lgamma(n + 1)
    return [
        base - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_p + (n - k) * log_q for k in range(n + 1)
    ]


def p_value(successes: int, trials: int, p: float) -> float:
    """Two-sided exact binomial p-value of ``successes`` out of ``trials`` at rate ``p``."""
    if trials == 0:
        return 1.0
    logs = _log_pmf(trials, p)
    threshold = logs[successes] + 1e-7  # scipy's relative tolerance of 1e-7 on the probability
    total = sum(math.exp(value) for value in logs if value <= threshold)
    return min(1.0, total)


def acceptance_region(trials: int, p: float, alpha: float = ALPHA) -> tuple[int, int]:
    """The counts [low, high] a test at ``alpha`` accepts."""
    logs = _log_pmf(trials, p)
    order = sorted(range(trials + 1), key=lambda k: logs[k])
    rejected, mass = set(), 0.0
    for k in order:  # least likely counts first, while their total stays within alpha
        weight = math.exp(logs[k])
        if mass + weight > alpha:
            break
        mass += weight
        rejected.add(k)
    accepted = [k for k in range(trials + 1) if k not in rejected]
    return min(accepted), max(accepted)


def power(trials: int, p: float, true_p: float, alpha: float = ALPHA) -> float:
    """How often the test at ``p`` rejects when the real rate is ``true_p``."""
    low, high = acceptance_region(trials, p, alpha)
    logs = _log_pmf(trials, true_p)
    inside = sum(math.exp(logs[k]) for k in range(low, high + 1))
    return 1.0 - inside
