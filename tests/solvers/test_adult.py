"""Tests for solvers.datasets.adult: the bundled Adult file and its two encodings."""

import hashlib
import time

import numpy as np
import pytest

from solvers.datasets import adult
from solvers.datasets.adult import (
    ADULT_SHA256,
    CATEGORICAL_ATTRIBUTES,
    ORDINAL_ATTRIBUTES,
    BundledDataError,
    adult_attributes,
    adult_categories,
    dpadmm_adult_split,
    load_adult,
)
from solvers.datasets.preprocessing import minmax_scale_columns, normalize_rows, row_norms

N_RECORDS = 45_222
N_POSITIVE = 11_208
CATEGORY_COUNTS = {
    "workclass": 7,
    "education": 16,
    "marital-status": 7,
    "occupation": 14,
    "relationship": 6,
    "race": 5,
    "sex": 2,
    "native-country": 41,
}


def onehot_before_row_scaling(X: np.ndarray) -> np.ndarray:
    """Undo x ← x / ‖x‖: the 8 set indicators of a row all equal 1/‖x_raw‖ after scaling."""
    return X / X[:, 6:104].max(axis=1, keepdims=True)


def test_bundled_file_matches_the_published_digest():
    from importlib import resources

    payload = resources.files("solvers.datasets.data").joinpath("adult.csv.gz").read_bytes()
    assert hashlib.sha256(payload).hexdigest() == ADULT_SHA256
    readme = resources.files("solvers.datasets.data").joinpath("README.md").read_text()
    assert ADULT_SHA256 in readme and "CC BY 4.0" in readme and "10.24432/C5XW20" in readme


def test_corrupt_payload_raises_clear_error():
    with pytest.raises(BundledDataError, match=r"corrupt: sha256 [0-9a-f]{64}, expected 7fbdecc4"):
        adult._verify_sha256(b"not the adult file", ADULT_SHA256, "adult.csv.gz")


@pytest.mark.parametrize(
    ("encoding", "bias", "dim"), [("onehot", False, 104), ("onehot", True, 105), ("ordinal", False, 14)]
)
def test_shapes_labels_and_unit_ball(encoding, bias, dim):
    data = load_adult(encoding, bias=bias)
    assert data.X.shape == (N_RECORDS, dim)
    assert data.X.dtype == np.float64 and len(data.feature_names) == dim
    assert set(np.unique(data.y)) == {-1.0, 1.0}
    assert int((data.y == 1).sum()) == N_POSITIVE
    norms = row_norms(data.X)
    assert norms.max() <= 1 + 1e-12
    # every raw row has norm >= sqrt(8) (onehot) or > 0 (ordinal), so every row ends on the sphere
    np.testing.assert_allclose(norms, 1.0, rtol=0, atol=1e-12)
    assert not data.X.flags.writeable


def test_onehot_values_in_unit_interval_before_row_scaling():
    data = load_adult("onehot")
    raw = onehot_before_row_scaling(data.X)
    assert raw.min() >= 0 and raw.max() <= 1 + 1e-12
    np.testing.assert_allclose(raw[:, :6].max(axis=0), 1.0, atol=1e-12)  # divided by the column max
    indicators = np.round(raw[:, 6:], 12)
    assert set(np.unique(indicators)) == {0.0, 1.0}
    start = 0
    for attribute in CATEGORICAL_ATTRIBUTES:
        width = CATEGORY_COUNTS[attribute]
        assert np.all(indicators[:, start : start + width].sum(axis=1) == 1), attribute
        start += width
    assert data.feature_names[:6] == (
        "age",
        "fnlwgt",
        "education-num",
        "capital-gain",
        "capital-loss",
        "hours-per-week",
    )


def test_bias_column_is_constant_before_row_scaling():
    data = load_adult("onehot", bias=True)
    assert data.feature_names[-1] == "bias"
    raw = data.X / data.X[:, 6:104].max(axis=1, keepdims=True)
    np.testing.assert_allclose(raw[:, -1], 1.0, atol=1e-12)
    np.testing.assert_allclose(data.X[:, :-1] / data.X[:, -1:], onehot_before_row_scaling(load_adult().X), atol=1e-9)


