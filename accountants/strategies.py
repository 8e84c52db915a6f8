"""Hypothesis strategies for privacy events and ledgers, for property-based test suites.

from hypothesis import given
from accountants import strategies as dps

@given(dps.ledgers(kinds=("gaussian",)))
def test_my_property(ledger): ...
"""

from __future__ import annotations

from dp_accounting import dp_event
from hypothesis import strategies as st

from accountants.events import ApproxDpEvent, PureDpEvent
from accountants.ledger import Ledger, LedgerEntry

__all__ = [
    "noise_multipliers",
    "gaussian_events",
    "laplace_events",
    "pure_events",
    "approx_events",
    "randomized_response_events",
    "events",
    "participants",
    "ledger_entries",
    "ledgers",
]


def noise_multipliers(min_value: float = 0.5, max_value: float = 100.0) -> st.SearchStrategy[float]:
    return st.floats(min_value=min_value, max_value=max_value, allow_nan=False, allow_infinity=False)


def gaussian_events(min_value: float = 0.5, max_value: float = 100.0):
    return noise_multipliers(min_value, max_value).map(dp_event.GaussianDpEvent)


def laplace_events(min_value: float = 0.5, max_value: float = 100.0):
    return noise_multipliers(min_value, max_value).map(dp_event.LaplaceDpEvent)


def pure_events(max_epsilon: float = 2.0):
    return st.floats(min_value=1e-4, max_value=max_epsilon).map(PureDpEvent)


def approx_events(max_epsilon: float = 2.0, max_delta: float = 1e-6):
    return st.builds(
        ApproxDpEvent,
        st.floats(min_value=1e-4, max_value=max_epsilon),
        st.floats(min_value=0.0, max_value=max_delta),
    )


def randomized_response_events():
    return st.builds(
        dp_event.RandomizedResponseDpEvent,
        st.floats(min_value=0.05, max_value=0.95),
        st.integers(min_value=2, max_value=10),
    )


_KINDS = {
    "gaussian": gaussian_events,
    "laplace": laplace_events,
    "pure": pure_events,
    "approx": approx_events,
    "randomized_response": randomized_response_events,
}


def events(kinds: tuple[str, ...] = ("gaussian", "laplace", "pure", "approx", "randomized_response")):
    """Single-release events of the given kinds."""
    unknown = set(kinds) - set(_KINDS)
    if unknown:
        raise ValueError(f"unknown event kinds {sorted(unknown)}; known: {sorted(_KINDS)}")
    return st.one_of([_KINDS[kind]() for kind in kinds])


def participants(count: int = 3):
    """Participant ids: small integers and their string names."""
    return st.sampled_from([*range(count), *(f"agent-{i}" for i in range(count))])


def ledger_entries(kinds=("gaussian",), max_count: int = 20, participant_ids=None):
    return st.builds(
        LedgerEntry,
        participant=participant_ids if participant_ids is not None else participants(),
        event=events(kinds),
        count=st.integers(min_value=1, max_value=max_count),
        iteration=st.one_of(st.none(), st.integers(min_value=0, max_value=10_000)),
    )


def ledgers(kinds=("gaussian",), min_size: int = 0, max_size: int = 12, max_count: int = 20, participant_ids=None):
    return st.lists(ledger_entries(kinds, max_count, participant_ids), min_size=min_size, max_size=max_size).map(Ledger)
