"""The privacy formulas of ADMM sharing (Hu et al. 2019) as printed, the certified sensitivity, and a
counterexample to Lemma 1.

Paper (Hu, Liu, Kong, Niu 2019, arXiv 1907.07735), Sec. 4:

  - Lemma 1 (claimed): Δ_{m,2} ≤ C = 3/(d_m ρ) · [λ c_1 + (1 + Mρ) b_1].  **Unproven and false in
    general** (its proof, Sec. 7.3, uses ‖D_m (D_mᵀD_m)^{-1}‖ = 1/d_m without justification):
    :func:`lemma1_counterexample` is this toolkit's instance where the realised change of D_m x_m is
    0.2904 against C = 0.12.
  - Theorem 1: σ = sqrt(2 ln(1.25/δ)) · C/ε for ε ∈ (0, 1] (the classical Gaussian mechanism).
  - Corollary 1, (11): ε' = sqrt(2T ln(1/δ')) ε + T ε (e^ε − 1) at δ_total = Tδ + δ' (advanced
    composition, Dwork & Roth 2014 Thm 3.20).

Certified instead (this toolkit's bounds, not the paper's):

  - Δ_safe = 2 sqrt(N) b_1, valid for any change of D_m (row, column or operator-norm adjacency
    alike) whenever every row has ‖D_m^i‖ ≤ 1 and x_m is kept in the ball ‖x_m‖ ≤ b_1, because then
    ‖D_m x_m‖ ≤ ‖D_m‖_F ‖x_m‖ ≤ sqrt(N) b_1. It grows with N.
  - Δ_stab = 2 sqrt(b_1 (2 b_1 + β + η/ρ)) (:func:`stability_sensitivity`), for a change of one row of
    D_m, when the party solves (6) exactly over the ball with its public inputs clipped to the box
    |y_i| ≤ η, |b_i| ≤ β. It does not grow with N (η = S_1/N and ρ ∝ 1/N keep η/ρ fixed).
  - For a whole training example (one row across the M parties, and its label):
    :func:`row_stability_sensitivity` bounds all M shares of an iteration jointly, :func:`row_model_sensitivity`
    the joined model (Δ_stab's argument with the row's parts a_m = ‖D_m^i‖, Σ_m a_m² ≤ 1), and a ±1 label
    changes by ``LABEL_SENSITIVITY`` = 2.
"""

from __future__ import annotations

import math

import numpy as np

from accountants import gaussian_delta
from mechanisms import classic_gaussian_sigma

__all__ = [
    "corollary1_delta",
    "corollary1_epsilon",
    "lemma1_bound",
    "lemma1_counterexample",
    "LABEL_SENSITIVITY",
    "realised_sensitivity",
    "row_model_sensitivity",
    "row_stability_sensitivity",
    "safe_sensitivity",
    "stability_input_bounds",
    "stability_sensitivity",
    "theorem1_epsilon",
    "theorem1_sigma",
    "x_update_reference",
]

#: The L2 change of a ±1 label (the label release of ``VerticalLogisticRegression``).
LABEL_SENSITIVITY = 2.0

#: Why the paper's ε is reported as a claim only (Result.info["claim_reason"]).
PARAMETER_MODE_REASON = (
    "noise='parameter' releases D_m(x_m + ξ) with ξ ~ N(0, σ²(D_mᵀD_m)^+): the release lies in the column "
    "space of D_m, which differs between neighbouring data sets, so it is not (ε, δ)-DP for any δ < 1 "
    "(a range leak: Theorem 1 of Hu et al. 2019 treats D_m ξ as a one-dimensional Gaussian); and Lemma 1's "
    "sensitivity bound C, which σ is calibrated to, fails on a counterexample (realised 0.2904 > C = 0.12)"
)
PAPER_SENSITIVITY_REASON = (
    "the noise is calibrated to Lemma 1's claimed sensitivity C (Hu et al. 2019), which is not a valid bound "
    "(realised 0.2904 > C = 0.12 on a counterexample, exact δ(ε=1) = 6.8e-3 against the claimed 1e-5)"
)


