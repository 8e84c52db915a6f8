"""Vertical partitioning: M parties hold different feature columns of the same N samples (Hu et al. 2019).

Party m holds ``D_m ∈ R^{N×d_m}``, its columns of the full data matrix ``D = [D_1 … D_M]``, with the
rows aligned across parties (Hu et al. 2019, Sec. 2); the server holds the labels. To vectorise over parties,
the blocks are stacked along a leading parties axis and padded with zero columns to the widest
block: ``D`` (M, N, d_max) with ``mask`` (M, d_max) marking real columns. A zero column contributes
nothing to ``D_m x_m`` and, with a strongly convex regulariser, its coefficient stays exactly 0.

Three ways to build one, all validated with errors that name the argument:

  - ``partition_vertical(X, y, 3)``: three contiguous near-equal column blocks;
  - ``partition_vertical(X, y, [66, 57])``: contiguous blocks of the given widths, as the paper
    splits a9a (66/57) and gisette (2000/2000/1000) (Hu et al. 2019, Sec. 5);
  - ``partition_vertical(X, y, [[0, 2], [1, 3]])``: explicit column indices per party; every
    column must belong to exactly one party (overlaps and missing columns are errors);
  - ``VerticalPartition.from_blocks([D_1, D_2], y)``: the parties' own matrices, which must have
    the same number of rows as each other and as ``y``.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from accountants.constraints import Integer
from solvers.datasets import check_dataset, check_records
from solvers.datasets.validation import as_float_array

__all__ = ["VerticalPartition", "check_vertical_partition", "contiguous_blocks", "partition_vertical"]


@dataclass(frozen=True, eq=False)
class VerticalPartition:
    """The parties' column blocks stacked along a leading parties axis (all arrays read-only).

    Attributes:
      D: (M, N, d_max) blocks; party m's columns are ``D[m, :, :widths[m]]``, the rest is 0.
      y: (N,) labels in {−1, +1}, held by the server.
      columns: (M, d_max) int64: for each slot, the column of the full matrix it holds; −1 pads.
      mask: (M, d_max) bool, True for a real column.
      widths: (M,) int64, d_m.
      feature_names: names of the full matrix's columns (original order), if known.

    A partition built by hand is checked like one from ``partition_vertical``
    (:func:`check_vertical_partition`): finite D, labels exactly ±1, zero padded columns, every
    column held by exactly one party. Writable arrays are copied (the copies made read-only). Row
    norms ‖D_m^i‖ are checked by the private solvers, against the bound their analysis assumes.

    Raises:
      TypeError, ValueError: the message names the field, the offending index and value.
    """

    D: np.ndarray
    y: np.ndarray
    columns: np.ndarray
    mask: np.ndarray
    widths: np.ndarray
    feature_names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        checked = _checked_fields(self)
        for name, array in zip(("D", "y", "columns", "mask", "widths"), checked[:5], strict=True):
            if array.flags.writeable:
                if array is getattr(self, name):  # the caller's array: freeze a copy, not theirs
                    array = array.copy()
                array.setflags(write=False)
            object.__setattr__(self, name, array)
        object.__setattr__(self, "feature_names", checked[5])

    # --------------------------------------------------------------------------------------------
    @classmethod
    def from_blocks(
        cls, blocks: Sequence[np.ndarray], y: np.ndarray, feature_names: Sequence[str] | None = None
    ) -> VerticalPartition:
        """Build a partition from the parties' own matrices ``blocks[m]`` (N, d_m), in order.

        Party m's columns become columns sum(d_<m) .. sum(d_≤m) − 1 of the full matrix.

        Raises:
          ValueError: no block, a block that is not 2-D or has no column, blocks with different
            numbers of rows, or ``y`` with a different number of samples (the message names the
            block and both counts); NaN/inf or labels other than ±1 (``check_dataset``).
        """
        if isinstance(blocks, np.ndarray) or not isinstance(blocks, Sequence) or len(blocks) == 0:
            raise ValueError("blocks must be a non-empty sequence of (N, d_m) arrays, one per party")
        arrays = []
        for m, block in enumerate(blocks):
            array = np.asarray(block)
            if array.ndim != 2 or array.shape[1] == 0:
                raise ValueError(f"blocks[{m}] must be a 2-D array (N, d_m) with d_m >= 1, got shape {array.shape}")
            arrays.append(array)
        labels = np.asarray(y)
        n_samples = arrays[0].shape[0]
        for m, array in enumerate(arrays):
            if array.shape[0] != n_samples:
                raise ValueError(
                    f"every party must hold the same samples (rows aligned): blocks[0] has {n_samples} "
                    f"rows but blocks[{m}] has {array.shape[0]}"
                )
        if labels.ndim != 1 or labels.shape[0] != n_samples:
            raise ValueError(
                f"y must hold one label per sample: the blocks have {n_samples} rows, y has shape {labels.shape}"
            )
        widths = [a.shape[1] for a in arrays]
        X = np.concatenate(arrays, axis=1)
        bounds = np.cumsum([0, *widths])
        return partition_vertical(
            X,
            labels,
            [list(range(bounds[m], bounds[m + 1])) for m in range(len(widths))],
            feature_names=feature_names,
        )

    # --------------------------------------------------------------------------------------------
    @property
    def n_parties(self) -> int:
        """M."""
        return int(self.widths.shape[0])

    @property
    def n_samples(self) -> int:
        """N."""
        return int(self.D.shape[1])

    @property
    def n_features(self) -> int:
        """d = Σ_m d_m."""
        return int(self.widths.sum())

    @property
    def max_width(self) -> int:
        """d_max."""
        return int(self.D.shape[2])

    def block(self, party: int) -> np.ndarray:
        """Party ``party``'s matrix D_m (N, d_m), unpadded (a read-only view)."""
        m = self._party(party)
        return self.D[m, :, : int(self.widths[m])]

    def block_columns(self, party: int) -> np.ndarray:
        """The full-matrix columns (d_m,) that party ``party`` holds, in its slot order."""
        m = self._party(party)
        return self.columns[m, : int(self.widths[m])]

    @functools.cached_property
    def X(self) -> np.ndarray:
        """The full matrix (N, d) in the original column order (read-only, built on first use)."""
        full = np.zeros((self.n_samples, self.n_features))
        full[:, self.columns[self.mask]] = self.D.transpose(1, 0, 2)[:, self.mask]
        full.setflags(write=False)
        return full

    def split_model(self, x: np.ndarray) -> np.ndarray:
        """The full model x (..., d) as padded per-party blocks (..., M, d_max), 0 on padding."""
        x = np.asarray(x, dtype=np.float64)
        if x.shape[-1:] != (self.n_features,):
            raise ValueError(f"x must have shape (..., {self.n_features}), got {x.shape}")
        blocks = np.zeros(x.shape[:-1] + (self.n_parties, self.max_width))
        blocks[..., self.mask] = x[..., self.columns[self.mask]]
        return blocks

    def join_model(self, blocks: np.ndarray) -> np.ndarray:
        """Padded per-party blocks (..., M, d_max) as the full model (..., d) (padding dropped)."""
        blocks = np.asarray(blocks, dtype=np.float64)
        if blocks.shape[-2:] != (self.n_parties, self.max_width):
            raise ValueError(f"blocks must have shape (..., {self.n_parties}, {self.max_width}), got {blocks.shape}")
        x = np.empty(blocks.shape[:-2] + (self.n_features,))
        x[..., self.columns[self.mask]] = blocks[..., self.mask]
        return x

    def max_row_norms(self) -> np.ndarray:
        """(M,) the largest ‖D_m^i‖₂ over the samples, per party."""
        return np.sqrt(np.einsum("mnd,mnd->mn", self.D, self.D).max(axis=1))

    def _party(self, party: object) -> int:
        if isinstance(party, bool) or not isinstance(party, numbers.Integral) or not 0 <= int(party) < self.n_parties:
            raise ValueError(f"party must be an integer in [0, {self.n_parties}), got {party!r}")
        return int(party)


