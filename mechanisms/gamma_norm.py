"""Gamma-norm noise for objective and penalty perturbation (Zhang, Khalili & Liu
2020 and 2018).

The noise vector ε ∈ R^d has density ∝ exp(−α‖ε‖₂): the L2 norm, not its square, so this is not
Gaussian. Normalised (the constant is derived here; the papers state the density up to it),

    p(ε) = α^d Γ(d/2) / (2 π^{d/2} Γ(d)) · exp(−α‖ε‖₂),

so ‖ε‖ ~ Gamma(shape d, scale 1/α) and ε/‖ε‖ is uniform on the sphere, independent of the norm;
E‖ε‖ = d/α and E[εεᵀ] = ((d+1)/α²) I. The sampler is the papers' own (Zhang, Khalili & Liu 2020,
Sec. III-C; 2018, Sec. 4): r ~ Gamma(d, 1/α) times u = g/‖g‖ with g ~ N(0, I_d). A larger α means less
noise and more privacy loss.

There is no ``event()``: the privacy of a release depends on the solver (the papers' ε_i(k) and β
formulas combine α with the loss, the penalty and the data sizes), so the solver states the
``PureDpEvent`` itself from this mechanism's ``alpha`` and ``dim``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from accountants.constraints import Integer, Positive, validate_parameters
from mechanisms._validation import FloatArray, Shape, readonly, scalar_or_array
from mechanisms.base import Mechanism

__all__ = ["GammaNormMechanism"]


class GammaNormMechanism(Mechanism):
    """Noise in R^``dim`` with density ∝ exp(−α‖ε‖₂); ``alpha`` may be an array (e.g. per agent)."""

    @validate_parameters(alpha=Positive(arrays=True), dim=Integer(1))
    def __init__(self, alpha: ArrayLike, dim: int) -> None:
        self._alpha = readonly(alpha)
        self._dim = int(dim)

    @property
    def parameter_shape(self) -> Shape:
        return self._alpha.shape

    @property
    def alpha(self) -> float | FloatArray:
        """The rate α > 0 of the norm (larger α, less noise)."""
        return scalar_or_array(self._alpha)

    @property
    def dim(self) -> int:
        """The dimension d of one noise vector."""
        return self._dim

    @property
    def expected_norm(self) -> float | FloatArray:
        """E‖ε‖ = d/α."""
        return scalar_or_array(readonly(self._dim / self._alpha))

    def sample(self, rng: np.random.Generator, shape: int | tuple[int, ...] | None = None) -> FloatArray:
        """One release of noise vectors: an array of shape ``(*shape, dim)``; ``alpha`` broadcasts
        against ``shape`` (``None`` means ``alpha``'s shape)."""
        return super().sample(rng, shape)

    def density_log(self, x: ArrayLike) -> float | FloatArray:
        """log p(x) = d log α + log Γ(d/2) − log 2 − (d/2) log π − log Γ(d) − α‖x‖₂.

        Args:
          x: points of shape ``(..., dim)``; ``alpha`` broadcasts against ``x.shape[:-1]``.

        Raises:
          ValueError: the last axis of ``x`` is not of length ``dim``.
        """
        x = np.asarray(x, dtype=np.float64)
        if x.ndim == 0 or x.shape[-1] != self._dim:
            raise ValueError(f"x must have shape (..., {self._dim}), got shape {x.shape}")
        d = self._dim
        log_normaliser = (
            d * np.log(self._alpha) + math.lgamma(d / 2) - math.log(2.0) - (d / 2) * math.log(math.pi) - math.lgamma(d)
        )
        log_density = log_normaliser - self._alpha * np.linalg.norm(x, axis=-1)
        return scalar_or_array(readonly(log_density))

    def _draw(self, rng: np.random.Generator, shape: Shape) -> FloatArray:
        radius = rng.standard_gamma(self._dim, size=shape) / self._alpha
        direction = rng.standard_normal((*shape, self._dim))
        direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
        return radius[..., np.newaxis] * direction

    def __repr__(self) -> str:
        return f"GammaNormMechanism(alpha={self.alpha!r}, dim={self._dim})"
