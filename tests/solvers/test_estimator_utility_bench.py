"""The utility benchmark's table and its diffprivlib fallback (the measurements themselves are the script's)."""

from __future__ import annotations

from benchmarks.bench_estimator_utility import diffprivlib_scores, table


def _row(seed, sklearn, ours, dpl):
    return {
        "data": "d",
        "pre": "StandardScaler",
        "seed": seed,
        "majority": 0.6,
        "sklearn": sklearn,
        "ours 1": ours,
        "ours 1e+06": sklearn,
        "dpl 1": dpl,
        "dpl 1e+06": sklearn,
    }


def test_the_table_averages_the_seeds_and_the_gap():
    text = table([_row(0, 0.9, 0.8, 0.7), _row(1, 1.0, 0.9, 0.9)])
    assert "| d | StandardScaler | 60.0 | 95.0 | 85.0 | 95.0 | 80.0 | 95.0 | +5.0 |" in text
    assert "ours − diffprivlib at ε = 1: +5.0 points" in text


def test_without_diffprivlib_s_environment_its_column_is_absent(tmp_path):
    assert diffprivlib_scores([], str(tmp_path / "no-python")) is None
    row = _row(0, 0.9, 0.8, 0.7)
    del row["dpl 1"], row["dpl 1e+06"]
    text = table([row])
    assert "| d | StandardScaler | 60.0 | 90.0 | 80.0 | 90.0 | n/a | n/a | n/a |" in text
    assert "at ε = 1: n/a points" in text
