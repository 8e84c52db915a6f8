"""Gaussian mechanism: the noise is N(0, σ²), the calibrations invert through the accountants, and
the events give the accountants' golden numbers."""

import math

import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event, get_epsilon_gaussian, get_sigma_gaussian
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from accountants import ExactGaussianAccountant, MomentsAccountant, PLDAccountant
from mechanisms import GaussianMechanism, analytic_gaussian_sigma, classic_gaussian_sigma, make_rng

KS_THRESHOLD = 1e-3

epsilons_up_to_one = st.floats(min_value=1e-3, max_value=1.0)
epsilons = st.floats(min_value=1e-3, max_value=30.0)
deltas = st.floats(min_value=-12.0, max_value=math.log10(0.5)).map(lambda exponent: 10.0**exponent)
sensitivities = st.floats(min_value=1e-3, max_value=1e3)
gaps = st.floats(min_value=1e-3, max_value=1.0)


def exact_epsilon(mechanism: GaussianMechanism, delta: float, count: int = 1) -> float:
    return ExactGaussianAccountant().register(mechanism.event(), count).get_epsilon(delta)


def mp_delta(epsilon, sigma, sensitivity):
    """Balle & Wang 2018, eq. (6), at 40 digits: δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)."""
    a, b = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    return mpmath.ncdf(a - b) - mpmath.exp(epsilon) * mpmath.ncdf(-a - b)


def mp_sigma(epsilon, delta, sensitivity):
    """The σ solving eq. (6), by bisection on log σ (δ(ε) decreases in σ)."""
    with mpmath.workdps(40):
        low, high = mpmath.log(mpmath.mpf(1e-4) * sensitivity), mpmath.log(mpmath.mpf(1e5) * sensitivity)
        for _ in range(90):
            middle = (low + high) / 2
            if mp_delta(epsilon, mpmath.exp(middle), sensitivity) > delta:
                low = middle
            else:
                high = middle
        return float(mpmath.exp(high))


# --- sampling ---------------------------------------------------------------------------------


def test_noise_is_normal_with_standard_deviation_sigma():
    sigma = 2.5
    noise = GaussianMechanism(1.0, sigma).sample(make_rng(20240101), 20_000)
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > KS_THRESHOLD
    assert stats.kstest(noise, stats.norm(scale=sigma**2).cdf).pvalue < KS_THRESHOLD
    assert stats.kstest(noise, stats.norm(scale=math.sqrt(sigma)).cdf).pvalue < KS_THRESHOLD


def test_one_call_draws_for_all_trials_and_agents():
    sensitivity = np.array([0.5, 1.0, 2.0, 4.0])
    mechanism = GaussianMechanism.from_noise_multiplier(sensitivity, 3.0)
    noise = mechanism.sample(make_rng(7), (5_000, 4))
    np.testing.assert_array_equal(mechanism.sigma, 3.0 * sensitivity)
    standardized = noise / mechanism.sigma
    for column in standardized.T:
        assert stats.kstest(column, "norm").pvalue > KS_THRESHOLD
    assert stats.kstest(noise[:, 0] / 3.0, "norm").pvalue < KS_THRESHOLD


def test_sigma_as_a_column_broadcasts_over_coordinates():
    mechanism = GaussianMechanism(1.0, np.array([[1.0], [10.0]]))
    noise = mechanism.sample(make_rng(3), (2, 4_000))
    assert noise.shape == (2, 4_000)
    np.testing.assert_allclose(noise.std(axis=1), [1.0, 10.0], rtol=0.05)


# --- calibration ------------------------------------------------------------------------------


def test_classic_calibration_is_the_dp_admm_formula():
    z = math.sqrt(2 * math.log(1.25 / 1e-3)) / 0.05
    assert round(z, 2) == 75.53
    assert classic_gaussian_sigma(1.0, 0.05, 1e-3) == z
    np.testing.assert_array_equal(classic_gaussian_sigma(np.array([1.0, 2.0]), 0.05, 1e-3), [z, 2 * z])


def test_classic_calibration_refuses_epsilon_above_one():
    with pytest.raises(ValueError, match="epsilon <= 1.*analytic"):
        classic_gaussian_sigma(1.0, 1.5, 1e-5)
    with pytest.raises(ValueError, match="calibration='analytic'"):
        GaussianMechanism.from_epsilon_delta(1.0, 2.0, 1e-5)
    assert GaussianMechanism.from_epsilon_delta(1.0, 2.0, 1e-5, calibration="analytic").sigma > 0


