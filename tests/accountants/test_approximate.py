import math

import pytest
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from hypothesis import given
from hypothesis import strategies as st

from accountants import (
    AdvancedCompositionAccountant,
    ApproxDpEvent,
    PureDpEvent,
    PureEpsilonAccountant,
    UnsupportedEventError,
)
from accountants import strategies as dps
from accountants.composition import drv_epsilon, kov_heterogeneous_epsilon
from accountants.lattice import lattice_epsilon

KINDS = ("laplace", "pure", "approx", "randomized_response")
REPLACE_ONE = NeighboringRelation.REPLACE_ONE  # randomized response is refused under add-or-remove


def test_issue_golden_hundred_pure_releases_at_delta_zero():
    for accountant in (PureEpsilonAccountant(), AdvancedCompositionAccountant()):
        accountant.register(PureDpEvent(0.1), count=100)
        assert accountant.get_epsilon(0.0) == math.nextafter(10.0, math.inf)  # 100 × float(0.1) > 10


def test_basic_composition_with_deltas():
    acc = PureEpsilonAccountant().register(ApproxDpEvent(0.5, 1e-6), 4).register(dp_event.LaplaceDpEvent(2.0), 2)
    assert acc.get_epsilon(4e-6) == 3.0
    assert acc.get_epsilon(3.9e-6) == math.inf
    assert acc.get_delta(3.0) == pytest.approx(4e-6) and acc.get_delta(2.9) == 1.0


def test_drv_accountant_uses_the_theorem_and_the_sum():
    acc = AdvancedCompositionAccountant(theorem="drv").register(PureDpEvent(0.01), 1000)
    assert acc.get_epsilon(1e-5) == pytest.approx(drv_epsilon([(0.01, 0.0, 1000)], 1e-5))
    assert AdvancedCompositionAccountant(theorem="drv").register(PureDpEvent(1.0), 2).get_epsilon(1e-5) == 2.0
    with pytest.raises(ValueError, match="theorem must be 'optimal' or 'drv'"):
        AdvancedCompositionAccountant(theorem="magic")


def test_heterogeneous_beyond_enumeration_takes_the_lattice_or_kov_theorem_3_5():
    small = AdvancedCompositionAccountant(max_support=10)
    exact = AdvancedCompositionAccountant()
    for acc in (small, exact):
        acc.register(PureDpEvent(0.1), 50).register(PureDpEvent(0.2), 50)
    triples = [(0.1, 0.0, 50), (0.2, 0.0, 50)]
    lattice, kov = lattice_epsilon(triples, 1e-5), kov_heterogeneous_epsilon(triples, 1e-5)
    assert small.get_epsilon(1e-5) == min(lattice, kov) == lattice < kov
    assert exact.get_epsilon(1e-5) <= small.get_epsilon(1e-5) <= exact.get_epsilon(1e-5) * 1.01
    assert small.get_delta(small.get_epsilon(1e-5)) <= 1e-5
    drv = AdvancedCompositionAccountant(theorem="drv", max_support=10).register(PureDpEvent(0.1), 50)
    assert drv.get_epsilon(1e-5) == min(drv_epsilon([(0.1, 0.0, 50)], 1e-5), 5.000000000000001)  # no lattice


@given(dps.ledgers(kinds=KINDS, max_size=6, max_count=10), st.floats(1e-8, 0.1))
def test_reordering_and_splitting_change_nothing(ledger, delta):
    forward = AdvancedCompositionAccountant(neighboring_relation=REPLACE_ONE).register_ledger(ledger)
    backward = AdvancedCompositionAccountant(neighboring_relation=REPLACE_ONE)
    for entry in reversed(list(ledger)):
        for _ in range(entry.count):
            backward.register(entry.event, 1, entry.participant)
    for participant in ledger.participants:
        assert backward.get_epsilon(delta, participant) == forward.get_epsilon(delta, participant)


@given(dps.ledgers(kinds=KINDS, min_size=1, max_size=6, max_count=10), st.floats(1e-8, 0.1))
def test_optimal_never_exceeds_drv_or_the_sum(ledger, delta):
    optimal = AdvancedCompositionAccountant(neighboring_relation=REPLACE_ONE).register_ledger(ledger)
    drv = AdvancedCompositionAccountant(theorem="drv", neighboring_relation=REPLACE_ONE).register_ledger(ledger)
    basic = PureEpsilonAccountant(neighboring_relation=REPLACE_ONE).register_ledger(ledger)
    assert optimal.get_epsilon(delta) <= drv.get_epsilon(delta) + 1e-12 <= basic.get_epsilon(delta) + 2e-12


def test_gaussian_releases_are_refused_by_name():
    with pytest.raises(UnsupportedEventError, match="PureEpsilonAccountant cannot bound the event GaussianDpEvent"):
        PureEpsilonAccountant().register(dp_event.GaussianDpEvent(1.0))
