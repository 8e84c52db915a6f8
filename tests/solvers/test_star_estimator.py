"""Tests for solvers.star.estimator: DPADMMClassifier in scikit-learn's machinery."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer
from sklearn.utils.estimator_checks import check_estimator

from solvers import DPADMMClassifier
from solvers.datasets import twonorm

FAST = {"n_agents": 5, "n_iterations": 10, "accountants": ()}


@pytest.fixture(scope="module")
def data():
    dataset = twonorm(400, seed=0, dim=5)
    X = dataset.X / np.linalg.norm(dataset.X, axis=1).max()
    labels = np.where(dataset.y > 0, "yes", "no")
    return X, labels


def test_fit_predict_proba_score_with_string_labels(data):
    X, y = data
    model = DPADMMClassifier(epsilon=0.5, random_state=0, dw=2.0, **FAST).fit(X, y)
    assert model.coef_.shape == (1, 5) and model.intercept_.tolist() == [0.0]
    assert model.classes_.tolist() == ["no", "yes"] and model.n_features_in_ == 5
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    predictions = model.predict(X)
    np.testing.assert_array_equal(predictions, np.where(X @ model.coef_[0] >= 0, "yes", "no"))
    np.testing.assert_array_equal(predictions, model.classes_[proba.argmax(axis=1)])
    assert model.score(X, y) > 0.9  # twonorm is nearly separable through the origin
    assert len(model.ledger_) == 5 * 10 and not hasattr(model, "secret_result_")


def test_random_state_makes_fits_deterministic(data):
    X, y = data
    a = DPADMMClassifier(random_state=3, dw=2.0, **FAST).fit(X, y).coef_
    b = DPADMMClassifier(random_state=3, dw=2.0, **FAST).fit(X, y).coef_
    c = DPADMMClassifier(random_state=4, dw=2.0, **FAST).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_privacy_report_and_algorithms(data):
    X, y = data
    private = DPADMMClassifier(n_agents=4, n_iterations=5, random_state=0, dw=1.0).fit(X, y)
    assert set(private.privacy_) == {"moments_classic", "exact_gaussian"}
    assert 0 < private.privacy_["exact_gaussian"] < private.privacy_["moments_classic"]
    admm = DPADMMClassifier(algorithm="admm", random_state=0, **FAST).fit(X, y)
    assert admm.score(X, y) > 0.9 and admm.privacy_ == {}
    naive = DPADMMClassifier(algorithm="naive", sensitivity="tight", epsilon=0.5, random_state=0, **FAST).fit(X, y)
    assert naive.coef_.shape == (1, 5)
    average = DPADMMClassifier(output="average", random_state=0, dw=2.0, keep_secrets=True, **FAST).fit(X, y)
    np.testing.assert_allclose(average.coef_[0], average.secret_result_.model_average)


def test_public_rows_estimate_dw(data):
    X, y = data
    model = DPADMMClassifier(random_state=0, **FAST).fit(X[:300], y[:300], X_public=X[300:], y_public=y[300:])
    assert model.info_["dw"] > 0 and model.info_["dw"] != 1.0
    fallback = DPADMMClassifier(random_state=0, **FAST).fit(X[:300], y[:300])
    assert fallback.info_["dw"] == 1.0
    with pytest.raises(ValueError, match="y_public"):
        DPADMMClassifier(**FAST).fit(X, y, X_public=X[:3], y_public=["a", "b", "c"])


def test_rows_outside_the_unit_ball_are_refused_unless_clipping(data):
    X, y = data
    with pytest.raises(ValueError, match="clip=True"):
        DPADMMClassifier(**FAST).fit(X * 3, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DPADMMClassifier(clip=True, random_state=0, dw=2.0, **FAST).fit(X * 3, y)
    assert any("clipped" in str(w.message) for w in caught)


def test_clone_params_pipeline_and_model_selection(data):
    X, y = data
    model = DPADMMClassifier(epsilon=0.5, random_state=0, dw=2.0, **FAST)
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy is not model
    assert copy.set_params(epsilon=0.2).epsilon == 0.2
    pipeline = make_pipeline(Normalizer(), FunctionTransformer(lambda Z: 0.9 * Z), model)
    scores = cross_val_score(pipeline, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.8)
    search = GridSearchCV(model, {"rho": [0.5, 1.0]}, cv=2).fit(X, y)
    assert search.best_params_["rho"] in (0.5, 1.0)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"algorithm": "sgd"}, "algorithm"),
        ({"regularizer": "elastic"}, "regularizer"),
        ({"output": "best"}, "output"),
        ({"n_agents": 0}, "n_agents"),
        ({"n_agents": 1000}, "n_agents"),
        ({"epsilon": -1.0}, "epsilon"),
    ],
)
def test_bad_parameters_are_reported_at_fit(data, params, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        DPADMMClassifier(**{**FAST, **params}).fit(X, y)


def test_binary_only(data):
    X, _ = data
    with pytest.raises(ValueError, match="Only binary classification"):
        DPADMMClassifier(**FAST).fit(X, np.arange(X.shape[0]) % 3)
    with pytest.raises(ValueError, match="1 class"):
        DPADMMClassifier(**FAST).fit(X, np.ones(X.shape[0]))
    assert DPADMMClassifier().__sklearn_tags__().classifier_tags.multi_class is False


def test_sklearn_estimator_checks_pass():
    estimator = DPADMMClassifier(n_agents=2, n_iterations=5, epsilon=0.5, dw=1.0, clip=True, accountants=())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # clipping warnings on the checks' random data
        results = check_estimator(estimator, on_fail=None)
    failed = {r["check_name"]: str(r["exception"])[:200] for r in results if r["status"] == "failed"}
    assert failed == {} and len(results) > 40
