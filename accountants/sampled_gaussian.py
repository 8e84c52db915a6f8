"""The pessimistic privacy-loss distribution of one Poisson-sampled Gaussian release, built with
array arithmetic.

The construction is dp-accounting's connect-the-dots discretisation (Doroshenko, Ghazi, Kamath,
Kumar & Manurangsi 2022, "Connect the Dots", Alg. 1) of the sampled Gaussian's two dominating
pairs (Zhu, Dong & Wang 2022: removing a record gives the pair (q·N(−1, σ²) + (1 − q)·N(0, σ²),
N(0, σ²)), adding one the pair (N(0, σ²), q·N(1, σ²) + (1 − q)·N(0, σ²)), sensitivity 1 under
add-or-remove): on the grid ε_i = i·h from dp-accounting's own truncation bounds, the exact
hockey-stick divergence δ(ε_i) = P(X <= x_i) − e^{ε_i}·Q(X <= x_i) at the point x_i where the
privacy loss falls to ε_i, then the discrete PLD whose δ(ε) matches δ(ε_i) at every grid point,
an upper bound between them. dp-accounting evaluates the inverse loss x_i with one Python call per
grid point (about 10^5 calls for σ = 1, q = 0.01 at h = 10^-4, most of the construction's second);
here the same formulas, in the same order of operations, are evaluated on the whole grid at once.
The normal CDFs and the connect-the-dots masses are dp-accounting's own functions, so the PLD is
dp-accounting's to the last bits of the inverse loss (``tests/accountants/test_sampled_gaussian.py``
compares both).
"""

from __future__ import annotations

import math

import numpy as np
from dp_accounting.pld import pld_pmf
from dp_accounting.pld import privacy_loss_distribution as pld_lib
from dp_accounting.pld import privacy_loss_mechanism as mechanism_lib

from accountants.pld_arrays import ArrayPld, connect_dots_pmf

__all__ = ["sampled_gaussian_arrays", "sampled_gaussian_pld"]

#: dp-accounting's default: the noise mass left out of the discretisation (accounted as ∞ loss).
LOG_MASS_TRUNCATION_BOUND = -50.0


def sampled_gaussian_pld(sigma: float, sampling_probability: float, interval: float) -> pld_lib.PrivacyLossDistribution:
    """The pessimistic connect-the-dots PLD of one Gaussian release with noise multiplier
    ``sigma`` > 0 (sensitivity 1) on a Poisson sample with probability ``sampling_probability`` in
    (0, 1], under add-or-remove-one, on the grid ``interval``·Z: what
    ``from_gaussian_mechanism(sigma, sampling_prob=q, use_connect_dots=True)`` builds."""
    _check(sigma, sampling_probability, interval)
    remove = pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(
        *_grid_deltas(sigma, sampling_probability, interval, mechanism_lib.AdjacencyType.REMOVE)
    )
    if sampling_probability == 1.0:
        return pld_lib.PrivacyLossDistribution(remove)
    add = pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(
        *_grid_deltas(sigma, sampling_probability, interval, mechanism_lib.AdjacencyType.ADD)
    )
    return pld_lib.PrivacyLossDistribution(remove, add)


def sampled_gaussian_arrays(sigma: float, sampling_probability: float, interval: float) -> ArrayPld:
    """The same PLD as :func:`sampled_gaussian_pld`, as arrays (:mod:`accountants.pld_arrays`): the
    connect-the-dots masses computed by :func:`accountants.pld_arrays.connect_dots_pmf` in
    dp-accounting's order of operations, without its dictionary of every grid point."""
    _check(sigma, sampling_probability, interval)
    remove = connect_dots_pmf(*_grid_deltas(sigma, sampling_probability, interval, mechanism_lib.AdjacencyType.REMOVE))
    if sampling_probability == 1.0:
        return ArrayPld(remove)
    add = connect_dots_pmf(*_grid_deltas(sigma, sampling_probability, interval, mechanism_lib.AdjacencyType.ADD))
    return ArrayPld(remove, add)


def _check(sigma: float, sampling_probability: float, interval: float) -> None:
    if not (sigma > 0 and math.isfinite(sigma)):
        raise ValueError(f"sigma must be a positive finite number, got {sigma!r}")
    if not 0 < sampling_probability <= 1:
        raise ValueError(f"sampling_probability must be in (0, 1], got {sampling_probability!r}")
    if not (interval > 0 and math.isfinite(interval)):
        raise ValueError(f"interval must be a positive finite number, got {interval!r}")


