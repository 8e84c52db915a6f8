import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accountants import gaussian_epsilon
from audits.stats import (
    Bonferroni,
    Fixed,
    Split,
    clopper_pearson_audit,
    clopper_pearson_from_counts,
    clopper_pearson_upper,
    epsilon_from_rates,
)
from audits.stats.clopper_pearson import ALPHA_SPLIT, FPR_SHARES

mpmath.mp.dps = 40


def mp_binom_cdf(k, n, p):
    """P[Binomial(n, p) ≤ k] as an exact sum at 40 digits (independent of any beta function)."""
    p = mpmath.mpf(p)
    return mpmath.fsum(mpmath.binomial(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1))


CASES = [
    (0, 10, 0.05),
    (3, 10, 0.05),
    (9, 10, 0.025),
    (0, 1000, 0.025),
    (12, 1000, 0.025),
    (500, 1000, 0.01),
    (37, 200, 1e-6),
    (1, 50, 0.2),
]


@pytest.mark.parametrize("k, n, alpha", CASES)
def test_upper_bound_is_the_exact_binomial_quantile(k, n, alpha):
    # P[Bin(n, p_up) ≤ k] = α defines the exact one-sided upper bound (Clopper & Pearson 1934)
    p_up = clopper_pearson_upper(k, n, alpha)
    assert float(mp_binom_cdf(k, n, p_up)) == pytest.approx(alpha, rel=1e-8)


def test_closed_forms_at_the_edges():
    n, alpha = 1000, 0.025
    assert clopper_pearson_upper(0, n, alpha) == pytest.approx(1 - alpha ** (1 / n), rel=1e-12)
    assert clopper_pearson_upper(n, n, alpha) == 1.0


def test_vectorised_equals_scalar():
    k = np.array([[0, 1], [50, 100]])
    out = clopper_pearson_upper(k, 100, 0.05)
    assert out.shape == (2, 2)
    assert all(out[i, j] == clopper_pearson_upper(int(k[i, j]), 100, 0.05) for i in range(2) for j in range(2))


@given(st.integers(1, 2000), st.data())
def test_upper_bound_monotone_in_count_and_level(n, data):
    k = data.draw(st.integers(0, n - 1))
    a1 = data.draw(st.floats(1e-6, 0.4))
    a2 = data.draw(st.floats(a1, 0.5))
    assert clopper_pearson_upper(k, n, a1) <= clopper_pearson_upper(k + 1, n, a1)
    # more confident: wider (up to the rounding of scipy's beta quantile, a few ulps when a1 ≈ a2)
    assert clopper_pearson_upper(k, n, a1) >= clopper_pearson_upper(k, n, a2) * (1 - 1e-13)
    assert k / n <= clopper_pearson_upper(k, n, a2)


def test_epsilon_from_rates_by_hand():
    assert epsilon_from_rates(0.01, 0.5, 0.0) == pytest.approx(math.log(50))
    assert epsilon_from_rates(0.5, 0.01, 0.0) == pytest.approx(math.log(50))  # the other inequality
    assert epsilon_from_rates(0.01, 0.5, 0.1) == pytest.approx(math.log(40))
    assert epsilon_from_rates(0.5, 0.5, 0.0) == 0.0  # a coin flip shows nothing
    assert epsilon_from_rates(0.9, 0.9, 0.0) == 0.0  # worse than a coin flip: clamped at 0
    assert epsilon_from_rates(0.0, 0.5, 0.0) == math.inf


@settings(max_examples=60)
@given(st.integers(1, 500), st.integers(1, 500), st.data(), st.floats(0.5, 0.999), st.floats(0, 0.1))
def test_count_bound_monotone_and_below_the_point_estimate(n_out, n_in, data, confidence, delta):
    fp = data.draw(st.integers(0, n_out - 1))
    fn = data.draw(st.integers(0, n_in - 1))
    b = clopper_pearson_from_counts(fp, n_out, fn, n_in, delta=delta, confidence=confidence).epsilon
    assert b <= epsilon_from_rates(fp / n_out, fn / n_in, delta) + 1e-12
    assert clopper_pearson_from_counts(fp + 1, n_out, fn, n_in, delta=delta, confidence=confidence).epsilon <= b + 1e-12
    assert clopper_pearson_from_counts(fp, n_out, fn + 1, n_in, delta=delta, confidence=confidence).epsilon <= b + 1e-12
    stricter = min(confidence + 0.5 * (1 - confidence), 0.9999)
    assert clopper_pearson_from_counts(fp, n_out, fn, n_in, delta=delta, confidence=stricter).epsilon <= b + 1e-12


def test_from_counts_uses_alpha_over_two_per_rate():
    b = clopper_pearson_from_counts(3, 1000, 400, 1000, delta=1e-5, confidence=0.9)
    assert b.details["fpr_upper"] == clopper_pearson_upper(3, 1000, 0.05)
    assert b.details["fnr_upper"] == clopper_pearson_upper(400, 1000, 0.05)
    expected = math.log((1 - 1e-5 - b.details["fnr_upper"]) / b.details["fpr_upper"])
    assert b.epsilon == pytest.approx(expected, rel=1e-12)
    assert b.method == "clopper-pearson" and b.correction.startswith("none")
    assert "α/2" in b.details["alpha_split"]


def test_an_uneven_share_puts_the_level_where_the_rates_are_uncertain():
    b = clopper_pearson_from_counts(3, 1000, 0, 1000, delta=0.0, confidence=0.9, fpr_share=0.99)
    assert b.details["fpr_upper"] == clopper_pearson_upper(3, 1000, 0.099)
    assert b.details["fnr_upper"] == clopper_pearson_upper(0, 1000, 0.1 * 0.01)
    assert b.details["alpha_split"].startswith("0.99α on FPR and 0.01α on FNR") and b.details["fpr_share"] == 0.99
    with pytest.raises(ValueError, match=r"fpr_share must lie in \(0, 1\), got 1.0"):
        clopper_pearson_from_counts(3, 1000, 0, 1000, delta=0.0, fpr_share=1.0)


