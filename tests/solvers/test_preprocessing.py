"""Tests for solvers.datasets.preprocessing."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from solvers.datasets.preprocessing import (
    append_bias,
    max_row_norm,
    maxabs_scale_columns,
    minmax_scale_columns,
    normalize_rows,
    row_norms,
    scale_rows_to_unit_ball,
)

matrices = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=6),
    elements=st.floats(-1e3, 1e3, allow_nan=False),
)


def test_scale_rows_to_unit_ball_example():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    np.testing.assert_allclose(scale_rows_to_unit_ball(X), [[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]])
    assert max_row_norm(X) == 5.0


@given(matrices)
def test_scale_rows_to_unit_ball_properties(X):
    scaled = scale_rows_to_unit_ball(X)
    norms, new_norms = row_norms(X), row_norms(scaled)
    assert np.all(new_norms <= 1 + 1e-12)
    inside = norms <= 1
    np.testing.assert_array_equal(scaled[inside], X[inside])  # rows already inside are untouched
    np.testing.assert_allclose(new_norms[~inside], 1.0, atol=1e-12)


@given(matrices)
def test_normalize_rows_gives_unit_rows_and_keeps_zero_rows(X):
    unit = normalize_rows(X)
    norms = row_norms(X)
    np.testing.assert_allclose(row_norms(unit)[norms > 0], 1.0, atol=1e-12)
    assert np.all(unit[norms == 0] == 0)
    assert np.all(np.isfinite(unit))


def test_minmax_and_maxabs_columns():
    X = np.array([[1.0, 5.0, -2.0], [3.0, 5.0, 4.0], [2.0, 5.0, 1.0]])
    np.testing.assert_allclose(minmax_scale_columns(X), [[0, 0, 0], [1, 0, 1], [0.5, 0, 0.5]])
    np.testing.assert_allclose(maxabs_scale_columns(X), [[1 / 3, 1, -0.5], [1, 1, 1], [2 / 3, 1, 0.25]])
    np.testing.assert_array_equal(maxabs_scale_columns(np.zeros((2, 2))), np.zeros((2, 2)))


def test_append_bias_over_leading_axes():
    out = append_bias(np.zeros((2, 3, 4)), value=0.5)
    assert out.shape == (2, 3, 5)
    assert np.all(out[..., -1] == 0.5) and np.all(out[..., :-1] == 0)


def test_max_row_norm_rejects_empty():
    with pytest.raises(ValueError, match=r"X must contain at least one row, got shape \(0, 3\)"):
        max_row_norm(np.zeros((0, 3)))