@pytest.mark.parametrize(
    ("epsilon", "delta"),
    [(0.05, 1e-3), (0.5, 1e-5), (1.0, 1e-10), (3.0, 1e-6), (10.0, 0.1), (0.01, 0.5)],
)
@pytest.mark.parametrize("sensitivity", [1.0, 3.7])
def test_analytic_calibration_matches_an_independent_mpmath_solution(epsilon, delta, sensitivity):
    sigma = analytic_gaussian_sigma(sensitivity, epsilon, delta)
    assert sigma == pytest.approx(mp_sigma(epsilon, delta, sensitivity), rel=1e-9)
    assert sigma == pytest.approx(sensitivity * get_sigma_gaussian(epsilon, delta), rel=1e-9)
    with mpmath.workdps(40):
        assert float(mp_delta(epsilon, sigma, sensitivity)) == pytest.approx(delta, rel=1e-7)


@given(epsilons_up_to_one, deltas)
def test_analytic_sigma_is_never_larger_than_classic(epsilon, delta):
    assert analytic_gaussian_sigma(1.0, epsilon, delta) <= classic_gaussian_sigma(1.0, epsilon, delta)


@given(sensitivities, epsilons, deltas)
def test_analytic_calibration_gives_back_epsilon_through_the_exact_accountant(sensitivity, epsilon, delta):
    mechanism = GaussianMechanism.from_epsilon_delta(sensitivity, epsilon, delta, calibration="analytic")
    assert mechanism.sigma == pytest.approx(analytic_gaussian_sigma(sensitivity, epsilon, delta), rel=1e-15)
    assert exact_epsilon(mechanism, delta) == pytest.approx(epsilon, rel=1e-6)


@given(sensitivities, epsilons_up_to_one, deltas)
def test_classic_calibration_never_overshoots_epsilon(sensitivity, epsilon, delta):
    mechanism = GaussianMechanism.from_epsilon_delta(sensitivity, epsilon, delta)
    assert exact_epsilon(mechanism, delta) <= epsilon


@given(epsilons, gaps, deltas)
def test_sigma_decreases_in_epsilon(epsilon, gap, delta):
    assert analytic_gaussian_sigma(1.0, epsilon * (1 + gap), delta) < analytic_gaussian_sigma(1.0, epsilon, delta)
    if epsilon * (1 + gap) <= 1:
        assert classic_gaussian_sigma(1.0, epsilon * (1 + gap), delta) < classic_gaussian_sigma(1.0, epsilon, delta)


@given(epsilons_up_to_one, deltas, gaps)
def test_sigma_decreases_in_delta(epsilon, delta, gap):
    larger = delta * (1 + gap)
    assert analytic_gaussian_sigma(1.0, epsilon, larger) < analytic_gaussian_sigma(1.0, epsilon, delta)
    assert classic_gaussian_sigma(1.0, epsilon, larger) < classic_gaussian_sigma(1.0, epsilon, delta)


@given(sensitivities, epsilons_up_to_one, deltas)
def test_sigma_is_proportional_to_sensitivity(sensitivity, epsilon, delta):
    for calibrate in (analytic_gaussian_sigma, classic_gaussian_sigma):
        assert calibrate(sensitivity, epsilon, delta) == pytest.approx(
            sensitivity * calibrate(1.0, epsilon, delta), rel=1e-14
        )


# --- events and the accountants ---------------------------------------------------------------


def test_event_is_the_noise_multiplier():
    mechanism = GaussianMechanism(2.0, 5.0)
    assert mechanism.noise_multiplier == 2.5
    assert mechanism.event() == dp_event.GaussianDpEvent(noise_multiplier=2.5)
    assert GaussianMechanism.from_noise_multiplier(4.0, 10.0).event() == dp_event.GaussianDpEvent(10.0)


def test_hundred_releases_at_noise_multiplier_ten_give_the_golden_epsilon():
    event = GaussianMechanism.from_noise_multiplier(3.0, 10.0).event()
    accountant = ExactGaussianAccountant().register(event, count=100)
    assert accountant.get_epsilon(1e-5) == pytest.approx(4.377178095681137, rel=1e-12)
    assert get_epsilon_gaussian(1.0, 1e-5) == pytest.approx(4.377178095681137, rel=1e-12)


