"""attacks.base.AttackScores: validation and metrics."""

import numpy as np
import pytest
from scipy import stats

from attacks.base import AttackScores


def test_metrics_of_a_perfect_attack():
    s = AttackScores("perfect", np.arange(10.0, 20.0), np.arange(10.0))
    assert s.metrics() == {"auroc": 1.0, "tpr_at_0.1%_fpr": 1.0, "tpr_at_1%_fpr": 1.0}


def test_metrics_of_a_gaussian_attack_match_theory():
    n = 20_000
    grid = stats.norm.ppf((np.arange(n) + 0.5) / n)
    m = AttackScores("gauss", grid + 1.0, grid).metrics()
    assert m["auroc"] == pytest.approx(stats.norm.cdf(1 / np.sqrt(2)), abs=1e-3)
    assert m["tpr_at_1%_fpr"] == pytest.approx(stats.norm.sf(stats.norm.isf(0.01) - 1), abs=2e-3)


def test_rejects_non_finite_scores():
    with pytest.raises(ValueError, match="scores_in"):
        AttackScores("bad", [np.nan, 1.0], [0.0])
