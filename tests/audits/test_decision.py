"""The randomised test "in if s > t, with probability p if s = t": its counts, and why they are drawn.

Clopper–Pearson holds for the drawn counts because each trial's decision is an independent Bernoulli
with the test's error rate; the expected counts (a ranking statistic) have a smaller spread than a
binomial and are never bounded. Seeds are fixed: every assertion is deterministic.
"""

import numpy as np
import pytest
from scipy import stats

from audits.stats import Fixed, clopper_pearson_audit, clopper_pearson_from_counts, gdp_audit, gdp_from_counts
from audits.stats.binomial import clopper_pearson_upper_limits
from audits.stats.decision import drawn_error_counts, expected_counts
from audits.stats.sides import ScoreArray, tallies


def expected_error_counts(scores_in, scores_out, thresholds, tie_probabilities):
    return expected_counts(*tallies(ScoreArray(scores_in), ScoreArray(scores_out), thresholds), tie_probabilities)


def test_tallies_match_a_naive_loop_with_ties():
    rng = np.random.default_rng(3)
    scores_in = rng.integers(0, 12, 300).astype(float)
    scores_out = rng.integers(-5, 9, 250).astype(float)
    t = np.arange(-7, 15, 0.5)
    above_out, tied_out, below_in, tied_in = tallies(ScoreArray(scores_in), ScoreArray(scores_out), t)
    assert above_out.tolist() == [sum(s > x for s in scores_out) for x in t]
    assert tied_out.tolist() == [sum(s == x for s in scores_out) for x in t]
    assert below_in.tolist() == [sum(s < x for s in scores_in) for x in t]
    assert tied_in.tolist() == [sum(s == x for s in scores_in) for x in t]


def test_expected_counts_interpolate_between_the_deterministic_tests():
    scores_in = np.array([0.0, 1.0, 1.0, 1.0, 2.0])
    scores_out = np.array([0.0, 0.0, 1.0, 1.0, 2.0])
    fp, fn = expected_error_counts(scores_in, scores_out, np.array([1.0, 1.0, 1.0]), np.array([1.0, 0.25, 0.0]))
    # p = 1: "in iff s ≥ 1" (FP 3, FN 1); p = 0: "in iff s > 1" (FP 1, FN 4); p = 1/4 in between
    assert fp.tolist() == [3.0, 1.5, 1.0] and fn.tolist() == [1.0, 3.25, 4.0]


def test_drawn_counts_are_the_seeded_binomial_draws_of_the_ties():
    scores_in = np.repeat([0.0, 1.0, 2.0], [30, 50, 20])
    scores_out = np.repeat([0.0, 1.0, 2.0], [60, 35, 5])
    counts = drawn_error_counts(scores_in, scores_out, 1.0, 0.3, seed=7)
    rng = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(1,)))
    called_out, called_in = rng.binomial((35, 50), 0.3)
    assert counts == {
        "fp": 5 + called_out,
        "fn": 30 + 50 - called_in,
        "ties_out": 35,
        "ties_in": 50,
        "ties_out_in": called_out,
        "ties_in_in": called_in,
    }
    deterministic = drawn_error_counts(scores_in, scores_out, 1.0, 1.0, seed=7)
    assert (deterministic["fp"], deterministic["fn"]) == (40, 30)  # "in iff s ≥ 1", no draw
    nobody_tied = drawn_error_counts(scores_in, scores_out, 1.0, 0.0, seed=7)
    assert (nobody_tied["fp"], nobody_tied["fn"]) == (5, 80)  # "in iff s > 1"


