"""best_epsilon skips only accountants that cannot win, and composes each participant once."""

import math

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import (
    ACCOUNTANTS,
    ExactGaussianAccountant,
    Ledger,
    LedgerEntry,
    MomentsAccountant,
    PLDAccountant,
    PureDpEvent,
    UnsupportedEventError,
    best_epsilon,
    epsilon_by_accountant,
)
from accountants import strategies as dps

#: Every kind of accountant, at settings fast enough for property tests (bounds stay valid).
FAST = {
    "exact_gaussian": ExactGaussianAccountant,
    "rdp": lambda: MomentsAccountant(orders=[1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]),
    "pld": lambda: PLDAccountant(value_discretization_interval=1e-2),
    "optimal_composition": ACCOUNTANTS["optimal_composition"],
    "advanced_composition": ACCOUNTANTS["advanced_composition"],
    "pure": ACCOUNTANTS["pure"],
}
HETEROGENEOUS = Ledger([LedgerEntry(None, dp_event.GaussianDpEvent(float(z))) for z in np.linspace(20, 60, 1000)])


@settings(max_examples=25, deadline=None)
@given(
    st.one_of(dps.ledgers(("gaussian",), max_size=6), dps.ledgers(("gaussian", "laplace", "pure"), max_size=6)),
    st.sampled_from([1e-9, 1e-5, 1e-2]),
)
def test_skipping_gives_the_minimum_over_every_accountant(ledger, delta):
    full = best_epsilon(ledger, delta, accountants=FAST, every_accountant=True)
    table = epsilon_by_accountant(ledger, delta, accountants=FAST)
    best = best_epsilon(ledger, delta, accountants=FAST)
    if not ledger.participants:
        assert best.epsilon == full.epsilon == 0.0 and best.bounds == full.bounds == {}
        return
    # every_accountant: the worst participant's minimum over the whole table, every bound reported
    assert full.epsilon == max(min(values[p] for values in table.values()) for p in ledger.participants)
    assert full.bounds == {name: values[full.participant] for name, values in table.items()}
    if "exact_gaussian" not in table:
        assert best == full
        return
    # the exact accountant applies: it alone is evaluated, and no other accountant beats it
    # by more than its outward rounding
    assert best.accountant == "exact_gaussian" and set(best.bounds) == {"exact_gaussian"}
    exact = table["exact_gaussian"]
    assert best.epsilon == max(exact.values()) and best.epsilon == exact[best.participant]
    for p in ledger.participants:
        assert min(values[p] for values in table.values()) >= exact[p] * (1 - 1e-12)
    assert full.epsilon >= best.epsilon * (1 - 1e-12)


def test_a_thousand_heterogeneous_gaussians_are_the_exact_bound():
    best = best_epsilon(HETEROGENEOUS, 1e-5)
    exact = ExactGaussianAccountant().register_ledger(HETEROGENEOUS).get_epsilon(1e-5)
    assert best.epsilon == exact == 3.941529585518619  # golden: μ² = Σ 1/z² over z = 20 … 60
    assert best.accountant == "exact_gaussian" and dict(best.bounds) == {"exact_gaussian": exact}
    # every accountant on request: the PLD and RDP bounds are looser upper bounds of the same ε
    everything = best_epsilon(HETEROGENEOUS, 1e-5, accountants=FAST, every_accountant=True)
    assert set(everything.bounds) == {"exact_gaussian", "rdp", "pld"}
    assert everything.epsilon == exact and min(everything.bounds.values()) == exact


def test_many_participants_each_composed_once():
    rng = np.random.default_rng(0)
    entries = [LedgerEntry(p, dp_event.GaussianDpEvent(float(z))) for p in range(20) for z in rng.uniform(20, 60, 50)]
    ledger = Ledger(entries)
    best = best_epsilon(ledger, 1e-5)
    by_participant = {
        p: ExactGaussianAccountant().register_ledger(Ledger(ledger.for_participant(p))) for p in range(20)
    }
    worst = max(range(20), key=lambda p: by_participant[p].get_epsilon(1e-5))
    assert best.participant == worst and best.epsilon == by_participant[worst].get_epsilon(1e-5)
    assert best_epsilon(ledger, 1e-5, participant=3).epsilon == by_participant[3].get_epsilon(1e-5)


def test_no_skip_without_a_proof():
    gaussian = Ledger([LedgerEntry(0, dp_event.GaussianDpEvent(2.0), 10)])
    # another relation: the exact bound is for another quantity, so every accountant runs
    replace_one = {
        "exact_gaussian": lambda: ExactGaussianAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE),
        "rdp": FAST["rdp"],
    }
    assert set(best_epsilon(gaussian, 1e-5, accountants=replace_one).bounds) == {"exact_gaussian", "rdp"}

    class Subclassed(ExactGaussianAccountant):
        """Not trusted to be exact (it may change the composition)."""

    subclassed = {"exact": Subclassed, "rdp": FAST["rdp"]}
    assert set(best_epsilon(gaussian, 1e-5, accountants=subclassed).bounds) == {"exact", "rdp"}
    # a release the exact accountant cannot bound: the others decide
    mixed = Ledger([*gaussian, LedgerEntry(1, PureDpEvent(0.5))])
    assert set(best_epsilon(mixed, 1e-5, accountants=FAST).bounds) == {"rdp", "pld"}


def test_support_is_ledger_wide_even_for_one_participant():
    ledger = Ledger([LedgerEntry("a", dp_event.GaussianDpEvent(5.0)), LedgerEntry("b", PureDpEvent(0.5))])
    best = best_epsilon(ledger, 1e-5, participant="a", accountants=FAST)
    assert "exact_gaussian" not in best.bounds and best.participant == "a"
    assert set(epsilon_by_accountant(ledger, 1e-5, participant="a", accountants=FAST)) == {"rdp", "pld"}
    with pytest.raises(ValueError, match="unknown participant 'c'"):
        best_epsilon(ledger, 1e-5, participant="c", accountants=FAST)


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="every_accountant must be True or False"):
        best_epsilon(HETEROGENEOUS, 1e-5, every_accountant="yes")
    bad = Ledger([LedgerEntry(0, dp_event.GaussianDpEvent(1.0)), LedgerEntry(0, dp_event.GaussianDpEvent(math.nan))])
    with pytest.raises(ValueError, match=r"noise_multiplier must be >= 0, got nan \(in ledger entry 1\)"):
        best_epsilon(bad, 1e-5)
    with pytest.raises(ValueError, match=r"\(in ledger entry 1\)"):
        best_epsilon(bad, 1e-5, participant=0)


def test_register_ledger_is_all_or_nothing():
    accountant = PLDAccountant()
    ledger = Ledger([LedgerEntry(0, dp_event.LaplaceDpEvent(1.0)), LedgerEntry(1, dp_event.ZCDpEvent(0.1))])
    with pytest.raises(UnsupportedEventError, match="ZCDpEvent"):
        accountant.register_ledger(ledger)
    assert len(accountant.ledger) == 0 and accountant.participants == []
    with pytest.raises(TypeError, match="ledger must be an accountants.Ledger"):
        accountant.register_ledger([dp_event.LaplaceDpEvent(1.0)])
    assert accountant.register_ledger([LedgerEntry(0, dp_event.LaplaceDpEvent(1.0))]).participants == [0]
    numpy_valued = Ledger([LedgerEntry(0, dp_event.GaussianDpEvent(np.float32(4.0)), 3)])
    recorded = ExactGaussianAccountant().register_ledger(numpy_valued).ledger
    assert type(recorded[0].event.noise_multiplier) is float and recorded[0].count == 3
