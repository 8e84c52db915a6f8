"""Row and column scalings of the papers' preprocessing.

Row steps: ``scale_rows_to_unit_ball`` (x ← x / max(1, ‖x‖), Zhang, Khalili & Liu 2018 and 2020) and
``normalize_rows`` (x ← x / ‖x‖, for Huang et al. 2020, who say only that they normalise the data). Column
steps: ``minmax_scale_columns`` (for Huang et al. 2020) and ``maxabs_scale_columns`` (divide by the column's
max |value|, Zhang, Khalili & Liu 2018 and 2020). Row steps act on the
last axis of (..., n, d) arrays; column steps on the columns of an (n, d) matrix.
"""

from __future__ import annotations

import numpy as np


def row_norms(X: np.ndarray) -> np.ndarray:
    """L2 norm of every row: shape (..., n) for X of shape (..., n, d); no underflow or overflow."""
    scale, unit = _split_scale(X)
    return scale * _plain_norms(unit)


def max_row_norm(X: np.ndarray) -> float:
    """Largest row L2 norm of X (..., n, d): the X_max that the accounting must use."""
    norms = row_norms(X)
    if norms.size == 0:
        raise ValueError(f"X must contain at least one row, got shape {np.shape(X)}")
    return float(norms.max())


def scale_rows_to_unit_ball(X: np.ndarray) -> np.ndarray:
    """Return x / max(1, ‖x‖) for every row: rows inside the unit ball are unchanged."""
    features = np.asarray(X, dtype=np.float64)
    return features / np.maximum(1.0, row_norms(features))[..., None]


def normalize_rows(X: np.ndarray) -> np.ndarray:
    """Return x / ‖x‖ for every row (unit norm); all-zero rows are left at zero."""
    _, unit = _split_scale(X)  # dividing by max|x_j| first keeps subnormal rows exact
    norms = _plain_norms(unit)
    return unit / np.where(norms > 0, norms, 1.0)[..., None]


def minmax_scale_columns(X: np.ndarray) -> np.ndarray:
    """Map every column of X (n, d) affinely onto [0, 1]; constant columns become 0."""
    features = np.asarray(X, dtype=np.float64)
    low = features.min(axis=0)
    span = features.max(axis=0) - low
    return (features - low) / np.where(span > 0, span, 1.0)


def maxabs_scale_columns(X: np.ndarray) -> np.ndarray:
    """Divide every column of X (n, d) by its max |value|; all-zero columns stay zero."""
    features = np.asarray(X, dtype=np.float64)
    scale = np.abs(features).max(axis=0)
    return features / np.where(scale > 0, scale, 1.0)


def append_bias(X: np.ndarray, value: float = 1.0) -> np.ndarray:
    """Append a constant column (intercept feature) to X (..., n, d) → (..., n, d + 1)."""
    features = np.asarray(X, dtype=np.float64)
    return np.concatenate([features, np.full(features.shape[:-1] + (1,), float(value))], axis=-1)


def _split_scale(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split every row as x = s·u with s = max_j |x_j| (0 for a zero row) and max_j |u_j| = 1."""
    features = np.asarray(X, dtype=np.float64)
    scale = np.abs(features).max(axis=-1, initial=0.0)
    return scale, features / np.where(scale > 0, scale, 1.0)[..., None]


def _plain_norms(features: np.ndarray) -> np.ndarray:
    return np.sqrt(np.einsum("...i,...i->...", features, features))
