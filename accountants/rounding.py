"""Directed rounding of published bounds: the float next to a safe/unsafe boundary.

A bound is published only after a check that is itself an upper bound (an evaluation with a
proven error bound, rounded outward). :func:`tightest` searches the floats for the last one that
passes such a check, so the result is safe whatever the estimate it starts from.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from fractions import Fraction

__all__ = ["ordinal", "from_ordinal", "tightest", "float_up", "reciprocal_up", "log1p_up"]

_U = 2.0**-53  # unit roundoff of binary64


def ordinal(x: float) -> int:
    """The position of a non-negative float among the floats (monotone, adjacent floats differ by 1)."""
    position: int = struct.unpack("<q", struct.pack("<d", x))[0]
    return position


def from_ordinal(n: int) -> float:
    """The float at position ``n`` (inverse of :func:`ordinal`)."""
    x: float = struct.unpack("<d", struct.pack("<q", n))[0]
    return x


def tightest(safe: Callable[[float], bool], x: float, safe_end: float, unsafe_end: float) -> float:
    """The float next to the boundary between ``unsafe_end`` and ``safe_end`` (where ``safe`` holds),
    searched from the estimate x: steps of 1, 2, 4, … ulps away from x until the verdict flips, then
    bisection over floats (at most 2 · 64 checks). The result is always a checked safe point or
    ``safe_end``, so it is safe whatever the estimate was."""
    origin, good_end, bad_end = ordinal(x), ordinal(safe_end), ordinal(unsafe_end)
    if safe(x):
        good, bad, limit = origin, bad_end, bad_end
    else:
        good, bad, limit = good_end, origin, good_end
    toward = 1 if limit > origin else -1
    step = 1
    while True:
        candidate = origin + toward * step
        if toward * (candidate - limit) >= 0:
            break
        if safe(from_ordinal(candidate)):
            good = candidate
            if limit == good_end:
                break
        else:
            bad = candidate
            if limit == bad_end:
                break
        step *= 2
    while abs(good - bad) > 1:
        middle = (good + bad) // 2
        if safe(from_ordinal(middle)):
            good = middle
        else:
            bad = middle
    return from_ordinal(good)


def float_up(value: Fraction) -> float:
    """The least float >= the exact rational ``value`` (∞ beyond the float range)."""
    try:
        nearest = float(value)
    except OverflowError:
        return math.inf
    if math.isfinite(nearest) and Fraction(nearest) < value:
        return math.nextafter(nearest, math.inf)
    return nearest


def reciprocal_up(x: float) -> float:
    """The least float >= 1/x for x > 0 (∞ if 1/x overflows, 0 for x = ∞): e.g. the ε = 1/b of a
    Laplace release, which rounding to nearest can put an ulp below the truth."""
    if math.isinf(x):
        return 0.0
    return float_up(1 / Fraction(x))


def log1p_up(y: Fraction) -> float:
    """A float >= log(1 + y) for an exact rational y >= 0: log1p of the least float >= y (the
    logarithm increases), stepped up past the error of the platform's log1p (a few ulps at most
    for a correctly implemented libm; 4 units of 2^-53 relative and one float are allowed)."""
    upper = float_up(y)
    if upper == 0 or math.isinf(upper):
        return upper
    return math.nextafter(math.log1p(upper) * (1.0 + 4 * _U), math.inf)
