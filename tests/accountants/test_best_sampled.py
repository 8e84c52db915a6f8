"""best_epsilon on a Poisson-sampled Gaussian ledger: one distinct event is checked once per
accountant, its answer is the PLD's, at or above dp-accounting's own PLD and RDP answers."""

import pytest
from dp_accounting import dp_event
from dp_accounting.pld import PLDAccountant as DpPLDAccountant
from dp_accounting.rdp import RdpAccountant

from accountants import ExactGaussianAccountant, Ledger, LedgerEntry, MomentsAccountant, PLDAccountant, best_epsilon

SAMPLED = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0))


@pytest.fixture(scope="module")
def reference():
    """dp-accounting's PLD (default grid 1e-4) and RDP ε of 1,000 such releases at δ = 1e-5."""
    return (
        DpPLDAccountant().compose(SAMPLED, 1000).get_epsilon(1e-5),
        RdpAccountant().compose(SAMPLED, 1000).get_epsilon(1e-5),
    )


@pytest.mark.parametrize("separate", [True, False])
def test_a_thousand_sampled_releases(reference, separate):
    entries = (
        [LedgerEntry(None, SAMPLED, 1, step) for step in range(1000)]
        if separate
        else [LedgerEntry(None, SAMPLED, 1000)]
    )
    best = best_epsilon(Ledger(entries), 1e-5)
    pld, rdp = reference
    assert best.accountant == "pld"
    assert best.epsilon == pytest.approx(1.8282436465476362, rel=1e-9)  # golden (dp-accounting 0.6.0: 5e-11 higher)
    assert pld <= best.epsilon <= pld * (1 + 1e-9)  # dp-accounting's PLD, stepped up only by the outward rounding
    assert best.bounds["rdp"] <= rdp * (1 + 1e-9)  # the RDP accountant at a superset of dp-accounting's orders
    assert best.bounds["rdp"] > best.epsilon


class Refusing(ExactGaussianAccountant):
    """An accountant that counts the entries it is given."""

    given = 0

    def register_ledger(self, ledger):
        Refusing.given += len(list(ledger))
        return super().register_ledger(ledger)


def test_an_accountant_refusing_the_ledgers_event_is_never_given_its_entries():
    ledger = Ledger([LedgerEntry(None, SAMPLED, 1, step) for step in range(50)])
    Refusing.given = 0
    best = best_epsilon(
        ledger, 1e-5, accountants={"refusing": Refusing, "rdp": MomentsAccountant, "pld": PLDAccountant}
    )
    assert Refusing.given == 0
    assert set(best.bounds) == {"rdp", "pld"}
