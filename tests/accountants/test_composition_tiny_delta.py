"""Optimal composition at tiny δ: the answers approach the optimum smoothly down to δ = 1e-300.

Reference: the optimal δ(ε) of k identical ε0-DP releases (Kairouz, Oh & Viswanath 2015, Thm. 3.3),
δ(ε) = (1 + e^ε0)^-k Σ_{l: (k − 2l)ε0 > ε} C(k, l) (e^{(k−l)ε0} − e^ε e^{lε0}), summed in mpmath at
40 digits, independently of the accountant's log-space enumeration.
"""

import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import AdvancedCompositionAccountant, PrivacyOdometer, PureDpEvent, PureEpsilonAccountant
from accountants.composition import (
    delta_from_log_rr,
    kov_heterogeneous_epsilon,
    optimal_delta,
    optimal_epsilon,
    total_epsilon,
)
from accountants.lattice import lattice_delta, lattice_epsilon

DELTAS = [1e-3, 1e-8, 1e-15, 4e-16, 1e-30, 1e-100, 1e-200, 1e-300]


def kov_delta(k: int, eps0: float, epsilon: float) -> mpmath.mpf:
    """The optimal δ at ``epsilon`` of k identical ``eps0``-DP releases, at 40 digits."""
    with mpmath.workdps(40):
        e0, eps = mpmath.mpf(eps0), mpmath.mpf(epsilon)
        ratio = mpmath.exp(-e0)  # e^{(k−l−1)ε0} = e^{(k−l)ε0}·e^{−ε0}, e^{(l+1)ε0} = e^{lε0}/e^{−ε0}
        high, low, scale = mpmath.exp(k * e0), mpmath.mpf(1), mpmath.exp(eps)
        total, binom, flips = mpmath.mpf(0), mpmath.mpf(1), 0
        while flips <= k and (k - 2 * flips) * e0 > eps:
            total += binom * (high - scale * low)
            binom = binom * (k - flips) / (flips + 1)
            high, low, flips = high * ratio, low / ratio, flips + 1
        return total / (1 + mpmath.exp(e0)) ** k


def check_within_one_percent(k: int, eps0: float, delta: float) -> None:
    epsilon = optimal_epsilon([(eps0, 0.0, k)], delta)
    assert kov_delta(k, eps0, epsilon) <= delta  # an upper bound on the optimum
    # and within 1 %: at ε/1.01 the optimal δ is already above the target (or the answer is 0)
    assert epsilon == 0 or kov_delta(k, eps0, epsilon / 1.01) > delta, (k, eps0, delta, epsilon)


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("k, eps0", [(1, 0.25), (10, 2.0), (10, 0.0122), (300, 0.25), (4000, 0.0122), (4000, 0.001)])
def test_optimal_epsilon_within_one_percent_of_kov_at_every_delta(k, eps0, delta):
    check_within_one_percent(k, eps0, delta)


@pytest.mark.slow
@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("eps0", [0.01, 0.2])
def test_ten_thousand_releases_within_one_percent_of_kov_at_every_delta(eps0, delta):
    check_within_one_percent(10_000, eps0, delta)


@pytest.mark.slow
def test_the_reported_case_has_no_cliff_below_one_in_a_quadrillion():
    # formerly 6.238 at 1e-15 and the plain sum 48.8 at 4e-16
    accountant = AdvancedCompositionAccountant().register(PureDpEvent(0.0122), 4000)
    assert accountant.get_epsilon(1e-15) == pytest.approx(6.181, abs=5e-4)
    assert accountant.get_epsilon(4e-16) == pytest.approx(6.269, abs=5e-4)
    previous = 0.0
    for exponent in range(3, 301):
        epsilon = accountant.get_epsilon(10.0**-exponent)
        assert previous < epsilon < 48.8  # increasing as δ falls, never the plain sum
        previous = epsilon


@pytest.mark.parametrize("delta", [1e-20, 1e-150, 1e-300])
def test_optimal_delta_keeps_its_relative_precision_at_tiny_delta(delta):
    k, eps0 = 3000, 1.0  # the largest loss, 3000, has probability 0.73^3000 < 1e-400
    epsilon = optimal_epsilon([(eps0, 0.0, k)], delta)
    assert epsilon < 2999
    exact = kov_delta(k, eps0, epsilon)
    computed = optimal_delta([(eps0, 0.0, k)], epsilon)
    assert exact <= computed <= exact * (1 + 1e-9)


@pytest.mark.parametrize(
    "make",
    [
        AdvancedCompositionAccountant,
        lambda: AdvancedCompositionAccountant(theorem="drv"),
        lambda: AdvancedCompositionAccountant(max_support=1),
        PureEpsilonAccountant,
        PrivacyOdometer,
        lambda: PrivacyOdometer(rule="rdp"),
    ],
)
def test_empty_ledgers_are_exactly_zero(make):
    accountant = make()
    assert accountant.get_delta(0.0) == 0.0 and accountant.get_epsilon(0.0) == 0.0
    assert accountant.get_epsilon(1e-300) == 0.0 and accountant.get_delta(1.0) == 0.0