def lemma1_bound(width, rho: float, lam: float, c1: float, b1: float, n_parties: int):
    """Lemma 1's claimed sensitivity C = 3/(d_m ρ) [λ c_1 + (1 + Mρ) b_1] (Hu et al. 2019; claimed, not valid).

    Args:
      width: d_m (a scalar or an array, e.g. one per party).
      rho, lam: ADMM penalty ρ and regularisation λ. c1: bound on R_m'' (1 for ½‖·‖²).
      b1: bound on every iterate's norm (Assumption 2.1). n_parties: M.

    Golden value (the formula evaluated): (66, 1, 0.01, 1, 1, 2) → 0.136818.
    """
    width = np.asarray(width, dtype=np.float64)
    if np.any(width < 1):
        raise ValueError(f"width must be >= 1, got {width!r}")
    for name, value in (("rho", rho), ("b1", b1), ("n_parties", n_parties)):
        if not value > 0:
            raise ValueError(f"{name} must be > 0, got {value!r}")
    if not (lam >= 0 and c1 >= 0):
        raise ValueError(f"lam and c1 must be >= 0, got {lam!r}, {c1!r}")
    value = 3.0 / (width * rho) * (lam * c1 + (1.0 + n_parties * rho) * b1)
    return float(value) if value.ndim == 0 else value


def theorem1_sigma(sensitivity, epsilon: float, delta: float):
    """Theorem 1's σ = sqrt(2 ln(1.25/δ)) · C/ε, for ε ∈ (0, 1] (raises for ε > 1, as the theorem needs).

    Golden value (the formula evaluated): C = 1, ε = 0.5, δ = 1e−5 → 9.6896.
    """
    return classic_gaussian_sigma(sensitivity, epsilon, delta)


def theorem1_epsilon(sensitivity, sigma, delta: float):
    """The per-iteration ε that Theorem 1 assigns to noise σ: sqrt(2 ln(1.25/δ)) · C/σ.

    The theorem holds only when this is ≤ 1; callers flag larger values.
    """
    sigma = np.asarray(sigma, dtype=np.float64)
    if np.any(sigma <= 0) or not (0 < delta < 1):
        raise ValueError(f"sigma must be > 0 and delta in (0, 1), got {sigma!r}, {delta!r}")
    value = math.sqrt(2.0 * math.log(1.25 / delta)) * np.asarray(sensitivity, dtype=np.float64) / sigma
    return float(value) if value.ndim == 0 else value


def corollary1_epsilon(epsilon: float, n_iterations: int, delta_prime: float) -> float:
    """Corollary 1, (11): ε' = sqrt(2T ln(1/δ')) ε + T ε (e^ε − 1), at δ_total = Tδ + δ'.

    Golden values (the formula evaluated): (0.1, 20, 1e−5) → 2.35631; (0.5, 10, 1e−6) → 11.5549.
    """
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon!r}")
    if not (isinstance(n_iterations, (int, np.integer)) and n_iterations >= 1):
        raise ValueError(f"n_iterations must be a positive integer, got {n_iterations!r}")
    if not 0 < delta_prime < 1:
        raise ValueError(f"delta_prime must be in (0, 1), got {delta_prime!r}")
    T = int(n_iterations)
    if epsilon > 700.0:  # e^ε overflows a double; the bound is vacuous long before
        return math.inf
    return math.sqrt(2.0 * T * math.log(1.0 / delta_prime)) * epsilon + T * epsilon * math.expm1(epsilon)


def safe_sensitivity(n_samples: int, b1: float, row_bound: float = 1.0) -> float:
    """Δ_safe = 2√N · row_bound · b_1: the L2 diameter of {D_m x : ‖D_m^i‖ ≤ row_bound, ‖x‖ ≤ b_1}."""
    if not (n_samples >= 1 and b1 > 0 and row_bound > 0):
        raise ValueError(f"need n_samples >= 1, b1 > 0, row_bound > 0; got {n_samples!r}, {b1!r}, {row_bound!r}")
    return 2.0 * math.sqrt(n_samples) * row_bound * b1


