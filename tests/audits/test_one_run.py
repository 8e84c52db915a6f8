"""One-run auditing (Steinke, Nasr & Jagielski 2023).

No numbers are copied from the paper: the golden values are (a) an independent 40-digit mpmath
evaluation of the published Theorem 3.1 p-value, (b) the closed form it reduces to when δ = 0 and
every guess is right, and (c) the exact binomial test it reduces to at ε = δ = 0.
"""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from audits.stats import (
    WORST_CASE,
    default_guess_counts,
    one_run_audit,
    one_run_epsilon,
    one_run_guesses,
    one_run_p_value,
)

mpmath.mp.dps = 40


def mp_p_value(m, r, v, eps, delta):
    """Theorem 3.1 of Steinke et al. with the δ term, written out with exact binomial sums."""
    q = mpmath.e ** mpmath.mpf(eps) / (1 + mpmath.e ** mpmath.mpf(eps))
    pmf = [mpmath.binomial(r, j) * q**j * (1 - q) ** (r - j) for j in range(r + 1)]
    tail = mpmath.fsum(pmf[v:])
    worst, window = mpmath.mpf(0), mpmath.mpf(0)
    for i in range(1, v + 1):
        window += pmf[v - i]  # P[v − i ≤ B ≤ v − 1]
        worst = max(worst, window / i)
    return min(tail + 2 * m * mpmath.mpf(delta) * worst, mpmath.mpf(1))


P_CASES = [
    (100, 100, 100, 2.0, 0.0),
    (1000, 100, 90, 1.0, 1e-5),
    (1000, 500, 400, 1.3, 1e-4),
    (5000, 1000, 700, 0.5, 1e-6),
    (50, 20, 3, 0.0, 0.01),
    (10_000, 1000, 990, 4.0, 1e-5),
]


@pytest.mark.parametrize("m, r, v, eps, delta", P_CASES)
def test_p_value_matches_an_independent_mpmath_evaluation(m, r, v, eps, delta):
    assert one_run_p_value(m, r, v, eps, delta) == pytest.approx(float(mp_p_value(m, r, v, eps, delta)), rel=1e-9)


@pytest.mark.parametrize("r, v", [(10, 10), (10, 7), (100, 63), (1000, 530)])
def test_at_zero_privacy_loss_it_is_the_exact_binomial_test(r, v):
    assert one_run_p_value(2 * r, r, v, 0.0, 0.0) == pytest.approx(stats.binom.sf(v - 1, r, 0.5), rel=1e-12)


@pytest.mark.parametrize("r", [5, 10, 100, 1000])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_all_correct_without_delta_has_a_closed_form(r, confidence):
    # δ = 0, v = r: P[B ≥ r] = q^r ≤ α  ⇔  q ≤ α^{1/r}  ⇔  ε ≤ log(α^{1/r} / (1 − α^{1/r}))
    q = (1 - confidence) ** (1 / r)
    expected = max(math.log(q / (1 - q)), 0.0)
    assert one_run_epsilon(10 * r, r, r, delta=0.0, confidence=confidence) == pytest.approx(expected, abs=1e-9)


def test_r100_all_correct_at_95_percent():
    # derived from the theorem above (not copied from the paper): log(0.05^0.01 / (1 − 0.05^0.01))
    assert one_run_epsilon(1000, 100, 100, delta=0.0) == pytest.approx(3.4929654311, abs=1e-9)


@pytest.mark.parametrize("m, r, v, delta", [(1000, 100, 95, 1e-5), (10_000, 1000, 800, 1e-6), (200, 200, 170, 1e-4)])
def test_epsilon_is_the_rejection_boundary(m, r, v, delta):
    eps = one_run_epsilon(m, r, v, delta=delta, confidence=0.95)
    assert eps > 0
    assert mp_p_value(m, r, v, eps, delta) <= 0.05  # (ε, δ)-DP is rejected at ε_lower …
    assert mp_p_value(m, r, v, eps + 1e-6, delta) > 0.05  # … and not just above it


@settings(max_examples=40)
@given(st.integers(1, 300), st.data())
def test_monotone_in_correct_guesses_delta_and_confidence(r, data):
    v = data.draw(st.integers(0, r - 1))
    m = data.draw(st.integers(r, 10 * r))
    base = one_run_epsilon(m, r, v, delta=1e-6)
    assert one_run_epsilon(m, r, v + 1, delta=1e-6) >= base
    assert one_run_epsilon(m, r, v, delta=1e-3) <= base
    assert one_run_epsilon(m, r, v, delta=1e-6, confidence=0.99) <= base


