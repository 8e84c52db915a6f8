import math

import pytest
from dp_accounting import dp_event

from accountants import (
    ApproxDpEvent,
    ExactGaussianAccountant,
    Ledger,
    LedgerEntry,
    PureDpEvent,
    best_epsilon,
    epsilon_by_accountant,
)


def test_picks_the_smallest_valid_bound_and_names_it():
    ledger = Ledger([LedgerEntry(0, dp_event.GaussianDpEvent(10.0), 100)])
    best = best_epsilon(ledger, 1e-5, accountants={"exact_gaussian": ExactGaussianAccountant})
    assert best.accountant == "exact_gaussian" and best.epsilon == pytest.approx(4.377178095681137, abs=1e-9)
    everything = epsilon_by_accountant(ledger, 1e-5)
    assert {"exact_gaussian", "rdp", "moments_classic", "pld"} == set(everything)  # pure ones cannot bound it
    assert best_epsilon(ledger, 1e-5).epsilon == min(v[0] for v in everything.values())


def test_worst_participant_and_mixed_events():
    ledger = Ledger(
        [
            LedgerEntry("a", PureDpEvent(0.1), 100),
            LedgerEntry("b", PureDpEvent(0.1), 10),
        ]
    )
    best = best_epsilon(ledger, 0.0)
    assert best.participant == "a" and best.epsilon == math.nextafter(10.0, math.inf)  # 100 × float(0.1) > 10
    mixed = Ledger([LedgerEntry(0, PureDpEvent(0.1)), LedgerEntry(0, dp_event.GaussianDpEvent(3.0))])
    assert set(epsilon_by_accountant(mixed, 1e-5)) == {"rdp", "moments_classic", "pld"}
    with pytest.raises(ValueError, match="no accountant supports every event"):
        best_epsilon(Ledger([LedgerEntry(0, dp_event.ZCDpEvent(0.1)), LedgerEntry(0, ApproxDpEvent(1.0, 1e-9))]), 1e-5)
