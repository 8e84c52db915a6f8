"""Step-size and sensitivity schedules of DP-ADMM and its noisy baseline (Huang et al. 2020:
Lemma 1, the step sizes of Theorems 3–4, Sec. VI).

Iterations are k = 0..T−1; the value used in iteration k is the paper's η_i^{k+1}. Every function
broadcasts over k (shape (T,)) and per-agent sizes m (shape (N,)), giving (T, N) tables.

The noise multiplier z = σ/Δ enters the Theorem-4 step size: with the paper's classic calibration
z = sqrt(2 ln(1.25/δ))/ε, the term 2 S1 sqrt(4(k+1) ln(1.25/δ))/(m ε D_w) equals
2 S1 sqrt(2(k+1)) z/(m D_w), the form used here so that any calibration (or z = 0, no noise) works.
σ itself is never computed here: the solver builds a ``mechanisms.GaussianMechanism`` from Δ and z.
"""

from __future__ import annotations

import math

import numpy as np

from accountants.constraints import Positive
from solvers.centralized import regularized_erm
from solvers.problem import HorizontalProblem

__all__ = [
    "check_classic_epsilon",
    "dpadmm_sensitivity",
    "estimate_dw",
    "eta_theorem3",
    "eta_theorem4",
    "naive_sensitivity",
    "unit_mu_epsilon",
]


def eta_theorem3(k: np.ndarray | int, *, dw: float, s1: float, s2: float, lam: float, n_agents: int) -> np.ndarray:
    """η^{k+1} = D_w / ((S1 + λ S2/N) sqrt(2(k+1))) (Theorem 3; convex, non-smooth, e.g. l1)."""
    k = _iterations(k)
    _check_positive(dw=dw, s1=s1, lam=lam)
    if not (math.isfinite(s2) and s2 >= 0):
        raise ValueError(
            f"s2 (the regularizer's subgradient bound S2) must be finite and >= 0 for the Theorem-3 "
            f"step size, got {s2!r}; use step_size='theorem4' for a smooth regularizer such as l2"
        )
    return dw / ((s1 + lam * s2 / n_agents) * np.sqrt(2.0 * (k + 1)))


def eta_theorem4(
    k: np.ndarray | int,
    *,
    dw: float,
    s1: float,
    s3: float,
    s4: float,
    lam: float,
    n_agents: int,
    m: np.ndarray | int,
    noise_multiplier: float,
) -> np.ndarray:
    """η_i^{k+1} = (S3 + λS4/N + 2 S1 sqrt(2(k+1)) z / (m_i D_w))^{-1} (Theorem 4; smooth, e.g. l2).

    With z = 0 (no noise) this is the constant 1/(S3 + λS4/N). Shape: broadcast of k[:, None] and
    m[None, :] when both are arrays, i.e. (T, N).
    """
    k = _iterations(k)
    _check_positive(dw=dw, s1=s1, lam=lam)
    m = np.asarray(m, dtype=np.float64)
    if not (math.isfinite(noise_multiplier) and noise_multiplier >= 0):
        raise ValueError(f"noise_multiplier must be finite and >= 0, got {noise_multiplier!r}")
    kk = k[:, None] if (k.ndim and m.ndim) else k
    noise_term = 2.0 * s1 * np.sqrt(2.0 * (kk + 1)) * noise_multiplier / (m * dw)
    return 1.0 / (s3 + lam * s4 / n_agents + noise_term)


def dpadmm_sensitivity(*, s1: float, m: np.ndarray | int, rho: float, eta: np.ndarray) -> np.ndarray:
    """Δ_{i,k+1} = 2 S1 / (m_i (ρ + 1/η_i^{k+1})), the L2 sensitivity of (3a) (Lemma 1, eq. (6)).

    Only g_i^k depends on the data; replacing one record moves it by ≤ 2S1/m_i, and (3a) divides
    it by ρ + 1/η.
    """
    return 2.0 * s1 / (np.asarray(m, dtype=np.float64) * (rho + 1.0 / np.asarray(eta, dtype=np.float64)))


