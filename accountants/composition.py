"""Composition theorems for (ε_i, δ_i)-DP releases, as pure functions of a multiset of guarantees.

A guarantee multiset is a sequence of ``(epsilon, delta, count)`` triples.

- :func:`basic_epsilon`: Σ count·ε_i, valid at δ ≥ Σ count·δ_i (Dwork et al. 2006).
- :func:`drv_epsilon`: Dwork, Rothblum & Vadhan (2010), Thm. III.3, heterogeneous form:
  ε = sqrt(2 ln(1/δ') Σε_i²) + Σ ε_i (e^{ε_i} − 1) at δ = δ' + Σδ_i.
- :func:`optimal_delta` / :func:`optimal_epsilon`: the exact optimal composition of Kairouz, Oh &
  Viswanath (2015, Thm. 3.3), computed exactly in log space by enumerating the privacy loss of the
  composed dominating pairs (binary randomized response plus a δ atom). Homogeneous k-fold
  composition has k + 1 loss values, so 10^5 compositions cost one vectorised pass.
- :func:`kov_heterogeneous_epsilon`: KOV Thm. 3.5, the closed-form bound for heterogeneous
  compositions too large to enumerate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy import special

__all__ = [
    "basic_epsilon",
    "basic_delta",
    "drv_epsilon",
    "drv_delta",
    "kov_heterogeneous_epsilon",
    "optimal_delta",
    "optimal_epsilon",
    "loss_support_size",
]

Guarantees = Sequence[tuple[float, float, int]]


def _log_keep(guarantees: Guarantees) -> float:
    """log Π (1 − δ_i)^{count_i}."""
    return math.fsum(count * math.log1p(-delta) for _, delta, count in guarantees)


def _one_minus_exp(x: float) -> float:
    """1 − e^x, which is −∞ (never an OverflowError) for large x."""
    return -math.expm1(x) if x < 700.0 else -math.inf


def _total_delta(guarantees: Guarantees) -> float:
    return math.fsum(count * delta for _, delta, count in guarantees)


def basic_epsilon(guarantees: Guarantees, delta: float) -> float:
    """Σ count·ε_i if ``delta`` ≥ Σ count·δ_i, else ∞."""
    if delta < _total_delta(guarantees):
        return math.inf
    return math.fsum(count * eps for eps, _, count in guarantees)


def basic_delta(guarantees: Guarantees, epsilon: float) -> float:
    """Σ count·δ_i if ``epsilon`` ≥ Σ count·ε_i, else 1."""
    if epsilon >= math.fsum(count * eps for eps, _, count in guarantees):
        return min(1.0, _total_delta(guarantees))
    return 1.0


def _drv_drift(guarantees: Guarantees) -> float:
    """Σ count·ε_i(e^{ε_i} − 1), ∞ once a term overflows."""
    try:
        return math.fsum(count * eps * math.expm1(eps) for eps, _, count in guarantees)
    except OverflowError:
        return math.inf


def drv_epsilon(guarantees: Guarantees, delta: float) -> float:
    """Advanced composition (DRV 2010), all slack δ' = δ − Σδ_i spent on the tail bound."""
    slack = delta - _total_delta(guarantees)
    if slack <= 0:
        return math.inf
    sum_squares = math.fsum(count * eps * eps for eps, _, count in guarantees)
    drift = _drv_drift(guarantees)
    return math.sqrt(2.0 * math.log(1.0 / slack) * sum_squares) + drift


def drv_delta(guarantees: Guarantees, epsilon: float) -> float:
    """Smallest δ for which :func:`drv_epsilon` gives at most ``epsilon``."""
    sum_squares = math.fsum(count * eps * eps for eps, _, count in guarantees)
    drift = _drv_drift(guarantees)
    if sum_squares == 0:
        return _total_delta(guarantees) if epsilon >= drift else 1.0
    if epsilon <= drift:
        return 1.0
    gap = epsilon - drift  # gap * gap may overflow to inf (exp(-inf) = 0); ** would raise
    return min(1.0, _total_delta(guarantees) + math.exp(-(gap * gap) / (2.0 * sum_squares)))


def kov_heterogeneous_epsilon(guarantees: Guarantees, delta: float) -> float:
    """KOV (2015) Thm. 3.5: the composition is (ε̃, 1 − (1 − δ̃)Π(1 − δ_i))-DP for every δ̃."""
    log_keep = _log_keep(guarantees)
    slack = _one_minus_exp(math.log1p(-delta) - log_keep)  # δ̃ with 1 − (1−δ̃)Π(1−δ_i) = δ
    if slack <= 0:
        return math.inf
    total = math.fsum(count * eps for eps, _, count in guarantees)
    sum_squares = math.fsum(count * eps * eps for eps, _, count in guarantees)
    drift = math.fsum(count * eps * math.tanh(eps / 2.0) for eps, _, count in guarantees)
    root = math.sqrt(sum_squares)
    return min(
        total,
        drift + math.sqrt(2.0 * sum_squares * math.log(math.e + root / slack)),
        drift + math.sqrt(2.0 * sum_squares * math.log(1.0 / slack)),
    )