def stability_input_bounds(n_samples: int, rho: float, b1: float, gradient_bound: float = 1.0) -> tuple[float, float]:
    """(η, β): the box |y_i| ≤ η, |b_i| ≤ β that the noise-free run of ADMM sharing never leaves, so
    clipping a party's inputs of (6) to it changes nothing without noise (Hu et al. 2019, (6)–(8)).

    η = S_1/N: (7) and (8) give y^{t+1} = ∇l(z^{t+1}) (the optimality of z^{t+1}), and the mean loss
    l(z) = (1/N) Σ_i φ(Y_i z_i) has |∂_i l| ≤ S_1/N (S_1 ≥ |φ'|, ``MarginLoss.gradient_bound``).
    β = b_1 + 2 S_1/(Nρ): b_m^t = r^t − ũ_m^t with r^t = s^t − z^t = (∇l(z^t) − y^{t−1})/ρ by the same
    optimality, so |r_i| ≤ 2 S_1/(Nρ), and |(D_m x_m)_i| ≤ ‖D_m^i‖ ‖x_m‖ ≤ b_1 for rows in the unit ball.
    With noise, only party m's own noise can take b_m past β (r^t bounds hold for any s^t).

    Golden value (the formula evaluated): N = 100, ρ = 0.01, b_1 = 2 → (0.01, 4.0).
    """
    if not (n_samples >= 1 and rho > 0 and b1 > 0 and gradient_bound > 0):
        raise ValueError(
            f"need n_samples >= 1, rho > 0, b1 > 0, gradient_bound > 0; got {n_samples!r}, {rho!r}, {b1!r}, "
            f"{gradient_bound!r}"
        )
    return gradient_bound / n_samples, b1 + 2.0 * gradient_bound / (n_samples * rho)


def stability_sensitivity(b1: float, rho: float, dual_bound: float, residual_bound: float) -> float:
    """Δ_stab = 2 sqrt(b_1 (2 b_1 + β + η/ρ)): the L2 change of party m's share D_m x_m^{t+1} when one
    row of D_m changes (rows in the unit ball), x_m^{t+1} the exact minimiser of (6) of Hu et al. 2019
    over the ball ‖x‖ ≤ b_1, given public inputs y^t, b_m^t clipped to |y_i| ≤ η = ``dual_bound``,
    |b_i| ≤ β = ``residual_bound`` (what the previous releases fix: a fully adaptive composition).

    Proof (this toolkit's, for any convex R_m). Write (6) as Φ(x) = λR_m(x) + Σ_j g_j(D^j x) with
    g_j(t) = y_j t + (ρ/2)(b_j + t)². Let D, D' differ in row i, x, x' the minimisers of Φ, Φ' over
    the ball, and H = Φ − g_i(D^i ·) = Φ' − g_i(D'^i ·). Since every g_j'' = ρ, Φ and Φ' are
    ρ-strongly convex in the seminorm ‖D_{−i} ·‖ (D without row i), and a constrained minimiser
    satisfies Φ(x') − Φ(x) ≥ (ρ/2)‖D_{−i}(x' − x)‖² (the variational inequality), likewise for Φ'.
    Adding the two, H cancels:

        ρ‖D_{−i}(x − x')‖² ≤ [g_i(D^i x') − g_i(D^i x)] + [g_i(D'^i x) − g_i(D'^i x')] ≤ 2 L · 2 b_1,

    since every argument lies in [−b_1, b_1] (‖D^i‖ ≤ 1, ‖x‖ ≤ b_1), where g_i is L-Lipschitz with
    L = η + ρ(β + b_1). The changed entry itself moves by |D^i x − D'^i x'| ≤ 2 b_1, so
    ‖D x − D' x'‖² ≤ 4 b_1² + 4 b_1 L/ρ. With η = S_1/N, β from :func:`stability_input_bounds` and
    ρ = r/N this is 2 sqrt(3 b_1 (b_1 + S_1/r)): independent of N, against Δ_safe = 2 sqrt(N) b_1.
    The solver's x (``ball_constrained_l2_coefficients``: the multiplier by Newton to a relative step of
    10^-14, then scaled by 1 − 10^-12 into the ball) is the exact minimiser up to rounding; the bound
    carries no slack for that.

    Golden value (the formula evaluated): b_1 = 2, ρ = 0.01, η = 0.01, β = 4 → 2 sqrt(18) = 8.48528.
    """
    if not (b1 > 0 and rho > 0 and dual_bound >= 0 and residual_bound >= 0):
        raise ValueError(
            f"need b1 > 0, rho > 0, dual_bound >= 0, residual_bound >= 0; got {b1!r}, {rho!r}, {dual_bound!r}, "
            f"{residual_bound!r}"
        )
    return 2.0 * math.sqrt(b1 * (2.0 * b1 + residual_bound + dual_bound / rho))


