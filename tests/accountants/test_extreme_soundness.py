"""Soundness at the extremes: every accountant's ε and δ are never below the truth, checked
against mpmath at adaptive precision (enough digits to resolve the cancellation in δ(ε) exactly).

Ranges: noise multipliers 1e-3 … 1e9, release counts 1 … 1e9 (Gaussian; pure releases up to 300
copies, whose exact curve is a sum over all outcomes), δ from 1e-300 to 1 − 1e-12, ε from 0 to 1e4.

- Gaussian releases compose exactly to μ-GDP, μ = sqrt(k)/σ (Dong, Roth & Su 2022, Cor. 3.3), with
  δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang 2018, Thm. 8).
- k pure ε₀-DP releases are dominated by k-fold randomized response (Kairouz, Oh & Viswanath 2015,
  Thm. 3.3): δ(ε) = Σ_l C(k, l) [e^{(k−l)ε₀} − e^ε e^{lε₀}]₊ / (1 + e^{ε₀})^k.
- One Laplace release of scale b (ε₀ = 1/b): δ(ε) = [1 − e^{(ε − ε₀)/2}]₊ (the hockey-stick
  divergence of two Laplace densities one sensitivity apart, integrated in closed form); k of them
  are ε₀k-DP, which the basic-composition accountant must report exactly or above.
- k-ary randomized response with noise parameter p (replace-one): δ(ε) = [1 − p + p/k − e^ε p/k]₊.

δ(ε) decreases in ε, so a published ε is sound iff the true δ at it is within the target δ, and a
published δ is sound iff it is at least the true δ(ε): one exact evaluation per result, with no
tolerance at all.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from hypothesis import example, given, settings
from hypothesis import strategies as st

from accountants import (
    ACCOUNTANTS,
    AdvancedCompositionAccountant,
    ExactGaussianAccountant,
    MomentsAccountant,
    PLDAccountant,
    PureDpEvent,
    PureEpsilonAccountant,
    UnsupportedEventError,
)


def _log_uniform(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(math.log10(low), math.log10(high)).map(lambda x: 10.0**x)


sigmas = _log_uniform(1e-3, 1e9)
counts = _log_uniform(1.0, 1e9).map(lambda x: max(1, min(10**9, round(x))))
deltas = st.one_of(_log_uniform(1e-300, 0.5), _log_uniform(1e-12, 0.5).map(lambda x: 1.0 - x))
epsilons = st.one_of(st.just(0.0), _log_uniform(1e-8, 1e4))


def gaussian_delta(mu: mpmath.mpf, eps: float) -> mpmath.mpf:
    """The exact δ(ε) of μ-GDP, with as many digits as its cancellation needs."""
    for digits in (50, 100, 200, 400, 800, 1600):
        with mpmath.workdps(digits):
            m, e = mpmath.mpf(mu), mpmath.mpf(eps)
            first = mpmath.ncdf(-e / m + m / 2)
            value = first - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
            if first == 0 or value > first * mpmath.mpf(10) ** (20 - digits):
                return +value
    raise AssertionError(f"δ(ε) not resolved at 1600 digits for μ = {mu}, ε = {eps}")


def pure_delta(eps0: float, k: int, eps: float) -> mpmath.mpf:
    with mpmath.workdps(60):
        e0, e = mpmath.mpf(eps0), mpmath.mpf(eps)
        total = mpmath.fsum(
            mpmath.binomial(k, flips) * max(mpmath.mpf(0), mpmath.exp((k - flips) * e0) - mpmath.exp(e + flips * e0))
            for flips in range(k + 1)
        )
        return min(mpmath.mpf(1), total / (1 + mpmath.exp(e0)) ** k)  # δ ≤ 1: no rounding above it


def under(relation: NeighboringRelation) -> dict:
    """Every accountant under ``relation`` (the classic moments accountant has only the default)."""
    return {
        "exact_gaussian": lambda: ExactGaussianAccountant(neighboring_relation=relation),
        "rdp": lambda: MomentsAccountant(neighboring_relation=relation),
        "pld": lambda: PLDAccountant(neighboring_relation=relation),
        "optimal_composition": lambda: AdvancedCompositionAccountant(neighboring_relation=relation),
        "advanced_composition": lambda: AdvancedCompositionAccountant("drv", neighboring_relation=relation),
        "pure": lambda: PureEpsilonAccountant(neighboring_relation=relation),
    }


def results(
    event: dp_event.DpEvent, count: int, delta: float, epsilon: float, accountants: dict | None = None
) -> dict[str, tuple[float, float]]:
    """{accountant: (ε at delta, δ at epsilon)} for every accountant that takes the releases."""
    out = {}
    for name, factory in (accountants or ACCOUNTANTS).items():
        accountant = factory()
        try:
            accountant.register(event, count)
        except UnsupportedEventError:
            continue
        out[name] = (accountant.get_epsilon(delta), accountant.get_delta(epsilon))
    return out


def unsound(found: dict[str, tuple[float, float]], delta_at, delta: float, epsilon: float) -> dict[str, str]:
    """The results below the truth: ε whose true δ exceeds the target, δ below the true δ(ε)."""
    bad = {}
    true_delta = delta_at(epsilon)
    for name, (eps_found, delta_found) in found.items():
        if math.isfinite(eps_found) and not delta_at(eps_found) <= delta:
            bad[name + ".get_epsilon"] = f"ε = {eps_found!r} has δ = {mpmath.nstr(delta_at(eps_found), 17)} > {delta!r}"
        if not delta_found >= true_delta:
            bad[name + ".get_delta"] = f"δ = {delta_found!r} < {mpmath.nstr(true_delta, 17)}"
    return bad


@settings(max_examples=45)
@given(sigma=sigmas, count=counts, delta=deltas, epsilon=epsilons)
def test_gaussian_releases_are_never_below_the_truth(sigma, count, delta, epsilon):
    with mpmath.workdps(50):
        mu = mpmath.sqrt(count) / mpmath.mpf(sigma)
    found = results(dp_event.GaussianDpEvent(sigma), count, delta, epsilon)
    assert {"exact_gaussian", "rdp", "moments_classic"} <= set(found)
    assert unsound(found, lambda e: gaussian_delta(mu, e), delta, epsilon) == {}


@settings(max_examples=40)
@given(eps0=_log_uniform(1e-6, 50.0), k=st.integers(1, 300), delta=deltas, epsilon=epsilons)
def test_pure_releases_are_never_below_the_truth(eps0, k, delta, epsilon):
    found = results(PureDpEvent(eps0), k, delta, epsilon)
    assert {"optimal_composition", "pure", "rdp"} <= set(found)
    assert unsound(found, lambda e: pure_delta(eps0, k, e), delta, epsilon) == {}


def laplace_delta(b: float, eps: float) -> mpmath.mpf:
    with mpmath.workdps(60):
        return max(mpmath.mpf(0), -mpmath.expm1((mpmath.mpf(eps) - 1 / mpmath.mpf(b)) / 2))


def randomized_response_delta(p: float, k: int, eps: float) -> mpmath.mpf:
    with mpmath.workdps(60):
        p_, k_ = mpmath.mpf(p), mpmath.mpf(k)
        return max(mpmath.mpf(0), 1 - p_ + p_ / k_ - mpmath.exp(mpmath.mpf(eps)) * p_ / k_)


@settings(max_examples=60)
@given(b=_log_uniform(1e-6, 1e9), delta=deltas, epsilon=epsilons)
def test_laplace_release_is_never_below_the_truth(b, delta, epsilon):
    found = results(dp_event.LaplaceDpEvent(b), 1, delta, epsilon)
    assert {"pld", "rdp", "optimal_composition", "pure"} <= set(found)
    assert unsound(found, lambda e: laplace_delta(b, e), delta, epsilon) == {}


@settings(max_examples=60)
@given(b=_log_uniform(1e-6, 1e9), k=counts, delta=deltas)
def test_composed_laplace_is_never_below_its_pure_total(b, k, delta):
    """Basic composition reports k/b at every δ: never a float below the exact rational k/b."""
    found = PureEpsilonAccountant().register(dp_event.LaplaceDpEvent(b), k).get_epsilon(delta)
    assert Fraction(found) >= k / Fraction(b)


@settings(max_examples=30)
@given(
    p=st.one_of(_log_uniform(1e-12, 1.0), st.floats(0.5, 1.0)),
    k=st.integers(2, 10**6),
    delta=deltas,
    epsilon=epsilons,
)
@example(p=0.9999999999999999, k=2, delta=1e-10, epsilon=0.0)  # a curve that rounded to 0 gave δ = 0 < 1.1e-16
@example(p=0.9999999999999999, k=15702, delta=0.1, epsilon=0.0)  # and one that rounded below 0
def test_randomized_response_is_never_below_the_truth(p, k, delta, epsilon):
    event = dp_event.RandomizedResponseDpEvent(min(p, 1.0), k)
    found = results(event, 1, delta, epsilon, under(NeighboringRelation.REPLACE_ONE))
    assert {"pld", "optimal_composition", "pure"} <= set(found)
    assert unsound(found, lambda e: randomized_response_delta(min(p, 1.0), k, e), delta, epsilon) == {}


def test_reported_extremes_are_sound():
    """The cases the issue reported, each against its exact value."""
    with mpmath.workdps(50):
        mu = 1 / mpmath.mpf(90219583.21511549)
    found = results(dp_event.GaussianDpEvent(90219583.21511549), 1, 4.3520542162789136e-13, 6.633754074761472e-06)
    assert unsound(found, lambda e: gaussian_delta(mu, e), 4.3520542162789136e-13, 6.633754074761472e-06) == {}
    delta = 0.9999999999999325
    found = results(PureDpEvent(1.8734699710205016), 209, delta, 1.0)
    assert "optimal_composition" in found
    assert unsound(found, lambda e: pure_delta(1.8734699710205016, 209, e), delta, 1.0) == {}
    b = 47094.47182404248  # 1/b rounded to nearest is below the exact value
    assert Fraction(PureEpsilonAccountant().register(dp_event.LaplaceDpEvent(b)).get_epsilon(1e-291)) >= 1 / Fraction(b)
    found = results(dp_event.LaplaceDpEvent(b), 1, 1e-291, 0.0)
    assert unsound(found, lambda e: laplace_delta(b, e), 1e-291, 0.0) == {}
