"""Tests for solvers.datasets.validation: every bad input raises its own clear error."""

import warnings

import numpy as np
import pytest

from solvers.datasets.validation import (
    RowsClippedWarning,
    check_dataset,
    check_n_agents,
    check_random_state,
)


def good(n: int = 4, d: int = 2):
    X = np.full((n, d), 0.5 / np.sqrt(d))
    y = np.array([1, -1] * (n // 2))
    return X, y


def test_valid_data_passes_unchanged():
    X, y = good()
    checked = check_dataset(X, y)
    np.testing.assert_array_equal(checked.X, X)
    assert checked.y.dtype == np.float64 and checked.clipped_rows.size == 0
    X_int = np.array([[1, 0], [0, 1]])
    assert check_dataset(X_int, [1, -1]).X.dtype == np.float64  # ‖x‖ = 1 is inside the ball


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_features(bad):
    X, y = good()
    X[2, 1] = bad
    with pytest.raises(ValueError, match=rf"X must be finite: X\[2, 1\] = {bad} \(1 row\(s\) affected\)"):
        check_dataset(X, y)


def test_labels_must_be_plus_minus_one():
    X, y = good()
    with pytest.raises(ValueError, match=r"y must contain only the labels -1 and \+1: y\[1\] = 0.0 \(2 invalid"):
        check_dataset(X, [1, 0, 0, -1])
    with pytest.raises(ValueError, match=r"y\[3\] = nan"):
        check_dataset(X, [1, -1, 1, np.nan])


def test_shapes():
    X, y = good()
    with pytest.raises(
        ValueError, match=r"X and y must have the same number of records: X has 4 rows, y has 3 entries"
    ):
        check_dataset(X, y[:3])
    with pytest.raises(ValueError, match=r"X must be a 2-D array \(n_records, n_features\), got shape \(4,\)"):
        check_dataset(X[:, 0], y)
    with pytest.raises(ValueError, match=r"y must be a 1-D array \(n_records,\), got shape \(4, 1\)"):
        check_dataset(X, y[:, None])
    with pytest.raises(ValueError, match=r"X must have at least one record and one feature, got shape \(0, 2\)"):
        check_dataset(np.zeros((0, 2)), [])
    with pytest.raises(TypeError, match=r"X must be a real numeric array, got dtype <U1"):
        check_dataset([["a", "b"]], [1])
    with pytest.raises(TypeError, match=r"y must be a real numeric array, got dtype bool"):
        check_dataset(X, np.ones(4, dtype=bool))


def test_rows_outside_the_ball_raise_unless_clipped():
    X, y = good()
    X[3] = [3.0, 4.0]
    with pytest.raises(
        ValueError, match=r"X row 3 has L2 norm 5 > max_norm=1 \(1 row\(s\) outside the ball\).*clip=True"
    ):
        check_dataset(X, y)
    with pytest.warns(
        RowsClippedWarning, match=r"clipped 1 row\(s\) of X into the ball of radius max_norm=1 \(first rows: \[3\]"
    ):
        checked = check_dataset(X, y, clip=True)
    np.testing.assert_allclose(checked.X[3], [0.6, 0.8])
    np.testing.assert_array_equal(checked.X[:3], X[:3])
    np.testing.assert_array_equal(checked.clipped_rows, [3])
    assert X[3, 0] == 3.0  # the caller's array is not modified


def test_custom_and_disabled_norm_bound():
    X, y = good()
    X[0] = [3.0, 4.0]
    check_dataset(X, y, max_norm=5.0)
    check_dataset(X, y, max_norm=None)
    with pytest.raises(ValueError, match=r"X row 0 has L2 norm 5 > max_norm=2"):
        check_dataset(X, y, max_norm=2.0)
    with pytest.raises(ValueError, match=r"^max_norm must be finite and > 0 \(a real number\), got -1.0$"):
        check_dataset(X, y, max_norm=-1.0)
    with pytest.raises(TypeError, match=r"^max_norm must be finite and > 0 \(a real number\), got '1'$"):
        check_dataset(X, y, max_norm="1")


def test_rounding_above_one_is_accepted_silently():
    X = np.array([[1.0 + 1e-13, 0.0], [0.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checked = check_dataset(X, [1, -1])
    assert checked.clipped_rows.size == 0


def test_fewer_records_than_agents():
    assert check_n_agents(10, 10) == 10
    with pytest.raises(
        ValueError, match=r"n_agents=5 exceeds the number of records \(3\): every agent needs at least one record"
    ):
        check_n_agents(3, 5)
    with pytest.raises(TypeError, match=r"n_agents must be a positive integer, got True"):
        check_n_agents(3, True)


def test_check_random_state():
    generator = np.random.default_rng(0)
    assert check_random_state(generator) is generator
    assert check_random_state(4).random() == np.random.default_rng(4).random()
    sequence = np.random.SeedSequence(4)
    assert check_random_state(sequence).random() == np.random.default_rng(4).random()
    assert isinstance(check_random_state(None), np.random.Generator)
    with pytest.raises(ValueError, match=r"rng must be a non-negative int, got -1"):
        check_random_state(-1, name="rng")
    with pytest.raises(TypeError, match=r"seed must be None, a non-negative int, .* got 1.5"):
        check_random_state(1.5)
