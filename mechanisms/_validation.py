"""Read-only float64 parameter arrays and checks of sample shapes.

A constructor's parameters are checked by its declaration (:mod:`accountants.constraints`) before it
converts them here.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

Shape = tuple[int, ...]
#: The arrays every mechanism holds and returns: float64 (read-only where documented).
FloatArray = NDArray[np.float64]


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
