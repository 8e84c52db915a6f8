"""Every accountant through ``DpAccountingView`` behaves as dp-accounting's abstract accountant
tests require (the cases of dp-accounting 0.6's ``privacy_accountant_test.py``, written here as our
own: their inputs and the behaviour they expect), and the view never drops a release.

The one honest refusal of those cases: none. Every accountant here supports ``NoOpDpEvent`` and
``NonPrivateDpEvent`` under every relation and refuses unknown events naming the unknown part.
"""

from __future__ import annotations

import math

import attr
import numpy as np
import pytest
from dp_accounting import dp_event, privacy_accountant
from dp_accounting.privacy_accountant import NeighboringRelation
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import (
    AdvancedCompositionAccountant,
    DpAccountingView,
    ExactGaussianAccountant,
    MomentsAccountant,
    PLDAccountant,
    PrivacyOdometer,
    PureEpsilonAccountant,
    UnsupportedEventError,
)
from accountants import strategies as dps

RELATIONS = list(NeighboringRelation)

#: Every accountant of the package, by report name, as a factory taking the neighbouring relation
#: (``moments_classic``: the integer orders and classic conversion of ``MomentsAccountant.classic``).
FACTORIES = {
    "exact_gaussian": lambda r: ExactGaussianAccountant(neighboring_relation=r),
    "rdp": lambda r: MomentsAccountant(neighboring_relation=r),
    "moments_classic": lambda r: MomentsAccountant(np.arange(2.0, 10_002.0), "classic", neighboring_relation=r),
    "pld": lambda r: PLDAccountant(neighboring_relation=r),
    "optimal_composition": lambda r: AdvancedCompositionAccountant(neighboring_relation=r),
    "advanced_composition": lambda r: AdvancedCompositionAccountant(theorem="drv", neighboring_relation=r),
    "pure": lambda r: PureEpsilonAccountant(neighboring_relation=r),
    "odometer": lambda r: PrivacyOdometer(neighboring_relation=r),
}


def views():
    """(name, relation) of every accountant under every relation."""
    return [pytest.param(name, relation, id=f"{name}-{relation.name}") for name in FACTORIES for relation in RELATIONS]


def view_of(name, relation):
    return DpAccountingView(FACTORIES[name](relation))


@attr.define(frozen=True)
class UsersOwnDpEvent(dp_event.DpEvent):
    """A ``DpEvent`` subclass no accountant knows (a user's own)."""


NESTINGS = {
    "alone": lambda event: event,
    "composed": lambda event: dp_event.ComposedDpEvent([event]),
    "self_composed": lambda event: dp_event.SelfComposedDpEvent(event, 10),
    "among_others": lambda event: dp_event.ComposedDpEvent([dp_event.NoOpDpEvent(), event]),
}


# ---------------------------------------------------------------------------------------------
# dp-accounting's abstract cases
@pytest.mark.parametrize("name, relation", views())
@pytest.mark.parametrize("unsupported", [dp_event.UnsupportedDpEvent(), UsersOwnDpEvent()], ids=["unsupported", "own"])
@pytest.mark.parametrize("nesting", list(NESTINGS))
def test_an_unsupported_event_is_named_and_refused(name, relation, unsupported, nesting):
    """The unsupported part of a nested event is reported (not the whole event), with the
    accountant's reason; ``compose`` raises dp-accounting's error and records nothing."""
    view = view_of(name, relation)
    event = NESTINGS[nesting](unsupported)
    details = view._maybe_compose(event, count=1, do_compose=False)  # dp-accounting's own tests call it so
    assert details is not None
    assert details.invalid_event == unsupported
    assert details.error_message and "cannot" not in details.error_message  # the reason, not a repeated header
    assert not view.supports(event)
    with pytest.raises(privacy_accountant.UnsupportedEventError, match="caused by subevent") as raised:
        view.compose(event)
    assert isinstance(raised.value, UnsupportedEventError) and raised.value.event == event
    assert details.error_message in str(raised.value)
    assert view.ledger == dp_event.NoOpDpEvent() and len(view.accountant.ledger) == 0


def assert_nothing_spent(view):
    assert view.get_epsilon(1e-12) == 0
    assert view.get_epsilon(0) == 0
    assert view.get_epsilon(1) == 0
    assert view.get_delta(1e-12) == 0
    assert view.get_delta(0) == 0
    assert view.get_delta(math.inf) == 0


@pytest.mark.parametrize("name, relation", views())
def test_no_events_spend_nothing(name, relation):
    assert_nothing_spent(view_of(name, relation))


@pytest.mark.parametrize("name, relation", views())
def test_a_no_op_event_spends_nothing(name, relation):
    view = view_of(name, relation)
    assert view.supports(dp_event.NoOpDpEvent())
    view.compose(dp_event.NoOpDpEvent())
    assert view.ledger == dp_event.NoOpDpEvent()
    assert_nothing_spent(view)


