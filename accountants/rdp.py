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

#: Fine near 1, every integer to 256, then geometric up to 10^6: μ-GDP curves from μ ≈ 1e-3 to 50
#: find their optimum order inside the grid.
DEFAULT_ORDERS: FloatArray = np.unique(
    np.concatenate(
        [
            1.0 + np.geomspace(1e-3, 1.0, 40),
            np.linspace(2.0, 256.0, 255),
            np.round(np.geomspace(256.0, 1e6, 120)),
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
    """(ε, optimal order) for target δ. ``conversion``: "improved" or "classic"."""
    delta = check_delta(delta)
    orders, rdp = _check_curve(orders, rdp)
    if conversion == "improved":
        with np.errstate(over="ignore"):  # huge curves overflow to ε = ∞, the right answer
            eps, order = dp_rdp.compute_epsilon(orders, rdp, delta)
        return float(eps), float(order)
    if conversion != "classic":
        raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
    if delta == 0:
        return (0.0, float(orders[0])) if np.all(rdp == 0) else (math.inf, float(orders[0]))
    eps = rdp + math.log(1.0 / delta) / (orders - 1.0)
    index = int(np.argmin(eps))
    return max(0.0, float(eps[index])), float(orders[index])


def rdp_to_delta(
    orders: ArrayLike, rdp: ArrayLike, epsilon: float, conversion: str = "improved"
) -> tuple[float, float]:
    """(δ, optimal order) for target ε. ``conversion``: "improved" or "classic"."""
    epsilon = check_epsilon(epsilon)
    orders, rdp = _check_curve(orders, rdp)
    if conversion == "improved":
        return _improved_delta(orders, rdp, epsilon)
    if conversion != "classic":
        raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
    with np.errstate(over="ignore", invalid="ignore"):
        log_delta = (orders - 1.0) * (rdp - epsilon)
    log_delta = np.where(np.isnan(log_delta), math.inf, log_delta)
    index = int(np.argmin(log_delta))
    return min(1.0, math.exp(min(0.0, float(log_delta[index])))), float(orders[index])


def _improved_delta(orders: FloatArray, rdp: FloatArray, epsilon: float) -> tuple[float, float]:
    """The improved conversion to δ, vectorised: at each order the smaller of the KL bound
    δ ≤ sqrt(1 − e^{−ε_α}) and, for α > 1.01, the bound of Canonne, Kamath & Steinke (2020,
    Prop. 12), log δ ≤ (α − 1)(ε_α − ε + log(1 − 1/α)) − log α; then the best order.

    The same bounds as dp-accounting's ``compute_delta``, computed so that a tiny ε_α (below
    2^-53, where e^{−ε_α} rounds to 1) gives its tiny δ instead of a math domain error.
    """
    with np.errstate(over="ignore", divide="ignore"):  # ε_α = ∞ gives δ = 1 at that order
        kl = np.where(rdp > 0, 0.5 * np.log(-np.expm1(-np.maximum(rdp, 0.0))), -math.inf)
        tail = (orders - 1.0) * (rdp - epsilon + np.log1p(-1.0 / orders)) - np.log(orders)
    log_delta = np.where(orders > 1.01, np.minimum(kl, tail), kl)
    index = int(np.argmin(log_delta))
    return min(math.exp(min(0.0, float(log_delta[index]))), 1.0), float(orders[index])


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
