import math

import pytest
from dp_accounting import dp_event

import accountants
from accountants import ACCOUNTANTS, ExactGaussianAccountant, PureDpEvent, PureEpsilonAccountant


@pytest.mark.parametrize("name", sorted(ACCOUNTANTS))
def test_every_accountant_implements_the_interface(name):
    accountant = ACCOUNTANTS[name]()
    event = dp_event.GaussianDpEvent(5.0) if accountant.supports(dp_event.GaussianDpEvent(5.0)) else PureDpEvent(0.2)
    assert accountant.register(event, count=3, participant="a") is accountant
    assert accountant.compose(event) is accountant  # dp_accounting-style alias, default participant
    assert accountant.participants == ["a", None]
    eps = accountant.get_epsilon(1e-5, participant="a")
    assert 0 < eps < math.inf
    assert accountant.get_epsilon(1e-5) == eps  # the worst participant is "a" (3 releases)
    assert accountant.get_delta(eps, participant="a") <= 1e-5 * (1 + 1e-6)
    assert [(e.participant, e.count) for e in accountant.ledger] == [("a", 3), (None, 1)]


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda a: a.get_epsilon(1.0), ValueError, r"delta must be a probability in \[0, 1\)"),
        (lambda a: a.get_epsilon(-1e-9), ValueError, "delta must be a probability"),
        (lambda a: a.get_epsilon(float("nan")), ValueError, "delta must not be NaN"),
        (lambda a: a.get_delta(-0.5), ValueError, "epsilon must be >= 0"),
        (lambda a: a.register(PureDpEvent(1.0), count=-2), ValueError, "count must be a non-negative integer"),
        (
            lambda a: a.register(PureDpEvent(1.0), participant=2.5),
            TypeError,
            "participant must be None, a str or an int",
        ),
        (lambda a: a.get_epsilon(1e-5, participant="nobody"), ValueError, "unknown participant 'nobody'"),
        (lambda a: a.register("epsilon=1"), TypeError, "event must be a dp_accounting DpEvent"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_recorded(call, error, match):
    accountant = PureEpsilonAccountant().register(PureDpEvent(0.5), participant=0)
    with pytest.raises(error, match=match):
        call(accountant)
    assert len(accountant.ledger) == 1


def test_the_ledger_returned_is_a_copy():
    accountant = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(1.0))
    ledger = accountant.ledger
    ledger.append(ledger[0])
    assert len(accountant.ledger) == 1


def test_what_if_queries_record_nothing():
    accountant = PureEpsilonAccountant().register(PureDpEvent(0.5), participant=1)
    assert accountant.epsilon_if_registered(PureDpEvent(0.25), 0.0, count=2, participant=1) == 1.0
    assert accountant.get_epsilon(0.0) == 0.5 and len(accountant.ledger) == 1


def test_empty_accountant_spends_nothing():
    assert ExactGaussianAccountant().get_epsilon(1e-5) == 0.0


def test_package_import_is_light():
    import subprocess
    import sys

    heavy = "('matplotlib', 'sklearn', 'ray', 'hypothesis')"
    code = f"import sys, accountants; print(sorted(m for m in {heavy} if m in sys.modules))"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"
    )
    assert set(accountants.__all__) <= set(dir(accountants))


@pytest.mark.parametrize("name", sorted(ACCOUNTANTS))
def test_bulk_registration_equals_one_by_one(name, tmp_path):
    probe = ACCOUNTANTS[name]()
    kind = dp_event.GaussianDpEvent if probe.supports(dp_event.GaussianDpEvent(5.0)) else dp_event.LaplaceDpEvent
    events = [kind(3.0 + i) for i in range(6)]
    participants = [i % 3 for i in range(6)]
    bulk = ACCOUNTANTS[name]()
    bulk._ledger_file = accountants.LedgerFile(tmp_path / "bulk.jsonl")
    bulk.register_many(events, participants, iteration=7)
    single = ACCOUNTANTS[name]()
    for event, participant in zip(events, participants, strict=True):
        single.register(event, participant=participant, iteration=7)
    assert bulk.ledger == single.ledger == accountants.Ledger.load(tmp_path / "bulk.jsonl")
    for participant in range(3):
        assert bulk.get_epsilon(1e-6, participant) == pytest.approx(single.get_epsilon(1e-6, participant), rel=1e-12)


def test_bulk_registration_is_all_or_nothing():
    accountant = ExactGaussianAccountant()
    with pytest.raises(accountants.UnsupportedEventError, match="PureDpEvent"):
        accountant.register_many([dp_event.GaussianDpEvent(1.0), PureDpEvent(1.0)], [0, 1])
    with pytest.raises(ValueError, match="participants must have one entry per event"):
        accountant.register_many([dp_event.GaussianDpEvent(1.0)], [0, 1])
    with pytest.raises(TypeError, match="event must be a dp_accounting DpEvent"):
        accountant.register_many([dp_event.GaussianDpEvent(1.0), 3.0])
    assert len(accountant.ledger) == 0 and accountant.participants == []


def test_bulk_registration_of_a_whole_run_with_per_release_iterations():
    events = [dp_event.GaussianDpEvent(4.0)] * 6
    accountant = ExactGaussianAccountant().register_many(
        events, participants=[0, 1, 2] * 2, iteration=[0, 0, 0, 1, 1, 1]
    )
    assert [(e.participant, e.iteration) for e in accountant.ledger] == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
    assert accountant.get_mu(1) == pytest.approx(math.sqrt(2) / 4.0)
    with pytest.raises(ValueError, match="iteration must be one index or one per event"):
        accountant.register_many(events, iteration=[0, 1])
    with pytest.raises(ValueError, match="iteration must be a non-negative integer"):
        accountant.register_many(events[:1], iteration=[-1])
