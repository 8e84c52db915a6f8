"""The UCI Adult data set, bundled with the package, and the papers' two encodings of it.

Source: Becker & Kohavi (1996), UCI Machine Learning Repository, doi:10.24432/C5XW20, CC BY 4.0.
The bundled copy (``solvers/datasets/data/adult.csv.gz``) merges adult.data and adult.test and drops
rows with missing values: 45,222 records, 11,208 of them with income >50K. Nothing is downloaded;
the file's sha256 is checked on every first read.

Encodings:
  - ``"ordinal"`` (DP-ADMM, Huang et al. 2020, Sec. VI, d = 14; the paper says only that it normalises
    the data): the 14 raw attributes in UCI order, categories coded 0..K−1 in sorted name order,
    per-column min–max to [0, 1], then every row scaled to unit L2 norm.
  - ``"onehot"`` (Zhang, Khalili & Liu 2018 and 2020 and Wang et al. 2020, after Chaudhuri et al. 2011,
    d = 104): the 6 numeric columns divided by their column max, the 98 category indicators, then x ← x / max(1, ‖x‖).
    With ``bias=True`` a constant column is appended before the row step (d = 105, the papers'
    stated dimension). Every raw row has norm ≥ √8 (8 indicators are set), so every row ends at
    norm exactly 1.

The column statistics (min, max) are computed on all 45,222 records and, as in the papers, treated
as public (none of the papers accounts for them).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
from importlib import resources
from typing import NamedTuple

import numpy as np

from solvers.datasets.dataset import Dataset, random_split
from solvers.datasets.preprocessing import (
    append_bias,
    maxabs_scale_columns,
    minmax_scale_columns,
    normalize_rows,
    scale_rows_to_unit_ball,
)

ADULT_SHA256 = "7fbdecc4a6f105e70a5a852474155409f86ac8df26c0f1040e61f2b3e494541c"
ADULT_SHAPE = (45_222, 106)
NUMERIC_ATTRIBUTES = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")
CATEGORICAL_ATTRIBUTES = (
    "workclass",
    "education",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native-country",
)
# The 14 raw attributes of the DP-ADMM experiment (Huang et al. 2020, Sec. VI), in UCI order (also a9a's order).
ORDINAL_ATTRIBUTES = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
)
LABEL_COLUMNS = ("salary_<=50K", "salary_>50K")
# Table II of Huang et al. 2020: public pre-training records (used only to estimate D_w), training, test.
DPADMM_SPLIT_SIZES = (162, 21_000, 9_000)

_PACKAGE = "solvers.datasets.data"
_FILENAME = "adult.csv.gz"
_SOURCE = (
    "UCI Adult (Census Income), Becker & Kohavi (1996), UCI Machine Learning Repository, "
    "doi:10.24432/C5XW20, licensed CC BY 4.0; adult.data and adult.test merged, rows with missing "
    "values dropped (45,222 records); label +1 iff income >50K."
)


class BundledDataError(RuntimeError):
    """The data file shipped with the package is missing, corrupt or not in the expected layout."""


class AdultSplit(NamedTuple):
    """The DP-ADMM split of Adult (Huang et al. 2020, Table II)."""

    public: Dataset  # 162 records, only for estimating D_w non-privately
    train: Dataset  # 21,000 records, to be split over N = 100 providers × 210
    test: Dataset  # 9,000 records


def load_adult(encoding: str = "onehot", bias: bool = False) -> Dataset:
    """Load the bundled Adult data set with one of the papers' encodings.

    Args:
      encoding: ``"onehot"`` (Zhang, Khalili & Liu 2018 and 2020; Wang et al. 2020; d = 104) or
        ``"ordinal"`` (Huang et al. 2020, d = 14).
      bias: append a constant feature 1 before the row scaling (d + 1).

    Returns:
      A read-only ``Dataset`` with 45,222 records, labels ±1 (+1 = income >50K) and every row of
      L2 norm ≤ 1 (= 1 for both encodings, see the module docstring). Results are cached and shared.

    Raises:
      ValueError: unknown encoding. TypeError: bias is not a bool.
      BundledDataError: the bundled file is missing or fails its sha256 check.
    """
    if encoding not in ("onehot", "ordinal"):
        raise ValueError(f"encoding must be 'onehot' or 'ordinal', got {encoding!r}")
    if not isinstance(bias, bool):
        raise TypeError(f"bias must be a bool, got {bias!r}")
    return _load_adult(encoding, bias)


@functools.lru_cache(maxsize=1)
def adult_attributes() -> Dataset:
    """The 14 raw Adult attributes in UCI order, unscaled (the data Huang et al. 2020 normalise).

    Numeric attributes keep their raw values; a categorical attribute is the index of its category in
    sorted name order (``adult_categories()``). Read-only and cached.
    """
    names, table = _adult_table()
    column = {name: j for j, name in enumerate(names)}
    categories = adult_categories()
    values = np.empty((table.shape[0], len(ORDINAL_ATTRIBUTES)))
    for j, attribute in enumerate(ORDINAL_ATTRIBUTES):
        if attribute in NUMERIC_ATTRIBUTES:
            values[:, j] = table[:, column[attribute]]
            continue
        block = [column[f"{attribute}_{category}"] for category in categories[attribute]]
        values[:, j] = table[:, block].argmax(axis=1)
    return Dataset(
        X=values,
        y=_labels(names, table),
        feature_names=ORDINAL_ATTRIBUTES,
        name="adult-attributes",
        description=f"{_SOURCE} The 14 raw attributes; categorical codes = index in sorted category names.",
    )


def adult_categories() -> dict[str, tuple[str, ...]]:
    """For each categorical attribute, its category names sorted (position = ordinal code)."""
    names, _ = _adult_table()
    return {
        attribute: tuple(sorted(n[len(attribute) + 1 :] for n in names if n.startswith(f"{attribute}_")))
        for attribute in CATEGORICAL_ATTRIBUTES
    }


def dpadmm_adult_split(seed: int | np.random.Generator | None) -> AdultSplit:
    """The random split of ordinal-encoded Adult of Huang et al. 2020: 162 public / 21,000 train / 9,000 test.

    The three parts are disjoint and drawn uniformly at random from the 45,222 records (the paper
    drew from the 30,162 records of adult.data alone; the bundled file merges adult.test too).
    The public part may only be used to estimate D_w (Huang et al. 2020, Sec. VI): it spends no privacy budget.
    """
    public, train, test = random_split(
        load_adult("ordinal"), DPADMM_SPLIT_SIZES, seed, names=("public", "train", "test")
    )
    return AdultSplit(public=public, train=train, test=test)


@functools.cache
def _load_adult(encoding: str, bias: bool) -> Dataset:
    names, table = _adult_table()
    if encoding == "ordinal":
        raw = adult_attributes()
        features, feature_names = minmax_scale_columns(raw.X), raw.feature_names
        steps = "per-column min-max to [0, 1]{bias}, then x <- x / ||x|| (unit rows)"
    else:
        n_features = len(names) - len(LABEL_COLUMNS)
        n_numeric = len(NUMERIC_ATTRIBUTES)
        features = np.concatenate([maxabs_scale_columns(table[:, :n_numeric]), table[:, n_numeric:n_features]], axis=1)
        feature_names = names[:n_features]
        steps = "numeric columns divided by their max, 98 indicators{bias}, then x <- x / max(1, ||x||)"
    if bias:
        features, feature_names = append_bias(features), (*feature_names, "bias")
    row_step = normalize_rows if encoding == "ordinal" else scale_rows_to_unit_ball
    return Dataset(
        X=row_step(features),
        y=_labels(names, table),
        feature_names=feature_names,
        name=f"adult-{encoding}{'-bias' if bias else ''}",
        description=f"{_SOURCE} Encoding {encoding!r}: "
        + steps.format(bias=", constant bias column appended" if bias else "")
        + ".",
    )


@functools.lru_cache(maxsize=1)
def _adult_table() -> tuple[tuple[str, ...], np.ndarray]:
    """Header and values (read-only float64, 45,222 × 106) of the verified bundled file."""
    try:
        payload = resources.files(_PACKAGE).joinpath(_FILENAME).read_bytes()
    except (FileNotFoundError, ModuleNotFoundError) as error:
        raise BundledDataError(
            f"the bundled data file {_PACKAGE}/{_FILENAME} is missing; reinstall the package"
        ) from error
    _verify_sha256(payload, ADULT_SHA256, f"{_PACKAGE}/{_FILENAME}")
    header, _, body = gzip.decompress(payload).partition(b"\n")
    names = tuple(header.decode("ascii").strip().split(","))
    values = np.loadtxt(io.BytesIO(body), delimiter=",", dtype=np.int64).astype(np.float64)
    if values.shape != ADULT_SHAPE or len(names) != ADULT_SHAPE[1]:
        raise BundledDataError(
            f"{_PACKAGE}/{_FILENAME} parsed to shape {values.shape} with {len(names)} column names, "
            f"expected {ADULT_SHAPE}"
        )
    values.setflags(write=False)
    return names, values


def _verify_sha256(payload: bytes, expected: str, label: str) -> None:
    digest = hashlib.sha256(payload).hexdigest()
    if digest != expected:
        raise BundledDataError(
            f"the bundled data file {label} is corrupt: sha256 {digest}, expected {expected}; reinstall the package"
        )


def _labels(names: tuple[str, ...], table: np.ndarray) -> np.ndarray:
    return np.where(table[:, names.index(LABEL_COLUMNS[1])] == 1.0, 1.0, -1.0)
