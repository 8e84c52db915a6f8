"""Calibration: the smallest noise multiplier that meets a target (ε, δ) after ``count`` releases.

Bisection on log z with the accountant itself as the oracle; the returned multiplier is the upper
end of the final bracket, so re-accounting it never exceeds the target (never overshoots).
"""

from __future__ import annotations

import math
from collections.abc import Callable

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
    accountant: Callable[[], Accountant] = ExactGaussianAccountant,
    mechanism: str = "gaussian",
    rtol: float = 1e-9,
) -> float:
    """Smallest noise multiplier z (to relative precision ``rtol``) such that ``count`` releases of
    the mechanism with multiplier z are (``epsilon``, ``delta``)-DP according to ``accountant``.

    Args:
      epsilon: target ε (> 0).
      delta: target δ in [0, 1).
      count: number of releases (≥ 1).
      accountant: a class or zero-argument factory of a fresh accountant.
      mechanism: "gaussian" or "laplace".
      rtol: relative width of the final bracket.

    Raises:
      ValueError: bad arguments, or the target is unreachable with this accountant (for example
        δ = 0 with Gaussian noise).
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    count = check_count(count)
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    rtol = check_positive(rtol, "rtol")
    if mechanism not in MECHANISM_EVENTS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISM_EVENTS)}, got {mechanism!r}")
    make_event = MECHANISM_EVENTS[mechanism]

    def spent(z: float) -> float:
        return accountant().register(make_event(z), count).get_epsilon(delta)

    low, high = 1.0, 1.0
    while spent(high) > epsilon:
        low, high = high, high * 4.0
        if high > 1e12:
            raise ValueError(
                f"no noise multiplier up to 1e12 reaches epsilon={epsilon} at delta={delta} "
                f"with {type(accountant()).__name__}; the target is unreachable"
            )
    if low == high:
        while spent(low) <= epsilon and low > 1e-12:
            high, low = low, low / 4.0
    while high - low > rtol * high:
        middle = math.sqrt(low * high)
        if spent(middle) <= epsilon:
            high = middle
        else:
            low = middle
    return high
