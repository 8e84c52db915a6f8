"""Horizontal partitioning: every agent holds different records with all features (Huang et al. 2020;
Zhang, Khalili & Liu 2018 and 2020; Wang et al. 2020).

The result stacks the agents' data along a leading agents axis so that solvers vectorise over agents:
X (N, m_max, d), y (N, m_max) and a boolean mask (N, m_max) that marks real records. With equal
sizes the mask is all True and nothing is padded. Padded slots hold x = 0 and y = 0, so their margin
y·wᵀx is 0 and their contribution y·φ'(0)·x to any gradient sum is exactly 0; averages must still
divide by ``sizes`` (pass ``mask`` to the losses).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solvers.datasets.validation import (
    as_float_array,
    check_dataset,
    check_n_agents,
    check_random_state,
    check_records,
)


@dataclass(frozen=True, eq=False)
class HorizontalPartition:
    """Per-agent data stacked along a leading agents axis (all arrays read-only).

    Attributes:
      X: features (N, m_max, d); padded slots are 0.
      y: labels (N, m_max) in {-1, +1}; padded slots are 0.
      mask: (N, m_max) bool, True for a real record.
      sizes: (N,) int64, records held by each agent (m_i).
      indices: (N, m_max) int64, for each slot the row of the X given to ``partition_horizontal``;
        −1 for padding.

    A partition built by hand is checked like one from ``partition_horizontal``
    (:func:`check_horizontal_partition`): finite X and y, labels exactly ±1 on real records, zero
    padding, consistent shapes. Writable arrays are copied (and the copies made read-only), so the
    checked data cannot change afterwards. Row norms are checked by the solvers against the bound
    their privacy analysis assumes.

    Raises:
      TypeError, ValueError: the message names the field, the offending index and value.
    """

    X: np.ndarray
    y: np.ndarray
    mask: np.ndarray
    sizes: np.ndarray
    indices: np.ndarray

    def __post_init__(self) -> None:
        for name, array in zip(("X", "y", "mask", "sizes", "indices"), _checked_fields(self), strict=True):
            if array.flags.writeable:
                if array is getattr(self, name):  # the caller's array: freeze a copy, not theirs
                    array = array.copy()
                array.setflags(write=False)
            object.__setattr__(self, name, array)

    @property
    def n_agents(self) -> int:
        """Number of agents N."""
        return int(self.sizes.shape[0])

    @property
    def n_features(self) -> int:
        """Feature dimension d."""
        return int(self.X.shape[2])

    @property
    def equal_sizes(self) -> bool:
        """True when every agent holds the same number of records (no padding)."""
        return bool(np.all(self.sizes == self.sizes[0]))

    def agent_data(self, agent: int) -> tuple[np.ndarray, np.ndarray]:
        """Agent ``agent``'s own records, unpadded: X (m_i, d), y (m_i,)."""
        valid = not isinstance(agent, bool) and isinstance(agent, numbers.Integral)
        if not (valid and 0 <= agent < self.n_agents):
            raise ValueError(f"agent must be an integer in [0, {self.n_agents}), got {agent!r}")
        size = int(self.sizes[agent])
        return self.X[agent, :size], self.y[agent, :size]


def check_horizontal_partition(partition: HorizontalPartition, name: str = "partition") -> None:
    """Check ``partition`` as its constructor does (the problems call this on the partition they
    are given, so a partition that skipped its constructor, e.g. unpickled, is checked too).

    Raises:
      TypeError, ValueError: bad shapes or dtypes, NaN/inf, labels other than ±1 on real records,
        non-zero padding (the message names ``name.field``, the index and the value).
    """
    if not isinstance(partition, HorizontalPartition):
        raise TypeError(f"{name} must be a HorizontalPartition, got {type(partition).__name__}")
    _checked_fields(partition, f"{name}.")


