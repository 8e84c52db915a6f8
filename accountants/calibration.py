"""Calibration: the smallest noise multiplier that meets a target (ε, δ) after ``count`` releases.

Bisection on log z with the accountant itself as the oracle; the returned multiplier is the upper
end of the final bracket, so re-accounting it never exceeds the target (never overshoots).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from dp_accounting import dp_event

from accountants.base import Accountant
from accountants.exact_gaussian import ExactGaussianAccountant
from accountants.validation import check_count, check_delta, check_positive

__all__ = ["calibrate_noise_multiplier", "MECHANISM_EVENTS"]

MECHANISM_EVENTS: dict[str, Callable[[float], dp_event.DpEvent]] = {
    "gaussian": dp_event.GaussianDpEvent,
    "laplace": dp_event.LaplaceDpEvent,
}


def calibrate_noise_multiplier(
    epsilon: float,
    delta: float,
    count: int = 1,
    accountant: str | Callable[[], Accountant[Any]] = ExactGaussianAccountant,
    mechanism: str = "gaussian",
    rtol: float = 1e-9,
) -> float:
    """Smallest noise multiplier z (to relative precision ``rtol``) such that ``count`` releases of
    the mechanism with multiplier z are (``epsilon``, ``delta``)-DP according to ``accountant``.

    Args:
      epsilon: target ε (> 0).
      delta: target δ in [0, 1).
      count: number of releases (≥ 1).
      accountant: a class or zero-argument factory of a fresh accountant, or the name of one in
        :data:`accountants.ACCOUNTANTS` (e.g. "exact_gaussian", "rdp", "pld").
      mechanism: "gaussian" or "laplace".
      rtol: relative width of the final bracket.

    Raises:
      TypeError: an argument of the wrong type (``accountant`` neither a name nor a factory).
      ValueError: bad arguments (an unknown accountant name), or the target is unreachable with
        this accountant (for example δ = 0 with Gaussian noise).
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    count = check_count(count)
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    rtol = check_positive(rtol, "rtol")
    if not isinstance(mechanism, str) or mechanism not in MECHANISM_EVENTS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISM_EVENTS)}, got {mechanism!r}")
    make_event = MECHANISM_EVENTS[mechanism]
    factory = _factory(accountant)

    def spent(z: float) -> float:
        return factory().register(make_event(z), count).get_epsilon(delta)

    low, high = 1.0, 1.0
    while spent(high) > epsilon:
        low, high = high, high * 4.0
        if high > 1e12:
            raise ValueError(
                f"no noise multiplier up to 1e12 reaches epsilon={epsilon} at delta={delta} "
                f"with {type(factory()).__name__}; the target is unreachable"
            )
    if low == high:
        while spent(low) <= epsilon and low > 1e-12:
            high, low = low, low / 4.0
    while high - low > rtol * high:
        middle = math.sqrt(low * high)
        if not low < middle < high:  # adjacent floats: no finer bracket exists (rtol below 1 ulp)
            break
        if spent(middle) <= epsilon:
            high = middle
        else:
            low = middle
    return high


def _factory(accountant: object) -> Callable[[], Accountant[Any]]:
    """A factory of fresh accountants from a registry name or a factory, checked once."""
    from accountants.best import ACCOUNTANTS  # best imports every accountant; so does the package

    if isinstance(accountant, str):
        if accountant not in ACCOUNTANTS:
            raise ValueError(f"accountant must be one of {sorted(ACCOUNTANTS)} or a factory, got {accountant!r}")
        return ACCOUNTANTS[accountant]
    if isinstance(accountant, Accountant) or not callable(accountant):
        raise TypeError(
            "accountant must be a zero-argument factory of a fresh accountant (a class such as "
            f"ExactGaussianAccountant) or a name in accountants.ACCOUNTANTS, got {accountant!r:.80}"
        )
    try:
        sample = accountant()
    except TypeError as error:
        raise TypeError(f"accountant must be callable with no arguments: {error}") from error
    if not isinstance(sample, Accountant):
        raise TypeError(f"accountant must make an accountants.Accountant, got {sample!r:.80}")
    factory: Callable[[], Accountant[Any]] = accountant
    return factory
