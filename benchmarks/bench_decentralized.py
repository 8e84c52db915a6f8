"""Decentralized R-ADMM (Zhang, Khalili & Liu 2020) timed against a straightforward per-trial, per-node loop.

``radmm_loop`` is the naive reference: one Python loop over trials, iterations and nodes, each odd
step a per-node Newton solve on the node's unpadded records, each even step (19) with the KKT form
(47). It draws each trial's randomness exactly as the solver does, so the tests compare the two.

    python benchmarks/bench_decentralized.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from benchmarks.timing import best_of, row
from solvers.datasets import partition_horizontal
from solvers.decentralized import RADMM, DecentralizedProblem
from solvers.engine.streams import AgentStreams, agent_seeds
from solvers.graph import GraphTopology


def radmm_loop(problem: DecentralizedProblem, solver: RADMM, seed) -> np.ndarray:
    """Private/non-private R-ADMM, MATLAB style; returns f (T+1, N, d)."""
    plan = solver.plan(problem)
    draws = plan.mechanism.sample(AgentStreams(agent_seeds(seed, problem.n_agents)), plan.noise_shape)
    T, N, d = solver.n_iterations, problem.n_agents, problem.n_features
    C, rho, eta, gamma = problem.C, problem.rho, float(solver.eta), float(solver.gamma)
    nbrs = [problem.graph.neighbours(i) for i in range(N)]
    data = [problem.partition.agent_data(i) for i in range(N)]
    f = np.empty((T + 1, N, d))
    f[0] = draws[0]
    lam = np.zeros((N, d))
    for k in range(1, T // 2 + 1):
        prev = f[2 * k - 2]
        eps = draws[k] if solver.alpha is not None else np.zeros((N, d))
        for i in range(N):
            X, y = data[i]
            V = len(nbrs[i])
            centre = 0.5 * (V * prev[i] + prev[list(nbrs[i])].sum(axis=0))
            v = prev[i].copy()
            for _ in range(100):
                z = y * (X @ v)
                s = 1 / (1 + np.exp(z))
                grad = -(C / len(y)) * X.T @ (y * s) + (rho / N) * v + 2 * lam[i] + eps[i] + 2 * eta * (V * v - centre)
                if np.linalg.norm(grad) <= solver.tol * C:
                    break
                H = (C / len(y)) * (X.T * (s * (1 - s))) @ X + (rho / N + 2 * eta * V) * np.eye(d)
                v = v - np.linalg.solve(H, grad)
            f[2 * k - 1, i] = v
        odd = f[2 * k - 1]
        lam_before = lam.copy()
        for i in range(N):
            lam[i] = lam[i] + 0.5 * eta * sum(odd[i] - odd[j] for j in nbrs[i])
        for i in range(N):
            V = len(nbrs[i])
            g = -2 * lam_before[i] - eta * sum(2 * odd[i] - prev[i] - prev[j] for j in nbrs[i])
            step = g + 2 * lam[i] + eta * sum(odd[i] - odd[j] for j in nbrs[i])
            f[2 * k, i] = odd[i] - step / (2 * eta * V + gamma)
    return f


def synthetic_problem(N: int = 5, m: int = 400, d: int = 20, seed: int = 0) -> DecentralizedProblem:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N * m, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=N * m) > 0, 1.0, -1.0)
    graph = GraphTopology.random(N, 0.5, seed=seed, min_degree=2)
    return DecentralizedProblem.create(partition_horizontal(X, y, N, seed=seed), graph, C=float(m), rho=0.22)


def run(quick: bool = False) -> list[dict]:
    R, T = (4, 6) if quick else (32, 20)
    problem = synthetic_problem(m=200 if quick else 1000, d=10 if quick else 50)
    solver = RADMM(eta=1.0, gamma=0.5, alpha=2.0, n_iterations=T)
    ours, result = best_of(lambda: solver.run(problem, seed=0, trials=R, accountants=(), record_history=False), 2)
    seeds = result.seeds
    peer, _ = best_of(lambda: [radmm_loop(problem, solver, s) for s in seeds], 1)
    return [
        row(
            f"R-ADMM, {R} trials, N=5, T={T}, d={problem.n_features}",
            ours,
            "per-trial per-node loop (numpy Newton)",
            peer,
            "same draws; transcripts agree (tested)",
        )
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    for r in run(parser.parse_args().quick):
        print(r)
