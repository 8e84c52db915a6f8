"""Calibration with a sampling rate (Poisson-sampled releases, the steps of DP-SGD): cross-checked
against dp-accounting's own ``calibrate_dp_mechanism`` (Brent's method on its ``RdpAccountant``)
at the same RDP orders, through the dp-accounting drop-in too, and named errors for bad input."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from dp_accounting import dp_event, mechanism_calibration
from dp_accounting.rdp import RdpAccountant
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import (
    DpAccountingView,
    ExactGaussianAccountant,
    MomentsAccountant,
    UnsupportedEventError,
    calibrate_noise_multiplier,
)

#: Integer RDP orders, on both sides: dp-accounting evaluates the sampled Gaussian's curve at each
#: one by a series, so a short grid keeps its calibration to about a second.
ORDERS = list(range(2, 33))


def ours() -> MomentsAccountant:
    return MomentsAccountant(orders=ORDERS)


def steps(q: float, count: int) -> Callable[[float], dp_event.DpEvent]:
    """``count`` DP-SGD steps of noise multiplier σ as one dp-accounting event, as a function of σ."""
    return lambda sigma: dp_event.SelfComposedDpEvent(
        dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), count
    )


def spent(sigma: float, q: float, count: int, delta: float) -> float:
    return ours().register(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), count).get_epsilon(delta)


def test_calibration_with_a_sampling_rate_agrees_with_dp_accounting_to_1e_6():
    q, count, epsilon, delta = 0.01, 1000, 1.0, 1e-5
    sigma = calibrate_noise_multiplier(epsilon, delta, count, accountant=ours, sampling_rate=q)
    reference = mechanism_calibration.calibrate_dp_mechanism(
        lambda: RdpAccountant(ORDERS), steps(q, count), epsilon, delta, tol=1e-9
    )
    assert sigma == pytest.approx(1.5131221626, abs=1e-9)  # dp-accounting's answer, 1.51312216261
    assert abs(sigma - reference) <= 1e-6
    assert spent(sigma, q, count, delta) <= epsilon < spent(sigma * (1 - 2e-9), q, count, delta)


def test_dp_accountings_calibration_runs_unchanged_through_the_view():
    q, count, epsilon, delta = 0.05, 200, 3.0, 1e-6
    through_view = mechanism_calibration.calibrate_dp_mechanism(
        lambda: DpAccountingView(ours()), steps(q, count), epsilon, delta, tol=1e-9
    )
    sigma = calibrate_noise_multiplier(epsilon, delta, count, accountant=ours, sampling_rate=q)
    assert abs(sigma - through_view) <= 1e-6
    assert sigma == pytest.approx(1.4832970394, abs=1e-9)


@settings(max_examples=6, deadline=None)
@given(st.floats(0.001, 1.0), st.integers(1, 500), st.floats(0.3, 8.0), st.floats(1e-9, 1e-3))
def test_sampled_calibration_never_overshoots_and_is_tight(q, count, epsilon, delta):
    sigma = calibrate_noise_multiplier(epsilon, delta, count, accountant=ours, sampling_rate=q, rtol=1e-6)
    assert spent(sigma, q, count, delta) <= epsilon
    assert spent(sigma * (1 - 2e-6), q, count, delta) > epsilon


def test_a_sampling_rate_of_one_is_no_sampling():
    assert calibrate_noise_multiplier(1.0, 1e-5, 10, sampling_rate=1.0) == calibrate_noise_multiplier(1.0, 1e-5, 10)
    assert calibrate_noise_multiplier(1.0, 1e-5, 10, accountant=ours, sampling_rate=1) == pytest.approx(
        calibrate_noise_multiplier(1.0, 1e-5, 10, accountant=ours), rel=0
    )


def test_the_search_asks_the_accountant_a_few_times_only():
    """Regula falsi on log ε against log σ: about a dozen fresh accountants, not bisection's 35."""
    made = 0

    def counting() -> ExactGaussianAccountant:
        nonlocal made
        made += 1
        return ExactGaussianAccountant()

    for epsilon, count in [(0.1, 1), (1.0, 10), (8.0, 1000), (50.0, 3)]:
        made = 0
        sigma = calibrate_noise_multiplier(epsilon, 1e-5, count, accountant=counting)
        assert math.isfinite(sigma) and made <= 16, (epsilon, count, made)


@pytest.mark.parametrize("rate", [0.0, -0.1, 1.5, math.nan, math.inf])
def test_a_sampling_rate_outside_0_1_is_named(rate):
    with pytest.raises(ValueError, match="sampling_rate must"):
        calibrate_noise_multiplier(1.0, 1e-5, 10, accountant="rdp", sampling_rate=rate)


@pytest.mark.parametrize("rate", ["0.1", None, True])
def test_a_sampling_rate_that_is_not_a_number_is_named(rate):
    with pytest.raises(TypeError, match="sampling_rate must be a real number"):
        calibrate_noise_multiplier(1.0, 1e-5, 10, accountant="rdp", sampling_rate=rate)


def test_an_accountant_that_cannot_bound_sampled_releases_is_told_which_can():
    expected = r"ExactGaussianAccountant cannot bound .*accountant='rdp' or 'pld'"
    with pytest.raises(UnsupportedEventError, match=expected):
        calibrate_noise_multiplier(1.0, 1e-5, 10, sampling_rate=0.01)


def test_the_dp_sgd_guides_epsilon_is_dp_accountings_to_1e_9():
    """docs/guides/dp-sgd.md's run (q = 0.01, σ = 1.1, 1,000 steps, δ = 1e-5): the RDP accountant at
    dp-accounting's orders gives dp-accounting's ε, 1.7117701662, to 1e-9 (the page's own code
    checks every 100 steps; it runs in the slow documentation test)."""
    from dp_accounting.rdp.rdp_privacy_accountant import DEFAULT_RDP_ORDERS

    step = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.1))
    ours = MomentsAccountant(orders=DEFAULT_RDP_ORDERS).register(step, 1000).get_epsilon(1e-5)
    theirs = RdpAccountant()
    theirs.compose(step, 1000)
    assert abs(ours - theirs.get_epsilon(1e-5)) <= 1e-9
    assert ours == pytest.approx(1.7117701662, abs=1e-10)
