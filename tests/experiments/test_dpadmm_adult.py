"""Tests for experiments.dpadmm_adult: the experiment writes its table, JSON and figures."""

import json
import math

import pytest

from experiments.dpadmm_adult import main, markdown_table


@pytest.mark.slow
def test_small_run_writes_table_json_and_figures(tmp_path):
    summary = main(["--out", str(tmp_path), "--seeds", "1", "--n-agents", "20", "--iterations", "3"])
    labels = list(summary["algorithms"])
    assert labels == [
        "Algorithm 1 (ADMM, non-private)",
        "Algorithm 2 (naive, paper σ)",
        "Algorithm 2 (naive, tight σ)",
        "DP-ADMM (Algorithm 3)",
    ]
    table = (tmp_path / "dpadmm_adult.md").read_text()
    assert table == markdown_table(json.loads((tmp_path / "dpadmm_adult.json").read_text()))
    assert "| DP-ADMM (Algorithm 3) |" in table and "∞" in table
    assert {p.split("_adult_")[-1] for p in summary["figures"]} == {
        "objective_mean.png",
        "relative_gap.png",
        "empirical_loss_mean.png",
        "test_accuracy.png",
    }
    dp = summary["algorithms"]["DP-ADMM (Algorithm 3)"]["privacy"]
    assert dp["moments_classic"] > dp["exact_gaussian"] > 0 and math.isinf(
        summary["algorithms"]["Algorithm 1 (ADMM, non-private)"]["privacy"]["rdp"]
    )


def test_help_exits_cleanly(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0 and "--out" in capsys.readouterr().out
