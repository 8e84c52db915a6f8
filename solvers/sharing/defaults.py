"""The defaults of ``VerticalLogisticRegression``, chosen from public quantities only.

The gradient protocol (``protocol="gradient"``, the default; ``solvers.sharing.gradient``) minimises
F(x) = (1/N) Σ φ(Y_i xᵀx_i) + (λ/2)‖x‖² on rows in the unit ball, whose gradient is L-Lipschitz with
L = S_2 + λ (S_2 ≥ φ'', 1/4 for the logistic loss) and which is λ-strongly convex, κ = L/λ = 1 + C·N·B²·s²/4
(``gradient_schedule``):

- the step η = 1/L;
- while the noise dominates (a total ε ≤ ``NOISE_DOMINATED_EPSILON`` = 10, or a noise multiplier given
  directly), T = 100 plain gradient steps (β = 0): at a fixed total μ each release's noise grows like sqrt(T)
  and the noise the iterate accumulates like T, as its signal does, so more steps only refine the direction
  while the gradient is large (on the benchmark's first split, 5 noise draws at ε = 1, mean accuracy over
  its 12 cells: 79.7 % at T = 100 against 77.7 % at 30, 78.1 % at 300 and 76.5 % at 1,000), and momentum
  would amplify each release's noise by up to 1/(1 − β);
- otherwise Nesterov's accelerated scheme (β = (sqrt(κ) − 1)/(sqrt(κ) + 1), error contraction 1 − 1/sqrt(κ) per
  step) for T = ⌈5 sqrt(κ)⌉ steps, at least 100 and at most 10,000 (``private_estimator.auto_iterations`` on
  the accelerated scheme's sqrt(κ)).

The ADMM sharing protocol (``protocol="admm_sharing"``) runs ADMM sharing (Hu et al. 2019, Algorithm 1) on
rows mapped into the unit ball, with the output noise calibrated to the per-row sensitivity
Δ_stab = 2 sqrt(b_1 (2 b_1 + β + η/ρ)) of ``solvers.sharing.privacy.stability_sensitivity``. Each default
depends on the shapes (N rows, d columns), the loss, λ and the per-release noise multiplier z (itself a
function of ε, δ and T), never on a row:

- ρ = r/N with r = 1.5·S_2 (S_2 ≥ φ'', ``MarginLoss.curvature_bound``): the mean loss l(z) has an
  L-Lipschitz gradient with L = S_2/N, and Assumption 1.2(c) of Hu et al. 2019 asks for ρ ≥ L and ρ·γ(ρ) > 2L²
  with γ(ρ) ≥ ρ the modulus of (7), i.e. ρ > sqrt(2)·L; 1.5 L meets both. Smaller ρ diverges (the Jacobi
  x-updates overshoot), larger ρ converges more slowly on ill-conditioned blocks.
- T: each iteration is one more release per party, so the noise multiplier of a total budget grows like
  sqrt(T), and each costs O(N·d); T = 100 while N·d ≤ 3·10^5, fewer beyond so that a default fit stays
  under a second (T = ⌊3·10^7/(N·d)⌋, at least 50). An ill-conditioned two-party split (normalised
  breast-cancer rows, whose columns are nearly collinear) needs about 300 iterations to reach the
  optimum's accuracy (an objective gap of 2·10^-3 costs 3 points at T = 100): pass ``n_iterations`` there,
  and at ε = 10^6 also ``b1`` near the optimum's norm, as no public bound is (else the noise costs 2.6 points).
- b_1, the radius of the model's ball (Assumption 2.1, enforced): the smaller of sqrt(2 ln 2/λ), which
  holds the l2 optimum (F(w*) ≤ F(0) = ln 2 gives (λ/2)‖w*‖² ≤ ln 2), and the radius at which the
  noise's effect on the margins stays below κ = 1/4. A share's noise σ = z Δ_stab ≈ 2 sqrt(3) z b_1 reaches
  the model through (6) as a least-squares fit of the noise on the block, which moves a margin by about
  σ sqrt(d/N); so b_1 ≤ κ sqrt(N/d)/(2 sqrt(3) z). A smaller ball biases the model (it solves the
  constrained problem), a larger one drowns it. But never below S_1/(Nρ) (= 1/r): the inputs' terms
  β and η/ρ of Δ_stab hold the noise up, so that Δ_stab/b_1 = 2 sqrt(3 (1 + S_1/(Nρ b_1))) grows as the
  ball shrinks below it (a smaller ball only loses signal; at ε = 1 that is the binding bound).
"""

from __future__ import annotations

import math

from solvers import private_estimator
from solvers.sharing.gradient import nesterov_momentum

__all__ = [
    "GRADIENT_ITERATIONS",
    "MARGIN_NOISE",
    "auto_ball_radius",
    "auto_iterations",
    "auto_rho_scale",
    "gradient_schedule",
]

#: (T when the noise dominates, the fewest and the most iterations when it does not) of the gradient protocol.
GRADIENT_ITERATIONS = (100, 100, 10_000)

#: κ: the margin noise σ sqrt(d/N) the default ball radius allows.
MARGIN_NOISE = 0.25
_MAX_ITERATIONS = 100
_MIN_ITERATIONS = 50
_WORK_BUDGET = 3e7  # N·d·T of a default fit


def auto_rho_scale(curvature_bound: float) -> float:
    """r = 1.5·S_2 of ρ = r/N (module docstring; S_2 = 1/4 for the logistic loss: r = 0.375)."""
    return 1.5 * curvature_bound


def auto_iterations(n_samples: int, n_columns: int) -> int:
    """T = 100 while N·d ≤ 3·10^5, else ⌊3·10^7/(N·d)⌋, at least 50 (module docstring)."""
    return max(_MIN_ITERATIONS, min(_MAX_ITERATIONS, int(_WORK_BUDGET // (n_samples * n_columns))))


def auto_ball_radius(
    lam: float, n_samples: int, n_columns: int, noise_multiplier: float | None, input_scale: float
) -> float:
    """b_1 = min(sqrt(2 ln 2/λ), max(S_1/(Nρ), κ sqrt(N/d)/(2 sqrt(3) z))) (module docstring), with
    ``input_scale`` = S_1/(Nρ); sqrt(2 ln 2/λ) alone when z is unknown (None: the noise was given as σ) or 0."""
    optimum = math.sqrt(2.0 * math.log(2.0) / lam)
    if not noise_multiplier:
        return optimum
    noise_bound = MARGIN_NOISE * math.sqrt(n_samples / n_columns) / (2.0 * math.sqrt(3.0) * noise_multiplier)
    return min(optimum, max(input_scale, noise_bound))


def gradient_schedule(
    epsilon: float, lam: float, curvature_bound: float, n_iterations: int | None = None
) -> tuple[int, float, float]:
    """(T, η, β) of the gradient protocol (module docstring): ``epsilon`` the total ε (inf without noise,
    ``NOISE_DOMINATED_EPSILON`` for a noise given as a multiplier), λ, S_2; ``n_iterations`` overrides T."""
    smoothness = curvature_bound + lam
    noise_dominated = epsilon <= private_estimator.NOISE_DOMINATED_EPSILON
    condition = smoothness / lam
    T = private_estimator.auto_iterations(epsilon, math.sqrt(condition), GRADIENT_ITERATIONS)
    momentum = 0.0 if noise_dominated else nesterov_momentum(smoothness, lam)
    return (T if n_iterations is None else n_iterations), 1.0 / smoothness, momentum
