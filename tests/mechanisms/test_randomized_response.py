"""Randomized response (Wang et al. 2020, (12)–(13)): flips at rate 1/(1+e^ε), independently of the label, and its
event is ε-DP for the accountants."""

import math

import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from scipy import stats

from accountants import PLDAccountant, PureEpsilonAccountant, epsilon_delta_of
from mechanisms import RandomizedResponse, make_rng

P_THRESHOLD = 1e-3


def test_flip_probability_is_one_over_one_plus_e_to_the_epsilon():
    for epsilon in (0.01, 0.4, 1.0, 5.0):
        assert RandomizedResponse(epsilon).flip_probability == pytest.approx(1 / (1 + math.exp(epsilon)), rel=1e-14)
    assert RandomizedResponse(800.0).flip_probability == pytest.approx(math.exp(-800.0), rel=1e-12)
    assert RandomizedResponse(0.4).log_likelihood_ratio_bound == 0.4


def test_flip_rate_matches_and_does_not_depend_on_the_label():
    epsilon, n = 0.8, 100_000
    labels = np.where(np.arange(n) % 2 == 0, 1, -1)
    randomized = RandomizedResponse(epsilon).randomize(labels, make_rng(202))
    flipped = randomized != labels
    p = 1 / (1 + math.exp(epsilon))
    assert stats.binomtest(int(flipped.sum()), n, p).pvalue > P_THRESHOLD
    assert stats.binomtest(int(flipped.sum()), n, p / 2).pvalue < P_THRESHOLD
    assert stats.binomtest(int(flipped.sum()), n, 1 / (1 + math.exp(epsilon / 2))).pvalue < P_THRESHOLD
    table = [[int(np.sum(flipped & (labels == y))), int(np.sum(~flipped & (labels == y)))] for y in (1, -1)]
    assert stats.chi2_contingency(table).pvalue > P_THRESHOLD


def test_per_group_epsilons_broadcast_against_the_labels():
    epsilon = np.array([0.1, 1.0, 3.0])
    labels = np.ones((30_000, 3), dtype=np.int64)
    randomized = RandomizedResponse(epsilon).randomize(labels, make_rng(9))
    assert randomized.shape == labels.shape and randomized.dtype == np.int64
    counts = np.stack([(randomized == -1).sum(axis=0), (randomized == 1).sum(axis=0)])
    p = 1 / (1 + np.exp(epsilon))
    expected = np.stack([p, 1 - p]) * labels.shape[0]
    assert stats.chisquare(counts, expected, axis=0, ddof=0).pvalue.min() > P_THRESHOLD
    assert stats.chisquare(counts[:, 1], expected[:, 0], ddof=0).pvalue < P_THRESHOLD


def test_randomize_keeps_shape_and_dtype():
    mechanism = RandomizedResponse(1.0)
    for labels in (
        np.array([1.0, -1.0, 1.0]),
        np.array([[1, -1], [-1, 1]], dtype=np.int8),
        [1, -1],
    ):
        randomized = mechanism.randomize(labels, make_rng(0))
        assert randomized.shape == np.shape(labels)
        assert randomized.dtype == np.asarray(labels).dtype
        assert set(np.unique(randomized)) <= {-1, 1}


def test_sample_is_multiplicative_sign_noise():
    mechanism = RandomizedResponse(0.5)
    signs = mechanism.sample(make_rng(4), (20, 5))
    assert signs.dtype == np.float64 and set(np.unique(signs)) == {-1.0, 1.0}
    labels = np.where(make_rng(1).random((20, 5)) < 0.5, 1.0, -1.0)
    np.testing.assert_array_equal(mechanism.randomize(labels, make_rng(4)), labels * signs)


def test_event_is_dp_accountings_randomized_response_with_the_same_flip_rate():
    epsilon = 0.7
    event = RandomizedResponse(epsilon).event()
    assert event == dp_event.RandomizedResponseDpEvent(noise_parameter=2 / (1 + math.exp(epsilon)), num_buckets=2)
    keep, flip = 1 - event.noise_parameter / 2, event.noise_parameter / 2
    assert flip == pytest.approx(RandomizedResponse(epsilon).flip_probability, rel=1e-15)
    assert math.log(keep / flip) == pytest.approx(epsilon, rel=1e-12)
    assert epsilon_delta_of(event)[0] == pytest.approx(epsilon, rel=1e-12)


def test_events_registered_with_the_accountants_give_epsilon():
    event = RandomizedResponse(0.7).event()
    # randomized response changes one record's answer: a replace-one mechanism (accountants.relations)
    pure = PureEpsilonAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    assert pure.register(event).get_epsilon(0.0) == pytest.approx(0.7, rel=1e-12)
    assert pure.register(event, count=2).get_epsilon(0.0) == pytest.approx(2.1, rel=1e-12)
    pld = PLDAccountant(neighboring_relation=NeighboringRelation.REPLACE_ONE)
    assert pld.register(event).get_epsilon(1e-9) == pytest.approx(0.7, abs=1e-3)
    per_group = RandomizedResponse([0.1, 0.7]).events()
    assert [epsilon_delta_of(event)[0] for event in per_group] == pytest.approx([0.1, 0.7], rel=1e-12)


@pytest.mark.parametrize(
    ("labels", "error", "message"),
    [
        ([1, 0, -1], ValueError, "labels must all be -1 or \\+1, got 0"),
        ([1.0, 0.5], ValueError, "got 0.5"),
        ([1.0, math.nan], ValueError, "got nan"),
        ([True, False], TypeError, "labels must be ±1 integers or floats"),
        (["1", "-1"], TypeError, "labels must be ±1 integers or floats"),
        (np.array([1, 1], dtype=np.uint8), TypeError, "labels must be ±1 integers or floats"),
    ],
)
def test_bad_labels_are_refused(labels, error, message):
    with pytest.raises(error, match=message):
        RandomizedResponse(1.0).randomize(labels, make_rng(0))


@pytest.mark.parametrize(
    ("epsilon", "error", "message"),
    [
        (0.0, ValueError, "epsilon must be finite and > 0"),
        (-0.5, ValueError, "epsilon must be finite and > 0"),
        (math.nan, ValueError, "epsilon must be finite and > 0.*, got nan"),
        (math.inf, ValueError, "epsilon must be finite"),
        ([0.5, math.nan], ValueError, r"epsilon must be finite and > 0 \(a real number or an array of them\), got nan"),
        (None, TypeError, "epsilon must be finite and > 0"),
    ],
)
def test_bad_epsilon_is_refused(epsilon, error, message):
    with pytest.raises(error, match=message):
        RandomizedResponse(epsilon)


def test_labels_and_per_group_epsilons_must_broadcast():
    with pytest.raises(ValueError, match="do not broadcast"):
        RandomizedResponse([0.5, 1.0, 2.0]).randomize(np.ones((4, 2)), make_rng(0))