def test_drawn_counts_are_binomial_and_expected_counts_are_not():
    """Scores from a three-valued distribution, the test (t = 1, p = 0.3): over 4,000 data sets the
    drawn FP count follows Binomial(40, FPR) (χ² test), while the expected count's variance is
    visibly smaller than the binomial's, so an exact binomial bound would not be justified for it."""
    probabilities = np.array([0.5, 0.4, 0.1])  # P_D′[s = 0, 1, 2]
    fpr = probabilities[2] + 0.3 * probabilities[1]
    n, replicates = 40, 4000
    rng = np.random.default_rng(2024)
    drawn, expected = [], []
    scores_in = np.zeros(1)
    for r in range(replicates):
        scores_out = rng.choice(3, size=n, p=probabilities).astype(float)
        drawn.append(drawn_error_counts(scores_in, scores_out, 1.0, 0.3, seed=r)["fp"])
        expected.append(expected_error_counts(scores_in, scores_out, np.array([1.0]), np.array([0.3]))[0][0])
    observed = np.bincount(drawn, minlength=n + 1)
    pmf = stats.binom.pmf(np.arange(n + 1), n, fpr)
    pooled = pmf >= 5 / replicates  # bins with an expected count of at least 5; the rest merged
    counts = np.append(observed[pooled], observed[~pooled].sum())
    want = replicates * np.append(pmf[pooled], pmf[~pooled].sum())
    assert stats.chisquare(counts, want).pvalue > 0.01
    binomial_variance = n * fpr * (1 - fpr)
    assert np.var(drawn) == pytest.approx(binomial_variance, rel=0.1)
    assert np.var(expected) < 0.8 * binomial_variance


def test_the_clopper_pearson_bound_of_a_randomised_test_covers():
    """The drawn count's one-sided Clopper–Pearson upper bound (α = 0.05) stays above the true FPR
    in at least 95 % of 4,000 seeded data sets (exact: the drawn count is binomial)."""
    probabilities = np.array([0.7, 0.25, 0.05])
    fpr = probabilities[2] + 0.6 * probabilities[1]
    rng = np.random.default_rng(99)
    fp = [
        drawn_error_counts(np.zeros(1), rng.choice(3, size=60, p=probabilities).astype(float), 1.0, 0.6, seed=r)["fp"]
        for r in range(4000)
    ]
    misses = np.mean(clopper_pearson_upper_limits(np.array(fp), 60, 0.05) < fpr)
    assert 0.01 < misses <= 0.05  # exact but not vacuous


@pytest.mark.parametrize(
    ("audit", "from_counts"), [(clopper_pearson_audit, clopper_pearson_from_counts), (gdp_audit, gdp_from_counts)]
)
def test_a_fixed_randomised_test_is_bounded_from_its_drawn_counts(audit, from_counts):
    rng = np.random.default_rng(5)
    scores_in = rng.integers(0, 4, 2000).astype(float) + (rng.random(2000) < 0.3)
    scores_out = rng.integers(0, 4, 2000).astype(float)
    strategy = Fixed(2.0, tie_probability=0.4, seed=11)
    bound = audit(scores_in, scores_out, delta=1e-5, threshold=strategy)
    counts = drawn_error_counts(scores_in, scores_out, 2.0, 0.4, seed=11)
    assert (bound.details["fp"], bound.details["fn"]) == (counts["fp"], counts["fn"])
    assert bound.details["tie_probability"] == 0.4 and bound.details["ties_out"] == counts["ties_out"]
    assert "SeedSequence(11)" in bound.details["tie_draws"]
    reference = from_counts(counts["fp"], 2000, counts["fn"], 2000, delta=1e-5)
    assert bound.epsilon == reference.epsilon and bound.assumption == reference.assumption
    assert bound.correction == "none (single pre-registered threshold)"


def test_fixed_tie_probability_is_checked():
    with pytest.raises(ValueError, match=r"tie_probability must be in \[0, 1\]"):
        Fixed(1.0, tie_probability=1.5)
    with pytest.raises(ValueError, match=r"tie_probability must be in \[0, 1\]"):
        Fixed(1.0, tie_probability=float("nan"))
    with pytest.raises(TypeError, match="tie_probability must be a real number"):
        Fixed(1.0, tie_probability="half")
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        Fixed(1.0, seed=-1)
