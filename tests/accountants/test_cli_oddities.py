"""dp-accountant says what its table shows: no release count it cannot bound, no accountant silently
missing, a header that counts the table's releases, and -v logging on standard error."""

import json

import pytest
from dp_accounting import dp_event

from accountants import ExactGaussianAccountant
from accountants.__main__ import main
from accountants.best import ACCOUNTANTS


@pytest.mark.parametrize("count", ["0", "-3", "1.5", "nan", "inf", "many"])
def test_a_count_below_one_or_not_whole_is_one_line_naming_count(count, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--noise-multiplier", "10", "--count", count])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.count("\n") == 1 and "argument --count" in err and "whole number of releases >= 1" in err


def test_a_count_in_scientific_notation_is_the_whole_number(capsys):
    assert main(["--noise-multiplier", "10", "--count", "1e2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["releases"] == 100
    assert report["best"]["epsilon"] == pytest.approx(4.377178095681137, abs=1e-9)  # the guide's 100 releases


@pytest.mark.parametrize(
    ("source", "count"),
    [(["--pure-epsilon", "0.1"], "1e8"), (["--noise-multiplier", "10"], "1e10")],
)
def test_every_accountant_is_shown_with_a_bound_or_its_refusal(source, count, capsys):
    assert main([*source, "--count", count]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| accountant")]
    assert sorted(row.split(" | ")[0][2:] for row in rows) == sorted(ACCOUNTANTS)
    pld = next(row for row in rows if row.startswith("| pld |"))
    assert "refused: PLDAccountant cannot bound" in pld  # with the accountant's own reason


def test_the_json_names_each_refusal_and_its_reason(capsys):
    assert main(["--noise-multiplier", "10", "--count", "1e10", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["epsilon_upper"]) | set(report["refused"]) == set(ACCOUNTANTS)
    assert "pld" in report["refused"] and "grid step" in report["refused"]["pld"]
    assert report["refused"]["pure"].startswith("PureEpsilonAccountant cannot bound the event GaussianDpEvent")
    assert report["failed"] == {}


def test_a_multi_participant_header_counts_the_tables_releases_and_says_the_total(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    accountant = ExactGaussianAccountant(ledger_path=path)
    accountant.register(dp_event.GaussianDpEvent(2.0), 5, participant="a")
    accountant.register(dp_event.GaussianDpEvent(20.0), 95, participant="b")
    assert main(["--ledger", str(path), "--delta", "1e-6"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.startswith("Privacy of 5 releases by the worst participant 'a'")
    assert "2 participants made 100 releases in all" in header
    assert main(["--ledger", str(path), "--delta", "1e-6", "--odometer"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "5 releases by the worst participant 'a'" in header and "100 releases in all" in header
    assert main(["--ledger", str(path), "--delta", "1e-6", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["participant"], report["releases"], report["releases_all_participants"]) == ("a", 5, 100)


def test_verbose_logs_refusals_on_stderr_and_quiet_by_default(capsys):
    assert main(["--pure-epsilon", "1", "--count", "3"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["--pure-epsilon", "1", "--count", "3", "--verbose"]) == 0
    err = capsys.readouterr().err
    assert "accountants.cli: INFO: exact_gaussian refused the ledger: ExactGaussianAccountant cannot bound" in err


def test_the_header_counts_only_the_unnamed_participants_releases_when_it_is_the_worst(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    accountant = ExactGaussianAccountant(ledger_path=path)
    accountant.register(dp_event.GaussianDpEvent(2.0), 5)  # participant None
    accountant.register(dp_event.GaussianDpEvent(20.0), 95, participant="b")
    assert main(["--ledger", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["participant"], report["releases"], report["releases_all_participants"]) == (None, 5, 100)