def check_vertical_partition(partition: VerticalPartition, name: str = "partition") -> None:
    """Check ``partition`` as its constructor does (``VerticalProblem`` calls this, so a partition
    that skipped its constructor, e.g. unpickled, is checked too).

    Raises:
      TypeError, ValueError: bad shapes or dtypes, NaN/inf, labels other than ±1, non-zero padded
        columns, columns held by no party or by two (the message names ``name.field``).
    """
    if not isinstance(partition, VerticalPartition):
        raise TypeError(f"{name} must be a VerticalPartition, got {type(partition).__name__}")
    _checked_fields(partition, f"{name}.")


def _checked_fields(
    partition: VerticalPartition, prefix: str = ""
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[str, ...] | None]:
    D = as_float_array(partition.D, f"{prefix}D")
    y = as_float_array(partition.y, f"{prefix}y")
    if D.ndim != 3 or 0 in D.shape:
        raise ValueError(
            f"{prefix}D must be a 3-D array (n_parties, n_samples, d_max) with no empty axis, got shape {D.shape}"
        )
    M, N, width = D.shape
    if y.shape != (N,):
        raise ValueError(f"{prefix}y must hold one label per sample, shape ({N},), got {y.shape}")
    mask = np.asarray(partition.mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"{prefix}mask must be a boolean array (True for a real column), got dtype {mask.dtype}")
    if mask.shape != (M, width):
        raise ValueError(f"{prefix}mask must have shape {(M, width)}, got {mask.shape}")
    widths = _integer_array(partition.widths, f"{prefix}widths")
    if widths.shape != (M,) or np.any(widths < 1):
        raise ValueError(f"{prefix}widths must be {M} integers >= 1 (one per party), got {widths.tolist()!r}")
    expected = np.arange(width)[None, :] < widths[:, None]
    if not np.array_equal(mask, expected):
        party = int(np.flatnonzero(np.any(mask != expected, axis=1))[0])
        raise ValueError(
            f"{prefix}mask must mark exactly the first widths[m] slots of party m: party {party} has "
            f"{prefix}widths[{party}] = {int(widths[party])} but {int(mask[party].sum())} marked slot(s)"
        )
    columns = _integer_array(partition.columns, f"{prefix}columns")
    if columns.shape != (M, width):
        raise ValueError(f"{prefix}columns must have shape {(M, width)}, got {columns.shape}")
    held = np.sort(columns[mask])
    if not np.array_equal(held, np.arange(held.size)):
        raise ValueError(
            f"{prefix}columns must hold every column 0..{held.size - 1} of the full matrix exactly once "
            f"(every column in exactly one party), got {held[:20].tolist()}"
        )
    names = partition.feature_names
    if names is not None:
        names = tuple(str(n) for n in names)
        if len(names) != held.size:
            raise ValueError(f"{prefix}feature_names must name all {held.size} columns, got {len(names)} names")
    check_records(D, y, column_mask=mask, X_name=f"{prefix}D", y_name=f"{prefix}y", axes=("party", "sample"))
    return D, y, columns.astype(np.int64, copy=False), mask, widths.astype(np.int64, copy=False), names


