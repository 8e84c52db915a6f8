"""Privacy events: ``dp_accounting`` events as they are, plus what dp-accounting 0.6 lacks.

``PureDpEvent(epsilon)`` is any ε-DP release (objective and penalty perturbation, seeds 001/003);
``ApproxDpEvent(epsilon, delta)`` any (ε, δ)-DP release stated by a theorem. Both are immutable
``attrs`` values like ``dp_accounting``'s own events, so they hash, compare and serialize alike.
"""

from __future__ import annotations

import math

import attr
from dp_accounting import dp_event

from accountants.validation import check_delta, check_epsilon

__all__ = ["PureDpEvent", "ApproxDpEvent", "epsilon_delta_of", "flatten"]


def _epsilon_validator(instance, attribute, value) -> None:
    check_epsilon(value, name=f"{type(instance).__name__}.{attribute.name}")


def _delta_validator(instance, attribute, value) -> None:
    check_delta(value, name=f"{type(instance).__name__}.{attribute.name}")


@attr.define(frozen=True)
class PureDpEvent(dp_event.DpEvent):
    """A release that is ``epsilon``-differentially private (δ = 0), ε in nats."""

    epsilon: float = attr.field(converter=float, validator=_epsilon_validator)


@attr.define(frozen=True)
class ApproxDpEvent(dp_event.DpEvent):
    """A release that is (``epsilon``, ``delta``)-differentially private."""

    epsilon: float = attr.field(converter=float, validator=_epsilon_validator)
    delta: float = attr.field(converter=float, validator=_delta_validator)


def epsilon_delta_of(event: dp_event.DpEvent) -> tuple[float, float] | None:
    """The (ε, δ) guarantee of a single event that has one, else ``None``.

    Pure and approximate events state theirs; a Laplace release with noise multiplier b is
    (1/b, 0)-DP; k-ary randomized response with noise parameter p is (ln(1 + k(1-p)/p), 0)-DP under
    replace-one (dp_accounting's definition: with probability p output a uniform bucket).
    """
    if isinstance(event, PureDpEvent):
        return event.epsilon, 0.0
    if isinstance(event, ApproxDpEvent):
        return event.epsilon, event.delta
    if isinstance(event, dp_event.LaplaceDpEvent):
        if event.noise_multiplier <= 0:
            return math.inf, 0.0
        return 1.0 / event.noise_multiplier, 0.0
    if isinstance(event, dp_event.RandomizedResponseDpEvent):
        p, k = event.noise_parameter, event.num_buckets
        if k == 1 or p >= 1:
            return 0.0, 0.0
        if p <= 0:
            return math.inf, 0.0
        return math.log1p(k * (1.0 - p) / p), 0.0
    return None


def flatten(event: dp_event.DpEvent, count: int = 1) -> list[tuple[dp_event.DpEvent, int]]:
    """The leaf releases of ``event`` with their repetition counts.

    ``SelfComposedDpEvent`` multiplies counts, ``ComposedDpEvent`` concatenates, ``NoOpDpEvent``
    vanishes; every other event (including ``PoissonSampledDpEvent``, whose inner event is not a
    separate release) is a leaf.
    """
    if isinstance(event, dp_event.NoOpDpEvent) or count == 0:
        return []
    if isinstance(event, dp_event.SelfComposedDpEvent):
        if isinstance(event.count, bool) or not isinstance(event.count, int) or event.count < 0:
            raise ValueError(f"SelfComposedDpEvent.count must be a non-negative integer, got {event.count!r}")
        return flatten(event.event, count * event.count)
    if isinstance(event, dp_event.ComposedDpEvent):
        return [leaf for inner in event.events for leaf in flatten(inner, count)]
    if not isinstance(event, dp_event.DpEvent):
        raise TypeError(f"event must be a dp_accounting DpEvent, got {event!r}")
    return [(event, count)]
