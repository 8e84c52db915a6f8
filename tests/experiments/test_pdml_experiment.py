"""The PDML Table-I experiment (experiments.pdml_twonorm) on a tiny setting."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments import pdml_twonorm as experiment
from solvers.builders import random_graph


def test_random_graph_has_the_paper_shape():
    for seed in range(5):
        graph = random_graph(10, 13, seed)
        assert len(graph.edges) == 13 and graph.n_agents == 10  # from_edges refuses disconnected graphs
    assert random_graph(10, 13, 1) == random_graph(10, 13, 1)


def test_split_and_table_settings():
    problem = experiment.build_problem("twonorm", 0)
    assert problem.sizes.tolist() == [350] * 10 and problem.y_test.shape == (3900,)
    assert problem.n_features == 20 and len(problem.topology.edges) == 13
    phase1 = experiment.solver_for(0.4, 0, 10)
    assert (phase1.V, phase1.eta_bound) == (0.0, 0.0)
    full = experiment.solver_for(1.0, 9, 10)
    assert (full.V, full.eta_bound, full.rho_decay, full.beta) == (0.1, 9.0, 0.8, 1.0)


def test_run_report_and_orderings(tmp_path):
    out = experiment.run("twonorm", [0], 2, (0.4, 1.0), exact_iterations=3)
    assert set(out["accuracy"]) == {(math.inf, 0)} | {(e, r) for e in (0.4, 1.0) for r in (0, 1, 9)}
    assert all(50 < v[0] <= 100 for v in out["accuracy"].values())
    growth = list(out["phase2_epsilon_vs_T"].values())
    assert growth == sorted(growth) and growth[-1] > 1e6  # unbounded in T for ρ < 1
    report = experiment.markdown(out)
    assert "| ε=0.4, R=9 |" in report and "92.28" in report and "paper gives no number" in report
    checks = experiment.orderings(
        {"accuracy": {(0.4, 0): [90], (1.0, 0): [95], (0.4, 9): [80], (1.0, 9): [96], (0.4, 1): [89], (1.0, 1): [97]}}
    )
    assert checks["R=0: ε=0.4 < ε=1"] and checks["ε=1: R=1 > R=9"] and not checks["ε=1: R=0 > R=9"]
    experiment.figure(out, tmp_path / "figure.png")
    assert (tmp_path / "figure.png").stat().st_size > 1000
    assert np.isfinite(experiment.json_ready(out)["noise_off"][0]["objective_gap"])


def test_cli_rejects_bad_arguments():
    with pytest.raises(SystemExit):
        experiment.main(["--out", "/tmp/unused", "--seeds", "0"])


def test_ringnorm_delve_is_delves_definition_standardised():
    data = experiment.ringnorm_delve(20_000, seed=0)
    negative = data.X[data.y < 0]
    np.testing.assert_allclose(negative.mean(axis=0), 2 / np.sqrt(20), atol=0.04)  # DELVE: a = 2/sqrt(20)
    np.testing.assert_allclose(negative.std(axis=0), 1.0, atol=0.04)
    np.testing.assert_allclose(data.X[data.y > 0].std(axis=0), 2.0, atol=0.06)
    problem = experiment.build_problem("ringnorm-delve", 1)
    X = problem.partition.X.reshape(-1, 20)
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1.0, atol=1e-12)
