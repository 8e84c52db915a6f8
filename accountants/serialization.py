"""Exact JSON encoding of privacy events.

Every ``dp_accounting`` event and every event of ours is an ``attrs`` value, so one generic encoder
serves them all: ``{"type": class name, field: value, ...}``, nested events encoded recursively.
Floats are written with ``repr`` (shortest round-trip form), so decoding gives back an equal event.
"""

from __future__ import annotations

import math
from typing import Any

import attr
from dp_accounting import dp_event

from accountants import events as _our_events

__all__ = ["event_to_json", "event_from_json", "EVENT_CLASSES"]

EVENT_CLASSES: dict[str, type[dp_event.DpEvent]] = {
    name: cls
    for module in (dp_event, _our_events)
    for name, cls in vars(module).items()
    if isinstance(cls, type) and issubclass(cls, dp_event.DpEvent) and attr.has(cls)
}


def event_to_json(event: dp_event.DpEvent) -> dict[str, Any]:
    """Encode ``event`` as a JSON-ready mapping; raise for an event class we cannot decode."""
    cls = type(event)
    if EVENT_CLASSES.get(cls.__name__) is not cls:
        raise TypeError(f"event must be a dp_accounting DpEvent or one of accountants.events, got {event!r}")
    encoded: dict[str, Any] = {"type": cls.__name__}
    for field in attr.fields(cls):
        encoded[field.name] = _encode_value(getattr(event, field.name))
    return encoded


def event_from_json(data: dict[str, Any]) -> dp_event.DpEvent:
    """Decode a mapping written by :func:`event_to_json`."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ValueError(f"an encoded event must be a mapping with a 'type' name, got {data!r}")
    name = data["type"]
    cls = EVENT_CLASSES.get(name)
    if cls is None:
        raise ValueError(f"unknown event class {name!r}; known: {sorted(EVENT_CLASSES)}")
    fields = {key: _decode_value(value) for key, value in data.items() if key != "type"}
    return cls(**fields)


def _encode_value(value: Any) -> Any:
    if isinstance(value, dp_event.DpEvent):
        return event_to_json(value)
    if isinstance(value, (list, tuple)):
        return [_encode_value(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    return value


def _decode_value(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"float"}:
            return float(value["float"])
        return event_from_json(value)
    if isinstance(value, list):
        return [_decode_value(item) for item in value]
    return value
