"""Checks on data handed to the solvers; every error names the argument, the value and the expectation.

The privacy analyses of all five seed papers assume labels in {-1, +1} and feature rows inside a ball
(‖x‖₂ ≤ 1 for seeds 000, 001 and 003). A row outside that ball voids the guarantee, so it is an error
unless the caller explicitly asks for clipping, and clipping is always reported.
"""

from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

import numpy as np

# Rows whose norm exceeds max_norm by at most this relative amount are accepted: x / ‖x‖ computed in
# floating point can land a few ulps above 1.
NORM_RTOL = 1e-9


class RowsClippedWarning(UserWarning):
    """Rows of X were scaled into the max_norm ball because the caller passed ``clip=True``."""


class CheckedData(NamedTuple):
    """Validated copy of (X, y) and the indices of rows that were clipped (empty unless clip=True)."""

    X: np.ndarray
    y: np.ndarray
    clipped_rows: np.ndarray


def check_dataset(X: object, y: object, max_norm: float | None = 1.0, clip: bool = False) -> CheckedData:
    """Validate a labelled data set and return it as float64 arrays.

    Args:
      X: feature matrix, shape (n_records, n_features), finite.
      y: labels, shape (n_records,), each exactly -1 or +1.
      max_norm: bound on every row's L2 norm assumed by the privacy analysis; ``None`` skips the check.
      clip: if True, rows with ‖x‖ > max_norm are scaled onto the sphere of radius max_norm, and a
        ``RowsClippedWarning`` names how many and which; if False such rows raise.

    Returns:
      ``CheckedData(X, y, clipped_rows)``; X and y are new float64 arrays when clipping happened.

    Raises:
      TypeError: X or y is not numeric.
      ValueError: wrong shapes, NaN or infinite values, labels other than ±1, or a row outside the
        ball when ``clip`` is False. The message names the offending row or index and value.
    """
    features = _as_float_array(X, "X")
    labels = _as_float_array(y, "y")
    if features.ndim != 2:
        raise ValueError(f"X must be a 2-D array (n_records, n_features), got shape {features.shape}")
    if features.shape[0] == 0 or features.shape[1] == 0:
        raise ValueError(f"X must have at least one record and one feature, got shape {features.shape}")
    if labels.ndim != 1:
        raise ValueError(f"y must be a 1-D array (n_records,), got shape {labels.shape}")
    if labels.shape[0] != features.shape[0]:
        raise ValueError(
            f"X and y must have the same number of records: X has {features.shape[0]} rows, "
            f"y has {labels.shape[0]} entries"
        )
    bad = ~np.isfinite(features)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"X must be finite: X[{row}, {col}] = {float(features[row, col])} "
            f"({int(bad.any(axis=1).sum())} row(s) affected)"
        )
    bad_labels = (labels != 1.0) & (labels != -1.0)
    if bad_labels.any():
        index = int(np.flatnonzero(bad_labels)[0])
        raise ValueError(
            f"y must contain only the labels -1 and +1: y[{index}] = {float(labels[index])} "
            f"({int(bad_labels.sum())} invalid label(s))"
        )
    clipped = np.empty(0, dtype=np.int64)
    if max_norm is not None:
        features, clipped = _check_row_norms(features, _positive(max_norm, "max_norm"), clip)
    return CheckedData(features, labels, clipped)


def check_n_agents(n_records: int, n_agents: object) -> int:
    """Return ``n_agents`` as an int if it is a positive integer not larger than ``n_records``."""
    if isinstance(n_agents, bool) or not isinstance(n_agents, numbers.Integral):
        raise TypeError(f"n_agents must be a positive integer, got {n_agents!r}")
    if n_agents < 1:
        raise ValueError(f"n_agents must be a positive integer, got {n_agents!r}")
    if n_agents > n_records:
        raise ValueError(
            f"n_agents={n_agents} exceeds the number of records ({n_records}): every agent needs at least one record"
        )
    return int(n_agents)


def check_random_state(seed: object, name: str = "seed") -> np.random.Generator:
    """A ``numpy.random.Generator`` from ``seed``, with the semantics of ``mechanisms.make_rng``.

    None draws the seed from OS entropy; an int or ``SeedSequence`` seeds PCG64 reproducibly (the
    same stream as ``numpy.random.default_rng(seed)``); a Generator is returned as it is. Kept
    here so that importing the data layer does not import ``dp_accounting``.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(
            f"{name} must be None, a non-negative int, a numpy.random.SeedSequence or a "
            f"numpy.random.Generator, got {seed!r}"
        )
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative int, got {seed!r}")
    return np.random.default_rng(int(seed))


def _check_row_norms(features: np.ndarray, max_norm: float, clip: bool) -> tuple[np.ndarray, np.ndarray]:
    norms = np.linalg.norm(features, axis=1)
    outside = np.flatnonzero(norms > max_norm * (1.0 + NORM_RTOL))
    if outside.size == 0:
        return features, outside
    first = int(outside[0])
    if not clip:
        raise ValueError(
            f"X row {first} has L2 norm {norms[first]:.6g} > max_norm={max_norm:g} "
            f"({outside.size} row(s) outside the ball); the privacy analysis assumes every "
            "‖x‖ ≤ max_norm: normalise the data or pass clip=True"
        )
    features = features.copy()
    features[outside] *= (max_norm / norms[outside])[:, None]
    warnings.warn(
        f"clipped {outside.size} row(s) of X into the ball of radius max_norm={max_norm:g} "
        f"(first rows: {outside[:10].tolist()}, largest norm {norms[outside].max():.6g})",
        RowsClippedWarning,
        stacklevel=3,
    )
    return features, outside


def _as_float_array(value: object, name: str) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(f"{name} must be a real numeric array, got dtype {array.dtype}")
    return array.astype(np.float64, copy=False)


def _positive(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive real number, got {value!r}")
    number = float(value)
    if not (np.isfinite(number) and number > 0):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")
    return number
