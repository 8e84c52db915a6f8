"""Tests for the gradient protocol of VerticalLogisticRegression (solvers.sharing.gradient): its noise calibration,
ledger, sensitivity, defaults, convergence warning and refusals."""

import math
import warnings

import numpy as np
import pytest
from dp_accounting import dp_event
from scipy.stats import norm
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from solvers.losses import LogisticLoss
from solvers.sharing import VerticalLogisticRegression
from solvers.sharing.gradient import NoisyGradientDescent, gradient_sensitivity, nesterov_momentum
from solvers.sharing.partition import partition_vertical

N_ROWS = 150


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N_ROWS, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=6) * 3 + rng.logistic(size=N_ROWS) > 0, 1, 0)
    return X, y


def gdp_delta(epsilon: float, mu: float) -> float:
    """δ(ε) of μ-GDP in closed form (Dong, Roth & Su 2022, Cor. 2.13), independent of the toolkit's accountants."""
    return float(norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2))


def test_the_default_fit_spends_the_total_budget_with_golden_noise(data):
    """ε = 1, δ = 1e-5, T = 100 gradient releases, N = 150: z = 37.306316348 (the exact Gaussian accountant),
    σ = z·2/N; the T releases compose to μ = sqrt(T)/z, whose δ at ε = 1 is 1e-5 in closed form."""
    X, y = data
    model = VerticalLogisticRegression(random_state=0).fit(X, y)
    info = model.info_
    assert model.protocol == "gradient" and model.n_iter_ == 100 and info["momentum"] == 0.0
    assert info["noise_multiplier"] == pytest.approx(37.30631634815948, rel=1e-9)
    assert info["sensitivity"] == 2.0 / N_ROWS and info["sigma"] == pytest.approx(37.30631634815948 * 2 / N_ROWS)
    mu = math.sqrt(100) / info["noise_multiplier"]
    assert info["mu"] == pytest.approx(mu, rel=1e-15)
    assert gdp_delta(1.0, mu) == pytest.approx(1e-5, rel=1e-6)
    assert model.privacy_["exact_gaussian"] == pytest.approx(1.0, abs=1e-9) and model.privacy_["exact_gaussian"] <= 1.0
    assert 1.0 < model.privacy_["rdp"] < 1.2  # RDP's conversion is looser, never tighter
    assert info["adjacency"].startswith("one training example: a whole row")


def test_the_ledger_holds_t_releases_of_the_stated_multiplier_under_the_row(data):
    X, y = data
    model = VerticalLogisticRegression(blocks=3, epsilon=2.0, n_iterations=40, random_state=0).fit(X, y)
    entries = list(model.ledger_)
    assert len(entries) == 40 and model.n_iter_ == 40
    z = model.info_["noise_multiplier"]
    assert all(e.participant == 0 and e.event == dp_event.GaussianDpEvent(z) for e in entries)
    assert [e.iteration for e in entries] == list(range(1, 41))
    assert gdp_delta(2.0, math.sqrt(40) / z) == pytest.approx(1e-5, rel=1e-6)
    assert model.privacy_["exact_gaussian"] == pytest.approx(2.0, abs=1e-9)


def test_a_given_multiplier_or_sigma_overrides_epsilon(data):
    """z of each of the T releases, or σ = z·Δ: μ = sqrt(T)/z, read back through the closed form."""
    X, y = data
    by_z = VerticalLogisticRegression(noise_multiplier=20.0, n_iterations=25, random_state=0).fit(X, y)
    by_sigma = VerticalLogisticRegression(sigma=20.0 * 2 / N_ROWS, n_iterations=25, random_state=0).fit(X, y)
    assert by_sigma.info_["noise_multiplier"] == pytest.approx(20.0, rel=1e-12)
    np.testing.assert_allclose(by_sigma.coef_, by_z.coef_, rtol=1e-9)
    epsilon = by_z.privacy_["exact_gaussian"]
    assert gdp_delta(epsilon, math.sqrt(25) / 20.0) == pytest.approx(1e-5, rel=1e-4)


def test_without_noise_the_default_schedule_matches_scikit_learn(data):
    """noise=None, T from κ = 1 + C·N·B²/4 (no intercept, B = 1): Nesterov's scheme reaches scikit-learn's optimum."""
    X, y = data
    for C in (0.5, 4.0):
        model = VerticalLogisticRegression(blocks=[2, 4], C=C, noise=None, data_norm=1.0, fit_intercept=False)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            model.fit(X, y)
        reference = LogisticRegression(C=C, fit_intercept=False, tol=1e-12).fit(X, y)
        np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-6)
        assert all(math.isinf(v) for v in model.privacy_.values())
        assert model.n_iter_ == max(100, math.ceil(5 * math.sqrt(1 + C * N_ROWS / 4)))


