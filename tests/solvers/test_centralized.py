"""Tests for solvers.centralized: the reference optimum against scikit-learn."""

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression

from solvers.centralized import centralized_optimum, regularized_erm
from solvers.datasets import partition_horizontal, twonorm
from solvers.losses import LogisticLoss
from solvers.problem import HorizontalProblem
from solvers.regularizers import L1Regularizer, L2Regularizer

SKLEARN_VERSION = tuple(int(part) for part in sklearn.__version__.split(".")[:2])


@pytest.fixture(scope="module")
def data():
    dataset = twonorm(600, seed=0)
    X = dataset.X / np.linalg.norm(dataset.X, axis=1).max()
    return X, dataset.y


def sklearn_fit(X, y, regularizer, C, sample_weight=None):
    if isinstance(regularizer, L2Regularizer):
        kwargs: dict[str, object] = {"solver": "lbfgs"}
    elif SKLEARN_VERSION >= (1, 8):  # the penalty is chosen by l1_ratio alone since 1.8
        kwargs = {"l1_ratio": 1.0, "solver": "saga"}
    else:
        kwargs = {"penalty": "l1", "solver": "saga"}
    model = LogisticRegression(C=C, fit_intercept=False, tol=1e-12, max_iter=100_000, **kwargs)
    return model.fit(X, y, sample_weight=sample_weight).coef_[0]


@pytest.mark.parametrize("regularizer", [L2Regularizer(), L1Regularizer()], ids=repr)
def test_equal_sizes_match_sklearn_with_c_one_over_m_lambda(data, regularizer):
    X, y = data
    lam, n_agents = 2.0, 6
    problem = HorizontalProblem(partition_horizontal(X, y, n_agents, seed=0), regularizer=regularizer, lam=lam)
    optimum = centralized_optimum(problem)
    m = X.shape[0] // n_agents
    reference = sklearn_fit(X, y, regularizer, C=1 / (m * lam))
    assert optimum.residual <= 1e-10
    np.testing.assert_allclose(optimum.w, reference, atol=1e-6)
    assert optimum.objective == pytest.approx(float(problem.objective(optimum.w)), rel=1e-15)
    assert optimum.objective <= problem.objective(reference) + 1e-12
    if isinstance(regularizer, L1Regularizer):
        assert optimum.method == "fista" and np.any(optimum.w == 0)
    else:
        assert optimum.method == "newton"


def test_unequal_sizes_match_sklearn_with_sample_weights(data):
    X, y = data
    sizes = [50, 100, 150, 300]
    partition = partition_horizontal(X, y, 4, seed=1, sizes=sizes)
    problem = HorizontalProblem(partition, lam=0.5)
    optimum = centralized_optimum(problem)
    order = partition.indices[partition.mask]
    weights = (partition.mask / partition.sizes[:, None])[partition.mask]
    reference = sklearn_fit(X[order], y[order], L2Regularizer(), C=1 / 0.5, sample_weight=weights)
    np.testing.assert_allclose(optimum.w, reference, atol=1e-6)


def test_optimum_gradient_vanishes(data):
    X, y = data
    problem = HorizontalProblem(partition_horizontal(X, y, 3, seed=0), lam=0.1)
    optimum = centralized_optimum(problem)
    consensus = np.broadcast_to(optimum.w, (3, X.shape[1]))
    assert np.linalg.norm(problem.local_gradient(consensus).sum(0)) <= 1e-10


def test_regularized_erm_defaults_to_the_mean_and_validates(data):
    X, y = data
    fit = regularized_erm(X, y, loss=LogisticLoss(), regularizer=L2Regularizer(), reg=0.01)
    assert fit.objective == pytest.approx(LogisticLoss().value(fit.w, X, y) + 0.005 * fit.w @ fit.w, rel=1e-14)
    with pytest.raises(ValueError, match="weights"):
        regularized_erm(X, y, loss=LogisticLoss(), regularizer=L2Regularizer(), reg=0.01, weights=np.ones(3))
    with pytest.raises(ValueError, match="reg"):
        regularized_erm(X, y, loss=LogisticLoss(), regularizer=L2Regularizer(), reg=0.0)
