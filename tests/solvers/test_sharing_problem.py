"""Tests for solvers.sharing.problem: the vertical objective, its metrics and the centralized reference."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from solvers.losses import LogisticLoss
from solvers.regularizers import L1Regularizer
from solvers.sharing import VerticalProblem, partition_vertical, vertical_optimum
from solvers.sharing.problem import _woodbury_newton


def problem_of(n=60, d=6, parties=2, seed=0, **kwargs):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + 20, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n + 20) > 0, 1.0, -1.0)
    return VerticalProblem(partition_vertical(X[:n], y[:n], parties), X_test=X[n:], y_test=y[n:], **kwargs)


def test_objective_is_mean_logistic_loss_plus_lambda_half_squared_norm():
    problem = problem_of()
    X, y = problem.partition.X, problem.partition.y
    x = np.random.default_rng(1).normal(size=(3, problem.n_features))
    expected = np.mean(np.log1p(np.exp(-y * (x @ X.T))), axis=-1) + problem.lam * 0.5 * np.sum(x**2, axis=-1)
    np.testing.assert_allclose(problem.objective(x), expected, rtol=1e-13)
    np.testing.assert_allclose(problem.loss_value(x), LogisticLoss().value(x, X, y), rtol=1e-13)
    assert problem.lam == 1 / 60 and problem.sklearn_C == pytest.approx(1.0)
    margins = problem.margins(x)
    np.testing.assert_allclose(margins, np.einsum("mnd,rmd->rn", problem.partition.D, problem.partition.split_model(x)))


def test_test_metrics():
    problem = problem_of()
    x = np.zeros(problem.n_features)
    assert problem.test_log_loss(x) == pytest.approx(np.log(2))
    assert problem.accuracy(x) == np.mean(problem.y_test > 0)  # ties predicted +1
    with pytest.raises(ValueError, match="test set"):
        VerticalProblem(problem.partition).accuracy(x)


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_the_optimum_is_sklearns_logistic_regression_with_c_equal_one_over_lambda_n(C):
    base = problem_of()
    problem = VerticalProblem(base.partition, lam=1 / (C * base.n_samples))
    optimum = vertical_optimum(problem)
    model = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=10_000)
    model.fit(problem.partition.X, problem.partition.y)
    np.testing.assert_allclose(optimum.w, model.coef_[0], rtol=1e-5, atol=1e-7)
    assert optimum.objective <= problem.objective(model.coef_[0]) + 1e-12
    assert optimum.residual <= 1e-10 and problem.sklearn_C == pytest.approx(C)


def test_woodbury_newton_agrees_with_the_primal_newton():
    problem = problem_of(n=20, d=9, parties=3, lam=0.05)
    w, residual, _ = _woodbury_newton(problem, 1e-11)
    assert residual <= 1e-11
    np.testing.assert_allclose(w, vertical_optimum(problem).w, rtol=1e-8, atol=1e-10)
    wide = problem_of(n=10, d=30, parties=3)
    assert vertical_optimum(wide).method == "newton-woodbury"


def test_l1_optimum_uses_fista():
    problem = problem_of(regularizer=L1Regularizer(), lam=0.05)
    optimum = vertical_optimum(problem)
    assert optimum.method == "fista" and np.any(optimum.w == 0)


def test_block_svd_caches_the_factorisation_and_the_rank():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 5))
    X[:, 1] = X[:, 0]  # a dependent column, as a9a's one-hot groups (A6)
    problem = VerticalProblem(partition_vertical(X, rng.choice([-1.0, 1.0], 30), [3, 2]))
    svd = problem.block_svd
    assert svd is problem.block_svd and svd.rank.tolist() == [2, 2]
    for m in range(2):
        D = problem.partition.D[m]
        np.testing.assert_allclose((svd.U[m] * svd.s[m]) @ svd.Vt[m], D, atol=1e-12)


def test_validation():
    problem = problem_of()
    with pytest.raises(TypeError, match="VerticalPartition"):
        VerticalProblem(problem.partition.X)
    with pytest.raises(ValueError, match="lam"):
        VerticalProblem(problem.partition, lam=0.0)
    with pytest.raises(ValueError, match="together"):
        VerticalProblem(problem.partition, X_test=problem.X_test)
    with pytest.raises(ValueError, match="X_test must have the partition's 6 columns"):
        VerticalProblem(problem.partition, X_test=problem.X_test[:, :3], y_test=problem.y_test)
    with pytest.raises(ValueError, match="x must have shape"):
        problem.objective(np.zeros(5))
    problem.check_feature_bound(1.0)
    with pytest.raises(ValueError, match="party 0 has a row"):
        problem.check_feature_bound(0.5)
    assert problem.topology.n_agents == 2 and problem.n_agents == 2
