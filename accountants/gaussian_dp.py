"""The exact (ε, δ) trade-off of a Gaussian mechanism, and so of any composition of them.

Composing Gaussian releases with noise multipliers z_t (standard deviation over L2 sensitivity) is
exactly μ-GDP with μ = sqrt(Σ_t 1/z_t²) (Dong, Roth & Su 2022, Cor. 3.3), and μ-GDP holds exactly
the (ε, δ(ε)) guarantees δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm. 8;
Dong, Roth & Su Cor. 2.13). Everything here is computed in log space.
"""

from __future__ import annotations

import math

from scipy import optimize, special

from accountants.validation import check_delta, check_epsilon

__all__ = ["gaussian_delta", "gaussian_epsilon", "gaussian_mu"]


def _log_delta(mu: float, epsilon: float) -> float:
    """log δ(ε) for μ-GDP, stable for large ε and small μ."""
    a = -epsilon / mu + mu / 2.0
    b = -epsilon / mu - mu / 2.0
    log_first = special.log_ndtr(a)
    log_second = epsilon + special.log_ndtr(b)
    if log_second >= log_first:
        return -math.inf
    return log_first + math.log1p(-math.exp(log_second - log_first))


def gaussian_delta(mu: float, epsilon: float) -> float:
    """δ(ε) of μ-GDP: the smallest δ with (ε, δ)-DP (exact).

    Args:
      mu: the GDP parameter, sqrt(Σ Δ_t²/σ_t²) over the composed Gaussian releases.
      epsilon: the target ε (nats).
    """
    epsilon = check_epsilon(epsilon, allow_inf=True)
    mu = check_epsilon(mu, name="mu", allow_inf=True)
    if mu == 0 or math.isinf(epsilon):
        return 0.0
    if math.isinf(mu):
        return 1.0
    return math.exp(_log_delta(mu, epsilon))


def gaussian_epsilon(mu: float, delta: float) -> float:
    """The smallest ε with δ(ε) ≤ ``delta`` under μ-GDP, rounded up (never below the true value)."""
    delta = check_delta(delta)
    mu = check_epsilon(mu, name="mu", allow_inf=True)
    if mu == 0:
        return 0.0
    if math.isinf(mu) or delta == 0:
        return math.inf
    log_target = math.log(delta)
    if _log_delta(mu, 0.0) <= log_target:
        return 0.0
    high = max(1.0, mu * mu)
    while _log_delta(mu, high) > log_target:
        high *= 2.0
    root = optimize.brentq(lambda eps: _log_delta(mu, eps) - log_target, 0.0, high, xtol=1e-15, rtol=1e-15)
    while math.exp(_log_delta(mu, root)) > delta:  # step to the safe side of the root
        root = math.nextafter(root, math.inf) + 1e-15 * root
    return root


def gaussian_mu(epsilon: float, delta: float) -> float:
    """The largest μ whose μ-GDP guarantee implies (ε, δ)-DP (δ(ε) is increasing in μ)."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    log_target = math.log(delta)
    low = high = 1.0
    while _log_delta(high, epsilon) < log_target:
        low, high = high, high * 2.0
    while _log_delta(low, epsilon) >= log_target:
        low, high = low / 2.0, low
    root = optimize.brentq(lambda mu: _log_delta(mu, epsilon) - log_target, low, high, xtol=1e-16 * low, rtol=1e-15)
    while math.exp(_log_delta(root, epsilon)) > delta:
        root = math.nextafter(root, 0.0) - 1e-15 * root
    return root
