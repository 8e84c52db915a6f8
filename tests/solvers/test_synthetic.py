"""Tests for solvers.datasets.synthetic: Breiman's Twonorm and Ringnorm.

Tolerances are 5 standard errors of the estimate; the seeds are fixed, so the tests are deterministic.
"""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from solvers.datasets.preprocessing import max_row_norm
from solvers.datasets.synthetic import ringnorm, twonorm

N = 100_000


def class_moments(X: np.ndarray, y: np.ndarray, label: float) -> tuple[np.ndarray, np.ndarray, int]:
    rows = X[y == label]
    return rows.mean(axis=0), np.cov(rows, rowvar=False), rows.shape[0]


def assert_gaussian(X, y, label, mean, variance):
    sample_mean, sample_cov, n = class_moments(X, y, label)
    d = X.shape[1]
    np.testing.assert_allclose(sample_mean, mean, rtol=0, atol=5 * math.sqrt(variance / n))
    # Var of a sample variance ≈ 2σ⁴/n, of a sample covariance ≈ σ⁴/n
    np.testing.assert_allclose(np.diag(sample_cov), variance, rtol=0, atol=5 * variance * math.sqrt(2 / n))
    off = sample_cov[~np.eye(d, dtype=bool)]
    assert np.abs(off).max() <= 5 * variance / math.sqrt(n)


def test_twonorm_moments_match_breiman():
    data = twonorm(N, seed=0)
    a = 2 / math.sqrt(20)
    assert data.X.shape == (N, 20)
    assert abs((data.y == 1).mean() - 0.5) <= 5 * 0.5 / math.sqrt(N)
    assert_gaussian(data.X, data.y, 1.0, a, 1.0)
    assert_gaussian(data.X, data.y, -1.0, -a, 1.0)


def test_twonorm_bayes_error_is_breimans_2_3_percent():
    data = twonorm(200_000, seed=1)
    error = np.mean(np.where(data.X.sum(axis=1) >= 0, 1.0, -1.0) != data.y)
    bayes = stats.norm.cdf(-2.0)  # ‖a‖ = 2: the classes are 4 apart along a
    assert abs(bayes - 0.023) < 5e-4  # Breiman's quoted 2.3%
    assert abs(error - bayes) <= 5 * math.sqrt(bayes * (1 - bayes) / 200_000)


def test_ringnorm_moments_match_breiman():
    data = ringnorm(N, seed=2)
    assert data.X.shape == (N, 20)
    assert abs((data.y == 1).mean() - 0.5) <= 5 * 0.5 / math.sqrt(N)
    assert_gaussian(data.X, data.y, 1.0, 0.0, 4.0)
    assert_gaussian(data.X, data.y, -1.0, 1 / math.sqrt(20), 1.0)


def ringnorm_bayes_error(d: int = 20, shift_norm: float = 1.0) -> float:
    """Exact Bayes error by quadrature: t = component along a, ρ² = squared norm of the rest."""

    def threshold(t):  # the rule picks N(0, 4I) iff (3/8)ρ² > d·ln 2 − (t − A)²/2 + t²/8
        return max((d * math.log(2) - (t - shift_norm) ** 2 / 2 + t**2 / 8) / 0.375, 0.0)

    wide = integrate.quad(lambda t: stats.norm.pdf(t, 0, 2) * stats.chi2.cdf(threshold(t) / 4, d - 1), -40, 40)[0]
    narrow = integrate.quad(lambda t: stats.norm.pdf(t, shift_norm, 1) * stats.chi2.sf(threshold(t), d - 1), -40, 40)[0]
    return 0.5 * (wide + narrow)


def test_ringnorm_bayes_error_matches_quadrature():
    bayes = ringnorm_bayes_error()
    assert bayes == pytest.approx(0.01497, abs=1e-5)
    data = ringnorm(200_000, seed=3)
    a = 1 / math.sqrt(20)
    log_ratio = -np.sum(data.X**2, axis=1) / 8 - 20 * math.log(2) + np.sum((data.X - a) ** 2, axis=1) / 2
    error = np.mean(np.where(log_ratio > 0, 1.0, -1.0) != data.y)
    assert abs(error - bayes) <= 5 * math.sqrt(bayes * (1 - bayes) / 200_000)


@pytest.mark.parametrize("generator", [twonorm, ringnorm])
def test_reproducible_other_dims_and_not_normalised(generator):
    first, second = generator(50, seed=9, dim=5), generator(50, seed=9, dim=5)
    np.testing.assert_array_equal(first.X, second.X)
    np.testing.assert_array_equal(first.y, second.y)
    assert first.X.shape == (50, 5) and len(first.feature_names) == 5
    assert not np.array_equal(generator(50, seed=10, dim=5).X, first.X)
    # Wang et al. 2020 (§VI-A) max-norm normalise Adult only; the generators follow Breiman, unnormalised
    assert max_row_norm(generator(200, seed=0).X) > 1
    assert "Breiman" in first.description


@pytest.mark.parametrize("generator", [twonorm, ringnorm])
def test_invalid_sizes(generator):
    with pytest.raises(ValueError, match=r"n must be a positive integer, got 0"):
        generator(0, seed=0)
    with pytest.raises(ValueError, match=r"dim must be a positive integer, got 2.5"):
        generator(10, seed=0, dim=2.5)
