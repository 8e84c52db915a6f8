"""One-run auditing (Steinke, Nasr & Jagielski 2023, "Privacy auditing with one (1) training run",
NeurIPS 2023).

m canaries are each included independently with probability 1/2 in a single run. The auditor
ranks the canaries by score and guesses "in" for the k₊ highest, "out" for the k₋ lowest, and
abstains on the rest: r = k₊ + k₋ guesses, of which v are correct. If the mechanism is (ε, δ)-DP
with respect to each canary, then for every v (their main theorem, Theorem 3.1 of
arXiv:2305.08846, with the δ term; computed as the p-value routine the authors publish with the
paper computes it)

    P[W ≥ v] ≤ f(v) + 2 m δ · max_{i ∈ {1,…,v}} (f(v − i) − f(v)) / i,
    f(v) = P[Binomial(r, e^ε/(1 + e^ε)) ≥ v],

so (ε, δ)-DP is rejected at level α when the right side is < α. The lower bound is the largest
such ε, found by bisection (any rejected ε is a valid lower bound, so the bisection only keeps
rejected values).

Guessing (k₊, k₋) must be fixed before seeing which canaries were included; several choices are
allowed with a Bonferroni correction over them, named in the result. Ties in the score at the
cut-off are broken by a seeded random order, never by position (positions may encode labels).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from attacks.metrics import check_scores
from audits.stats._validation import (
    check_confidence,
    check_count,
    check_delta,
    check_epsilon,
    check_int_sequence,
    check_seed,
)
from audits.stats.bounds import WORST_CASE, LowerBound

__all__ = [
    "default_guess_counts",
    "one_run_audit",
    "one_run_epsilon",
    "one_run_guesses",
    "one_run_p_value",
]

#: Assumption of the one-run bounds besides the privacy hypothesis.
ONE_RUN_DESIGN = "canaries included independently with probability 1/2 in a single run"

#: statistic(m, r, v, α_test): a bound from m canaries, r guesses and v correct ones at level α_test.
GuessStatistic = Callable[[int, int, int, float], float]
#: What :func:`best_guess_count` returns: (value, k_pos, r, v, m, grid, k_neg, α_test).
GuessSearch = tuple[float, int, int, int, int, tuple[int, ...], int, float]


def check_guess_counts(m: int, r: int, v: int) -> tuple[int, int, int]:
    """(m, r, v) checked: counts with 0 ≤ v ≤ r ≤ m (canaries, guesses made, guesses right)."""
    m, r, v = check_count(m, "m"), check_count(r, "r"), check_count(v, "v")
    if not 0 <= v <= r <= m:
        raise ValueError(f"need 0 <= v <= r <= m (correct <= guesses <= canaries), got m={m}, r={r}, v={v}")
    return m, r, v


def _p_value(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    q = special.expit(epsilon)  # accuracy of ε-DP randomized response, e^ε/(1 + e^ε)
    tail = stats.binom.sf(v - 1, r, q) if v > 0 else 1.0  # f(v) = P[B ≥ v]
    if delta == 0 or v == 0:
        return min(float(tail), 1.0)
    # f(v − i) − f(v) = P[v − i ≤ B ≤ v − 1]: summed pmf from v − 1 downwards (no cancellation)
    pmf = stats.binom.pmf(np.arange(v - 1, -1, -1), r, q)
    worst = float(np.max(np.cumsum(pmf) / np.arange(1, v + 1)))
    return min(float(tail) + 2.0 * m * delta * worst, 1.0)


def one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """P-value of v correct guesses out of r under the null "(ε, δ)-DP" (Steinke et al., main theorem).

    Args:
      m: number of canaries (each included independently with probability 1/2).
      r: number of guesses (abstentions excluded), ≤ m.
      v: number of correct guesses, ≤ r.
      epsilon, delta: the DP guarantee under test.
    """
    m, r, v = check_guess_counts(m, r, v)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    return _p_value(m, r, v, epsilon, delta)


def one_run_epsilon(m: int, r: int, v: int, *, delta: float, confidence: float = 0.95) -> float:
    """The largest ε (to ~1e-12) whose (ε, δ)-DP is rejected at level 1 − confidence; 0 if none.

    Bisection on ε keeping the lower end rejected, as in the authors' reference code (which
    bisects 30 times from [0, 1] after widening; here 200 halvings or 1e-12 absolute).
    """
    m, r, v = check_guess_counts(m, r, v)
    delta = check_delta(delta)
    alpha = 1.0 - check_confidence(confidence)
    return _epsilon(m, r, v, delta, alpha)


def _epsilon(m: int, r: int, v: int, delta: float, alpha: float) -> float:
    if _p_value(m, r, v, 0.0, delta) >= alpha:
        return 0.0
    lo, hi = 0.0, 1.0
    while _p_value(m, r, v, hi, delta) < alpha:
        lo, hi = hi, 2.0 * hi
        if hi > 1e4:  # cannot happen for v <= r finite: P[B ≥ v] → 1 as ε → ∞ for v ≤ r
            raise RuntimeError("one_run_epsilon: no upper bracket found")
    for _ in range(200):
        if hi - lo <= 1e-12 * max(1.0, lo):
            break
        mid = 0.5 * (lo + hi)
        if _p_value(m, r, v, mid, delta) < alpha:
            lo = mid
        else:
            hi = mid
    return lo


def default_guess_counts(m: int) -> tuple[int, ...]:
    """The default grid of numbers of "in" guesses: ~1, 2, 5, 10, 20 and 50 % of m (unique, ≥ 1)."""
    m = check_count(m, "m")
    return tuple(sorted({max(1, int(round(m * f))) for f in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)}))


def _ranking(scores: np.ndarray, seed: int) -> np.ndarray:
    """Indices from highest to lowest score, ties in a seeded random order."""
    rng = np.random.default_rng(seed)
    tiebreak = rng.permutation(scores.size)
    return np.lexsort((tiebreak, -scores))


def one_run_guesses(
    scores_in: ArrayLike, scores_out: ArrayLike, k_pos: int, k_neg: int = 0, *, seed: int = 0
) -> tuple[int, int, int]:
    """(m, r, v): canaries, guesses and correct guesses when guessing "in" for the ``k_pos``
    highest scores and "out" for the ``k_neg`` lowest (abstaining on the rest).

    ``scores_in`` are the scores of the canaries that were included, ``scores_out`` of those that
    were not; the ranking sees only the pooled scores.
    """
    scores_in = check_scores(scores_in, "scores_in")
    scores_out = check_scores(scores_out, "scores_out")
    return _guesses(scores_in, scores_out, check_count(k_pos, "k_pos"), check_count(k_neg, "k_neg"), check_seed(seed))


def _guesses(
    scores_in: NDArray[np.float64], scores_out: NDArray[np.float64], k_pos: int, k_neg: int, seed: int
) -> tuple[int, int, int]:
    m = scores_in.size + scores_out.size
    if k_pos + k_neg > m:
        raise ValueError(f"k_pos + k_neg must be <= m = {m} canaries, got {k_pos} + {k_neg}")
    pooled = np.concatenate([scores_in, scores_out])
    included = np.concatenate([np.ones(scores_in.size, bool), np.zeros(scores_out.size, bool)])
    order = _ranking(pooled, seed)
    correct = int(included[order[:k_pos]].sum()) + int((~included[order[m - k_neg :]]).sum())
    return m, k_pos + k_neg, correct


def _check_design(n_in: int, n_out: int) -> int:
    """m, after a guard against scores that cannot come from one run with fair coin flips.

    The one-run theorems need every canary included independently with probability 1/2. A split
    this unbalanced (two-sided binomial p-value < 1e-6) means the scores come from some other
    design, e.g. many runs of a two-world audit; use clopper_pearson_audit or gdp_audit then.
    """
    m = n_in + n_out
    if stats.binomtest(n_in, m, 0.5).pvalue < 1e-6:
        raise ValueError(
            f"scores_in and scores_out hold {n_in} and {n_out} canaries: one-run auditing needs each "
            "canary included independently with probability 1/2, which this split contradicts "
            "(binomial p-value < 1e-6)"
        )
    return m


def _guess_grid(m: int, k_pos: int | Sequence[int] | None, k_neg: int) -> tuple[tuple[int, ...], int]:
    k_neg = check_count(k_neg, "k_neg")
    grid = default_guess_counts(m) if k_pos is None else check_int_sequence(k_pos, "k_pos")
    grid = tuple(k for k in grid if k + k_neg >= 1)
    if not grid:
        raise ValueError("at least one guess is needed: k_pos + k_neg must be >= 1")
    for k in grid:
        if k + k_neg > m:
            raise ValueError(f"k_pos + k_neg must be <= m = {m} canaries, got {k} + {k_neg}")
    return grid, k_neg


def multiplicity_correction(grid: Sequence[int], k_neg: int, preset: bool) -> str:
    """The report's description of the multiplicity correction over the grid of numbers of guesses (none for one)."""
    if len(grid) == 1:
        return f"none (single pre-registered number of guesses: k+ = {grid[0]}, k- = {k_neg})"
    origin = "default grid" if preset else "pre-registered grid"
    return (
        f"bonferroni over {len(grid)} numbers of guesses "
        f"({origin} k+ ∈ {list(grid)}, k- = {k_neg}; each at α/{len(grid)})"
    )


