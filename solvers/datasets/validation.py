"""Checks on data handed to the solvers; every error names the argument, the value and the expectation.

The privacy analyses of all five papers assume labels in {-1, +1} and feature rows inside a ball
(‖x‖₂ ≤ 1 for Huang et al. 2020, Zhang, Khalili & Liu 2018 and 2020 and Hu et al. 2019; a public bound
x_max for Wang et al. 2020). A row outside that ball
voids the guarantee, so it is an error unless the caller explicitly asks for clipping, and clipping
is always reported.

:func:`check_records` is the one check of labelled records, whatever route they enter by:
``check_dataset`` (raw (X, y)), ``HorizontalPartition`` and ``VerticalPartition`` (their
constructors, so hand-built partitions are checked too) and the problems built on them
(``HorizontalProblem``, ``DecentralizedProblem`` and PDML's problem, ``VerticalProblem``). Row norms
depend on the solver (each family's analysis assumes its own bound), so the solvers check them
before their first release with :func:`first_row_outside`, which treats a NaN norm as outside.
"""

from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

import numpy as np

from accountants.constraints import Positive

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
    features = as_float_array(X, "X")
    labels = as_float_array(y, "y")
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
    check_records(features, labels)
    clipped = np.empty(0, dtype=np.int64)
    if max_norm is not None:
        Positive().check(max_norm, "max_norm")
        features, clipped = _check_row_norms(features, float(max_norm), clip)
    return CheckedData(features, labels, clipped)


def check_records(
    X: np.ndarray,
    y: np.ndarray,
    *,
    record_mask: np.ndarray | None = None,
    column_mask: np.ndarray | None = None,
    X_name: str = "X",
    y_name: str = "y",
    axes: tuple[str, ...] | None = None,
) -> None:
    """The check of labelled records shared by every route into the solvers (module docstring).

    Args:
      X: float features (..., n_features): each vector along the last axis is a row (a record, or
        a party's block of one sample's features).
      y: float labels whose shape is a suffix of ``X.shape[:-1]`` (one label per record; a vertical
        partition's (N,) labels are shared by its (M, N, d) blocks).
      record_mask: bool, shape of ``y``: True for a real record, False for padding (default all real).
      column_mask: bool, ``X.shape[:-2] + X.shape[-1:]``: False for a padded column (vertical blocks).
      X_name, y_name: the arguments' names in the messages; axes: names of X's leading axes (e.g.
        ("agent", "slot")), added to the messages.

    Raises:
      ValueError: a NaN or infinite value in X or y; a real record's label other than -1 or +1
        exactly (0/1 labels silently drop records from the objective, others scale the gradient
        past the sensitivity the privacy analysis assumes); a padded slot or column that is not 0
        (it would enter the objective). The message names the argument, the index and the value.
    """
    bad = ~np.isfinite(X)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{X_name} must be finite: {X_name}[{_index(index)}] = {float(X[index])} "
            f"({_where(index, axes)}{int(bad.any(axis=-1).sum())} row(s) affected)"
        )
    real = np.ones(y.shape, dtype=bool) if record_mask is None else record_mask
    bad_labels = real & (y != 1.0) & (y != -1.0)
    if bad_labels.any():
        index = tuple(int(i) for i in np.argwhere(bad_labels)[0])
        raise ValueError(
            f"{y_name} must contain only the labels -1 and +1: {y_name}[{_index(index)}] = {float(y[index])} "
            f"({_where(index, axes)}{int(bad_labels.sum())} invalid label(s))"
        )
    if record_mask is not None:
        padded_y = ~record_mask & (y != 0.0)
        padded_X = ~record_mask & np.any(X != 0.0, axis=-1)
        for name, wrong, values in ((y_name, padded_y, y), (X_name, padded_X, None)):
            if wrong.any():
                index = tuple(int(i) for i in np.argwhere(wrong)[0])
                shown = float(values[index]) if values is not None else f"row of L2 norm {np.linalg.norm(X[index]):.6g}"
                raise ValueError(
                    f"{name}[{_index(index)}] = {shown} is padding (the mask marks it as no record) but not 0: "
                    f"padded slots must hold x = 0 and y = 0, or they enter the objective "
                    f"({_where(index, axes)}{int(wrong.sum())} padded slot(s) affected)"
                )
    if column_mask is not None:
        wrong_columns = ~column_mask & np.any(X != 0.0, axis=-2)
        if wrong_columns.any():
            *lead, column = (int(i) for i in np.argwhere(wrong_columns)[0])
            raise ValueError(
                f"{X_name}[{_index((*lead, slice(None), column))}] is a padded column (the mask marks it as "
                "no feature) but not 0: padded columns must be 0, or they enter the objective"
            )


def first_row_outside(norms: np.ndarray, max_norm: float) -> tuple[int, ...] | None:
    """Index of the first row norm outside the ball of radius ``max_norm`` (with the ``NORM_RTOL``
    slack), or None. A NaN norm counts as outside: ``NaN > 1`` is False, and a check written that way
    lets a NaN row through."""
    outside = ~(norms <= max_norm * (1.0 + NORM_RTOL))
    if not outside.any():
        return None
    return tuple(int(i) for i in np.argwhere(outside)[0])


def _index(index: tuple) -> str:
    return ", ".join(":" if isinstance(i, slice) else str(i) for i in index)


def _where(index: tuple[int, ...], axes: tuple[str, ...] | None) -> str:
    if not axes:
        return ""
    return ", ".join(f"{axis} {i}" for axis, i in zip(axes, index, strict=False)) + "; "


def check_n_agents(n_records: int, n_agents: object) -> int:
    """Return ``n_agents`` as an int if it is a positive integer not larger than ``n_records``."""
    if isinstance(n_agents, bool) or not isinstance(n_agents, numbers.Integral):
        raise TypeError(f"n_agents must be a positive integer, got {n_agents!r}")
    if int(n_agents) < 1:
        raise ValueError(f"n_agents must be a positive integer, got {n_agents!r}")
    if int(n_agents) > n_records:
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
    if first_row_outside(norms, max_norm) is None:
        return features, np.empty(0, dtype=np.int64)
    outside = np.flatnonzero(~(norms <= max_norm * (1.0 + NORM_RTOL)))
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


def as_float_array(value: object, name: str) -> np.ndarray:
    """``value`` as a float64 array, refusing booleans and non-numeric dtypes with an error naming ``name``."""
    array = np.asarray(value)
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(f"{name} must be a real numeric array, got dtype {array.dtype}")
    return array.astype(np.float64, copy=False)
