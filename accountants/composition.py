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
- beyond the enumeration: :mod:`accountants.lattice` (a pessimistic privacy-loss distribution on a
  lattice, within about its resolution of the optimum).

Rounding: every result is rounded outward. Sums of products are formed exactly (error-free
products, ``math.fsum``) and stepped one float up; the closed forms carry a relative margin of
32 units of 2^-53 over their few roundings; the enumeration carries a-priori absolute error bounds
on its log-probabilities and losses (see :func:`_loss_distribution`), evaluates the hockey-stick
divergence at the pessimistic ends of both, and its inverse steps to the float next to the
boundary of that upper bound (:func:`accountants.rounding.tightest`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import special

from accountants.rounding import tightest

__all__ = [
    "basic_epsilon",
    "basic_delta",
    "drv_epsilon",
    "drv_delta",
    "kov_heterogeneous_epsilon",
    "optimal_delta",
    "optimal_epsilon",
    "loss_support_size",
    "log_keep_lower",
    "total_epsilon",
    "delta_from_log_rr",
    "Guarantees",
    "UNIT_ROUNDOFF",
]

Guarantees = Sequence[tuple[float, float, int]]

UNIT_ROUNDOFF = _U = 2.0**-53  # unit roundoff of binary64
_MARGIN = 1.0 + 32 * _U  # relative outward margin of the closed forms (a few roundings each)
_VELTKAMP = 134217729.0  # 2^27 + 1


def _split(x: float) -> tuple[float, float]:
    c = _VELTKAMP * x
    high = c - (c - x)
    return high, x - high


def _count_up(count: int) -> float:
    """The least float >= count."""
    value = float(count)
    return value if value >= count else math.nextafter(value, math.inf)


def upper_sum(pairs: Sequence[tuple[int, float]]) -> float:
    """The least float >= Σ count·x (x >= 0): error-free products (Dekker), a correctly rounded
    ``math.fsum``, one float up unless that sum is exact. ∞ if a term is infinite or the sum
    overflows."""
    parts: list[float] = []
    for count, x in pairs:
        if count == 0 or x == 0:
            continue
        c = _count_up(count)
        p = c * x
        if math.isinf(p):
            return math.inf
        if 1e-290 < abs(p) < 1e300 and abs(c) < 1e299 and abs(x) < 1e299:  # Dekker's split cannot overflow
            ch, cl = _split(c)
            xh, xl = _split(x)
            parts += [p, ((ch * xh - p) + ch * xl + cl * xh) + cl * xl]
        else:  # near the ends of the range the split may overflow or underflow: a relative margin
            parts += [p * _MARGIN, 5e-324]
    if not parts:
        return 0.0
    total = math.fsum(parts)
    if math.isinf(total) or math.fsum([*parts, -total]) <= 0:  # the sum is exact (or overflowed)
        return total
    return math.nextafter(total, math.inf)


def _log_keep(guarantees: Guarantees) -> float:
    """log Π (1 − δ_i)^{count_i}."""
    return math.fsum(count * math.log1p(-delta) for _, delta, count in guarantees)


def _one_minus_exp(x: float) -> float:
    """1 − e^x, which is −∞ (never an OverflowError) for large x."""
    return -math.expm1(x) if x < 700.0 else -math.inf


def _total_delta(guarantees: Guarantees) -> float:
    """An upper bound on Σ count·δ_i."""
    return upper_sum([(count, delta) for _, delta, count in guarantees])


def total_epsilon(guarantees: Guarantees) -> float:
    """An upper bound on Σ count·ε_i."""
    return upper_sum([(count, eps) for eps, _, count in guarantees])


def _up(value: float) -> float:
    """``value`` with the closed forms' outward margin (non-negative values; ∞ stays ∞)."""
    return math.nextafter(value * _MARGIN, math.inf) if 0 < value < math.inf else value


def basic_epsilon(guarantees: Guarantees, delta: float) -> float:
    """Σ count·ε_i if ``delta`` ≥ Σ count·δ_i, else ∞."""
    if delta < _total_delta(guarantees):
        return math.inf
    return total_epsilon(guarantees)


def basic_delta(guarantees: Guarantees, epsilon: float) -> float:
    """Σ count·δ_i if ``epsilon`` ≥ Σ count·ε_i, else 1."""
    if epsilon >= total_epsilon(guarantees):
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
    slack = math.nextafter(delta - _total_delta(guarantees), 0.0)
    if slack <= 0:
        return math.inf
    sum_squares = math.fsum(count * eps * eps for eps, _, count in guarantees)
    drift = _drv_drift(guarantees)
    return _up(math.sqrt(2.0 * -math.log(slack) * sum_squares) + drift)


def drv_delta(guarantees: Guarantees, epsilon: float) -> float:
    """Smallest δ for which :func:`drv_epsilon` gives at most ``epsilon``."""
    sum_squares = math.fsum(count * eps * eps for eps, _, count in guarantees)
    drift = _drv_drift(guarantees)
    if sum_squares == 0:
        return _total_delta(guarantees) if epsilon >= drift else 1.0
    if epsilon <= _up(drift):
        return 1.0
    gap = (epsilon - _up(drift)) / _MARGIN  # gap * gap may overflow to inf (exp(-inf) = 0); ** would raise
    tail = math.exp(-(gap * gap) / (2.0 * _up(sum_squares)))
    return min(1.0, _up(_total_delta(guarantees) + tail))


def kov_heterogeneous_epsilon(guarantees: Guarantees, delta: float) -> float:
    """KOV (2015) Thm. 3.5: the composition is (ε̃, 1 − (1 − δ̃)Π(1 − δ_i))-DP for every δ̃."""
    log_keep = _log_keep(guarantees)
    slack = _one_minus_exp(math.log1p(-delta) - log_keep) / _MARGIN  # δ̃ with 1 − (1−δ̃)Π(1−δ_i) = δ
    if slack <= 0:
        return math.inf
    total = total_epsilon(guarantees)
    sum_squares = math.fsum(count * eps * eps for eps, _, count in guarantees)
    drift = math.fsum(count * eps * math.tanh(eps / 2.0) for eps, _, count in guarantees)
    root = math.sqrt(sum_squares)
    return min(
        total,
        _up(drift + math.sqrt(2.0 * sum_squares * math.log(math.e + root / slack))),
        _up(drift + math.sqrt(2.0 * sum_squares * -math.log(slack))),
    )


def loss_support_size(guarantees: Guarantees) -> int:
    """Number of privacy-loss atoms :func:`optimal_delta` enumerates."""
    size = 1
    for eps, _, count in guarantees:
        if eps > 0:
            size *= count + 1
    return size


class _Losses(NamedTuple):
    """Privacy-loss atoms and their log-probabilities, with a-priori bounds on the absolute error
    of every loss (``loss_err``) and log-probability (``log_prob_err``)."""

    losses: NDArray[np.float64]
    log_probs: NDArray[np.float64]
    loss_err: float
    log_prob_err: float


def _loss_distribution(guarantees: Guarantees) -> _Losses:
    """Privacy-loss atoms L and their log-probabilities under the first distribution of the
    composed randomized-response pairs: L = Σ_j (k_j − 2 l_j) ε_j, l_j ~ Bin(k_j, 1/(1 + e^{ε_j})).

    Error bounds: each log-probability is a sum of a log-binomial coefficient (three ``gammaln``,
    each within 8 u of its magnitude, u = 2^-53) and two products count·log p; each loss is a sum
    of exact integers times ε_j, rounded once per group and once per addition. Twice these bounds
    is what :func:`_log_hockey_stick_upper` adds."""
    losses = np.zeros(1)
    log_probs = np.zeros(1)
    loss_err = 0.0
    log_prob_err = 0.0
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
        magnitude = 3.0 * (float(special.gammaln(count + 1)) + 2.0) + count * (abs(log_p) + abs(log_q) + 2.0)
        log_prob_err += 2 * (16 * _U * magnitude) + 4 * _U * float(np.max(np.abs(log_probs)))
        loss_err += 4 * _U * (count * eps + float(np.max(np.abs(losses))))
    return _Losses(losses, log_probs, loss_err, log_prob_err)


def _log_hockey_stick(losses: NDArray[np.float64], log_probs: NDArray[np.float64], epsilon: float) -> float:
    """log Σ_{L > ε} P(L) (1 − e^{ε − L}), as computed (an estimate: the search uses it)."""
    above = losses > epsilon
    if not np.any(above):
        return -math.inf
    terms = log_probs[above] + np.log(-np.expm1(epsilon - losses[above]))
    return float(special.logsumexp(terms))


def _log_hockey_stick_upper(dist: _Losses, epsilon: float) -> float:
    """An upper bound on log Σ_{L > ε} P(L) (1 − e^{ε − L}): every loss at its largest and every
    log-probability at its largest (the sum increases with both), then the relative error of the
    sum of n positive terms ((n + 8) u) and of the logarithm."""
    losses = dist.losses + dist.loss_err
    above = losses > epsilon
    if not np.any(above):
        return -math.inf
    terms = dist.log_probs[above] + np.log(-np.expm1(epsilon - losses[above]))
    value = float(special.logsumexp(terms))
    n = int(np.count_nonzero(above))
    return value + dist.log_prob_err + (n + 16) * _U + 4 * _U * (abs(value) + 1.0)


def optimal_delta(guarantees: Guarantees, epsilon: float) -> float:
    """Smallest δ at which the composition is (ε, δ)-DP (KOV 2015, Thm. 3.3), rounded up."""
    if any(math.isinf(eps) for eps, _, count in guarantees if count):
        return 1.0
    return _delta_at(_loss_distribution(guarantees), log_keep_lower(guarantees), epsilon)


def log_keep_lower(guarantees: Guarantees) -> float:
    """A lower bound on log Π (1 − δ_i)^{count_i}."""
    terms = [count * math.log1p(-delta) for _, delta, count in guarantees if delta > 0]
    return math.fsum(terms) - 4 * _U * (math.fsum(abs(t) for t in terms) + len(terms))


def _delta_at(dist: _Losses, log_keep: float, epsilon: float) -> float:
    """An upper bound on δ = 1 − Π(1 − δ_i)^{k_i} (1 − δ_RR(ε)) of an enumerated loss distribution."""
    return delta_from_log_rr(_log_hockey_stick_upper(dist, epsilon), log_keep)


def delta_from_log_rr(log_rr: float, log_keep: float) -> float:
    """An upper bound on δ = 1 − e^{log_keep} (1 − e^{log_rr}), from an upper bound on log_rr and a
    lower bound on log_keep <= 0 (Murtagh & Vadhan 2016: an (ε_i, δ_i) release is dominated by
    randomized response with a δ_i atom, so the δ_i keep their own factor).

    Evaluated as (1 − e^{log_keep}) + e^{log_keep + log_rr}, a sum of two non-negative terms each
    within a few ulps (relative), so δ keeps its relative precision down to the subnormals (δ =
    1e-300 is as accurate as δ = 1e-3). δ decreases with log_keep and increases with log_rr, so the
    bounds on the arguments give a bound on δ. Errors: ``expm1`` and ``exp`` within 2 u each; the
    argument of the second ``exp`` is rounded once (absolute error u·|log_keep + log_rr|, a relative
    one after ``exp``); the sum once more; a result in the subnormal range gains one subnormal ulp.
    """
    if log_rr >= 0.0:
        return 1.0
    own = -math.expm1(log_keep) if log_keep < 0 else 0.0
    exponent = log_keep + log_rr
    rr = math.exp(exponent) * (1.0 + (abs(exponent) + 4.0) * 2 * _U) if exponent > -math.inf else 0.0
    delta = (own * (1.0 + 4 * _U) + rr) * (1.0 + 4 * _U)
    if delta <= 0.0:
        return 0.0
    return min(1.0, math.nextafter(delta, math.inf) + (5e-324 if delta < 2.0**-1021 else 0.0))


def optimal_epsilon(guarantees: Guarantees, delta: float) -> float:
    """Smallest ε at which the composition is (ε, ``delta``)-DP (exact, rounded up).

    δ_RR(ε) = Σ_{L > ε} P(L)(1 − e^{ε − L}) is piecewise of the form A − e^ε B between consecutive
    loss atoms, so a bisection over the sorted atoms finds the piece and the piece is solved in
    closed form; the result is then the float next to the boundary where the rounded-up δ(ε)
    (:func:`optimal_delta`) meets ``delta``, found by at most ~130 evaluations.
    """
    if any(math.isinf(eps) for eps, _, count in guarantees if count):
        return math.inf
    total = total_epsilon(guarantees)  # always safe when delta leaves room beyond the releases' δ
    keep = _log_keep(guarantees)
    rr_target = _one_minus_exp(math.log1p(-delta) - keep) if delta < 1 else 1.0  # allowed δ_RR
    if rr_target <= 0 or not delta > -math.expm1(log_keep_lower(guarantees)):
        return basic_epsilon(guarantees, delta)  # no room beyond the releases' own δ
    dist = _loss_distribution(guarantees)
    log_keep = log_keep_lower(guarantees)

    def safe(epsilon: float) -> bool:
        return epsilon >= total or _delta_at(dist, log_keep, epsilon) <= delta

    if safe(0.0):
        return 0.0
    losses, log_probs = dist.losses, dist.log_probs
    atoms = np.unique(losses)[::-1]  # descending
    log_target = math.log(rr_target)
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
    root = min(max(root, float(atoms[high]), 0.0), float(atoms[low]), total)
    return tightest(safe, root, total, 0.0)
