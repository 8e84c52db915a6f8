"""The Laplace mechanism: Laplace(0, b) noise per coordinate with b = Δ/ε for an L1 sensitivity Δ,
which is ε-DP (Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Thm 3.6). A release is
``LaplaceDpEvent(noise_multiplier = b/Δ = 1/ε)``.
"""

from __future__ import annotations

import numpy as np
from dp_accounting import dp_event
from numpy.typing import ArrayLike

from accountants.constraints import Positive, validate_parameters
from mechanisms._validation import FloatArray, Shape, readonly, scalar_or_array
from mechanisms.base import AccountedMechanism

__all__ = ["LaplaceMechanism"]


class LaplaceMechanism(AccountedMechanism):
    """Laplace(0, Δ/ε) noise; ``sensitivity`` (L1) and ``epsilon`` may be arrays that broadcast."""

    @validate_parameters(sensitivity=Positive(arrays=True), epsilon=Positive(arrays=True))
    def __init__(self, sensitivity: ArrayLike, epsilon: ArrayLike) -> None:
        self._sensitivity = readonly(sensitivity)
        self._epsilon = readonly(epsilon)
        self._shape: Shape = np.broadcast_shapes(self._sensitivity.shape, self._epsilon.shape)
        self._scale = readonly(self._sensitivity / self._epsilon)

    @property
    def parameter_shape(self) -> Shape:
        return self._shape

    @property
    def sensitivity(self) -> float | FloatArray:
        """The L1 sensitivity Δ."""
        return scalar_or_array(self._sensitivity)

    @property
    def epsilon(self) -> float | FloatArray:
        """ε per release (nats)."""
        return scalar_or_array(self._epsilon)

    @property
    def scale(self) -> float | FloatArray:
        """The Laplace scale b = Δ/ε (the standard deviation is sqrt(2)·b)."""
        return scalar_or_array(self._scale)

    @property
    def _event_parameters(self) -> FloatArray:
        return np.broadcast_to(self._epsilon, self._shape)

    def _event_of(self, value: float) -> dp_event.LaplaceDpEvent:
        return dp_event.LaplaceDpEvent(noise_multiplier=1.0 / value)

    def _draw(self, rng: np.random.Generator, shape: Shape) -> FloatArray:
        return rng.laplace(0.0, 1.0, size=shape) * self._scale

    def __repr__(self) -> str:
        return f"LaplaceMechanism(sensitivity={self.sensitivity!r}, epsilon={self.epsilon!r})"
