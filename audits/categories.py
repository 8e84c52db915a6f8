"""Releases as categories: repeated values (abort codes, sentinels, discrete outputs) and quantile bins.

A continuous release never repeats a value exactly; a discrete one (the {1, 0, −1 = abort} answers
of the sparse vector technique, Lyu, Su & Li 2017; a randomized-response category) or a sentinel
(−1000 for "no answer") does. :class:`ColumnCategories`, fitted on the pooled fitting releases of D
and D′, finds per coordinate its *atoms* (values seen at least :data:`MIN_ATOM_COUNT` times and in
at least :data:`ATOM_FRACTION` of the releases, the :data:`MAX_ATOMS` most frequent) and cuts the
other values into :data:`BINS` quantile bins, so every release becomes one category per coordinate.

On them: the likelihood ratio of the joint category (the Neyman–Pearson test of a discrete release
when its categories are few enough to be counted) or of the coordinates' categories as a product
(naive Bayes when the joint has too many), both from frequencies with Jeffreys' add-½ smoothing
(Jeffreys 1946), and the one-hot features of :meth:`ColumnCategories.features` (an indicator per
atom next to the continuous part) for linear and nonlinear classifiers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "ATOM_FRACTION",
    "BINS",
    "MAX_ATOMS",
    "MAX_JOINT",
    "MIN_ATOM_COUNT",
    "ColumnCategories",
    "CategoryTable",
    "repeats_values",
]

#: A value is an atom of its coordinate when it occurs at least this often and in this fraction.
MIN_ATOM_COUNT = 5
ATOM_FRACTION = 0.002
#: At most this many atoms per coordinate (the most frequent), and quantile bins of the rest.
MAX_ATOMS = 32
BINS = 8
#: The joint category is counted when it has at most this many observed values (and every one is
#: seen 20 times on average); otherwise the coordinates' categories are combined as a product.
MAX_JOINT = 4096
_JOINT_MIN_AVERAGE = 20
_REPEAT_CHECK_ROWS = 4_000
#: Jeffreys' prior: half a count added to every cell.
SMOOTHING = 0.5


def repeats_values(x: np.ndarray) -> bool:
    """Whether some column of ``x`` (m, p) repeats a value within its first 4,000 rows (one sort:
    the cheap test that lets a continuous release, which never repeats, skip the categorical fits;
    an atom, at least :data:`ATOM_FRACTION` of the rows, repeats there but with probability < 0.3 %)."""
    head = np.sort(x[:_REPEAT_CHECK_ROWS], axis=0)
    return bool(np.any(head[1:] == head[:-1]))


@dataclass(frozen=True)
class _Column:
    atoms: np.ndarray  # sorted
    edges: np.ndarray  # interior quantile edges of the non-atom values (empty: one bin)
    fill: float  # the mean of the non-atom values (0 when there are none)
    continuous: bool  # has non-atom values

    @property
    def size(self) -> int:
        return len(self.atoms) + len(self.edges) + 1


def _fit_column(column: np.ndarray) -> _Column:
    values, counts = np.unique(column, return_counts=True)
    frequent = counts >= max(MIN_ATOM_COUNT, ATOM_FRACTION * len(column))
    order = np.argsort(-counts[frequent], kind="stable")[:MAX_ATOMS]
    atoms = np.sort(values[frequent][order])
    rest = column[~np.isin(column, atoms)]
    if len(rest) == 0:
        return _Column(atoms, np.empty(0), 0.0, False)
    edges = np.unique(np.quantile(rest, np.linspace(0, 1, BINS + 1)[1:-1]))
    return _Column(atoms, edges, float(rest.mean()), True)


def _atom_index(atoms: np.ndarray, column: np.ndarray) -> np.ndarray:
    """Index of each value among ``atoms`` (−1: not an atom)."""
    if len(atoms) == 0:
        return np.full(len(column), -1)
    position = np.minimum(np.searchsorted(atoms, column), len(atoms) - 1)
    return np.where(atoms[position] == column, position, -1)


class ColumnCategories:
    """Per coordinate, its atoms and quantile bins (module docstring), fitted on releases (m, p)."""

    def __init__(self, fitting: np.ndarray) -> None:
        self.columns = [_fit_column(fitting[:, j]) for j in range(fitting.shape[1])]

    @property
    def has_atoms(self) -> bool:
        """Whether some coordinate repeats values (a discrete or coded release)."""
        return any(len(c.atoms) for c in self.columns)

    @property
    def sizes(self) -> np.ndarray:
        """Categories per coordinate."""
        return np.array([c.size for c in self.columns], dtype=np.int64)

    def codes(self, x: np.ndarray) -> np.ndarray:
        """(R, p) category of each coordinate: its atom's index, else len(atoms) + its bin."""
        out = np.empty(x.shape, dtype=np.int64)
        for j, c in enumerate(self.columns):
            atom = _atom_index(c.atoms, x[:, j])
            out[:, j] = np.where(atom >= 0, atom, len(c.atoms) + np.searchsorted(c.edges, x[:, j], side="right"))
        return out

    def features(self, x: np.ndarray) -> np.ndarray:
        """One-hot features: each coordinate with non-atom values (its atoms replaced by the mean
        of the others, so a sentinel does not stretch a linear fit), then an indicator per atom."""
        parts: list[np.ndarray] = []
        indicators: list[np.ndarray] = []
        for j, c in enumerate(self.columns):
            atom = _atom_index(c.atoms, x[:, j])
            if c.continuous:
                parts.append(np.where(atom >= 0, c.fill, x[:, j])[:, None])
            if len(c.atoms):
                indicators.append((atom[:, None] == np.arange(len(c.atoms))).astype(np.float64))
        return np.concatenate(parts + indicators, axis=1) if parts or indicators else np.zeros((len(x), 0))


