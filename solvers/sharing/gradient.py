"""Noisy full-batch gradient descent over vertically partitioned features: the private protocol of
``VerticalLogisticRegression`` (``protocol="gradient"``, its default).

It is the differentially private variant of the gradient-based baseline that Hu, Liu, Kong & Niu 2019
(Sec. 5) compare ADMM sharing with (``solvers.sharing.sgd``, the FDML of Hu, Niu, Yang & Zhou 2019), on the
full batch. M parties hold column blocks D_m of the same N rows (mapped into the unit ball, ``UnitBallRecords``),
the server holds the labels Y_i = ±1, and each party its block x_m of the model. Iteration t, at the query
point v (the model, or Nesterov's extrapolation of it):

    party m:   u_m = D_m v_m                                   (N numbers, per-sample products)
    server:    g_i = Y_i φ'(Y_i Σ_m u_{m,i}) / N               (N numbers, per-sample derivatives)
    released:  G = Σ_i x_i g_i + N(0, σ² I_d)                  (the joint gradient of the mean loss, all blocks)
    party m:   x_m ← v_m − η (G_m + λ v_m),  v_m ← x_m + β (x_m − x_m⁻)   (its own block, post-processing)

with β = 0 for the next step whenever the step went uphill, ⟨G + λv, x − x⁻⟩ > 0 (the gradient restart of
O'Donoghue & Candès 2015, which keeps Nesterov's rate without knowing the local curvature; the parties decide
it together from released values: each adds its block's inner product).

**Trust model.** The per-sample messages u_m and g are assumed exchanged under secure computation
(additively homomorphic encryption or secret sharing, as in the vertical federated logistic regression of
Hardy et al. 2017), and the noise is drawn inside it (no party knows it: distributed noise generation, Dwork,
Kenthapadi, McSherry, Mironov & Naor 2006), so the only values any party or the public sees are the noisy
gradients G and what follows from them. This module simulates that computation in the clear, in one process.
Not covered: the security of the secure computation itself (its semi-honest, non-colluding assumptions,
timing and side channels), and a party's own block of the data (which it holds anyway).

**Privacy.** Neighbouring data sets differ in one training example: a whole row across the parties and its
label, replaced by any other (``row_budget.ROW_ADJACENCY``, the relation of the estimator's ADMM protocol;
the horizontal estimators' sensitivities are replace-one too). With ‖x_i‖ ≤ 1 and |φ'| ≤ S_1 (S_1 = 1 for the
logistic loss, ``LogisticLoss.gradient_bound``), x_i g_i has norm ≤ S_1/N and replacing it moves G by at most
``gradient_sensitivity`` Δ = 2 S_1/N; every other term of G is unchanged (g_j depends on row j and the
released past only). So each release is a Gaussian mechanism of multiplier z = σ/Δ given the past releases,
the model is a post-processing of them (x⁰ = 0 is public), and T releases compose to μ-GDP with μ = sqrt(T)/z
(Dong, Roth & Su 2022, Cor. 3.3). The ledger registers T events of multiplier z under one participant, the row.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from dp_accounting import dp_event
from sklearn.exceptions import ConvergenceWarning

from accountants import Ledger, LedgerEntry
from solvers.losses import MarginLoss
from solvers.sharing.partition import VerticalPartition
from solvers.sharing.row_budget import account_row
from solvers.sharing.steps import loss_derivatives

__all__ = [
    "GradientRun",
    "NoisyGradientDescent",
    "gradient_ledger",
    "gradient_sensitivity",
    "nesterov_momentum",
    "warn_if_gradient_not_small",
]


def gradient_sensitivity(n_samples: int, gradient_bound: float) -> float:
    """Δ = 2 S_1/N: the L2 change of the joint gradient (1/N) Σ_i φ'(·) Y_i x_i when one row (‖x_i‖ ≤ 1) and
    its label are replaced (module docstring)."""
    return 2.0 * gradient_bound / n_samples


def nesterov_momentum(smoothness: float, strong_convexity: float) -> float:
    """β = (sqrt(κ) − 1)/(sqrt(κ) + 1), κ = L/λ: Nesterov's constant-step scheme for a λ-strongly convex
    objective with an L-Lipschitz gradient (Nesterov 2004, Introductory Lectures on Convex Optimization, Sec. 2.2.1,
    constant step scheme III), whose error
    contracts by 1 − 1/sqrt(κ) per step."""
    root = math.sqrt(smoothness / strong_convexity)
    return (root - 1.0) / (root + 1.0)


def gradient_ledger(
    noise_multiplier: float, n_iterations: int, accountants: Sequence[str], delta: float
) -> tuple[Ledger, dict[str, float]]:
    """T releases of multiplier z under participant 0, the row (``NonPrivateDpEvent`` when z = 0), and each
    accountant's ε at ``delta``."""
    event = dp_event.GaussianDpEvent(noise_multiplier) if noise_multiplier > 0 else dp_event.NonPrivateDpEvent()
    return account_row([LedgerEntry(0, event, iteration=t + 1) for t in range(n_iterations)], accountants, delta)


