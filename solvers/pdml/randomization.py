"""Phase 1 of PDML: users randomize their labels locally, and the debiased loss (Wang et al. 2020,
Secs. IV-A and V-B).

Each user flips their ±1 label with probability p = 1/(1+e^ε) (randomized response, Def. 2 and
(12)–(13)) before anything leaves the device; the features are sent unchanged. This is ε-label-LDP
(Prop. 1): Pr[y' = y | y] / Pr[y' = y | −y] = e^ε exactly. ε = ∞ means "no randomization" (p = 0).

The servers learn on the noisy labels with the modified loss (19)
    ℓ̂(y', z, ε) = [e^ε ℓ(y', z) − ℓ(−y', z)] / (e^ε − 1),
whose expectation over the flips is the clean loss ℓ(y, z) (20). For a margin loss ℓ(y, z) = φ(yz)
with φ'' even (the paper's Assumption 1, e.g. logistic and squared loss; not the hinge), φ(−u) − φ(u)
= −2φ'(0)·u, so with c(ε) = 1/(e^ε − 1) (an exact rewriting of (19), derived here)
    ℓ̂(y', z, ε) = φ(y'z) + 2φ'(0)·c(ε)·y'z,          (logistic: log(1+e^{−y'z}) − c(ε)·y'z)
i.e. the ordinary loss on the noisy labels plus a term linear in w: convex, with the same Hessian
(Lemma 1). The solver uses exactly this form (:func:`debias_linear_term`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from mechanisms import RandomizedResponse
from solvers.losses import MarginLoss

__all__ = [
    "check_label_symmetric",
    "debias_coefficient",
    "debias_linear_term",
    "debiased_loss",
    "label_flips",
    "randomize_labels",
]


def debias_coefficient(epsilon: ArrayLike) -> np.ndarray:
    """c(ε) = 1/(e^ε − 1), computed as 1/expm1(ε); c(∞) = 0 (the coefficient of the rewritten (19))."""
    eps = _label_epsilon(epsilon)
    with np.errstate(divide="ignore"):
        return np.where(np.isinf(eps), 0.0, 1.0 / np.expm1(np.minimum(eps, 700.0)))


def debiased_loss(loss: MarginLoss, y_noisy: ArrayLike, z: ArrayLike, epsilon: ArrayLike) -> np.ndarray:
    """ℓ̂(y', z, ε) of (19), elementwise: (e^ε φ(y'z) − φ(−y'z))/(e^ε − 1), written stably as
    φ(u) − c(ε)(φ(−u) − φ(u)) with u = y'z (exact for any margin loss; ε = ∞ gives φ(u))."""
    u = np.asarray(y_noisy, dtype=np.float64) * np.asarray(z, dtype=np.float64)
    forward = loss.phi(u)
    return forward - debias_coefficient(epsilon) * (loss.phi(-u) - forward)


def check_label_symmetric(loss: MarginLoss) -> float:
    """Check Assumption 1 (φ'' even, so ℓ̂ is convex with the Hessian of ℓ) and return φ'(0).

    Raises:
      ValueError: φ''(u) ≠ φ''(−u) on a grid of u ∈ [−8, 8] (e.g. a hinge-type loss, for which the
        modified loss is not convex).
    """
    u = np.linspace(0.05, 8.0, 160)
    forward, backward = loss.d2phi(u), loss.d2phi(-u)
    if not np.allclose(forward, backward, rtol=1e-9, atol=1e-12):
        raise ValueError(
            f"loss must have a label-symmetric Hessian (φ'' even, Wang et al. 2020, Assumption 1), got {loss!r}: "
            "the debiased loss would not be convex"
        )
    return float(loss.dphi(np.zeros(1))[0])


def debias_linear_term(
    loss: MarginLoss, X: np.ndarray, y_noisy: np.ndarray, epsilon: ArrayLike, weights: np.ndarray
) -> np.ndarray:
    """b with Σ_j a_j ℓ̂(y'_j, wᵀx_j) = Σ_j a_j φ(y'_j wᵀx_j) − bᵀw, b = −2φ'(0) Σ_j a_j c(ε_j) y'_j x_j.

    Args:
      loss: a label-symmetric margin loss (:func:`check_label_symmetric`).
      X: features (..., m, d); y_noisy: noisy labels (..., m) (0 on padding); epsilon: ε broadcast
        against y_noisy (e.g. (N, 1) per group); weights: a_j (..., m), e.g. 1/m_i and 0 on padding.

    Returns:
      b, shape (..., d).
    """
    coefficient = -2.0 * check_label_symmetric(loss) * debias_coefficient(epsilon) * weights * y_noisy
    return np.einsum("...m,...md->...d", coefficient, X)


def label_flips(
    epsilon: ArrayLike, shape: tuple[int, ...], rng: np.random.Generator, trials: tuple[int, ...] = ()
) -> np.ndarray:
    """Multiplicative ±1 flips of randomized response (Def. 2) with ``mechanisms.RandomizedResponse``.

    Args:
      epsilon: ε per group, (N,) (or a scalar); ∞ means that group does not randomize.
      shape: (N, m), one flip per user slot.
      rng: the generator; one draw of shape (*trials, 1, N, m) (groups on the axis after the
        trials', so per-agent streams give group i's flips from stream i); groups with ε = ∞ draw
        too and keep their labels.
      trials: leading trial axes (a whole chunk drawn at once), () for one trial.

    Returns:
      (*trials, N, m) array of ±1.0: −1 where the user's label is flipped.
    """
    eps = _label_epsilon(epsilon)
    if eps.ndim > 1 or eps.size not in (1, shape[0]):
        raise ValueError(f"eps_label must be a number or one value per group ({shape[0]},), got shape {eps.shape}")
    eps = np.broadcast_to(eps, shape[:1])
    finite = np.isfinite(eps)
    mechanism = RandomizedResponse(np.where(finite, eps, 1.0)[None, :, None])
    return np.where(finite[:, None], mechanism.sample(rng, (*trials, 1, *shape))[..., 0, :, :], 1.0)


def randomize_labels(y: ArrayLike, epsilon: ArrayLike, rng: np.random.Generator) -> np.ndarray:
    """y' = y · flips: each user's label flipped with probability 1/(1+e^ε) (ε per row of y)."""
    labels = np.asarray(y, dtype=np.float64)
    if labels.ndim != 2:
        raise ValueError(f"y must be (N, m) labels (one row per user group), got shape {labels.shape}")
    if np.any((labels != 0) & (np.abs(labels) != 1)):
        raise ValueError("y must hold labels ±1 (0 only on padding)")
    return labels * label_flips(epsilon, labels.shape, rng)


def _label_epsilon(epsilon: ArrayLike) -> np.ndarray:
    eps = np.asarray(epsilon, dtype=np.float64)
    if eps.size == 0 or np.any(np.isnan(eps)) or np.any(eps <= 0):
        raise ValueError(f"eps_label must be > 0 (np.inf for no randomization), got {epsilon!r}")
    return eps
