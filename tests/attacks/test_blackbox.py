"""attacks.blackbox: loss threshold and LiRA on released models."""

import numpy as np
import pytest

from attacks.blackbox import LiRA, LossThreshold
from solvers import HuberHingeLoss, LogisticLoss

X = np.array([0.0, 0.0, 1.0])


def _models(rng, shift, n):
    """Released models whose coordinate along X is N(shift, 1)."""
    models = rng.normal(size=(n, 3))
    models[:, 2] += shift
    return models


def test_loss_threshold_scores_are_minus_the_loss_and_separate_shifted_models():
    attack = LossThreshold(X, 1.0, LogisticLoss())
    w = np.array([[0.0, 0.0, 2.0], [0.0, 0.0, -1.0]])
    np.testing.assert_allclose(attack.score(w), -np.log1p(np.exp([-2.0, 1.0])))
    rng = np.random.default_rng(0)
    s = attack.attack(_models(rng, 1.0, 4000), _models(rng, -1.0, 4000))
    assert not s.white_box and s.metadata["white_box"] is False
    # margins N(±1, 1): the loss is monotone in the margin, so AUROC = Φ(2/√2)
    assert s.metrics()["auroc"] == pytest.approx(0.921, abs=0.01)


def test_lira_is_the_gaussian_likelihood_ratio_of_the_margin():
    rng = np.random.default_rng(1)
    attack = LiRA(X, 1.0)
    with pytest.raises(ValueError, match="fit"):
        attack.score(np.zeros((2, 3)))
    attack.fit(_models(rng, 1.0, 5000), _models(rng, -1.0, 5000))
    mu_in, sd_in, mu_out, sd_out = attack.fitted
    assert mu_in == pytest.approx(1.0, abs=0.05) and mu_out == pytest.approx(-1.0, abs=0.05)
    assert sd_in == pytest.approx(1.0, abs=0.05) and sd_out == pytest.approx(1.0, abs=0.05)
    s = attack.attack(_models(rng, 1.0, 4000), _models(rng, -1.0, 4000))
    # equal variances: the LLR is ≈ 2·margin, mean ±2 and variance 4
    assert s.scores_in.mean() == pytest.approx(2.0, abs=0.15)
    assert s.scores_out.mean() == pytest.approx(-2.0, abs=0.15)
    assert s.metrics()["auroc"] == pytest.approx(0.921, abs=0.01)


def test_bad_model_shapes_are_refused():
    with pytest.raises(ValueError, match="models"):
        LossThreshold(X, 1.0, HuberHingeLoss()).score(np.zeros(3))


@pytest.mark.parametrize("attack", [LossThreshold(X, 1.0, LogisticLoss()), LiRA(X, 1.0, fitted=(1.0, 1.0, -1.0, 2.0))])
def test_an_attack_fed_chunk_by_chunk_scores_as_on_all_the_models_at_once(attack):
    from types import SimpleNamespace

    from attacks.base import Attack

    rng = np.random.default_rng(2)
    models_in, models_out = _models(rng, 1.0, 30), _models(rng, -1.0, 20)
    chunks_in, chunks_out = np.split(models_in, [7, 19]), np.split(models_out, [12])
    observe: Attack = attack  # the protocol an audit feeds (attacks.base.Attack)
    seen_in = [observe.observe(SimpleNamespace(model=m), True) for m in chunks_in]
    seen_out = [observe.observe(SimpleNamespace(model=m), False) for m in chunks_out]
    chunked, whole = observe.conclude(seen_in, seen_out), attack.attack(models_in, models_out)
    assert chunked.attack == whole.attack == attack.name and not chunked.white_box
    np.testing.assert_array_equal(chunked.scores_in, whole.scores_in)
    np.testing.assert_array_equal(chunked.scores_out, whole.scores_out)
    assert chunked.metadata == whole.metadata
