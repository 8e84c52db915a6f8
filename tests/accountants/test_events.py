import math

import pytest
from dp_accounting import dp_event

from accountants.events import ApproxDpEvent, PureDpEvent, epsilon_delta_of, flatten


def test_events_are_immutable_hashable_values():
    assert PureDpEvent(0.1) == PureDpEvent(0.1)
    assert len({PureDpEvent(0.1), PureDpEvent(0.1), ApproxDpEvent(0.1, 1e-6)}) == 2
    with pytest.raises(AttributeError):
        PureDpEvent(0.1).epsilon = 2.0


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: PureDpEvent(-0.1), "PureDpEvent.epsilon must be >= 0"),
        (lambda: PureDpEvent(float("nan")), "PureDpEvent.epsilon must not be NaN"),
        (lambda: ApproxDpEvent(1.0, 1.0), r"ApproxDpEvent.delta must be a probability in \[0, 1\)"),
        (lambda: ApproxDpEvent(1.0, -1e-9), "ApproxDpEvent.delta"),
    ],
)
def test_bad_parameters_are_refused_with_the_argument_named(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_flatten_multiplies_self_composition_and_drops_no_ops():
    gauss = dp_event.GaussianDpEvent(3.0)
    nested = dp_event.ComposedDpEvent(
        [dp_event.SelfComposedDpEvent(gauss, 4), dp_event.NoOpDpEvent(), PureDpEvent(0.5)]
    )
    assert flatten(dp_event.SelfComposedDpEvent(nested, 2), 3) == [(gauss, 24), (PureDpEvent(0.5), 6)]


def test_randomized_response_epsilon_is_the_likelihood_ratio():
    # k = 2, p = 2/(1 + e): keep probability 1 - p/2 = e/(1+e), flip p/2 = 1/(1+e): ratio e.
    event = dp_event.RandomizedResponseDpEvent(2.0 / (1.0 + math.e), 2)
    eps, delta = epsilon_delta_of(event)
    assert eps == pytest.approx(1.0, rel=1e-14) and delta == 0.0
    p, k = 0.3, 5
    keep, other = 1 - p + p / k, p / k
    assert epsilon_delta_of(dp_event.RandomizedResponseDpEvent(p, k))[0] == pytest.approx(math.log(keep / other))


def test_laplace_and_stated_guarantees():
    assert epsilon_delta_of(dp_event.LaplaceDpEvent(4.0)) == (0.25, 0.0)
    assert epsilon_delta_of(ApproxDpEvent(0.5, 1e-6)) == (0.5, 1e-6)
    assert epsilon_delta_of(dp_event.GaussianDpEvent(1.0)) is None
