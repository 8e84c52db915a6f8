"""The local step of PDML shared by the vectorised iterations and the servers' agent programs
(Wang et al. 2020, eq. (15))."""

from __future__ import annotations

import numpy as np

from solvers.inner import InnerSolution, damped_newton
from solvers.losses import MarginLoss

__all__ = ["solve_local"]


def solve_local(
    loss: MarginLoss,
    X: np.ndarray,
    weights: np.ndarray,
    y_noisy: np.ndarray,
    linear: np.ndarray,
    quad: np.ndarray,
    start: np.ndarray,
    *,
    tol: float,
) -> InnerSolution:
    """Server i's subproblem (15) for every trial r and server i, by batched damped Newton:
    argmin_v Σ_j a_ij φ(y'_rij vᵀx_ij) + linear_riᵀv + ½ quad_i ‖v‖², warm-started at ``start``.

    With linear = −b_i + η_i/n + γ_i(t) − β(N_i w̃_i(t) + Σ_{l∈𝒩_i} w̃_l(t)) and quad_i = a/n + 2βN_i
    this is (15) up to a constant (the debiased loss (19)–(22) is φ(y'z) − bᵀw).

    Args:
      X: (N', m, d) features; weights: (N', m) a_ij (1/m_i, 0 on padding); y_noisy: (R, N', m);
      linear: (R, N', d); quad: (N', 1); start: (R, N', d); tol: ‖∇‖ tolerance τ.
    """
    XT = np.ascontiguousarray(X.transpose(0, 2, 1))  # (N', d, m)
    identity = np.eye(X.shape[-1])

    def margins(v):
        return y_noisy * np.einsum("nmd,rnd->rnm", X, v)

    def value(v):
        return (
            np.einsum("nm,rnm->rn", weights, loss.phi(margins(v)))
            + np.einsum("rnd,rnd->rn", linear, v)
            + 0.5 * quad[:, 0] * np.einsum("rnd,rnd->rn", v, v)
        )

    def derivatives(v):
        u = margins(v)
        slope = weights * loss.dphi(u) * y_noisy
        gradient = np.einsum("rnm,nmd->rnd", slope, X) + linear + quad * v
        curvature = weights * loss.d2phi(u)
        hessian = np.matmul(XT[None] * curvature[:, :, None, :], X[None]) + quad[..., None] * identity
        return gradient, hessian

    return damped_newton(value, derivatives, start, tol=tol)
