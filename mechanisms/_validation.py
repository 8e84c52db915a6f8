"""Argument checks for array-valued mechanism parameters and sample shapes.

Scalars go through :mod:`accountants.validation`, so a mechanism's messages read like the
accountants' ones: they name the argument, the offending value and what was expected.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from accountants.validation import check_positive

Shape = tuple[int, ...]
#: The arrays every mechanism holds and returns: float64 (read-only where documented).
FloatArray = NDArray[np.float64]


def positive_array(value: ArrayLike, name: str) -> FloatArray:
    """``value`` as a read-only float64 array (0-d for a scalar) if every entry is finite and > 0.

    Raises:
      TypeError: ``value`` is not real-valued (bool, complex, strings, objects).
      ValueError: empty, or an entry is NaN, infinite or <= 0.
    """
    # int, float and complex spelt out because typeshed does not register them as numbers.Number.
    if isinstance(value, (int, float, complex, numbers.Number)):
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


def readonly(values: ArrayLike) -> FloatArray:
    """``values`` as a float64 array (0-d for a scalar) that cannot be written to."""
    array = np.array(values, dtype=np.float64)
    array.setflags(write=False)
    return array


def is_integer(value: object) -> bool:
    """Whether ``value`` is an integer other than a bool: an ``int`` or any other ``numbers.Integral``
    (numpy integers). A plain bool, not a type guard: numpy integers pass but are not ``int``."""
    return not isinstance(value, bool) and isinstance(value, numbers.Integral)


def as_shape(shape: int | tuple[int, ...], name: str = "shape") -> Shape:
    """``shape`` as a tuple of non-negative ints (an int n means ``(n,)``)."""
    items = (shape,) if isinstance(shape, (int, numbers.Integral)) else shape
    if not isinstance(items, (tuple, list)) or any(not is_integer(n) for n in items):
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


def scalar_or_array(array: FloatArray) -> float | FloatArray:
    """A Python float for a 0-d array, else the (read-only) array itself."""
    return float(array) if array.ndim == 0 else array
