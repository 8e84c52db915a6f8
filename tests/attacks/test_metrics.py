"""attacks.metrics: the ROC, AUROC and TPR at low FPR against scikit-learn and closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from attacks.metrics import auroc, roc_curve, tpr_at_fpr


def labelled(scores_in, scores_out):
    scores = np.concatenate([scores_in, scores_out])
    labels = np.concatenate([np.ones(len(scores_in)), np.zeros(len(scores_out))])
    return labels, scores


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auroc_matches_sklearn_and_mann_whitney_with_ties(seed):
    rng = np.random.default_rng(seed)
    scores_in = np.round(rng.normal(0.7, 1.0, 3000), 1)  # rounding creates many ties
    scores_out = np.round(rng.normal(0.0, 1.0, 2500), 1)
    value = auroc(scores_in, scores_out)
    assert value == pytest.approx(roc_auc_score(*labelled(scores_in, scores_out)), abs=1e-12)
    u = stats.mannwhitneyu(scores_in, scores_out).statistic
    assert value == pytest.approx(u / (3000 * 2500), abs=1e-12)


@settings(max_examples=50)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=40), st.lists(st.integers(-5, 5), min_size=1, max_size=40))
def test_auroc_is_the_mann_whitney_statistic(a, b):
    wins = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    assert auroc(a, b) == pytest.approx(wins / (len(a) * len(b)), abs=1e-12)


def test_curve_matches_sklearn_point_for_point():
    rng = np.random.default_rng(4)
    scores_in, scores_out = np.round(rng.normal(1, 1, 500), 2), np.round(rng.normal(0, 1, 400), 2)
    curve = roc_curve(scores_in, scores_out)
    fpr, tpr, thresholds = sk_roc_curve(*labelled(scores_in, scores_out), drop_intermediate=False)
    np.testing.assert_allclose(curve.fpr, fpr, atol=1e-15)
    np.testing.assert_allclose(curve.tpr, tpr, atol=1e-15)
    np.testing.assert_array_equal(curve.thresholds[1:], thresholds[1:])
    assert curve.thresholds[0] == np.inf and curve.fpr[0] == 0 and curve.tpr[-1] == 1
    with pytest.raises(ValueError):
        curve.fpr[0] = 0.5  # read-only


def test_tpr_at_fpr_by_hand():
    scores_in, scores_out = [1, 3], [0, 2]
    curve = roc_curve(scores_in, scores_out)
    np.testing.assert_array_equal(curve.tpr_at_fpr([0.0, 0.25, 0.5, 1.0]), [0.5, 0.5, 1.0, 1.0])
    out = tpr_at_fpr(np.arange(1000) + 0.5, np.arange(1000), fpr=[0.001, 0.01])
    # threshold 998.5 lets 1 out-score (999) through: FPR 0.1 %, TPR 2 of 1000
    np.testing.assert_array_equal(out, [0.002, 0.011])


def gaussian_quantiles(n: int, loc: float = 0.0) -> np.ndarray:
    """n scores at the quantiles (i + ½)/n of N(loc, 1): a sample without sampling noise."""
    return loc + stats.norm.ppf((np.arange(n) + 0.5) / n)


def test_tpr_at_low_fpr_on_gaussian_scores():
    mu, n = 2.0, 100_000
    curve = roc_curve(gaussian_quantiles(n, mu), gaussian_quantiles(n))
    for fpr in (0.001, 0.01):
        expected = stats.norm.sf(stats.norm.isf(fpr) - mu)  # Gaussian ROC at this FPR
        assert curve.tpr_at_fpr(fpr) == pytest.approx(expected, abs=1e-3)  # grid discretisation
    assert curve.auroc == pytest.approx(stats.norm.cdf(mu / np.sqrt(2)), abs=1e-4)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="scores_out must not be empty"):
        roc_curve([1.0], [])
    with pytest.raises(ValueError, match="scores_in must be finite"):
        auroc([np.nan], [1.0])
    with pytest.raises(ValueError, match=r"fpr must be rates in \[0, 1\]"):
        tpr_at_fpr([1.0], [0.0], fpr=1.5)
