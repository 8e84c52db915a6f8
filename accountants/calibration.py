"""Calibration: the smallest noise multiplier that meets a target (ε, δ) after ``count`` releases.

A release may be computed on a Poisson sample of the records, each kept independently with
probability ``sampling_rate`` (the steps of DP-SGD, Abadi et al. 2016, Sec. 3.1; dp-accounting's
``PoissonSampledDpEvent``). A bracketed root search on log z with the accountant itself as the
oracle; the returned multiplier is the upper end of the final bracket, so re-accounting it never
exceeds the target (never overshoots).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from dp_accounting import dp_event

from accountants.base import Accountant
from accountants.errors import UnsupportedEventError
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
    sampling_rate: float = 1.0,
) -> float:
    """Smallest noise multiplier z (to relative precision ``rtol``) such that ``count`` releases of
    the mechanism with multiplier z are (``epsilon``, ``delta``)-DP according to ``accountant``.

    The answer z is an upper bound on the least such multiplier z*, rounded up: re-accounting z
    with ``accountant`` always gives at most ``epsilon``, and z* ≤ z ≤ z* / (1 − ``rtol``) where
    the accountant's ε decreases with z (the final bracket [low, z] has low failing the target).

    Args:
      epsilon: target ε (> 0).
      delta: target δ in [0, 1).
      count: number of releases (≥ 1), e.g. the steps of a training run.
      accountant: a class or zero-argument factory of a fresh accountant, or the name of one in
        :data:`accountants.ACCOUNTANTS` (e.g. "exact_gaussian", "rdp", "pld"). With
        ``sampling_rate`` below 1 it must bound Poisson-sampled releases ("rdp" or "pld"; the
        default ``ExactGaussianAccountant`` cannot).
      mechanism: "gaussian" or "laplace".
      rtol: relative width of the final bracket (> 0).
      sampling_rate: the probability q in (0, 1] with which each record is in a release's sample,
        independently (Poisson sampling, as dp-accounting's ``PoissonSampledDpEvent``); 1 is no
        sampling: every release sees every record.

    Raises:
      TypeError: an argument of the wrong type (``accountant`` neither a name nor a factory).
      ValueError: bad arguments (an unknown accountant name, a sampling rate outside (0, 1]), an
        accountant that cannot bound these releases (an :class:`accountants.UnsupportedEventError`),
        or the target is unreachable with this accountant (for example δ = 0 with Gaussian noise).
    """
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    count = check_count(count)
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    rtol = check_positive(rtol, "rtol")
    if not isinstance(mechanism, str) or mechanism not in MECHANISM_EVENTS:
        raise ValueError(f"mechanism must be one of {sorted(MECHANISM_EVENTS)}, got {mechanism!r}")
    sampling_rate = _check_sampling_rate(sampling_rate)
    make_release = MECHANISM_EVENTS[mechanism]
    factory = _factory(accountant)

    def make_event(z: float) -> dp_event.DpEvent:
        release = make_release(z)
        return release if sampling_rate == 1.0 else dp_event.PoissonSampledDpEvent(sampling_rate, release)

    try:
        factory().check_registration(make_event(1.0), count)
    except UnsupportedEventError as error:
        hint = "name an accountant that bounds these releases (accountant='rdp' or 'pld' bound Poisson-sampled ones)"
        reason = f"{error.reason}; {hint}" if error.reason else hint
        raise UnsupportedEventError(error.accountant, error.event, reason) from error

    def spent(z: float) -> float:
        return factory().register(make_event(z), count).get_epsilon(delta)

    def unreachable() -> ValueError:
        return ValueError(
            f"no noise multiplier up to 1e12 reaches epsilon={epsilon} at delta={delta} "
            f"with {type(factory()).__name__}; the target is unreachable"
        )

    return _smallest_passing(spent, epsilon, rtol, unreachable)


def _smallest_passing(
    spent: Callable[[float], float], epsilon: float, rtol: float, unreachable: Callable[[], ValueError]
) -> float:
    """The upper end z of a bracket [low, z] with ``spent(low) > epsilon >= spent(z)`` and
    z − low ≤ ``rtol`` z. Powers of 4 from 1 find a bracket; each step then probes a point inside
    it and keeps the part that still straddles the target, so the invariant holds whatever the
    probe. The probes are the Illinois variant of regula falsi on log(ε / ``epsilon``) against
    log z (Dowell & Jarratt 1971; nearly linear for Gaussian noise), kept at least rtol z / 2
    inside the bracket so that one probe past the root closes it, and a bisection after two
    steps in a row that did not halve the bracket."""
    low = high = 1.0
    spent_high = spent(high)
    spent_low = spent_high
    while spent_high > epsilon:
        low, spent_low = high, spent_high
        high *= 4.0
        if high > 1e12:
            raise unreachable()
        spent_high = spent(high)
    while spent_low <= epsilon and low > 1e-12:
        high, spent_high = low, spent_low
        low /= 4.0
        spent_low = spent(low)
    # log(ε / target) at each end: > 0 at low, <= 0 at high (±∞ where an ε is infinite or 0).
    above, below = _log_ratio(spent_low, epsilon), _log_ratio(spent_high, epsilon)
    moved, stalls = 0, 0  # which end the last step moved (+1 high, -1 low); steps without halving
    while high - low > rtol * high:
        width = high - low
        middle = math.sqrt(low * high)
        if stalls < 2 and math.isfinite(above) and math.isfinite(below):
            log_low, log_high = math.log(low), math.log(high)
            estimate = math.exp(log_high + below * (log_high - log_low) / (above - below))
            estimate = min(max(estimate, low + rtol * high / 2), high - rtol * high / 2)
            middle = estimate if low < estimate < high else middle  # the margin can be below 1 ulp
        else:
            stalls = 0
        if not low < middle < high:  # adjacent floats: no finer bracket exists (rtol below 1 ulp)
            break
        value = spent(middle)
        if value <= epsilon:
            high, below = middle, _log_ratio(value, epsilon)
            above = above / 2 if moved == 1 else above  # the low end kept twice: halve its weight
            moved = 1
        else:
            low, above = middle, _log_ratio(value, epsilon)
            below = below / 2 if moved == -1 else below
            moved = -1
        stalls = stalls + 1 if high - low > width / 2 else 0
    return high


def _log_ratio(value: float, target: float) -> float:
    """log(``value`` / ``target``) for ε values in [0, ∞] and a target > 0 (−∞ at 0, ∞ at ∞)."""
    if value == 0.0:
        return -math.inf
    return math.inf if value == math.inf else math.log(value / target)


def _check_sampling_rate(sampling_rate: object) -> float:
    """``sampling_rate`` as a float if it is a probability in (0, 1], else an error naming it."""
    rate = check_positive(sampling_rate, "sampling_rate")
    if rate > 1.0:
        raise ValueError(f"sampling_rate must be a probability in (0, 1], got {sampling_rate!r}")
    return rate


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
