"""The odometer's RDP rule: Poisson-sampled releases composed by their Rényi-DP curves, each order's
budget on a grid, valid at every stopping time (see accountants.odometer)."""

import math

import mpmath
import pytest
from dp_accounting import dp_event
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import MomentsAccountant, PrivacyOdometer, UnsupportedEventError

ORDERS = [2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0]  # integers: the reference is a finite sum


def sampled_gaussian(q, sigma):
    return dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma))


def mp_sampled_gaussian_rdp(q, sigma, order):
    """RDP of one Poisson-sampled Gaussian release at an integer order (Mironov, Talwar & Zhang
    2019, Thm. 5): log Σ_k C(α, k) (1 − q)^{α−k} q^k e^{(k² − k)/(2σ²)} / (α − 1), at 50 digits."""
    with mpmath.workdps(50):
        q, sigma, alpha = mpmath.mpf(q), mpmath.mpf(sigma), int(order)
        total = mpmath.fsum(
            mpmath.binomial(alpha, k) * (1 - q) ** (alpha - k) * q**k * mpmath.exp((k * k - k) / (2 * sigma**2))
            for k in range(alpha + 1)
        )
        return mpmath.log(total) / (alpha - 1)


def mp_odometer_epsilon(q, sigma, count, delta, first_mu=0.25, ratio=1.1):
    """The RDP rule's ε from its definition, at 50 digits: at each order the least grid budget
    α μ_j²/2 covering the composed curve, converted at δ · 6/(π² j²)/m (Canonne, Kamath & Steinke
    2020, Prop. 12: ε = B + log(1 − 1/α) − (log δ' + log α)/(α − 1)); the least over the orders."""
    with mpmath.workdps(50):
        best = mpmath.inf
        for order in ORDERS:
            total = count * mp_sampled_gaussian_rdp(q, sigma, order)
            j = 1
            while order * (mpmath.mpf(first_mu) * mpmath.mpf(ratio) ** (j - 1)) ** 2 / 2 < total:
                j += 1
            budget = order * (mpmath.mpf(first_mu) * mpmath.mpf(ratio) ** (j - 1)) ** 2 / 2
            small_delta = mpmath.mpf(delta) * 6 / (mpmath.pi**2 * j * j) / len(ORDERS)
            alpha = mpmath.mpf(order)
            best = min(
                best, budget + mpmath.log(1 - 1 / alpha) - (mpmath.log(small_delta) + mpmath.log(alpha)) / (alpha - 1)
            )
        return best


@pytest.mark.parametrize(
    "q, sigma, count, delta", [(0.01, 1.0, 1000, 1e-5), (0.1, 2.0, 50, 1e-6), (0.5, 5.0, 10, 1e-9)]
)
def test_golden_rdp_odometer_values(q, sigma, count, delta):
    odometer = PrivacyOdometer(rdp_orders=ORDERS).register(sampled_gaussian(q, sigma), count)
    expected = mp_odometer_epsilon(q, sigma, count, delta)
    epsilon = odometer.get_epsilon(delta)
    assert expected <= epsilon <= expected * (1 + 1e-9)


def test_golden_dp_sgd_value():
    """1,000 steps of DP-SGD at q = 0.01, σ = 1, δ = 1e-5 (the default orders): 3.2567, where the
    non-adaptive RDP accountant gives 2.1014 (the price of stopping at will)."""
    event = sampled_gaussian(0.01, 1.0)
    assert PrivacyOdometer().register(event, 1000).get_epsilon(1e-5) == pytest.approx(3.256672, abs=1e-6)
    assert MomentsAccountant().register(event, 1000).get_epsilon(1e-5) == pytest.approx(2.101367, abs=1e-6)


@settings(max_examples=25, deadline=None)
@given(
    releases=st.lists(
        st.tuples(st.sampled_from([0.001, 0.01, 0.1, 1.0]), st.floats(0.5, 20.0), st.integers(1, 200)),
        min_size=1,
        max_size=4,
    ),
    delta=st.sampled_from([1e-3, 1e-6, 1e-12]),
)
def test_rdp_odometer_is_monotone_and_above_the_non_adaptive_bound(releases, delta):
    odometer = PrivacyOdometer(rdp_orders=ORDERS)
    fixed = MomentsAccountant(orders=ORDERS)
    previous = 0.0
    for q, sigma, count in releases:
        event = sampled_gaussian(q, sigma)
        odometer.register(event, count)
        fixed.register(event, count)
        epsilon = odometer.get_epsilon(delta)
        assert epsilon >= previous  # more releases never lower the running ε
        assert epsilon >= fixed.get_epsilon(delta)  # never below composition with everything fixed
        previous = epsilon
    assert odometer.get_delta(previous) <= delta
    if 0 < previous < math.inf:
        assert odometer.get_delta(previous * 0.999) > delta * 0.999  # the least δ, up to its grid


def test_rules_fixed_by_the_first_release_and_the_rdp_rule_for_mixtures():
    gaussian, sampled = dp_event.GaussianDpEvent(4.0), sampled_gaussian(0.05, 1.5)
    after_sampled = PrivacyOdometer().register(sampled, 100).register(gaussian, 3)  # the RDP rule takes both
    rdp = PrivacyOdometer(rule="rdp").register(gaussian, 3).register(sampled, 100)
    assert after_sampled.get_epsilon(1e-6) == rdp.get_epsilon(1e-6)
    with pytest.raises(UnsupportedEventError, match="first release fixed the gaussian rule"):
        PrivacyOdometer().register(gaussian, 3).register(sampled)
    # under REPLACE_ONE dp-accounting's RDP curves refuse Poisson sampling, and so does the rule
    from dp_accounting.privacy_accountant import NeighboringRelation

    replace = PrivacyOdometer(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    assert replace.supports(sampled) == MomentsAccountant(
        neighboring_relation=NeighboringRelation.REPLACE_ONE
    ).supports(sampled)
