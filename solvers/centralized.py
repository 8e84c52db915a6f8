"""Centralized reference solutions of the regularised ERM problems the distributed solvers target.

``centralized_optimum(problem)`` minimises F(w) = Σ_i (1/m_i) Σ_j ℓ_ij(w) + λR(w) on the pooled records
(each weighted 1/m_i), the optimum w* of problem (1a)–(1b) of Huang et al. 2020 that ADMM converges to.
With equal m_i = m this is scikit-learn's ``LogisticRegression(C=1/(m·λ), fit_intercept=False)`` for l2,
and ``l1_ratio=1`` (l1) with the same C; with unequal m_i pass ``sample_weight=1/m_i`` and C = 1/λ.

Smooth (l2) problems use damped Newton to ‖∇F‖ ≤ 1e-10; others (l1) FISTA with restarts to a
prox-gradient mapping ≤ 1e-10.
"""

from __future__ import annotations

import numpy as np

from solvers.datasets import check_dataset
from solvers.inner import accelerated_proximal_gradient, damped_newton
from solvers.losses import MarginLoss
from solvers.problem import HorizontalProblem, Optimum
from solvers.regularizers import L2Regularizer, Regularizer

__all__ = ["centralized_optimum", "regularized_erm"]


def centralized_optimum(problem: HorizontalProblem, *, tol: float = 1e-10) -> Optimum:
    """The minimiser of the problem's global objective F (paper's scale, sum over agents).

    Returns:
      ``Optimum(w, objective=F(w*), residual, iterations, method)``; attach it with
      ``problem.with_optimum(...)`` so that runs report the gap F(w^k) − F*.
    """
    mask = problem.partition.mask
    weights = (mask / problem.sizes[:, None])[mask]
    optimum = regularized_erm(
        problem.partition.X[mask],
        problem.partition.y[mask],
        loss=problem.loss,
        regularizer=problem.regularizer,
        reg=problem.lam,
        weights=weights,
        tol=tol,
    )
    objective = float(problem.objective(optimum.w))
    return Optimum(optimum.w, objective, optimum.residual, optimum.iterations, optimum.method)


def regularized_erm(
    X: np.ndarray,
    y: np.ndarray,
    *,
    loss: MarginLoss,
    regularizer: Regularizer,
    reg: float,
    weights: np.ndarray | None = None,
    tol: float = 1e-10,
) -> Optimum:
    """argmin_w Σ_j a_j ℓ(x_j, y_j, w) + reg·R(w), with a_j = ``weights`` (default 1/n).

    Also used for D_w on the public records: argmin (1/162) Σ ℓ + (λ/N) R (Huang et al. 2020, Sec. VI, estimate
    D_w on 162 public records without saying how; this is the toolkit's estimate).

    Raises:
      ValueError: bad data or weights. RuntimeError: the solver did not reach ``tol``.
    """
    features, labels, _ = check_dataset(X, y, max_norm=None)
    n = features.shape[0]
    a = np.full(n, 1.0 / n) if weights is None else np.asarray(weights, dtype=np.float64)
    if a.shape != (n,) or not np.all(np.isfinite(a) & (a >= 0)):
        raise ValueError(f"weights must be {n} finite non-negative numbers, got shape {a.shape}")
    if not (np.isfinite(reg) and reg > 0):
        raise ValueError(f"reg must be a positive finite number, got {reg!r}")
    Xy = features * labels[:, None]

    def loss_value(w: np.ndarray) -> np.ndarray:
        return a @ loss.phi(Xy @ w)

    def loss_gradient(w: np.ndarray) -> np.ndarray:
        return (loss.dphi(Xy @ w) * a) @ Xy

    w0 = np.zeros(features.shape[1])
    if isinstance(regularizer, L2Regularizer):

        def derivatives(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            curvature = loss.d2phi(Xy @ w) * a
            hessian = (Xy.T * curvature) @ Xy + reg * np.eye(w.shape[-1])
            return loss_gradient(w) + reg * w, hessian

        solution = damped_newton(lambda w: loss_value(w) + reg * regularizer.value(w), derivatives, w0, tol=tol)
        method = "newton"
    else:
        gram = (features.T * a) @ features
        lipschitz = loss.curvature_bound * float(np.linalg.eigvalsh(gram)[-1])
        solution = accelerated_proximal_gradient(
            loss_gradient,
            lambda v, step: regularizer.prox(v, step * reg),
            w0,
            lipschitz=max(lipschitz, np.finfo(float).tiny),
            tol=tol,
        )
        method = "fista"
    objective = float(loss_value(solution.x) + reg * regularizer.value(solution.x))
    return Optimum(solution.x, objective, float(solution.residual), solution.iterations, method)
