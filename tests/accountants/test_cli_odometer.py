"""dp-accountant --odometer: the privacy odometer's ε from the command line."""

import json

import pytest
from dp_accounting import dp_event

from accountants import Ledger, LedgerEntry, PrivacyOdometer
from accountants.__main__ import main


def test_gaussian_releases_give_the_odometer_golden_value(capsys):
    """100 releases at z = 10 at δ = 1e-5: 5.898696 (see test_odometer's golden value)."""
    assert main(["--noise-multiplier", "10", "--count", "100", "--delta", "1e-5", "--odometer", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["odometer"]["epsilon"] == pytest.approx(5.898696, abs=1e-6)
    assert report["odometer"]["epsilon"] == PrivacyOdometer().register(dp_event.GaussianDpEvent(10.0), 100).get_epsilon(
        1e-5
    )
    assert report["delta"] == 1e-5 and report["odometer"]["participant"] is None


def test_a_saved_dp_sgd_ledger_names_its_worst_participant(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    step = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0))
    path.write_text(Ledger([LedgerEntry("a", step, 1000), LedgerEntry("b", step, 10)]).dumps())
    assert main(["--ledger", str(path), "--delta", "1e-5", "--odometer"]) == 0
    out = capsys.readouterr().out
    assert "worst participant 'a'" in out and "| odometer | 3.256672 |" in out


def test_a_ledger_the_odometer_cannot_bound_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "mixed.jsonl"
    sampled = dp_event.PoissonSampledDpEvent(0.01, dp_event.GaussianDpEvent(1.0))
    path.write_text(
        Ledger([LedgerEntry(None, dp_event.GaussianDpEvent(3.0), 1), LedgerEntry(None, sampled, 5)]).dumps()
    )
    with pytest.raises(SystemExit) as exit_info:
        main(["--ledger", str(path), "--odometer"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --odometer:" in err and "first release fixed the gaussian rule" in err


def test_pure_releases_at_delta_zero(capsys):
    assert main(["--pure-epsilon", "0.25", "--count", "4", "--delta", "0", "--odometer", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["odometer"]["epsilon"] == 1.0
