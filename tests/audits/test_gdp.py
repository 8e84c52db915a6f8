import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from accountants import gaussian_epsilon
from audits.stats import (
    CONDITIONAL_ON_GDP,
    Split,
    clopper_pearson_upper,
    gdp_audit,
    gdp_from_counts,
    mu_from_rates,
)

mpmath.mp.dps = 40


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("t", [-2.0, 0.0, 0.7, 4.0])
def test_mu_from_rates_inverts_the_gaussian_trade_off_curve(mu, t):
    # On μ-GDP's curve, FPR = Φ̄(t) and FNR = Φ(t − μ) for every threshold t (Dong, Roth & Su 2022)
    fpr = float(mpmath.ncdf(-t))
    fnr = float(mpmath.ncdf(t - mu))
    assert mu_from_rates(fpr, fnr) == pytest.approx(mu, rel=1e-9, abs=1e-12)


def test_mu_from_rates_edges():
    assert mu_from_rates(0.5, 0.5) == 0.0
    assert mu_from_rates(0.9, 0.9) == 0.0
    assert mu_from_rates(0.0, 0.5) == math.inf
    assert mu_from_rates(0.0, 1.0) == 0.0
    np.testing.assert_allclose(mu_from_rates([0.5, 0.1], [0.5, 0.1]), [0.0, 2 * stats.norm.isf(0.1)])


def test_from_counts_uses_clopper_pearson_upper_bounds_and_the_exact_conversion():
    b = gdp_from_counts(30, 10_000, 4000, 10_000, delta=1e-5, confidence=0.95)
    fpr_up = clopper_pearson_upper(30, 10_000, 0.025)
    fnr_up = clopper_pearson_upper(4000, 10_000, 0.025)
    assert b.mu == pytest.approx(stats.norm.isf(fpr_up) - stats.norm.ppf(fnr_up), rel=1e-12)
    assert b.epsilon == gaussian_epsilon(b.mu, 1e-5)
    assert b.method == "gdp" and b.assumption == CONDITIONAL_ON_GDP
    assert b.details["mu_lower"] == b.mu and b.mu < b.details["empirical_mu"]


@settings(max_examples=60)
@given(st.integers(2, 2000), st.integers(2, 2000), st.data(), st.floats(0.5, 0.99))
def test_monotone_in_counts_and_confidence(n_out, n_in, data, confidence):
    fp = data.draw(st.integers(0, n_out - 1))
    fn = data.draw(st.integers(0, n_in - 1))
    mu = gdp_from_counts(fp, n_out, fn, n_in, delta=1e-5, confidence=confidence).mu
    assert gdp_from_counts(fp + 1, n_out, fn, n_in, delta=1e-5, confidence=confidence).mu <= mu
    assert gdp_from_counts(fp, n_out, fn + 1, n_in, delta=1e-5, confidence=confidence).mu <= mu
    assert gdp_from_counts(fp, n_out, fn, n_in, delta=1e-5, confidence=(1 + confidence) / 2).mu <= mu


def test_gaussian_mu1_1e5_per_side_within_ten_percent(gaussian_1e5):
    scores_in, scores_out = gaussian_1e5
    true_eps = gaussian_epsilon(1.0, 1e-5)
    for threshold in ("split", "bonferroni"):
        bound = gdp_audit(scores_in, scores_out, delta=1e-5, confidence=0.95, threshold=threshold)
        assert 0.9 <= bound.mu <= 1.0  # measured 0.975 (split), 0.971 (bonferroni)
        assert 0.9 * true_eps <= bound.epsilon <= true_eps
        assert bound.epsilon == gaussian_epsilon(bound.mu, 1e-5)
        assert bound.assumption == CONDITIONAL_ON_GDP


@pytest.mark.parametrize("mu", [0.5, 2.0])
def test_gaussian_other_mu(quantiles, mu):
    n = 50_000
    bound = gdp_audit(quantiles(n, mu), quantiles(n), delta=1e-5)
    assert 0.85 * mu <= bound.mu <= mu


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_random_samples_are_sound(seed):
    rng = np.random.default_rng(seed)
    bound = gdp_audit(
        rng.normal(1.0, 1.0, 20_000), rng.normal(0.0, 1.0, 20_000), delta=1e-5, threshold=Split(seed=seed)
    )
    assert 0.8 <= bound.mu <= 1.0


def test_no_leakage_never_flags(quantiles):
    same = quantiles(20_000)
    for threshold in ("split", "bonferroni", 0.3):
        bound = gdp_audit(same, same.copy(), delta=1e-5, threshold=threshold)
        assert bound.mu == 0.0 and bound.epsilon == 0.0
    rng = np.random.default_rng(9)
    for _ in range(3):
        assert gdp_audit(rng.normal(size=5000), rng.normal(size=5000), delta=1e-5).mu <= 0.1


def test_delta_zero_is_refused_with_a_reason():
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\) for a GDP-based bound"):
        gdp_audit([1.0, 2.0, 3.0], [0.0, 1.0, 2.0], delta=0.0)
    with pytest.raises(ValueError, match="delta"):
        gdp_from_counts(1, 10, 1, 10, delta=1.5)
    with pytest.raises(ValueError, match="confidence"):
        gdp_audit([1.0, 2.0], [0.0, 1.0], delta=1e-5, confidence=95)
    with pytest.raises(ValueError, match="scores_out must be finite"):
        gdp_audit([1.0, 2.0], [0.0, math.nan], delta=1e-5)
