"""The utility benchmark's table, its diffprivlib fallback and the merge of split runs (the measurements
themselves are the script's)."""

from __future__ import annotations

import json

from benchmarks.bench_estimator_utility import diffprivlib_scores, join, table, timing_text

NAME = "DPADMMClassifier"


def _row(seed, sklearn, big, small, dpl, data="d"):
    return {
        "data": data,
        "pre": "StandardScaler",
        "seed": seed,
        "majority": 0.6,
        "sklearn": sklearn,
        f"{NAME} 1e+06": big,
        f"{NAME} convergence warnings 1e+06": float(seed),
        f"{NAME} 1": small,
        "dpl 1": dpl,
    }


def test_the_table_averages_the_seeds_states_the_gaps_and_both_criteria():
    text = table([_row(0, 0.9, 0.9, 0.8, 0.7), _row(1, 1.0, 0.96, 0.9, 0.9)])
    assert "| d | StandardScaler | 60.0 | 95.0 | 93.0 | -2.0 | 1 | 85.0 | 80.0 | +5.0 |" in text
    assert "2 seeds: at ε = 1e6, 0 of 1 cells within 1 point" in text
    assert "(more than 1 behind: d + StandardScaler (-2.0)), 1 ConvergenceWarnings" in text
    assert "ahead of diffprivlib by +5.0 points on average, never more than 2 behind." in text


def test_a_cell_more_than_2_points_behind_diffprivlib_is_named():
    text = table([_row(0, 0.9, 0.9, 0.6, 0.7), _row(0, 0.9, 0.9, 0.9, 0.86, data="e")])
    assert "1 of 2 cells" not in text and "2 of 2 cells within 1 point" in text
    assert "by -3.0 points on average, more than 2 behind on d + StandardScaler (-10.0)." in text


def test_without_diffprivlib_s_environment_its_column_is_absent(tmp_path):
    assert diffprivlib_scores([], str(tmp_path / "no-python")) is None
    row = _row(0, 0.9, 0.9, 0.8, 0.7)
    del row["dpl 1"]
    text = table([row])
    assert "| d | StandardScaler | 60.0 | 90.0 | 90.0 | +0.0 | 0 | 80.0 | n/a | n/a |" in text
    assert "by n/a points on average" in text


def test_split_runs_are_joined_by_split_and_keep_their_timing(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    timing = {"seconds": {"LogisticRegression": 0.5, NAME: 0.25}, "ratio": {NAME: 0.5}, "repeats": 3, "load_average": 1}
    first.write_text(json.dumps({"rows": [{"data": "d", "pre": "p", "seed": 0, "x 1": 0.5}], "fit_time": timing}))
    second.write_text(json.dumps({"rows": [{"data": "d", "pre": "p", "seed": 0, "y 1": 0.7}], "fit_time": None}))
    rows, found = join([first, second])
    assert rows == [{"data": "d", "pre": "p", "seed": 0, "x 1": 0.5, "y 1": 0.7}]
    assert found == timing
    assert "LogisticRegression() 0.50 s" in timing_text(timing) and f"- {NAME}: 0.25 s (0.5×)" in timing_text(timing)
