"""f-DP one-run auditing (Mahloujifar, Melis & Chaudhuri 2024), instantiated for μ-GDP.

No numbers are copied from the paper. Verified here: (a) a naive 40-digit mpmath transcription of
the paper's recursion (full r[i], h[i] arrays, no early exit, no cap) takes the same decisions on
both sides of every reported μ_lower; (b) at μ = 0 (perfect privacy, f̄⁻¹ = identity) the test
never rejects when the exact binomial test would not, and equals it when every guess is right;
(c) with the pure ε-DP trade-off curve it never beats Steinke et al.'s exact bound (which is
optimal for pure DP) and equals it when every guess is right; (d) Monte Carlo soundness on
Gaussian canaries.
"""

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
    fdp_one_run_rejects,
    gdp_blow_up_inverse,
    one_run_audit,
    one_run_epsilon,
    one_run_fdp_audit,
    one_run_fdp_mu,
)

mpmath.mp.dps = 40


def mp_gdp_inverse(mu):
    mu = mpmath.mpf(mu)

    def inverse(y):
        if y <= 0:
            return mpmath.mpf(0)
        if y >= 1:
            return mpmath.mpf(1)
        return mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(2 * y - 1) - mu)

    return inverse


def mp_rejects(inverse, m, c_total, c, tau):
    """The paper's recursion as written: arrays r[0..c], h[0..c], filled from i = c down to 0."""
    tau = mpmath.mpf(tau)
    r = [mpmath.mpf(0)] * (c + 1)
    h = [mpmath.mpf(0)] * (c + 1)
    r[c] = tau * c / m
    h[c] = tau * (c_total - c) / m
    for i in range(c - 1, -1, -1):
        h[i] = max(h[i + 1], inverse(r[i + 1]))
        r[i] = r[i + 1] + mpmath.mpf(i) / (c_total - i) * (h[i] - h[i + 1])
    return r[0] + h[0] > mpmath.mpf(c_total) / m


@pytest.mark.parametrize(
    "m, r, v", [(1000, 100, 90), (1000, 200, 150), (10_000, 300, 290), (100, 50, 50), (1000, 400, 300)]
)
def test_mu_lower_is_the_boundary_of_the_naive_mpmath_recursion(m, r, v):
    mu = one_run_fdp_mu(m, r, v, confidence=0.95)
    assert mu > 0
    assert mp_rejects(mp_gdp_inverse(mu * (1 - 1e-7)), m, r, v, 0.05)
    assert not mp_rejects(mp_gdp_inverse(mu * (1 + 1e-7) + 1e-9), m, r, v, 0.05)


def identity(y):
    return y


def test_perfect_privacy_never_rejects_what_the_exact_binomial_test_keeps():
    # μ = 0: guesses are independent of the coins, so correct ~ Binomial(r, ½) exactly.
    checked = 0
    for r in range(1, 41):
        for v in range(r + 1):
            tail = stats.binom.sf(v - 1, r, 0.5)
            for m in (r, 10 * r):
                for alpha in (0.01, 0.05, 0.2):
                    if fdp_one_run_rejects(identity, m, r, v, confidence=1 - alpha):
                        assert tail < alpha, (m, r, v, alpha)
                        checked += 1
    assert checked > 500


@pytest.mark.parametrize("r", [1, 2, 3, 5, 10, 15, 20])  # 2^{-r} still exact through 1 − confidence
def test_perfect_privacy_all_correct_is_the_exact_test(r):
    # P[all r guesses right] = 2^{-r}: rejected exactly when α > 2^{-r}
    for m in (r, 7 * r):
        assert fdp_one_run_rejects(identity, m, r, r, confidence=1 - 2.0**-r * (1 + 1e-6))
        assert not fdp_one_run_rejects(identity, m, r, r, confidence=1 - 2.0**-r * (1 - 1e-6))


def pure_dp_inverse(eps):
    """f̄⁻¹ of the (ε, 0)-DP trade-off curve f(x) = max(0, 1 − e^ε x, e^{−ε}(1 − x))."""
    return lambda y: max(0.0, y * math.exp(-eps), 1.0 - math.exp(eps) * (1.0 - y))


