import pytest
from dp_accounting import dp_event

from accountants import (
    BudgetFilter,
    ExactGaussianAccountant,
    MomentsAccountant,
    PLDAccountant,
    PrivacyBudgetExceeded,
    PureDpEvent,
    PureEpsilonAccountant,
)


def test_refuses_the_release_that_would_cross_the_budget_and_records_nothing():
    budget = BudgetFilter(PureEpsilonAccountant(), epsilon=1.0, delta=0.0)
    for _ in range(4):
        budget.register(PureDpEvent(0.25), participant="alice")
    with pytest.raises(PrivacyBudgetExceeded, match="participant 'alice' would reach epsilon=1.1"):
        budget.register(PureDpEvent(0.1), participant="alice")
    assert budget.ledger.total_count("alice") == 4
    assert budget.remaining_epsilon("alice") == 0.0
    budget.register(PureDpEvent(0.9), participant="bob")  # budgets are per participant
    assert budget.remaining_epsilon("bob") == pytest.approx(0.1)


def test_gaussian_budget_with_the_exact_accountant():
    budget = BudgetFilter(ExactGaussianAccountant(), epsilon=4.377178095681137 + 1e-9, delta=1e-5)
    budget.register(dp_event.GaussianDpEvent(10.0), count=100)
    with pytest.raises(PrivacyBudgetExceeded):
        budget.register(dp_event.GaussianDpEvent(1000.0))
    assert budget.get_epsilon(1e-5) == pytest.approx(4.377178095681137, abs=1e-9)


def test_bad_construction():
    with pytest.raises(TypeError, match="accountant must be an accountants.Accountant"):
        BudgetFilter(object(), 1.0, 1e-5)
    with pytest.raises(ValueError, match="delta must be a probability"):
        BudgetFilter(PureEpsilonAccountant(), 1.0, 2.0)


def test_only_proven_filters_claim_adaptive_validity():
    assert BudgetFilter(ExactGaussianAccountant(), 1.0, 1e-5).adaptive
    assert BudgetFilter(PureEpsilonAccountant(), 1.0, 0.0).adaptive
    assert BudgetFilter(MomentsAccountant(orders=[8.0]), 1.0, 1e-5, require_adaptive=True).adaptive
    assert not BudgetFilter(MomentsAccountant(), 1.0, 1e-5, unproven="ignore").adaptive
    with pytest.raises(ValueError, match="require_adaptive: PLDAccountant has no proven privacy filter"):
        BudgetFilter(PLDAccountant(), 1.0, 1e-5, require_adaptive=True)
    gdp = BudgetFilter(ExactGaussianAccountant(), 1.0, 1e-5, require_adaptive=True)
    gdp.register(dp_event.GaussianDpEvent(10.0))
    assert gdp.get_epsilon(1e-5) <= 1.0