def naive_sensitivity(
    *,
    s1: float,
    m: np.ndarray | int,
    lam: float,
    n_agents: int,
    rho: float,
    strong_convexity: float,
    mode: str = "paper",
) -> np.ndarray:
    """L2 sensitivity of Algorithm 2's exact local minimiser: the paper's bound (Huang et al. 2020,
    Secs. IV-A and VI) or a tighter one derived here.

    - ``"paper"``: 2 S1 N / (m_i λ κ) = 2S1/(m_i · κλ/N) ("according to [8],[13]"), which needs R
      κ-strongly convex (κ = 1 for ½‖w‖²). Refused for κ = 0 (l1), as the paper says.
    - ``"tight"``: 2 S1 / (m_i (κλ/N + ρ)): the local subproblem is (κλ/N + ρ)-strongly convex, so
      this holds for l1 too (2S1/(m_i ρ)); about 590× smaller than "paper" in the experiment.

    Raises:
      ValueError: unknown ``mode``, or ``mode="paper"`` with a regularizer that is not strongly
        convex.
    """
    m = np.asarray(m, dtype=np.float64)
    if mode == "paper":
        if strong_convexity <= 0:
            raise ValueError(
                "sensitivity='paper' (2 S1 N/(m λ)) needs a strongly convex regularizer, and the "
                "paper says Algorithm 2 cannot be applied to l1; use sensitivity='tight' "
                "(2 S1/(m ρ) from the ρ-strongly convex ADMM subproblem)"
            )
        return 2.0 * s1 / (m * strong_convexity * lam / n_agents)
    if mode == "tight":
        return 2.0 * s1 / (m * (strong_convexity * lam / n_agents + rho))
    raise ValueError(f"sensitivity must be 'paper' or 'tight', got {mode!r}")


def estimate_dw(problem: HorizontalProblem) -> float:
    """D_w = ‖w_pre‖ with w_pre = argmin (1/n_pub) Σ ℓ + (λ/N) R on the public records (Huang et al. 2020,
    Sec. VI, estimate D_w on 162 public records without saying how; this is the toolkit's estimate).

    Non-private and data-independent of the agents' records: it spends no privacy budget. Never
    computed from the training shards (η, hence σ, would then depend on private data).

    Raises:
      ValueError: the problem has no public records (pass ``dw`` to the solver instead), or
        w_pre = 0.
    """
    if problem.X_public is None or problem.y_public is None:  # given together (HorizontalProblem)
        raise ValueError(
            "estimating D_w needs public records: build the problem with X_public and y_public "
            "(Huang et al. 2020 use 162 pre-training rows), or pass dw= to the solver"
        )
    fit = regularized_erm(
        problem.X_public,
        problem.y_public,
        loss=problem.loss,
        regularizer=problem.regularizer,
        reg=problem.lam / problem.n_agents,
    )
    dw = float(np.linalg.norm(fit.w))
    if dw == 0:
        raise ValueError("the public pre-training fit is w = 0, so D_w = 0; pass dw= to the solver")
    return dw


def _iterations(k: np.ndarray | int) -> np.ndarray:
    k = np.asarray(k)
    if not np.issubdtype(k.dtype, np.integer) or np.any(k < 0):
        raise ValueError(f"k must hold non-negative integer iteration indices, got {k!r}")
    return k.astype(np.float64)


def _check_positive(**values: float) -> None:
    for name, value in values.items():
        Positive().check(value, name)


def unit_mu_epsilon(delta: float, n_iterations: int) -> float:
    """The per-iteration ε of the classic calibration z = sqrt(2 ln(1.25/δ))/ε (Theorem 1 of Huang et al.
    2020) at which T iterations compose to μ = sqrt(T)/z = 1 (Dong, Roth & Su 2022, Corollary 3.3)."""
    return math.sqrt(2.0 * math.log(1.25 / delta) / n_iterations)


def check_classic_epsilon(epsilon: float, minimum: float = 0.0) -> float:
    """``epsilon`` if it is a per-iteration ε the classic Gaussian calibration holds for, ε ≤ 1 (Dwork &
    Roth 2014, Theorem A.1), and at least ``minimum`` (a solver whose Newton solve needs that much).

    Raises:
      ValueError: otherwise (the message names the interval).
    """
    if not (0 < epsilon <= 1 and epsilon >= minimum):
        interval = f"[{minimum:g}, 1]" if minimum > 0 else "(0, 1]"
        raise ValueError(
            f"--epsilon must be a per-iteration ε in {interval} for the paper's classic Gaussian calibration "
            f"(Dwork & Roth 2014, Theorem A.1)"
            + (" and a Newton solve that converges under its noise" if minimum > 0 else "")
            + f", got {epsilon:g}"
        )
    return epsilon
