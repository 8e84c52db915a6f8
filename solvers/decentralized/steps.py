"""The steps of decentralized ADMM shared by the vectorised iterations, the nodes' agent programs
and the attacks that replay them (Zhang & Zhu 2017, eqs. (18)–(19); Zhang, Khalili & Liu 2020).

Every function works on arrays of n nodes at once, (R, n, d) over R trials: all N nodes in the
vectorised run, one node (n = 1) in its agent program.
"""

from __future__ import annotations

import numpy as np

from solvers.decentralized.problem import DecentralizedProblem
from solvers.inner import damped_newton

__all__ = ["even_step", "even_step_from_transcript", "exact_step", "neighbour_sum"]


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


def even_step_from_transcript(
    f: np.ndarray, adjacency: np.ndarray, eta_odd: np.ndarray, gamma: float, theta: np.ndarray | None = None
) -> np.ndarray:
    """Recompute every even iterate of (M)R-ADMM from the broadcasts alone.

    The closed form is derived here: substitute the KKT condition (47) of the odd step and the dual step (15)
    into the even step (19) of Zhang, Khalili & Liu 2020; that the result is data-independent is their Lemma V.1.

    Args:
      f: the transcript channel ``f``, (T+1, ..., N, d) with f[0] = f(0).
      adjacency: (N, N) A of the graph.
      eta_odd: (K, N) penalties η_i(2k−1).
      gamma: γ.
      theta: None for the paper's dual step (θ = η_i(2k−1)); else the common dual step (K, N)
        (the same substitution with a common dual step: f_i(2k) = f_i(2k−1) − [Σ_j η_i(f_i(2k−2) +
        f_j(2k−2)) + (θ − η_i) f_i(2k−1) − (θ + η_i) f_j(2k−1)]/(2η_iV_i + γ)).

    Returns:
      (K, ..., N, d): the recomputed f(2k), k = 1..K.
    """
    A = np.asarray(adjacency, dtype=np.float64)
    V = A.sum(axis=1)
    K = eta_odd.shape[0]
    out = []
    for k in range(1, K + 1):
        before, odd = f[2 * k - 2], f[2 * k - 1]
        e = eta_odd[k - 1][:, None]
        th = e if theta is None else theta[k - 1][:, None]
        Ab = np.einsum("ij,...jd->...id", A, before)
        Ao = np.einsum("ij,...jd->...id", A, odd)
        bracket = e * (V[:, None] * before + Ab) + (th - e) * V[:, None] * odd - (th + e) * Ao
        out.append(odd - bracket / (2.0 * e * V[:, None] + gamma))
    return np.stack(out)
