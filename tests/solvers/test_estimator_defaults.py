"""Defaults chosen from public quantities: the iteration budget and the warning about a loose data bound."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from dp_accounting import dp_event
from scipy.stats import norm
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer

from accountants.calibration import calibrate_noise_multiplier
from accountants.exact_gaussian import ExactGaussianAccountant
from solvers.decentralized.estimator import DecentralizedClassifier
from solvers.pdml.estimator import PDMLClassifier
from solvers.private_estimator import (
    LooseDataNormWarning,
    OneClassWarning,
    auto_iterations,
    per_release_epsilon,
    warn_if_loose_bound,
    warn_if_not_converged,
    warn_if_one_class,
)
from solvers.sharing.estimator import VerticalLogisticRegression
from solvers.star.estimator import DPADMMClassifier


@pytest.mark.parametrize(
    ("epsilon", "condition", "expected"),
    [(1.0, 1e6, 300), (10.0, 1e6, 300), (10.5, 10.0, 300), (math.inf, 100.0, 500), (1e6, 199.0, 995)]
    + [(1e6, 1e6, 10_000)],
)
def test_auto_iterations_golden(epsilon, condition, expected):
    assert auto_iterations(epsilon, condition) == expected


@pytest.mark.parametrize(("epsilon", "delta", "count"), [(1.0, 1e-5, 300), (0.1, 1e-6, 10_000), (8.0, 1e-3, 1)])
def test_the_per_release_budget_is_the_calibrated_one_and_never_over_the_total(epsilon, delta, count):
    """The closed form z = sqrt(T)/μ* agrees with the accountant's bisection (relative 1e-9, which is
    its precision) and the T-fold composition at z is within the total, by the accountant itself."""
    single, z = per_release_epsilon(epsilon, delta, count)
    calibrated = calibrate_noise_multiplier(epsilon, delta, count=count, accountant=ExactGaussianAccountant)
    assert z == pytest.approx(calibrated, rel=2e-9)
    spent = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(z), count).get_epsilon(delta)
    assert spent <= epsilon
    assert spent == pytest.approx(epsilon, rel=1e-9)  # tight, not merely below
    assert single == ExactGaussianAccountant().register(dp_event.GaussianDpEvent(z), 1).get_epsilon(delta)


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
    [(MinMaxScaler, {}, 10_000), (Normalizer, {"data_norm": 1.0}, 995)],
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
    with warnings.catch_warnings(record=True) as caught:  # both (nested pytest.warns keeps one before pytest 8)
        warnings.simplefilter("always")
        model = DPADMMClassifier(epsilon=1e6, n_iterations=20, tol=None, random_state=0).fit(rows, y_train)
    loose = [w for w in caught if issubclass(w.category, LooseDataNormWarning)]
    assert len(loose) == 1 and "Declare a tighter public bound" in str(loose[0].message)
    assert any(issubclass(w.category, OneClassWarning) for w in caught)
    assert model.info_["data_norm"] == math.sqrt(30)  # the warning changes nothing in the fit


def test_a_noisy_default_fit_keeps_300_iterations():
    X_train, _, y_train, _ = _split()
    model = DPADMMClassifier(n_agents=5, tol=None, random_state=0, accountants=())
    with pytest.warns(OneClassWarning):  # ε = 1 on 398 rows: the noise drowns a signal at a quarter of the bound
        model.fit(MinMaxScaler().fit_transform(X_train), y_train)
    assert model.n_iter_ == 300


def test_n_iterations_other_than_auto_or_a_positive_integer_is_refused():
    X, y = np.array([[0.1, 0.2], [0.3, -0.1], [-0.2, 0.1], [0.0, -0.3]]), np.array([0, 1, 0, 1])
    for bad, error in (("many", ValueError), (0, ValueError), (2.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match=f"^n_iterations must be 'auto' or an int >= 1, got {bad!r}$"):
            DPADMMClassifier(n_agents=2, n_iterations=bad).fit(X, y)


def _unit_rows():
    X, y = load_breast_cancer(return_X_y=True)
    return MinMaxScaler().fit_transform(X) / math.sqrt(X.shape[1]), y


def test_the_vertical_epsilon_is_the_total_of_the_fit():
    """Was the ε of each of the T iterations (a total ≈ 21 for epsilon=1 over 50 iterations)."""
    X, y = _unit_rows()
    model = VerticalLogisticRegression(
        protocol="admm_sharing", noise="output", epsilon=1.0, b1=1.0, n_iterations=50, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)
        model.fit(X, y)
    assert model.privacy_["exact_gaussian"] == pytest.approx(1.0, rel=1e-6)
    # independent: the label, T share and model releases compose to GDP μ² = Σ 1/z² (Dong, Roth & Su 2019, Cor. 2)
    info = model.info_
    mu = math.sqrt(
        info["label_noise_multiplier"] ** -2
        + 50 * info["share_noise_multiplier"] ** -2
        + info["model_noise_multiplier"] ** -2
    )
    delta = norm.cdf(-1.0 / mu + mu / 2) - math.exp(1.0) * norm.cdf(-1.0 / mu - mu / 2)
    assert delta == pytest.approx(1e-5, rel=1e-4)
    claimed = clone(model).set_params(noise="parameter").fit(X, y)
    assert claimed.info_["claimed_epsilon_basic"] == pytest.approx(1.0, rel=1e-12)


def test_a_vertical_noise_multiplier_overrides_the_default_epsilon():
    """As DecentralizedClassifier's alpha and PDMLClassifier's V: the per-release noise the user gives is
    the noise, and privacy_ is what it spends (the labels, 5 iterations and the model, each of multiplier 2:
    GDP μ = sqrt(7)/2)."""
    X, y = _unit_rows()
    model = VerticalLogisticRegression(
        protocol="admm_sharing", noise_multiplier=2.0, b1=1.0, n_iterations=5, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)
        model.fit(X, y)
    epsilon, mu = model.privacy_["exact_gaussian"], math.sqrt(7) / 2.0
    delta = norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2)
    assert epsilon > 1.0 and delta == pytest.approx(1e-5, rel=1e-4)


def test_a_model_that_predicts_one_class_warns():
    X, y = _unit_rows()
    with pytest.warns(OneClassWarning, match="DPADMMClassifier predicts the class 1 for every training row"):
        DPADMMClassifier(n_agents=5, tol=None, random_state=0, accountants=()).fit(X * math.sqrt(X.shape[1]), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OneClassWarning)
        DPADMMClassifier(epsilon=math.inf, data_norm=1.0, n_iterations=300, tol=None, random_state=0).fit(X, y)


def test_the_one_class_check_reads_its_predictions_only():
    with pytest.warns(OneClassWarning, match="Est predicts the class 'a'"):
        assert warn_if_one_class(np.array(["a", "a"]), "Est")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not warn_if_one_class(np.array(["a", "b"]), "Est")


@pytest.mark.parametrize(
    ("make", "C", "epsilon", "expected"),
    [
        (lambda **kw: DecentralizedClassifier(variant="radmm", **kw), 1.05, 1e6, 106),  # ⌈5κ⌉ = 105, made even
        (lambda **kw: DecentralizedClassifier(variant="pp", **kw), 1.05, 1e6, 105),
        (lambda **kw: DecentralizedClassifier(variant="pp", **kw), 1.05, 10.0, 2),  # one noisy iteration
        (PDMLClassifier, 2.0, math.inf, 200),
        (PDMLClassifier, 2.0, 10.0, 3),  # a few noisy broadcasts
        (PDMLClassifier, 2.0, 10.000001, 200),  # ⌈5κ⌉ = 200 above ε = 10
    ],
)
def test_the_other_horizontal_estimators_choose_their_iterations_from_public_quantities(make, C, epsilon, expected):
    """κ = C n (B s)²/4 = 20 C for 20 rows of 2 features (B = sqrt(2), s² = 2); the cap of 1000 is the slow
    test's below."""
    X = np.random.default_rng(0).uniform(-1.0, 1.0, size=(20, 2))
    y = (X[:, 0] > 0).astype(int)
    model = make(n_agents=2, C=C, epsilon=epsilon, tol=None, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)
        assert model.fit(X, y).n_iter_ == expected


