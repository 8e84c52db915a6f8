"""Randomized response on ±1 labels (Wang et al. 2020, eq. (13); Warner 1965).

Each label is flipped independently with probability p = 1/(1+e^ε) and kept otherwise, which is
ε-label-LDP, tightly: Pr[y' = y]/Pr[y' = −y] = e^ε (Wang et al. 2020, Prop. 1). In ``dp_accounting``'s
terms (with probability q output a uniform bucket) this is ``RandomizedResponseDpEvent`` with
q = 2p = 2/(1+e^ε) and 2 buckets.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from dp_accounting import dp_event
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from accountants.constraints import Positive, validate_parameters
from mechanisms._validation import FloatArray, Shape, readonly, scalar_or_array
from mechanisms.base import AccountedMechanism

__all__ = ["RandomizedResponse"]


class RandomizedResponse(AccountedMechanism):
    """Flip ±1 labels with probability 1/(1+e^ε); ``epsilon`` may be an array (e.g. per group)."""

    @validate_parameters(epsilon=Positive(arrays=True))
    def __init__(self, epsilon: ArrayLike) -> None:
        self._epsilon = readonly(epsilon)
        self._flip_probability = readonly(expit(-self._epsilon))

    @property
    def parameter_shape(self) -> Shape:
        return self._epsilon.shape

    @property
    def epsilon(self) -> float | FloatArray:
        """ε per label (nats)."""
        return scalar_or_array(self._epsilon)

    @property
    def flip_probability(self) -> float | FloatArray:
        """p = 1/(1+e^ε), computed stably as expit(−ε)."""
        return scalar_or_array(self._flip_probability)

    @property
    def log_likelihood_ratio_bound(self) -> float | FloatArray:
        """The largest |log Pr[y'|y=1]/Pr[y'|y=−1]|, which is ε exactly."""
        return self.epsilon

    def randomize(
        self, labels: ArrayLike, rng: np.random.Generator
    ) -> NDArray[np.signedinteger[Any] | np.floating[Any]]:
        """The labels with each one flipped independently with probability ``flip_probability``.

        Args:
          labels: ±1 labels of any shape (integer or float); ``epsilon`` broadcasts against it.
          rng: the generator to draw from.

        Raises:
          TypeError: ``labels`` is not an integer or float array.
          ValueError: a label is not ±1.
        """
        labels = np.asarray(labels)
        if labels.dtype.kind not in "if":
            raise TypeError(f"labels must be ±1 integers or floats, got dtype {labels.dtype}")
        not_sign = np.abs(labels) != 1
        if not_sign.any():
            raise ValueError(f"labels must all be -1 or +1, got {labels[not_sign].flat[0].item()!r}")
        return np.where(self.sample(rng, labels.shape) < 0, -labels, labels)

    def sample(self, rng: np.random.Generator, shape: int | tuple[int, ...] | None = None) -> FloatArray:
        """Multiplicative sign noise: −1.0 with probability ``flip_probability``, else +1.0, so
        ``labels * sample(rng, labels.shape)`` is randomized response."""
        return super().sample(rng, shape)

    @property
    def _event_parameters(self) -> FloatArray:
        return self._epsilon

    def _event_of(self, value: float) -> dp_event.RandomizedResponseDpEvent:
        return dp_event.RandomizedResponseDpEvent(noise_parameter=2.0 * float(expit(-value)), num_buckets=2)

    def _draw(self, rng: np.random.Generator, shape: Shape) -> FloatArray:
        return np.where(rng.random(shape) < self._flip_probability, -1.0, 1.0)

    def __repr__(self) -> str:
        return f"RandomizedResponse(epsilon={self.epsilon!r})"
