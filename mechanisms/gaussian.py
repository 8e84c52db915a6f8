"""The Gaussian mechanism: N(0, σ²) noise per coordinate for an L2 sensitivity Δ.

Two calibrations from (ε, δ): the classic σ = Δ·sqrt(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1;
valid only for ε ≤ 1), and the analytic one (Balle & Wang 2018, "Improving the Gaussian mechanism
for differential privacy", Thm 8 / eq. (6)), the smallest σ that is (ε, δ)-DP, for any ε > 0.
Both are Δ times a noise multiplier z = σ/Δ; a release is ``GaussianDpEvent(z)``.

As everywhere in this project, z is read relative to the sensitivity Δ under the neighbouring
relation the caller computed Δ for (``dp_accounting``'s own REPLACE_ONE accountants instead read it
relative to a norm bound C, whose replace-one sensitivity is 2C).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from dp_accounting import dp_event
from numpy.typing import ArrayLike

from accountants.constraints import PROBABILITY, OneOf, Positive, validate_parameters
from accountants.gaussian_dp import gaussian_mu
from mechanisms._validation import FloatArray, Shape, readonly, scalar_or_array
from mechanisms.base import AccountedMechanism

__all__ = ["GaussianMechanism", "analytic_gaussian_sigma", "classic_gaussian_sigma"]

Calibration = Literal["classic", "analytic"]
#: Δ, σ and z: finite and > 0, scalars or arrays that broadcast together.
POSITIVE_ARRAY = Positive(arrays=True)
EPSILON = Positive()
DELTA = PROBABILITY
CALIBRATION = OneOf("classic", "analytic")


@validate_parameters(sensitivity=POSITIVE_ARRAY, epsilon=EPSILON, delta=DELTA)
def classic_gaussian_sigma(sensitivity: ArrayLike, epsilon: float, delta: float) -> float | FloatArray:
    """σ = Δ·sqrt(2 ln(1.25/δ))/ε (Dwork & Roth 2014, Thm A.1), for ε in (0, 1].

    Args:
      sensitivity: L2 sensitivity Δ > 0 (a scalar, or an array giving an array of σ).
      epsilon: ε in (0, 1].
      delta: δ in (0, 1).

    Raises:
      ValueError: bad arguments, including ε > 1, where the theorem does not hold.
    """
    return _sigma(sensitivity, _classic_multiplier(epsilon, delta))


@validate_parameters(sensitivity=POSITIVE_ARRAY, epsilon=EPSILON, delta=DELTA)
def analytic_gaussian_sigma(sensitivity: ArrayLike, epsilon: float, delta: float) -> float | FloatArray:
    """The smallest σ for which N(0, σ²) noise on a Δ-sensitive query is (ε, δ)-DP (Balle & Wang
    2018, Thm 8): the root in σ of Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) = δ (eq. (6)).

    The release is μ-GDP with μ = Δ/σ (Dong, Roth & Su 2022, Cor. 2.13 states the same trade-off),
    so σ = Δ/μ* for the largest μ* meeting (ε, δ), found by :func:`accountants.gaussian_mu` and
    rounded to the safe side.

    Args:
      sensitivity: L2 sensitivity Δ > 0 (a scalar, or an array giving an array of σ).
      epsilon: ε > 0.
      delta: δ in (0, 1).
    """
    return _sigma(sensitivity, _analytic_multiplier(epsilon, delta))


class GaussianMechanism(AccountedMechanism):
    """N(0, σ²) noise for a query of L2 sensitivity Δ; one release is ``GaussianDpEvent(σ/Δ)``.

    ``sensitivity`` and ``sigma`` may be arrays (e.g. one value per agent); they broadcast
    together to ``parameter_shape`` and against the sample shape. σ must be > 0: a non-private
    release is not a Gaussian mechanism.

    Args:
      sensitivity: L2 sensitivity Δ > 0, a scalar or an array.
      sigma: noise standard deviation σ > 0, a scalar or an array.

    Raises:
      TypeError, ValueError: a parameter is not real, or not finite and > 0 everywhere.
    """

    @validate_parameters(sensitivity=POSITIVE_ARRAY, sigma=POSITIVE_ARRAY)
    def __init__(self, sensitivity: ArrayLike, sigma: ArrayLike) -> None:
        sensitivity_array, sigma_array = readonly(sensitivity), readonly(sigma)
        self._set(sensitivity_array, sigma_array, sigma_array / sensitivity_array)

    @classmethod
    @validate_parameters(sensitivity=POSITIVE_ARRAY, noise_multiplier=POSITIVE_ARRAY)
    def from_noise_multiplier(cls, sensitivity: ArrayLike, noise_multiplier: ArrayLike) -> GaussianMechanism:
        """σ = noise_multiplier·Δ; the events carry ``noise_multiplier`` exactly as given (so a
        per-agent Δ with one multiplier gives a single :meth:`event`)."""
        sensitivity_array, multiplier_array = readonly(sensitivity), readonly(noise_multiplier)
        mechanism = cls.__new__(cls)
        mechanism._set(sensitivity_array, multiplier_array * sensitivity_array, multiplier_array)
        return mechanism

    @classmethod
    @validate_parameters(sensitivity=POSITIVE_ARRAY, epsilon=EPSILON, delta=DELTA, calibration=CALIBRATION)
    def from_epsilon_delta(
        cls,
        sensitivity: ArrayLike,
        epsilon: float,
        delta: float,
        calibration: Calibration = "classic",
    ) -> GaussianMechanism:
        """A mechanism that is (ε, δ)-DP per release.

        Args:
          sensitivity: L2 sensitivity Δ > 0, a scalar or an array (e.g. per agent).
          epsilon: ε > 0 (≤ 1 for "classic").
          delta: δ in (0, 1).
          calibration: "classic" (:func:`classic_gaussian_sigma`, as the DP-ADMM paper uses) or
            "analytic" (:func:`analytic_gaussian_sigma`, the smallest σ).

        Raises:
          ValueError: bad arguments, an unknown calibration, or ε > 1 with "classic".
        """
        calibrate = _classic_multiplier if calibration == "classic" else _analytic_multiplier
        multiplier = calibrate(epsilon, delta)
        return cls.from_noise_multiplier(sensitivity, multiplier)

    def _set(self, sensitivity: FloatArray, sigma: FloatArray, noise_multiplier: FloatArray) -> None:
        self._shape: Shape = np.broadcast_shapes(sensitivity.shape, sigma.shape)
        self._sensitivity = sensitivity
        self._sigma = readonly(sigma)
        self._noise_multiplier = np.broadcast_to(readonly(noise_multiplier), self._shape)

    @property
    def parameter_shape(self) -> Shape:
        return self._shape

    @property
    def sensitivity(self) -> float | FloatArray:
        """The L2 sensitivity Δ."""
        return scalar_or_array(self._sensitivity)

    @property
    def sigma(self) -> float | FloatArray:
        """The noise standard deviation σ (never a variance)."""
        return scalar_or_array(self._sigma)

    @property
    def noise_multiplier(self) -> float | FloatArray:
        """z = σ/Δ, broadcast to ``parameter_shape``."""
        return scalar_or_array(self._noise_multiplier)

    @property
    def _event_parameters(self) -> FloatArray:
        return self._noise_multiplier

    def _event_of(self, value: float) -> dp_event.GaussianDpEvent:
        return dp_event.GaussianDpEvent(noise_multiplier=value)

    def _draw(self, rng: np.random.Generator, shape: Shape) -> FloatArray:
        return rng.standard_normal(shape) * self._sigma

    def __repr__(self) -> str:
        return f"GaussianMechanism(sensitivity={self.sensitivity!r}, sigma={self.sigma!r})"


def _classic_multiplier(epsilon: float, delta: float) -> float:
    """Arguments validated by the caller's declaration; ε <= 1 is the theorem's own condition."""
    if epsilon > 1:
        raise ValueError(
            f"classic Gaussian calibration holds only for epsilon <= 1 (Dwork & Roth 2014, "
            f"Thm A.1), got epsilon={epsilon!r}; use analytic_gaussian_sigma or "
            "calibration='analytic' (Balle & Wang 2018), valid for every epsilon > 0"
        )
    return math.sqrt(2.0 * math.log(1.25 / float(delta))) / float(epsilon)


def _analytic_multiplier(epsilon: float, delta: float) -> float:
    return 1.0 / gaussian_mu(float(epsilon), float(delta))


def _sigma(sensitivity: ArrayLike, multiplier: float) -> float | FloatArray:
    return scalar_or_array(readonly(sensitivity) * multiplier)
