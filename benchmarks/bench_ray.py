"""Per-iteration cost of the Ray backend against the in-process backend (same solver, same seed).

For each solver the run is timed at two lengths T1 < T2 on each backend; the per-iteration cost is
(t(T2) − t(T1)) / (T2 − T1), so fixed costs (planning, accounting, loading the actors) cancel. The
ratio column is Ray / in process: the overhead factor of sending every round's messages through
Ray actors (one per agent) instead of one vectorised numpy step. A local Ray with 2 CPUs on
loopback is started if none is running; the first Ray run (actor start-up) is reported apart.

    python benchmarks/bench_ray.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from benchmarks.timing import best_of
from solvers import DPADMM, HorizontalProblem
from solvers.datasets import partition_horizontal
from solvers.decentralized import RADMM, DecentralizedProblem
from solvers.engine.backends import RayBackend
from solvers.graph import GraphTopology


def _data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1).max()
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)


def _per_iteration(make_solver, problem, backend, lengths: tuple[int, int], repeats: int) -> float:
    times = []
    for T in lengths:
        solver = make_solver(T)
        seconds, _ = best_of(
            lambda solver=solver: solver.run(problem, seed=0, accountants=(), record_history=False, backend=backend),
            repeats,
        )
        times.append(seconds)
    per_iteration = (times[1] - times[0]) / (lengths[1] - lengths[0])
    return per_iteration if per_iteration > 0 else float("nan")  # lost in timing noise


def run(quick: bool = False) -> list[dict]:
    try:
        import ray
    except ImportError:
        print('bench_ray: skipped, Ray is not installed (pip install ".[ray]")', file=sys.stderr)
        return []
    started = not ray.is_initialized()
    if started:
        ray.init(
            address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1"
        )
    N, m, d = (4, 50, 5) if quick else (8, 500, 14)
    lengths, repeats = ((4, 24), 2) if quick else ((10, 50), 3)
    X, y = _data(N * m, d)
    star = HorizontalProblem(partition_horizontal(X, y, N, seed=0), lam=0.5)
    graph = DecentralizedProblem.create(partition_horizontal(X, y, N, seed=0), GraphTopology.ring(N), C=20.0, rho=1.0)
    backend = RayBackend()
    cases = [
        (f"DP-ADMM, N={N}, m={m}, d={d}", lambda T: DPADMM(epsilon=0.5, n_iterations=T, dw=1.0), star),
        (f"R-ADMM (private), ring N={N}, m={m}, d={d}", lambda T: RADMM(eta=1.0, alpha=5.0, n_iterations=T), graph),
    ]
    rows = []
    try:
        start = time.perf_counter()
        DPADMM(epsilon=0.5, n_iterations=2, dw=1.0).run(star, seed=0, accountants=(), backend=backend)
        startup = time.perf_counter() - start
        for name, make_solver, problem in cases:
            local = _per_iteration(make_solver, problem, "inprocess", lengths, repeats)
            remote = _per_iteration(make_solver, problem, backend, lengths, repeats)
            rows.append(
                {
                    "benchmark": f"{name}: one iteration",
                    "ours_s": local,
                    "peer": "Ray backend (N actors)",
                    "peer_s": remote,
                    "ratio": remote / local,
                    "note": f"ratio = Ray / in process (overhead factor); first Ray run {startup:.1f} s "
                    "(actor start-up)",
                }
            )
    finally:
        if started:
            ray.shutdown()
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    for r in run(parser.parse_args().quick):
        print(r)
