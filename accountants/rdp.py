"""Rényi-DP (moments accountant) curves of single releases, and their conversion to (ε, δ).

Orders α >= 1, ∞ included (as in dp-accounting): order 1 is the KL divergence, which enters only
the bound δ <= sqrt(1 − e^{−KL}); order ∞ is the max divergence, a pure-DP guarantee. A curve that
is 0 at some order means identical output distributions, so ε = 0 and δ = 0.

The moments accountant of Abadi et al. (2016) with log-moment order τ is RDP at
order α = τ + 1 with ε_α = α_M(τ)/τ (Mironov 2017, Prop. 3 gives the "classic" conversion
ε = ε_α + ln(1/δ)/(α − 1)); the "improved" conversion (Canonne, Kamath & Steinke 2020, Prop. 12;
Asoodeh et al. 2020) is what dp-accounting computes and is never larger.
"""

from __future__ import annotations

import math

import numpy as np
from dp_accounting.rdp import rdp_privacy_accountant as dp_rdp
from numpy.typing import ArrayLike, NDArray

from accountants.validation import check_delta, check_epsilon

__all__ = [
    "DEFAULT_ORDERS",
    "FloatArray",
    "gaussian_rdp",
    "laplace_rdp",
    "pure_dp_rdp",
    "repeat_and_select_rdp",
    "truncated_negative_binomial_gamma",
    "rdp_to_epsilon",
    "rdp_to_delta",
]

#: RDP orders and curves: float64 arrays.
FloatArray = NDArray[np.float64]

_U = 2.0**-53  # unit roundoff of binary64

_TINY = 5e-324  # the least positive float: an upper bound on any positive value that underflows

#: Fine near 1, every integer to 256, geometric up to 10^6 and more coarsely to 10^12, and ∞:
#: μ-GDP curves from μ ≈ 1e-3 to 50 find their optimum order inside the grid, and nearly pure
#: releases (Laplace, randomized response, repeat-and-select of them) reach their pure-DP limit at
#: the high orders. A superset of dp-accounting's default orders, so the same ledger is never
#: looser here than in dp-accounting's ``RdpAccountant``.
DEFAULT_ORDERS: FloatArray = np.unique(
    np.concatenate(
        [
            1.0 + np.geomspace(1e-3, 1.0, 40),
            np.linspace(2.0, 256.0, 255),
            np.round(np.geomspace(256.0, 1e6, 120)),
            np.round(np.geomspace(1e6, 1e12, 25)),
            np.asarray(dp_rdp.DEFAULT_RDP_ORDERS, dtype=float),
            [math.inf],
        ]
    )
)


def gaussian_rdp(orders: ArrayLike, noise_multiplier: float) -> FloatArray:
    """RDP of one Gaussian release: ε_α = α / (2 z²) (Mironov 2017, Prop. 7; the KL divergence at
    α = 1). A positive value that underflows is the least positive float, never 0."""
    orders = np.asarray(orders, dtype=float)
    if noise_multiplier == 0:
        return np.full(orders.shape, math.inf)
    if math.isinf(noise_multiplier):
        return np.zeros_like(orders)
    with np.errstate(over="ignore", under="ignore"):  # a nearly noiseless release: ε_α = ∞ is the right answer
        curve: FloatArray = np.maximum(orders / 2.0 / noise_multiplier / noise_multiplier, _TINY)
    return curve


