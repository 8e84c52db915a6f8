"""Tests for solvers.sharing.estimator: the scikit-learn classifier trained by ADMM sharing."""

import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from solvers.sharing import VerticalLogisticRegression


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=6) * 3 + rng.logistic(size=150) > 0, "yes", "no")
    return X, y


def test_matches_sklearn_logistic_regression_without_noise(data):
    X, y = data
    model = VerticalLogisticRegression(blocks=[2, 4], C=2.0, n_iterations=400).fit(X, y)
    reference = LogisticRegression(C=2.0, fit_intercept=False, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-5, atol=1e-7)
    assert list(model.classes_) == ["no", "yes"]
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=1e-6)
    assert model.score(X, y) == reference.score(X, y)
    assert all(math.isinf(v) for v in model.privacy_.values())


def test_private_fit_reports_privacy_and_claims(data):
    X, y = data
    model = VerticalLogisticRegression(
        blocks=3, noise="output", noise_multiplier=3.0, b1=1.0, n_iterations=5, random_state=0
    ).fit(X, y)
    assert 0 < model.privacy_["exact_gaussian"] < math.inf
    claimed = clone(model).set_params(noise="parameter", noise_multiplier=None, epsilon=0.5).fit(X, y)
    assert claimed.info_["claim_verified"] is False and math.isinf(claimed.privacy_["exact_gaussian"])


def test_errors(data):
    X, y = data
    with pytest.raises(ValueError, match="overlapping blocks"):
        VerticalLogisticRegression(blocks=[[0, 1, 2], [2, 3, 4, 5]]).fit(X, y)
    with pytest.raises(ValueError, match="binary"):
        VerticalLogisticRegression().fit(X, np.arange(150) % 3)
    with pytest.raises(ValueError, match="C must be"):
        VerticalLogisticRegression(C=0).fit(X, y)