def randomized_response(seed, m, eps):
    """m canaries in with probability ½; the mechanism releases each membership bit through ε-RR."""
    rng = np.random.default_rng(seed)
    included = rng.random(m) < 0.5
    flipped = rng.random(m) < 1.0 / (1.0 + math.exp(eps))
    released = (included ^ flipped).astype(float)
    return released[included], released[~included]


def test_sound_under_randomized_response_of_known_epsilon():
    # 200 independent audits of 1-RR with m = 1000 and all canaries guessed (δ = 0, 95 %): the
    # bound may exceed ε in at most 5 % of runs; with these seeds it does in 3 of 200.
    bounds = np.array(
        [
            one_run_audit(*randomized_response(seed, 1000, 1.0), delta=0.0, k_pos=500, k_neg=500).epsilon
            for seed in range(200)
        ]
    )
    assert np.sum(bounds > 1.0) <= 10
    assert np.median(bounds) > 0.75


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_randomized_response_with_delta_is_sound_and_tight(seed):
    bound = one_run_audit(*randomized_response(seed, 10_000, 1.0), delta=1e-5, k_pos=5000, k_neg=5000)
    assert 0.85 <= bound.epsilon <= 1.0  # measured 0.90–0.98
    assert bound.method == "one-run" and bound.assumption.startswith(WORST_CASE)
    assert bound.correction == "none (single pre-registered number of guesses: k+ = 5000, k- = 5000)"


def test_ties_are_broken_at_random_not_by_position():
    # All scores equal: the ranking carries no information. Breaking ties by position would guess
    # the in-canaries (passed first) and report a large ε.
    for seed in range(5):
        bound = one_run_audit(np.zeros(500), np.zeros(500), delta=1e-5, k_pos=200, seed=seed)
        assert bound.epsilon == 0.0


def test_guess_counts_match_a_naive_count():
    rng = np.random.default_rng(0)
    scores_in, scores_out = rng.normal(1, 1, 300), rng.normal(0, 1, 400)
    m, r, v = one_run_guesses(scores_in, scores_out, k_pos=50, k_neg=30)
    pooled = np.concatenate([scores_in, scores_out])
    top, bottom = np.sort(pooled)[-50], np.sort(pooled)[29]
    expected = int(np.sum(scores_in >= top) + np.sum(scores_out <= bottom))
    assert (m, r, v) == (700, 80, expected)


def test_bonferroni_over_the_default_grid():
    rng = np.random.default_rng(1)
    included = rng.random(2000) < 0.5
    scores = rng.normal(0, 1, 2000) + 3.0 * included
    bound = one_run_audit(scores[included], scores[~included], delta=1e-5, confidence=0.95)
    grid = default_guess_counts(2000)
    assert grid == (20, 40, 100, 200, 400, 1000)
    assert bound.details["alpha_per_test"] == pytest.approx(0.05 / 6)
    assert bound.correction.startswith("bonferroni over 6 numbers of guesses (default grid")
    assert bound.details["k_pos"] in grid
    single = one_run_audit(
        scores[included], scores[~included], delta=1e-5, confidence=1 - 0.05 / 6, k_pos=bound.details["k_pos"]
    )
    assert single.epsilon == pytest.approx(bound.epsilon, rel=1e-12)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"need 0 <= v <= r <= m"):
        one_run_epsilon(10, 20, 5, delta=0.0)
    with pytest.raises(ValueError, match=r"need 0 <= v <= r <= m"):
        one_run_p_value(100, 10, 11, 1.0)
    with pytest.raises(ValueError, match=r"k_pos \+ k_neg must be <= m"):
        one_run_audit([1.0, 2.0], [0.0], delta=0.0, k_pos=3, k_neg=1)
    with pytest.raises(ValueError, match="scores_in must not be empty"):
        one_run_audit([], [0.0], delta=0.0, k_pos=1)
    with pytest.raises(ValueError, match="delta"):
        one_run_epsilon(10, 10, 10, delta=1.0)
    with pytest.raises(ValueError, match="confidence"):
        one_run_epsilon(10, 10, 10, delta=0.0, confidence=1.0)
    with pytest.raises(ValueError, match="k_pos must not be empty"):
        one_run_audit([1.0], [0.0], delta=0.0, k_pos=[])


def test_scores_from_another_design_are_refused():
    # 1000 in and 10 out cannot come from fair coin flips: the one-run theorem does not apply
    with pytest.raises(ValueError, match="independently with probability 1/2"):
        one_run_audit(np.ones(1000), np.zeros(10), delta=1e-5, k_pos=10)
