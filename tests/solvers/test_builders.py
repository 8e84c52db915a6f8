"""Public problem builders (solvers.builders): shapes, splits, the row
bound ‖x‖ ≤ 1 of the privacy analyses (Huang et al. 2020, Sec. VI), determinism, clear errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solvers import DPADMM
from solvers.builders import adult_problem, problem_from_xy, synthetic_problem, twonorm_problem
from solvers.datasets import near_equal_sizes, ringnorm, ringnorm_delve, scale_rows_to_unit_ball


def rows_of(problem):
    """Every record of the problem: (agents' rows, test rows, public rows), each (n, d)."""
    X = problem.partition.X[problem.partition.mask]
    return X, problem.X_test, problem.X_public


def test_adult_problem_is_huang_et_al_table_ii():
    problem = adult_problem(0, n_agents=10, with_optimum=False)
    assert problem.sizes.tolist() == [2100] * 10  # 21,000 training records
    assert problem.X_public.shape == (162, 14) and problem.X_test.shape == (9000, 14)
    assert problem.lam == 0.17 and problem.optimum is None
    assert max(np.linalg.norm(X, axis=1).max() for X in rows_of(problem)) <= 1 + 1e-12
    again = adult_problem(0, n_agents=10, with_optimum=False)
    np.testing.assert_array_equal(problem.partition.X, again.partition.X)
    assert not np.array_equal(problem.partition.X, adult_problem(1, n_agents=10, with_optimum=False).partition.X)


def test_twonorm_problem_is_wang_et_al_setting():
    problem = twonorm_problem(0, with_optimum=False)
    assert problem.sizes.tolist() == [350] * 10 and problem.X_test.shape == (3900, 20)
    assert len(problem.topology.edges) == 13 and problem.lam == 1.0
    again = synthetic_problem("twonorm", 0, with_optimum=False)
    np.testing.assert_array_equal(problem.partition.X, again.partition.X)
    assert problem.topology == again.topology


def test_ringnorm_delve_shifts_breimans_class_minus_one_by_one_over_sqrt_d():
    breiman, delve = ringnorm(50, seed=3), ringnorm_delve(50, seed=3)
    np.testing.assert_array_equal(breiman.y, delve.y)
    shift = np.where(breiman.y[:, None] < 0, 1 / math.sqrt(20), 0.0)
    np.testing.assert_allclose(delve.X - breiman.X, np.broadcast_to(shift, delve.X.shape), atol=1e-15)


def sorted_rows(X):
    return X[np.lexsort(X.T[::-1])]


def data(n=1000, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = 3.0 * rng.normal(size=(n, d))
    X[:10] /= 100.0  # rows inside the unit ball
    return X, (X[:, 0] + rng.normal(size=n) > 0).astype(int)


def test_problem_from_xy_splits_bounds_and_labels():
    X, y = data()
    problem = problem_from_xy(X, y, n_agents=7)
    n_public = math.ceil(1000 * 162 / 30_162)
    assert n_public == 6 and problem.X_public.shape == (6, 5) and problem.X_test.shape == (200, 5)
    assert problem.sizes.tolist() == near_equal_sizes(794, 7).tolist() == [114] * 3 + [113] * 4
    assert problem.lam == pytest.approx(7 / 794)  # scikit-learn's C = 1
    train, test, public = rows_of(problem)
    every = np.vstack([train, test, public])
    clipped = scale_rows_to_unit_ball(X)
    np.testing.assert_array_equal(clipped[:10], X[:10])  # rows inside the unit ball are unchanged
    # a disjoint split of all the rows, each clipped into the unit ball
    np.testing.assert_array_equal(sorted_rows(every), sorted_rows(clipped))
    assert np.linalg.norm(every, axis=1).max() <= 1 + 1e-12
    assert set(np.unique(problem.partition.y[problem.partition.mask])) == {-1.0, 1.0}
    labels = {tuple(x): label for x, label in zip(clipped, np.where(y == 1, 1.0, -1.0), strict=True)}
    assert all(labels[tuple(x)] == label for x, label in zip(test, problem.y_test, strict=True))


def test_problem_from_xy_is_deterministic_in_seed():
    X, y = data()
    a, b, c = (problem_from_xy(X, y, n_agents=4, seed=s) for s in (1, 1, 2))
    for first, second in zip(rows_of(a), rows_of(b), strict=True):
        np.testing.assert_array_equal(first, second)
    assert not np.array_equal(a.partition.X, c.partition.X)


def test_problem_from_xy_options():
    X, y = data(n=200)
    normalized = problem_from_xy(X, y, n_agents=3, rows="normalize", test_size=0.0, n_public=0)
    assert normalized.X_test is None and normalized.X_public is None and normalized.sizes.sum() == 200
    np.testing.assert_allclose(np.linalg.norm(rows_of(normalized)[0], axis=1), 1.0)
    X_pub, y_pub = data(n=20, seed=5)
    own = problem_from_xy(X, y, n_agents=3, X_public=X_pub, y_public=y_pub, lam=0.5, regularizer="l1")
    assert own.X_public.shape == (20, 5) and own.sizes.sum() == 160 and own.lam == 0.5
    assert np.linalg.norm(own.X_public, axis=1).max() <= 1 + 1e-12
    strings = problem_from_xy(X[:30] / 20, np.where(y[:30] == 1, "yes", "no"), n_agents=2, rows="check", n_public=0)
    assert strings.sizes.sum() == 24  # 6 test rows; "yes" > "no", so "yes" is +1


def test_a_default_problem_runs_dpadmm_without_dw():
    X, y = data(n=400)
    result = DPADMM(epsilon=1.0, delta=1e-5, n_iterations=5).run(problem_from_xy(X, y, n_agents=4), seed=0)
    assert result.model.shape == (5,) and result.info["dw"] > 0  # D_w from the public rows


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"y": np.arange(100) % 3}, "exactly two classes"),
        ({"rows": "check"}, "rows='check'"),
        ({"rows": "scale"}, "rows must be one of"),
        ({"n_agents": 1000}, "n_agents must be an integer in"),
        ({"test_size": 1.0}, "test_size"),
        ({"n_public": -1}, "n_public"),
        ({"X_public": np.ones((2, 5))}, "given together"),
        ({"X_public": np.ones((2, 5)) / 5, "y_public": [0, 1], "n_public": 3}, "not both"),
        ({"X_public": np.ones((2, 5)) / 5, "y_public": [0, 7]}, "y_public must hold labels"),
        ({"regularizer": "l3"}, "regularizer"),
        ({"X": np.ones((99, 5))}, "must have shape (100, d)"),
    ],
)
def test_problem_from_xy_names_the_bad_argument(kwargs, message):
    X, y = data(n=100)
    arguments = {"X": X, "y": y, "n_agents": 2, **kwargs}
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        problem_from_xy(arguments.pop("X"), arguments.pop("y"), **arguments)


def test_the_default_lambda_is_scikit_learns_c_equal_one():
    from sklearn.linear_model import LogisticRegression

    from solvers import centralized_optimum

    X, y = data(n=700)
    problem = problem_from_xy(X, y, n_agents=7, test_size=0.0, n_public=0)  # 7 shards of 100 rows
    train = problem.partition.X.reshape(700, -1), problem.partition.y.reshape(700)
    reference = LogisticRegression(C=1.0, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(*train)
    np.testing.assert_allclose(centralized_optimum(problem).w, reference.coef_[0], atol=1e-6)
