"""Tests for solvers.decentralized.estimator: DecentralizedClassifier (R-ADMM, MR-ADMM, PP, DVP of Zhang,
Khalili & Liu 2020 and 2018) in scikit-learn's machinery, its total pure-ε budget and its paper presets."""

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import check_estimator

from solvers import DecentralizedClassifier
from solvers.datasets import partition_horizontal
from solvers.decentralized import RADMM, DecentralizedProblem, PenaltyPerturbation


@pytest.mark.parametrize("params", [{}, {"epsilon": math.inf, "variant": "dvp", "n_iterations": 20}])
def test_sklearn_estimator_checks_pass(params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        results = check_estimator(DecentralizedClassifier(**params), on_fail=None)
    failed = {r["check_name"]: str(r["exception"])[:200] for r in results if r["status"] == "failed"}
    assert failed == {} and len(results) > 40
    assert DecentralizedClassifier(**params).__sklearn_tags__().classifier_tags.poor_score is (params == {})
    assert DecentralizedClassifier().epsilon == 1.0  # the one default budget of every estimator


@pytest.mark.parametrize(
    "name, solver",
    [
        ("zhang2020", RADMM(eta=1.0, gamma=0.5, alpha=1.0, n_iterations=10)),
        (
            "zhang2018",
            PenaltyPerturbation(theta=0.5, q1=1.05, alpha=(3.0 * 1.03 ** np.arange(10)).tolist(), n_iterations=10),
        ),
    ],
)
def test_paper_preset_is_the_solver_on_the_paper_problem(unit_rows, name, solver):
    """Without intercept and with data_norm = 1 the preset runs the paper's solver on the rows as given
    (C = 20 instead of 1750 so that C ≤ B_i = 40 on these 200 rows; T = 10)."""
    X, y = unit_rows
    model = DecentralizedClassifier.paper_preset(
        name, loss_scale=20.0, lam=0.22 / 20.0, n_iterations=10, random_state=3, keep_secrets=True
    ).fit(X, y)
    partition_seed, noise_seed = np.random.SeedSequence(model.secret_seed_.entropy).spawn(2)
    partition = partition_horizontal(X, np.where(y == "yes", 1.0, -1.0), 5, seed=np.random.default_rng(partition_seed))
    problem = DecentralizedProblem.create(partition, model.graph, C=20.0, rho=0.22 / 20.0 * 20.0)
    result = solver.run(problem, seed=noise_seed, accountants=("pure",))
    np.testing.assert_array_equal(model.coef_[0], result.model)
    assert model.privacy_ == result.privacy and model.intercept_.tolist() == [0.0]


def test_paper_presets_are_documented_settings():
    radmm = DecentralizedClassifier.paper_preset().get_params()
    assert (radmm["variant"], radmm["loss_scale"], radmm["eta"], radmm["alpha"], radmm["n_iterations"]) == (
        "radmm",
        1750.0,
        1.0,
        1.0,
        50,
    )
    assert radmm["lam"] * 1750.0 == pytest.approx(0.22) and radmm["graph"].degrees.min() >= 2
    pp = DecentralizedClassifier.paper_preset("zhang2018").get_params()
    assert (pp["variant"], pp["eta"], pp["eta_growth"], pp["alpha"], pp["q2"]) == ("pp", 0.5, 1.05, 3.0, 1.03)
    with pytest.raises(ValueError, match="name must be one of"):
        DecentralizedClassifier.paper_preset("huang2020")


@pytest.mark.parametrize("variant, K", [("radmm", 20), ("mradmm", 20), ("pp", 40), ("dvp", 40)])
def test_total_budget_is_split_over_the_noisy_iterations(cancer, variant, K):
    X, y, _, _ = cancer
    growth = 1.02 if variant in ("mradmm", "pp") else 1.0
    model = DecentralizedClassifier(
        variant=variant, n_agents=5, epsilon=20.0, eta_growth=growth, n_iterations=40, tol=None, random_state=0
    ).fit(X, y)
    # every node spends the total ε of the theorems' pure composition, never more
    assert model.privacy_["pure"] == pytest.approx(20.0, rel=1e-10) and model.privacy_["pure"] <= 20.0
    assert model.info_["alpha"].shape == (K, 5) and np.all(model.info_["alpha"] > 0)
    assert model.info_["epsilon_per_iteration"] == pytest.approx(20.0 / K, rel=1e-10)
    assert len(model.ledger_) == 5 * 41 and not hasattr(model, "secret_result_")


def test_unreachable_budget_is_refused_naming_epsilon(cancer):
    X, y, _, _ = cancer
    with pytest.raises(ValueError, match=r"epsilon=0.1 cannot be reached by variant='radmm'"):
        DecentralizedClassifier(epsilon=0.1, eta=0.01, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"epsilon=1 cannot be reached by variant='dvp'"):
        DecentralizedClassifier(variant="dvp", epsilon=1.0, eta=0.01, n_iterations=100, random_state=0).fit(X, y)
    # eta="auto" raises the penalty until the fixed cost is half the budget: the same budget is reached
    auto = DecentralizedClassifier(epsilon=0.1, tol=None, random_state=0).fit(X, y)
    assert auto.info_["eta"] > 0.01 and auto.privacy_["pure"] == pytest.approx(0.1, rel=1e-10)


@pytest.mark.parametrize("variant", ["radmm", "pp"])
def test_no_noise_matches_logistic_regression(cancer, variant):
    """ε = inf (and ε = 10⁶) with the defaults: within 2 points of LogisticRegression() on breast cancer."""
    X, y, X_test, y_test = cancer
    reference = LogisticRegression().fit(X, y).score(X_test, y_test)
    for epsilon in (math.inf, 1e6):
        model = DecentralizedClassifier(variant=variant, epsilon=epsilon, random_state=0).fit(X, y)
        assert abs(model.score(X_test, y_test) - reference) <= 0.02
    assert model.privacy_["pure"] <= 1e6


@pytest.mark.parametrize(
    "params, match",
    [
        ({"variant": "admm"}, "variant"),
        ({"n_agents": 0}, "n_agents"),
        ({"n_agents": 10_000}, "n_agents"),
        ({"n_iterations": 11}, "n_iterations must be even"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"alpha": 0.0}, "alpha"),
        ({"eta": "fast"}, "eta"),
        ({"eta_growth": 0.5, "variant": "mradmm"}, "eta_growth"),
        ({"eta_growth": 1.1}, "eta_growth must be 1"),
        ({"q2": 1.1, "variant": "pp"}, "q2"),
        ({"graph": "star"}, "graph"),
        ({"loss_scale": 0.0}, "loss_scale"),
        ({"C": -1.0}, "C must be"),
        ({"tol": 0.0}, "tol"),
        ({"keep_secrets": 1}, "keep_secrets"),
        ({"fit_intercept": "no"}, "fit_intercept"),
    ],
)
def test_bad_parameters_are_reported_at_fit(unit_rows, params, match):
    X, y = unit_rows
    wrong_type = {"keep_secrets", "fit_intercept"} & set(params)  # TypeError: not a bool at all
    with pytest.raises(TypeError if wrong_type else ValueError, match=match):
        DecentralizedClassifier(**{"n_iterations": 10, **params}).fit(X, y)
