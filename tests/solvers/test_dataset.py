"""Tests for solvers.datasets.dataset: the Dataset value and seeded splits."""

import dataclasses

import numpy as np
import pytest

from solvers.datasets.dataset import Dataset, random_split, train_test_split


def small_dataset(n: int = 20, d: int = 3) -> Dataset:
    X = np.arange(n * d, dtype=float).reshape(n, d)
    y = np.where(np.arange(n) % 2 == 0, 1, -1)
    return Dataset(X=X, y=y, feature_names=[f"f{j}" for j in range(d)], name="toy", description="toy data")


def test_dataset_is_an_immutable_copy():
    X = np.ones((4, 2))
    data = Dataset(X=X, y=[1, -1, 1, -1], feature_names=("a", "b"), name="toy")
    X[0, 0] = 5.0
    assert data.X[0, 0] == 1.0
    assert data.y.dtype == np.float64 and data.feature_names == ("a", "b")
    np.testing.assert_array_equal(data.row_ids, np.arange(4))
    with pytest.raises(ValueError, match="read-only"):
        data.X[0, 0] = 2.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.name = "other"
    assert (data.n_records, data.n_features) == (4, 2)


def test_dataset_rejects_bad_names_and_row_ids():
    with pytest.raises(ValueError, match=r"feature_names must name every column of X: got 1 names for 2 columns"):
        Dataset(X=np.ones((3, 2)), y=[1, 1, -1], feature_names=("a",), name="bad")
    with pytest.raises(ValueError, match=r"row_ids must be an integer array of shape \(3,\)"):
        Dataset(X=np.ones((3, 2)), y=[1, 1, -1], feature_names=("a", "b"), name="bad", row_ids=[0, 1])
    with pytest.raises(ValueError, match=r"y must contain only the labels -1 and \+1: y\[2\] = 0.0"):
        Dataset(X=np.ones((3, 2)), y=[1, 1, 0], feature_names=("a", "b"), name="bad")


def test_take_keeps_row_ids_and_provenance():
    data = small_dataset()
    part = data.take(np.array([5, 2]), name="toy[part]")
    np.testing.assert_array_equal(part.row_ids, [5, 2])
    np.testing.assert_array_equal(part.X, data.X[[5, 2]])
    assert part.description == "toy data" and part.name == "toy[part]"
    nested = part.take(np.array([1]))
    np.testing.assert_array_equal(nested.row_ids, [2])
    with pytest.raises(ValueError, match="indices must be a 1-D integer array"):
        data.take(np.array([0.5]))


def test_train_test_split_disjoint_and_reproducible():
    data = small_dataset()
    train, test = train_test_split(data, 12, 5, seed=3)
    assert (train.n_records, test.n_records) == (12, 5)
    assert not set(train.row_ids.tolist()) & set(test.row_ids.tolist())
    np.testing.assert_array_equal(train.X, data.X[train.row_ids])
    again_train, again_test = train_test_split(data, 12, 5, seed=3)
    np.testing.assert_array_equal(train.row_ids, again_train.row_ids)
    np.testing.assert_array_equal(test.row_ids, again_test.row_ids)
    other, _ = train_test_split(data, 12, 5, seed=4)
    assert not np.array_equal(other.row_ids, train.row_ids)
    assert (train.name, test.name) == ("toy[train]", "toy[test]")


def test_split_with_generator_matches_int_seed():
    data = small_dataset()
    a = random_split(data, [7, 7, 6], seed=11)
    b = random_split(data, [7, 7, 6], seed=np.random.default_rng(11))
    for first, second in zip(a, b, strict=True):
        np.testing.assert_array_equal(first.row_ids, second.row_ids)
    assert sorted(np.concatenate([part.row_ids for part in a]).tolist()) == list(range(20))


def test_split_errors():
    data = small_dataset()
    with pytest.raises(ValueError, match=r"sizes must sum to at most the number of records \(20\), got \[15, 6\]"):
        train_test_split(data, 15, 6, seed=0)
    with pytest.raises(ValueError, match=r"sizes\[1\] must be a non-negative integer, got -1"):
        random_split(data, [3, -1], seed=0)
    with pytest.raises(ValueError, match=r"names must have one entry per size"):
        random_split(data, [3, 1], seed=0, names=["a"])
    with pytest.raises(TypeError, match=r"seed must be None, a non-negative int, a numpy.random.SeedSequence or a"):
        random_split(data, [3], seed=1.5)