NON_PRIVATE = {
    "alone": dp_event.NonPrivateDpEvent(),
    "composed": dp_event.ComposedDpEvent([dp_event.NonPrivateDpEvent()]),
    "after_no_op": dp_event.ComposedDpEvent([dp_event.NoOpDpEvent(), dp_event.NonPrivateDpEvent()]),
    "self_composed": dp_event.SelfComposedDpEvent(dp_event.NonPrivateDpEvent(), 10),
}


@pytest.mark.parametrize("name, relation", views())
@pytest.mark.parametrize("shape", list(NON_PRIVATE))
def test_a_non_private_event_spends_everything(name, relation, shape):
    view = view_of(name, relation)
    event = NON_PRIVATE[shape]
    assert view.supports(event)
    view.compose(event)
    for delta in (0.99, 0, 1):
        assert view.get_epsilon(delta) == math.inf
    for epsilon in (100, 0, math.inf):
        assert view.get_delta(epsilon) == 1


# ---------------------------------------------------------------------------------------------
# δ = 1 and ε = ∞ with releases: answered as dp-accounting's accountants answer them
@pytest.mark.parametrize("name, relation", views())
def test_delta_one_and_epsilon_infinity_with_a_private_release(name, relation):
    view = view_of(name, relation)
    event = next(e for e in (dp_event.GaussianDpEvent(2.0), dp_event.LaplaceDpEvent(2.0)) if view.supports(e))
    view.compose(event, 5)
    assert view.get_epsilon(1) == 0  # every mechanism is (0, 1)-DP
    at_infinity = view.get_delta(math.inf)
    assert at_infinity == view.accountant.get_delta(1.7976931348623157e308) <= view.get_delta(1e300)
    assert at_infinity <= 1e-14  # what a Gaussian or Laplace release leaves at ε = ∞ (PLD: its truncated tail)


@pytest.mark.parametrize("target_delta", [-0.1, 1.5, math.nan, math.inf])
def test_an_invalid_target_delta_is_named(target_delta):
    with pytest.raises(ValueError, match=r"target_delta must be a probability in \[0, 1\]"):
        view_of("pld", NeighboringRelation.ADD_OR_REMOVE_ONE).get_epsilon(target_delta)
    with pytest.raises(TypeError, match="target_delta must be a real number"):
        view_of("pld", NeighboringRelation.ADD_OR_REMOVE_ONE).get_epsilon("0.1")


@pytest.mark.parametrize("target_epsilon", [-1.0, math.nan, -math.inf])
def test_an_invalid_target_epsilon_is_named(target_epsilon):
    with pytest.raises(ValueError, match="target_epsilon must"):
        view_of("pld", NeighboringRelation.ADD_OR_REMOVE_ONE).get_delta(target_epsilon)


# ---------------------------------------------------------------------------------------------
# The view never drops a release: hypothesis over event sequences and every accountant
LEAVES = dps.events() | st.just(dp_event.NonPrivateDpEvent()) | st.just(dp_event.UnsupportedDpEvent())


def events(name):
    """Events for accountant ``name``: leaves, Poisson-sampled ones and nested ones. Not
    Poisson-sampled Gaussian releases for the RDP accountants: dp-accounting's curve of each new
    one costs seconds, and says nothing about the view."""
    sampled = [dps.poisson_sampled_events(dps.laplace_events())]
    if name not in ("rdp", "moments_classic"):
        sampled.append(dps.poisson_sampled_events())
    return st.one_of(
        LEAVES,
        *sampled,
        dps.self_composed_events(LEAVES, max_count=5),
        dps.composed_events(LEAVES, max_size=3),
    )


#: Release counts: small, and beyond what a privacy loss distribution can hold (the PLD accountant
#: refuses 10^12 releases of all but the noisiest Gaussian ones, after or before others).
COUNTS = st.sampled_from([1, 2, 7, 10**12])


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(sorted(FACTORIES)),
    relation=st.sampled_from(RELATIONS),
    delta=st.sampled_from([1e-9, 1e-5, 0.1]),
    data=st.data(),
)
def test_the_view_bounds_exactly_the_releases_it_accepted(name, relation, delta, data):
    """For random event sequences: a release the wrapped accountant refuses raises from
    ``compose`` and is recorded neither by the view nor by the accountant; the view's ε is the
    accountant's ε over the accepted releases, registered directly in the same order."""
    view = view_of(name, relation)
    releases = data.draw(st.lists(st.tuples(events(name), COUNTS), min_size=1, max_size=5), label="releases")
    accepted = []
    for event, count in releases:
        before = (view.ledger, len(view.accountant.ledger))
        supported = view._maybe_compose(event, count, do_compose=False) is None
        try:
            view.compose(event, count)
        except UnsupportedEventError:
            assert not supported
            assert (view.ledger, len(view.accountant.ledger)) == before
        else:
            assert supported
            accepted.append((event, count))
    direct = FACTORIES[name](relation)
    for event, count in accepted:
        direct.register(event, count)
    assert view.get_epsilon(delta) == direct.get_epsilon(delta)
    assert [(e.event, e.count) for e in view.accountant.ledger] == accepted
    replayed = FACTORIES[name](relation).register(view.ledger)
    assert replayed.get_epsilon(delta) == pytest.approx(direct.get_epsilon(delta), rel=1e-9, abs=0)