def test_categories_sorted_with_expected_counts():
    categories = adult_categories()
    assert tuple(categories) == CATEGORICAL_ATTRIBUTES
    for attribute, names in categories.items():
        assert list(names) == sorted(names)
        assert len(names) == CATEGORY_COUNTS[attribute]
    assert categories["sex"] == ("Female", "Male")


def test_ordinal_codes_round_trip_to_the_onehot_indicators():
    attributes = adult_attributes()
    assert attributes.feature_names == ORDINAL_ATTRIBUTES
    indicators = np.round(onehot_before_row_scaling(load_adult("onehot").X)[:, 6:], 12)
    onehot_names = load_adult("onehot").feature_names[6:]
    categories = adult_categories()
    for row in (0, 1, 2, 1234, 45_221):
        rebuilt = np.zeros(len(onehot_names))
        for attribute in CATEGORICAL_ATTRIBUTES:
            code = attributes.X[row, ORDINAL_ATTRIBUTES.index(attribute)]
            assert code == int(code)
            rebuilt[onehot_names.index(f"{attribute}_{categories[attribute][int(code)]}")] = 1.0
        np.testing.assert_array_equal(rebuilt, indicators[row])


def test_ordinal_raw_attributes_and_first_record():
    attributes = adult_attributes()
    # first data row of the file: age 37, fnlwgt 52630, education-num 10, hours 40, Private, Some-college
    first = dict(zip(ORDINAL_ATTRIBUTES, attributes.X[0], strict=True))
    categories = adult_categories()
    assert (first["age"], first["fnlwgt"], first["education-num"], first["hours-per-week"]) == (37, 52630, 10, 40)
    assert categories["workclass"][int(first["workclass"])] == "Private"
    assert categories["education"][int(first["education"])] == "Some-college"
    codes = attributes.X[:, [ORDINAL_ATTRIBUTES.index(a) for a in CATEGORICAL_ATTRIBUTES]]
    np.testing.assert_array_equal(codes.max(axis=0), [CATEGORY_COUNTS[a] - 1 for a in CATEGORICAL_ATTRIBUTES])
    np.testing.assert_array_equal(codes.min(axis=0), 0)


def test_ordinal_encoding_is_minmax_then_unit_rows():
    data = load_adult("ordinal")
    scaled = minmax_scale_columns(adult_attributes().X)
    assert scaled.min() == 0 and scaled.max() == 1
    np.testing.assert_allclose(data.X, normalize_rows(scaled), rtol=0, atol=1e-15)
    np.testing.assert_allclose(data.X * row_norms(scaled)[:, None], scaled, atol=1e-12)


def test_invalid_arguments():
    with pytest.raises(ValueError, match=r"encoding must be 'onehot' or 'ordinal', got 'binary'"):
        load_adult("binary")
    with pytest.raises(TypeError, match=r"bias must be a bool, got 1"):
        load_adult("onehot", bias=1)


def test_dpadmm_split_sizes_disjoint_reproducible():
    split = dpadmm_adult_split(seed=7)
    assert [part.n_records for part in split] == [162, 21_000, 9_000]
    assert all(part.n_features == 14 for part in split)
    ids = [set(part.row_ids.tolist()) for part in split]
    assert not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])
    again = dpadmm_adult_split(seed=7)
    for first, second in zip(split, again, strict=True):
        np.testing.assert_array_equal(first.row_ids, second.row_ids)
        np.testing.assert_array_equal(first.X, second.X)
    assert not np.array_equal(dpadmm_adult_split(seed=8).train.row_ids, split.train.row_ids)
    ordinal = load_adult("ordinal")
    np.testing.assert_array_equal(split.test.X, ordinal.X[split.test.row_ids])
    np.testing.assert_array_equal(split.public.y, ordinal.y[split.public.row_ids])
    assert split.train.name == "adult-ordinal[train]"


def test_parsing_is_fast():
    adult._adult_table.cache_clear()
    start = time.perf_counter()
    adult._adult_table()
    assert time.perf_counter() - start < 5.0  # ~0.4 s on the development machine; a Python loop takes > 10 s