def pure_dp_rdp(orders: ArrayLike, epsilon: float) -> FloatArray:
    """Tight RDP of an ε-DP release: that of binary randomized response, its dominating pair.

    Randomized response with likelihood ratio e^ε dominates every ε-DP mechanism (Kairouz, Oh &
    Viswanath 2015, Thm. 2.2), so its Rényi divergence bounds theirs:
    D_α = log(S)/(α − 1), S − 1 = (e^{αε} − 1)(1 − e^{(1−α)ε})/(1 + e^ε), which is ≤ min(ε, αε²/2)
    (Bun & Steinke 2016, Prop. 3.3); at α = 1 the KL divergence ε·tanh(ε/2), at α = ∞ ε itself.
    Where the evaluation underflows (a tiny ε), the bound min(ε, αε²/2) is used instead of 0.
    """
    orders = np.asarray(orders, dtype=float)
    if epsilon == 0:
        return np.zeros_like(orders)
    if math.isinf(epsilon):
        return np.full_like(orders, math.inf)
    finite = np.where(np.isfinite(orders), orders, 2.0)
    a_eps = finite * epsilon
    # each branch evaluated where it is exact; a tiny ε may underflow a factor to 0 (log = −∞, D_α = 0)
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        large = a_eps + np.log1p(-np.exp(-np.maximum(a_eps, 30.0)))
        log_expm1_a = np.where(a_eps > 30, large, np.log(np.expm1(np.minimum(a_eps, 30.0))))
        log_second = np.log(-np.expm1((1.0 - finite) * epsilon))
        log_s_minus_1 = log_expm1_a + log_second - np.logaddexp(0.0, epsilon)
        divergence = np.logaddexp(0.0, log_s_minus_1) / (finite - 1.0)
        zcdp = np.maximum(finite * epsilon * epsilon / 2.0 * (1.0 + 4 * _U), _TINY)
    divergence = np.where(np.isnan(divergence) | (divergence <= 0), zcdp, divergence)
    divergence = np.where(orders == 1.0, epsilon * math.tanh(epsilon / 2.0), divergence)
    divergence = np.where(np.isinf(orders), epsilon, divergence)
    bound: FloatArray = np.minimum(divergence, epsilon)  # numpy's ufunc stubs type this Any
    return bound


def laplace_rdp(orders: ArrayLike, noise_multiplier: float) -> FloatArray:
    """RDP of one Laplace release with scale b (sensitivity 1), ε = 1/b (Mironov 2017, Prop. 6):
    D_α = log(S)/(α − 1), S = α/(2α − 1) e^{(α−1)ε} + (α − 1)/(2α − 1) e^{−αε}; at α = 1 the KL
    divergence ε + e^{−ε} − 1, at α = ∞ ε itself.

    Evaluated without cancellation: with g(x) = e^x − 1 − x >= 0 the linear terms of S − 1 cancel
    exactly, S − 1 = (α g((α−1)ε) + (α − 1) g(−αε))/(2α − 1), a sum of non-negative terms, g from
    its Taylor series near 0; where (α − 1)ε > 1, log S is summed in log space. Each value is within
    a few roundings (callers add their margin); a positive value that underflows is the least
    positive float.
    """
    orders = np.asarray(orders, dtype=float)
    if noise_multiplier == 0:
        return np.full(orders.shape, math.inf)
    if math.isinf(noise_multiplier):
        return np.zeros_like(orders)
    epsilon = 1.0 / noise_multiplier
    if math.isinf(epsilon):
        return np.full(orders.shape, math.inf)
    finite = np.where(np.isfinite(orders), orders, 2.0)
    a1 = finite - 1.0
    with np.errstate(divide="ignore", invalid="ignore", under="ignore", over="ignore"):
        small = (finite * _excess_exp(a1 * epsilon) + a1 * _excess_exp(-finite * epsilon)) / (2.0 * finite - 1.0)
        near = np.log1p(small) / a1
        log_s = np.logaddexp(np.log(finite) + a1 * epsilon, np.log(a1) - finite * epsilon) - np.log(2.0 * finite - 1.0)
        far = log_s / a1
        divergence = np.where(a1 * epsilon > 1.0, far, near)
    divergence = np.where(orders == 1.0, float(_excess_exp(np.asarray(-epsilon))), divergence)
    divergence = np.where(np.isinf(orders), epsilon, divergence)
    divergence = np.where(np.isnan(divergence), epsilon, np.maximum(divergence, _TINY))
    bound: FloatArray = np.minimum(divergence, epsilon)
    return bound


def _excess_exp(x: FloatArray) -> FloatArray:
    """g(x) = e^x − 1 − x (>= 0), elementwise, without cancellation: its Taylor series
    Σ_{k>=2} x^k/k! where |x| < 1/2 (30 terms: the rest is below 2^-150 relative), else expm1(x) − x
    (which loses at most a factor 5 of relative accuracy there)."""
    x = np.asarray(x, dtype=float)
    inner = np.where(np.abs(x) < 0.5, x, 0.0)
    series = np.zeros_like(inner)
    for k in range(31, 1, -1):  # Horner: x²/2! (1 + x/3 (1 + x/4 (…)))
        series = 1.0 + inner / k * series if k > 2 else inner * inner / 2.0 * series
    with np.errstate(over="ignore"):
        direct = np.expm1(x) - x
    result: FloatArray = np.where(np.abs(x) < 0.5, series, direct)
    return result


