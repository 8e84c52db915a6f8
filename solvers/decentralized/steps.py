"""The steps of decentralized ADMM shared by the vectorised iterations, the nodes' agent programs
and the attacks that replay them (Zhang & Zhu 2017, eqs. (18)–(19); Zhang, Khalili & Liu 2020).

Every function works on arrays of n nodes at once, (R, n, d) over R trials: all N nodes in the
vectorised run, one node (n = 1) in its agent program.
"""

from __future__ import annotations

import numpy as np

from solvers.decentralized.problem import DecentralizedProblem
from solvers.inner import damped_newton

__all__ = ["even_step", "exact_step", "neighbour_sum"]


def neighbour_sum(matrix: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Σ_j M_ij f_j for (n, N) rows of A or the Laplacian and f (R, N, d); a node running alone
    passes its own rows and f with only its neighbours' (and its own) broadcasts, zeros elsewhere."""
    return np.einsum("ij,rjd->rid", matrix, f)


def exact_step(
    problem: DecentralizedProblem,
    f_prev: np.ndarray,
    Af_prev: np.ndarray,
    lam: np.ndarray,
    linear: np.ndarray,
    eta: np.ndarray,
    V: np.ndarray,
    tol: float,
):
    """argmin_f O(f, D_i) + (2λ_i + linear_i)ᵀ f + η_i Σ_j ‖½(f_i^prev + f_j^prev) − f‖², all (R, n)
    for the n nodes of ``problem``; ``Af_prev`` = Σ_j A_ij f_j^prev."""
    eV = (eta * V)[:, None]  # (n, 1)
    centre = 0.5 * (V[:, None] * f_prev + Af_prev)  # Σ_j m_ij
    b = 2.0 * lam + linear - 2.0 * eta[:, None] * centre
    identity = np.eye(problem.n_features)

    def value(v):
        return (
            problem.local_objective_seed(v)
            + np.einsum("...i,...i->...", b, v)
            + eV[:, 0] * np.einsum("...i,...i->...", v, v)
        )

    def derivatives(v):
        gradient = problem.local_gradient_seed(v) + b + 2.0 * eV * v
        hessian = problem.local_hessian_seed(v) + (2.0 * eV)[..., None] * identity
        return gradient, hessian

    solution = damped_newton(value, derivatives, f_prev, tol=tol * max(1.0, problem.C))
    return solution.x, float(solution.residual.max()), solution.iterations


def even_step(f_before, f_odd, lam_before, lam, eta, gamma, Af_before, Af_odd, V):
    """(19) with the KKT form (47) of the noisy gradient: released values only (A f as neighbour sums)."""
    e = eta[:, None]
    noisy_gradient = -2.0 * lam_before - e * (2.0 * V[:, None] * f_odd - V[:, None] * f_before - Af_before)
    step = noisy_gradient + 2.0 * lam + e * (V[:, None] * f_odd - Af_odd)
    return f_odd - step / (2.0 * e * V[:, None] + gamma)
