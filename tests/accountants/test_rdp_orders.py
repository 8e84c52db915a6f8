"""RDP at every order dp-accounting accepts (1, ∞ and above 1024), the Laplace and repeat-and-select
curves, and zero curves.

References: the Laplace curve against Mironov (2017, Prop. 6) evaluated in mpmath at 50 digits;
repeat-and-select (Papernot & Steinke 2022) against dp-accounting's ``RdpAccountant`` on the same
events, with its default orders and with an extended set: ours is never looser (up to our outward
rounding, 1e-12 relative).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from dp_accounting.rdp import RdpAccountant
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import MomentsAccountant, PureDpEvent
from accountants.moments import HIGH_ORDER_RR_ERROR
from accountants.rdp import (
    DEFAULT_ORDERS,
    laplace_rdp,
    pure_dp_rdp,
    rdp_to_delta,
    rdp_to_epsilon,
    repeat_and_select_rdp,
    truncated_negative_binomial_gamma,
)

#: dp-accounting's default orders with higher ones added (its own tests use orders up to 1e10).
EXTENDED_ORDERS = [*RdpAccountant().orders.tolist(), 2048.0, 4096.0, 1e4, 1e5, 1e6, 1e10]
#: Our outward rounding (curves stepped up by at most 1e-12 relative, conversions a few ulps).
ROUNDING = 1e-12


def mp_laplace_rdp(order: float, b: float) -> mpmath.mpf:
    """Mironov (2017, Prop. 6) at 50 digits; the KL divergence at order 1, ε at ∞."""
    with mpmath.workdps(50):
        eps = 1 / mpmath.mpf(b)
        if math.isinf(order):
            return eps
        a = mpmath.mpf(order)
        if a == 1:
            return eps + mpmath.expm1(-eps)
        s = a / (2 * a - 1) * mpmath.exp((a - 1) * eps) + (a - 1) / (2 * a - 1) * mpmath.exp(-a * eps)
        return mpmath.log(s) / (a - 1)


@settings(max_examples=60)
@given(b=st.floats(-6, 6).map(lambda x: 10.0**x))
def test_laplace_curve_matches_mironov_at_every_order(b):
    orders = np.array([1.0, 1.0 + 1e-9, 1.001, 1.5, 2.0, 10.0, 1024.0, 1e6, 1e12, math.inf])
    curve = laplace_rdp(orders, b)
    for order, value in zip(orders, curve, strict=True):
        exact = mp_laplace_rdp(float(order), b)
        if exact < mpmath.mpf(1e-300):  # below the float range: any positive upper bound
            assert 0 < value <= 1e-290
            continue
        assert value == pytest.approx(float(exact), rel=1e-13), f"order {order}"


def test_pure_curve_has_its_limits_at_orders_one_and_infinity():
    eps = 0.7
    curve = pure_dp_rdp(np.array([1.0, math.inf]), eps)
    assert curve[0] == pytest.approx(eps * math.tanh(eps / 2), rel=1e-15)
    assert curve[1] == eps


def test_tiny_positive_curves_never_round_to_zero():
    """A zero curve means identical outputs (ε = δ = 0), so a positive one must stay positive."""
    assert np.all(pure_dp_rdp(DEFAULT_ORDERS[:-1], 1e-200) > 0)
    assert np.all(laplace_rdp(DEFAULT_ORDERS[:-1], 1e200) > 0)


def test_zero_curves_give_zero_epsilon_and_delta():
    orders = DEFAULT_ORDERS
    zero = np.zeros_like(orders)
    for conversion in ("improved", "classic"):
        assert rdp_to_epsilon(orders, zero, 1e-300, conversion)[0] == 0.0
        assert rdp_to_delta(orders, zero, 0.0, conversion)[0] == 0.0
    accountant = MomentsAccountant().register(dp_event.GaussianDpEvent(math.inf), 5)
    assert accountant.get_delta(0.5) == 0.0
    assert accountant.get_epsilon(0.0) == 0.0


@pytest.mark.parametrize("factory", [MomentsAccountant, MomentsAccountant.classic])
def test_empty_ledger_is_exactly_zero(factory):
    accountant = factory()
    assert accountant.get_epsilon(1e-300) == 0.0
    assert accountant.get_epsilon(0.0) == 0.0
    assert accountant.get_delta(1e-10) == 0.0
    assert accountant.get_delta(0.0) == 0.0


@pytest.mark.parametrize(("eps", "count"), [(0.01, 1), (1.0, 1), (100.0, 1), (1.0, 100)])
def test_laplace_at_orders_one_and_near_infinity_reaches_pure_composition(eps, count):
    """dp-accounting's Laplace case: a large order simulates pure DP, order 1 is the KL divergence."""
    accountant = MomentsAccountant(orders=[1.0, 1 + 1e-6, 1.1 - 1e-6, 1.1 + 1e-6, 1e10])
    accountant.register(dp_event.LaplaceDpEvent(1 / eps), count)
    assert accountant.get_epsilon(1e-10) == pytest.approx(eps * count, rel=1e-6)
    curve = accountant.rdp()
    assert curve[0] <= min(eps, eps * eps / 2) * count * (1 + 1e-12)
    assert curve[0] == pytest.approx(float(mp_laplace_rdp(1.0, 1 / eps)) * count, rel=1e-12)


def test_order_infinity_gives_the_pure_total_at_any_delta():
    accountant = MomentsAccountant(orders=[2.0, math.inf]).register(PureDpEvent(0.25), 8)
    assert accountant.get_epsilon(1e-300) == pytest.approx(2.0, rel=1e-12)
    assert accountant.get_delta(2.0 * (1 + 1e-12)) == 0.0