def repeat_and_select_rdp(orders: ArrayLike, rdp: ArrayLike, mean: float, shape: float) -> FloatArray:
    """RDP of running a mechanism a random number K of times and releasing only the best run
    (Papernot & Steinke 2022), from the RDP curve ``rdp`` of one run at ``orders``.

    K is truncated negative binomial with ``shape`` η and mean ``mean`` (η = 0 logarithmic, η = 1
    geometric), or Poisson for η = ∞:

    - η < ∞ (their Thm. 2): ε'_λ = ε_λ + log(E[K])/(λ − 1) + (1 + η) min_λ̂ [(1 − 1/λ̂) ε_λ̂ + log(1/γ)/λ̂],
      with γ the distribution's halting probability (:func:`truncated_negative_binomial_gamma`);
    - η = ∞ (their Thm. 6): ε'_λ = ε_λ + E[K] δ̂ + log(E[K])/(λ − 1), δ̂ the base's δ at
      ε̂ = log(1 + 1/(λ − 1)) (from its RDP curve, :func:`rdp_to_delta`, rounded up);

    then, as D_λ is non-decreasing in λ, each order takes the least value at any order above it.
    The more orders the curve has (high ones especially: the minimum over λ̂ and δ̂ use them all),
    the tighter the result. Order 1 gets ∞ (the theorems need λ > 1). Callers add their margin for
    the few roundings.
    """
    orders, rdp = _check_curve(orders, rdp)
    mean, shape = float(mean), float(shape)
    if not 1.0 <= mean < math.inf or math.isnan(shape) or shape < 0:
        raise ValueError(f"mean must be a finite number >= 1 and shape >= 0, got mean={mean!r}, shape={shape!r}")
    above_one = orders > 1.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_mean_term = np.where(np.isinf(orders), 0.0, math.log(mean) / (orders - 1.0))
        if math.isinf(shape):
            hat_epsilons = np.where(np.isinf(orders), 0.0, np.log1p(1.0 / (orders - 1.0)))
            hat_deltas = np.array(
                [
                    _improved_delta(orders, rdp, float(e))[0] if a > 1.0 else math.inf
                    for a, e in zip(orders, hat_epsilons, strict=True)
                ]
            )
            out = rdp + mean * hat_deltas + log_mean_term
        else:
            log_inverse_gamma = -math.log(truncated_negative_binomial_gamma(mean, shape))
            terms = (1.0 - 1.0 / orders) * rdp + np.where(np.isinf(orders), 0.0, log_inverse_gamma / orders)
            terms = np.where(np.isnan(terms), math.inf, terms)
            out = rdp + log_mean_term + (1.0 + shape) * float(np.min(terms))
    out = np.where(above_one & ~np.isnan(out), out, math.inf)
    order = np.argsort(orders, kind="stable")
    monotone = np.empty_like(out)
    monotone[order] = np.minimum.accumulate(out[order][::-1])[::-1]
    return monotone


def truncated_negative_binomial_gamma(mean: float, shape: float) -> float:
    """The halting probability γ in (0, 1] of the truncated negative binomial distribution with
    ``shape`` η < ∞ and this ``mean`` (Papernot & Steinke 2022, Def. 1: E[K] = η(1 − γ)/(γ(1 − γ^η)),
    (1/γ − 1)/log(1/γ) at η = 0, 1/γ at η = 1), rounded down: the mean decreases in γ, so the γ
    returned has a mean at least ``mean`` (the bound of :func:`repeat_and_select_rdp` grows with
    log(1/γ), so this is the conservative side). Bisection in binary64 (at most 2,100 steps), so
    it always ends, whatever type ``mean`` came as."""
    mean, shape = float(mean), float(shape)
    if shape == 1.0:
        return math.nextafter(1.0 / mean, 0.0) if mean > 1.0 else 1.0
    if mean == 1.0:
        return 1.0
    low, high = 0.0, min(1.0, 2.0 * (shape + 1.0) / mean)
    for _ in range(2100):  # enough to reach adjacent floats from [0, 1]
        middle = (low + high) / 2.0
        if not low < middle < high:
            break
        if _truncated_negative_binomial_mean(middle, shape) < mean:
            high = middle
        else:
            low = middle
    return low if low > 0 else _TINY


