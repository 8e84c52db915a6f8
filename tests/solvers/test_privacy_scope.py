"""What a run's ledger and ε cover, and plain seeds in batched runs.

A batched run returns R noisy transcripts of the same data while its ledger and ``privacy`` are
those of one trial: the trials are independent simulations (for audits), not releases of one
deployment. ``Result`` says so (``privacy_scope``, ``n_trials``, its repr) and so does the run record
next to the ledger file, so nobody reading either undercounts by R×. (That every registered solver
says so, and honours a ``SecureReseedingGenerator`` seed, keeping nothing that could replay it, is
``solvers.testing.check_privacy_scope`` and ``check_secure_generator``, run on each by
``test_conformance``.)
"""

from __future__ import annotations

import json

import numpy as np

from accountants import Ledger
from solvers import DPADMM
from solvers.engine.ledger_runs import RUN_RECORD_SCHEMA, read_run_records, run_record_path
from solvers.engine.result import ONE_DEPLOYMENT


def test_a_batched_run_says_its_ledger_and_epsilon_are_per_simulated_trial(star_problem, tmp_path):
    solver, problem = DPADMM(epsilon=0.5, n_iterations=4, dw=1.0), star_problem
    accountants = ("exact_gaussian",)
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


def test_plain_generators_and_seeds_are_unchanged(star_problem):
    solver, problem = DPADMM(epsilon=0.5, n_iterations=4, dw=1.0), star_problem
    batched = solver.run(problem, seed=np.random.default_rng(5), trials=2, accountants=())
    assert all(isinstance(s, np.random.SeedSequence) for s in batched.seeds)
    replay = solver.run(problem, seed=batched.seeds[1], accountants=())
    np.testing.assert_allclose(replay.model, batched.model[1], rtol=1e-12, atol=1e-14)
