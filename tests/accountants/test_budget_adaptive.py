"""BudgetFilter and adaptivity: a warning (or refusal, or nothing, as asked) for accountants without
a proven privacy filter, and the privacy odometer as a filter for fully adaptive releases."""

import warnings

import pytest
from dp_accounting import dp_event

from accountants import (
    AdvancedCompositionAccountant,
    BudgetFilter,
    ExactGaussianAccountant,
    MomentsAccountant,
    PLDAccountant,
    PrivacyBudgetExceeded,
    PrivacyOdometer,
    PureEpsilonAccountant,
)
from accountants.budget import UnprovenFilterWarning

UNPROVEN = [PLDAccountant, MomentsAccountant, AdvancedCompositionAccountant, MomentsAccountant.classic]
PROVEN = [ExactGaussianAccountant, PureEpsilonAccountant, PrivacyOdometer, lambda: MomentsAccountant(orders=[8.0])]


@pytest.mark.parametrize("make", UNPROVEN)
def test_an_unproven_accountant_warns_by_default(make):
    with pytest.warns(UnprovenFilterWarning, match="has no proven privacy filter for adaptively chosen releases"):
        budget = BudgetFilter(make(), 1.0, 1e-5)
    assert not budget.adaptive


@pytest.mark.parametrize("make", UNPROVEN)
def test_an_unproven_accountant_is_refused_or_accepted_silently_as_asked(make):
    with pytest.raises(ValueError, match="unproven='refuse': .* has no proven privacy filter"):
        BudgetFilter(make(), 1.0, 1e-5, unproven="refuse")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not BudgetFilter(make(), 1.0, 1e-5, unproven="ignore").adaptive


@pytest.mark.parametrize("make", PROVEN)
def test_a_proven_filter_never_warns(make):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for choice in ("warn", "refuse", "ignore"):
            assert BudgetFilter(make(), 1.0, 1e-5, unproven=choice).adaptive


def test_bad_choice_is_named():
    with pytest.raises(ValueError, match="unproven must be one of 'warn', 'refuse', 'ignore', got 'loud'"):
        BudgetFilter(PureEpsilonAccountant(), 1.0, 1e-5, unproven="loud")


def test_the_odometer_as_a_filter_stops_a_dp_sgd_run_at_its_budget():
    """Poisson-sampled Gaussian steps (q = 0.01, σ = 1) under an odometer budget of ε = 3 at δ = 1e-5:
    the filter refuses the step that would cross it, records nothing for it, and the odometer's ε
    (valid at any stopping time) is within the budget."""
    budget = BudgetFilter.odometer(3.0, 1e-5)
    assert isinstance(budget.accountant, PrivacyOdometer) and budget.adaptive
    step = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0))
    steps = 0
    with pytest.raises(PrivacyBudgetExceeded):
        for _ in range(10_000):
            budget.register(step, count=50)
            steps += 50
    assert budget.ledger.total_count() == steps
    assert budget.get_epsilon(1e-5) <= 3.0 < budget.epsilon_if_registered(step, 1e-5, count=50)
    # the same steps fixed in advance cost less (the price of stopping at will)
    fixed = MomentsAccountant().register(step, steps).get_epsilon(1e-5)
    assert fixed < budget.get_epsilon(1e-5)


def test_odometer_options_pass_through(tmp_path):
    path = tmp_path / "run.ledger.jsonl"
    budget = BudgetFilter.odometer(5.0, 1e-6, rule="rdp", ledger_path=path, first_mu=0.5)
    budget.register(dp_event.GaussianDpEvent(20.0)).register(
        dp_event.PoissonSampledDpEvent(0.1, dp_event.GaussianDpEvent(2.0))
    )
    assert budget.accountant.rule == "rdp" and budget.accountant.first_mu == 0.5
    reopened = BudgetFilter.odometer(5.0, 1e-6, rule="rdp", ledger_path=path, first_mu=0.5)
    assert reopened.get_epsilon(1e-6) == budget.get_epsilon(1e-6)  # the file's releases count
