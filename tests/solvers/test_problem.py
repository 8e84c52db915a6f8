"""Tests for solvers.problem: objectives and derivatives against solvers.losses, shapes, validation."""

import numpy as np
import pytest

from solvers.datasets import partition_horizontal
from solvers.losses import HuberHingeLoss, LogisticLoss
from solvers.problem import HorizontalProblem, Optimum, _d2phi, _dphi, _phi
from solvers.regularizers import L1Regularizer, L2Regularizer
from solvers.topology import StarTopology


def unit_rows(rng, n, d):
    X = rng.normal(size=(n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(0.2, 1.0, size=(n, 1))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = unit_rows(rng, 60, 4)
    y = np.where(rng.random(60) < 0.5, -1.0, 1.0)
    return X, y


LOGISTIC, SQUARED_NORM = LogisticLoss(), L2Regularizer()


def problem_for(data, loss=LOGISTIC, regularizer=SQUARED_NORM, sizes=None, **kwargs):
    X, y = data
    partition = partition_horizontal(X, y, 5, seed=1, sizes=sizes)
    return HorizontalProblem(partition, loss=loss, regularizer=regularizer, **{"lam": 0.3, **kwargs})


PROBLEMS = [
    (LogisticLoss(), L2Regularizer(), None),
    (HuberHingeLoss(), L1Regularizer(), None),
    (LogisticLoss(), L1Regularizer(), [5, 7, 13, 15, 20]),  # unequal m_i: padding and mask
]


@pytest.mark.parametrize("loss, regularizer, sizes", PROBLEMS)
def test_local_methods_agree_with_a_loop_over_agents_and_trials(data, loss, regularizer, sizes):
    problem = problem_for(data, loss, regularizer, sizes)
    rng = np.random.default_rng(2)
    w = rng.normal(size=(3, 5, 4)) * 2
    N = problem.n_agents
    for r in range(3):
        for i in range(N):
            X, y = problem.partition.agent_data(i)
            v = w[r, i]
            assert problem.local_loss(w)[r, i] == pytest.approx(loss.value(v, X, y), rel=1e-13)
            np.testing.assert_allclose(
                problem.local_loss_gradient(w)[r, i], loss.gradient(v, X, y), rtol=1e-12, atol=1e-15
            )
            np.testing.assert_allclose(
                problem.local_loss_hessian(w)[r, i], loss.hessian(v, X, y), rtol=1e-12, atol=1e-15
            )
            f = loss.value(v, X, y) + 0.3 / N * regularizer.value(v)
            assert problem.local_objective(w)[r, i] == pytest.approx(f, rel=1e-13)
            g = loss.gradient(v, X, y) + 0.3 / N * regularizer.gradient(v)
            np.testing.assert_allclose(problem.local_gradient(w)[r, i], g, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("loss, regularizer, sizes", PROBLEMS)
def test_objective_is_the_sum_of_local_objectives_at_consensus(data, loss, regularizer, sizes):
    problem = problem_for(data, loss, regularizer, sizes)
    w = np.random.default_rng(3).normal(size=(2, 3, 4))
    consensus = np.broadcast_to(w[..., None, :], (2, 3, problem.n_agents, 4))
    np.testing.assert_allclose(problem.objective(w), problem.local_objective(consensus).sum(-1), rtol=1e-13)
    np.testing.assert_allclose(problem.empirical_loss(w), problem.local_loss(consensus).sum(-1), rtol=1e-13)
    assert problem.objective(w[0, 0]).shape == ()


def test_equal_sizes_objective_is_n_times_pooled_mean_loss_plus_lambda_r(data):
    problem = problem_for(data)
    X, y = data
    w = np.array([0.3, -1.0, 2.0, 0.5])
    pooled = LogisticLoss().value(w, X, y)
    assert problem.objective(w) == pytest.approx(5 * pooled + 0.3 * 0.5 * w @ w, rel=1e-13)


def test_accuracy_predicts_positive_on_ties(data):
    X, y = data
    problem = problem_for(data, X_test=X, y_test=y)
    assert problem.accuracy(np.zeros(4)) == pytest.approx(np.mean(y > 0))
    w = np.array([1.0, -1.0, 0.5, 0.0])
    assert problem.accuracy(w) == pytest.approx(np.mean(np.where(X @ w >= 0, 1, -1) == y))
    assert problem.accuracy(np.stack([w, -w])).shape == (2,)


@pytest.mark.parametrize("loss", [LogisticLoss(), HuberHingeLoss()], ids=repr)
def test_in_place_kernels_match_the_loss_methods(loss):
    z = np.concatenate([np.linspace(-800, 800, 4001), [0.0, -1e-300, 1e-300]])
    np.testing.assert_allclose(_phi(loss, z.copy()), loss.phi(z), rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(_dphi(loss, z.copy()), loss.dphi(z), rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(_d2phi(loss, z.copy()), loss.d2phi(z), rtol=1e-13, atol=1e-300)


def test_feature_bound_check_names_the_agent_and_the_fix(data):
    X, y = data
    partition = partition_horizontal(X * 1.5, y, 5, seed=1)
    problem = HorizontalProblem(partition)
    assert problem.max_feature_norm > 1
    with pytest.raises(ValueError, match=r"L2 norm .* > 1.*clip=True"):
        problem.check_feature_bound()
    problem_for(data).check_feature_bound()


def test_from_data_refuses_large_rows_unless_clipping(data):
    X, y = data
    with pytest.raises(ValueError, match="max_norm"):
        HorizontalProblem.from_data(X * 2, y, 5, seed=0)
    with pytest.warns(UserWarning, match="clipped"):
        problem = HorizontalProblem.from_data(X * 2, y, 5, seed=0, clip=True, lam=0.5)
    assert problem.max_feature_norm <= 1 + 1e-12 and problem.lam == 0.5


def test_local_smoothness_bounds_the_hessians(data):
    problem = problem_for(data)
    w = np.random.default_rng(4).normal(size=(50, 5, 4))
    top = np.linalg.eigvalsh(problem.local_loss_hessian(w))[..., -1]
    assert np.all(top <= problem.local_smoothness + 1e-12)
    assert np.all(problem.local_smoothness <= 0.25 + 1e-12)


def test_defaults_and_with_optimum(data):
    problem = problem_for(data)
    assert problem.topology == StarTopology(5) and problem.n_features == 4 and not problem.has_test
    optimum = Optimum(np.zeros(4), 1.0, 0.0, 0, "test")
    assert problem.with_optimum(optimum).optimum is optimum and problem.optimum is None


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"lam": 0.0}, ValueError, "lam"),
        ({"lam": float("nan")}, ValueError, "lam"),
        ({"lam": "1"}, TypeError, "lam"),
        ({"loss": "logistic"}, TypeError, "loss"),
        ({"regularizer": None}, TypeError, "regularizer"),
        ({"X_test": np.zeros((2, 4))}, ValueError, "X_test and y_test"),
        ({"X_test": np.zeros((2, 3)), "y_test": np.ones(2)}, ValueError, "4 features"),
        ({"topology": StarTopology(4)}, ValueError, "topology"),
    ],
)
def test_invalid_arguments_name_the_argument(data, kwargs, error, match):
    with pytest.raises(error, match=match):
        problem_for(data, **kwargs)


def test_model_shape_is_checked(data):
    problem = problem_for(data)
    with pytest.raises(ValueError, match=r"\(\.\.\., N, d\)"):
        problem.local_loss(np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"\(\.\.\., d\)"):
        problem.objective(np.zeros(3))


def test_partition_must_be_a_horizontal_partition():
    with pytest.raises(TypeError, match="partition"):
        HorizontalProblem(np.zeros((2, 3, 4)))