def _grid_deltas(
    sigma: float, q: float, interval: float, adjacency: mechanism_lib.AdjacencyType
) -> tuple[float, int, int, np.ndarray]:
    """(grid step, first and last grid index, δ at each grid point) of one direction's PLD."""
    loss = mechanism_lib.GaussianPrivacyLoss(
        sigma,
        sensitivity=1.0,
        pessimistic_estimate=True,
        log_mass_truncation_bound=LOG_MASS_TRUNCATION_BOUND,
        sampling_prob=q,
        adjacency_type=adjacency,
    )
    bounds = loss.connect_dots_bounds()
    assert bounds.epsilon_lower is not None and bounds.epsilon_upper is not None  # a continuous mechanism
    lower = math.floor(bounds.epsilon_lower / interval)
    upper = math.ceil(bounds.epsilon_upper / interval)
    epsilons = np.arange(lower, upper + 1) * interval
    return interval, lower, upper, _deltas(loss, epsilons, sigma, q, adjacency)


def _deltas(
    loss: mechanism_lib.GaussianPrivacyLoss,
    epsilons: np.ndarray,
    sigma: float,
    q: float,
    adjacency: mechanism_lib.AdjacencyType,
) -> np.ndarray:
    """δ(ε) at every ε of ``epsilons``: dp-accounting's ``get_delta_for_epsilon`` of ``loss``, its
    inverse privacy loss evaluated on the array (removal: x = −½ − σ²·ℓ(ε) with
    ℓ(ε) = log(1 + (e^ε − 1)/q) the unsampled loss; addition: x = ½ + σ²·ℓ(−ε), i.e. 1 plus the
    removal's point at the unsampled loss −log(1 + (e^{−ε} − 1)/q))."""
    deltas = np.zeros_like(epsilons)
    if q == 1.0:
        inverse = np.ones(epsilons.shape, dtype=bool)
    elif adjacency == mechanism_lib.AdjacencyType.ADD:
        inverse = epsilons < -math.log1p(-q)  # δ = 0 at and above the largest loss
    else:
        inverse = epsilons > math.log1p(-q)
        deltas[~inverse] = -np.expm1(epsilons[~inverse])  # below the smallest loss: δ = 1 − e^ε
    chosen = epsilons[inverse]
    if adjacency == mechanism_lib.AdjacencyType.ADD:
        cutoffs = 1.0 + (-0.5 - -_unsampled_loss(-chosen, q) * (sigma**2) / 1.0)
        edge = -math.log(1 - q) if q < 1 else math.inf  # the largest loss: x = −∞
        cutoffs = np.where(_isclose(chosen, edge), -math.inf, cutoffs)
    else:
        cutoffs = -0.5 - _unsampled_loss(chosen, q) * (sigma**2) / 1.0
        edge = math.log(1 - q) if q < 1 else -math.inf  # the smallest loss: x = +∞
        cutoffs = np.where(_isclose(chosen, edge), math.inf, cutoffs)
    with np.errstate(over="ignore"):
        deltas[inverse] = loss.mu_upper_cdf(cutoffs) - np.exp(chosen + loss.mu_lower_log_cdf(cutoffs))
    clipped: np.ndarray = np.clip(deltas, 0.0, 1.0)
    return clipped


def _unsampled_loss(epsilons: np.ndarray, q: float) -> np.ndarray:
    """log(e^ε/q + 1 − 1/q), as dp-accounting's ``log_a_times_exp_b_plus_c(1/q, ε, 1 − 1/q)``
    evaluates it (ε itself when q = 1; 0 at ε = 0; NaN where it is not defined, which the callers
    replace)."""
    if q == 1.0:
        return epsilons.astype(float)
    a, c = 1.0 / q, 1.0 - 1.0 / q
    d = epsilons + np.log(a)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        values = d + np.log1p(-np.exp(np.log(-c) - d))  # c < 0: log(e^d − |c|) = d + log1p(−e^{log|c| − d})
    result: np.ndarray = np.where(epsilons == 0, np.log(a + c), values)
    return result


def _isclose(values: np.ndarray, target: float) -> np.ndarray:
    """``math.isclose(value, target)`` (relative tolerance 1e-9) on an array (False for an
    infinite target: the values are finite)."""
    if math.isinf(target):
        return np.zeros(values.shape, dtype=bool)
    close: np.ndarray = np.abs(values - target) <= 1e-9 * np.maximum(np.abs(values), abs(target))
    return close
