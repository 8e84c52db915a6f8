import math

import pytest
from dp_accounting import dp_event
from dp_accounting.pld import PLDAccountant as DpPLDAccountant
from dp_accounting.privacy_accountant import NeighboringRelation
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import ApproxDpEvent, ExactGaussianAccountant, PLDAccountant, PureDpEvent, UnsupportedEventError
from accountants.composition import optimal_epsilon

COARSE = 1e-3  # discretisation for the property tests (bounds stay valid, only looser)


@settings(max_examples=15)
@given(st.lists(st.tuples(st.floats(1.0, 30.0), st.integers(1, 50)), min_size=1, max_size=4), st.floats(1e-8, 1e-2))
def test_optimistic_exact_pessimistic_sandwich_for_gaussian_sequences(releases, delta):
    pld = PLDAccountant(value_discretization_interval=COARSE)
    exact = ExactGaussianAccountant()
    for z, count in releases:
        pld.register(dp_event.GaussianDpEvent(z), count)
        exact.register(dp_event.GaussianDpEvent(z), count)
    lower, upper = pld.get_epsilon_interval(delta)
    truth = exact.get_epsilon(delta)
    assert lower <= truth * (1 + 1e-9) + 1e-12
    assert truth <= upper * (1 + 1e-9) + 1e-12
    assert pld.get_epsilon(delta) == upper


def test_pure_and_approximate_releases_are_bounded_above_the_optimal_composition():
    pld = PLDAccountant().register(PureDpEvent(0.1), 100)
    lower, upper = pld.get_epsilon_interval(1e-5)
    exact = optimal_epsilon([(0.1, 0.0, 100)], 1e-5)
    assert lower <= exact <= upper < exact + 0.02
    with_delta = PLDAccountant().register(ApproxDpEvent(0.1, 1e-7), 100)
    assert with_delta.get_epsilon(1e-5) >= optimal_epsilon([(0.1, 1e-7, 100)], 1e-5)
    assert with_delta.get_delta(100.0) == pytest.approx(1 - (1 - 1e-7) ** 100, rel=1e-6)


@pytest.mark.parametrize(
    "event, relation",
    [
        (dp_event.GaussianDpEvent(10.0), NeighboringRelation.ADD_OR_REMOVE_ONE),
        (dp_event.GaussianDpEvent(10.0), NeighboringRelation.REPLACE_ONE),  # sensitivity 2 in both
        (dp_event.LaplaceDpEvent(3.0), NeighboringRelation.ADD_OR_REMOVE_ONE),
        (dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)), NeighboringRelation.ADD_OR_REMOVE_ONE),
        (dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)), NeighboringRelation.REPLACE_ONE),
        (dp_event.PoissonSampledDpEvent(0.01, dp_event.LaplaceDpEvent(1.0)), NeighboringRelation.ADD_OR_REMOVE_ONE),
    ],
)
def test_agrees_with_dp_accounting_pld_under_the_same_relation(event, relation):
    ours = PLDAccountant(neighboring_relation=relation).register(event, 20)
    theirs = DpPLDAccountant(neighboring_relation=relation)
    theirs.compose(event, 20)
    assert ours.get_epsilon(1e-6) == pytest.approx(theirs.get_epsilon(1e-6), rel=1e-5)
    if type(event) is dp_event.GaussianDpEvent:  # the closed form: the exact ε, below any grid's
        exact = ExactGaussianAccountant(neighboring_relation=relation).register(event, 20).get_epsilon(1e-6)
        assert exact <= ours.get_epsilon(1e-6) <= exact * (1 + 1e-13) and exact <= theirs.get_epsilon(1e-6)
    else:
        assert ours.get_epsilon(1e-6) >= theirs.get_epsilon(1e-6)  # rounded outward, never below


def test_randomized_response_counts_every_repetition():
    """dp-accounting 0.6's PLDAccountant drops the count of a RandomizedResponseDpEvent (it composes
    the PLD once); binary randomized response is its own dominating pair, so its 20-fold PLD must
    match the exact optimal composition of 20 pure releases."""
    event = dp_event.RandomizedResponseDpEvent(0.3, 2)
    eps = math.log1p(2 * 0.7 / 0.3)
    replace_one = PLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    lower, upper = replace_one.register(event, 20).get_epsilon_interval(1e-6)
    exact = optimal_epsilon([(eps, 0.0, 20)], 1e-6)
    assert lower <= exact <= upper <= exact + 1e-2
    theirs = DpPLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    theirs.compose(event, 20)
    assert theirs.get_epsilon(1e-6) < exact / 10  # the upstream defect this guards against


def test_unsupported_and_non_private():
    with pytest.raises(UnsupportedEventError, match="PLDAccountant cannot bound the event ZCDpEvent"):
        PLDAccountant().register(dp_event.ZCDpEvent(0.1))
    with pytest.raises(UnsupportedEventError, match="`ADD_OR_REMOVE_ONE` or `REPLACE_SPECIAL`"):
        PLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE).register(
            dp_event.PoissonSampledDpEvent(0.1, dp_event.LaplaceDpEvent(1.0))
        )
    accountant = PLDAccountant().register(dp_event.NonPrivateDpEvent())
    assert accountant.get_epsilon(1e-3) == math.inf and accountant.get_delta(5.0) == 1.0
    with pytest.raises(ValueError, match="value_discretization_interval must be > 0"):
        PLDAccountant(value_discretization_interval=0.0)


def test_nearly_noiseless_gaussians_get_a_coarser_grid_and_still_an_upper_bound(monkeypatch):
    # A noise multiplier of 1e-3 has losses of order 1/σ² = 10^6: on the default 1e-4 grid that is
    # 10^10 points. The grid is coarsened to at most MAX_GRID_POINTS, and stays pessimistic.
    import accountants.pld as pld

    monkeypatch.setattr(pld, "MAX_GRID_POINTS", 20_000)
    events = [dp_event.GaussianDpEvent(1e-3), dp_event.GaussianDpEvent(2.0)]
    accountant = PLDAccountant()
    exact = ExactGaussianAccountant()
    for event in events:
        accountant.register(event)
        exact.register(event)
    summary = next(iter(accountant._summaries.values()))
    interval = accountant.grid_interval(summary)
    # mean widths add up (1/σ² each), standard deviations in quadrature (±10 of them)
    assert interval == pytest.approx((1e6 + 1 / 4 + 20 * math.sqrt(1e6 + 1 / 4)) / 20_000)
    low, high = accountant.get_epsilon_interval(1e-5)
    true = exact.get_epsilon(1e-5)
    assert low <= true * (1 + 1e-9) and true <= high <= true + 2 * interval