def _integer_array(value: object, name: str) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{name} must be an integer array, got dtype {array.dtype}")
    return array


def contiguous_blocks(n_features: int, n_parties: int) -> list[int]:
    """Widths of ``n_parties`` contiguous near-equal blocks of ``n_features`` columns (wider first)."""
    Integer(1).check(n_parties, "n_parties")
    if n_parties > n_features:
        raise ValueError(
            f"n_parties={n_parties} exceeds the number of features ({n_features}): every party needs a column"
        )
    base, extra = divmod(int(n_features), int(n_parties))
    return [base + 1 if m < extra else base for m in range(int(n_parties))]


def partition_vertical(
    X: np.ndarray,
    y: np.ndarray,
    blocks: int | Sequence[int] | Sequence[Sequence[int]],
    *,
    feature_names: Sequence[str] | None = None,
) -> VerticalPartition:
    """Split the columns of X over parties; every party keeps every sample.

    Args:
      X: features (N, d), finite; y: labels (N,) in {−1, +1} (the server's).
      blocks: the number of parties M (contiguous near-equal blocks), a sequence of M widths
        (contiguous blocks in column order; the widths must sum to d), or a sequence of M sequences
        of column indices (each column in exactly one party; a party's slot order is as given).
      feature_names: optional names of X's columns.

    Returns:
      A ``VerticalPartition``.

    Raises:
      TypeError, ValueError: bad X or y (``check_dataset``: shapes, NaN, labels), or bad blocks:
        an empty block, widths that do not sum to d, a column index out of range, a column held by
        two parties (overlap) or by none (missing). Row norms are not checked here: the private
        solvers check them against the bound their analysis assumes.
    """
    features, labels, _ = check_dataset(X, y, max_norm=None)
    n_samples, n_features = features.shape
    index_lists = _column_lists(blocks, n_features)
    n_parties = len(index_lists)
    widths = np.array([len(cols) for cols in index_lists], dtype=np.int64)
    width = int(widths.max())
    columns = np.full((n_parties, width), -1, dtype=np.int64)
    mask = np.arange(width)[None, :] < widths[:, None]
    columns[mask] = np.concatenate(index_lists)
    D = np.zeros((n_parties, n_samples, width))
    for m, cols in enumerate(index_lists):  # once, at construction (M is small)
        D[m, :, : len(cols)] = features[:, cols]
    names = None
    if feature_names is not None:
        names = tuple(str(name) for name in feature_names)
        if len(names) != n_features:
            raise ValueError(f"feature_names must name all {n_features} columns, got {len(names)} names")
    for array in (D, labels, columns, mask, widths):
        array.setflags(write=False)
    return VerticalPartition(D=D, y=labels, columns=columns, mask=mask, widths=widths, feature_names=names)


