"""audits.encoding: releases of any form become finite real matrices, or are refused with a message
that names the mechanism and what to declare."""

from __future__ import annotations

import numpy as np
import pytest

from audits.encoding import MISSING_CODES, ReleaseFormat, category_code, encode_releases
from audits.mechanism_runs import MechanismRuns

PLAIN, CATEGORY = ReleaseFormat(), ReleaseFormat(missing="category")


def test_numbers_and_booleans_keep_their_shape_and_values():
    ints = np.array([[1, 0, -1], [0, 0, 1]])
    assert np.array_equal(encode_releases(ints, 2, PLAIN, "m"), ints.astype(float))
    assert encode_releases(np.array([True, False]), 2, PLAIN, "m").tolist() == [[1.0], [0.0]]
    cube = np.arange(24.0).reshape(2, 3, 4)
    assert np.array_equal(encode_releases(cube, 2, PLAIN, "m"), cube)  # trailing shape kept


def test_mixed_tuples_encode_strings_as_fixed_codes():
    releases = [(True, 3, 0.5, "abort"), (False, -1, 2.5, "ok")]
    encoded = encode_releases(releases, 2, PLAIN, "m")
    assert encoded[:, :3].tolist() == [[1.0, 3.0, 0.5], [0.0, -1.0, 2.5]]
    assert encoded[0, 3] == category_code("abort") and encoded[1, 3] == category_code("ok")
    assert category_code("abort") != category_code("ok") and category_code("abort") < 2.0**48
    assert category_code("abort") == 65_946_189_036_523  # fixed across processes and runs (BLAKE2b)


def test_undeclared_nan_is_refused_and_names_the_declaration():
    values = np.array([[1.0, np.nan], [2.0, 3.0]])
    with pytest.raises(ValueError, match=r"mech returned NaN or infinite values in 1 of 2 releases.*ReleaseFormat"):
        encode_releases(values, 2, PLAIN, "mech")
    with pytest.raises(ValueError, match="NaN or infinite"):
        encode_releases([(1, None), (2, 3)], 2, PLAIN, "mech")


def test_declared_missing_values_become_a_code_column_and_never_a_nan():
    values = np.array([[1.0, np.nan], [np.inf, -np.inf], [2.0, 3.0]])
    encoded = encode_releases(values, 3, CATEGORY, "m")
    assert np.isfinite(encoded).all()
    assert encoded.tolist() == [
        [1.0, 0.0, MISSING_CODES["finite"], MISSING_CODES["missing"]],
        [0.0, 0.0, MISSING_CODES["+inf"], MISSING_CODES["-inf"]],
        [2.0, 3.0, 0.0, 0.0],
    ]
    # a batch without any missing value has the same width (the code columns are always there)
    assert encode_releases(np.ones((2, 2)), 2, CATEGORY, "m").shape == (2, 4)
    assert encode_releases([(1, None)], 1, CATEGORY, "m").tolist() == [[1.0, 0.0, 0.0, 1.0]]


def test_a_masked_array_is_refused_unless_declared_and_then_its_mask_is_a_category():
    masked = np.ma.masked_array([[1.0, 2.0], [3.0, 4.0]], mask=[[False, True], [False, False]])
    with pytest.raises(ValueError, match="mech returned a numpy masked array: its mask would be lost"):
        encode_releases(masked, 2, PLAIN, "mech")
    encoded = encode_releases(masked, 2, CATEGORY, "mech")
    assert encoded.tolist() == [[1.0, 0.0, 0.0, 1.0], [3.0, 4.0, 0.0, 0.0]]  # the hidden 2.0 never appears
    # unbatched: a list of per-trial masked arrays keeps each mask
    rows = [np.ma.masked_array([5.0, 6.0], mask=[True, False]), np.ma.masked_array([7.0, 8.0])]
    assert encode_releases(rows, 2, CATEGORY, "mech").tolist() == [[0.0, 6.0, 1.0, 0.0], [7.0, 8.0, 0.0, 0.0]]


def test_variable_length_releases_are_padded_with_the_declared_abort_value():
    fmt = ReleaseFormat(length=4, pad=-1)
    encoded = encode_releases([[1, 0], [], [0, 0, 1, 1]], 3, fmt, "m")
    assert encoded.tolist() == [[1, 0, -1, -1], [-1, -1, -1, -1], [0, 0, 1, 1]]
    with pytest.raises(ValueError, match=r"sequence of 5 entries, longer than the declared ReleaseFormat\(length=4\)"):
        encode_releases([[1, 0, 0, 0, 0]], 1, fmt, "m")
    with pytest.raises(ValueError, match="releases of varying length declare release=ReleaseFormat"):
        encode_releases([[1, 0], [1]], 2, PLAIN, "m")
    both = ReleaseFormat(missing="category", length=3, pad=0)  # None inside a padded sequence: a category
    assert encode_releases([[None, 2]], 1, both, "m").tolist() == [[0.0, 2.0, 0.0, 1.0, 0.0, 0.0]]


@pytest.mark.parametrize(
    ("releases", "n", "message"),
    [
        (np.zeros((3, 0)), 3, r"m returned empty releases \(shape \(3, 0\)\)"),
        (np.zeros((2, 2)), 3, r"must return n = 3 releases"),
        (np.array([1 + 2j, 3j]), 2, "must return real numbers, booleans, strings or None, got dtype complex128"),
        ([(1, object())], 1, "released a object"),
    ],
)
def test_what_cannot_be_read_is_refused_with_the_mechanism_named(releases, n, message):
    with pytest.raises(ValueError, match=message):
        encode_releases(releases, n, PLAIN, "m")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"missing": "drop"}, "ReleaseFormat.missing must be 'refuse' or 'category'"),
        ({"length": 0, "pad": -1}, "ReleaseFormat.length must be an integer >= 1"),
        ({"length": 3, "pad": float("nan")}, "ReleaseFormat.pad must be a finite number"),
        ({"length": 3}, "need both length"),
        ({"pad": -1}, "need both length"),
    ],
)
def test_bad_formats_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ReleaseFormat(**kwargs)


def test_a_release_whose_shape_changes_between_calls_is_refused_with_both_shapes():
    widths = iter([3, 3, 4])

    def growing(data, rng, n):
        return rng.normal(size=(n, next(widths)))

    runs = MechanismRuns(growing)
    runs.run(None, seeds=[np.random.SeedSequence(0)])
    runs.run(None, seeds=[np.random.SeedSequence(1)] * 2)
    with pytest.raises(ValueError, match=r"growing returned releases of shape \(4,\) after releases of shape \(3,\)"):
        runs.run(None, seeds=[np.random.SeedSequence(2)])
    with pytest.raises(TypeError, match="release must be an audits.encoding.ReleaseFormat"):
        MechanismRuns(growing, release="category")  # type: ignore[arg-type]
