"""Tests for solvers.pdml.estimator: PDMLClassifier (Wang et al. 2020) in scikit-learn's machinery, its
total budget (label randomization and broadcast noise composed by the accountant) and its paper preset."""

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import check_estimator

from solvers import PDMLClassifier
from solvers.graph import GraphTopology
from solvers.pdml import PDML
from solvers.problem import HorizontalProblem


def test_sklearn_estimator_checks_pass():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        results = check_estimator(PDMLClassifier(n_iterations=10), on_fail=None)  # short fits: the checks are the API's
    failed = {r["check_name"]: str(r["exception"])[:200] for r in results if r["status"] == "failed"}
    assert failed == {} and len(results) > 40
    assert PDMLClassifier().__sklearn_tags__().classifier_tags.poor_score is True
    assert PDMLClassifier(epsilon=math.inf).__sklearn_tags__().classifier_tags.poor_score is False


def test_paper_preset_is_the_solver_on_the_paper_problem(unit_rows):
    """Wang et al. 2020's setting (label ε = 1, V = 0.1, ρ = 0.8, R = 1, β = 1, a = 1) with T = 10."""
    X, y = unit_rows
    model = PDMLClassifier.paper_preset(n_iterations=10, random_state=3, keep_secrets=True).fit(X, y)
    partition_seed, noise_seed = np.random.SeedSequence(model.secret_seed_.entropy).spawn(2)
    problem = HorizontalProblem.from_data(
        X,
        np.where(y == "yes", 1.0, -1.0),
        10,
        seed=np.random.default_rng(partition_seed),
        lam=1.0,
        topology=GraphTopology.ring(10),
    )
    solver = PDML(eps_label=1.0, eta_bound=1.0, V=0.1, rho_decay=0.8, beta=1.0, n_iterations=10, x_max=1.0)
    result = solver.run(problem, seed=noise_seed, accountants=("rdp",))
    np.testing.assert_array_equal(model.coef_[0], result.model)
    assert model.info_["epsilon_phase2"] == result.privacy
    with pytest.raises(ValueError, match="name must be one of"):
        PDMLClassifier.paper_preset("zhang2020")


def test_total_budget_composes_label_and_broadcasts(cancer):
    X, y, _, _ = cancer
    model = PDMLClassifier(epsilon=2.0, n_iterations=20, tol=None, random_state=0).fit(X, y)
    # the label release (ε/2) and the 20 broadcasts compose to the budget, never above it
    assert model.privacy_["rdp"] == pytest.approx(2.0, rel=1e-6) and model.privacy_["rdp"] <= 2.0
    assert model.info_["label_epsilon"] == 1.0
    assert 0 < model.info_["epsilon_phase2"]["rdp"] < 2.0
    assert len(model.ledger_) == 2 + 2 * 20 and not hasattr(model, "secret_result_")  # the default 2 groups
    split = PDMLClassifier(epsilon=2.0, label_epsilon=1.5, n_iterations=20, tol=None, random_state=0).fit(X, y)
    assert split.privacy_["rdp"] <= 2.0 and split.info_["noise_multiplier"] > model.info_["noise_multiplier"]
    with pytest.raises(ValueError, match="label_epsilon=2 leaves no budget"):
        PDMLClassifier(epsilon=2.0, label_epsilon=2.0).fit(X, y)


def test_no_noise_matches_logistic_regression(cancer):
    X, y, X_test, y_test = cancer
    reference = LogisticRegression().fit(X, y).score(X_test, y_test)
    for epsilon in (math.inf, 1e6):
        model = PDMLClassifier(epsilon=epsilon, random_state=0).fit(X, y)
        assert abs(model.score(X_test, y_test) - reference) <= 0.02


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_agents": 0}, "n_agents"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"delta": 1.0}, "delta"),
        ({"label_epsilon": -1.0}, "label_epsilon"),
        ({"V": 0.0}, "V must be"),
        ({"rho_decay": 1.5}, "rho_decay"),
        ({"beta": 0.0}, "beta"),
        ({"eta_bound": -1.0}, "eta_bound"),
        ({"accountants": ("nope",)}, "accountants"),
        ({"graph": GraphTopology.ring(3)}, "graph has 3 agents"),
        ({"n_iterations": 0}, "n_iterations"),
    ],
)
def test_bad_parameters_are_reported_at_fit(unit_rows, params, match):
    X, y = unit_rows
    with pytest.raises(ValueError, match=match):
        PDMLClassifier(**{"n_iterations": 5, **params}).fit(X, y)