def _column_lists(blocks: object, n_features: int) -> list[np.ndarray]:
    if isinstance(blocks, numbers.Integral) and not isinstance(blocks, bool):
        widths = contiguous_blocks(n_features, int(blocks))
        return _contiguous(widths)
    if isinstance(blocks, (str, bytes, bool)) or not isinstance(blocks, (Sequence, np.ndarray)) or len(blocks) == 0:
        raise ValueError(
            "blocks must be a number of parties, a non-empty sequence of block widths, or a sequence "
            f"of column-index sequences, got {blocks!r}"
        )
    items = list(blocks)
    if all(isinstance(b, numbers.Integral) and not isinstance(b, bool) for b in items):
        widths = [int(b) for b in items]
        for m, w in enumerate(widths):
            if w < 1:
                raise ValueError(f"blocks[{m}] (a width) must be >= 1, got {w}")
        if sum(widths) != n_features:
            raise ValueError(
                f"the block widths {widths} sum to {sum(widths)}, but X has {n_features} columns: "
                + ("some columns are missing" if sum(widths) < n_features else "they overlap or exceed X")
            )
        return _contiguous(widths)
    lists = []
    owner = np.full(n_features, -1, dtype=np.int64)
    for m, item in enumerate(items):
        if isinstance(item, (str, bytes)) or not isinstance(item, (Sequence, np.ndarray)):
            raise ValueError(f"blocks[{m}] must be a sequence of column indices, got {item!r}")
        cols = np.asarray(item)
        if cols.size == 0:
            raise ValueError(f"blocks[{m}] is empty: every party must hold at least one column")
        if cols.ndim != 1 or not (np.issubdtype(cols.dtype, np.integer) and cols.dtype != np.bool_):
            raise ValueError(f"blocks[{m}] must be a 1-D sequence of integer column indices, got {item!r}")
        bad = (cols < 0) | (cols >= n_features)
        if bad.any():
            raise ValueError(f"blocks[{m}] holds column {int(cols[bad][0])}, outside [0, {n_features})")
        unique, counts = np.unique(cols, return_counts=True)
        if (counts > 1).any():
            raise ValueError(f"blocks[{m}] lists column {int(unique[counts > 1][0])} more than once")
        taken = owner[cols] >= 0
        if taken.any():
            column = int(cols[taken][0])
            raise ValueError(
                f"overlapping blocks: column {column} is held by party {int(owner[column])} and by party {m}"
            )
        owner[cols] = m
        lists.append(cols.astype(np.int64))
    missing = np.flatnonzero(owner < 0)
    if missing.size:
        raise ValueError(
            f"missing columns: {missing.size} column(s) of X belong to no party (first: {missing[:10].tolist()}); "
            "drop them from X first if they are not to be used"
        )
    return lists


def _contiguous(widths: list[int]) -> list[np.ndarray]:
    bounds = np.cumsum([0, *widths])
    return [np.arange(bounds[m], bounds[m + 1], dtype=np.int64) for m in range(len(widths))]
