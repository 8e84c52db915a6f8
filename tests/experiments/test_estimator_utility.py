"""experiments.estimator_utility: DPADMMClassifier's defaults against LogisticRegression() on data it
was not tuned on (quick mode, fixed seeds)."""

import json

import pytest

from experiments.estimator_utility import NO_NOISE, QUICK_EPSILONS, main, markdown_table, run_experiment


@pytest.mark.slow
def test_no_noise_accuracy_within_two_points_of_logistic_regression():
    document = run_experiment(None, datasets=("breast cancer",), seeds=2, epsilons=QUICK_EPSILONS, quick=True)
    runs = document["runs"]["breast cancer"]
    for run in runs:  # seeds 0 and 1
        gap = run["logistic_regression"] - run["ours"][repr(NO_NOISE)]
        assert gap <= 0.02, run
        assert run["ours"]["1.0"] >= run["majority"]  # the default budget still learns
    table = markdown_table(document)
    assert "| breast cancer | 2 |" in table and "LogisticRegression()" in table


@pytest.mark.slow
def test_quick_command_writes_table_json_and_figure(tmp_path, capsys):
    assert main(["--quick", "--seeds", "1", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert str(tmp_path.resolve()) in printed and "| Adult | 1 |" in printed
    document = json.loads((tmp_path / "estimator_utility.json").read_text())
    assert set(document["runs"]) == {"breast cancer", "make_classification", "Adult"}
    assert document["epsilons"] == list(QUICK_EPSILONS) and document["quick"] is True
    assert (tmp_path / "privacy_utility.png").stat().st_size > 10_000
    assert (tmp_path / "estimator_utility.md").read_text().startswith("| data set |")


def test_unknown_data_set_is_named():
    with pytest.raises(ValueError, match="datasets must be among"):
        run_experiment(None, datasets=("iris",))