@pytest.mark.slow
@pytest.mark.parametrize("make", [DecentralizedClassifier, PDMLClassifier])
def test_with_negligible_noise_the_other_estimators_match_logistic_regression(make):
    """Min-max features, ε = 10^6: T = 1000 (was 100: 0.889 and 0.918 against 0.936)."""
    X_train, X_test, y_train, y_test = _split()
    reference = make_pipeline(MinMaxScaler(), LogisticRegression(C=1.0, max_iter=5000)).fit(X_train, y_train)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = make_pipeline(MinMaxScaler(), make(epsilon=1e6, random_state=0)).fit(X_train, y_train)
    assert model[-1].n_iter_ == 1000
    assert model.score(X_test, y_test) >= reference.score(X_test, y_test) - 0.01


@pytest.mark.parametrize(("turn", "warns"), [(0.49, False), (0.51, True)])
def test_the_carried_noise_allowance_is_that_of_a_random_walk(turn, warns):
    """T = 16, q = 4: the weights of a random walk's noise in ā₄ − ā₃ have Σ c_j² = (2q² + 1)/(3q) = 33/12,
    the fresh part 2/q = 1/2; with d = 2, ‖ā₄‖ = 1 and σ = 0.5/(3 sqrt(6.5)) the allowance is
    3σ sqrt(2 (33/12 + 1/2)) = 3σ sqrt(6.5) = 0.5 exactly, against 3σ = 0.196 for fresh noise alone."""
    theta = 2.0 * math.asin(turn / 2.0)
    models = np.zeros((16, 2))
    models[8:12] = (1.0, 0.0)
    models[12:] = (math.cos(theta), math.sin(theta))
    sigma = np.full(16, 0.5 / (3.0 * math.sqrt(6.5)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert warn_if_not_converged(models, 1e-9, "Est", sigma, carried=True) == pytest.approx(turn, rel=1e-12)
        assert len(caught) == int(warns)
        warn_if_not_converged(models, 1e-9, "Est", sigma)
    assert len(caught) == int(warns) + 1  # fresh noise alone allows 0.196


MULTICLASS = {
    "dpadmm": (lambda **p: DPADMMClassifier(tol=None, **p), "exact_gaussian", ("epsilon", "delta")),
    "decentralized": (lambda **p: DecentralizedClassifier(tol=None, **p), "pure", ("epsilon",)),
    "pdml": (lambda **p: PDMLClassifier(tol=None, **p), "exact_gaussian", ("epsilon", "delta")),
    "vertical": (lambda **p: VerticalLogisticRegression(n_iterations=30, **p), "exact_gaussian", ("epsilon", "delta")),
}


@pytest.mark.parametrize("kind", sorted(MULTICLASS))
def test_multiclass_is_one_vs_rest_at_a_stated_split_of_the_budget(kind):
    """K = 3 classes: three binary fits at (ε/3, δ/3) whose ε add up to the total (basic composition),
    each with its own noise seed; probabilities are the softmax of the one-vs-rest scores."""
    make, accountant, split = MULTICLASS[kind]
    X, y = load_wine(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)
    labels = np.array(["a", "b", "c"])[y]
    model = make(random_state=0, keep_secrets=True)
    assert model.epsilon == 1.0  # the one default budget of every estimator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)
        model.fit(X, labels)
    assert model.classes_.tolist() == ["a", "b", "c"] and model.coef_.shape == (3, 13)
    shares = {f"{name}_per_class": model.get_params()[name] / 3 for name in split}
    assert model.info_["one_vs_rest"] == {"classes": 3, **shares}
    assert len(model.info_["per_class"]) == 3 and len(model.n_iter_) == 3
    assert model.privacy_[accountant] == pytest.approx(1.0, rel=1e-6) and model.privacy_[accountant] <= 1.0 + 1e-12
    assert len({seed.entropy for seed in model.secret_seed_}) == 3  # three independent noise draws
    scores = X @ model.coef_.T + model.intercept_
    np.testing.assert_allclose(model.decision_function(X), scores, rtol=1e-12)
    exponentials = np.exp(scores - scores.max(axis=1, keepdims=True))
    softmax = exponentials / exponentials.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(X), softmax, rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), model.classes_[scores.argmax(axis=1)])


def test_without_noise_one_vs_rest_learns_the_three_wine_cultivars():
    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    reference = make_pipeline(MinMaxScaler(), OneVsRestClassifier(LogisticRegression())).fit(X_train, y_train)
    model = make_pipeline(MinMaxScaler(), DPADMMClassifier(epsilon=math.inf, n_iterations=500, random_state=0))
    model.fit(X_train, y_train)
    assert model.score(X_test, y_test) >= reference.score(X_test, y_test) - 0.02