def _log_ratio(counts_in: np.ndarray, counts_out: np.ndarray, n_in: int, n_out: int) -> np.ndarray:
    cells = counts_in.shape[-1]
    ratio: np.ndarray = np.log((counts_in + SMOOTHING) / (n_in + SMOOTHING * cells)) - np.log(
        (counts_out + SMOOTHING) / (n_out + SMOOTHING * cells)
    )
    return ratio


class CategoryTable:
    """The smoothed log frequency ratio of categories on D against D′ (module docstring).

    ``joint``: one table of the joint category (None when it would need more than
    :data:`MAX_JOINT` cells or leave fewer than 20 releases per cell on average), else the sum of
    per-coordinate tables (``product``). A category never seen in fitting scores as the empty cell.
    """

    def __init__(self, categories: ColumnCategories, x_in: np.ndarray, x_out: np.ndarray, *, joint: bool) -> None:
        self.categories, self.joint = categories, joint
        codes_in, codes_out = categories.codes(x_in), categories.codes(x_out)
        self.n_in, self.n_out = len(x_in), len(x_out)
        if joint:
            keys_in, keys_out = self._keys(codes_in), self._keys(codes_out)
            self.keys = np.unique(np.concatenate([keys_in, keys_out]))
            cells = len(self.keys) + 1  # the last cell: unseen in fitting
            counts_in = np.bincount(self._cell(keys_in), minlength=cells)
            counts_out = np.bincount(self._cell(keys_out), minlength=cells)
            self.table = _log_ratio(counts_in, counts_out, self.n_in, self.n_out)
        else:
            self.table = np.zeros((codes_in.shape[1], int(categories.sizes.max())))
            for j, size in enumerate(categories.sizes):  # cells a coordinate does not have stay 0
                self.table[j, :size] = _log_ratio(
                    np.bincount(codes_in[:, j], minlength=size),
                    np.bincount(codes_out[:, j], minlength=size),
                    self.n_in,
                    self.n_out,
                )

    @staticmethod
    def joint_cells(categories: ColumnCategories, x_in: np.ndarray, x_out: np.ndarray) -> int | None:
        """The observed joint categories of the fitting releases (None: too many to count)."""
        sizes = categories.sizes
        if float(np.sum(np.log2(sizes))) > 62:
            return None
        codes = categories.codes(np.concatenate([x_in, x_out]))
        radix = np.concatenate([[1], np.cumprod(sizes[:-1])]).astype(np.int64)
        observed = len(np.unique(codes @ radix))
        limit = min(MAX_JOINT, (len(x_in) + len(x_out)) // _JOINT_MIN_AVERAGE)
        return observed if observed <= limit else None

    def _keys(self, codes: np.ndarray) -> np.ndarray:
        sizes = self.categories.sizes
        radix = np.concatenate([[1], np.cumprod(sizes[:-1])]).astype(np.int64)
        keys: np.ndarray = codes @ radix
        return keys

    def _cell(self, keys: np.ndarray) -> np.ndarray:
        position = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(self.keys[position] == keys, position, len(self.keys))

    def score(self, x: np.ndarray) -> np.ndarray:
        """The log frequency ratio of each release's category (higher: more frequent on D)."""
        codes = self.categories.codes(x)
        if self.joint:
            return np.asarray(self.table[self._cell(self._keys(codes))])
        return np.asarray(self.table[np.arange(codes.shape[1]), codes].sum(axis=1))
