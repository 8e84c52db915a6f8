"""Laplace mechanism: the noise is Laplace(0, Δ/ε) and one release is ε-DP for the accountants."""

import math

import numpy as np
import pytest
from dp_accounting import dp_event
from scipy import stats

from accountants import PLDAccountant, PureEpsilonAccountant, epsilon_delta_of
from mechanisms import LaplaceMechanism, make_rng

KS_THRESHOLD = 1e-3


def test_noise_is_laplace_with_scale_sensitivity_over_epsilon():
    mechanism = LaplaceMechanism(2.0, 0.5)
    assert mechanism.scale == 4.0
    noise = mechanism.sample(make_rng(31337), 20_000)
    assert stats.kstest(noise, stats.laplace(scale=4.0).cdf).pvalue > KS_THRESHOLD
    assert stats.kstest(noise, stats.laplace(scale=0.25).cdf).pvalue < KS_THRESHOLD
    assert stats.kstest(noise, stats.laplace(scale=4.0 / math.sqrt(2)).cdf).pvalue < KS_THRESHOLD
    assert stats.kstest(noise, stats.norm(scale=4.0 * math.sqrt(2)).cdf).pvalue < KS_THRESHOLD


def test_one_call_draws_for_all_trials_and_agents():
    epsilon = np.array([0.25, 1.0, 4.0])
    mechanism = LaplaceMechanism(1.0, epsilon)
    noise = mechanism.sample(make_rng(8), (6_000, 3))
    for column, scale in zip(noise.T, 1.0 / epsilon, strict=True):
        assert stats.kstest(column, stats.laplace(scale=scale).cdf).pvalue > KS_THRESHOLD
    assert stats.kstest(noise[:, 0], stats.laplace(scale=1.0).cdf).pvalue < KS_THRESHOLD


def test_event_is_laplace_with_noise_multiplier_one_over_epsilon():
    mechanism = LaplaceMechanism(np.array([1.0, 3.0]), 0.5)
    assert mechanism.event() == dp_event.LaplaceDpEvent(noise_multiplier=2.0)
    assert mechanism.events() == [dp_event.LaplaceDpEvent(2.0)] * 2
    assert epsilon_delta_of(mechanism.event()) == (0.5, 0.0)


def test_releases_compose_in_the_accountants():
    event = LaplaceMechanism(1.0, 0.5).event()
    basic = PureEpsilonAccountant().register(event, count=10)
    assert basic.get_epsilon(1e-6) == pytest.approx(5.0, rel=1e-12)
    pld = PLDAccountant().register(event, count=10).get_epsilon(1e-6)
    assert 4.0 < pld <= 5.0 + 1e-3


def test_per_agent_epsilons_give_one_event_each():
    mechanism = LaplaceMechanism(1.0, np.array([0.5, 1.0]))
    assert [event.noise_multiplier for event in mechanism.events()] == [2.0, 1.0]
    with pytest.raises(ValueError, match="events()"):
        mechanism.event()


@pytest.mark.parametrize(
    ("sensitivity", "epsilon", "error", "message"),
    [
        (1.0, 0.0, ValueError, "epsilon must be finite and > 0"),
        (1.0, -1.0, ValueError, "epsilon must be finite and > 0"),
        (1.0, math.nan, ValueError, "epsilon must be finite and > 0.*, got nan"),
        (1.0, math.inf, ValueError, "epsilon must be finite"),
        (1.0, [0.5, 0.0], ValueError, "epsilon must be finite and > 0 \\(a real number or an array of them\\)"),
        (0.0, 1.0, ValueError, "sensitivity must be finite and > 0"),
        (math.nan, 1.0, ValueError, "sensitivity must be finite and > 0.*, got nan"),
        ("1", 1.0, TypeError, "sensitivity must be finite and > 0"),
        (1.0, 1 + 2j, TypeError, "epsilon must be finite and > 0"),
    ],
)
def test_bad_input_is_refused(sensitivity, epsilon, error, message):
    with pytest.raises(error, match=message):
        LaplaceMechanism(sensitivity, epsilon)
