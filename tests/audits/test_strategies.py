"""neighbouring_datasets: the relations hold, values stay in bounds, pairs shrink to simple ones; the search mode."""

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from audits import Claim
from audits.strategies import neighbouring_datasets
from audits.testing import assert_private, records


def _differing_rows(D, D_prime):
    return np.flatnonzero(np.not_equal(D, D_prime).reshape(len(D), -1).any(axis=1))


@settings(max_examples=60, database=None, derandomize=True)
@given(
    st.sampled_from(["float64", "float32", "int64", "bool"]).flatmap(
        lambda dtype: st.tuples(
            st.just(dtype), neighbouring_datasets(rows=(1, 6), columns=(2, 3), dtype=dtype, bounds=(-2, 5))
        )
    )
)
def test_replace_one_pairs_differ_in_one_record_of_the_right_dtype_and_bounds(drawn):
    dtype, (D, D_prime) = drawn
    assert D.dtype == D_prime.dtype == np.dtype(dtype) and D.shape == D_prime.shape and D.shape[1:] == (2, 3)
    assert len(_differing_rows(D, D_prime)) == 1
    if dtype != "bool":
        assert D.min() >= -2 and D.max() <= 5 and D_prime.min() >= -2 and D_prime.max() <= 5


@settings(max_examples=60, database=None, derandomize=True)
@given(neighbouring_datasets(rows=(0, 5), columns=2, relation="add-remove-one"))
def test_add_remove_one_pairs_differ_by_one_record(pair):
    D, D_prime = pair
    assert abs(len(D) - len(D_prime)) == 1
    small, large = sorted((D, D_prime), key=len)
    assert any(np.array_equal(np.delete(large, i, axis=0), small) for i in range(len(large)))


@settings(max_examples=60, database=None, derandomize=True)
@given(neighbouring_datasets(rows=(3, 8), columns=1, relation="user-level", k=3))
def test_user_level_pairs_differ_in_at_most_k_adjacent_records(pair):
    D, D_prime = pair
    rows = _differing_rows(D, D_prime)
    assert 1 <= len(rows) <= 3 and rows[-1] - rows[0] < 3


@pytest.mark.parametrize(("relation", "rows"), [("replace-one", 1), ("add-remove-one", 0), ("user-level", 3)])
def test_pairs_shrink_to_the_simplest_pair(relation, rows):
    """The fewest records, zeros, and one record changed by the simplest value: a single 1 (or, adding a
    record, the record of zeros)."""
    D, D_prime = find(
        neighbouring_datasets(rows=(0, 5), columns=2, relation=relation, k=3),
        lambda pair: True,
        settings=settings(database=None),
    )
    assert len(D) == rows
    values = np.concatenate([D.ravel(), D_prime.ravel()])
    assert set(values.tolist()) <= {0.0, 1.0}
    assert values.sum() == (0 if relation == "add-remove-one" else 1)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"relation": "swap"}, "relation must be one of 'replace-one', 'add-remove-one', 'user-level', got 'swap'"),
        ({"rows": (5, 2)}, "rows must be (least, most) with least <= most"),
        ({"rows": (0, 0)}, "rows must allow at least 1 record(s) for relation 'replace-one'"),
        ({"columns": "3"}, "columns must be an int or a tuple of ints"),
        ({"dtype": "complex128"}, "dtype must be a numpy float, integer or boolean dtype, got complex128"),
        ({"bounds": (0.0, float("inf"))}, "bounds must be two finite numbers"),
        ({"bounds": (1.0, 1.0)}, "bounds must be (low, high) with low < high"),
        ({"dtype": "int8", "bounds": (0, 1000)}, "bounds must hold an integer representable as int8"),
        ({"relation": "user-level", "k": 0}, "k must be an integer >= 1, got 0"),
    ],
)
def test_bad_arguments_are_named(arguments, message):
    with pytest.raises(ValueError) as caught:
        neighbouring_datasets(**arguments)
    assert message in str(caught.value)


def cached_sum(data, rng, n):
    """A noisy sum (Laplace, 1-DP for records in [0, 1]) with a bug on a rare input: a "fast path" for
    constant data releases the exact sum."""
    total = data.sum()
    if len(data) > 1 and np.all(data == data[0]):
        return np.full(n, total)
    return total + rng.laplace(0.0, 1.0, size=n)


def noisy_sum(data, rng, n):
    return data.sum() + rng.laplace(0.0, 1.0, size=n)


CLAIM = Claim(epsilon=1.0, delta=0.0, noise="laplace")
PAIRS = neighbouring_datasets(rows=(1, 6), columns=(), bounds=(0.0, 1.0))


def test_hypothesis_finds_the_rare_leaking_pair_and_shrinks_it_to_a_minimal_one():
    with pytest.raises(AssertionError) as caught:
        assert_private(cached_sum, neighbours=PAIRS, claim=CLAIM, effort="smoke")
    text = str(caught.value)
    # the smallest constant data set the fast path takes (two records), and one record moved to 1
    assert "  pair: D = [0., 0.]; D′ = [1., 0.]" in text
    examined = records()[-1].pairs_examined
    assert examined >= 2
    assert f"hypothesis examined {examined} pairs on pilot trials" in text
    assert f"Bonferroni-corrected over the {examined} pairs" in text
    assert "reproduce: assert_private(cached_sum, neighbours=neighbours, claim=" in text


def test_the_search_mode_passes_a_correct_mechanism_at_the_bonferroni_corrected_confidence():
    report = assert_private(noisy_sum, neighbours=PAIRS, claim=CLAIM, effort="smoke", max_examples=10)
    examined = records()[-1].pairs_examined
    assert 1 <= examined <= 10
    assert report.report["confidence"] == pytest.approx(1 - 0.05 / (1.5 * examined), rel=1e-12)


def test_the_search_mode_takes_the_whole_pair_from_the_strategy():
    with pytest.raises(ValueError, match="omit D and D_prime"):
        assert_private(noisy_sum, np.zeros(2), neighbours=PAIRS, claim=CLAIM, effort="smoke")
