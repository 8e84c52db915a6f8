"""The array-evaluated RDP curve of a Poisson-sampled Gaussian release against mpmath at 60 digits,
and the moments accountant's answers with it against dp-accounting's RdpAccountant."""

import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.rdp import RdpAccountant

from accountants import MomentsAccountant
from accountants.moments import DELEGATED_CURVE_ERROR, SERIES_MAX_SIGMA
from accountants.rdp import gaussian_rdp
from accountants.sampled_rdp import sampled_gaussian_integer_rdp

SETTINGS = [(0.01, 1.0), (0.3, 0.5), (0.001, 5.0), (0.999, 0.8), (0.5, 0.05), (1e-6, 1.0), (1e-9, 30.0)]
ORDERS = np.array([2, 3, 5, 10, 32, 100, 256, 1024], dtype=float)


def exact_rdp(alpha, q, sigma):
    """log(Σ_i C(α, i) q^i (1 − q)^{α−i} e^{(i² − i)/(2σ²)}) / (α − 1) at 60 digits."""
    with mpmath.workdps(60):
        q, sigma = mpmath.mpf(q), mpmath.mpf(sigma)
        terms = (
            mpmath.binomial(alpha, i)
            * q**i
            * (1 - q) ** (alpha - i)
            * mpmath.exp(mpmath.mpf(i * i - i) / (2 * sigma**2))
            for i in range(alpha + 1)
        )
        return mpmath.log(mpmath.fsum(terms)) / (alpha - 1)


@pytest.mark.parametrize(("q", "sigma"), SETTINGS)
def test_the_curve_is_within_1e_14_of_mpmath(q, sigma):
    ours = sampled_gaussian_integer_rdp(ORDERS, q, sigma)
    for alpha, value in zip(ORDERS.astype(int).tolist(), ours.tolist(), strict=True):
        truth = exact_rdp(alpha, q, sigma)
        assert abs(mpmath.mpf(value) - truth) <= 1e-14 * truth  # 100 times inside DELEGATED_CURVE_ERROR
    assert DELEGATED_CURVE_ERROR >= 1e-12


def test_dp_accountings_sum_loses_digits_where_the_curve_is_tiny():
    """The reason for the excess form: dp-accounting sums A_α itself."""
    reference = RdpAccountant(orders=ORDERS)
    reference.compose(dp_event.PoissonSampledDpEvent(1e-9, dp_event.GaussianDpEvent(30.0)))
    truth = np.array([float(exact_rdp(int(a), 1e-9, 30.0)) for a in ORDERS])
    ours = sampled_gaussian_integer_rdp(ORDERS, 1e-9, 30.0)
    assert np.max(np.abs(reference._rdp - truth) / truth) > 1e-6  # dp-accounting's private curve, read only
    assert np.max(np.abs(ours - truth) / truth) < 1e-14


@pytest.mark.parametrize(("q", "sigma", "count", "delta"), [(0.01, 1.0, 1000, 1e-5), (0.05, 0.7, 300, 1e-6)])
def test_the_moments_accountant_answers_as_dp_accounting(q, sigma, count, delta):
    event = dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma))
    ours = MomentsAccountant().register(event, count)
    reference = RdpAccountant(orders=ours.orders[np.isfinite(ours.orders) & (ours.orders <= 1024)])
    reference.compose(event, count)
    theirs = reference.get_epsilon(delta)
    assert ours.get_epsilon(delta) == pytest.approx(theirs, rel=1e-9)
    classic = MomentsAccountant.classic().register(event, count).get_epsilon(delta)
    assert classic >= ours.get_epsilon(delta)


@pytest.mark.parametrize(
    ("orders", "q", "sigma", "name"),
    [
        (ORDERS, 0.0, 1.0, "sampling_probability"),
        (ORDERS, 1.0, 1.0, "sampling_probability"),
        (ORDERS, 0.5, 0.0, "sigma"),
        (ORDERS, 0.5, np.inf, "sigma"),
        (np.array([1.5]), 0.5, 1.0, "orders"),
        (np.array([np.inf]), 0.5, 1.0, "orders"),
    ],
)
def test_bad_arguments_are_named(orders, q, sigma, name):
    with pytest.raises(ValueError, match=name):
        sampled_gaussian_integer_rdp(orders, q, sigma)


@pytest.mark.parametrize("sigma", [1e101, 1.3407807929942597e154, 1e300])
def test_a_noise_multiplier_whose_square_overflows_gets_the_unsampled_gaussians_curve(sigma):
    """Beyond SERIES_MAX_SIGMA the series are not summed (σ² overflows a float near 1.34e154, a case
    hypothesis found): the curve is the unsampled Gaussian's α/(2σ²), which bounds the sampled one."""
    assert sigma > SERIES_MAX_SIGMA
    sampled = MomentsAccountant().register(dp_event.PoissonSampledDpEvent(0.5, dp_event.GaussianDpEvent(sigma)), 3)
    plain = MomentsAccountant().register(dp_event.GaussianDpEvent(sigma), 3)
    assert sampled.get_epsilon(1e-5) == plain.get_epsilon(1e-5)
    assert sampled.get_delta(1.0) == plain.get_delta(1.0)
    # At SERIES_MAX_SIGMA, where the series is still summed, it stays below the unsampled curve.
    assert np.all(sampled_gaussian_integer_rdp(ORDERS, 0.5, SERIES_MAX_SIGMA) <= gaussian_rdp(ORDERS, SERIES_MAX_SIGMA))
