"""ADMM sharing (Hu et al. 2019) timed against a straightforward per-party loop, and batched trials.

  1. One run (Adult, 2 parties, T = 50) of the vectorised solver (cached SVD, parties and trials as
     array axes, vectorised per-sample Newton for z) against :func:`sharing_loop`, a direct
     transcription of Algorithm 1 with a Python loop over parties (a fresh linear solve per party
     and iteration) and scipy's scalar root finder per sample for z, as the paper's prototype works
     ("entry-wise optimization for z").
  2. R trials of noise="output" in one batched run against R separate runs.

``run(quick=True)`` uses small sizes. ``sharing_loop`` is also the naive reference that the tests
compare the vectorised solver with.

    python benchmarks/bench_sharing.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if not __package__:  # run as a file (python benchmarks/NAME.py): the benchmarks package is in the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from scipy import optimize

from benchmarks.timing import best_of, row
from mechanisms import make_rng
from solvers.sharing import ADMMSharing, VerticalProblem, adult_vertical


def sharing_loop(problem: VerticalProblem, solver: ADMMSharing, seed: int) -> dict[str, np.ndarray]:
    """Algorithm 1 (l2, no ball), optionally with output noise, one party and one sample at a time.

    Draws the output noise exactly as the solver does (party m: standard normals of shape (T, N)
    from its own stream, child m of the seed, times σ_m). Returns the released shares u (T, M, N), the
    duals y (T, N) and the final blocks x (M, d_m each, as a list).
    """
    if solver.b1 is not None and solver.noise is None:
        raise ValueError("sharing_loop implements the unconstrained update only")
    plan = solver.plan(problem)
    T, M, N = solver.n_iterations, problem.n_parties, problem.n_samples
    rho, lam = plan.details.rho, problem.lam
    noise = np.zeros((T, M, N))
    if plan.mechanism is not None:
        streams = [make_rng(child) for child in np.random.SeedSequence(seed).spawn(M)]
        noise = np.stack([rng.standard_normal((T, N)) for rng in streams], axis=1)
        noise *= np.asarray(plan.details.sigma)[None, :, None]
    blocks = [problem.partition.block(m) for m in range(M)]
    labels = problem.partition.y
    x = [np.zeros(D.shape[1]) for D in blocks]
    shared = np.zeros((M, N))
    r, y = np.zeros(N), np.zeros(N)
    out = {"u": np.empty((T, M, N)), "y": np.empty((T, N))}
    for t in range(T):
        for m, D in enumerate(blocks):  # (6), with b_m = r − ũ_m (line 4)
            b = r - shared[m]
            x[m] = -np.linalg.solve(lam * np.eye(D.shape[1]) + rho * D.T @ D, D.T @ (y + rho * b))
            if solver.b1 is not None and np.linalg.norm(x[m]) > solver.b1:
                raise ValueError("the ball constraint became active; sharing_loop does not implement it")
        shared = np.stack([D @ xm for D, xm in zip(blocks, x, strict=True)]) + noise[t]
        s = shared.sum(axis=0)
        z = np.empty(N)
        for i in range(N):  # (7), one scalar problem per sample

            def derivative(v, i=i, y=y, s=s):
                return -labels[i] / (N * (1 + np.exp(labels[i] * v))) - y[i] + rho * (v - s[i])

            width = 1.5 / (N * rho)  # the root lies within s + (y ± 1/N)/ρ; widened against rounding
            low, high = s[i] + y[i] / rho - width, s[i] + y[i] / rho + width
            z[i] = optimize.brentq(derivative, low, high, xtol=1e-14, rtol=4 * np.finfo(float).eps)
        y = y + rho * (s - z)
        r = s - z
        out["u"][t], out["y"][t] = shared, y
    out["x"] = x
    return out


def run(quick: bool = False) -> list[dict]:
    n_train, T, R = (2000, 10, 20) if quick else (30_162, 50, 100)
    data = adult_vertical(n_train=n_train, n_test=1000, seed=0)
    problem = data.problem()
    _ = problem.block_svd  # the factorisation is cached on the problem; both sides get it for free
    solver = ADMMSharing(n_iterations=T)
    ours, _ = best_of(
        lambda: solver.run(problem, seed=0, accountants=(), record_history=False, record_transcript=False), repeats=3
    )
    loop_T = max(2, T // 10)
    loop, _ = best_of(lambda: sharing_loop(problem, ADMMSharing(n_iterations=loop_T), 0), repeats=1)
    rows = [
        row(
            f"one run, Adult N = {n_train}, M = 2, T = {T}",
            ours,
            "per-party/per-sample loop",
            loop * T / loop_T,
            f"loop timed on T = {loop_T} and scaled",
        )
    ]
    private = ADMMSharing(n_iterations=T, noise="output", noise_multiplier=1.0, b1=25.0)
    batched, _ = best_of(
        lambda: private.run(problem, seed=0, trials=R, accountants=(), record_history=False, record_transcript=False),
        repeats=1,
    )
    sample = max(2, R // 10)
    separate, _ = best_of(
        lambda: [
            private.run(problem, seed=s, accountants=(), record_history=False, record_transcript=False)
            for s in range(sample)
        ],
        repeats=1,
    )
    rows.append(
        row(
            f"{R} trials noise='output'",
            batched,
            f"{R} separate runs",
            separate * R / sample,
            f"separate runs timed on {sample} and scaled",
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes")
    for result in run(parser.parse_args().quick):
        print(
            f"{result['benchmark']}: ours {result['ours_s']:.3f} s, {result['peer']} {result['peer_s']:.3f} s, "
            f"ratio {result['ratio']:.1f}x ({result['note']})"
        )


if __name__ == "__main__":
    main()
