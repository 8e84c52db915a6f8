"""Upper bounds on a reconstruction adversary's success implied by a DP guarantee.

Reconstruction robustness (Balle, Cherubin & Hayes 2022, "Reconstructing training data with
informed adversaries", Def. 2): the target record Z is drawn from a prior π, the other records
D₋ are fixed and known, and an adversary R reads the mechanism's output M(D₋ ∪ {Z}). Its success
is Pr[ℓ(Z, R(M(D₋ ∪ {Z}))) ≤ η]; the baseline

    κ = sup_{z₀} Pr_{Z∼π}[ℓ(Z, z₀) ≤ η]

is the best success without seeing the output (e.g. κ = 1/M for naming the target among M
equally likely candidates, κ = k/M for top-k, κ = max class prior for its label).

* :func:`rero_bound` — Balle et al. 2022, Theorem 2: an (ε, δ)-DP mechanism (replace-one) gives
  success ≤ e^ε κ + δ.
* :func:`rero_bound_fdp` — the tighter form for an (ε, δ) guarantee read as a trade-off function
  f_{ε,δ}(a) = max(0, 1 − δ − e^ε a, e^{−ε}(1 − δ − a)): success ≤ 1 − f_{ε,δ}(κ)
  = min(1, e^ε κ + δ, 1 − e^{−ε}(1 − δ − κ)). Proof (the blow-up argument of Hayes, Mahloujifar &
  Balle 2023): fix a reference z′; for each z the event E_z = {ℓ(z, R(·)) ≤ η} is a test between
  M(D_{z′}) and M(D_z) with type-I error p_z = P_{D_{z′}}(E_z), so P_{D_z}(E_z) ≤ 1 − f(p_z); 1 − f
  is concave and non-decreasing, so by Jensen the success E_Z[1 − f(p_Z)] ≤ 1 − f(E_Z p_Z) and
  E_Z p_Z = E_{θ∼M(D_{z′})} Pr_Z[ℓ(Z, R(θ)) ≤ η] ≤ κ.
* :func:`rero_bound_gdp` — the same argument for μ-GDP: success ≤ Φ(Φ⁻¹(κ) + μ).
* :func:`best_rero_bound` — the smallest f-DP bound over several (ε, δ) guarantees of one
  mechanism (e.g. pure β and the optimal-composition ε at some δ).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from scipy.stats import norm

__all__ = ["best_rero_bound", "rero_bound", "rero_bound_fdp", "rero_bound_gdp"]


def _check(value, name: str, *, upper: float | None) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if np.any(np.isnan(array)) or np.any(array < 0) or (upper is not None and np.any(array > upper)):
        expectation = f"in [0, {upper:g}]" if upper is not None else ">= 0 (may be inf)"
        raise ValueError(f"{name} must be {expectation}, got {value!r}")
    return array


def _scaled(epsilon: np.ndarray, kappa: np.ndarray) -> np.ndarray:
    """min(e^ε κ, 2), computed in log space so a large ε never overflows (callers clip at 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        log = np.where(np.isinf(epsilon), np.inf, epsilon + np.log(kappa))
    return np.exp(np.minimum(log, np.log(2.0)))


def _out(array: np.ndarray):
    return float(array) if array.ndim == 0 else array


def rero_bound(epsilon, delta, kappa):
    """Balle et al. 2022, Thm 2: success ≤ min(1, e^ε κ + δ) for an (ε, δ)-DP mechanism.

    Args:
      epsilon: ε ≥ 0 (inf allowed: the bound is 1). delta: δ in [0, 1]. kappa: baseline κ in [0, 1].
      Arrays broadcast.

    Raises:
      ValueError: an argument outside its range (or NaN).
    """
    epsilon = _check(epsilon, "epsilon", upper=None)
    delta = _check(delta, "delta", upper=1.0)
    kappa = _check(kappa, "kappa", upper=1.0)
    bound = np.minimum(1.0, _scaled(epsilon, kappa) + delta)
    return _out(np.where(np.isinf(epsilon), 1.0, bound))


def rero_bound_fdp(epsilon, delta, kappa):
    """1 − f_{ε,δ}(κ) = min(1, e^ε κ + δ, 1 − e^{−ε}(1 − δ − κ)): never above :func:`rero_bound`,
    strictly below it when e^ε κ is large (module docstring for the proof)."""
    first = rero_bound(epsilon, delta, kappa)  # checks the arguments; 1 at ε = ∞, as the second term
    epsilon, delta, kappa = (np.asarray(value, dtype=np.float64) for value in (epsilon, delta, kappa))
    return _out(np.minimum(first, 1.0 - np.exp(-epsilon) * (1.0 - delta - kappa)))


def rero_bound_gdp(mu, kappa):
    """Success ≤ Φ(Φ⁻¹(κ) + μ) for a μ-GDP mechanism (1 − f_μ(κ); κ = 0 gives 0, κ = 1 gives 1)."""
    mu = _check(mu, "mu", upper=None)
    kappa = _check(kappa, "kappa", upper=1.0)
    with np.errstate(invalid="ignore"):
        bound = norm.cdf(norm.ppf(kappa) + mu)
    bound = np.where(kappa == 0, 0.0, np.where(kappa == 1, 1.0, bound))
    return _out(np.where(np.isinf(mu) & (kappa > 0), 1.0, bound))


def best_rero_bound(guarantees: Iterable[tuple[float, float]], kappa) -> float:
    """min over (ε, δ) guarantees of the same mechanism of :func:`rero_bound_fdp` at κ.

    Raises:
      ValueError: no guarantee given, or a value outside its range.
    """
    pairs = list(guarantees)
    if not pairs:
        raise ValueError("guarantees must hold at least one (epsilon, delta) pair")
    return float(min(np.min(rero_bound_fdp(e, d, kappa)) for e, d in pairs))
