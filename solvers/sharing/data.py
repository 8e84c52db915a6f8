"""Stand-ins for the data sets of Hu et al. 2019 (Sec. 5), which cannot be downloaded here.

- a9a → :func:`adult_vertical`: the bundled UCI Adult census records (a9a is a binarisation of
  the same records), one-hot encoded (``load_adult("onehot")``, d = 104, unit rows), columns
  reordered into a9a's attribute order and split at the same attribute boundary as the paper's
  66/57 split of a9a: party 1 holds age, workclass, fnlwgt, education, education-num,
  marital-status, occupation, relationship (53 columns); party 2 holds race, sex, capital-gain,
  capital-loss, hours-per-week, native-country (51 columns). Default sizes: 30,162 train /
  15,060 test (adult.data / adult.test without missing values, drawn at random).
- gisette → :func:`gisette_like`: a seeded synthetic generator with 5,000 features, half of them
  "probes" without information (as in gisette's design, Guyon et al. 2004), the other half noisy
  sparse combinations of a few latent factors that carry the label; columns scaled to [−1, 1]
  (like ``gisette_scale``), then rows to the unit ball (Assumption 2.3 of Hu et al. 2019), and split into the
  paper's contiguous 2000/2000/1000 blocks after a seeded column shuffle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers.datasets import (
    check_random_state,
    load_adult,
    maxabs_scale_columns,
    random_split,
    scale_rows_to_unit_ball,
)
from solvers.datasets.adult import ORDINAL_ATTRIBUTES
from solvers.sharing.partition import VerticalPartition, partition_vertical
from solvers.sharing.problem import VerticalProblem

__all__ = [
    "A9A_ATTRIBUTE_ORDER",
    "GISETTE_BLOCKS",
    "VerticalData",
    "adult_vertical",
    "gisette_like",
    "gisette_vertical",
]

#: a9a's attribute order (LIBSVM); the paper's party 1 = features 1–66 = the first 8 attributes.
A9A_ATTRIBUTE_ORDER = ORDINAL_ATTRIBUTES  # a9a keeps UCI Adult's attribute order
A9A_PARTY1_ATTRIBUTES = 8
#: Sizes of adult.data and adult.test after dropping rows with missing values.
ADULT_SIZES = (30_162, 15_060)
#: The paper's gisette split: P1 = 1–2000, P2 = 2001–4000, P3 = 4001–5000.
GISETTE_BLOCKS = (2000, 2000, 1000)


@dataclass(frozen=True, eq=False)
class VerticalData:
    """A vertically partitioned training set with its test set (full rows, original column order)."""

    partition: VerticalPartition
    X_test: np.ndarray
    y_test: np.ndarray
    name: str
    description: str

    def problem(self, **kwargs) -> VerticalProblem:
        """The ``VerticalProblem`` on this data (kwargs: loss, regularizer, lam, optimum)."""
        return VerticalProblem(self.partition, X_test=self.X_test, y_test=self.y_test, **kwargs)

    def party_columns(self, party: int) -> np.ndarray:
        """The columns (original order) party ``party`` holds, e.g. for a party-1-only baseline."""
        return self.partition.block_columns(party)


def adult_vertical(
    n_train: int | None = None, n_test: int | None = None, seed: int | np.random.Generator | None = 0
) -> VerticalData:
    """Adult split like the paper's a9a: 2 parties at a9a's attribute boundary (53 / 51 columns).

    Args:
      n_train, n_test: sizes of the random train / test parts (default 30,162 / 15,060; smaller
        values subsample, e.g. for tests).
      seed: seed of the random split.
    """
    data = load_adult("onehot")
    names = data.feature_names
    order, boundary = [], 0
    for a, attribute in enumerate(A9A_ATTRIBUTE_ORDER):
        order += [j for j, name in enumerate(names) if name == attribute or name.startswith(f"{attribute}_")]
        if a + 1 == A9A_PARTY1_ATTRIBUTES:
            boundary = len(order)
    if sorted(order) != list(range(len(names))):
        raise RuntimeError("the Adult one-hot columns do not match a9a's attributes")
    n_train = ADULT_SIZES[0] if n_train is None else n_train
    n_test = ADULT_SIZES[1] if n_test is None else n_test
    train, test = random_split(data, [n_train, n_test], seed, names=("train", "test"))
    partition = partition_vertical(
        train.X[:, order],
        train.y,
        [boundary, len(order) - boundary],
        feature_names=[names[j] for j in order],
    )
    return VerticalData(
        partition=partition,
        X_test=test.X[:, order],
        y_test=test.y,
        name="adult-vertical",
        description=(
            f"{data.description} Columns in a9a's attribute order, split after 'relationship' as the paper's "
            f"a9a split (features 1–66 / 67–123): {boundary} / {len(order) - boundary} columns; "
            f"{n_train} train / {n_test} test records drawn at random (seed {seed!r})."
        ),
    )


def gisette_like(
    n_samples: int,
    seed: int | np.random.Generator | None = 0,
    *,
    n_features: int = 5000,
    n_probes: int | None = None,
    n_factors: int = 20,
    feature_noise: float = 0.5,
    label_flip: float = 0.01,
) -> tuple[np.ndarray, np.ndarray]:
    """A seeded synthetic stand-in for gisette: X (n_samples, n_features) with rows in the unit ball, y ±1.

    Generation: latent factors h ~ N(0, I_k) (k = ``n_factors``); label y = sign(hᵀβ), β ~ N(0, I_k),
    flipped with probability ``label_flip``. Informative feature j loads on one factor only (a sparse
    signal), the factors' features forming contiguous regions in column order (like neighbouring
    pixels): x_j = a_j h_{f(j)} + N(0, ``feature_noise``²). The ``n_probes`` probes (default half
    the features, as in gisette) are N(0, 1) noise independent of y, scattered at random positions
    among the informative columns (which keep their order). Columns are then scaled by their max
    |value| to [−1, 1] and rows into the unit ball. With contiguous party blocks, each party sees
    only some factors, so the parties need each other (Hu et al. 2019, Sec. 5: Fig. 3's "significant
    performance boost").
    """
    rng = check_random_state(seed)
    if n_samples < 2 or n_features < 2:
        raise ValueError(f"need n_samples >= 2 and n_features >= 2, got {n_samples}, {n_features}")
    n_probes = n_features // 2 if n_probes is None else int(n_probes)
    n_informative = n_features - n_probes
    if not 0 <= n_probes < n_features:
        raise ValueError(f"n_probes must be in [0, {n_features}), got {n_probes}")
    if not 1 <= n_factors <= n_informative:
        raise ValueError(f"n_factors must be in [1, {n_informative}], got {n_factors}")
    if not 0 <= label_flip < 0.5:
        raise ValueError(f"label_flip must be in [0, 0.5), got {label_flip}")
    factors = rng.standard_normal((n_samples, n_factors))
    beta = rng.standard_normal(n_factors)
    y = np.where(factors @ beta >= 0, 1.0, -1.0)
    y = np.where(rng.random(n_samples) < label_flip, -y, y)
    owner = np.arange(n_informative) * n_factors // n_informative
    loadings = rng.choice([-1.0, 1.0], n_informative) * rng.uniform(0.5, 1.5, n_informative)
    informative = factors[:, owner] * loadings + feature_noise * rng.standard_normal((n_samples, n_informative))
    X = np.empty((n_samples, n_features))
    positions = np.sort(rng.choice(n_features, n_informative, replace=False))
    probe_positions = np.setdiff1d(np.arange(n_features), positions)
    X[:, positions] = informative
    X[:, probe_positions] = rng.standard_normal((n_samples, n_probes))
    return scale_rows_to_unit_ball(maxabs_scale_columns(X)), y


def gisette_vertical(
    n_train: int = 6000,
    n_test: int = 1000,
    seed: int | np.random.Generator | None = 0,
    blocks: tuple[int, ...] = GISETTE_BLOCKS,
    **kwargs,
) -> VerticalData:
    """The gisette stand-in split like the paper: 3 parties with 2000 / 2000 / 1000 columns.

    ``kwargs`` go to :func:`gisette_like` (one draw of n_train + n_test samples, then split).
    """
    X, y = gisette_like(n_train + n_test, seed, n_features=int(sum(blocks)), **kwargs)
    partition = partition_vertical(X[:n_train], y[:n_train], list(blocks))
    return VerticalData(
        partition=partition,
        X_test=X[n_train:],
        y_test=y[n_train:],
        name="gisette-like",
        description=(
            f"Synthetic gisette stand-in (solvers.sharing.data.gisette_like, seed {seed!r}): {sum(blocks)} features "
            f"(half probes), columns scaled to [-1, 1], rows into the unit ball; contiguous blocks {list(blocks)}; "
            f"{n_train} train / {n_test} test."
        ),
    )