def test_a_huge_budget_is_scikit_learn_up_to_its_noise(data):
    X, y = data
    model = VerticalLogisticRegression(epsilon=1e6, random_state=0).fit(X, y)
    # liblinear penalises the intercept (the weight of its constant column c = 1) like the toolkit does
    reference = LogisticRegression(solver="liblinear", intercept_scaling=1.0, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(model.coef_, reference.coef_, atol=1e-2)  # up to its noise
    np.testing.assert_allclose(model.intercept_, reference.intercept_, atol=1e-2)
    kappa = 1 + 1.0 * N_ROWS * 6 * 2 / 4  # C·N·B²·s²/4 + 1
    assert model.n_iter_ == math.ceil(5 * math.sqrt(kappa)) == 107
    assert model.info_["momentum"] == pytest.approx(nesterov_momentum(0.25 + 1 / (N_ROWS * 12), 1 / (N_ROWS * 12)))


def test_the_joint_gradient_moves_by_at_most_two_over_n_when_a_row_and_its_label_are_replaced():
    """Δ = 2 S_1/N, brute force: at random query points the mean-loss gradient of two neighbouring data sets (row 0
    and its label replaced by a random unit row and label) differs by ≤ 2/N; the bound is a supremum, approached
    by rows a = y x and a' nearly opposite with both margins saturated (for a' = −a exactly the change is 1/N,
    since φ'(m) + φ'(−m) = −1 for the logistic loss)."""
    rng = np.random.default_rng(1)
    n, d = 40, 5
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    loss = LogisticLoss()

    def change(w: np.ndarray, row: np.ndarray, label: float) -> float:
        neighbour, labels = np.vstack([row, X[1:]]), np.concatenate([[label], y[1:]])
        return float(np.linalg.norm(loss.gradient(w, X, y) - loss.gradient(w, neighbour, labels)))

    for _ in range(200):
        row = rng.normal(size=d)
        w = rng.normal(size=d) * rng.choice([0.1, 10.0, 100.0])
        assert change(w, row / np.linalg.norm(row), rng.choice([-1.0, 1.0])) <= gradient_sensitivity(n, 1.0)
    e1, e2, angle = np.eye(d)[0], np.eye(d)[1], -0.02
    X[0] = y[0] * e1  # a = e1
    opposite = -(math.cos(angle) * e1 + math.sin(angle) * e2)  # a' = y0 x', nearly −a
    worst = change(-1e5 * (0.01 * e1 + e2), y[0] * opposite, y[0])  # both margins ≈ −1000
    assert 0.9999 * 2 / n < worst <= gradient_sensitivity(n, loss.gradient_bound) == 2 / n


def test_the_protocol_computes_the_joint_gradient_of_the_pooled_rows(data):
    """Whatever the split, one step from 0 with step 1 and no noise is minus the pooled mean-loss gradient."""
    X, y = data
    labels = np.where(y == 1, 1.0, -1.0)
    pooled = (labels * -0.5) @ X / N_ROWS  # φ'(0) = −1/2
    for blocks in (1, [2, 4], [[5, 0], [1, 2, 3, 4]]):
        partition = partition_vertical(X, labels, blocks)
        run = NoisyGradientDescent(1, 1.0, 0.0, 0.0).run(partition, 0.0, LogisticLoss(), np.random.default_rng(0))
        np.testing.assert_allclose(run.model, -pooled, rtol=1e-12)
        assert run.gradient_norms[0] == pytest.approx(np.linalg.norm(pooled), rel=1e-12)


def test_same_seed_same_model_and_another_seed_another(data):
    X, y = data
    first, second, other = (VerticalLogisticRegression(random_state=s).fit(X, y) for s in (5, 5, 6))
    np.testing.assert_array_equal(first.coef_, second.coef_)
    np.testing.assert_array_equal(first.intercept_, second.intercept_)
    assert not np.array_equal(first.coef_, other.coef_)
    # the released gradients' noise is N(0, σ²) per coordinate: the noisy model differs from the noise-free one
    clean = clone(first).set_params(noise=None).fit(X, y)
    assert not np.allclose(first.coef_, clean.coef_)


def test_a_short_run_warns_that_it_did_not_converge_and_the_noise_limited_default_does_not(data):
    X, y = data
    with pytest.warns(ConvergenceWarning, match="did not converge: the gradient of its objective") as caught:
        VerticalLogisticRegression(noise=None, n_iterations=5).fit(X, y)
    assert caught[0].filename == __file__  # attributed to the caller of fit
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        VerticalLogisticRegression(random_state=0).fit(X, y)  # ε = 1: its noise, not its T, limits it
        VerticalLogisticRegression(noise=None, n_iterations=5, tol=None).fit(X, y)


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"protocol": "newton"}, ValueError, "^protocol must be 'gradient' or 'admm_sharing', got 'newton'$"),
        ({"protocol": 3}, TypeError, "^protocol must be 'gradient' or 'admm_sharing', got 3$"),
        ({"backend": "ray"}, ValueError, "^backend='ray' runs ADMM sharing's parties as actors; protocol='gradient'"),
        ({"noise": "parameter"}, ValueError, "^noise='parameter' is a claim mode of ADMM sharing"),
        ({"b1": 2.0}, ValueError, "^b1=2.0 is a parameter of protocol='admm_sharing', not of 'gradient'$"),
        ({"rho_scale": 0.5}, ValueError, "^rho_scale=0.5 is a parameter of protocol='admm_sharing'"),
        ({"sensitivity": "safe"}, ValueError, "^sensitivity='safe' is a parameter of protocol='admm_sharing'"),
        ({"tol": 0.0}, ValueError, "^tol must be"),
        ({"epsilon": None}, ValueError, "^epsilon must be given for a private fit"),
    ],
)
def test_bad_settings_are_refused_by_name(data, params, error, message):
    with pytest.raises(error, match=message):
        VerticalLogisticRegression(**params).fit(*data)
