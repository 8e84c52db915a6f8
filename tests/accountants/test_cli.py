import json

import pytest
from dp_accounting import dp_event

from accountants import ExactGaussianAccountant
from accountants.__main__ import main


def test_json_output_of_the_gaussian_example(capsys):
    assert main(["--noise-multiplier", "10", "--count", "100", "--delta", "1e-5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["best"]["accountant"] == "exact_gaussian"
    assert report["best"]["epsilon"] == pytest.approx(4.377178095681137, abs=1e-9)
    assert set(report["epsilon_upper"]) == {"exact_gaussian", "rdp", "moments_classic", "pld"}


def test_markdown_table_for_a_saved_ledger(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    ExactGaussianAccountant(ledger_path=path).register(dp_event.GaussianDpEvent(2.0), 5, participant=3)
    assert main(["--ledger", str(path), "--delta", "1e-6"]) == 0
    out = capsys.readouterr().out
    assert "| exact_gaussian |" in out and "(best)" in out and "worst participant 3" in out


def test_help_and_bad_arguments(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0 and "--noise-multiplier" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--count", "many"])
