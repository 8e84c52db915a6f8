"""Tests for solvers.sharing.estimator: the scikit-learn classifier over vertical parties, by either protocol (the
gradient protocol's privacy is tested in test_sharing_gradient.py)."""

import math
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import check_estimator

from solvers.private_estimator import DEFAULT_EPSILON, OneClassWarning
from solvers.sharing import VerticalLogisticRegression


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=6) * 3 + rng.logistic(size=150) > 0, "yes", "no")
    return X, y


@pytest.mark.parametrize("protocol", ["gradient", "admm_sharing"])
def test_matches_sklearn_logistic_regression_without_noise(data, protocol):
    X, y = data
    model = VerticalLogisticRegression(
        blocks=[2, 4], protocol=protocol, C=2.0, n_iterations=400, noise=None, data_norm=1.0, fit_intercept=False
    ).fit(X, y)
    reference = LogisticRegression(C=2.0, fit_intercept=False, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-5, atol=1e-7)
    assert list(model.classes_) == ["no", "yes"]
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=1e-6)
    assert model.score(X, y) == reference.score(X, y)
    assert all(math.isinf(v) for v in model.privacy_.values())


@pytest.mark.parametrize(("protocol", "iterations"), [("gradient", 1000), ("admm_sharing", 200)])
def test_intercept_is_liblinears_penalised_intercept_held_by_the_last_party(data, protocol, iterations):
    """With B = 1 the mapped rows (x, c)/sqrt(1 + c²) make the fit liblinear's (the intercept a weight of the
    constant column c, penalised); widths and index lists get the constant column in the last block."""
    X, y = data
    X = X + 0.3  # an intercept to find
    X /= np.linalg.norm(X, axis=1).max()  # inside the bound B = 1
    reference = LogisticRegression(C=2.0, solver="liblinear", intercept_scaling=2.0, tol=1e-10).fit(X, y)
    for blocks in ([2, 4], [[0, 1], [2, 3, 4, 5]]):
        model = VerticalLogisticRegression(
            blocks=blocks,
            protocol=protocol,
            C=2.0,
            intercept_scaling=2.0,
            n_iterations=iterations,
            noise=None,
            data_norm=1.0,
        ).fit(X, y)
        np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-4)
        np.testing.assert_allclose(model.intercept_, reference.intercept_, rtol=1e-4)
        assert abs(model.intercept_[0]) > 0.1


def test_private_fit_reports_privacy_and_claims(data):
    X, y = data
    model = VerticalLogisticRegression(
        blocks=3, protocol="admm_sharing", noise="output", noise_multiplier=3.0, b1=1.0, n_iterations=5, random_state=0
    ).fit(X, y)
    assert 0 < model.privacy_["exact_gaussian"] < math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)  # the claim mode's noise at ε = 0.5
        claimed = clone(model).set_params(noise="parameter", noise_multiplier=None, epsilon=0.5).fit(X, y)
    assert claimed.info_["claim_verified"] is False and math.isinf(claimed.privacy_["exact_gaussian"])


def test_errors(data):
    X, y = data
    with pytest.raises(ValueError, match="overlapping blocks"):
        VerticalLogisticRegression(blocks=[[0, 1, 2], [2, 3, 4, 5]]).fit(X, y)
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        VerticalLogisticRegression().fit(X, np.linspace(0.0, 1.0, 150))
    with pytest.raises(ValueError, match="C must be"):
        VerticalLogisticRegression(C=0).fit(X, y)


def test_admm_sharing_is_private_by_default_at_the_shared_default_budget(data):
    """protocol="admm_sharing": noise="output" with the total ε = 1 at δ = 1e-5 (``DEFAULT_EPSILON``) for one
    training example (a whole row and its label): labels, shares and model calibrated to Δ_row and Δ_w, ρ, T and the
    model's ball from public quantities (``solvers.sharing.defaults``); the noise-free fit on rows under a looser
    bound the same model (a reparametrisation: λ = 1/(C N B²) on x/B)."""
    X, y = data
    model = VerticalLogisticRegression(blocks=2, protocol="admm_sharing", random_state=0, keep_secrets=True)
    assert model.epsilon == DEFAULT_EPSILON == 1.0 and model.noise == "output"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)
        model.fit(X, y)
    assert model.privacy_["exact_gaussian"] == pytest.approx(1.0, rel=1e-9) and model.privacy_["exact_gaussian"] <= 1.0
    assert model.n_iter_ == 100 and model.info_["rho"] == pytest.approx(0.375 / 150, rel=1e-15)
    assert model.info_["adjacency"].startswith("one training example: a whole row")
    lam = 1.0 / (1.0 * 150 * 6 * 2)  # C = 1, N = 150, B = sqrt(6), s² = 1 + c² = 2
    assert model.info_["data_norm"] == pytest.approx(math.sqrt(6))
    z = model.info_["share_noise_multiplier"] * math.sqrt((1 + 2 * math.sqrt(2)) / 3)  # the ball's margin rule
    noise_bound = 0.25 * math.sqrt(150 / 7) / (2 * math.sqrt(3) * z)  # margin noise 1/4, 7 columns with c
    assert noise_bound < 1 / 0.375  # at ε = 1 the ball is S_1/(Nρ) = 1/r
    b1 = min(math.sqrt(2 * math.log(2) / lam), max(1 / 0.375, noise_bound))
    assert model.info_["b1"] == pytest.approx(b1, rel=1e-15)
    # Δ_row = 2 sqrt(b_1² + sqrt(2) b_1 (2 b_1 + 3/r)) with η/ρ = 1/r and β = b_1 + 2/r (two parties)
    row = 2 * math.sqrt(b1 * b1 + math.sqrt(2) * b1 * (2 * b1 + 3 / 0.375))
    assert model.info_["row_sensitivity"] == pytest.approx(row, rel=1e-14)
    assert model.info_["share_sigma"] == pytest.approx(model.info_["share_noise_multiplier"] * row, rel=1e-15)
    # the published model is the solver's noise-free one plus the model release's noise (then the balls)
    published = np.append(model.coef_[0] * math.sqrt(6) * math.sqrt(2), model.intercept_[0] * math.sqrt(2))
    noise = published - model.secret_result_.model
    assert 0 < np.linalg.norm(noise) <= 2 * b1 * math.sqrt(2) + 1e-9
    assert model.info_["label_flip_probability"] == pytest.approx(0.48805, abs=1e-5)  # Φ(−sqrt(0.05)·μ/2), μ = 0.268
    reference = LogisticRegression(fit_intercept=False, tol=1e-12).fit(X, y)
    loose = VerticalLogisticRegression(
        blocks=2, protocol="admm_sharing", n_iterations=600, noise=None, data_norm=4.0, fit_intercept=False
    ).fit(X, y)
    np.testing.assert_allclose(loose.coef_, reference.coef_, rtol=1e-3)


@pytest.mark.parametrize("protocol", ["gradient", "admm_sharing"])
def test_sklearn_estimator_checks_pass(protocol):
    """The private default (noise at ε = 1, so held to no accuracy threshold), in short fits."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OneClassWarning)  # the checks' tiny data sets at ε = 1
        results = check_estimator(VerticalLogisticRegression(protocol=protocol, n_iterations=5), on_fail=None)
    failed = {r["check_name"]: str(r["exception"])[:200] for r in results if r["status"] == "failed"}
    assert failed == {} and len(results) > 40
