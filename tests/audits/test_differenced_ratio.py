"""The differenced Laplace ratio: on a running sum of Laplace-noised answers it is the exact
log-likelihood ratio (the increments are independent Laplace variables), up to the fitted scale."""

import numpy as np

from audits.distinguishers import (
    differenced_laplace_likelihood_ratio,
    pooled_laplace_likelihood_ratio,
    successive_differences,
)

B = 10.0  # the Laplace scale of every answer's noise


def _running_sums(rng: np.random.Generator, answers: np.ndarray, n: int) -> np.ndarray:
    return np.cumsum(answers + rng.laplace(scale=B, size=(n, answers.size)), axis=1)


def _exact_log_ratio(releases: np.ndarray, d: np.ndarray, d_prime: np.ndarray) -> np.ndarray:
    """log p(y | D) − log p(y | D′) of running sums y of the answers plus independent Lap(B)."""
    increments = successive_differences(releases)
    return np.sum(np.abs(increments - d_prime) - np.abs(increments - d), axis=1) / B


def test_successive_differences_undo_a_running_sum():
    x = np.arange(12.0).reshape(3, 4) ** 2
    assert np.array_equal(np.cumsum(successive_differences(x), axis=1), x)


def test_on_a_running_sum_it_is_the_exact_likelihood_ratio():
    rng = np.random.default_rng(0)
    d, d_prime = np.ones(6), np.array([2.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    score = differenced_laplace_likelihood_ratio(_running_sums(rng, d, 20_000), _running_sums(rng, d_prime, 20_000))
    fresh = np.concatenate([_running_sums(rng, d, 5_000), _running_sums(rng, d_prime, 5_000)])
    exact = _exact_log_ratio(fresh, d, d_prime)
    assert np.corrcoef(score(fresh), exact)[0, 1] > 0.99
    # the Laplace ratio of the sums themselves is far from it (their coordinates are correlated)
    pooled = pooled_laplace_likelihood_ratio(_running_sums(rng, d, 20_000), _running_sums(rng, d_prime, 20_000))
    assert np.corrcoef(pooled(fresh), exact)[0, 1] < 0.9


def test_it_applies_to_continuous_releases_of_several_coordinates_only():
    rng = np.random.default_rng(1)
    scalar = rng.laplace(size=(100, 1))
    assert differenced_laplace_likelihood_ratio(scalar, scalar + 1.0) is None
    codes = rng.integers(0, 3, size=(100, 4)).astype(np.float64)
    assert differenced_laplace_likelihood_ratio(codes, codes[::-1]) is None


def test_huge_releases_are_scored_without_overflow():
    rng = np.random.default_rng(2)
    huge = 1e300 * rng.laplace(size=(200, 3))
    score = differenced_laplace_likelihood_ratio(huge, -huge)
    assert score is not None and np.isfinite(score(huge)).all()
