"""Defaults chosen from public quantities: the iteration budget and the warning about a loose data bound."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer

from solvers.private_estimator import LooseDataNormWarning, auto_iterations, warn_if_loose_bound
from solvers.star.estimator import DPADMMClassifier


@pytest.mark.parametrize(
    ("epsilon", "condition", "expected"),
    [(1.0, 1e6, 300), (10.0, 1e6, 300), (10.5, 10.0, 300), (math.inf, 100.0, 500), (1e6, 199.0, 995), (1e6, 1e6, 3000)],
)
def test_auto_iterations_golden(epsilon, condition, expected):
    assert auto_iterations(epsilon, condition) == expected


def test_the_loose_bound_warning_fires_only_far_inside_the_bound():
    X = np.array([[0.3, 0.0], [0.0, -0.2]])
    with pytest.warns(LooseDataNormWarning, match=r"data_norm/4 = 0\.5 \(data_norm 2\).*data_norm=1\.0"):
        assert warn_if_loose_bound(X, 2.0, "Est")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not warn_if_loose_bound(np.array([[0.5, 0.0]]), 2.0, "Est")  # exactly B/4 is not far inside


def _split():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


@pytest.mark.parametrize(
    ("scaler", "params", "iterations"),
    [(MinMaxScaler, {}, 3000), (Normalizer, {"data_norm": 1.0}, 995)],
)
def test_with_negligible_noise_the_default_fit_matches_logistic_regression(scaler, params, iterations):
    """ε = 10^6: features in [0, 1] under the default bound sqrt(d), and unit rows declared as such,
    reach scikit-learn's accuracy (within a point) with no warning; T was 300 before it adapted
    (0.912 against 0.936 with min-max features)."""
    X_train, X_test, y_train, y_test = _split()
    reference = make_pipeline(scaler(), LogisticRegression(C=1.0, max_iter=5000)).fit(X_train, y_train)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warnings.simplefilter("error", LooseDataNormWarning)
        model = make_pipeline(scaler(), DPADMMClassifier(epsilon=1e6, random_state=0, **params)).fit(X_train, y_train)
    assert model[-1].n_iter_ == iterations
    assert model.score(X_test, y_test) >= reference.score(X_test, y_test) - 0.01


def test_unit_rows_under_the_default_bound_warn_and_name_the_fix():
    X_train, _, y_train, _ = _split()
    rows = Normalizer().fit_transform(X_train)
    with pytest.warns(LooseDataNormWarning, match="Declare a tighter public bound"):
        model = DPADMMClassifier(epsilon=1e6, n_iterations=20, tol=None, random_state=0).fit(rows, y_train)
    assert model.info_["data_norm"] == math.sqrt(30)  # the warning changes nothing in the fit


def test_a_noisy_default_fit_keeps_300_iterations():
    X_train, _, y_train, _ = _split()
    model = DPADMMClassifier(tol=None, random_state=0, accountants=())
    model.fit(MinMaxScaler().fit_transform(X_train), y_train)
    assert model.n_iter_ == 300


def test_n_iterations_other_than_auto_or_a_positive_integer_is_refused():
    X, y = np.array([[0.1, 0.2], [0.3, -0.1], [-0.2, 0.1], [0.0, -0.3]]), np.array([0, 1, 0, 1])
    for bad in ("many", 0, 2.5, True):
        with pytest.raises(ValueError, match="n_iterations must be 'auto' or an integer >= 1"):
            DPADMMClassifier(n_agents=2, n_iterations=bad).fit(X, y)