def row_stability_sensitivity(b1: float, rho: float, dual_bound: float, residual_bound: float, n_parties: int) -> float:
    """Δ_row = 2 sqrt(b_1² + sqrt(M) b_1 (b_1 + β + η/ρ)): the joint L2 change of all M shares D_m x_m^{t+1}
    of one iteration when one row of the full matrix changes (every party's part of it), the row in the unit
    ball (Σ_m ‖D_m^i‖² ≤ 1, as ``UnitBallRecords`` maps it), each x_m^{t+1} the exact minimiser of (6) of Hu
    et al. 2019 over ‖x‖ ≤ b_1 given public inputs clipped to |y_i| ≤ η, |b_i| ≤ β.

    Proof (:func:`stability_sensitivity`'s, keeping the parts a_m = ‖D_m^i‖, a'_m = ‖D'^i_m‖): party m's
    changed entry moves by at most (a_m + a'_m) b_1, and the variational inequalities of (6) give
    ρ‖D_{m,−i}(x_m − x'_m)‖² ≤ L (a_m + a'_m) 2 b_1 with L = η + ρ(β + b_1). Summed over the parties, with
    Σ_m (a_m + a'_m)² ≤ (‖a‖ + ‖a'‖)² ≤ 4 and Σ_m (a_m + a'_m) ≤ sqrt(M)·2 (Cauchy–Schwarz):
    Σ_m ‖D_m x_m − D'_m x'_m‖² ≤ 4 b_1² + 4 sqrt(M) b_1 L/ρ. With M = 1 it is Δ_stab; against the M
    per-party bounds composed, sqrt(M) Δ_stab, it saves the cross terms.

    Golden value (the formula evaluated): b_1 = 2, ρ = 0.01, η = 0.01, β = 4, M = 4 → 2 sqrt(4 + 2·2·7) = 11.3137.
    """
    if not (isinstance(n_parties, (int, np.integer)) and n_parties >= 1):
        raise ValueError(f"n_parties must be a positive integer, got {n_parties!r}")
    single = stability_sensitivity(b1, rho, dual_bound, residual_bound)  # checks the other arguments
    spread = math.sqrt(n_parties) * (single * single / 4.0 - b1 * b1)  # sqrt(M) b_1 (b_1 + β + η/ρ)
    return 2.0 * math.sqrt(b1 * b1 + spread)


def row_model_sensitivity(
    b1: float, rho: float, dual_bound: float, residual_bound: float, lam: float, n_parties: int
) -> float:
    """Δ_w = min(2 b_1 sqrt(M), 2 sqrt(sqrt(M) b_1 L/λ)), L = η + ρ(β + b_1): the joint L2 change of the M
    parties' models x_m (each the exact minimiser of (6) of Hu et al. 2019 over ‖x‖ ≤ b_1, public inputs
    clipped as in :func:`row_stability_sensitivity`) when one row of the full matrix changes.

    The first term is the balls' diameter. The second is the output-perturbation argument of Chaudhuri,
    Monteleoni & Sarwate 2011 (Thm 6) on (6): Φ is λ-strongly convex, so the two variational inequalities add
    to λ‖x_m − x'_m‖² ≤ L (a_m + a'_m) 2 b_1, and Σ_m (a_m + a'_m) ≤ 2 sqrt(M).

    Golden value (the formula evaluated): b_1 = 2, ρ = 0.01, η = 0.01, β = 4, λ = 0.1, M = 4 →
    min(8, 2 sqrt(2·2·0.07/0.1)) = 3.34664.
    """
    row_stability_sensitivity(b1, rho, dual_bound, residual_bound, n_parties)  # the same checks
    if not lam > 0:
        raise ValueError(f"lam must be > 0, got {lam!r}")
    lipschitz = dual_bound + rho * (residual_bound + b1)
    return min(2.0 * b1 * math.sqrt(n_parties), 2.0 * math.sqrt(math.sqrt(n_parties) * b1 * lipschitz / lam))