def best_guess_count(
    scores_in: ArrayLike,
    scores_out: ArrayLike,
    confidence: float,
    k_pos: int | Sequence[int] | None,
    k_neg: int,
    seed: int,
    statistic: GuessStatistic,
) -> GuessSearch:
    """Evaluate ``statistic(m, r, v, α_test)`` for every number of "in" guesses in the grid
    (Bonferroni: α_test = α / grid size) and keep the largest.

    Returns (value, k_pos, r, v, m, grid, k_neg, α_test).
    """
    scores_in = check_scores(scores_in, "scores_in")
    scores_out = check_scores(scores_out, "scores_out")
    confidence = check_confidence(confidence)
    seed = check_seed(seed)
    m = _check_design(scores_in.size, scores_out.size)
    grid, k_neg = _guess_grid(m, k_pos, k_neg)
    alpha_test = (1.0 - confidence) / len(grid)
    best: tuple[float, int, int, int] | None = None
    for k in grid:
        _, r, v = _guesses(scores_in, scores_out, k, k_neg, seed)
        value = statistic(m, r, v, alpha_test)
        if best is None or value > best[0]:
            best = (value, k, r, v)
    if best is None:  # cannot happen: _guess_grid never returns an empty grid
        raise ValueError("at least one number of guesses is needed")
    return (*best, m, grid, k_neg, alpha_test)


