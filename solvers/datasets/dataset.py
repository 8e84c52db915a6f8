"""The immutable ``Dataset`` value and seeded random splits of it."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from solvers.datasets.validation import check_dataset, check_random_state


@dataclass(frozen=True, eq=False)
class Dataset:
    """A labelled data set with its provenance.

    Attributes:
      X: features, float64 (n_records, n_features), read-only.
      y: labels in {-1, +1}, float64 (n_records,), read-only.
      feature_names: one name per column of X.
      name: short identifier, e.g. ``"adult-ordinal"`` or ``"adult-ordinal[train]"``.
      description: provenance and preprocessing, in prose (source, licence, every scaling step).
      row_ids: for each record, its row in the source data set (int64, read-only); defaults to
        0..n_records−1. Splits keep these, so a record can be traced back to its source row.
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    name: str
    description: str = ""
    row_ids: np.ndarray = field(default=None)  # type: ignore[arg-type]  # None: __post_init__ sets 0..n−1

    def __post_init__(self) -> None:
        features, labels, _ = check_dataset(self.X, self.y, max_norm=None)
        names = tuple(str(name) for name in self.feature_names)
        if len(names) != features.shape[1]:
            raise ValueError(
                f"feature_names must name every column of X: got {len(names)} names for {features.shape[1]} columns"
            )
        ids = np.arange(features.shape[0]) if self.row_ids is None else np.asarray(self.row_ids)
        if ids.shape != (features.shape[0],) or not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(
                f"row_ids must be an integer array of shape ({features.shape[0]},), "
                f"got dtype {ids.dtype} and shape {ids.shape}"
            )
        object.__setattr__(self, "X", _read_only(features))
        object.__setattr__(self, "y", _read_only(labels))
        object.__setattr__(self, "row_ids", _read_only(ids.astype(np.int64)))
        object.__setattr__(self, "feature_names", names)

    @property
    def n_records(self) -> int:
        """Number of records (rows of X)."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features d (columns of X)."""
        return int(self.X.shape[1])

    def take(self, indices: np.ndarray, name: str | None = None) -> Dataset:
        """The records at ``indices`` (positions in this data set), as a new ``Dataset``."""
        rows = np.asarray(indices)
        if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
            raise ValueError(f"indices must be a 1-D integer array, got {rows.dtype} of shape {rows.shape}")
        return Dataset(
            X=self.X[rows],
            y=self.y[rows],
            feature_names=self.feature_names,
            name=self.name if name is None else name,
            description=self.description,
            row_ids=self.row_ids[rows],
        )


def random_split(
    dataset: Dataset,
    sizes: Sequence[int],
    seed: int | np.random.Generator | None,
    names: Sequence[str] | None = None,
) -> tuple[Dataset, ...]:
    """Draw disjoint random subsets of the given sizes (without replacement) from ``dataset``.

    Args:
      dataset: the data set to split.
      sizes: number of records in each part; their sum may be less than ``dataset.n_records``
        (the remaining records are left out).
      seed: int seed or ``numpy.random.Generator``; None draws a seed from the OS.
      names: suffix for each part's name (``"<name>[<suffix>]"``); defaults to the part index.

    Returns:
      One ``Dataset`` per entry of ``sizes``, in that order.
    """
    counts = [_non_negative_int(size, f"sizes[{i}]") for i, size in enumerate(sizes)]
    if sum(counts) > dataset.n_records:
        raise ValueError(
            f"sizes must sum to at most the number of records ({dataset.n_records}), "
            f"got {list(counts)} (sum {sum(counts)})"
        )
    labels = [str(i) for i in range(len(counts))] if names is None else [str(n) for n in names]
    if len(labels) != len(counts):
        raise ValueError(f"names must have one entry per size: got {len(labels)} names for {len(counts)} sizes")
    order = check_random_state(seed).permutation(dataset.n_records)
    bounds = np.cumsum([0, *counts])
    return tuple(
        dataset.take(order[start:stop], name=f"{dataset.name}[{label}]")
        for start, stop, label in zip(bounds[:-1], bounds[1:], labels, strict=True)
    )


def train_test_split(
    dataset: Dataset, n_train: int, n_test: int, seed: int | np.random.Generator | None
) -> tuple[Dataset, Dataset]:
    """Disjoint random train and test sets of ``n_train`` and ``n_test`` records (see ``random_split``)."""
    train, test = random_split(dataset, [n_train, n_test], seed, names=["train", "test"])
    return train, test


def _read_only(array: np.ndarray) -> np.ndarray:
    copy = np.array(array, copy=True)
    copy.setflags(write=False)
    return copy


def _non_negative_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)
