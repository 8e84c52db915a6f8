"""Batched solvers for the exact local updates and the centralized reference.

Algorithms 1 and 2 of Huang et al. 2020 need an exact local argmin and the paper names no solver, so the
two below are this toolkit's choice.

Both minimise many independent problems at once: x has shape (..., d) and every leading index is
its own problem (trials × agents). Each problem stops on its own residual and is frozen once
converged, so a problem's iterates never depend on the other problems in the batch (trial r of a
batched run equals the single run).

  - :func:`damped_newton` for smooth, strongly convex problems (l2): Newton steps with Armijo
    backtracking, to ‖∇‖ ≤ tol.
  - :func:`accelerated_proximal_gradient` for smooth + prox-friendly problems (l1): FISTA, with the
    constant momentum of the strongly convex case when a modulus μ > 0 is known, else with
    adaptive (gradient) restarts; stops when the prox-gradient mapping has norm ≤ tol.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["InnerSolution", "accelerated_proximal_gradient", "damped_newton"]

_ARMIJO = 1e-4
_MAX_HALVINGS = 40
_ROUNDING = 1e-12


@dataclass(frozen=True)
class InnerSolution:
    """Minimisers ``x`` (..., d), their residuals (...) and the iterations of the slowest problem."""

    x: np.ndarray
    residual: np.ndarray
    iterations: int


def damped_newton(
    value: Callable[[np.ndarray], np.ndarray],
    derivatives: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    x0: np.ndarray,
    *,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> InnerSolution:
    """Minimise smooth strongly convex functions by Newton's method with backtracking.

    Args:
      value: x (..., d) → objective values (...).
      derivatives: x (..., d) → (gradient (..., d), Hessian (..., d, d)); Hessians positive definite.
      x0: starting points (..., d) (callers pass public values only: an inexact solve
        warm-started from a private iterate would leak it).
      tol: stop a problem once ‖∇‖₂ ≤ tol.
      max_iter: Newton steps at most.

    Returns:
      An ``InnerSolution``; ``residual`` is the final gradient norm of each problem.

    Raises:
      RuntimeError: some problem did not reach ``tol`` within ``max_iter`` steps.
    """
    x = np.array(x0, dtype=np.float64)
    gradient, hessian = derivatives(x)
    residual = np.linalg.norm(gradient, axis=-1)
    iterations = 0
    while np.any(active := residual > tol):
        if iterations == max_iter:
            raise RuntimeError(
                f"damped_newton: {int(active.sum())} problem(s) not converged after {max_iter} steps "
                f"(largest gradient norm {residual.max():.3e} > tol={tol:g})"
            )
        iterations += 1
        step = -np.linalg.solve(hessian, gradient[..., None])[..., 0]
        step[~active] = 0.0
        slope = np.einsum("...i,...i->...", gradient, step)
        current = value(x)
        t = np.ones(residual.shape)
        # Once the predicted decrease is below the rounding of the value, Armijo cannot see it;
        # the full Newton step is then inside the region of quadratic convergence: take it.
        pending = active & (-slope > _ROUNDING * (1.0 + np.abs(current)))
        for _ in range(_MAX_HALVINGS):
            if not pending.any():
                break
            trial = value(x + t[..., None] * step)
            pending &= ~(trial <= current + _ARMIJO * t * slope)
            t = np.where(pending, 0.5 * t, t)
        # A step that still fails Armijo after all halvings is at the rounding floor: take it.
        x = x + t[..., None] * step
        gradient, hessian = derivatives(x)
        residual = np.where(active, np.linalg.norm(gradient, axis=-1), residual)
    return InnerSolution(x, residual, iterations)


def accelerated_proximal_gradient(
    gradient: Callable[[np.ndarray], np.ndarray],
    prox: Callable[[np.ndarray, np.ndarray], np.ndarray],
    x0: np.ndarray,
    *,
    lipschitz: np.ndarray | float,
    strong_convexity: np.ndarray | float = 0.0,
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> InnerSolution:
    """Minimise s(x) + r(x), s L-smooth (μ-strongly convex if μ > 0), r with a cheap prox (FISTA).

    Args:
      gradient: x (..., d) → ∇s(x) (..., d).
      prox: (v (..., d), step (..., 1)) → prox_{step·r}(v).
      x0: starting points (..., d).
      lipschitz: L ≥ smoothness of s, a scalar or one per problem (...).
      strong_convexity: μ ≥ 0 of s (scalar or per problem); μ > 0 uses momentum
        (√L − √μ)/(√L + √μ) (Nesterov 2004, (2.2.19)), μ = 0 the FISTA sequence with gradient
        restarts (O'Donoghue & Candès 2015).
      tol: stop a problem once the prox-gradient mapping at the extrapolated point y,
        L·‖y − prox(y − ∇s(y)/L)‖, is ≤ tol; its solution is that prox-gradient step.
      max_iter: iterations at most.

    Raises:
      RuntimeError: some problem did not reach ``tol`` within ``max_iter`` iterations.
    """
    x = np.array(x0, dtype=np.float64)
    batch = x.shape[:-1]
    L = np.broadcast_to(np.asarray(lipschitz, dtype=np.float64), batch)[..., None]
    mu = np.broadcast_to(np.asarray(strong_convexity, dtype=np.float64), batch)[..., None]
    step = 1.0 / L
    strongly_convex = mu > 0
    constant_momentum = (np.sqrt(L) - np.sqrt(mu)) / (np.sqrt(L) + np.sqrt(mu))
    y, t = x.copy(), np.ones(batch + (1,))
    residual = np.full(batch, np.inf)
    active = np.ones(batch, dtype=bool)
    for iteration in range(1, max_iter + 1):
        x_new = prox(y - step * gradient(y), step)
        residual = np.where(active, np.linalg.norm(x_new - y, axis=-1) * L[..., 0], residual)
        moving = active[..., None]
        x_old, x = x, np.where(moving, x_new, x)
        active &= residual > tol
        if not active.any():
            return InnerSolution(x, residual, iteration)
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        momentum = np.where(strongly_convex, constant_momentum, (t - 1.0) / t_next)
        restart = ~strongly_convex & (np.einsum("...i,...i->...", y - x, x - x_old)[..., None] > 0)
        momentum = np.where(restart, 0.0, momentum)
        t = np.where(restart, 1.0, t_next)
        y = np.where(active[..., None], x + momentum * (x - x_old), x)
    raise RuntimeError(
        f"accelerated_proximal_gradient: {int(active.sum())} problem(s) not converged after "
        f"{max_iter} iterations (largest mapping norm {residual[active].max():.3e} > tol={tol:g})"
    )
