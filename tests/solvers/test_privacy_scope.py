"""What a run's ledger and ε cover, and SecureReseedingGenerator in batched runs.

A batched run returns R noisy transcripts of the same data while its ledger and ``privacy`` are
those of one trial: the trials are independent simulations (for audits), not releases of one
deployment. ``Result`` says so (``privacy_scope``, ``n_trials``, its repr) and so does the run record
next to the ledger file, so nobody reading either undercounts by R×. A ``SecureReseedingGenerator``
seed is honoured in batched runs (every agent of every trial reseeds from OS entropy at every draw)
and ``Result.seeds`` keeps nothing that could replay it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from accountants import Ledger
from mechanisms import SecureReseedingGenerator
from solvers import DPADMM, HorizontalProblem
from solvers.datasets import partition_horizontal
from solvers.decentralized import RADMM, DecentralizedProblem
from solvers.engine.ledger_runs import RUN_RECORD_SCHEMA, read_run_records, run_record_path
from solvers.engine.result import ONE_DEPLOYMENT, UnreplayableSeed
from solvers.graph import GraphTopology
from solvers.pdml import PDML
from solvers.sharing import ADMMSharing, VerticalProblem, partition_vertical


def _data(n=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1).max()
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)


@pytest.fixture(scope="module")
def cases():
    X, y = _data()
    star = HorizontalProblem(partition_horizontal(X, y, 3, seed=0), lam=0.5)
    graph = DecentralizedProblem.create(partition_horizontal(X, y, 3, seed=0), GraphTopology.ring(3), C=20.0, rho=1.0)
    pdml = HorizontalProblem(partition_horizontal(X, y, 3, seed=0), lam=1.0, topology=GraphTopology.ring(3))
    vertical = VerticalProblem(partition_vertical(X, y, [2, 2]))
    return {
        "dpadmm": (DPADMM(epsilon=0.5, n_iterations=4, dw=1.0), star, ("exact_gaussian",)),
        "radmm": (RADMM(eta=1.0, alpha=5.0, n_iterations=4), graph, ("pure",)),
        "pdml": (PDML(eps_label=1.0, eta_bound=0.5, V=0.2, n_iterations=3), pdml, ("exact_gaussian",)),
        "sharing": (ADMMSharing(n_iterations=3, noise="output", noise_multiplier=1.0, b1=5.0), vertical, ("rdp",)),
    }


def test_a_batched_run_says_its_ledger_and_epsilon_are_per_simulated_trial(cases, tmp_path):
    # every registered family: solvers.testing.check_privacy_scope (test_conformance); here the wording
    solver, problem, accountants = cases["dpadmm"]
    path = tmp_path / "ledger.jsonl"
    batched = solver.run(problem, seed=1, trials=5, accountants=accountants, ledger_path=path)
    assert batched.n_trials == 5
    scope = batched.privacy_scope
    assert "each of 5 simulated trials" in scope and "not a composition" in scope
    assert "privacy_scope=" in repr(batched) and "n_trials=5" in repr(batched) and "not a composition" in repr(batched)
    assert batched.trial(2).privacy_scope == scope  # one of the simulations, still
    # next to the ledger file: the run record says what its entries cover, before any entry
    record = run_record_path(path)
    assert record.name == "ledger.jsonl.runs.jsonl"
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines[0] == {"schema": RUN_RECORD_SCHEMA, "version": 1, "ledger": "ledger.jsonl"}
    (run,) = read_run_records(path)
    assert run["n_trials"] == 5 and run["simulated_trials"] is True and run["epsilon_per"] == "trial"
    assert run["privacy_scope"] == scope and run["solver"] == solver.name
    assert run["releases"] == len(batched.ledger) == len(Ledger.load(path))
    # a single run on the same ledger file: one deployment, recorded as such
    single = solver.run(problem, seed=1, accountants=accountants, ledger_path=path)
    assert single.n_trials == 1 and single.privacy_scope == ONE_DEPLOYMENT
    assert "one deployment" in repr(single)
    first, second = read_run_records(path)
    assert first == run and second["n_trials"] == 1 and second["epsilon_per"] == "deployment"
    assert second["simulated_trials"] is False


def test_a_hand_built_result_infers_its_scope():
    from solvers.engine.result import Result

    batched = Result(np.zeros((3, 2)), np.zeros((3, 2)), {}, None, Ledger(), {}, None, (1, 2, 3))
    assert batched.n_trials == 3 and "each of 3 simulated trials" in batched.privacy_scope
    single = Result(np.zeros(2), np.zeros(2), {}, None, Ledger(), {}, None, (1,))
    assert single.privacy_scope == ONE_DEPLOYMENT


@pytest.fixture
def reseeds(monkeypatch):
    """Count SecureReseedingGenerator.reseed calls (one per agent per draw when honoured)."""
    calls = []
    original = SecureReseedingGenerator.reseed

    def counting(self):
        calls.append(self)  # kept alive, so that distinct generators have distinct ids
        original(self)

    monkeypatch.setattr(SecureReseedingGenerator, "reseed", counting)
    return calls


def _no_replayable_seed(seeds) -> bool:
    return all(isinstance(s, UnreplayableSeed) for s in seeds)


@pytest.mark.parametrize("name", ["dpadmm", "sharing"])
def test_a_secure_generator_is_honoured_in_a_batched_run_and_keeps_no_seed(cases, name, reseeds):
    # every registered family: solvers.testing.check_secure_generator (test_conformance); here every
    # agent of every trial reseeding on its own generator
    solver, problem, _ = cases[name]
    result = solver.run(problem, seed=SecureReseedingGenerator(), trials=4, accountants=())
    n_agents = problem.n_agents
    assert len({id(g) for g in reseeds}) >= 4 * n_agents  # every agent of every trial: its own generator
    assert len(result.seeds) == 4 and _no_replayable_seed(result.seeds)
    assert not any(isinstance(s, (np.random.SeedSequence, np.random.Generator)) for s in result.seeds)
    key = "w" if "w" in result.transcript else result.transcript.channels[0].name
    released = result.transcript[key]
    assert not np.allclose(released[:, 0], released[:, 1])  # the trials differ
    with pytest.raises(TypeError, match="seed"):
        solver.run(problem, seed=result.seeds[0], accountants=())  # refused, not silently other noise


@pytest.mark.parametrize("name", ["dpadmm", "sharing"])
def test_a_single_secure_run_works_as_before_and_keeps_no_seed(cases, name, reseeds):
    solver, problem, _ = cases[name]
    first = solver.run(problem, seed=SecureReseedingGenerator(), accountants=())
    second = solver.run(problem, seed=SecureReseedingGenerator(), accountants=())
    assert len(reseeds) > 0 and first.seeds == (UnreplayableSeed(),) and _no_replayable_seed(second.seeds)
    assert not np.array_equal(first.model, second.model)


def test_plain_generators_and_seeds_are_unchanged(cases):
    solver, problem, _ = cases["dpadmm"]
    batched = solver.run(problem, seed=np.random.default_rng(5), trials=2, accountants=())
    assert all(isinstance(s, np.random.SeedSequence) for s in batched.seeds)
    replay = solver.run(problem, seed=batched.seeds[1], accountants=())
    np.testing.assert_allclose(replay.model, batched.model[1], rtol=1e-12, atol=1e-14)
