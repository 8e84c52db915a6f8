"""Argument checks for array-valued mechanism parameters and sample shapes.

Scalars go through :mod:`accountants.validation`, so a mechanism's messages read like the
accountants' ones: they name the argument, the offending value and what was expected.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from accountants.validation import check_positive

Shape = tuple[int, ...]


def positive_array(value: ArrayLike, name: str) -> np.ndarray:
    """``value`` as a read-only float64 array (0-d for a scalar) if every entry is finite and > 0.

    Raises:
      TypeError: ``value`` is not real-valued (bool, complex, strings, objects).
      ValueError: empty, or an entry is NaN, infinite or <= 0.
    """
    if isinstance(value, numbers.Number):
        return readonly(check_positive(value, name))
    array = np.asarray(value)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number or an array of real numbers, got {value!r}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty, got an array of shape {array.shape}")
    array = readonly(array)
    bad = ~(np.isfinite(array) & (array > 0))
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name} must be finite and > 0 everywhere, got {array[index].item()!r} at index {index}")
    return array


def readonly(values: ArrayLike) -> np.ndarray:
    """``values`` as a float64 array (0-d for a scalar) that cannot be written to."""
    array = np.array(values, dtype=np.float64)
    array.setflags(write=False)
    return array


def as_shape(shape: int | tuple[int, ...], name: str = "shape") -> Shape:
    """``shape`` as a tuple of non-negative ints (an int n means ``(n,)``)."""
    items = (shape,) if isinstance(shape, numbers.Integral) else shape
    if not isinstance(items, (tuple, list)) or any(
        isinstance(n, bool) or not isinstance(n, numbers.Integral) for n in items
    ):
        raise TypeError(f"{name} must be an int or a tuple of ints, got {shape!r}")
    if any(n < 0 for n in items):
        raise ValueError(f"{name} must not have negative entries, got {shape!r}")
    return tuple(int(n) for n in items)


def check_broadcast(parameter_shape: Shape, shape: Shape) -> Shape:
    """``shape`` if parameters of ``parameter_shape`` broadcast to it by numpy's rules without
    enlarging it, else raise ``ValueError``."""
    try:
        fits = np.broadcast_shapes(parameter_shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"parameters of shape {parameter_shape} do not broadcast to the sample shape {shape}")
    return shape


def scalar_or_array(array: np.ndarray) -> float | np.ndarray:
    """A Python float for a 0-d array, else the (read-only) array itself."""
    return float(array) if array.ndim == 0 else array