def test_empty_compositions_are_exactly_zero():
    assert optimal_delta([], 0.0) == 0.0
    assert optimal_epsilon([], 0.0) == 0.0


@pytest.mark.parametrize(
    "log_rr, log_keep",
    [(-690.0, 0.0), (-2.0, -1e-12), (-700.0, -1e-300), (-745.0, 0.0), (-0.5, -3.0), (-math.inf, -1e-5)],
)
def test_delta_from_log_rr_is_an_upper_bound_within_a_few_ulps(log_rr, log_keep):
    with mpmath.workdps(400):  # 1 − (1 − 1e-300) needs 300 digits and more
        exact = 1 - mpmath.exp(log_keep) * (1 - mpmath.exp(log_rr))
    bound = delta_from_log_rr(log_rr, log_keep)
    assert exact <= bound
    assert bound <= exact * (1 + 1e-12) + 1e-322


# Beyond the enumeration limit: the lattice, tilted toward the ε sought below δ = 1e-8.


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("k, eps0", [(4000, 0.0122), (300, 0.25)])
def test_the_lattice_is_within_one_percent_of_kov_at_every_delta(k, eps0, delta):
    accountant = AdvancedCompositionAccountant(max_support=1).register(PureDpEvent(eps0), k)  # forced
    epsilon = accountant.get_epsilon(delta)
    assert kov_delta(k, eps0, epsilon) <= delta
    assert kov_delta(k, eps0, epsilon / 1.01) > delta or epsilon == total_epsilon([(eps0, 0.0, k)])


@pytest.mark.parametrize("delta", [1e-9, 1e-15, 1e-30, 1e-50, 1e-300])
def test_heterogeneous_lattice_matches_the_exact_enumeration_at_tiny_delta(delta):
    """Two groups (22,801 loss atoms, enumerated exactly) against the lattice with its FFT: never
    below the exact optimum, within 1 % of it (measured: 0.20–0.25 %); below δ ≈ 1e-58 (the mass of
    the largest loss) both are the plain sum."""
    guarantees = [(0.5, 0.0, 150), (0.65, 0.0, 150)]
    exact = optimal_epsilon(guarantees, delta)
    bound = lattice_epsilon(guarantees, delta)
    assert exact <= bound <= exact * 1.01
    assert bound == total_epsilon(guarantees) or optimal_delta(guarantees, bound) <= delta


@pytest.mark.parametrize("epsilon", [140.0, 160.0, 170.0])
def test_the_lattice_delta_is_an_upper_bound_with_its_relative_precision(epsilon):
    guarantees = [(0.5, 0.0, 150), (0.65, 0.0, 150)]
    exact = optimal_delta(guarantees, epsilon)  # 1e-27 … 1e-60
    bound = lattice_delta(guarantees, epsilon)
    assert exact <= bound <= exact * 100  # the lattice's ε is within 0.3 %: δ within a small factor


@settings(max_examples=25, deadline=None)
@given(
    groups=st.lists(
        st.tuples(st.floats(0.01, 1.0), st.sampled_from([0.0, 0.0, 1e-12, 1e-40]), st.integers(1, 80)),
        min_size=2,
        max_size=3,
    ),
    delta=st.sampled_from([1e-9, 1e-20, 1e-60, 1e-150, 1e-300]),
)
def test_the_tilted_lattice_is_never_below_the_exact_optimum(groups, delta):
    """Random heterogeneous releases small enough to enumerate exactly: at every tiny δ the lattice
    (tilted below 1e-8) is an upper bound on the optimum and within 1 % of it (or both are the sum)."""
    exact = optimal_epsilon(groups, delta)
    bound = lattice_epsilon(groups, delta)
    total = total_epsilon(groups)
    assert exact <= bound
    assert bound <= exact * 1.01 or bound == total or exact == math.inf


def test_two_thousand_distinct_releases_at_one_in_a_googol():
    """2,000 distinct ε in [0.01, 0.11) (far beyond enumeration, ~2,000 FFT convolutions): at
    δ = 1e-100 the tilted lattice lies between the optimum of 2,000 releases at the smallest ε (a
    lower bound on the optimum) and that at the largest, and below KOV Thm. 3.5 (formerly it was the
    plain sum, 119.95, below δ ≈ 1e-12)."""
    releases = [0.01 + 0.00005 * i for i in range(2000)]
    accountant = AdvancedCompositionAccountant().register_many([PureDpEvent(eps) for eps in releases])
    epsilon = accountant.get_epsilon(1e-100)
    guarantees = [(eps, 0.0, 1) for eps in releases]
    assert (
        optimal_epsilon([(releases[0], 0.0, 2000)], 1e-100)
        < epsilon
        < optimal_epsilon([(releases[-1], 0.0, 2000)], 1e-100)
    )
    assert epsilon < kov_heterogeneous_epsilon(guarantees, 1e-100) / 1.01
    assert epsilon == pytest.approx(64.968, abs=1e-3)
