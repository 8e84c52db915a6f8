"""Soundness fuzz: for valid random ledgers, every accountant's ε is at least the exact optimum,
computed independently with mpmath at 40 digits (far more precise than the comparison needs).

- Gaussian releases: their composition is exactly μ-GDP with μ² = Σ 1/σ_t² (Dong, Roth & Su 2022,
  Cor. 3.3), whose (ε, δ) curve is δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018,
  Thm. 8).
- Pure ε₀-DP releases: the worst case is randomized response, whose k-fold privacy loss is
  (k − 2l)ε₀ with probability C(k, l) e^{(k−l)ε₀} / (1 + e^{ε₀})^k, so the exact optimal curve is
  δ(ε) = Σ_l C(k, l) [e^{(k−l)ε₀} − e^ε e^{lε₀}]₊ / (1 + e^{ε₀})^k (Kairouz, Oh & Viswanath 2015).

The exact ε at δ is the root of the decreasing δ(ε), found by bisection in mpmath to 1e-24
relative (far below an ulp). Every accountant rounds its results outward, so none gets any
tolerance: an ε even one ulp below the truth fails.
"""

from __future__ import annotations

import math

import mpmath
import pytest
from dp_accounting import dp_event
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import (
    AdvancedCompositionAccountant,
    ExactGaussianAccountant,
    MomentsAccountant,
    PLDAccountant,
    PureEpsilonAccountant,
)
from accountants.events import PureDpEvent

#: mpmath's working precision here (set per computation: other tests change the global one).
DIGITS = 30

ACCOUNTANTS = {
    "exact_gaussian": ExactGaussianAccountant,
    "rdp": MomentsAccountant,
    "moments_classic": MomentsAccountant.classic,
    "pld": PLDAccountant,
    "optimal_composition": AdvancedCompositionAccountant,
    "pure_sum": PureEpsilonAccountant,
}


def exact_epsilon(curve, delta: float) -> mpmath.mpf:
    """The smallest ε ≥ 0 with δ(ε) ≤ ``delta`` for the curve ``curve()`` builds (δ(ε) decreasing),
    by bisection at ``DIGITS`` digits."""
    with mpmath.workdps(DIGITS):
        return bisect_epsilon(curve(), mpmath.mpf(delta))


def bisect_epsilon(delta_of, target: mpmath.mpf) -> mpmath.mpf:
    """The smallest ε ≥ 0 with delta_of(ε) ≤ target, to 1e-24 relative (delta_of decreasing)."""
    if delta_of(mpmath.mpf(0)) <= target:
        return mpmath.mpf(0)
    low, high = mpmath.mpf(0), mpmath.mpf(1)
    while delta_of(high) > target:
        low, high = high, 2 * high
    while high - low > high * mpmath.mpf(10) ** -24:
        middle = (low + high) / 2
        low, high = (middle, high) if delta_of(middle) > target else (low, middle)
    return high


def gaussian_curve(sigmas: list[float]):
    mu = mpmath.sqrt(mpmath.fsum(1 / mpmath.mpf(s) ** 2 for s in sigmas))

    def delta_of(eps):
        return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)

    return delta_of


def pure_curve(eps0: float, k: int):
    e0 = mpmath.mpf(eps0)
    norm = (1 + mpmath.exp(e0)) ** k

    def delta_of(eps):
        total = mpmath.fsum(
            mpmath.binomial(k, l) * max(mpmath.mpf(0), mpmath.exp((k - l) * e0) - mpmath.exp(eps + l * e0))
            for l in range(k + 1)  # noqa: E741 - l is the number of "unfavourable" outcomes, as in the paper
        )
        return total / norm

    return delta_of


def below_truth(found: dict[str, float], truth: mpmath.mpf) -> dict[str, float]:
    """The accountants whose ε is below the truth (no slack)."""
    return {name: eps for name, eps in found.items() if not eps >= truth}


def bounds(events: list[dp_event.DpEvent], delta: float) -> dict[str, float]:
    out = {}
    for name, build in ACCOUNTANTS.items():
        accountant = build()
        if not all(accountant.supports(event) for event in events):
            continue
        for event in events:
            accountant.register(event)
        out[name] = accountant.get_epsilon(delta)
    return out


@settings(max_examples=15)
@given(
    sigmas=st.lists(st.floats(0.5, 50.0), min_size=1, max_size=20),
    delta=st.floats(1e-12, 0.1),
)
def test_no_accountant_is_below_the_exact_gaussian_composition(sigmas, delta):
    truth = exact_epsilon(lambda: gaussian_curve(sigmas), delta)
    found = bounds([dp_event.GaussianDpEvent(s) for s in sigmas], delta)
    assert {"exact_gaussian", "rdp", "pld"} <= set(found)
    assert below_truth(found, truth) == {}, f"below the exact ε = {mpmath.nstr(truth, 17)}"


@pytest.mark.slow
@settings(max_examples=15)
@given(eps0=st.floats(0.01, 2.0), k=st.integers(1, 30), delta=st.floats(1e-10, 0.1))
def test_no_accountant_is_below_the_optimal_composition_of_pure_releases(eps0, k, delta):
    truth = exact_epsilon(lambda: pure_curve(eps0, k), delta)
    found = bounds([PureDpEvent(eps0)] * k, delta)
    assert {"optimal_composition", "pure_sum", "rdp", "pld"} <= set(found)
    assert below_truth(found, truth) == {}, f"below the exact ε = {mpmath.nstr(truth, 17)}"
    assert found["pure_sum"] == pytest.approx(k * eps0, rel=1e-12)  # and the basic sum is what it says
    assert math.isfinite(found["optimal_composition"])