def test_dp_admm_time_varying_releases_compose_to_the_exact_epsilon():
    """DP-ADMM: T = 100 releases per agent, each classic-calibrated to (0.05, 1e-3) for a
    sensitivity that shrinks with k, all at noise multiplier 75.53; exact total ε = 0.2772."""
    exact, pld, moments = ExactGaussianAccountant(), PLDAccountant(), MomentsAccountant()
    per_agent_sensitivity = np.array([5.4e-3, 2.7e-3, 1.1e-2])
    for k in range(100):
        mechanism = GaussianMechanism.from_epsilon_delta(per_agent_sensitivity / math.sqrt(k + 1), 0.05, 1e-3)
        assert round(mechanism.event().noise_multiplier, 2) == 75.53
        for agent, event in enumerate(mechanism.events()):
            for accountant in (exact, pld, moments):
                accountant.register(event, participant=agent)
    epsilon = exact.get_epsilon(1e-3)
    assert round(epsilon, 4) == 0.2772
    assert epsilon == pytest.approx(get_epsilon_gaussian(75.52959065318093 / 10, 1e-3), rel=1e-9)
    assert exact.get_epsilon(1e-3, participant=2) == epsilon
    assert epsilon - 1e-9 <= pld.get_epsilon(1e-3) <= epsilon + 1e-3
    assert moments.get_epsilon(1e-3) >= epsilon


def test_events_are_per_element_when_noise_multipliers_differ():
    mechanism = GaussianMechanism(np.array([[1.0, 2.0], [4.0, 5.0]]), 10.0)
    assert [event.noise_multiplier for event in mechanism.events()] == [10.0, 5.0, 2.5, 2.0]
    with pytest.raises(ValueError, match="distinct privacy parameters"):
        mechanism.event()


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"epsilon": 0.0}, ValueError, "epsilon must be finite and > 0"),
        ({"epsilon": -0.1}, ValueError, "epsilon must be finite and > 0"),
        ({"epsilon": math.nan}, ValueError, "epsilon must be finite and > 0.*, got nan"),
        ({"epsilon": math.inf}, ValueError, "epsilon must be finite"),
        ({"epsilon": "0.5"}, TypeError, "epsilon must be finite and > 0"),
        ({"delta": 0.0}, ValueError, r"delta must be a probability in \(0, 1\)"),
        ({"delta": 1.0}, ValueError, r"delta must be a probability in \(0, 1\)"),
        ({"delta": -1e-5}, ValueError, r"delta must be a probability in \(0, 1\)"),
        ({"delta": math.nan}, ValueError, "delta must be a probability in \\(0, 1\\), got nan"),
        ({"sensitivity": 0.0}, ValueError, "sensitivity must be finite and > 0"),
        ({"sensitivity": -1.0}, ValueError, "sensitivity must be finite and > 0"),
        ({"sensitivity": math.nan}, ValueError, "sensitivity must be finite and > 0.*, got nan"),
        (
            {"sensitivity": [1.0, -2.0]},
            ValueError,
            r"sensitivity must be finite and > 0 \(a real number or an array of them\), got -2.0 at index \(1,\)",
        ),
        (
            {"sensitivity": [1.0, math.nan]},
            ValueError,
            "sensitivity must be finite and > 0 \\(a real number or an array of them\\), got nan",
        ),
        ({"sensitivity": []}, ValueError, "sensitivity must be finite and > 0.*, got an empty array"),
        ({"sensitivity": [True]}, TypeError, "sensitivity must be finite and > 0"),
    ],
)
@pytest.mark.parametrize("calibration", ["classic", "analytic"])
def test_bad_calibration_input_is_refused(kwargs, error, message, calibration):
    arguments = {"sensitivity": 1.0, "epsilon": 0.5, "delta": 1e-5, **kwargs}
    calibrate = classic_gaussian_sigma if calibration == "classic" else analytic_gaussian_sigma
    with pytest.raises(error, match=message):
        calibrate(**arguments)
    with pytest.raises(error, match=message):
        GaussianMechanism.from_epsilon_delta(**arguments, calibration=calibration)


def test_bad_mechanism_input_is_refused():
    with pytest.raises(ValueError, match="sigma must be finite and > 0"):
        GaussianMechanism(1.0, 0.0)
    with pytest.raises(ValueError, match="sigma must be finite and > 0.*, got nan"):
        GaussianMechanism(1.0, math.nan)
    with pytest.raises(ValueError, match="sigma must be finite and > 0 \\(a real number or an array of them\\)"):
        GaussianMechanism(1.0, np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="noise_multiplier must be finite and > 0"):
        GaussianMechanism.from_noise_multiplier(1.0, 0.0)
    with pytest.raises(ValueError, match="calibration must be 'classic' or 'analytic'"):
        GaussianMechanism.from_epsilon_delta(1.0, 0.5, 1e-5, calibration="rdp")
