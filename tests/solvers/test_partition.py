"""Tests for solvers.datasets.partition: horizontal partitioning over agents."""

import numpy as np
import pytest

from solvers.datasets.partition import near_equal_sizes, partition_horizontal


def toy(n: int = 12, d: int = 3):
    X = np.arange(n * d, dtype=float).reshape(n, d) + 1.0  # no all-zero row: padding is recognisable
    y = np.where(np.arange(n) % 3 == 0, 1.0, -1.0)
    return X, y


def test_equal_split_shapes_and_coverage():
    X, y = toy()
    part = partition_horizontal(X, y, 4, seed=0)
    assert part.X.shape == (4, 3, 3) and part.y.shape == (4, 3) and part.mask.shape == (4, 3)
    assert part.equal_sizes and part.mask.all() and part.n_agents == 4 and part.n_features == 3
    np.testing.assert_array_equal(part.sizes, [3, 3, 3, 3])
    assert sorted(part.indices.ravel().tolist()) == list(range(12))  # disjoint and complete
    np.testing.assert_array_equal(part.X, X[part.indices])
    np.testing.assert_array_equal(part.y, y[part.indices])
    assert not part.X.flags.writeable


def test_seed_reproducible_and_random():
    X, y = toy()
    first, second = partition_horizontal(X, y, 4, seed=5), partition_horizontal(X, y, 4, seed=5)
    np.testing.assert_array_equal(first.indices, second.indices)
    assert not np.array_equal(partition_horizontal(X, y, 4, seed=6).indices, first.indices)
    generator = partition_horizontal(X, y, 4, seed=np.random.default_rng(5))
    np.testing.assert_array_equal(generator.indices, first.indices)


def test_unequal_sizes_are_padded_and_masked():
    X, y = toy(n=10)
    part = partition_horizontal(X, y, 3, seed=1, sizes=[5, 2, 3])
    assert part.X.shape == (3, 5, 3) and not part.equal_sizes
    np.testing.assert_array_equal(part.mask.sum(axis=1), [5, 2, 3])
    np.testing.assert_array_equal(part.mask[1], [True, True, False, False, False])
    assert np.all(part.X[~part.mask] == 0) and np.all(part.y[~part.mask] == 0)
    assert np.all(part.indices[~part.mask] == -1)
    real = part.indices[part.mask]
    assert sorted(real.tolist()) == list(range(10))
    X1, y1 = part.agent_data(1)
    np.testing.assert_array_equal(X1, X[part.indices[1, :2]])
    np.testing.assert_array_equal(y1, y[part.indices[1, :2]])


def test_near_equal_sizes():
    np.testing.assert_array_equal(near_equal_sizes(45_222, 5), [9045, 9045, 9044, 9044, 9044])
    sizes = near_equal_sizes(45_222, 100)
    assert sizes.sum() == 45_222 and set(sizes.tolist()) == {452, 453}
    X, y = toy(n=10)
    part = partition_horizontal(X, y, 4, seed=0, sizes=near_equal_sizes(10, 4))
    np.testing.assert_array_equal(part.sizes, [3, 3, 2, 2])


def test_partition_errors():
    X, y = toy(n=10)
    with pytest.raises(
        ValueError, match=r"n_records=10 is not divisible by n_agents=4: pass sizes=near_equal_sizes\(10, 4\)"
    ):
        partition_horizontal(X, y, 4, seed=0)
    with pytest.raises(ValueError, match=r"n_agents=11 exceeds the number of records \(10\)"):
        partition_horizontal(X, y, 11, seed=0)
    with pytest.raises(ValueError, match=r"n_agents must be a positive integer, got 0"):
        partition_horizontal(X, y, 0, seed=0)
    with pytest.raises(TypeError, match=r"n_agents must be a positive integer, got 2.0"):
        partition_horizontal(X, y, 2.0, seed=0)
    with pytest.raises(ValueError, match=r"sizes must sum to n_records=10, got sum 9"):
        partition_horizontal(X, y, 2, seed=0, sizes=[5, 4])
    with pytest.raises(ValueError, match=r"sizes must be positive: sizes\[1\] = 0"):
        partition_horizontal(X, y, 2, seed=0, sizes=[10, 0])
    with pytest.raises(ValueError, match=r"sizes must be 2 integers \(one per agent\)"):
        partition_horizontal(X, y, 2, seed=0, sizes=[5, 3, 2])
    with pytest.raises(ValueError, match=r"y must contain only the labels -1 and \+1: y\[0\] = 2.0"):
        partition_horizontal(X, np.full(10, 2.0), 2, seed=0)
    part = partition_horizontal(X, y, 2, seed=0)
    with pytest.raises(ValueError, match=r"agent must be an integer in \[0, 2\), got 2"):
        part.agent_data(2)
