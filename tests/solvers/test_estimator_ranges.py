"""The private estimators refuse a privacy parameter they cannot honour up front, naming it and its range
(never an internal parameter, never a solver's RuntimeError after the work started)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.datasets import make_classification

from solvers.decentralized.estimator import MIN_EPSILON, DecentralizedClassifier
from solvers.pdml.estimator import MIN_LABEL_EPSILON, PDMLClassifier
from solvers.sharing.estimator import VerticalLogisticRegression


@pytest.fixture(scope="module")
def data():
    return make_classification(200, 5, random_state=0)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: DecentralizedClassifier(epsilon=1e-300), "epsilon must be >= 0.001 \\(or inf\\).*got 1e-300"),
        (lambda: DecentralizedClassifier(epsilon=1e-6), "epsilon must be >= 0.001"),
        (
            lambda: DecentralizedClassifier(n_iterations=6, epsilon=1e308),
            "epsilon=1e\\+308 is too large for variant='radmm'.*give epsilon=inf",
        ),
        (lambda: PDMLClassifier(epsilon=1e-300), "^epsilon must be >= 0.005 \\(or inf\\), the labels' ε"),
        (lambda: PDMLClassifier(epsilon=0.003), "^epsilon must be >= 0.005.*got 0.003$"),
        (lambda: PDMLClassifier(epsilon=1.0, label_epsilon=1e-4), "^label_epsilon must be >= 0.005.*got 0.0001$"),
        (lambda: VerticalLogisticRegression(C=math.inf), "^C must be finite and > 0 \\(a real number\\), got inf$"),
        (lambda: VerticalLogisticRegression(C=1e307), "C=1e\\+307 is too large: the regularisation λ"),
    ],
)
def test_a_parameter_out_of_range_is_refused_by_its_own_name(make, message, data):
    with pytest.raises(ValueError, match=message) as refused:
        make().fit(*data)
    assert "alpha" not in str(refused.value) and "lam " not in str(refused.value)


def test_the_smallest_accepted_budgets_fit(data):
    X, y = data
    for model in (DecentralizedClassifier(epsilon=MIN_EPSILON), PDMLClassifier(epsilon=MIN_LABEL_EPSILON)):
        predictions = model.fit(X, y).predict(X)
        assert set(np.unique(predictions)) <= set(np.unique(y))