def _truncated_negative_binomial_mean(gamma: float, shape: float) -> float:
    """E[K] of the truncated negative binomial distribution (see :func:`truncated_negative_binomial_gamma`)."""
    log_gamma = math.log(gamma)
    if log_gamma == 0:
        return 1.0
    odds = (1.0 - gamma) / gamma
    if shape == 0:
        return odds / -log_gamma
    return shape * odds / -math.expm1(shape * log_gamma)


def rdp_to_epsilon(
    orders: ArrayLike, rdp: ArrayLike, delta: float, conversion: str = "improved"
) -> tuple[float, float]:
    """(ε, optimal order) for target δ, rounded up. ``conversion``: "improved" or "classic".

    At each order α the improved conversion (Canonne, Kamath & Steinke 2020, Prop. 12; what
    dp-accounting's ``compute_epsilon`` computes) is ε = ε_α + log(1 − 1/α) − log(δα)/(α − 1) for
    α > 1.01, and ε = 0 where δ ≥ sqrt(1 − e^{−ε_α}) (the KL bound); the classic one (Mironov 2017,
    Prop. 3) is ε_α + log(1/δ)/(α − 1). At α = ∞ both are ε_∞ (pure DP); at α = 1 only the KL
    bound applies. Each is evaluated with a few roundings, so it is stepped up by 8 units of 2^-53
    of the sum of its terms' magnitudes (and the KL test is made with a margin), then minimised over
    the orders: every order gives a valid bound, so the minimum is one too. A curve that is 0 at
    some order gives ε = 0 (identical outputs).
    """
    delta = check_delta(delta)
    orders, rdp = _check_curve(orders, rdp)
    if conversion not in ("improved", "classic"):
        raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
    zero = np.flatnonzero(rdp == 0)
    if zero.size:
        return 0.0, float(orders[zero[0]])
    infinite = np.isinf(orders)
    if delta == 0:  # only a pure-DP order answers
        eps = np.where(infinite, rdp, math.inf)
    else:
        log_inverse = -math.log(delta)
        finite = np.where(infinite, 2.0, orders)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # ε_α = ∞ gives ε = ∞ at that order
            if conversion == "classic":
                tail = log_inverse / (finite - 1.0)
                eps = rdp + tail
                eps = eps + 8 * _U * (rdp + tail)
            else:
                shift = np.log1p(-1.0 / finite)
                tail = (log_inverse - np.log(finite)) / (finite - 1.0)
                eps = rdp + shift + tail
                eps = eps + 8 * _U * (rdp - shift + np.abs(tail))
                eps = np.where(finite > 1.01, eps, math.inf)
                kl_zero = delta * delta * (1.0 - 8 * _U) >= -np.expm1(-rdp) * (1.0 + 8 * _U)
                eps = np.where(kl_zero, 0.0, eps)
        eps = np.where(infinite, np.where(kl_zero, 0.0, rdp) if conversion == "improved" else rdp, eps)
    eps = np.where(np.isnan(eps), math.inf, eps)
    index = int(np.argmin(eps))
    value = max(0.0, float(eps[index]))
    return (math.nextafter(value, math.inf) if 0 < value < math.inf else value), float(orders[index])


