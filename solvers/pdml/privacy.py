"""Privacy of PDML's Phase 2 broadcasts and the joint label guarantee: DERIVED, not from the paper.

Wang et al. 2020 prove only Prop. 1 (randomized response is ε-label-LDP). Their Phase-2 claim
"(ε_p, δ_p)-DP" (Remarks 1–2) comes with no formula, no sensitivity and no composition over the
iterations. Everything here is this toolkit's own derivation with standard DP tools:

* **Sensitivity**. Neighbours replace one record (x, y') of one user of group i by
  any (x*, y'*) with ‖x*‖ ≤ X_max. Server i's subproblem (15),
      Φ_D(w) = Ĵ_i(w) + η_iᵀw/n + γ_iᵀw + β Σ_{l∈𝒩_i} ‖w − ½(w̃_i(t) + w̃_l(t))‖²,
  is μ_i-strongly convex with μ_i = aκ/n + 2βN_i (the debiased loss is convex, Lemma 1; the
  regularizer gives aκ/n; the penalty 2βN_i). Changing one record changes ∇Φ by g with
  ‖g‖ ≤ 2·G·X_max/m_i, where G = sup_z |∂ℓ̂/∂z| ≤ sup|φ'| + 2|φ'(0)|c(ε) (logistic: e^ε/(e^ε − 1),
  tight). From μ‖w − w'‖² ≤ (∇Φ_D(w') − ∇Φ_D(w))ᵀ(w' − w) = −gᵀ(w' − w):
      Δ_i = 2 G X_max / (m_i μ_i),   and with a Newton tolerance τ on ‖∇Φ‖:  Δ_i + 2τ/μ_i.
  Conditioning on η_i and on the history (every γ_i(t) and neighbour broadcast is a function of
  earlier broadcasts and other groups' data), round t is an adaptive Gaussian mechanism with
  σ_i(t) = V_i ρ^{(t−1)/2}.
* **Composition**: zCDP Ξ_i(T) = Σ_t Δ_i²/(2σ_i(t)²) = (Δ_i²/(2V_i²))(ρ^{−T} − 1)/(ρ^{−1} − 1), i.e.
  μ-GDP with μ² = 2Ξ (exact). Ξ grows like ρ^{−T}: **without bound as T grows when ρ < 1** — the
  decaying noise buys accuracy with privacy, and long runs have no meaningful θ guarantee.
* **η** (the bounded objective perturbation (14)) is treated as known to the adversary: it adds
  no quantified privacy (reported as "unquantified: the paper gives no formula"; Remark 1 of Wang et al.
  2020 asserts (ε_p, δ_p)-DP for it without one).
* **Joint label guarantee** against other servers (Remark 2 of Wang et al. 2020 leaves it open): RR (ε1-LDP)
  followed by an (ε2, δ2)-DP Phase 2 is (ε*, δ*)-DP for a label flip, with
      ε* = ln((e^{ε1+ε2} + 1)/(e^{ε1} + e^{ε2})),  δ* = e^{ε1}/(1 + e^{ε1}) · δ2.
  Proof: P(S|y) = (1−p)A + pB, P(S|−y) = pA + (1−p)B with A, B the transcript laws given y' = ±y;
  split A = A1 + A2 with A1 ≤ e^{ε2}B and mass(A2) ≤ δ2; ((1−p)r + p)/(pr + 1 − p) increases in
  r = A1/B ≤ e^{ε2}, and p = 1/(1+e^{ε1}) gives ε*.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import expit

from accountants.constraints import NonNegative, Positive
from accountants.gaussian_dp import gaussian_epsilon
from solvers.losses import MarginLoss
from solvers.pdml.randomization import check_label_symmetric, debias_coefficient

__all__ = [
    "DERIVED_NOTE",
    "broadcast_sensitivity",
    "broadcast_sigmas",
    "gdp_epsilon",
    "joint_label_epsilon",
    "loss_slope_bound",
    "noise_for_mu",
    "strong_convexity",
    "zcdp_epsilon",
    "zcdp_total",
]

#: Stated wherever a Phase-2 number is reported.
DERIVED_NOTE = (
    "derived by this toolkit, not from Wang et al. 2020: the paper gives no sensitivity, composition or "
    "joint guarantee for Phase 2; the objective perturbation η is unquantified"
)


def loss_slope_bound(loss: MarginLoss, eps_label: ArrayLike) -> np.ndarray:
    """G = sup_z |∂ℓ̂(y', z, ε)/∂z| ≤ sup|φ'| + 2|φ'(0)|·c(ε) (logistic: e^ε/(e^ε − 1); ε = ∞: 1)."""
    return loss.gradient_bound + 2.0 * abs(check_label_symmetric(loss)) * debias_coefficient(eps_label)


def strong_convexity(*, a: float, n_agents: int, beta: float, degrees: ArrayLike, kappa: float = 1.0) -> np.ndarray:
    """μ_i = aκ/n + 2βN_i, the strong-convexity modulus of server i's subproblem (15)."""
    return a * kappa / n_agents + 2.0 * beta * np.asarray(degrees, dtype=np.float64)


def broadcast_sensitivity(
    *,
    loss: MarginLoss,
    eps_label: ArrayLike,
    sizes: ArrayLike,
    degrees: ArrayLike,
    a: float,
    beta: float,
    n_agents: int,
    x_max: float,
    kappa: float = 1.0,
    tol: float = 0.0,
) -> np.ndarray:
    """Δ_i = 2 G X_max/(m_i μ_i) + 2τ/μ_i, the L2 sensitivity of w_i(t+1) (module docstring).

    Args:
      eps_label: the group's label ε (its smallest, if users differ); sizes: m_i; degrees: N_i;
      x_max: bound on ‖x‖ over the group's possible records; tol: the Newton tolerance τ.
    """
    Positive().check(x_max, "x_max")
    NonNegative().check(tol, "tol")
    mu = strong_convexity(a=a, n_agents=n_agents, beta=beta, degrees=degrees, kappa=kappa)
    G = loss_slope_bound(loss, eps_label)
    return 2.0 * G * x_max / (np.asarray(sizes, dtype=np.float64) * mu) + 2.0 * tol / mu


def broadcast_sigmas(V: ArrayLike, rho_decay: float, n_iterations: int) -> np.ndarray:
    """σ_i(t) = V_i ρ^{(t−1)/2} for t = 1..T, shape (T, N): θ_i(t) ~ N(0, ρ^{t−1}V_i² I) (16)."""
    t = np.arange(1, n_iterations + 1, dtype=np.float64)[:, None]
    return np.asarray(V, dtype=np.float64)[None, :] * rho_decay ** ((t - 1.0) / 2.0)


def zcdp_total(sensitivity: ArrayLike, V: ArrayLike, rho_decay: float, n_iterations: int) -> np.ndarray:
    """Ξ_i(T) = (Δ_i²/(2V_i²))·(ρ^{−T} − 1)/(ρ^{−1} − 1) (T·Δ²/(2V²) at ρ = 1; ∞ where V_i = 0)."""
    delta_sq = np.asarray(sensitivity, dtype=np.float64) ** 2
    V = np.asarray(V, dtype=np.float64)
    if rho_decay == 1.0:
        growth = float(n_iterations)
    else:
        growth = math.expm1(-n_iterations * math.log(rho_decay)) / math.expm1(-math.log(rho_decay))
    with np.errstate(divide="ignore"):
        return np.where(V > 0, delta_sq / (2.0 * np.where(V > 0, V, 1.0) ** 2) * growth, np.inf)


def zcdp_epsilon(xi: ArrayLike, delta: float) -> np.ndarray:
    """ε = Ξ + 2 sqrt(Ξ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3): the closed-form bound reported."""
    xi = np.asarray(xi, dtype=np.float64)
    return xi + 2.0 * np.sqrt(xi * math.log(1.0 / delta))


def gdp_epsilon(xi: ArrayLike, delta: float) -> np.ndarray:
    """The exact ε(δ) of the composed Gaussian releases: μ-GDP with μ = sqrt(2Ξ) (Dong, Roth & Su)."""
    xi = np.asarray(xi, dtype=np.float64)
    out = np.full(xi.shape, np.inf)
    for index in np.ndindex(xi.shape):
        if np.isfinite(xi[index]):
            out[index] = gaussian_epsilon(math.sqrt(2.0 * xi[index]), delta) if xi[index] > 0 else 0.0
    return out


def joint_label_epsilon(
    eps_label: ArrayLike, eps_phase2: ArrayLike, delta_phase2: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """(ε*, δ*) of a label against other servers: RR (ε1-LDP) then (ε2, δ2)-DP Phase 2 (docstring).

    ε* = ln((e^{ε1+ε2} + 1)/(e^{ε1} + e^{ε2})) ≤ min(ε1, ε2), symmetric; ε1 = ∞ gives (ε2, δ2) and
    ε2 = ∞ gives (ε1, 0).
    """
    e1, e2 = np.broadcast_arrays(np.asarray(eps_label, dtype=np.float64), np.asarray(eps_phase2, dtype=np.float64))
    d2 = np.broadcast_to(np.asarray(delta_phase2, dtype=np.float64), e1.shape)
    with np.errstate(invalid="ignore"):
        joint = np.logaddexp(e1 + e2, 0.0) - np.logaddexp(e1, e2)
    joint = np.where(np.isinf(e1), e2, np.where(np.isinf(e2), e1, joint))
    delta = np.where(np.isinf(e2), 0.0, expit(e1) * d2)
    return joint, delta


def noise_for_mu(sensitivity: ArrayLike, mu: float, rho_decay: float, n_iterations: int) -> np.ndarray:
    """V_i at which server i's broadcasts are μ-GDP, μ² = 2Ξ_i(T) (:func:`zcdp_total`; Ξ ∝ 1/V²)."""
    return np.sqrt(2.0 * zcdp_total(sensitivity, 1.0, rho_decay, n_iterations)) / mu
