"""Argument checks shared by the accountants: every message names the argument and the expectation."""

from __future__ import annotations

import math
import numbers


def check_delta(delta: float, name: str = "delta", allow_zero: bool = True) -> float:
    """Return ``delta`` as a float if it is a probability in [0, 1) (or (0, 1)), else raise."""
    value = _real(delta, name)
    low_ok = value >= 0 if allow_zero else value > 0
    if not (low_ok and value < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must be a probability in {interval}, got {delta!r}")
    return value


def check_epsilon(epsilon: float, name: str = "epsilon", allow_inf: bool = False) -> float:
    """Return ``epsilon`` as a float if it is a non-negative number, else raise."""
    value = _real(epsilon, name, allow_inf=allow_inf)
    if value < 0:
        raise ValueError(f"{name} must be >= 0 (nats), got {epsilon!r}")
    return value


def check_positive(value: float, name: str, allow_inf: bool = False) -> float:
    """Return ``value`` as a float if it is > 0, else raise."""
    number = _real(value, name, allow_inf=allow_inf)
    if number <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return number


def check_count(count: int, name: str = "count") -> int:
    """Return ``count`` if it is a non-negative integer, else raise."""
    if isinstance(count, bool) or not isinstance(count, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative integer, got {count!r}")
    if count < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {count!r}")
    return int(count)


def _real(value: float, name: str, allow_inf: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        raise ValueError(f"{name} must not be NaN")
    if math.isinf(number) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number
