"""A PLD budget filter admits a release by the Rényi-DP bound on the same releases when that
bound already proves the budget (no PLD is composed), and by the PLD otherwise; every admitted
ledger is within the budget by one of these valid bounds."""

from collections import Counter

import pytest
from dp_accounting import dp_event

from accountants import ApproxDpEvent, BudgetFilter, MomentsAccountant, PLDAccountant, PrivacyBudgetExceeded

COARSE = 1e-3
MIXED = [
    dp_event.LaplaceDpEvent(20.0),
    dp_event.GaussianDpEvent(10.0),
    dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0)),
]


def test_the_rdp_bound_is_the_moments_accountants_delta():
    releases = Counter({MIXED[0]: 3, MIXED[1]: 2, MIXED[2]: 5})
    ours = PLDAccountant(COARSE).rdp_delta_from_summary(releases, 2.0)
    moments = MomentsAccountant()
    for event, count in releases.items():
        moments.register(event, count)
    assert (
        moments.get_delta(2.0) <= ours <= moments.get_delta(2.0) * (1 + 1e-12)
    )  # the Gaussians folded, σ rounded down
    assert PLDAccountant(COARSE).rdp_delta_from_summary(Counter({ApproxDpEvent(1.0, 1e-6): 1}), 2.0) == 1.0
    # plain Gaussians enter folded into one (their curves add up exactly), alone they are left to the PLD
    gaussians = Counter({dp_event.GaussianDpEvent(3.0 + k): 1 for k in range(40)})
    assert PLDAccountant(COARSE).rdp_delta_from_summary(gaussians, 2.0) == 1.0
    gaussians[MIXED[0]] = 2
    moments = MomentsAccountant()
    for event, count in gaussians.items():
        moments.register(event, count)
    folded = PLDAccountant(COARSE).rdp_delta_from_summary(gaussians, 2.0)
    assert folded == pytest.approx(moments.get_delta(2.0), rel=1e-12)  # both rounded up, in other orders


def test_a_generous_budget_composes_no_pld_until_asked(monkeypatch):
    accountant = PLDAccountant(COARSE)
    queries = []
    query = accountant.delta_from_summary
    monkeypatch.setattr(accountant, "delta_from_summary", lambda *args: queries.append(args) or query(*args))
    budget = BudgetFilter(accountant, epsilon=10.0, delta=1e-5, unproven="ignore")
    for step in range(12):
        budget.register(MIXED[step % 3])
    assert queries == []  # every release admitted by the RDP bound
    moments = MomentsAccountant().register_ledger(budget.ledger)
    assert moments.get_delta(10.0) <= 1e-5
    assert budget.get_epsilon(1e-5) <= moments.get_epsilon(1e-5) <= 10.0  # the PLD is the tighter bound here


def test_near_the_budget_every_admitted_ledger_is_proven_and_the_refused_release_is_not_recorded():
    budget = BudgetFilter(PLDAccountant(COARSE), epsilon=1.5, delta=1e-5, unproven="ignore")
    admitted = 0
    with pytest.raises(PrivacyBudgetExceeded) as refused:
        for step in range(200):
            budget.register(MIXED[step % 3])
            admitted += 1
            pld_delta = budget.get_delta(1.5)
            rdp_delta = MomentsAccountant().register_ledger(budget.ledger).get_delta(1.5)
            assert min(pld_delta, rdp_delta) <= 1e-5
    assert refused.value.epsilon > 1.5
    assert len(budget.ledger) == admitted > 10
    assert PLDAccountant(COARSE).register_ledger(budget.ledger).get_epsilon(1e-5) <= 1.5 * (1 + 1e-7)