def _checked_fields(partition: HorizontalPartition, prefix: str = "") -> tuple[np.ndarray, ...]:
    X = as_float_array(partition.X, f"{prefix}X")
    y = as_float_array(partition.y, f"{prefix}y")
    if X.ndim != 3 or 0 in X.shape:
        raise ValueError(
            f"{prefix}X must be a 3-D array (n_agents, m_max, n_features) with no empty axis, got shape {X.shape}"
        )
    N, m, _ = X.shape
    if y.shape != (N, m):
        raise ValueError(f"{prefix}y must have shape (n_agents, m_max) = {(N, m)} like X, got {y.shape}")
    mask = np.asarray(partition.mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"{prefix}mask must be a boolean array (True for a real record), got dtype {mask.dtype}")
    if mask.shape != (N, m):
        raise ValueError(f"{prefix}mask must have shape {(N, m)} like y, got {mask.shape}")
    sizes = _integer_array(partition.sizes, f"{prefix}sizes")
    if sizes.shape != (N,):
        raise ValueError(f"{prefix}sizes must have shape ({N},), one count per agent, got {sizes.shape}")
    if np.any(sizes < 1):
        agent = int(np.flatnonzero(sizes < 1)[0])
        raise ValueError(f"{prefix}sizes must be positive: {prefix}sizes[{agent}] = {int(sizes[agent])}")
    expected = np.arange(m)[None, :] < sizes[:, None]
    if not np.array_equal(mask, expected):
        agent = int(np.flatnonzero(np.any(mask != expected, axis=1))[0])
        raise ValueError(
            f"{prefix}mask must mark exactly the first sizes[i] slots of agent i as records: agent {agent} has "
            f"{prefix}sizes[{agent}] = {int(sizes[agent])} but {int(mask[agent].sum())} marked slot(s) "
            f"{np.flatnonzero(mask[agent])[:10].tolist()}"
        )
    indices = _integer_array(partition.indices, f"{prefix}indices")
    if indices.shape != (N, m):
        raise ValueError(f"{prefix}indices must have shape {(N, m)} like y, got {indices.shape}")
    check_records(X, y, record_mask=mask, X_name=f"{prefix}X", y_name=f"{prefix}y", axes=("agent", "slot"))
    return X, y, mask, sizes.astype(np.int64, copy=False), indices.astype(np.int64, copy=False)


def _integer_array(value: object, name: str) -> np.ndarray:
    array = np.asarray(value)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{name} must be an integer array, got dtype {array.dtype}")
    return array


def near_equal_sizes(n_records: int, n_agents: int) -> np.ndarray:
    """Sizes ⌈n/N⌉ for the first n mod N agents and ⌊n/N⌋ for the rest (an even split, as in
    Zhang, Khalili & Liu 2018, Sec. 5)."""
    agents = check_n_agents(int(n_records), n_agents)
    base, extra = divmod(int(n_records), agents)
    return np.where(np.arange(agents) < extra, base + 1, base).astype(np.int64)


def partition_horizontal(
    X: np.ndarray,
    y: np.ndarray,
    n_agents: int,
    *,
    seed: int | np.random.Generator | None,
    sizes: Sequence[int] | np.ndarray | None = None,
) -> HorizontalPartition:
    """Assign the records of (X, y) at random to ``n_agents`` agents, disjointly.

    Args:
      X: features (n_records, d); y: labels (n_records,) in {-1, +1}. Row norms are not checked
        here: the solver checks them against the bound its privacy analysis assumes.
      n_agents: number of agents N (1 ≤ N ≤ n_records).
      seed: int seed or Generator for the random assignment (None draws one from the OS).
      sizes: records per agent. Default: an equal split, which requires N to divide n_records
        (otherwise a ValueError suggests ``sizes=near_equal_sizes(n, N)``). Given sizes must be
        N positive integers summing to n_records exactly: no record is silently dropped.

    Returns:
      A ``HorizontalPartition``; agent i holds the rows ``indices[i, :sizes[i]]`` of X, which are
      consecutive blocks of one seeded random permutation.
    """
    features, labels, _ = check_dataset(X, y, max_norm=None)
    n_records = features.shape[0]
    agents = check_n_agents(n_records, n_agents)
    counts = _check_sizes(sizes, n_records, agents)
    order = check_random_state(seed).permutation(n_records)
    width = int(counts.max())
    mask = np.arange(width)[None, :] < counts[:, None]
    indices = np.full((agents, width), -1, dtype=np.int64)
    indices[mask] = order
    stacked_X = np.zeros((agents, width, features.shape[1]))
    stacked_X[mask] = features[order]
    stacked_y = np.zeros((agents, width))
    stacked_y[mask] = labels[order]
    for array in (stacked_X, stacked_y, mask, counts, indices):
        array.setflags(write=False)
    return HorizontalPartition(X=stacked_X, y=stacked_y, mask=mask, sizes=counts, indices=indices)


def _check_sizes(sizes: Sequence[int] | np.ndarray | None, n_records: int, n_agents: int) -> np.ndarray:
    if sizes is None:
        if n_records % n_agents:
            raise ValueError(
                f"n_records={n_records} is not divisible by n_agents={n_agents}: pass "
                f"sizes=near_equal_sizes({n_records}, {n_agents}) for a near-equal split, "
                "or subset the data first"
            )
        return np.full(n_agents, n_records // n_agents, dtype=np.int64)
    counts = np.asarray(sizes)
    if counts.shape != (n_agents,) or not np.issubdtype(counts.dtype, np.integer):
        raise ValueError(f"sizes must be {n_agents} integers (one per agent), got {np.asarray(sizes).tolist()!r}")
    if np.any(counts < 1):
        agent = int(np.flatnonzero(counts < 1)[0])
        raise ValueError(f"sizes must be positive: sizes[{agent}] = {counts[agent]}")
    if int(counts.sum()) != n_records:
        raise ValueError(f"sizes must sum to n_records={n_records}, got sum {int(counts.sum())}")
    return counts.astype(np.int64)
