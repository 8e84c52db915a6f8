"""The nested-event strategies: what they draw is valid and every accountant that supports it
bounds it consistently with the flat form (composition invariance)."""

import math

import pytest
from dp_accounting import dp_event
from hypothesis import given, settings

from accountants import ExactGaussianAccountant, PLDAccountant
from accountants import strategies as dps
from accountants.events import check_event


@given(dps.self_composed_events(max_count=20))
def test_a_self_composed_gaussian_bounds_as_its_repetitions(event):
    check_event(event)
    nested = ExactGaussianAccountant().register(event).get_epsilon(1e-6)
    flat = ExactGaussianAccountant().register(event.event, count=event.count).get_epsilon(1e-6)
    assert nested == flat


@given(dps.composed_events(max_size=4))
def test_a_composed_event_bounds_as_its_parts_registered_one_by_one(event):
    check_event(event)
    nested = ExactGaussianAccountant().register(event).get_epsilon(1e-6)
    one_by_one = ExactGaussianAccountant()
    for part in event.events:
        one_by_one.register(part)
    assert nested == pytest.approx(one_by_one.get_epsilon(1e-6), rel=1e-12)


@settings(max_examples=10, deadline=None)
@given(dps.poisson_sampled_events(min_probability=0.01))
def test_sampling_never_costs_more_than_the_unsampled_release(event):
    check_event(event)
    sampled = PLDAccountant().register(event).get_epsilon(1e-6)
    unsampled = PLDAccountant().register(event.event).get_epsilon(1e-6)
    assert isinstance(event, dp_event.PoissonSampledDpEvent) and math.isfinite(sampled)
    assert sampled <= unsampled * (1 + 1e-6) + 1e-9
