"""A ``BudgetFilter`` attaches to a run like any accountant, in every solver family.

A run within budget records its releases through the filter. (A run the filter's budget cannot
cover is refused whole, before any noise is drawn and with nothing recorded or written: that is
``solvers.testing.check_budget_refusal``, run on every registered solver by ``test_conformance``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from accountants import (
    BudgetFilter,
    ExactGaussianAccountant,
    MomentsAccountant,
    PrivacyBudgetExceeded,
    PureEpsilonAccountant,
)
from solvers import DPADMM, HorizontalProblem, NaiveNoisyADMM
from solvers.datasets import partition_horizontal
from solvers.decentralized import RADMM, DecentralizedProblem
from solvers.engine.streams import AgentStreams, ChunkStreams
from solvers.graph import GraphTopology
from solvers.pdml import PDML
from solvers.sharing import ADMMSharing, VerticalProblem, partition_vertical


def _data(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1).max()
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)


@pytest.fixture(scope="module")
def problems():
    X, y = _data()
    return {
        "star": HorizontalProblem(partition_horizontal(X, y, 3, seed=0), lam=0.5),
        "graph": DecentralizedProblem.create(
            partition_horizontal(X, y, 3, seed=0), GraphTopology.ring(3), C=20.0, rho=1.0
        ),
        "pdml": HorizontalProblem(partition_horizontal(X, y, 3, seed=0), lam=1.0, topology=GraphTopology.ring(3)),
        "vertical": VerticalProblem(partition_vertical(X, y, [2, 2])),
    }


#: name → (solver, problem key, the accountant to wrap, releases of one run).
FAMILIES = {
    "dpadmm": (lambda: DPADMM(epsilon=0.5, n_iterations=4, dw=1.0), "star", MomentsAccountant, 3 * 4),
    "naive": (lambda: NaiveNoisyADMM(epsilon=0.5, n_iterations=4, sensitivity="tight"), "star", MomentsAccountant, 12),
    "radmm": (lambda: RADMM(eta=1.0, alpha=5.0, n_iterations=4), "graph", PureEpsilonAccountant, 3 * 5),
    # PDML: the 3 × 3 Gaussian broadcasts (the exact accountant cannot bound the pure-DP label releases)
    "pdml": (lambda: PDML(eps_label=1.0, eta_bound=0.5, V=0.2, n_iterations=3), "pdml", ExactGaussianAccountant, 9),
    "sharing": (
        lambda: ADMMSharing(n_iterations=3, noise="output", noise_multiplier=1.0, b1=5.0),
        "vertical",
        MomentsAccountant,
        2 * 3,
    ),
}


@pytest.fixture
def draws(monkeypatch):
    """Every draw of noise by any agent (AgentStreams, or ChunkStreams for a whole chunk of trials, is
    where every solver's agents draw)."""
    calls = []
    for streams in (AgentStreams, ChunkStreams):
        original = streams._blocks

        def counting(self, draw, size, original=original):
            calls.append(size)
            return original(self, draw, size)

        monkeypatch.setattr(streams, "_blocks", counting)
    return calls


def test_the_docstring_example_runs():
    X, y = _data()
    problem = HorizontalProblem(partition_horizontal(X, y, 3, seed=0), lam=0.5)
    budget = BudgetFilter(MomentsAccountant(), epsilon=1.0, delta=1e-5)
    result = DPADMM(epsilon=0.05, delta=1e-3, n_iterations=5, dw=1.0).run(problem, seed=0, accountants=[budget])
    assert len(budget.ledger) == 3 * 5 and set(budget.participants) == {0, 1, 2}
    assert result.privacy == {"budget(rdp)": pytest.approx(budget.get_epsilon(1e-3))}  # at the solver's δ


@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_run_within_budget_records_through_the_filter(problems, family, draws):
    make, key, accountant, releases = FAMILIES[family]
    budget = BudgetFilter(accountant(), epsilon=1e6, delta=1e-5)
    result = make().run(problems[key], seed=0, accountants=[budget])
    assert len(budget.ledger) >= releases and len(result.ledger) >= releases
    assert result.privacy[budget.name] == pytest.approx(
        max(budget.get_epsilon(make().target_delta, participant=p) for p in budget.participants if p is not None)
        if family == "pdml"
        else budget.get_epsilon(make().target_delta)
    )
    assert draws  # and the noise was drawn


def test_a_budget_spent_over_several_runs_refuses_the_one_that_does_not_fit(problems):
    budget = BudgetFilter(MomentsAccountant(), epsilon=1.5, delta=1e-5)
    solver = DPADMM(epsilon=0.5, delta=1e-5, n_iterations=2, dw=1.0)
    spent = []
    with pytest.raises(PrivacyBudgetExceeded):
        for _ in range(100):
            solver.run(problems["star"], seed=0, accountants=[budget])
            spent.append(budget.get_epsilon(1e-5))
    assert spent and spent[-1] <= 1.5 and len(budget.ledger) == len(spent) * 3 * 2


def test_one_filter_per_run_and_no_double_counting(problems):
    inner = MomentsAccountant()
    budget = BudgetFilter(inner, epsilon=10.0, delta=1e-5)
    solver = DPADMM(epsilon=0.5, n_iterations=2, dw=1.0)
    with pytest.raises(ValueError, match="at most one"):
        solver.run(problems["star"], accountants=[budget, BudgetFilter(MomentsAccountant(), 10.0, 1e-5)])
    with pytest.raises(ValueError, match="count twice"):
        solver.run(problems["star"], accountants=[budget, inner])
    with pytest.raises(ValueError, match="twice"):
        solver.run(problems["star"], accountants=[inner, inner])
    with pytest.raises(TypeError, match="sequence"):
        solver.run(problems["star"], accountants=budget)
    assert len(inner.ledger) == 0
