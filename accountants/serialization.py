"""Exact JSON encoding of privacy events.

Every ``dp_accounting`` event and every event of ours is an ``attrs`` value, so one generic encoder
serves them all: ``{"type": class name, field: value, ...}``, nested events encoded recursively.
Floats are written with ``repr`` (shortest round-trip form), so decoding gives back an equal event.
Events nested deeper than :data:`accountants.events.MAX_EVENT_DEPTH` are neither encoded nor decoded.
"""

from __future__ import annotations

import math
from typing import Any

import attr
from dp_accounting import dp_event

from accountants import events as _our_events

__all__ = ["event_to_json", "event_from_json", "EVENT_CLASSES"]

#: The event classes written and read, by name: the concrete events whose parameters
#: :func:`accountants.events.check_event` knows (not the abstract base ``DpEvent``).
EVENT_CLASSES: dict[str, type[dp_event.DpEvent]] = {cls.__name__: cls for cls in _our_events.KNOWN_EVENT_CLASSES}


def event_to_json(event: dp_event.DpEvent) -> dict[str, Any]:
    """Encode ``event`` as a JSON-ready mapping; raise for an event class we cannot decode."""
    cls = type(event)
    if EVENT_CLASSES.get(cls.__name__) is not cls:
        raise TypeError(f"event must be a dp_accounting DpEvent or one of accountants.events, got {event!r:.200}")
    _our_events.check_event_depth(event)
    return _encode_event(event)


def _encode_event(event: dp_event.DpEvent) -> dict[str, Any]:
    cls = type(event)
    if EVENT_CLASSES.get(cls.__name__) is not cls:
        raise TypeError(f"event must be a dp_accounting DpEvent or one of accountants.events, got {event!r:.200}")
    encoded: dict[str, Any] = {"type": cls.__name__}
    for field in attr.fields(cls):
        encoded[field.name] = _encode_value(getattr(event, field.name))
    return encoded


def event_from_json(data: object) -> dp_event.DpEvent:
    """Decode a mapping written by :func:`event_to_json`.

    The decoded event passes :func:`accountants.events.check_event`, so a ledger entry whose event
    has invalid parameters (NaN, a probability outside [0, 1], ...) is refused where it is read.

    Raises:
      ValueError: ``data`` is not an encoded event (not a mapping with a known ``type``, missing or
        unknown fields, a field of the wrong kind, events nested deeper than
        :data:`accountants.events.MAX_EVENT_DEPTH`), or the event's parameters are invalid.
    """
    return _decode_event(data, 1)


def _decode_event(data: object, depth: int) -> dp_event.DpEvent:
    if depth > _our_events.MAX_EVENT_DEPTH:
        limit = _our_events.MAX_EVENT_DEPTH
        raise ValueError(f"encoded events are nested deeper than MAX_EVENT_DEPTH = {limit} (events inside events)")
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ValueError(f"an encoded event must be a mapping with a 'type' name, got {data!r:.200}")
    name = data["type"]
    cls = EVENT_CLASSES.get(name)
    if cls is None:
        raise ValueError(f"unknown event class {name!r:.80} (not a concrete event); known: {sorted(EVENT_CLASSES)}")
    expected = {field.name for field in attr.fields(cls)}
    required = {field.name for field in attr.fields(cls) if field.default is attr.NOTHING}
    given = set(data) - {"type"}
    if not required <= given <= expected:
        problems = [f"missing {sorted(required - given)}"] if required - given else []
        problems += [f"unknown {sorted(given - expected)}"] if given - expected else []
        raise ValueError(f"an encoded {name} has fields {sorted(expected)}: {'; '.join(problems)}")
    fields = {key: _decode_value(value, f"{name}.{key}", depth) for key, value in data.items() if key != "type"}
    try:
        event = cls(**fields)
        return _our_events.check_event(event) if depth == 1 else event  # the outermost checks them all
    except (TypeError, ValueError) as error:
        raise ValueError(f"an encoded {name} is not valid: {error}") from error


def _encode_value(value: Any) -> Any:
    if isinstance(value, dp_event.DpEvent):
        return _encode_event(value)
    if isinstance(value, (list, tuple)):
        return [_encode_value(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    return value


def _decode_value(value: Any, name: str, depth: int, in_list: bool = False) -> Any:
    if isinstance(value, dict):
        if set(value) == {"float"}:
            text = value["float"]
            if text not in ("inf", "-inf", "nan"):  # what _encode_value writes
                raise ValueError(f"{name}: an encoded float must be 'inf', '-inf' or 'nan', got {text!r:.80}")
            return float(text)
        return _decode_event(value, depth + 1)
    if isinstance(value, list):
        if in_list:  # no event field holds lists of lists
            raise ValueError(f"{name}: a list inside a list is not an event field")
        return [_decode_value(item, f"{name}[{index}]", depth, True) for index, item in enumerate(value)]
    return value
