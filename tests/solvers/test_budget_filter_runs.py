"""A ``BudgetFilter`` over several runs of one solver, and what a run refuses to count.

(Every registered solver's runs record through a filter that covers them and are refused whole by one
that cannot: ``solvers.testing.check_budget_refusal``, run on each by ``test_conformance``.)
"""

from __future__ import annotations

import pytest

from accountants import BudgetFilter, MomentsAccountant, PrivacyBudgetExceeded
from solvers import DPADMM


def test_the_docstring_example_runs(star_problem):
    budget = BudgetFilter(MomentsAccountant(), epsilon=1.0, delta=1e-5)
    result = DPADMM(epsilon=0.05, delta=1e-3, n_iterations=5, dw=1.0).run(star_problem, seed=0, accountants=[budget])
    assert len(budget.ledger) == 3 * 5 and set(budget.participants) == {0, 1, 2}
    assert result.privacy == {"budget(rdp)": pytest.approx(budget.get_epsilon(1e-3))}  # at the solver's δ


def test_a_budget_spent_over_several_runs_refuses_the_one_that_does_not_fit(star_problem):
    budget = BudgetFilter(MomentsAccountant(), epsilon=1.5, delta=1e-5)
    solver = DPADMM(epsilon=0.5, delta=1e-5, n_iterations=2, dw=1.0)
    spent = []
    with pytest.raises(PrivacyBudgetExceeded):
        for _ in range(100):
            solver.run(star_problem, seed=0, accountants=[budget])
            spent.append(budget.get_epsilon(1e-5))
    assert spent and spent[-1] <= 1.5 and len(budget.ledger) == len(spent) * 3 * 2


def test_one_filter_per_run_and_no_double_counting(star_problem):
    inner = MomentsAccountant()
    budget = BudgetFilter(inner, epsilon=10.0, delta=1e-5)
    solver = DPADMM(epsilon=0.5, n_iterations=2, dw=1.0)
    with pytest.raises(ValueError, match="at most one"):
        solver.run(star_problem, accountants=[budget, BudgetFilter(MomentsAccountant(), 10.0, 1e-5)])
    with pytest.raises(ValueError, match="count twice"):
        solver.run(star_problem, accountants=[budget, inner])
    with pytest.raises(ValueError, match="twice"):
        solver.run(star_problem, accountants=[inner, inner])
    with pytest.raises(TypeError, match="sequence"):
        solver.run(star_problem, accountants=budget)
    assert len(inner.ledger) == 0
