import math

import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.rdp import RdpAccountant
from hypothesis import given
from hypothesis import strategies as st

from accountants.rdp import DEFAULT_ORDERS, gaussian_rdp, pure_dp_rdp, rdp_to_delta, rdp_to_epsilon

mpmath.mp.dps = 60


def mp_randomized_response_divergence(alpha, eps):
    """Rényi divergence of order α between (e^ε, 1)/(1+e^ε) and (1, e^ε)/(1+e^ε)."""
    alpha, eps = mpmath.mpf(alpha), mpmath.mpf(eps)
    p = mpmath.e**eps / (1 + mpmath.e**eps)
    q = 1 - p
    return mpmath.log(p**alpha * q ** (1 - alpha) + q**alpha * p ** (1 - alpha)) / (alpha - 1)


@pytest.mark.parametrize("eps", [1e-4, 0.05, 0.5, 2.0, 10.0])
@pytest.mark.parametrize("alpha", [1.01, 1.5, 2.0, 32.0, 1000.0])
def test_pure_dp_curve_is_randomized_response_divergence(alpha, eps):
    expected = float(mp_randomized_response_divergence(alpha, eps))
    assert pure_dp_rdp(np.array([alpha]), eps)[0] == pytest.approx(min(expected, eps), rel=1e-9)


@given(st.floats(1e-5, 20.0))
def test_pure_dp_curve_is_below_the_trivial_and_zcdp_bounds(eps):
    curve = pure_dp_rdp(DEFAULT_ORDERS, eps)
    assert np.all(curve <= eps * (1 + 1e-12))
    assert np.all(curve <= DEFAULT_ORDERS * eps**2 / 2 * (1 + 1e-9))
    assert np.all(np.diff(curve) >= -1e-12 * curve[1:])  # non-decreasing in the order


@given(st.floats(0.3, 200.0))
def test_gaussian_curve_matches_dp_accounting(z):
    accountant = RdpAccountant(orders=DEFAULT_ORDERS)
    accountant.compose(dp_event.GaussianDpEvent(z))
    np.testing.assert_allclose(gaussian_rdp(DEFAULT_ORDERS, z), accountant.rdp, rtol=1e-12)


def test_orders_cover_the_range_a_wide_range_of_noise_needs():
    assert DEFAULT_ORDERS.min() < 1.01 and DEFAULT_ORDERS.max() >= 1e6
    assert np.all(np.diff(DEFAULT_ORDERS) > 0)


def test_classic_conversion_is_the_moments_tail_bound():
    orders = np.array([2.0, 3.0, 11.0])
    rdp = np.array([0.1, 0.2, 1.0])
    eps, order = rdp_to_epsilon(orders, rdp, 1e-5, "classic")
    expected = min(r + math.log(1e5) / (a - 1) for a, r in zip(orders, rdp, strict=True))
    assert eps == pytest.approx(expected, rel=1e-15)
    delta, _ = rdp_to_delta(orders, rdp, eps, "classic")
    assert delta == pytest.approx(1e-5, rel=1e-9)


@given(st.floats(0.5, 100.0), st.integers(1, 1000), st.floats(1e-10, 1e-2))
def test_improved_conversion_never_exceeds_classic(z, count, delta):
    rdp = count * gaussian_rdp(DEFAULT_ORDERS, z)
    assert (
        rdp_to_epsilon(DEFAULT_ORDERS, rdp, delta, "improved")[0]
        <= rdp_to_epsilon(DEFAULT_ORDERS, rdp, delta, "classic")[0] + 1e-12
    )


def test_bad_curves_and_conversions_are_refused():
    with pytest.raises(ValueError, match="orders must all be >= 1"):
        rdp_to_epsilon(np.array([0.5]), np.array([0.1]), 1e-5)
    with pytest.raises(ValueError, match="conversion must be 'improved' or 'classic'"):
        rdp_to_epsilon(np.array([2.0]), np.array([0.1]), 1e-5, "fancy")
    with pytest.raises(ValueError, match="rdp contains NaN"):
        rdp_to_epsilon(np.array([2.0]), np.array([np.nan]), 1e-5)
