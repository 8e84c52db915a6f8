"""Privacy events: ``dp_accounting`` events as they are, plus what dp-accounting 0.6 lacks.

``PureDpEvent(epsilon)`` is any ε-DP release (objective and penalty perturbation,
Zhang, Khalili & Liu 2020 and 2018);
``ApproxDpEvent(epsilon, delta)`` any (ε, δ)-DP release stated by a theorem. Both are immutable
``attrs`` values like ``dp_accounting``'s own events, so they hash, compare and serialize alike.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import TypeVar

import attr
from dp_accounting import dp_event

from accountants.rounding import log1p_up, reciprocal_up
from accountants.validation import MAX_COUNT, check_delta, check_epsilon

__all__ = [
    "PureDpEvent",
    "ApproxDpEvent",
    "MAX_EVENT_DEPTH",
    "KNOWN_EVENT_CLASSES",
    "check_event",
    "check_event_depth",
    "check_events",
    "epsilon_delta_of",
    "flatten",
]

EventT = TypeVar("EventT", bound=dp_event.DpEvent)

#: The deepest nesting of events accepted anywhere (registration, ledger files, encoding): a
#: ``GaussianDpEvent`` has depth 1, ``SelfComposedDpEvent(GaussianDpEvent(1.0), 5)`` depth 2, and each
#: event holding events adds one. DP-SGD's ``SelfComposedDpEvent(PoissonSampledDpEvent(q,
#: GaussianDpEvent(σ)), T)`` has depth 3. Every accountant and the JSON encoding walk events
#: recursively; the limit keeps each walk far inside Python's recursion limit, so an event is refused
#: here, naming the limit, rather than written to a ledger that no reader could then load.
MAX_EVENT_DEPTH = 32


def _epsilon_validator(instance: object, attribute: attr.Attribute[float], value: float) -> None:
    check_epsilon(value, name=f"{type(instance).__name__}.{attribute.name}")


def _delta_validator(instance: object, attribute: attr.Attribute[float], value: float) -> None:
    check_delta(value, name=f"{type(instance).__name__}.{attribute.name}")


def _as_float(value: object) -> object:
    """Real numbers (numpy scalars too) become floats; anything else is left for the validator to
    refuse with the field's name."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    return value


@attr.define(frozen=True)
class PureDpEvent(dp_event.DpEvent):
    """A release that is ``epsilon``-differentially private (δ = 0), ε in nats."""

    epsilon: float = attr.field(converter=_as_float, validator=_epsilon_validator)


@attr.define(frozen=True)
class ApproxDpEvent(dp_event.DpEvent):
    """A release that is (``epsilon``, ``delta``)-differentially private."""

    epsilon: float = attr.field(converter=_as_float, validator=_epsilon_validator)
    delta: float = attr.field(converter=_as_float, validator=_delta_validator)


# ------------------------------------------------------------------------------------------------
# The one check of an event's parameters, made where an event enters an accountant.
#
# dp_accounting's events are attrs classes without validators: GaussianDpEvent(float("nan")) and
# RandomizedResponseDpEvent(1.5, 2) construct fine and would flow into the arithmetic as NaN or as
# a meaningless probability. Each field below has one rule; a field check returns the value as a
# plain float or int (numpy scalars are accepted and converted) or raises naming the field.
_FieldCheck = Callable[[object, str], object]