def test_the_split_chooses_the_share_on_its_selection_part():
    rng = np.random.default_rng(5)
    # the test "1" on releases 1 with probability 0.95 on D and 0.95·e^−4 on D′: its false-negative rate is
    # known far better (relative to the bound's use of it) than its false-positive rate, which gets the most
    on_d, on_d_prime = (rng.random(5000) < 0.95).astype(float), (rng.random(5000) < 0.95 * math.exp(-4)).astype(float)
    uneven = clopper_pearson_audit(on_d, on_d_prime, delta=0.0, confidence=0.8)
    even = clopper_pearson_audit(on_d, on_d_prime, delta=0.0, confidence=0.8, threshold=Fixed(1.0))
    assert uneven.details["fpr_share"] in (0.9, 0.99) and even.details["fpr_share"] == 0.5
    assert uneven.epsilon == clopper_pearson_from_counts(
        uneven.details["fp"], 4000, uneven.details["fn"], 4000, delta=0.0, confidence=0.8,
        fpr_share=uneven.details["fpr_share"],
    ).epsilon  # fmt: skip
    # a tail test on Gaussian scores: a share is chosen among the stated ones and the result says which
    tail = clopper_pearson_audit(rng.normal(2, 1, 5000), rng.normal(0, 1, 5000), delta=1e-5)
    share = tail.details["fpr_share"]
    assert share in FPR_SHARES and (tail.details["alpha_split"] == ALPHA_SPLIT) == (share == 0.5)


def test_gaussian_mu1_1e5_per_side_is_sound_and_reaches_the_ceiling(gaussian_1e5):
    # The claim: with the optimal test and 10^5 trials per side the CP ceiling is ≈ 0.6 × ε
    scores_in, scores_out = gaussian_1e5
    true_eps = gaussian_epsilon(1.0, 1e-5)  # 4.3772
    split = clopper_pearson_audit(scores_in, scores_out, delta=1e-5, confidence=0.95)
    bonf = clopper_pearson_audit(scores_in, scores_out, delta=1e-5, threshold="bonferroni")
    assert split.correction == "split (20% select / 80% evaluate, seed 0)"
    assert bonf.correction.startswith("bonferroni over") and bonf.details["alpha_per_test"] < 0.05 / 50
    for bound in (split, bonf):
        assert bound.epsilon <= true_eps  # soundness
        assert bound.epsilon >= 0.55 * true_eps  # measured 0.596 (split), 0.576 (bonferroni)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_gaussian_samples_stay_below_the_true_epsilon(seed):
    rng = np.random.default_rng(seed)
    mu, n = 2.0, 20_000
    bound = clopper_pearson_audit(rng.normal(mu, 1, n), rng.normal(0, 1, n), delta=1e-5, threshold=Split(seed=seed))
    assert 0.25 * gaussian_epsilon(mu, 1e-5) <= bound.epsilon <= gaussian_epsilon(mu, 1e-5)


def test_no_leakage_never_flags(quantiles):
    same = quantiles(20_000)
    for threshold in ("split", "bonferroni", 0.0, Bonferroni((-1.0, 0.0, 1.0))):
        assert clopper_pearson_audit(same, same.copy(), delta=1e-5, threshold=threshold).epsilon == 0.0
    rng = np.random.default_rng(7)  # independent samples of one distribution: at most noise
    for _ in range(3):
        a, b = rng.normal(size=5000), rng.normal(size=5000)
        assert clopper_pearson_audit(a, b, delta=1e-5).epsilon <= 0.2


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(scores_in=[]), ValueError, "scores_in must not be empty"),
        (dict(scores_out=[0.0, math.nan]), ValueError, "scores_out must be finite"),
        (dict(scores_in=[0.0, math.inf]), ValueError, "scores_in must be finite"),
        (dict(scores_in=[[0.0, 1.0]]), ValueError, "scores_in must be a 1-D array"),
        (dict(scores_in=["a", "b"]), TypeError, "scores_in must be a 1-D array of real scores"),
        (dict(confidence=1.0), ValueError, r"confidence must be in \(0, 1\)"),
        (dict(confidence=0.0), ValueError, r"confidence must be in \(0, 1\)"),
        (dict(confidence=math.nan), ValueError, "confidence"),
        (dict(delta=1.0), ValueError, r"delta must be a probability in \[0, 1\)"),
        (dict(delta=-1e-9), ValueError, "delta"),
        (dict(threshold="best"), ValueError, "threshold must be"),
        (dict(threshold=Split(), scores_in=[1.0]), ValueError, "scores_in needs at least 2 trials"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    args = dict(scores_in=[1.0, 2.0, 3.0], scores_out=[0.0, 1.0, 2.0], delta=1e-5, confidence=0.95) | kwargs
    with pytest.raises(error, match=match):
        clopper_pearson_audit(**args)


def test_bad_counts_are_named():
    with pytest.raises(ValueError, match="fp <= n_out"):
        clopper_pearson_from_counts(11, 10, 0, 10, delta=0.0)
    with pytest.raises(TypeError, match="fn must be a non-negative integer"):
        clopper_pearson_from_counts(1, 10, 1.5, 10, delta=0.0)
    with pytest.raises(ValueError, match="alpha must be in"):
        clopper_pearson_upper(1, 10, 1.5)
    with pytest.raises(ValueError, match=r"k must lie in \[0, n\]"):
        clopper_pearson_upper(11, 10, 0.05)