def loss_support_size(guarantees: Guarantees) -> int:
    """Number of privacy-loss atoms :func:`optimal_delta` enumerates."""
    size = 1
    for eps, _, count in guarantees:
        if eps > 0:
            size *= count + 1
    return size


def _loss_distribution(guarantees: Guarantees) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Privacy-loss atoms L and their log-probabilities under the first distribution of the
    composed randomized-response pairs: L = Σ_j (k_j − 2 l_j) ε_j, l_j ~ Bin(k_j, 1/(1 + e^{ε_j}))."""
    losses = np.zeros(1)
    log_probs = np.zeros(1)
    for eps, _, count in guarantees:
        if eps == 0 or count == 0:
            continue
        flips = np.arange(count + 1, dtype=float)
        log_q = -np.logaddexp(0.0, eps)  # log 1/(1 + e^ε)
        log_p = -np.logaddexp(0.0, -eps)  # log e^ε/(1 + e^ε)
        log_binom = special.gammaln(count + 1) - special.gammaln(flips + 1) - special.gammaln(count - flips + 1)
        group_log_probs = log_binom + (count - flips) * log_p + flips * log_q
        group_losses = (count - 2.0 * flips) * eps
        losses = (losses[:, None] + group_losses[None, :]).ravel()
        log_probs = (log_probs[:, None] + group_log_probs[None, :]).ravel()
    return losses, log_probs


def _log_hockey_stick(losses: NDArray[np.float64], log_probs: NDArray[np.float64], epsilon: float) -> float:
    """log Σ_{L > ε} P(L) (1 − e^{ε − L})."""
    above = losses > epsilon
    if not np.any(above):
        return -math.inf
    terms = log_probs[above] + np.log(-np.expm1(epsilon - losses[above]))
    return float(special.logsumexp(terms))


def optimal_delta(guarantees: Guarantees, epsilon: float) -> float:
    """Exact smallest δ at which the composition is (ε, δ)-DP (KOV 2015, Thm. 3.3)."""
    if any(math.isinf(eps) for eps, _, count in guarantees if count):
        return 1.0
    losses, log_probs = _loss_distribution(guarantees)
    return _delta_at(losses, log_probs, _log_keep(guarantees), epsilon)


def _delta_at(losses: NDArray[np.float64], log_probs: NDArray[np.float64], log_keep: float, epsilon: float) -> float:
    """δ = 1 − Π(1 − δ_i)^{k_i} (1 − δ_RR(ε)) of an enumerated loss distribution."""
    rr = min(1.0, math.exp(_log_hockey_stick(losses, log_probs, epsilon)))
    if rr >= 1.0:
        return 1.0
    return max(0.0, -math.expm1(log_keep + math.log1p(-rr)))


def optimal_epsilon(guarantees: Guarantees, delta: float) -> float:
    """Smallest ε at which the composition is (ε, ``delta``)-DP (exact, rounded up).

    δ_RR(ε) = Σ_{L > ε} P(L)(1 − e^{ε − L}) is piecewise of the form A − e^ε B between consecutive
    loss atoms, so a bisection over the sorted atoms finds the piece and the piece is solved in
    closed form; the result is then stepped up until the exact δ(ε) is within ``delta``.
    """
    if any(math.isinf(eps) for eps, _, count in guarantees if count):
        return math.inf
    log_keep = _log_keep(guarantees)
    total = math.fsum(count * eps for eps, _, count in guarantees)
    rr_target = _one_minus_exp(math.log1p(-delta) - log_keep) if delta < 1 else 1.0  # allowed δ_RR
    if rr_target <= 0:  # no room beyond the releases' own δ: only the plain sum can hold
        return basic_epsilon(guarantees, delta)
    losses, log_probs = _loss_distribution(guarantees)
    atoms = np.unique(losses)[::-1]  # descending
    log_target = math.log(rr_target)
    if _log_hockey_stick(losses, log_probs, 0.0) <= log_target:
        return 0.0
    # Find i with δ_RR(atoms[i]) <= target < δ_RR(atoms[i + 1]) (δ_RR(atoms[0]) = 0).
    low, high = 0, int(np.searchsorted(-atoms, 0.0, side="right"))  # atoms[high] <= 0 or end
    high = min(high, len(atoms) - 1)
    while high - low > 1:
        middle = (low + high) // 2
        if _log_hockey_stick(losses, log_probs, float(atoms[middle])) <= log_target:
            low = middle
        else:
            high = middle
    above = losses >= atoms[low]
    log_a = float(special.logsumexp(log_probs[above]))
    log_b = float(special.logsumexp(log_probs[above] - losses[above]))
    root = 0.0 if log_target >= log_a else log_a + math.log(-math.expm1(log_target - log_a)) - log_b
    root = min(max(root, float(atoms[high]), 0.0), float(atoms[low]))
    step = 0.0
    while root < total and _delta_at(losses, log_probs, log_keep, root) > delta:  # to the safe side
        step = max(2.0 * step, math.nextafter(root, math.inf) - root, 1e-15 * root)  # doubling: few steps
        root += step
    return min(root, total)
