"""Every estimator inside scikit-learn's Pipeline, cross_val_score and GridSearchCV, with the
probability and score outputs model selection reads."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from solvers.decentralized.estimator import DecentralizedClassifier
from solvers.pdml.estimator import PDMLClassifier
from solvers.sharing.estimator import VerticalLogisticRegression
from solvers.star.estimator import DPADMMClassifier

ESTIMATORS = {
    "dpadmm": lambda: DPADMMClassifier(n_agents=3, epsilon=math.inf, n_iterations=60, data_norm=1.0, random_state=0),
    "decentralized": lambda: DecentralizedClassifier(n_agents=3, epsilon=math.inf, n_iterations=20, random_state=0),
    "pdml": lambda: PDMLClassifier(n_agents=3, epsilon=math.inf, n_iterations=20, random_state=0),
    "vertical": lambda: VerticalLogisticRegression(
        blocks=2, noise=None, data_norm=1.0, n_iterations=60, random_state=0
    ),
}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=160, n_features=6, n_informative=4, class_sep=2.0, random_state=3)
    return Normalizer().fit_transform(X), y


@pytest.mark.parametrize("kind", sorted(ESTIMATORS))
def test_cross_validation_and_grid_search_run_and_learn(kind, data):
    X, y = data
    model = ESTIMATORS[kind]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence of the short runs is not what this test checks
        accuracy = cross_val_score(make_pipeline(Normalizer(), model), X, y, cv=2)
        auc = cross_val_score(model, X, y, cv=2, scoring="roc_auc")  # reads decision_function
        search = GridSearchCV(model, {"C": [0.5, 2.0]}, cv=2).fit(X, y)
    probabilities = search.predict_proba(X)
    assert accuracy.shape == (2,) and accuracy.mean() > 0.8  # without noise each learns (majority 0.5)
    assert auc.mean() > 0.85
    logistic = 1.0 / (1.0 + np.exp(-search.decision_function(X)))  # the link, computed independently
    np.testing.assert_allclose(probabilities, np.column_stack([1.0 - logistic, logistic]), rtol=1e-12, atol=1e-15)
    assert search.best_params_["C"] in (0.5, 2.0) and search.best_estimator_.classes_.tolist() == [0, 1]
