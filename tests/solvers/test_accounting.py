"""Tests for solvers.engine.accounting: accountants by name, the ledger of a run, privacy per accountant."""

import math

import pytest
from dp_accounting import dp_event

from accountants import ExactGaussianAccountant, MomentsAccountant, gaussian_epsilon
from solvers.engine.accounting import DEFAULT_ACCOUNTANTS, record_releases, resolve_accountants


def test_default_is_a_fresh_set_of_the_four_report_accountants():
    first, second = resolve_accountants(None), resolve_accountants(None)
    assert [a.name for a in first] == list(DEFAULT_ACCOUNTANTS)
    assert all(a is not b for a, b in zip(first, second, strict=True))
    assert resolve_accountants(()) == []


def test_names_and_instances_mix():
    mine = ExactGaussianAccountant()
    resolved = resolve_accountants(["rdp", mine])
    assert isinstance(resolved[0], MomentsAccountant) and resolved[1] is mine


@pytest.mark.parametrize("value, error", [("rdp", TypeError), (["nope"], ValueError), ([3], ValueError)])
def test_bad_accountants_are_refused(value, error):
    with pytest.raises(error, match="accountants"):
        resolve_accountants(value)


def test_record_releases_registers_every_release_under_the_agent_id():
    events = [[dp_event.GaussianDpEvent(2.0), dp_event.GaussianDpEvent(4.0)] for _ in range(3)]
    mine = ExactGaussianAccountant()
    ledger, privacy = record_releases(events, [mine, ExactGaussianAccountant()], delta=1e-5)
    assert len(ledger) == 6 and [(e.iteration, e.participant) for e in ledger][:3] == [(0, 0), (0, 1), (1, 0)]
    assert mine.ledger == ledger
    assert mine.get_epsilon(1e-5, participant=1) == pytest.approx(gaussian_epsilon(math.sqrt(3) / 4, 1e-5))
    worst = gaussian_epsilon(math.sqrt(3) / 2, 1e-5)
    assert privacy == {"exact_gaussian": pytest.approx(worst), "exact_gaussian#2": pytest.approx(worst)}


def test_non_private_solvers_report_infinity_without_a_delta():
    ledger, privacy = record_releases([[dp_event.NonPrivateDpEvent()]], resolve_accountants(["rdp"]), delta=None)
    assert len(ledger) == 1 and privacy == {"rdp": math.inf}
