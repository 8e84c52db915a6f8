"""Hypothesis strategies for privacy events and ledgers, for property-based test suites.

from hypothesis import given
from accountants import strategies as dps

@given(dps.ledgers(kinds=("gaussian",)))
def test_my_property(ledger): ...
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

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
    "poisson_sampled_events",
    "self_composed_events",
    "composed_events",
    "participants",
    "ledger_entries",
    "ledgers",
]


def noise_multipliers(min_value: float = 0.5, max_value: float = 100.0) -> st.SearchStrategy[float]:
    return st.floats(min_value=min_value, max_value=max_value, allow_nan=False, allow_infinity=False)


def gaussian_events(min_value: float = 0.5, max_value: float = 100.0) -> st.SearchStrategy[dp_event.GaussianDpEvent]:
    return noise_multipliers(min_value, max_value).map(dp_event.GaussianDpEvent)


def laplace_events(min_value: float = 0.5, max_value: float = 100.0) -> st.SearchStrategy[dp_event.LaplaceDpEvent]:
    return noise_multipliers(min_value, max_value).map(dp_event.LaplaceDpEvent)


def pure_events(max_epsilon: float = 2.0) -> st.SearchStrategy[PureDpEvent]:
    return st.floats(min_value=1e-4, max_value=max_epsilon).map(PureDpEvent)


def approx_events(max_epsilon: float = 2.0, max_delta: float = 1e-6) -> st.SearchStrategy[ApproxDpEvent]:
    return st.builds(
        ApproxDpEvent,
        st.floats(min_value=1e-4, max_value=max_epsilon),
        st.floats(min_value=0.0, max_value=max_delta),
    )


def randomized_response_events() -> st.SearchStrategy[dp_event.RandomizedResponseDpEvent]:
    return st.builds(
        dp_event.RandomizedResponseDpEvent,
        st.floats(min_value=0.05, max_value=0.95),
        st.integers(min_value=2, max_value=10),
    )


_KINDS: dict[str, Callable[[], st.SearchStrategy[dp_event.DpEvent]]] = {
    "gaussian": gaussian_events,
    "laplace": laplace_events,
    "pure": pure_events,
    "approx": approx_events,
    "randomized_response": randomized_response_events,
}


def events(
    kinds: tuple[str, ...] = ("gaussian", "laplace", "pure", "approx", "randomized_response"),
) -> st.SearchStrategy[dp_event.DpEvent]:
    """Single-release events of the given kinds."""
    unknown = set(kinds) - set(_KINDS)
    if unknown:
        raise ValueError(f"unknown event kinds {sorted(unknown)}; known: {sorted(_KINDS)}")
    return st.one_of([_KINDS[kind]() for kind in kinds])


def poisson_sampled_events(
    inner: st.SearchStrategy[dp_event.DpEvent] | None = None, min_probability: float = 1e-3
) -> st.SearchStrategy[dp_event.PoissonSampledDpEvent]:
    """``PoissonSampledDpEvent`` of a Gaussian release (default) or of ``inner``, with a sampling
    probability in [``min_probability``, 1]."""
    return st.builds(
        dp_event.PoissonSampledDpEvent,
        st.floats(min_value=min_probability, max_value=1.0),
        gaussian_events() if inner is None else inner,
    )


def self_composed_events(
    inner: st.SearchStrategy[dp_event.DpEvent] | None = None, max_count: int = 50
) -> st.SearchStrategy[dp_event.SelfComposedDpEvent]:
    """``SelfComposedDpEvent``: ``inner`` (default: a Gaussian release) repeated 1 … ``max_count`` times."""
    return st.builds(
        dp_event.SelfComposedDpEvent,
        gaussian_events() if inner is None else inner,
        st.integers(min_value=1, max_value=max_count),
    )


def composed_events(
    inner: st.SearchStrategy[dp_event.DpEvent] | None = None, max_size: int = 4
) -> st.SearchStrategy[dp_event.ComposedDpEvent]:
    """``ComposedDpEvent`` of 1 … ``max_size`` events drawn from ``inner`` (default: Gaussian)."""
    return st.lists(gaussian_events() if inner is None else inner, min_size=1, max_size=max_size).map(
        dp_event.ComposedDpEvent
    )


def participants(count: int = 3) -> st.SearchStrategy[int | str]:
    """Participant ids: small integers and their string names."""
    return st.sampled_from([*range(count), *(f"agent-{i}" for i in range(count))])


def ledger_entries(
    kinds: tuple[str, ...] = ("gaussian",),
    max_count: int = 20,
    participant_ids: st.SearchStrategy[Hashable] | None = None,
) -> st.SearchStrategy[LedgerEntry]:
    return st.builds(
        LedgerEntry,
        participant=participant_ids if participant_ids is not None else participants(),
        event=events(kinds),
        count=st.integers(min_value=1, max_value=max_count),
        iteration=st.one_of(st.none(), st.integers(min_value=0, max_value=10_000)),
    )


def ledgers(
    kinds: tuple[str, ...] = ("gaussian",),
    min_size: int = 0,
    max_size: int = 12,
    max_count: int = 20,
    participant_ids: st.SearchStrategy[Hashable] | None = None,
) -> st.SearchStrategy[Ledger]:
    return st.lists(ledger_entries(kinds, max_count, participant_ids), min_size=min_size, max_size=max_size).map(Ledger)
