"""How a Split chooses its test: the bound predicted on the evaluation part, randomised candidates on
tied scores, order invariance, and fallbacks that never pick the lowest score."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from audits.stats import Split, clopper_pearson_audit, epsilon_from_rates, gdp_audit
from audits.stats.clopper_pearson import bound_function
from audits.stats.gdp import mu_bound
from audits.stats.selection import RELAXED_LEVEL, choose_test

CP = bound_function(1e-5)
STATISTICS = [pytest.param(CP, 0.05, id="clopper-pearson"), pytest.param(mu_bound, 0.0005, id="gdp")]


def choose(scores_in, scores_out, bound=CP, selection_alpha=0.05, sizes=None, randomise=True):
    scores_in, scores_out = np.asarray(scores_in, dtype=float), np.asarray(scores_out, dtype=float)
    sizes = (4 * scores_out.size, 4 * scores_in.size) if sizes is None else sizes
    return choose_test(
        scores_in,
        scores_out,
        bound,
        alpha=0.05,
        selection_alpha=selection_alpha,
        evaluation_sizes=sizes,
        randomise=randomise,
    )


def test_the_predicted_bound_is_the_bound_at_the_evaluation_size_of_the_pessimistic_rates():
    """Golden value from scipy.stats.beta: two-valued scores, the test "in iff s ≥ 1"."""
    scores_in = np.repeat([0.0, 1.0], [40, 60])
    scores_out = np.repeat([0.0, 1.0], [80, 20])
    choice = choose(scores_in, scores_out, sizes=(1000, 500))
    fpr = stats.beta.isf(0.025, 20 + 1, 100 - 20)  # selection rates at their upper bounds (α/2 each)
    fnr = stats.beta.isf(0.025, 40 + 1, 100 - 40)
    fp, fn = fpr * 1000, fnr * 500  # at the evaluation sizes
    want = epsilon_from_rates(stats.beta.isf(0.025, fp + 1, 1000 - fp), stats.beta.isf(0.025, fn + 1, 500 - fn), 1e-5)
    assert (choice.threshold, choice.tie_probability, choice.stage) == (1.0, 1.0, "none")
    assert choice.value == pytest.approx(want, rel=1e-12) and want > 0.3


tied_scores = st.lists(st.integers(0, 5), min_size=20, max_size=200)


@settings(max_examples=25, deadline=None)
@given(scores_in=tied_scores, scores_out=tied_scores, seed=st.integers(0, 2**32 - 1))
def test_the_choice_is_invariant_under_trial_order(scores_in, scores_out, seed):
    rng = np.random.default_rng(seed)
    for bound, level in ((CP, 0.05), (mu_bound, 0.0005)):
        first = choose(scores_in, scores_out, bound, level)
        again = choose(rng.permutation(scores_in), rng.permutation(scores_out), bound, level)
        assert again == first


@settings(max_examples=25, deadline=None)
@given(scores_in=tied_scores, scores_out=tied_scores)
def test_randomised_candidates_never_predict_less_than_the_deterministic_ones(scores_in, scores_out):
    for bound, level in ((CP, 0.05), (mu_bound, 0.0005)):
        randomised = choose(scores_in, scores_out, bound, level)
        deterministic = choose(scores_in, scores_out, bound, level, randomise=False)
        assert randomised.value >= deterministic.value
        if randomised.tie_probability == 1.0:  # the same test: the same choice
            assert randomised == deterministic


@settings(max_examples=25, deadline=None)
@given(scores_in=tied_scores, scores_out=tied_scores, factor=st.integers(2, 100))
def test_more_evaluation_trials_never_predict_a_smaller_bound(scores_in, scores_out, factor):
    m_out, m_in = len(scores_out), len(scores_in)
    few = choose(scores_in, scores_out, sizes=(m_out, m_in))
    many = choose(scores_in, scores_out, sizes=(factor * m_out, factor * m_in))
    if few.stage == many.stage == "none":
        assert many.value >= few.value


@pytest.mark.parametrize(("bound", "level"), STATISTICS)
def test_with_no_positive_bound_the_choice_falls_back_to_a_relaxed_level(bound, level):
    rng = np.random.default_rng(0)
    scores_in, scores_out = rng.normal(0.3, 1.0, 60), rng.normal(0.0, 1.0, 60)
    strict = choose(scores_in, scores_out, bound, level)
    assert strict.stage == "relaxed level" and strict.value > 0
    relaxed = choose(scores_in, scores_out, bound, RELAXED_LEVEL)
    assert (strict.threshold, strict.tie_probability) == (relaxed.threshold, relaxed.tie_probability)
    assert strict.threshold > min(scores_in.min(), scores_out.min())


def test_then_to_the_largest_advantage_then_to_the_median():
    # TPR − FPR = 0.001 > 0 at s ≥ 1, but no bound is positive even at the relaxed level
    scores_in, scores_out = np.repeat([0.0, 1.0], [499, 501]), np.repeat([0.0, 1.0], [500, 500])
    choice = choose(scores_in, scores_out)
    assert (choice.stage, choice.threshold, choice.value) == ("largest TPR − FPR", 1.0, 0.0)
    same = np.arange(101.0)  # no signal at all: the pooled median, not the lowest score
    choice = choose(same, same)
    assert (choice.stage, choice.threshold, choice.tie_probability) == ("pooled median", 50.0, 1.0)


@pytest.mark.parametrize("audit", [clopper_pearson_audit, gdp_audit])
def test_a_weak_signal_is_not_evaluated_at_the_lowest_score(audit):
    """The old failure: every selection bound 0, the first candidate (the lowest score, which calls
    every trial "in") chosen, and the evaluation bound 0 whatever the data."""
    rng = np.random.default_rng(1)
    scores_in, scores_out = rng.normal(0.25, 1.0, 400), rng.normal(0.0, 1.0, 400)
    bound = audit(scores_in, scores_out, delta=1e-5)
    assert bound.details["selection_fallback"] != "none"
    assert bound.threshold > np.concatenate([scores_in, scores_out]).min()
    assert bound.details["fp"] < bound.details["n_out"]  # not every trial called "in"


def test_split_without_randomisation_only_considers_deterministic_tests():
    rng = np.random.default_rng(4)
    scores_in = rng.integers(0, 3, 5000).astype(float) + (rng.random(5000) < 0.2)
    scores_out = rng.integers(0, 3, 5000).astype(float)
    plain = clopper_pearson_audit(scores_in, scores_out, delta=1e-5, threshold=Split(randomise=False))
    assert plain.details["tie_probability"] == 1.0 and "tie_draws" not in plain.details
    randomised = clopper_pearson_audit(scores_in, scores_out, delta=1e-5)
    assert randomised.epsilon >= plain.epsilon > 0
    with pytest.raises(TypeError, match="randomise must be True or False"):
        Split(randomise="yes")