def x_update_reference(D: np.ndarray, y: np.ndarray, b: np.ndarray, lam: float, rho: float) -> np.ndarray:
    """One party's unconstrained l2 update (6), naively: x = −(λI + ρDᵀD)^{-1} Dᵀ(y + ρb).

    ``b`` = Σ_{k≠m} D_k x_k − z (the other parties' shares minus the server's z). A plain reference
    for tests; the solver uses a cached SVD instead.
    """
    D = np.asarray(D, dtype=np.float64)
    d = D.shape[1]
    return -np.linalg.solve(lam * np.eye(d) + rho * D.T @ D, D.T @ (np.asarray(y) + rho * np.asarray(b)))


def realised_sensitivity(
    D: np.ndarray, D_prime: np.ndarray, y: np.ndarray, b: np.ndarray, lam: float, rho: float
) -> float:
    """‖D x(D) − D' x(D')‖: the change of the released D_m x_m^{t+1} between neighbours, with
    everything else (y^t, z^t and the other parties' shares) held fixed (Definition 2)."""
    return float(
        np.linalg.norm(
            D @ x_update_reference(D, y, b, lam, rho) - D_prime @ x_update_reference(D_prime, y, b, lam, rho)
        )
    )


def lemma1_counterexample(n: int = 100, epsilon: float = 1.0, delta: float = 1e-5) -> dict[str, object]:
    """A counterexample to Lemma 1 of Hu et al. 2019 (constructed for this toolkit), computed.

    D_m = I_n; D'_m equals it except row 1 = (1/2, √3/2, 0, …) (rotated by 60°; unit rows,
    ‖D_m − D'_m‖₂ = 1). λ = ρ = 1, M = 2, c_1 = b_1 = 1, y = 0, z = −e_1, the other party's share 0.

    Returns:
      {"D", "D_prime", "released", "released_prime", "sensitivity" (0.29038, whatever n is),
       "claimed" (C = 0.12 at n = 100), "sigma" (Theorem 1 at (ε, δ) from C), "claimed_delta" δ,
       "true_delta" (the exact δ(ε) of the Gaussian mechanism with that σ and the realised change:
       6.78e−3 at the defaults), "iterate_norms" (every norm Assumption 2.1 bounds, all ≤ 1)}.
    """
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n!r}")
    lam = rho = c1 = b1 = 1.0
    D = np.eye(n)
    D_prime = D.copy()
    D_prime[0, :2] = (0.5, math.sqrt(3.0) / 2.0)
    y, z = np.zeros(n), np.zeros(n)
    z[0] = -1.0
    b = -z  # Σ_{k≠m} D_k x_k − z with the other party's share 0
    x, x_prime = x_update_reference(D, y, b, lam, rho), x_update_reference(D_prime, y, b, lam, rho)
    sensitivity = float(np.linalg.norm(D @ x - D_prime @ x_prime))
    claimed = lemma1_bound(n, rho, lam, c1, b1, 2)
    sigma = theorem1_sigma(claimed, epsilon, delta)
    return {
        "D": D,
        "D_prime": D_prime,
        "released": D @ x,
        "released_prime": D_prime @ x_prime,
        "sensitivity": sensitivity,
        "claimed": claimed,
        "sigma": sigma,
        "claimed_delta": delta,
        "true_delta": gaussian_delta(sensitivity / sigma, epsilon),
        "iterate_norms": {"y": 0.0, "z": 1.0, "x": float(np.linalg.norm(x)), "x_prime": float(np.linalg.norm(x_prime))},
    }


def corollary1_delta(delta: float, n_iterations: int) -> float:
    """δ_it = δ′ = δ/(T + 1): each iteration's δ and Corollary 1's δ′, so that its total Tδ_it + δ′ is δ."""
    return delta / (n_iterations + 1)
