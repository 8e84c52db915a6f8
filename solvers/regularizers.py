"""Regularizers R(w), vectorised over leading axes: w (..., d) → values (...), (sub)gradients (..., d).

Constants used by the privacy and convergence analyses (in the notation of Huang et al. 2020, Table I):
  - ``strong_convexity``: modulus κ with R(u) ≥ R(w) + <g, u − w> + (κ/2)‖u − w‖²;
  - ``gradient_bound(d)``: S2 ≥ sup‖R'(w)‖₂ on R^d (used only by Theorem 3 of Huang et al. 2020);
  - ``hessian_bound``: S4 ≥ sup‖∇²R‖ (used only by Lemma 4 and Theorem 4 of Huang et al. 2020).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from accountants.constraints import Integer


class Regularizer(ABC):
    """A convex regularizer with its proximal operator and analysis constants."""

    @abstractmethod
    def value(self, w: np.ndarray) -> np.ndarray:
        """R(w), shape (...)."""

    @abstractmethod
    def gradient(self, w: np.ndarray) -> np.ndarray:
        """A (sub)gradient R'(w), shape (..., d)."""

    @abstractmethod
    def prox(self, v: np.ndarray, step: float | np.ndarray) -> np.ndarray:
        """prox_{step·R}(v) = argmin_u step·R(u) + ½‖u − v‖².

        ``step`` ≥ 0 is a scalar or an array broadcastable to v, e.g. (..., 1) for one step per row.
        """

    @property
    @abstractmethod
    def strong_convexity(self) -> float:
        """Strong-convexity modulus κ of R."""

    @property
    @abstractmethod
    def hessian_bound(self) -> float:
        """S4 ≥ sup‖∇²R(w)‖ (spectral norm)."""

    @abstractmethod
    def gradient_bound(self, dim: int) -> float:
        """S2 ≥ sup_w ‖R'(w)‖₂ for w ∈ R^dim."""


@dataclass(frozen=True)
class L2Regularizer(Regularizer):
    """R(w) = ½‖w‖² (Huang et al. 2020, Sec. VI-B, and the other four papers): ∇R = w, ∇²R = I, 1-strongly convex."""

    def value(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=np.float64)
        return 0.5 * np.einsum("...i,...i->...", w, w)

    def gradient(self, w: np.ndarray) -> np.ndarray:
        return np.array(w, dtype=np.float64)

    def prox(self, v: np.ndarray, step: float | np.ndarray) -> np.ndarray:
        """v / (1 + step)."""
        return np.asarray(v, dtype=np.float64) / (1.0 + _check_step(step))

    @property
    def strong_convexity(self) -> float:
        return 1.0

    @property
    def hessian_bound(self) -> float:
        return 1.0

    def gradient_bound(self, dim: int) -> float:
        """∞: ∇R(w) = w is unbounded on R^dim. Huang et al. 2020 need S2 only for l1 (Theorem 3)."""
        _check_dim(dim)
        return math.inf


@dataclass(frozen=True)
class L1Regularizer(Regularizer):
    """R(w) = ‖w‖₁ (Huang et al. 2020, Sec. VI-A): subgradient sgn(w) with sgn(0) = 0 (MATLAB ``sign``)."""

    def value(self, w: np.ndarray) -> np.ndarray:
        return np.abs(np.asarray(w, dtype=np.float64)).sum(axis=-1)

    def gradient(self, w: np.ndarray) -> np.ndarray:
        """sgn(w) elementwise, with sgn(0) = 0 (the paper leaves sgn(0) open; 0 is MATLAB's choice)."""
        return np.sign(np.asarray(w, dtype=np.float64))

    def prox(self, v: np.ndarray, step: float | np.ndarray) -> np.ndarray:
        """Soft-thresholding: sgn(v) · max(|v| − step, 0)."""
        v = np.asarray(v, dtype=np.float64)
        return np.sign(v) * np.maximum(np.abs(v) - _check_step(step), 0.0)

    @property
    def strong_convexity(self) -> float:
        return 0.0

    @property
    def hessian_bound(self) -> float:
        """0 away from the kinks at w_j = 0, where R is not twice differentiable."""
        return 0.0

    def gradient_bound(self, dim: int) -> float:
        """sqrt(dim) = ‖sgn(w)‖₂ for w without zero entries (Huang et al. 2020, Sec. VI-A: S2 = sqrt(d))."""
        return math.sqrt(_check_dim(dim))


def _check_step(step: float | np.ndarray) -> np.ndarray:
    steps = np.asarray(step, dtype=np.float64)
    if not np.all(np.isfinite(steps) & (steps >= 0)):
        raise ValueError(f"step must be finite and >= 0, got {step!r}")
    return steps


def _check_dim(dim: int) -> int:
    Integer(1).check(dim, "dim")
    return int(dim)
