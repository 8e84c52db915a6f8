"""Tests for solvers.sharing.data: the Adult (a9a) and gisette stand-ins."""

import numpy as np
import pytest

from solvers.sharing import adult_vertical, gisette_like, gisette_vertical


def test_adult_is_split_at_a9a_attribute_boundary():
    data = adult_vertical(n_train=500, n_test=200, seed=3)
    partition = data.partition
    assert partition.widths.tolist() == [53, 51] and partition.n_samples == 500
    names = partition.feature_names
    first = {names[j].split("_")[0] for j in data.party_columns(0)}
    second = {names[j].split("_")[0] for j in data.party_columns(1)}
    assert first == {
        "age",
        "workclass",
        "fnlwgt",
        "education",
        "education-num",
        "marital-status",
        "occupation",
        "relationship",
    }
    assert second == {"race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country"}
    assert names[:2] == ("age", "workclass_Federal-gov")  # a9a's attribute order
    assert np.linalg.norm(partition.X, axis=1).max() <= 1 + 1e-12 and data.X_test.shape == (200, 104)
    problem = data.problem()
    problem.check_feature_bound(1.0)
    again = adult_vertical(n_train=500, n_test=200, seed=3)
    np.testing.assert_array_equal(again.partition.X, partition.X)


def test_gisette_like_is_seeded_has_5000_features_unit_rows_and_probes():
    X, y = gisette_like(200, seed=0)
    assert X.shape == (200, 5000) and set(np.unique(y)) == {-1.0, 1.0}
    assert np.linalg.norm(X, axis=1).max() <= 1 + 1e-12 and np.abs(X).max() <= 1
    X2, y2 = gisette_like(200, seed=0)
    np.testing.assert_array_equal(X, X2)
    assert not np.array_equal(gisette_like(200, seed=1)[0], X)
    correlation = np.abs(np.corrcoef(np.column_stack([X, y]), rowvar=False)[-1, :-1])
    assert np.sum(correlation > 0.3) > 50 and np.median(correlation) < 0.1  # a sparse-ish signal
    with pytest.raises(ValueError, match="label_flip"):
        gisette_like(10, label_flip=0.6)


def test_gisette_vertical_uses_the_papers_2000_2000_1000_split():
    data = gisette_vertical(n_train=50, n_test=20, seed=0)
    assert data.partition.widths.tolist() == [2000, 2000, 1000]
    assert data.X_test.shape == (20, 5000)
