"""``best_epsilon`` never aborts on one accountant's failure: the others answer and the failure is
named in the result; the classic moments accountant runs only when it could be needed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting import dp_event

from accountants import (
    ACCOUNTANTS,
    Ledger,
    LedgerEntry,
    MomentsAccountant,
    PLDAccountant,
    PureEpsilonAccountant,
    best_epsilon,
    epsilon_by_accountant,
)


class FailingAccountant(PureEpsilonAccountant):
    """Accepts every release, then fails the way a peer library can on valid input."""

    def epsilon_from_summary(self, summary, delta):
        raise ValueError("deltas are not in non-increasing order")


def ledger_of(*pairs) -> Ledger:
    return Ledger([LedgerEntry(None, event, count, None) for event, count in pairs])


def test_a_failing_accountant_is_named_and_the_others_answer():
    ledger = ledger_of((dp_event.LaplaceDpEvent(0.001349954021097534), 1))
    factories = {"failing": FailingAccountant, "pure": PureEpsilonAccountant, "pld": PLDAccountant}
    bound = best_epsilon(ledger, 1e-6, accountants=factories)
    assert bound.failures == {"failing": "ValueError: deltas are not in non-increasing order"}
    assert set(bound.bounds) == {"pure", "pld"}
    assert bound.accountant == "pld" and bound.epsilon <= 1 / 0.001349954021097534
    assert "failing" not in epsilon_by_accountant(ledger, 1e-6, accountants=factories)


def test_every_supporting_accountant_failing_is_one_clear_error():
    ledger = ledger_of((dp_event.LaplaceDpEvent(1.0), 3))
    with pytest.raises(ValueError, match=r"no accountant supports .*failed: failing: ValueError: deltas are not"):
        best_epsilon(ledger, 1e-6, accountants={"failing": FailingAccountant})


def test_the_reported_laplace_ledger_answers_through_every_accountant():
    ledger = ledger_of((dp_event.LaplaceDpEvent(0.001349954021097534), 1))
    bound = best_epsilon(ledger, 1e-6, every_accountant=True)
    assert bound.failures == {}
    assert {"pld", "rdp", "moments_classic", "optimal_composition", "pure"} <= set(bound.bounds)
    assert bound.epsilon == pytest.approx(1 / 0.001349954021097534 + 2 * math.log1p(-1e-6), rel=1e-12)


def test_the_classic_moments_accountant_runs_only_when_needed():
    sampled = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(2.0))
    ledger = ledger_of((sampled, 50))
    assert "moments_classic" not in best_epsilon(ledger, 1e-5).bounds  # the RDP and PLD accountants answer
    everything = best_epsilon(ledger, 1e-5, every_accountant=True)
    assert "moments_classic" in everything.bounds
    assert everything.epsilon == best_epsilon(ledger, 1e-5).epsilon  # it does not win here
    alone = {"moments_classic": ACCOUNTANTS["moments_classic"]}
    assert best_epsilon(ledger, 1e-5, accountants=alone).accountant == "moments_classic"


def test_repeat_and_select_with_a_float32_mean_answers():
    event = dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(1.0), np.float32(3.5), 0.5)
    ledger = MomentsAccountant().register(event).ledger
    bound = best_epsilon(ledger, 1e-6)
    assert bound.accountant == "rdp" and math.isfinite(bound.epsilon) and bound.failures == {}


def test_a_bad_event_is_an_argument_error_not_a_failure():
    ledger = ledger_of((dp_event.GaussianDpEvent(1.0), 1))
    bad = Ledger([*ledger, LedgerEntry._make([None, dp_event.GaussianDpEvent(float("nan")), 1, None])])
    with pytest.raises(ValueError, match="GaussianDpEvent.noise_multiplier"):
        best_epsilon(bad, 1e-6)
