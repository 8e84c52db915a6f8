"""Argument checks shared by the accountants: every message names the argument and the expectation.

Each check takes any object (it validates arguments as callers passed them) and returns the value
as the type it checked for.
"""

from __future__ import annotations

import math
import numbers

#: The largest release count accepted anywhere: every composition formula here multiplies by a
#: count as a float, and an integer above ~1.8e308 has no float (OverflowError deep inside).
MAX_COUNT = 10**300


def check_delta(delta: object, name: str = "delta", allow_zero: bool = True) -> float:
    """Return ``delta`` as a float if it is a probability in [0, 1) (or (0, 1)), else raise."""
    value = _real(delta, name)
    low_ok = value >= 0 if allow_zero else value > 0
    if not (low_ok and value < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must be a probability in {interval}, got {delta!r}")
    return value


def check_epsilon(epsilon: object, name: str = "epsilon", allow_inf: bool = False) -> float:
    """Return ``epsilon`` as a float if it is a non-negative number, else raise."""
    value = _real(epsilon, name, allow_inf=allow_inf)
    if value < 0:
        raise ValueError(f"{name} must be >= 0 (nats), got {epsilon!r}")
    return value


def check_positive(value: object, name: str, allow_inf: bool = False) -> float:
    """Return ``value`` as a float if it is > 0, else raise."""
    number = _real(value, name, allow_inf=allow_inf)
    if number <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return number


def check_count(count: object, name: str = "count") -> int:
    """Return ``count`` as an int if it is a non-negative integer (at most :data:`MAX_COUNT`), else raise."""
    if isinstance(count, bool) or not isinstance(count, numbers.Integral):
        raise TypeError(f"{name} must be a non-negative integer, got {count!r:.60}")
    value = int(count)
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {count!r:.60}")
    if value > MAX_COUNT:
        raise ValueError(f"{name} must be at most 10**300, got {count!r:.60}")
    return value


def check_not_nan(value: float, what: str) -> float:
    """Return a computed ε or δ unless it is NaN: a NaN bound is a bug, never an answer."""
    if math.isnan(value):
        raise FloatingPointError(f"{what} came out NaN; refusing to report it (please report the ledger)")
    return value


def _real(value: object, name: str, allow_inf: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        raise ValueError(f"{name} must not be NaN")
    if math.isinf(number) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number