def rdp_to_delta(
    orders: ArrayLike, rdp: ArrayLike, epsilon: float, conversion: str = "improved"
) -> tuple[float, float]:
    """(δ, optimal order) for target ε, rounded up. ``conversion``: "improved" or "classic".

    At α = ∞, δ = 0 once ε >= ε_∞ (pure DP); a curve that is 0 at some order gives δ = 0."""
    epsilon = check_epsilon(epsilon)
    orders, rdp = _check_curve(orders, rdp)
    if conversion not in ("improved", "classic"):
        raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
    zero = np.flatnonzero(rdp == 0)
    if zero.size:
        return 0.0, float(orders[zero[0]])
    if conversion == "improved":
        return _improved_delta(orders, rdp, epsilon)
    with np.errstate(over="ignore", invalid="ignore"):
        log_delta = (orders - 1.0) * (rdp - epsilon)
        log_delta = log_delta + 8 * _U * (orders - 1.0) * (rdp + epsilon)
    log_delta = np.where(np.isinf(orders), _pure_log_delta(rdp, epsilon), log_delta)
    log_delta = np.where(np.isnan(log_delta), math.inf, log_delta)
    index = int(np.argmin(log_delta))
    return _delta_up(float(log_delta[index])), float(orders[index])


def _pure_log_delta(rdp: FloatArray, epsilon: float) -> FloatArray:
    """log δ at order ∞: −∞ (δ = 0) where ε >= ε_∞, else +∞ (no bound)."""
    result: FloatArray = np.where(rdp <= epsilon, -math.inf, math.inf)
    return result


def _delta_up(log_delta: float) -> float:
    """The least float above e^log_delta (capped at 1; the smallest subnormal if it underflows)."""
    if log_delta >= 0:
        return 1.0
    if log_delta == -math.inf:
        return 0.0
    return min(1.0, max(math.nextafter(math.exp(log_delta) * (1.0 + 4 * _U), math.inf), _TINY))


def _improved_delta(orders: FloatArray, rdp: FloatArray, epsilon: float) -> tuple[float, float]:
    """The improved conversion to δ, vectorised: at each order the smaller of the KL bound
    δ ≤ sqrt(1 − e^{−ε_α}) and, for α > 1.01, the bound of Canonne, Kamath & Steinke (2020,
    Prop. 12), log δ ≤ (α − 1)(ε_α − ε + log(1 − 1/α)) − log α (at α = ∞: δ = 0 once ε >= ε_∞);
    then the best order, rounded up (8 units of 2^-53 of the terms' magnitudes in log δ).

    The same bounds as dp-accounting's ``compute_delta``, computed so that a tiny ε_α (below
    2^-53, where e^{−ε_α} rounds to 1) gives its tiny δ instead of a math domain error, and a curve
    that is 0 somewhere gives δ = 0 instead of a NaN.
    """
    zero = np.flatnonzero(rdp <= 0)
    if zero.size:
        return 0.0, float(orders[zero[0]])
    infinite = np.isinf(orders)
    finite = np.where(infinite, 2.0, orders)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # ε_α = ∞ gives δ = 1 at that order
        kl = 0.5 * np.log(-np.expm1(-rdp))
        kl = kl + 8 * _U * (np.abs(kl) + 1.0)
        shift = np.log1p(-1.0 / finite)
        log_orders = np.log(finite)
        tail = (finite - 1.0) * (rdp - epsilon + shift) - log_orders
        tail = tail + 8 * _U * ((finite - 1.0) * (rdp + epsilon - shift) + log_orders)
    tail = np.where(np.isnan(tail), math.inf, tail)
    log_delta = np.where(finite > 1.01, np.minimum(kl, tail), kl)
    log_delta = np.where(infinite, np.minimum(kl, _pure_log_delta(rdp, epsilon)), log_delta)
    log_delta = np.where(np.isnan(log_delta), math.inf, log_delta)
    index = int(np.argmin(log_delta))
    return _delta_up(float(log_delta[index])), float(orders[index])


def _check_curve(orders: ArrayLike, rdp: ArrayLike) -> tuple[FloatArray, FloatArray]:
    orders = np.asarray(orders, dtype=float)
    rdp = np.asarray(rdp, dtype=float)
    if orders.shape != rdp.shape or orders.ndim != 1 or orders.size == 0:
        raise ValueError(f"orders and rdp must be 1-D of equal, non-zero length, got {orders.shape} and {rdp.shape}")
    if np.any(np.isnan(orders)) or np.any(orders < 1):
        raise ValueError("RDP orders must all be >= 1 (∞ allowed)")
    if np.any(np.isnan(rdp)):
        raise ValueError("rdp contains NaN")
    if np.any(rdp < 0):
        raise ValueError("rdp must be >= 0 (an upper bound on a divergence)")
    return orders, rdp
