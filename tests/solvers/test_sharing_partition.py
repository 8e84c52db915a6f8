"""Tests for solvers.sharing.partition: vertical partitioners and their validation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.sharing import VerticalPartition, contiguous_blocks, partition_vertical


def data(n=8, d=7, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.choice([-1.0, 1.0], n)


def test_widths_give_contiguous_blocks_like_the_papers_splits():
    X, y = data(d=7)
    partition = partition_vertical(X, y, [4, 3])
    assert partition.n_parties == 2 and partition.n_samples == 8 and partition.n_features == 7
    assert partition.widths.tolist() == [4, 3] and partition.max_width == 4
    np.testing.assert_array_equal(partition.block(0), X[:, :4])
    np.testing.assert_array_equal(partition.block(1), X[:, 4:])
    assert partition.mask.tolist() == [[True] * 4, [True, True, True, False]]
    assert np.all(partition.D[1, :, 3] == 0) and partition.columns[1, 3] == -1
    np.testing.assert_array_equal(partition.X, X)
    for array in (partition.D, partition.y, partition.columns, partition.mask, partition.X):
        assert not array.flags.writeable


def test_a_number_of_parties_gives_near_equal_blocks():
    assert contiguous_blocks(10, 3) == [4, 3, 3]
    X, y = data(d=10)
    assert partition_vertical(X, y, 3).widths.tolist() == [4, 3, 3]
    with pytest.raises(ValueError, match="every party needs a column"):
        contiguous_blocks(2, 3)


def test_explicit_columns_keep_the_given_order_and_models_round_trip():
    X, y = data(d=5)
    partition = partition_vertical(X, y, [[4, 0], [2], [1, 3]])
    np.testing.assert_array_equal(partition.block(0), X[:, [4, 0]])
    assert partition.block_columns(2).tolist() == [1, 3]
    np.testing.assert_array_equal(partition.X, X)
    x = np.arange(5.0) + 1
    blocks = partition.split_model(x)
    assert blocks.shape == (3, 2) and blocks[1].tolist() == [3.0, 0.0]
    np.testing.assert_array_equal(partition.join_model(blocks), x)
    np.testing.assert_allclose(np.einsum("mnd,md->n", partition.D, blocks), X @ x)


@settings(max_examples=30, deadline=None)
@given(d=st.integers(1, 12), parties=st.integers(1, 4), seed=st.integers(0, 1000))
def test_random_assignments_reconstruct_the_data_and_the_margins(d, parties, seed):
    parties = min(parties, d)
    X, y = data(n=5, d=d, seed=seed)
    owner = np.random.default_rng(seed).permutation(np.arange(d) % parties)
    partition = partition_vertical(X, y, [np.flatnonzero(owner == m).tolist() for m in range(parties)])
    np.testing.assert_array_equal(partition.X, X)
    x = np.random.default_rng(seed + 1).normal(size=(3, d))
    np.testing.assert_allclose(np.einsum("mnd,rmd->rn", partition.D, partition.split_model(x)), x @ X.T, atol=1e-12)


def test_from_blocks_stacks_the_parties_matrices():
    X, y = data(d=5)
    partition = VerticalPartition.from_blocks([X[:, :2], X[:, 2:]], y)
    np.testing.assert_array_equal(partition.X, X)
    assert partition.widths.tolist() == [2, 3]


@pytest.mark.parametrize(
    "blocks, message",
    [
        ([[0, 1, 2], [2, 3, 4, 5, 6]], "overlapping blocks: column 2 is held by party 0 and by party 1"),
        ([[0, 1], [3, 4, 5, 6]], r"missing columns: 1 column\(s\) of X belong to no party \(first: \[2\]\)"),
        ([3, 3], "sum to 6, but X has 7 columns: some columns are missing"),
        ([4, 4], "sum to 8, but X has 7 columns"),
        ([[0, 1, 7], [2, 3, 4, 5, 6]], r"column 7, outside \[0, 7\)"),
        ([[0, 0, 1], [2, 3, 4, 5, 6]], "lists column 0 more than once"),
        ([[], list(range(7))], "blocks\\[0\\] is empty"),
        ([7, 0], "must be >= 1"),
        ("ab", "blocks must be"),
        ([], "blocks must be"),
        ([[0.5, 1], list(range(2, 7))], "integer column indices"),
    ],
)
def test_bad_blocks_raise_clear_errors(blocks, message):
    X, y = data(d=7)
    with pytest.raises(ValueError, match=message):
        partition_vertical(X, y, blocks)


def test_mismatched_sample_counts_raise():
    X, y = data(n=8, d=4)
    with pytest.raises(ValueError, match="blocks\\[0\\] has 8 rows but blocks\\[1\\] has 7"):
        VerticalPartition.from_blocks([X[:, :2], X[:7, 2:]], y)
    with pytest.raises(ValueError, match="the blocks have 8 rows, y has shape \\(7,\\)"):
        VerticalPartition.from_blocks([X[:, :2], X[:, 2:]], y[:7])
    with pytest.raises(ValueError, match="same number of records"):
        partition_vertical(X, y[:7], 2)
    with pytest.raises(ValueError, match="2-D array"):
        VerticalPartition.from_blocks([X[:, 0], X[:, 1:]], y)


def test_bad_data_and_models_raise():
    X, y = data(d=4)
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        partition_vertical(X, y, 2)
    X, y = data(d=4)
    with pytest.raises(ValueError, match="labels -1 and \\+1"):
        partition_vertical(X, np.zeros(8), 2)
    partition = partition_vertical(X, y, 2)
    with pytest.raises(ValueError, match="x must have shape"):
        partition.split_model(np.zeros(3))
    with pytest.raises(ValueError, match="party must be an integer"):
        partition.block(2)
    with pytest.raises(ValueError, match="feature_names must name all 4"):
        partition_vertical(X, y, 2, feature_names=["a"])
