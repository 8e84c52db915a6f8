"""Margin-based losses ℓ(w; x, y) = φ(y·wᵀx) for labels y ∈ {−1, +1}, vectorised over leading axes.

Shapes: w (..., d), X (..., m, d), y (..., m), mask (..., m); leading axes broadcast, e.g. w of shape
(R, N, d) (trials, agents) against X of shape (N, m, d) gives values (R, N), gradients (R, N, d) and
Hessians (R, N, d, d). ``mask`` marks real records when agents' data are padded to a common m
(``solvers.datasets.HorizontalPartition``); averages are taken over the real records only.

Constants for the privacy analyses, valid when every ‖x‖₂ ≤ 1 (scale by X_max or X_max² otherwise):
  - ``gradient_bound`` S1 ≥ ‖∇_w ℓ‖ = |φ'|·‖x‖ (S1 of Huang et al. 2020, Lemma 1; |L'| ≤ 1 in Assumption 4
    of Zhang, Khalili & Liu 2018 and 2020);
  - ``curvature_bound`` c1 ≥ φ'' (the same Assumption 4), which also bounds ‖∇²_w ℓ‖ (S3 of Huang et al. 2020).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from accountants.constraints import Positive, check_parameters


class MarginLoss(ABC):
    """A loss of the margin z = y·wᵀx; subclasses define φ, φ', φ'' and the two bounds."""

    @abstractmethod
    def phi(self, z: np.ndarray) -> np.ndarray:
        """φ(z), elementwise."""

    @abstractmethod
    def dphi(self, z: np.ndarray) -> np.ndarray:
        """φ'(z), elementwise."""

    @abstractmethod
    def d2phi(self, z: np.ndarray) -> np.ndarray:
        """φ''(z), elementwise."""

    @property
    @abstractmethod
    def gradient_bound(self) -> float:
        """S1 = sup|φ'| · max‖x‖ for ‖x‖ ≤ 1."""

    @property
    @abstractmethod
    def curvature_bound(self) -> float:
        """c1 = sup φ''."""

    def margins(self, w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """z = y · Xw, shape (..., m)."""
        return _margins(*_check_shapes(w, X, y))

    def value(self, w: np.ndarray, X: np.ndarray, y: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Mean loss (1/m) Σ_j φ(y_j wᵀx_j) over the (masked) records, shape (...)."""
        w, X, y = _check_shapes(w, X, y)
        return _weights(self.phi(_margins(w, X, y)), mask).sum(axis=-1)

    def gradient(self, w: np.ndarray, X: np.ndarray, y: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Mean gradient (1/m) Σ_j φ'(z_j) y_j x_j, shape (..., d)."""
        w, X, y = _check_shapes(w, X, y)
        coefficients = _weights(self.dphi(_margins(w, X, y)) * y, mask)
        return np.matmul(coefficients[..., None, :], X)[..., 0, :]

    def hessian(self, w: np.ndarray, X: np.ndarray, y: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Mean Hessian (1/m) Σ_j φ''(z_j) y_j² x_j x_jᵀ, shape (..., d, d)."""
        w, X, y = _check_shapes(w, X, y)
        coefficients = _weights(self.d2phi(_margins(w, X, y)) * y * y, mask)
        return np.matmul(np.swapaxes(X * coefficients[..., None], -1, -2), X)


@dataclass(frozen=True)
class LogisticLoss(MarginLoss):
    """φ(z) = log(1 + e^{−z}), the loss of all five papers.

    φ'(z) = −σ(−z) ∈ (−1, 0) and φ''(z) = σ(z)σ(−z) ∈ (0, 1/4], with σ the logistic function.
    """

    def phi(self, z: np.ndarray) -> np.ndarray:
        return np.logaddexp(0.0, -np.asarray(z, dtype=np.float64))

    def dphi(self, z: np.ndarray) -> np.ndarray:
        return -expit(-np.asarray(z, dtype=np.float64))

    def d2phi(self, z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, dtype=np.float64)
        return expit(z) * expit(-z)

    @property
    def gradient_bound(self) -> float:
        return 1.0

    @property
    def curvature_bound(self) -> float:
        return 0.25


@dataclass(frozen=True)
class HuberHingeLoss(MarginLoss):
    """Huber (smoothed) hinge loss of Chaudhuri, Monteleoni & Sarwate (2011, JMLR, §3.4.2):

    φ(z) = 0 for z > 1 + h;  (1 + h − z)² / (4h) for |1 − z| ≤ h;  1 − z for z < 1 − h.
    φ' ∈ [−1, 0] and φ'' ≤ 1/(2h) (φ'' is taken as 1/(2h) on the closed middle interval).
    """

    h: float = 0.5

    #: What ``h`` must be (``accountants.constraints``), checked when the loss is made.
    parameter_constraints = {"h": Positive()}

    def __post_init__(self) -> None:
        check_parameters(self)

    def phi(self, z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, dtype=np.float64)
        slope = self._slope(z)
        return np.where(z < 1.0 - self.h, 1.0 - z, self.h * slope * slope)

    def dphi(self, z: np.ndarray) -> np.ndarray:
        return -self._slope(np.asarray(z, dtype=np.float64))

    def d2phi(self, z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, dtype=np.float64)
        return np.where(np.abs(1.0 - z) <= self.h, 1.0 / (2.0 * self.h), 0.0)

    @property
    def gradient_bound(self) -> float:
        return 1.0

    @property
    def curvature_bound(self) -> float:
        return 1.0 / (2.0 * self.h)

    def _slope(self, z: np.ndarray) -> np.ndarray:
        """−φ'(z) = clip((1 + h − z)/(2h), 0, 1)."""
        return np.clip((1.0 + self.h - z) / (2.0 * self.h), 0.0, 1.0)


def _check_shapes(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    w, X, y = (np.asarray(a, dtype=np.float64) for a in (w, X, y))
    if X.ndim < 2 or w.ndim < 1 or y.ndim < 1:
        raise ValueError(f"expected w (..., d), X (..., m, d), y (..., m); got shapes {w.shape}, {X.shape}, {y.shape}")
    if w.shape[-1] != X.shape[-1] or y.shape[-1] != X.shape[-2]:
        raise ValueError(
            f"expected w (..., d), X (..., m, d), y (..., m) with matching d and m; "
            f"got shapes {w.shape}, {X.shape}, {y.shape}"
        )
    return w, X, y


def _margins(w: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    return y * np.matmul(X, w[..., None])[..., 0]


def _weights(values: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Per-record weights of a (masked) mean over the last axis: values/m, 0 on padded records."""
    if mask is None:
        return values / values.shape[-1]
    mask = np.asarray(mask, dtype=bool)
    counts = mask.sum(axis=-1, keepdims=True)
    if np.any(counts == 0):
        raise ValueError("mask must mark at least one record in every row (..., m); found a row with none")
    return np.where(mask, values, 0.0) / counts
