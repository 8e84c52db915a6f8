"""Tests for solvers.sharing.sgd: the FDML-style distributed SGD baseline on the same vertical split."""

import numpy as np
import pytest

from solvers.sharing import ADMMSharing, VerticalProblem, VerticalSGD, partition_vertical, vertical_optimum

NO_ACCOUNTANTS = {"accountants": ()}


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 8)) + rng.normal(size=(300, 1))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X @ rng.normal(size=8) * 4 + rng.logistic(size=300) > 0, 1.0, -1.0)
    problem = VerticalProblem(partition_vertical(X[:200], y[:200], [5, 3]), X_test=X[200:], y_test=y[200:])
    return problem.with_optimum(vertical_optimum(problem))


def test_sgd_approaches_the_same_optimum(problem):
    result = VerticalSGD(learning_rate=2.0, batch_size=10, n_epochs=60, schedule="inverse_sqrt").run(
        problem, seed=0, record_transcript=False, **NO_ACCOUNTANTS
    )
    gap = result.history["relative_gap"]
    assert gap[-1] < 1e-2 and gap[-1] < gap[0]
    assert result.history["test_log_loss"].shape == (60,)


def test_each_party_sends_one_value_per_sample_per_epoch_and_the_server_is_consistent(problem):
    E, M, N = 3, problem.n_parties, problem.n_samples
    transcript = VerticalSGD(n_epochs=E, batch_size=7).run(problem, seed=1, **NO_ACCOUNTANTS).transcript
    assert transcript["u"].shape == (E, M, N) and transcript["g"].shape == (E, N)
    labels = problem.partition.y
    total = transcript["u"].sum(axis=1)  # the server's sums, sample by sample
    np.testing.assert_allclose(transcript["g"], -labels / (1 + np.exp(labels * total)), rtol=1e-12)


def test_sgd_batched_trials_equal_single_runs_and_differ_from_each_other(problem):
    solver = VerticalSGD(n_epochs=2, batch_size=16)
    batched = solver.run(problem, seed=4, trials=2, record_transcript=False, **NO_ACCOUNTANTS)
    single = solver.run(problem, seed=batched.seeds[1], record_transcript=False, **NO_ACCOUNTANTS)
    np.testing.assert_allclose(batched.model[1], single.model, rtol=1e-12, atol=1e-15)
    assert not np.allclose(batched.model[0], batched.model[1])


def test_sgd_starts_from_a_small_random_model_and_admm_from_zero(problem):
    sgd = VerticalSGD(n_epochs=1, learning_rate=1e-12).run(problem, seed=0, record_transcript=False, **NO_ACCOUNTANTS)
    assert 0 < np.std(sgd.model) < 0.02
    admm = ADMMSharing(n_iterations=1).run(problem, seed=0, record_transcript=False, **NO_ACCOUNTANTS)
    assert np.all(admm.model == 0)  # x^1 = 0 from x = y = z = 0 (Hu et al. 2019, §5)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"learning_rate": 0.0}, ValueError, "^learning_rate must be finite and > 0"),
        ({"batch_size": 0}, ValueError, "^batch_size must be an int >= 1, got 0$"),
        ({"n_epochs": 1.5}, TypeError, "^n_epochs must be an int >= 1, got 1.5$"),
        ({"schedule": "cosine"}, ValueError, "^schedule must be 'constant' or 'inverse_sqrt', got 'cosine'$"),
        ({"init_scale": -1.0}, ValueError, "^init_scale must be finite and >= 0"),
    ],
)
def test_bad_parameters(kwargs, error, message):
    with pytest.raises(error, match=message):
        VerticalSGD(**kwargs)
