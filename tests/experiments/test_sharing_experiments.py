"""Tests for experiments.sharing_adult and sharing_gisette (tiny settings: the pipeline, not the numbers)."""

import json
import math

import pytest

from experiments import sharing_adult, sharing_gisette
from solvers.sharing import corollary1_epsilon, gisette_vertical

TINY = [
    "--seeds",
    "1",
    "--exact-iterations",
    "30",
    "--epochs",
    "3",
    "--trials",
    "2",
    "--epsilons",
    "10",
    "1e6",
    "--sigmas",
    "1",
    "--claim-epsilons",
    "1",
    "--learning-rates",
    "1",
    "--rho-scales",
    "0.5",
    "1",
    "--dp-iterations",
    "4",
]


def test_help_describes_the_experiment(capsys):
    with pytest.raises(SystemExit) as exit_info:
        sharing_adult.main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "--out" in text and "--epsilons" in text and "a9a" in text


def test_adult_experiment_writes_tables_json_and_figures(tmp_path):
    summary = sharing_adult.main(["--out", str(tmp_path), "--n-train", "300", "--n-test", "100", *TINY])
    assert {p.split("/")[-1] for p in summary["figures"]} == {"sharing_adult_epsilon.png", "sharing_adult_epochs.png"}
    table = (tmp_path / "sharing_adult.md").read_text()
    assert "ADMM sharing vs distributed SGD per epoch" in table and "NOT differentially private" in table
    stored = json.loads((tmp_path / "sharing_adult.json").read_text())
    assert [row["epsilon"] for row in stored["output_mode"]] == [10.0, 1e6]
    assert stored["output_mode"][0]["exact_gaussian"] == pytest.approx(10.0, rel=1e-9)
    assert len(stored["curves"]["sgd"]["test_log_loss"]["mean"]) == 3
    assert all(row["claim_verified"] is False for row in stored["parameter_mode"])
    assert stored["parameter_mode"][1]["claimed_epsilon"] == pytest.approx(corollary1_epsilon(1.0, 4, 1e-5))
    assert math.isfinite(stored["admm_exact"]["relative_gap"]["mean"])


def test_gisette_experiment_runs_the_same_protocol_on_the_stand_in(monkeypatch, tmp_path):
    captured = {}
    monkeypatch.setattr(sharing_gisette, "run_experiment", lambda out, **kwargs: captured.update(kwargs, out=out))
    sharing_gisette.main(["--out", str(tmp_path), "--n-train", "120"])
    assert captured["data_factory"] is gisette_vertical and captured["name"] == "sharing_gisette"
    assert captured["n_train"] == 120 and captured["b1"] == 30.0
    assert captured["learning_rates"] == [1.0, 3.0, 10.0, 30.0]
    data = gisette_vertical(n_train=40, n_test=10, seed=0)  # what the factory gives run_experiment
    assert data.partition.widths.tolist() == [2000, 2000, 1000]