@dataclass(frozen=True)
class GradientRun:
    """What a run computed (secret: it reads the noise-free data through the gradients).

    Attributes:
      model: the joined final model x^T (d,).
      gradient_norms: ‖G_t + λ v_t‖ of each iteration's released gradient of the objective (T,).
    """

    model: np.ndarray
    gradient_norms: np.ndarray


@dataclass(frozen=True)
class NoisyGradientDescent:
    """Full-batch (accelerated) gradient descent on F(x) = (1/N) Σ_i φ(Y_i xᵀx_i) + (λ/2)‖x‖² with Gaussian
    noise on every released joint gradient (module docstring).

    Attributes:
      n_iterations: T, the number of released gradients.
      step_size: η (1/L for L ≥ the Lipschitz constant of ∇F).
      momentum: β of Nesterov's extrapolation, dropped for a step after an uphill one (0: plain gradient
        descent).
      sigma: σ, the noise's standard deviation per coordinate of G (0: none).
    """

    n_iterations: int
    step_size: float
    momentum: float
    sigma: float

    def run(self, partition: VerticalPartition, lam: float, loss: MarginLoss, rng: np.random.Generator) -> GradientRun:
        """T iterations from x⁰ = 0 on the parties' blocks (``partition``, labels ±1); the noise from ``rng``."""
        D, labels, mask = partition.D, partition.y, partition.mask  # (M, N, w), (N,), (M, w)
        n = labels.shape[0]
        model = np.zeros(mask.shape)
        query = model
        norms = np.empty(self.n_iterations)
        for t in range(self.n_iterations):
            shares = (D @ query[..., None])[..., 0]  # u_m = D_m v_m, (M, N)
            first, _ = loss_derivatives(loss, labels * shares.sum(axis=0))
            derivatives = labels * first / n  # g_i, the server's
            released = derivatives @ D + rng.standard_normal(mask.shape) * (self.sigma * mask)  # G, (M, w)
            gradient = released + lam * query
            norms[t] = float(np.linalg.norm(gradient))
            previous, model = model, query - self.step_size * gradient
            step = model - previous
            restart = float(np.vdot(gradient, step)) > 0.0  # the step goes uphill: drop the momentum
            query = model if restart else model + self.momentum * step
        return GradientRun(partition.join_model(model), norms)


def warn_if_gradient_not_small(run: GradientRun, tol: float, sigma: float, n_columns: int, estimator: str) -> bool:
    """Warn (scikit-learn's ``ConvergenceWarning``) when the last released gradient of the objective is still
    large: ‖∇F_T‖ > ``tol``·‖∇F_1‖ + 3σ sqrt(d), the first at x = 0 (both released values, so the check is
    post-processing and costs no privacy; 3σ sqrt(d) is three times the noise's expected norm, so a fit
    limited by its noise does not warn). True if it warned."""
    first, last = float(run.gradient_norms[0]), float(run.gradient_norms[-1])
    allowance = tol * first + 3.0 * sigma * math.sqrt(n_columns)
    if last <= allowance:
        return False
    warnings.warn(
        f"{estimator} did not converge: the gradient of its objective at the last iteration has norm {last:.3g}, "
        f"more than tol={tol:g} times the first one's ({first:.3g}) plus what its privacy noise explains: "
        "increase n_iterations",
        ConvergenceWarning,
        stacklevel=4,  # the estimator's caller (this is called by a helper of its fit)
    )
    return True