def _number(value: object, name: str, expected: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number ({expected}), got {value!r:.80}")
    number = float(value)
    if math.isnan(number):
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    return number


def _nonnegative(value: object, name: str) -> float:
    """≥ 0, infinity allowed (an infinite noise scale is a release that reveals nothing)."""
    number = _number(value, name, ">= 0")
    if number < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return number


def _nonnegative_finite(value: object, name: str) -> float:
    number = _nonnegative(value, name)
    if math.isinf(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def _finite(value: object, name: str) -> float:
    number = _number(value, name, "a finite number")
    if math.isinf(number):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return number


def _probability(value: object, name: str) -> float:
    number = _number(value, name, "in [0, 1]")
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return number


def _at_least_one(value: object, name: str) -> float:
    number = _number(value, name, "a finite number >= 1")
    if not 1.0 <= number < math.inf:
        raise ValueError(f"{name} must be a finite number >= 1, got {value!r}")
    return number


def _integer(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {minimum}, got {value!r:.80}")
    number = int(value)
    if not minimum <= number <= MAX_COUNT:
        bound = f"in [{minimum}, 10**300]" if number > MAX_COUNT else f">= {minimum}"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r:.60}")
    return number


def _count(value: object, name: str) -> int:
    return _integer(value, name, 0)


def _size(value: object, name: str) -> int:
    return _integer(value, name, 1)


def _step_counts(value: object, name: str) -> int | list[int]:
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{name} must be a non-negative integer or a non-empty list of them, got {value!r}")
        return [_count(item, f"{name}[{index}]") for index, item in enumerate(value)]
    return _count(value, name)


def _reals(check: _FieldCheck) -> _FieldCheck:
    def check_all(value: object, name: str) -> list[object]:
        if not isinstance(value, (list, tuple)) or not value:
            raise TypeError(f"{name} must be a non-empty list of numbers, got {value!r:.80}")
        return [check(item, f"{name}[{index}]") for index, item in enumerate(value)]

    return check_all


#: The parameters of every dp_accounting event (0.6) and of ours, with their rules. Nested events
#: (``event``, ``events``) are checked recursively by :func:`check_event`.
_FIELD_CHECKS: dict[type[dp_event.DpEvent], dict[str, _FieldCheck]] = {
    dp_event.GaussianDpEvent: {"noise_multiplier": _nonnegative},
    dp_event.LaplaceDpEvent: {"noise_multiplier": _nonnegative},
    dp_event.RandomizedResponseDpEvent: {"noise_parameter": _probability, "num_buckets": _size},
    dp_event.DiscreteLaplaceDpEvent: {"noise_parameter": _nonnegative, "sensitivity": _size},
    dp_event.SelfComposedDpEvent: {"count": _count},
    dp_event.ComposedDpEvent: {},
    dp_event.PoissonSampledDpEvent: {"sampling_probability": _probability},
    dp_event.SampledWithReplacementDpEvent: {"source_dataset_size": _size, "sample_size": _count},
    dp_event.SampledWithoutReplacementDpEvent: {"source_dataset_size": _size, "sample_size": _count},
    dp_event.SingleEpochTreeAggregationDpEvent: {"noise_multiplier": _nonnegative, "step_counts": _step_counts},
    dp_event.RepeatAndSelectDpEvent: {"mean": _at_least_one, "shape": _nonnegative},
    dp_event.MixtureOfGaussiansDpEvent: {
        "standard_deviation": _nonnegative,
        "sensitivities": _reals(_finite),
        "sampling_probs": _reals(_probability),
    },
    dp_event.ZCDpEvent: {"rho": _nonnegative, "xi": _nonnegative_finite},
    dp_event.TruncatedSubsampledGaussianDpEvent: {
        "dataset_size": _size,
        "sampling_probability": _probability,
        "truncated_batch_size": _count,
        "noise_multiplier": _nonnegative,
    },
    dp_event.NoOpDpEvent: {},
    dp_event.NonPrivateDpEvent: {},
    dp_event.UnsupportedDpEvent: {},
}

#: Every concrete event class whose parameters :func:`check_event` knows: the events a ledger can
#: hold. ``dp_accounting``'s abstract base ``DpEvent`` is not one of them.
KNOWN_EVENT_CLASSES: tuple[type[dp_event.DpEvent], ...] = (*_FIELD_CHECKS, PureDpEvent, ApproxDpEvent)


def check_event_depth(event: dp_event.DpEvent, where: str = "") -> int:
    """The nesting depth of ``event`` (1 for an event holding no event), computed without
    recursion; raise ``ValueError`` naming :data:`MAX_EVENT_DEPTH` if it is deeper.

    Only ``DpEvent`` values held in a field ``event`` or in the list ``events`` count (what
    ``dp_accounting``'s events nest); anything else is left to :func:`check_event`.
    """
    deepest = 0
    pending = [(event, 1)]
    while pending:
        current, depth = pending.pop()
        if depth > MAX_EVENT_DEPTH:
            context = f" (in {where})" if where else ""
            raise ValueError(
                f"event nesting is deeper than MAX_EVENT_DEPTH = {MAX_EVENT_DEPTH} (events inside events): "
                f"{type(event).__name__} is refused{context}; compose the inner events in one ComposedDpEvent "
                "or SelfComposedDpEvent instead of wrapping them one inside another"
            )
        deepest = max(deepest, depth)
        inner = getattr(current, "event", None)
        if isinstance(inner, dp_event.DpEvent):
            pending.append((inner, depth + 1))
        inners = getattr(current, "events", None)
        if isinstance(inners, (list, tuple)):
            pending.extend((item, depth + 1) for item in inners if isinstance(item, dp_event.DpEvent))
    return deepest


def check_event(event: EventT, where: str = "") -> EventT:
    """Return ``event`` if every parameter is valid (numpy scalars replaced by Python numbers:
    an equal event), else raise naming the event class and the parameter.

    The one check of an event's parameters: every accountant calls it where an event enters
    (``register``, ``register_many``, ``epsilon_if_registered``) and so does decoding
    (:func:`accountants.serialization.event_from_json`), so no NaN, negative noise or probability
    outside [0, 1] reaches the arithmetic. Nested events (``SelfComposedDpEvent``,
    ``ComposedDpEvent``, ``PoissonSampledDpEvent``, the sampled and repeated events) are checked
    recursively; the message then says where the bad event sits. Events nested deeper than
    :data:`MAX_EVENT_DEPTH` are refused before anything else. An event class nobody here knows
    (a user's own ``DpEvent`` subclass) is returned unchanged: the accountants refuse it as
    unsupported.

    Raises:
      TypeError: ``event`` is not a ``DpEvent``, or a parameter has the wrong type.
      ValueError: a parameter is out of range, e.g.
        ``RandomizedResponseDpEvent.noise_parameter must be in [0, 1], got 1.5``, or the nesting is
        deeper than :data:`MAX_EVENT_DEPTH`.
    """
    if isinstance(event, dp_event.DpEvent) and (hasattr(event, "event") or hasattr(event, "events")):
        check_event_depth(event, where)
    return _checked(event, where)


def _checked(event: EventT, where: str) -> EventT:
    """:func:`check_event` below its depth check (recursion bounded by MAX_EVENT_DEPTH)."""
    if not isinstance(event, dp_event.DpEvent):
        raise TypeError(f"{where or 'event'} must be a dp_accounting DpEvent, got {event!r:.100}")
    cls = type(event)
    if cls is dp_event.GaussianDpEvent or cls is dp_event.LaplaceDpEvent:  # the common case, fast
        noise = event.noise_multiplier
        if type(noise) is float and noise >= 0:  # False for NaN
            return event
    if cls in (PureDpEvent, ApproxDpEvent):  # validated on construction; re-checked if bypassed
        _check_stated(event, where)
        return event
    checks = _FIELD_CHECKS.get(cls)
    if checks is None:
        return event
    context = f" (in {where})" if where else ""
    changes: dict[str, object] = {}
    try:
        for field, check in checks.items():
            value = getattr(event, field)
            checked = check(value, f"{cls.__name__}.{field}")
            if type(checked) is not type(value) or (isinstance(checked, list) and checked != value):
                changes[field] = checked
    except (TypeError, ValueError) as error:
        raise type(error)(f"{error}{context}") from None

    def inner_where(field: str) -> str:
        return f"{cls.__name__}.{field}" + (f" in {where}" if where else "")

    if hasattr(event, "event"):
        inner = _checked(event.event, inner_where("event"))
        if inner is not event.event:
            changes["event"] = inner
    if isinstance(event, dp_event.ComposedDpEvent):
        if not isinstance(event.events, (list, tuple)):
            raise TypeError(f"ComposedDpEvent.events must be a list of DpEvents, got {event.events!r:.100}{context}")
        inners = [_checked(e, inner_where(f"events[{i}]")) for i, e in enumerate(event.events)]
        if any(new is not old for new, old in zip(inners, event.events, strict=True)):
            changes["events"] = inners
    _check_relations(event, context)
    return attr.evolve(event, **changes) if changes else event


def _check_stated(event: PureDpEvent | ApproxDpEvent, where: str) -> None:
    context = f" (in {where})" if where else ""
    name = type(event).__name__
    try:
        check_epsilon(event.epsilon, name=f"{name}.epsilon")
        if isinstance(event, ApproxDpEvent):
            check_delta(event.delta, name=f"{name}.delta")
    except (TypeError, ValueError) as error:
        raise type(error)(f"{error}{context}") from None


def _check_relations(event: dp_event.DpEvent, context: str) -> None:
    """Constraints between parameters of one event."""
    if isinstance(event, dp_event.SampledWithoutReplacementDpEvent) and event.sample_size > event.source_dataset_size:
        raise ValueError(
            f"SampledWithoutReplacementDpEvent.sample_size must be <= source_dataset_size "
            f"({event.source_dataset_size}), got {event.sample_size!r}{context}"
        )
    if isinstance(event, dp_event.MixtureOfGaussiansDpEvent):
        sensitivities, probabilities = list(event.sensitivities), list(event.sampling_probs)
        if len(sensitivities) != len(probabilities):
            raise ValueError(
                "MixtureOfGaussiansDpEvent.sensitivities and sampling_probs must have equal lengths, "
                f"got {len(sensitivities)} and {len(probabilities)}{context}"
            )
        if not math.isclose(math.fsum(probabilities), 1.0, rel_tol=1e-9):
            raise ValueError(
                f"MixtureOfGaussiansDpEvent.sampling_probs must sum to 1, got {math.fsum(probabilities)!r}{context}"
            )
    if (
        isinstance(event, dp_event.TruncatedSubsampledGaussianDpEvent)
        and event.truncated_batch_size > event.dataset_size
    ):
        raise ValueError(
            f"TruncatedSubsampledGaussianDpEvent.truncated_batch_size must be <= dataset_size "
            f"({event.dataset_size}), got {event.truncated_batch_size!r}{context}"
        )


def check_events(events: Iterable[dp_event.DpEvent]) -> list[dp_event.DpEvent]:
    """:func:`check_event` for each of ``events`` (the same list if nothing needed converting)."""
    events = list(events)
    checked = [check_event(event) for event in events]
    if all(new is old for new, old in zip(checked, events, strict=True)):
        return events
    return checked


def epsilon_delta_of(event: dp_event.DpEvent) -> tuple[float, float] | None:
    """The (ε, δ) guarantee of a single event that has one, else ``None``.

    Pure and approximate events state theirs; a Laplace release with noise multiplier b is
    (1/b, 0)-DP; k-ary randomized response with noise parameter p is (ln(1 + k(1-p)/p), 0)-DP under
    replace-one (dp_accounting's definition: with probability p output a uniform bucket). Both ε
    are rounded up (:mod:`accountants.rounding`), never to a float below the exact value.

    Raises TypeError / ValueError for an event with invalid parameters (see :func:`check_event`).
    """
    event = check_event(event)
    if isinstance(event, PureDpEvent):
        return event.epsilon, 0.0
    if isinstance(event, ApproxDpEvent):
        return event.epsilon, event.delta
    if isinstance(event, dp_event.LaplaceDpEvent):
        if event.noise_multiplier <= 0:
            return math.inf, 0.0
        return reciprocal_up(event.noise_multiplier), 0.0
    if isinstance(event, dp_event.RandomizedResponseDpEvent):
        p, k = event.noise_parameter, event.num_buckets
        if k == 1 or p >= 1:
            return 0.0, 0.0
        if p <= 0:
            return math.inf, 0.0
        return log1p_up(k * (1 - Fraction(p)) / Fraction(p)), 0.0
    return None


def flatten(event: dp_event.DpEvent, count: int = 1) -> list[tuple[dp_event.DpEvent, int]]:
    """The leaf releases of ``event`` with their repetition counts.

    ``SelfComposedDpEvent`` multiplies counts, ``ComposedDpEvent`` concatenates, ``NoOpDpEvent``
    vanishes; every other event (including ``PoissonSampledDpEvent``, whose inner event is not a
    separate release) is a leaf. Events nested deeper than :data:`MAX_EVENT_DEPTH` raise ``ValueError``.
    """
    if isinstance(event, dp_event.DpEvent):
        check_event_depth(event)
    return _flatten(event, count)


def _flatten(event: dp_event.DpEvent, count: int) -> list[tuple[dp_event.DpEvent, int]]:
    if isinstance(event, dp_event.NoOpDpEvent) or count == 0:
        return []
    if isinstance(event, dp_event.SelfComposedDpEvent):
        if isinstance(event.count, bool) or not isinstance(event.count, int) or event.count < 0:
            raise ValueError(f"SelfComposedDpEvent.count must be a non-negative integer, got {event.count!r}")
        if count * event.count > MAX_COUNT:
            raise ValueError(
                f"SelfComposedDpEvent: {count} repetitions of count {event.count} make more than 10**300 releases"
            )
        return _flatten(event.event, count * event.count)
    if isinstance(event, dp_event.ComposedDpEvent):
        return [leaf for inner in event.events for leaf in _flatten(inner, count)]
    if not isinstance(event, dp_event.DpEvent):
        raise TypeError(f"event must be a dp_accounting DpEvent, got {event!r}")
    return [(event, count)]