def one_run_audit(
    scores_in: ArrayLike,
    scores_out: ArrayLike,
    *,
    delta: float,
    confidence: float = 0.95,
    k_pos: int | Sequence[int] | None = None,
    k_neg: int = 0,
    seed: int = 0,
) -> LowerBound:
    """One-run lower bound on ε (Steinke, Nasr & Jagielski 2023) from canary scores.

    Args:
      scores_in: scores of the canaries that were included (each independently with probability
        1/2, by design of the audit), higher means "in".
      scores_out: scores of the canaries that were left out.
      delta: δ in [0, 1).
      confidence: 1 − α in (0, 1).
      k_pos: number of "in" guesses (the highest scores); a sequence means a Bonferroni correction
        over its entries (each at α/len); None: :func:`default_guess_counts` with Bonferroni.
      k_neg: number of "out" guesses (the lowest scores).
      seed: seed of the tie-breaking order.
    """
    delta = check_delta(delta)
    search = best_guess_count(
        scores_in,
        scores_out,
        confidence,
        k_pos,
        k_neg,
        seed,
        lambda m_, r_, v_, alpha: _epsilon(m_, r_, v_, delta, alpha),
    )
    eps, k, r, v, m, grid, k_neg, alpha_test = search
    confidence = check_confidence(confidence)
    return LowerBound(
        epsilon=eps,
        delta=delta,
        confidence=confidence,
        method="one-run",
        correction=multiplicity_correction(grid, k_neg, k_pos is None),
        threshold=None,
        assumption=f"{WORST_CASE}; {ONE_RUN_DESIGN}",
        details={
            "m": m,
            "n_guesses": r,
            "n_correct": v,
            "k_pos": k,
            "k_neg": k_neg,
            "alpha_per_test": alpha_test,
            "p_value_at_bound": _p_value(m, r, v, eps, delta),
            "tie_break_seed": seed,
        },
    )
