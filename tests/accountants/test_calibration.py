import math

import pytest
from dp_accounting import dp_event
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import (
    ExactGaussianAccountant,
    MomentsAccountant,
    PLDAccountant,
    PureEpsilonAccountant,
    calibrate_noise_multiplier,
    gaussian_mu,
)


def spent(factory, z, count, delta, event=dp_event.GaussianDpEvent):
    return factory().register(event(z), count).get_epsilon(delta)


@given(st.floats(0.1, 20.0), st.floats(1e-9, 1e-2), st.integers(1, 1000))
def test_exact_calibration_never_overshoots_and_is_tight(eps, delta, count):
    z = calibrate_noise_multiplier(eps, delta, count)
    assert spent(ExactGaussianAccountant, z, count, delta) <= eps
    assert z == pytest.approx(math.sqrt(count) / gaussian_mu(eps, delta), rel=1e-8)


@settings(max_examples=10)
@given(st.floats(0.2, 5.0), st.floats(1e-8, 1e-3), st.integers(1, 200))
def test_moments_calibration_never_overshoots(eps, delta, count):
    z = calibrate_noise_multiplier(eps, delta, count, accountant=MomentsAccountant)
    assert spent(MomentsAccountant, z, count, delta) <= eps
    assert spent(MomentsAccountant, z * (1 - 1e-6), count, delta) > eps


def test_pld_and_laplace_calibration():
    factory = lambda: PLDAccountant(value_discretization_interval=1e-3)  # noqa: E731
    z = calibrate_noise_multiplier(1.0, 1e-5, 10, accountant=factory, rtol=1e-4)
    assert spent(factory, z, 10, 1e-5) <= 1.0
    b = calibrate_noise_multiplier(1.0, 0.0, 100, accountant=PureEpsilonAccountant, mechanism="laplace")
    assert b == pytest.approx(100.0, rel=1e-8) and b >= 100.0


def test_unreachable_and_bad_targets():
    with pytest.raises(ValueError, match="unreachable"):
        calibrate_noise_multiplier(1.0, 0.0, 10)  # Gaussian noise is never (ε, 0)-DP
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        calibrate_noise_multiplier(0.0, 1e-5)
    with pytest.raises(ValueError, match="mechanism must be one of"):
        calibrate_noise_multiplier(1.0, 1e-5, mechanism="cauchy")