def _dp_accounting(event: dp_event.DpEvent, orders=None, relation=None) -> RdpAccountant:
    accountant = RdpAccountant(orders=orders, neighboring_relation=relation or NeighboringRelation.ADD_OR_REMOVE_ONE)
    accountant.compose(event)
    return accountant


def assert_never_looser(event: dp_event.DpEvent, deltas, relation=None) -> None:
    ours = MomentsAccountant(neighboring_relation=relation or NeighboringRelation.ADD_OR_REMOVE_ONE).register(event)
    # Randomized response above order 1024 is stepped up by its assumed evaluation error there.
    rounding = HIGH_ORDER_RR_ERROR if isinstance(event, dp_event.RandomizedResponseDpEvent) else ROUNDING
    for orders in (None, EXTENDED_ORDERS):
        theirs = _dp_accounting(event, orders, relation)
        for delta in deltas:
            assert ours.get_epsilon(delta) <= theirs.get_epsilon(delta) * (1 + rounding), (
                f"δ = {delta}, orders {'default' if orders is None else 'extended'}"
            )


REPEATED = [
    dp_event.RepeatAndSelectDpEvent(inner, mean, shape)
    for inner in (dp_event.GaussianDpEvent(1.0), dp_event.GaussianDpEvent(30.0), dp_event.LaplaceDpEvent(1.0))
    for mean, shape in (
        (1.0, 1.0),
        (10.0, 0.0),
        (1000.0, 0.5),
        (1000.0, 1.0),
        (100.0, 2.0),
        (1e6, 5.0),
        (50.0, math.inf),
    )
]


@pytest.mark.parametrize("event", REPEATED, ids=repr)
def test_repeat_and_select_is_never_looser_than_dp_accounting(event):
    assert_never_looser(event, [1e-6, 1e-12])


@pytest.mark.parametrize(
    ("event", "relation"),
    [
        (dp_event.LaplaceDpEvent(0.01), NeighboringRelation.ADD_OR_REMOVE_ONE),
        (dp_event.LaplaceDpEvent(3.0), NeighboringRelation.ADD_OR_REMOVE_ONE),
        (dp_event.SelfComposedDpEvent(dp_event.LaplaceDpEvent(50.0), 100), NeighboringRelation.ADD_OR_REMOVE_ONE),
        (dp_event.RandomizedResponseDpEvent(0.1, 10), NeighboringRelation.REPLACE_ONE),
        (dp_event.RandomizedResponseDpEvent(0.9, 2), NeighboringRelation.REPLACE_SPECIAL),
        (dp_event.ZCDpEvent(0.01, 0.0), NeighboringRelation.ADD_OR_REMOVE_ONE),
    ],
    ids=repr,
)
def test_closed_form_events_are_never_looser_than_dp_accounting(event, relation):
    assert_never_looser(event, [1e-5, 1e-15, 1e-100], relation)


def test_poisson_sampled_gaussian_is_bounded_above_order_1024():
    """Above the delegated orders the unsampled Gaussian bounds the sampled curve (finite, not ∞)."""
    event = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(50.0))
    accountant = MomentsAccountant().register(event, 10)
    curve = accountant.rdp()
    high = (DEFAULT_ORDERS > 1024) & np.isfinite(DEFAULT_ORDERS)
    assert np.all(np.isfinite(curve[high]))
    assert np.all(curve[high] <= 10 * DEFAULT_ORDERS[high] / 2 / 50.0**2 * (1 + 4e-12))
    theirs = _dp_accounting(dp_event.SelfComposedDpEvent(event, 10))
    assert accountant.get_epsilon(1e-10) <= theirs.get_epsilon(1e-10) * (1 + ROUNDING)


@pytest.mark.parametrize("shape", [0.0, 0.5, 2.0, 5.0])
def test_a_numpy_float32_mean_neither_hangs_nor_changes_the_answer(shape):
    mean32 = np.float32(2.7)
    event32 = dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(1.0), mean32, shape)
    event64 = dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(1.0), float(mean32), shape)
    assert MomentsAccountant().supports(event32)
    assert MomentsAccountant().register(event32).get_epsilon(1e-6) == MomentsAccountant().register(event64).get_epsilon(
        1e-6
    )
    assert truncated_negative_binomial_gamma(mean32, shape) == truncated_negative_binomial_gamma(float(mean32), shape)


@pytest.mark.parametrize("shape", [0.0, 0.5, 1.0, 2.0, 5.0])
@pytest.mark.parametrize("mean", [1.0, 1.5, 10.0, 1e3, 1e9])
def test_truncated_negative_binomial_gamma_is_conservative_and_tight(mean, shape):
    """The mean at the γ returned is at least the one asked for, and within 1e-12 of it
    (mpmath evaluation of Papernot & Steinke 2022, Def. 1)."""
    gamma = truncated_negative_binomial_gamma(mean, shape)
    with mpmath.workdps(40):
        g = mpmath.mpf(gamma)
        if g == 1:
            exact = mpmath.mpf(1)
        elif shape == 0:
            exact = (1 / g - 1) / mpmath.log(1 / g)
        else:
            exact = shape * (1 / g - 1) / (1 - g**shape)
        assert exact >= mean * (1 - 1e-15)
        assert exact <= mean * (1 + 1e-12)


def test_repeat_and_select_curve_is_monotone_in_the_order():
    single = 5 * pure_dp_rdp(DEFAULT_ORDERS, 0.3)
    for shape in (0.0, 1.0, math.inf):
        curve = repeat_and_select_rdp(DEFAULT_ORDERS, single, 20.0, shape)
        finite = curve[DEFAULT_ORDERS > 1]
        assert np.all(np.diff(finite) >= 0)
        assert np.all(curve >= single)
