import json

import pytest
from dp_accounting import dp_event
from hypothesis import given

from accountants import ExactGaussianAccountant, Ledger, LedgerEntry, LedgerFile, PureDpEvent
from accountants import strategies as dps


@given(dps.ledgers(kinds=("gaussian", "laplace", "pure", "approx", "randomized_response")))
def test_ledger_round_trips_through_json_exactly(ledger):
    restored = Ledger.loads(ledger.dumps())
    assert restored == ledger
    assert [e.participant for e in restored] == [e.participant for e in ledger]  # int stays int


def test_schema_is_versioned_and_checked():
    data = json.loads(Ledger().dumps())
    assert data == {"schema": "accountants.ledger", "version": 1, "entries": []}
    with pytest.raises(ValueError, match="unsupported ledger version 2"):
        Ledger.from_json({**data, "version": 2})
    with pytest.raises(ValueError, match="not a ledger"):
        Ledger.from_json({"entries": []})


def test_ledger_file_holds_every_release_as_soon_as_it_is_registered(tmp_path):
    path = tmp_path / "run.ledger.jsonl"
    accountant = ExactGaussianAccountant(ledger_path=path)
    for iteration in range(5):
        accountant.register(dp_event.GaussianDpEvent(2.0), participant=iteration % 2, iteration=iteration)
        on_disk = Ledger.load(path)  # read back while the run is still going
        assert len(on_disk) == iteration + 1
    assert on_disk == accountant.ledger


def test_ledger_file_resumes_an_existing_ledger_and_refuses_foreign_files(tmp_path):
    path = tmp_path / "ledger.jsonl"
    LedgerFile(path).append(LedgerEntry(participant="a", event=PureDpEvent(0.5)))
    LedgerFile(path).append(LedgerEntry(participant="b", event=PureDpEvent(0.25)))
    assert [e.participant for e in Ledger.load(path)] == ["a", "b"]
    foreign = tmp_path / "notes.txt"
    foreign.write_text("hello\n")
    with pytest.raises(ValueError, match="not a ledger"):
        LedgerFile(foreign)


def test_a_torn_last_line_is_reported_not_dropped(tmp_path):
    path = tmp_path / "ledger.jsonl"
    LedgerFile(path).append(LedgerEntry(participant=0, event=PureDpEvent(0.5)))
    with open(path, "a") as handle:
        handle.write('{"participant": 0, "count": 1, "ev')
    with pytest.raises(ValueError, match="line 3 is not a complete entry"):
        Ledger.load(path)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"participant": 1.5}, TypeError, "participant must be None, a str or an int"),
        ({"participant": True}, TypeError, "participant must be None, a str or an int"),
        ({"count": -1}, ValueError, "count must be a non-negative integer"),
        ({"count": 1.0}, TypeError, "count must be a non-negative integer"),
        ({"iteration": -3}, ValueError, "iteration must be a non-negative integer"),
        ({"event": "gaussian"}, TypeError, "event must be a dp_accounting DpEvent"),
    ],
)
def test_bad_entries_are_refused(kwargs, error, match):
    fields = {"participant": 0, "event": PureDpEvent(1.0), **kwargs}
    with pytest.raises(error, match=match):
        LedgerEntry(**fields)


def test_grouping_and_totals():
    ledger = Ledger(
        [
            LedgerEntry("b", PureDpEvent(1.0), 2),
            LedgerEntry("a", PureDpEvent(1.0), 3),
            LedgerEntry("b", PureDpEvent(1.0), 1),
        ]
    )
    assert ledger.participants == ["b", "a"]
    assert ledger.total_count("b") == 3 and ledger.total_count() == 6
    assert len(ledger.for_participant("a")) == 1
