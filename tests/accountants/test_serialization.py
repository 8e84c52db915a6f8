import json

import pytest
from dp_accounting import dp_event
from hypothesis import given

from accountants import strategies as dps
from accountants.events import ApproxDpEvent, PureDpEvent
from accountants.serialization import event_from_json, event_to_json


@given(dps.events())
def test_every_event_kind_round_trips_exactly_through_json_text(event):
    assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event


def test_nested_and_sampled_events_round_trip():
    event = dp_event.ComposedDpEvent(
        [
            dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(0.1 + 0.2), 7),
            dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.1)),
            ApproxDpEvent(0.3, 1e-7),
            PureDpEvent(1 / 3),
            dp_event.NonPrivateDpEvent(),
        ]
    )
    decoded = event_from_json(json.loads(json.dumps(event_to_json(event))))
    assert decoded == event
    assert decoded.events[0].event.noise_multiplier == 0.1 + 0.2  # the exact float


def test_unknown_classes_are_refused():
    with pytest.raises(ValueError, match="unknown event class 'MysteryDpEvent'"):
        event_from_json({"type": "MysteryDpEvent"})
    with pytest.raises(TypeError, match="event must be a dp_accounting DpEvent"):
        event_to_json(object())
