"""The array-built PLD of a Poisson-sampled Gaussian release is dp-accounting's own, to the bit."""

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.privacy_accountant import NeighboringRelation

from accountants import PLDAccountant
from accountants.sampled_gaussian import sampled_gaussian_pld

CASES = [
    (1.0, 0.01, 1e-4),
    (0.5, 0.3, 1e-3),
    (3.0, 0.001, 1e-4),
    (1.0, 1.0, 1e-3),
    (0.8, 0.999, 1e-3),
    (20.0, 0.5, 1e-3),
]


def theirs(sigma, q, interval):
    return pld_lib.from_gaussian_mechanism(
        sigma, sampling_prob=q, value_discretization_interval=interval, use_connect_dots=True
    )


@pytest.mark.parametrize(("sigma", "q", "interval"), CASES)
def test_the_same_pld_as_dp_accounting(sigma, q, interval):
    ours, reference = sampled_gaussian_pld(sigma, q, interval), theirs(sigma, q, interval)
    for count, delta in [(1, 1e-5), (50, 1e-6), (200, 1e-9)]:
        composed, expected = ours.self_compose(count), reference.self_compose(count)
        assert composed.get_epsilon_for_delta(delta) == expected.get_epsilon_for_delta(delta)
        epsilon = expected.get_epsilon_for_delta(delta)
        for at in (0.0, epsilon / 2, epsilon, 2 * epsilon):
            assert composed.get_delta_for_epsilon(at) == expected.get_delta_for_epsilon(at)


@pytest.mark.slow
def test_the_accountant_answers_dp_accounting_at_several_settings():
    from dp_accounting.pld import PLDAccountant as DpPLDAccountant

    for sigma, q, count, delta in [(1.0, 0.01, 1000, 1e-5), (0.7, 0.05, 300, 1e-6), (2.0, 0.2, 100, 1e-8)]:
        event = dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma))
        ours = PLDAccountant().register(event, count).get_epsilon(delta)
        reference = DpPLDAccountant().compose(event, count).get_epsilon(delta)
        # only the outward rounding of δ added (1e-9 relative and 1e-14 absolute: up to 6e-8 in ε here)
        assert reference <= ours <= reference * (1 + 1e-7)


@pytest.mark.parametrize(
    ("sigma", "q", "interval", "name"),
    [
        (0.0, 0.5, 1e-4, "sigma"),
        (np.inf, 0.5, 1e-4, "sigma"),
        (1.0, 0.0, 1e-4, "sampling_probability"),
        (1.0, 1.5, 1e-4, "sampling_probability"),
        (1.0, 0.5, 0.0, "interval"),
    ],
)
def test_bad_arguments_are_named(sigma, q, interval, name):
    with pytest.raises(ValueError, match=name):
        sampled_gaussian_pld(sigma, q, interval)


def test_replace_one_still_uses_dp_accounting():
    event = dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(2.0))
    relation = NeighboringRelation.REPLACE_ONE
    from dp_accounting.pld import PLDAccountant as DpPLDAccountant

    ours = PLDAccountant(1e-3, neighboring_relation=relation).register(event, 20).get_epsilon(1e-6)
    reference = DpPLDAccountant(relation, value_discretization_interval=1e-3).compose(event, 20).get_epsilon(1e-6)
    assert reference <= ours <= reference * (1 + 1e-8)
