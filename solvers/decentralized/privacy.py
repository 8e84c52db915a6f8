"""Pure-ε privacy bounds of the decentralized private ADMMs, with the theorems' conditions.

Every function is vectorised over iterations and nodes and returns per-(iteration, node) ε in nats;
the run's β is the max over nodes of the sum over iterations (the record sits at one node: the max over i in
Theorem V.1 of Zhang, Khalili & Liu 2020 and Theorem 4.1 of Zhang, Khalili & Liu 2018), which is what
``PureEpsilonAccountant`` computes from the registered events.

  - :func:`radmm_epsilons`: Theorem V.1 of Zhang, Khalili & Liu 2020, eq. (32): per odd iteration k of (M)R-ADMM,
    ε_i(k) = (2C/B_i)(1.4 c1/(ρ/N + 2η_i(2k−1)V_i) + α_i(k)); ``bound="tight"`` the step before
    the 1.4 relaxation, (2C/B_i)α_i(k) − 2 ln(1 − x), x = c1 C/(B_i(ρ/N + 2η_i V_i)) (eq. 56).
    Applied at every iteration it is the ADMM-OP baseline's bound (derived here, not stated in the paper: the
    proof of Theorem V.1 applies verbatim to every noisy iteration).
  - :func:`pp_epsilons`: Theorem 4.1 of Zhang, Khalili & Liu 2018, eq. (26): per iteration t of PP/DVP,
    β_i(t) = C(1.4 c1 + α_i(t))/(η_i(t) V_i B_i); ``bound="tight"``: Cα/(ηVB) − 2 ln(1 − x),
    x = c1/((B_i/C)(ρ/N + 2η_i V_i)).

The ``check_*`` functions raise ``ValueError`` naming the failed condition; a bound is never
returned under violated assumptions.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from accountants.constraints import OneOf, Positive

__all__ = [
    "alpha_for_beta",
    "beta_per_node",
    "check_pp_conditions",
    "check_radmm_conditions",
    "pp_epsilons",
    "radmm_epsilons",
    "total_epsilon",
]

_BOUNDS = ("paper", "tight")


def _arrays(B, V, eta, alpha):
    for name, value in (("B", B), ("V", V), ("eta", eta), ("alpha", alpha)):
        Positive(arrays=True).check(value, name)
    return tuple(np.asarray(value, dtype=np.float64) for value in (B, V, eta, alpha))


def check_radmm_conditions(*, C: float, B, V, eta, rho: float, n_agents: int, c1: float = 0.25) -> None:
    """Theorem V.1's conditions (Zhang, Khalili & Liu 2020) for the penalties eta (K, N) of the odd steps.

    Raises:
      ValueError: η_i not non-decreasing in k; the precondition 2c1 < (B_i/C)(ρ/N + 2η_i(1)V_i)
        fails at some node (message names node and numbers).
    """
    B, V, eta, _ = _arrays(B, V, eta, 1.0)
    eta = np.broadcast_to(eta, np.broadcast_shapes(eta.shape, (1, B.shape[0])))
    if np.any(np.diff(eta, axis=0) < 0):
        k, i = np.argwhere(np.diff(eta, axis=0) < 0)[0]
        raise ValueError(
            f"eta must be non-decreasing in k at every node (Theorem V.1), but node {i} has "
            f"eta({2 * k + 1}) = {eta[k, i]:g} > eta({2 * k + 3}) = {eta[k + 1, i]:g}"
        )
    rhs = (B / C) * (rho / n_agents + 2 * eta[0] * V)
    bad = np.flatnonzero(~(2 * c1 < rhs))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            "Theorem V.1 precondition 2c1 < (B_i/C)(rho/N + 2 eta_i(1) V_i) fails at node "
            f"{i}: 2c1 = {2 * c1:g} >= {rhs[i]:.6g} (B_i={B[i]:g}, C={C:g}, V_i={V[i]:g}, "
            f"eta_i(1)={eta[0, i]:g}); raise eta or reduce C"
        )
    if np.any(C > B):
        warnings.warn(
            f"C = {C:g} exceeds some B_i = {B.min():g} (Zhang, Khalili & Liu 2020, Sec. V, assume C <= B_i)",
            stacklevel=2,
        )


def radmm_epsilons(
    *, C: float, B, V, eta, alpha, rho: float, n_agents: int, c1: float = 0.25, bound: str = "paper"
) -> np.ndarray:
    """ε_i(k) of Theorem V.1 (Zhang, Khalili & Liu 2020, eq. (32)), shape broadcast of eta/alpha (K, N).

    Args:
      C, rho, n_agents: the objective's constants; B (N,) records, V (N,) degrees.
      eta: η_i(2k−1) (K, N) or (K, 1); alpha: α_i(k) likewise; c1: bound on L''.
      bound: "paper" (the 1.4 linearisation, eq. 32) or "tight" (eq. 56).

    Raises:
      ValueError: a condition of Theorem V.1 fails, or x_k ≥ ½.
    """
    OneOf(*_BOUNDS).check(bound, "bound")
    B, V, eta, alpha = _arrays(B, V, eta, alpha)
    check_radmm_conditions(C=C, B=B, V=V, eta=eta, rho=rho, n_agents=n_agents, c1=c1)
    curvature = rho / n_agents + 2 * eta * V
    if bound == "paper":
        return (2 * C / B) * (1.4 * c1 / curvature + alpha)
    x = c1 * C / (B * curvature)
    if np.any(x >= 0.5):
        raise ValueError(f"x_k = c1 C/(B_i(rho/N + 2 eta V_i)) must be < 1/2, got max {x.max():g}")
    return (2 * C / B) * alpha - 2 * np.log1p(-x)


def check_pp_conditions(*, C: float, B, V, eta, theta: float, rho: float, n_agents: int, c1: float = 0.25) -> None:
    """Theorem 4.1's conditions (Zhang, Khalili & Liu 2018) for penalties eta (T, N) and dual step θ.

    Raises:
      ValueError: θ ≤ 0; η_i(t) < θ; C > B_i; the θ-condition 2c1 < (B_i/C)(ρ/N + 2θV_i).
    """
    B, V, eta, _ = _arrays(B, V, eta, 1.0)
    Positive().check(theta, "theta")
    if np.any(eta < theta):
        raise ValueError(f"Theorem 4.1 needs eta_i(t) >= theta = {theta:g}, got min eta {eta.min():g}")
    if np.any(C > B):
        raise ValueError(f"Theorem 4.1 needs C <= B_i at every node: C = {C:g} > min B_i = {B.min():g}")
    rhs = (B / C) * (rho / n_agents + 2 * theta * V)
    bad = np.flatnonzero(~(2 * c1 < rhs))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            "Theorem 4.1 theta-condition 2c1 < (B_i/C)(rho/N + 2 theta V_i) fails at node "
            f"{i}: 2c1 = {2 * c1:g} >= {rhs[i]:.6g}"
        )


def pp_epsilons(
    *, C: float, B, V, eta, alpha, theta: float, rho: float, n_agents: int, c1: float = 0.25, bound: str = "paper"
) -> np.ndarray:
    """β_i(t) of Theorem 4.1 (Zhang, Khalili & Liu 2018, eq. (26)), shape broadcast of eta/alpha (T, N).

    Raises:
      ValueError: a condition of Theorem 4.1 fails (see :func:`check_pp_conditions`).
    """
    OneOf(*_BOUNDS).check(bound, "bound")
    B, V, eta, alpha = _arrays(B, V, eta, alpha)
    check_pp_conditions(C=C, B=B, V=V, eta=eta, theta=theta, rho=rho, n_agents=n_agents, c1=c1)
    if bound == "paper":
        return C * (1.4 * c1 + alpha) / (eta * V * B)
    x = c1 / ((B / C) * (rho / n_agents + 2 * eta * V))
    return C * alpha / (eta * V * B) - 2 * np.log1p(-x)


def total_epsilon(epsilons: np.ndarray) -> float:
    """β = max_i Σ_t ε_i(t) for epsilons (T, N)."""
    return float(np.asarray(epsilons).sum(axis=0).max())


def beta_per_node(solver: Any, problem: Any, *, bound: str = "paper") -> np.ndarray:
    """β_i = Σ_t ε_i(t) per node, (N,), of the theorem bound ``bound`` ("paper" or "tight") that the
    private ``solver`` of this family plans on ``problem``."""
    epsilons = dataclasses.replace(solver, bound=bound).plan(problem).details.epsilons
    total: np.ndarray = np.asarray(epsilons).sum(axis=0)
    return total


def alpha_for_beta(solver_at: Callable[[float], Any], beta: float, problem: Any) -> float:
    """The noise rate α (PP: α(1)) at which the paper's bound max_i β_i of ``solver_at(α)`` equals ``beta``:
    β is affine in α (eq. (32) of Zhang, Khalili & Liu 2020; eq. (26) of Zhang, Khalili & Liu 2018), so
    two plans fix it.

    Raises:
      ValueError: ``beta`` does not exceed the bound's α-free (Jacobian) part.
    """
    at1 = beta_per_node(solver_at(1.0), problem)
    at2 = beta_per_node(solver_at(2.0), problem)
    slope, floor = at2 - at1, 2 * at1 - at2
    alpha = float(np.min((beta - floor) / slope))
    if not alpha > 0:
        raise ValueError(f"the total β must exceed the bound's noise-free part {float(floor.max()):.4g}, got {beta!r}")
    return alpha
