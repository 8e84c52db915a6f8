"""The accountants command line never shows a traceback: every usage error is one line on standard
error naming the argument, with exit status 2 (argparse's ``parser.error`` style)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from dp_accounting import dp_event

from accountants import ExactGaussianAccountant, Ledger, LedgerEntry
from accountants.__main__ import main
from accountants.version import __version__

HEADER = '{"schema": "accountants.ledger", "version": 1}\n'


def usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command expecting a usage error; return its one line."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    captured = capsys.readouterr()
    assert exit_info.value.code == 2, captured
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dp-accountant"), captured.err
    assert "Traceback" not in captured.err and captured.out == ""
    return lines[0]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A ledger file of every kind the command may be given."""
    good = tmp_path / "run.jsonl"
    ExactGaussianAccountant(ledger_path=good).register(dp_event.GaussianDpEvent(2.0), 5, participant=3)
    torn = tmp_path / "torn.jsonl"
    torn.write_text(good.read_text() + '{"participant": 3, "cou')
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    not_a_ledger = tmp_path / "notes.txt"
    not_a_ledger.write_text("hello\n")
    other_json = tmp_path / "other.json"
    other_json.write_text(json.dumps({"schema": "something.else", "version": 1}))
    nan_event = tmp_path / "nan.jsonl"  # before: optimal_composition | 0.000000 **(best)**, exit 0
    entry = {
        "participant": None,
        "iteration": None,
        "count": 1,
        "event": {"type": "RandomizedResponseDpEvent", "noise_parameter": {"float": "nan"}, "num_buckets": 2},
    }
    nan_event.write_text(HEADER + json.dumps(entry) + "\n")
    dumped = tmp_path / "dumped.json"
    dumped.write_text(Ledger([LedgerEntry(1, dp_event.GaussianDpEvent(3.0), 2)]).dumps())
    return {
        "good": good,
        "torn": torn,
        "empty": empty,
        "not_a_ledger": not_a_ledger,
        "other_json": other_json,
        "nan_event": nan_event,
        "missing": tmp_path / "missing.jsonl",
        "directory": tmp_path,
        "dumped": dumped,
    }


@pytest.mark.parametrize(
    "argv, names",
    [
        ([], ["--noise-multiplier", "--pure-epsilon", "--ledger", "required"]),  # was: silently σ = 10
        (["--noise-multiplier", "1", "--count", "-3"], ["--count", "-3"]),
        (["--noise-multiplier", "1", "--count", "1.5"], ["--count"]),
        (["--noise-multiplier", "1", "--count", "9" * 400], ["--count", "10**300"]),
        (["--pure-epsilon", "nan"], ["--pure-epsilon", "NaN"]),
        (["--pure-epsilon", "-1"], ["--pure-epsilon", ">= 0"]),
        (["--pure-epsilon", "inf"], ["--pure-epsilon", "finite"]),
        (["--noise-multiplier", "nan"], ["--noise-multiplier"]),
        (["--noise-multiplier", "-1"], ["--noise-multiplier", ">= 0"]),
        (["--noise-multiplier", "ten"], ["--noise-multiplier", "'ten'"]),
        (["--noise-multiplier", "1", "--delta", "1.5"], ["--delta", "[0, 1)"]),
        (["--noise-multiplier", "1", "--delta", "nan"], ["--delta"]),
        (["--noise-multiplier", "1", "--pure-epsilon", "1"], ["--pure-epsilon", "--noise-multiplier"]),
        (["--noise-multiplier", "1", "--bogus"], ["--bogus"]),
        (["ledger"], ["COMMAND"]),
        (["ledger", "repair"], ["FILE"]),
        (["ledger", "fix", "x"], ["COMMAND", "repair"]),
    ],
)
def test_bad_arguments_are_one_line_naming_the_argument(argv, names, capsys):
    line = usage_error(argv, capsys)
    for name in names:
        assert name in line


@pytest.mark.parametrize("kind", ["missing", "empty", "torn", "not_a_ledger", "other_json", "nan_event", "directory"])
def test_an_unreadable_ledger_file_is_a_usage_error_naming_the_file(kind, files, capsys):
    line = usage_error(["--ledger", str(files[kind])], capsys)
    assert "argument --ledger" in line and str(files[kind]) in line
    if kind == "nan_event":
        assert "RandomizedResponseDpEvent.noise_parameter must be in [0, 1], got nan" in line


def test_count_with_a_ledger_is_a_usage_error(files, capsys):
    # before: --count was silently ignored
    line = usage_error(["--ledger", str(files["good"]), "--count", "3"], capsys)
    assert "--count" in line and "--ledger" in line


def test_good_inputs_still_answer(files, capsys):
    assert main(["--ledger", str(files["good"])]) == 0
    assert "| exact_gaussian |" in capsys.readouterr().out
    assert main(["--ledger", str(files["dumped"]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["participant"] == 1
    assert main(["--noise-multiplier", "inf"]) == 0  # infinite noise reveals nothing (was a traceback)
    assert "| exact_gaussian | 0.000000 **(best)** |" in capsys.readouterr().out
    assert main(["--noise-multiplier", "0", "--json"]) == 0  # no noise: ε = ∞ (JSON null, not Infinity)
    assert json.loads(capsys.readouterr().out)["best"]["epsilon"] is None
    assert main(["--pure-epsilon", "0.5", "--count", "1"]) == 0  # (a count of 0 is a usage error)


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out == f"dp-accountant {__version__}\n"


def test_ledger_repair_keeps_complete_entries_and_reports_them(files, capsys):
    assert main(["ledger", "repair", str(files["torn"])]) == 0
    summary = capsys.readouterr().out
    assert "kept 1 complete entry" in summary and "set aside 1" in summary and summary.count("\n") == 1
    assert len(Ledger.load(files["torn"])) == 1  # loads again
    assert main(["ledger", "repair", str(files["good"])]) == 0
    assert "nothing set aside" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["missing", "not_a_ledger", "directory"])
def test_ledger_repair_of_something_that_is_not_a_ledger_is_a_usage_error(kind, files, capsys):
    line = usage_error(["ledger", "repair", str(files[kind])], capsys)
    assert "FILE" in line and str(files[kind]) in line


def test_ledger_repair_follows_the_repair_report_contract(monkeypatch, tmp_path, capsys):
    from accountants import ledger

    report = ledger.RepairReport(
        path=tmp_path / "l.jsonl", kept=41, set_aside=("{", '{"participant"'), fragment_path=tmp_path / "l.torn"
    )
    monkeypatch.setattr(ledger, "repair_ledger", lambda path: report)
    assert main(["ledger", "repair", "l.jsonl"]) == 0
    out = capsys.readouterr().out
    assert "kept 41 complete entries" in out and "set aside 2 torn or partial fragments" in out
    assert str(tmp_path / "l.torn") in out


@pytest.mark.slow
def test_the_installed_command_shows_no_traceback(tmp_path):
    """A few runs in a fresh interpreter (started together): one line on stderr, exit status 2."""
    runs = [
        [],
        ["--count", "-3", "--noise-multiplier", "1"],
        ["--ledger", str(tmp_path / "missing.jsonl")],
        ["ledger", "repair", str(tmp_path / "missing.jsonl")],
    ]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "accountants", *argv],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv in runs
    ]
    for argv, process in zip(runs, processes, strict=True):
        out, err = process.communicate(timeout=120)
        assert process.returncode == 2, (argv, err)
        assert "Traceback" not in err and len(err.splitlines()) == 1 and out == "", (argv, err)
