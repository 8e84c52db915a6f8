"""A PLD budget filter admits most releases near its budget by δ(ε) on a grid ten times coarser
than the accountant's (``PLDAccountant.coarse_delta_from_summary``): a valid upper bound, never
below the accountant's own δ(ε) beyond rounding, checked against dp-accounting's PLDs composed from
scratch; the fine δ(ε) decides only where the coarse one exceeds the budget."""

from collections import Counter
from collections.abc import Callable

import pytest
from dp_accounting import dp_event

from accountants import ApproxDpEvent, BudgetFilter, PLDAccountant, PrivacyBudgetExceeded
from accountants.pld import COARSE_GRID_FACTOR
from accountants.pld_arrays import LossPmf

GRID = 1e-3  # the accountant's grid in these tests (the coarse one is 1e-2): bounds stay valid, tests fast


@pytest.mark.parametrize("counts", [(3, 2, 4), (8, 7, 7), (0, 5, 6), (6, 0, 3)])
def test_the_coarse_delta_bounds_the_fine_one_and_lies_below_dp_accountings_coarse_pld(mixed, counts):
    """Coarse >= fine (nested connect-the-dots grids), up to the FFTs' rounding; <= dp-accounting's
    pessimistic PLD on the coarse grid (whose Gaussian part is discretised, a dominating pair of the
    exact one kept here); within 2 % of the fine one and above dp-accounting's optimistic estimate
    on the fine grid."""
    releases = Counter({event: count for event, count in zip(mixed.events, counts, strict=True) if count})
    accountant = PLDAccountant(GRID)
    theirs = mixed.dp_accounting_pld(releases, COARSE_GRID_FACTOR * GRID, pessimistic=True)
    estimate = mixed.dp_accounting_pld(releases, GRID, pessimistic=False)
    for epsilon in (0.3, 1.2):
        coarse = accountant.coarse_delta_from_summary(releases, epsilon)
        fine = accountant.delta_from_summary(releases, epsilon)
        bound = theirs.get_delta_for_epsilon(epsilon)
        assert fine * (1 - 1e-9) - 1e-13 <= coarse <= bound * (1 + 1e-9) + 1e-13, (epsilon, fine, coarse, bound)
        # 4 % at most here, for Laplace releases of pure ε 0.05 on a grid of 0.01 (1e-4 on the default grid)
        assert estimate.get_delta_for_epsilon(epsilon) <= coarse <= fine * 1.05, (epsilon, coarse, fine)


def test_no_coarse_bound_where_it_does_not_apply(mixed):
    accountant = PLDAccountant(GRID)
    gaussians_only = Counter({mixed.gaussian: 3})  # their PLD query is the exact closed form, as cheap
    assert accountant.coarse_delta_from_summary(gaussians_only, 1.0) == 1.0
    assert accountant.coarse_delta_from_summary(Counter({mixed.laplace: 2, ApproxDpEvent(0.5, 1e-9): 1}), 1.0) == 1.0
    noiseless = Counter({mixed.laplace: 2, dp_event.GaussianDpEvent(0.0): 1})
    assert accountant.coarse_delta_from_summary(noiseless, 1.0) == 1.0
    assert PLDAccountant(60.0).coarse_delta_from_summary(Counter({mixed.laplace: 2}), 1.0) == 1.0  # no coarser grid
    # a single Laplace release: its PLD on the coarse grid, above the exact δ(ε) = 1 − e^{(ε − 1/b)/2}
    exact = PLDAccountant(GRID).register(dp_event.LaplaceDpEvent(2.0)).get_delta(0.2)
    coarse = accountant.coarse_delta_from_summary(Counter({dp_event.LaplaceDpEvent(2.0): 1}), 0.2)
    assert exact <= coarse <= exact * (1 + 1e-3)


def spy(accountant: PLDAccountant, calls: list) -> None:
    """Record which of the filter's bounds the accountant is asked for, in order."""

    def recorded(name: str) -> Callable[..., float]:
        method = getattr(accountant, name)

        def call(*args: object) -> float:
            calls.append(name)
            return method(*args)

        return call

    for name in ("rdp_delta_from_summary", "coarse_delta_from_summary", "delta_from_summary"):
        setattr(accountant, name, recorded(name))


def test_near_the_budget_the_coarse_bound_admits_and_a_bound_over_it_is_not_asked_again(mixed):
    accountant = PLDAccountant(GRID)
    calls: list = []
    spy(accountant, calls)
    budget = BudgetFilter(accountant, epsilon=1.2, delta=1e-5, unproven="ignore")
    steps = []
    with pytest.raises(PrivacyBudgetExceeded):
        for step in range(100):
            calls.clear()
            budget.register(mixed.events[step % 3])
            steps.append(list(calls))
    admitted_by = [step[-1] for step in steps]
    first_coarse = admitted_by.index("coarse_delta_from_summary")
    assert set(admitted_by[:first_coarse]) == {"rdp_delta_from_summary"}
    assert admitted_by[first_coarse:].count("delta_from_summary") <= 1  # the fine sum, at most at the very end
    assert len(admitted_by) - first_coarse >= 10  # most steps near the budget: the coarse bound
    # once the RDP bound exceeded the budget it is not asked again
    assert all(step[0] == "coarse_delta_from_summary" for step in steps[first_coarse + 1 :])
    assert budget.get_delta(1.2) <= 1e-5  # the fine bound certifies every admitted ledger
    counts = Counter(entry.event for entry in budget.ledger)
    assert mixed.dp_accounting_pld(counts, GRID, pessimistic=True).get_delta_for_epsilon(1.2) <= 1e-5 * (1 + 2e-4)


def test_a_refused_release_leaves_the_cheap_bounds_to_the_next_one(mixed):
    """The refused release's bounds exceeded the budget, but it was not recorded: a smaller release
    after it is still admitted by the coarse bound."""
    accountant = PLDAccountant(GRID)
    budget = BudgetFilter(accountant, epsilon=1.2, delta=1e-5, unproven="ignore")
    with pytest.raises(PrivacyBudgetExceeded):
        for step in range(100):
            budget.register(mixed.events[step % 3])
    calls: list = []
    spy(accountant, calls)
    before = len(budget.ledger)
    budget.register(dp_event.LaplaceDpEvent(1e4))  # pure ε 1e-4
    assert calls == ["coarse_delta_from_summary"] and len(budget.ledger) == before + 1


def test_a_composition_extended_by_several_events_is_the_from_scratch_one(mixed, monkeypatch):
    """A kept composition missing releases of fewer distinct events than the query holds is extended
    by those (single releases: no self-composition), not composed again from scratch."""
    powers = []
    self_compose = LossPmf.self_compose
    monkeypatch.setattr(LossPmf, "self_compose", lambda pmf, count: powers.append(count) or self_compose(pmf, count))
    other = dp_event.LaplaceDpEvent(40.0)
    laplace, gaussian, sampled = mixed.events
    accountant = PLDAccountant(GRID)
    accountant.delta_from_summary(Counter({laplace: 3, sampled: 2, other: 2, gaussian: 1}), 1.0)
    powers.clear()
    extended = accountant.delta_from_summary(Counter({laplace: 4, sampled: 3, other: 2, gaussian: 1}), 1.0)
    assert max(powers) == 1  # the two added releases composed in; no power of 3 or 4 taken
    scratch = PLDAccountant(GRID).delta_from_summary(Counter({laplace: 4, sampled: 3, other: 2, gaussian: 1}), 1.0)
    assert extended == pytest.approx(scratch, rel=1e-9, abs=1e-13)
