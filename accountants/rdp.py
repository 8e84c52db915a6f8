"""Rényi-DP (moments accountant) curves of single releases, and their conversion to (ε, δ).

Orders α > 1. The moments accountant of Abadi et al. (2016) with log-moment order τ is RDP at
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
    "pure_dp_rdp",
    "rdp_to_epsilon",
    "rdp_to_delta",
]

#: RDP orders and curves: float64 arrays.
FloatArray = NDArray[np.float64]

_U = 2.0**-53  # unit roundoff of binary64

#: Fine near 1, every integer to 256, then geometric up to 10^6: μ-GDP curves from μ ≈ 1e-3 to 50
#: find their optimum order inside the grid. A superset of dp-accounting's default orders, so the
#: same ledger is never looser here than in dp-accounting's ``RdpAccountant``.
DEFAULT_ORDERS: FloatArray = np.unique(
    np.concatenate(
        [
            1.0 + np.geomspace(1e-3, 1.0, 40),
            np.linspace(2.0, 256.0, 255),
            np.round(np.geomspace(256.0, 1e6, 120)),
            np.asarray(dp_rdp.DEFAULT_RDP_ORDERS, dtype=float),
        ]
    )
)


def gaussian_rdp(orders: ArrayLike, noise_multiplier: float) -> FloatArray:
    """RDP of one Gaussian release: ε_α = α / (2 z²) (Mironov 2017, Prop. 7)."""
    if noise_multiplier == 0:
        return np.full(np.shape(orders), math.inf)
    with np.errstate(over="ignore"):  # a nearly noiseless release: ε_α = ∞ is the right answer
        curve: FloatArray = np.asarray(orders, dtype=float) / 2.0 / noise_multiplier / noise_multiplier
    return curve


def pure_dp_rdp(orders: ArrayLike, epsilon: float) -> FloatArray:
    """Tight RDP of an ε-DP release: that of binary randomized response, its dominating pair.

    Randomized response with likelihood ratio e^ε dominates every ε-DP mechanism (Kairouz, Oh &
    Viswanath 2015, Thm. 2.2), so its Rényi divergence bounds theirs:
    D_α = log(S)/(α − 1), S − 1 = (e^{αε} − 1)(1 − e^{(1−α)ε})/(1 + e^ε), which is ≤ min(ε, αε²/2).
    """
    orders = np.asarray(orders, dtype=float)
    if epsilon == 0:
        return np.zeros_like(orders)
    if math.isinf(epsilon):
        return np.full_like(orders, math.inf)
    a_eps = orders * epsilon
    # each branch evaluated where it is exact; a tiny ε may underflow a factor to 0 (log = −∞, D_α = 0)
    with np.errstate(divide="ignore"):
        large = a_eps + np.log1p(-np.exp(-np.maximum(a_eps, 30.0)))
        log_expm1_a = np.where(a_eps > 30, large, np.log(np.expm1(np.minimum(a_eps, 30.0))))
        log_second = np.log(-np.expm1((1.0 - orders) * epsilon))
    log_s_minus_1 = log_expm1_a + log_second - np.logaddexp(0.0, epsilon)
    divergence = np.logaddexp(0.0, log_s_minus_1) / (orders - 1.0)
    bound: FloatArray = np.minimum(divergence, epsilon)  # numpy's ufunc stubs type this Any
    return bound


def rdp_to_epsilon(
    orders: ArrayLike, rdp: ArrayLike, delta: float, conversion: str = "improved"
) -> tuple[float, float]:
    """(ε, optimal order) for target δ, rounded up. ``conversion``: "improved" or "classic".

    At each order α the improved conversion (Canonne, Kamath & Steinke 2020, Prop. 12; what
    dp-accounting's ``compute_epsilon`` computes) is ε = ε_α + log(1 − 1/α) − log(δα)/(α − 1) for
    α > 1.01, and ε = 0 where δ ≥ sqrt(1 − e^{−ε_α}) (the KL bound); the classic one (Mironov 2017,
    Prop. 3) is ε_α + log(1/δ)/(α − 1). Each is evaluated with a few roundings, so it is stepped up
    by 8 units of 2^-53 of the sum of its terms' magnitudes (and the KL test is made with a margin),
    then minimised over the orders: every order gives a valid bound, so the minimum is one too.
    """
    delta = check_delta(delta)
    orders, rdp = _check_curve(orders, rdp)
    if conversion not in ("improved", "classic"):
        raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
    if delta == 0:
        return (0.0, float(orders[0])) if np.all(rdp == 0) else (math.inf, float(orders[0]))
    log_inverse = -math.log(delta)
    with np.errstate(over="ignore", invalid="ignore"):  # ε_α = ∞ gives ε = ∞ at that order
        if conversion == "classic":
            tail = log_inverse / (orders - 1.0)
            eps = rdp + tail
            eps = eps + 8 * _U * (rdp + tail)
        else:
            shift = np.log1p(-1.0 / orders)
            tail = (log_inverse - np.log(orders)) / (orders - 1.0)
            eps = rdp + shift + tail
            eps = eps + 8 * _U * (rdp - shift + np.abs(tail))
            eps = np.where(orders > 1.01, eps, math.inf)
            kl_zero = delta * delta * (1.0 - 8 * _U) >= -np.expm1(-rdp) * (1.0 + 8 * _U)
            eps = np.where(kl_zero, 0.0, eps)
    eps = np.where(np.isnan(eps), math.inf, eps)
    index = int(np.argmin(eps))
    value = max(0.0, float(eps[index]))
    return (math.nextafter(value, math.inf) if 0 < value < math.inf else value), float(orders[index])


def rdp_to_delta(
    orders: ArrayLike, rdp: ArrayLike, epsilon: float, conversion: str = "improved"
) -> tuple[float, float]:
    """(δ, optimal order) for target ε, rounded up. ``conversion``: "improved" or "classic"."""
    epsilon = check_epsilon(epsilon)
    orders, rdp = _check_curve(orders, rdp)
    if conversion == "improved":
        return _improved_delta(orders, rdp, epsilon)
    if conversion != "classic":
        raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
    with np.errstate(over="ignore", invalid="ignore"):
        log_delta = (orders - 1.0) * (rdp - epsilon)
        log_delta = log_delta + 8 * _U * (orders - 1.0) * (rdp + epsilon)
    log_delta = np.where(np.isnan(log_delta), math.inf, log_delta)
    index = int(np.argmin(log_delta))
    return _delta_up(float(log_delta[index])), float(orders[index])


def _delta_up(log_delta: float) -> float:
    """The least float above e^log_delta (capped at 1; the smallest subnormal if it underflows)."""
    if log_delta >= 0:
        return 1.0
    if log_delta == -math.inf:
        return 0.0
    return min(1.0, max(math.nextafter(math.exp(log_delta) * (1.0 + 4 * _U), math.inf), 5e-324))


def _improved_delta(orders: FloatArray, rdp: FloatArray, epsilon: float) -> tuple[float, float]:
    """The improved conversion to δ, vectorised: at each order the smaller of the KL bound
    δ ≤ sqrt(1 − e^{−ε_α}) and, for α > 1.01, the bound of Canonne, Kamath & Steinke (2020,
    Prop. 12), log δ ≤ (α − 1)(ε_α − ε + log(1 − 1/α)) − log α; then the best order, rounded up
    (8 units of 2^-53 of the terms' magnitudes in log δ).

    The same bounds as dp-accounting's ``compute_delta``, computed so that a tiny ε_α (below
    2^-53, where e^{−ε_α} rounds to 1) gives its tiny δ instead of a math domain error.
    """
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # ε_α = ∞ gives δ = 1 at that order
        kl = np.where(rdp > 0, 0.5 * np.log(-np.expm1(-np.maximum(rdp, 0.0))), -math.inf)
        kl = kl + 8 * _U * (np.abs(kl) + 1.0)
        shift = np.log1p(-1.0 / orders)
        log_orders = np.log(orders)
        tail = (orders - 1.0) * (rdp - epsilon + shift) - log_orders
        tail = tail + 8 * _U * ((orders - 1.0) * (rdp + epsilon - shift) + log_orders)
    tail = np.where(np.isnan(tail), math.inf, tail)
    log_delta = np.where(orders > 1.01, np.minimum(kl, tail), kl)
    index = int(np.argmin(log_delta))
    return _delta_up(float(log_delta[index])), float(orders[index])


def _check_curve(orders: ArrayLike, rdp: ArrayLike) -> tuple[FloatArray, FloatArray]:
    orders = np.asarray(orders, dtype=float)
    rdp = np.asarray(rdp, dtype=float)
    if orders.shape != rdp.shape or orders.ndim != 1:
        raise ValueError(f"orders and rdp must be 1-D of equal length, got {orders.shape} and {rdp.shape}")
    if np.any(orders <= 1):
        raise ValueError("RDP orders must all be > 1")
    if np.any(np.isnan(rdp)):
        raise ValueError("rdp contains NaN")
    return orders, rdp
