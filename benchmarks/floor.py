"""The plain-numpy floor of DP-ADMM trials: the least arithmetic any batched run must do.

DP-ADMM (Huang et al. 2020, Algorithm 3): the linearised local step (3a) on the problem's loss
(Huber hinge or logistic), the Gaussian noise (3b), the average (3c) and the dual step (3d), for
many trials at once, written as plain vectorised numpy in one process with one BLAS thread: no accounting, no checks, no
transcript, no per-agent streams (one generator for all noise). The benchmarks hold the toolkit's
runs against it, measured in the same run.
"""

from __future__ import annotations

import time

import numpy as np
from scipy.special import expit

from solvers import DPADMM, HorizontalProblem
from solvers.engine.blas import blas_threads
from solvers.losses import HuberHingeLoss, LogisticLoss

#: Trials per block: the floor's fastest block size on the 2-core machine (as the engine's).
BLOCK = 64


def dpadmm_floor_seconds(solver: DPADMM, problem: HorizontalProblem, trials: int, seed: int = 0) -> float:
    """Seconds for ``trials`` trials of ``solver`` on ``problem`` at the floor (module docstring)."""
    plan = solver.plan(problem).details
    rho, T, loss = solver.rho, solver.n_iterations, problem.loss
    if isinstance(loss, HuberHingeLoss):
        h = loss.h

        def slope_of(margins: np.ndarray) -> np.ndarray:  # −φ'(z)
            return np.clip((1.0 + h - margins) / (2.0 * h), 0.0, 1.0)

    elif isinstance(loss, LogisticLoss):

        def slope_of(margins: np.ndarray) -> np.ndarray:
            return expit(-margins)

    else:
        raise TypeError(f"the floor knows the Huber-hinge and logistic losses, got {type(loss).__name__}")
    X, y, weights = problem.partition.X, problem.partition.y, problem.partition.mask / problem.sizes[:, None]
    Xy = X * y[..., None]  # (N, m, d)
    XwT = (Xy * weights[..., None]).transpose(0, 2, 1)  # (N, d, m)
    lam_n = problem.lam / problem.n_agents
    N, _, d = X.shape
    eta, sigma = np.broadcast_to(plan.eta, (T, N)), np.broadcast_to(plan.sigma, (T, N))
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    with blas_threads(1):  # one thread: the fastest for these small products (solvers.engine.blas)
        for lo in range(0, trials, BLOCK):
            R = min(BLOCK, trials - lo)
            w, w_tilde, gamma = np.zeros((R, d)), np.zeros((R, N, d)), np.zeros((R, N, d))
            for k in range(T):
                margins = np.matmul(Xy, w_tilde.transpose(1, 2, 0))  # (N, m, R)
                slope = slope_of(margins)
                gradient = -np.matmul(XwT, slope).transpose(2, 0, 1) + lam_n * w_tilde  # (R, N, d)
                inverse_eta = 1.0 / eta[k][:, None]
                w_local = (rho * w[:, None] + gamma + w_tilde * inverse_eta - gradient) / (rho + inverse_eta)
                w_tilde = w_local + rng.standard_normal((R, N, d)) * sigma[k][:, None]
                w = w_tilde.mean(axis=1)
                gamma = gamma - rho * (w_tilde - w[:, None])
    return time.perf_counter() - start


def dpadmm_unavoidable_seconds(solver: DPADMM, problem: HorizontalProblem, trials: int, seed: int = 0) -> float:
    """Seconds for only what every iteration of ``trials`` trials cannot avoid: the two matrix
    products of step (3a) per agent (the margins X_i w̃_i and the gradient X_iᵀ s_i, on random
    operands of the problem's shapes, ``BLOCK`` trials at a time) and the Gaussian draws of (3b),
    with one BLAS thread. Separate runs' time over it bounds what batching can gain."""
    N, m, d = problem.partition.X.shape
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, m, d))
    XT = np.ascontiguousarray(X.transpose(0, 2, 1))
    start = time.perf_counter()
    with blas_threads(1):
        for lo in range(0, trials, BLOCK):
            R = min(BLOCK, trials - lo)
            W, S = rng.standard_normal((N, d, R)), rng.standard_normal((N, m, R))
            for _ in range(solver.n_iterations):
                np.matmul(X, W)
                np.matmul(XT, S)
                rng.standard_normal((R, N, d))
    return time.perf_counter() - start