def fdp_pure_epsilon(m, r, v, confidence=0.95):
    def rejects(eps):
        return fdp_one_run_rejects(pure_dp_inverse(eps), m, r, v, confidence=confidence)

    if not rejects(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejects(hi):
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if rejects(mid) else (lo, mid)
    return lo


@pytest.mark.parametrize("m, r", [(10, 10), (1000, 100), (100, 100), (10_000, 1000)])
def test_pure_dp_curve_all_correct_reproduces_steinke(m, r):
    assert fdp_pure_epsilon(m, r, r) == pytest.approx(one_run_epsilon(m, r, r, delta=0.0), abs=1e-8)


@pytest.mark.parametrize("m, r, v", [(1000, 100, 90), (1000, 1000, 700), (10_000, 500, 450), (50, 30, 25)])
def test_pure_dp_curve_never_beats_the_exact_pure_dp_bound(m, r, v):
    # Steinke et al.'s δ = 0 bound is attained by randomized response, so any sound test is below it
    assert fdp_pure_epsilon(m, r, v) <= one_run_epsilon(m, r, v, delta=0.0) + 1e-9


def test_gdp_blow_up_inverse():
    inverse = gdp_blow_up_inverse(1.0)
    assert inverse(0.0) == 0.0 and inverse(1.0) == 1.0
    assert inverse(0.5) == pytest.approx(stats.norm.cdf(-1.0), rel=1e-12)
    assert gdp_blow_up_inverse(0.0)(0.3) == pytest.approx(0.3, rel=1e-12)


@settings(max_examples=30)
@given(st.integers(1, 200), st.data())
def test_monotone_in_correct_guesses_confidence_and_mu(r, data):
    v = data.draw(st.integers(0, r - 1))
    m = data.draw(st.integers(r, 5 * r))
    mu = one_run_fdp_mu(m, r, v)
    assert one_run_fdp_mu(m, r, v + 1) >= mu
    assert one_run_fdp_mu(m, r, v, confidence=0.99) <= mu
    smaller = data.draw(st.floats(0.0, 3.0))
    larger = smaller + data.draw(st.floats(0.0, 3.0))
    if fdp_one_run_rejects(gdp_blow_up_inverse(larger), m, r, v):  # rejecting μ rejects every μ' < μ
        assert fdp_one_run_rejects(gdp_blow_up_inverse(smaller), m, r, v)


def gaussian_canaries(seed, m, mu):
    rng = np.random.default_rng(seed)
    included = rng.random(m) < 0.5
    scores = rng.normal(0.0, 1.0, m) + mu * included
    return scores[included], scores[~included]


def test_sound_on_gaussian_canaries():
    # each canary shifts its own coordinate by μ: the release is μ-GDP with respect to each canary
    mus = np.array([one_run_fdp_audit(*gaussian_canaries(s, 1000, 1.0), delta=1e-5, k_pos=100).mu for s in range(100)])
    assert np.sum(mus > 1.0) <= 5  # at most the 5 % the confidence level allows (measured: 0)
    assert np.median(mus) > 0.4


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_audit_result_is_labelled_and_sound(seed):
    mu, delta = 2.0, 1e-5
    scores_in, scores_out = gaussian_canaries(seed, 2000, mu)
    fdp = one_run_fdp_audit(scores_in, scores_out, delta=delta)
    worst_case = one_run_audit(scores_in, scores_out, delta=delta)
    assert 0.5 <= fdp.mu <= mu
    assert fdp.epsilon == gaussian_epsilon(fdp.mu, delta)
    assert fdp.method == "one-run-fdp" and fdp.assumption.startswith(CONDITIONAL_ON_GDP)
    assert 0 < worst_case.epsilon <= fdp.epsilon <= gaussian_epsilon(mu, delta)


def test_no_leakage_never_flags():
    rng = np.random.default_rng(3)
    for _ in range(5):
        scores = rng.normal(size=1000)
        included = rng.random(1000) < 0.5
        assert one_run_fdp_audit(scores[included], scores[~included], delta=1e-5).mu <= 0.2


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\) for a GDP-based bound"):
        one_run_fdp_audit([1.0], [0.0], delta=0.0, k_pos=1)
    with pytest.raises(ValueError, match=r"need 0 <= v <= r <= m"):
        one_run_fdp_mu(10, 5, 6)
    with pytest.raises(ValueError, match="mu must be >= 0"):
        gdp_blow_up_inverse(-1.0)
