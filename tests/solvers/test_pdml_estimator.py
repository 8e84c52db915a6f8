"""Tests for solvers.pdml.estimator: PDMLClassifier (Wang et al. 2020) in scikit-learn's machinery, its
total budget (the broadcasts' Gaussian noise; the label randomization a guarantee of its own against the
collecting server) and its paper preset."""

import math
import warnings

import numpy as np
import pytest
from dp_accounting import dp_event, pld
from scipy.integrate import trapezoid
from scipy.stats import norm
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import check_estimator

from accountants.gaussian_dp import gaussian_delta
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
    result = solver.run(problem, seed=noise_seed, accountants=("exact_gaussian",))
    np.testing.assert_array_equal(model.coef_[0], result.model)
    assert model.privacy_ == result.privacy
    with pytest.raises(ValueError, match="name must be one of"):
        PDMLClassifier.paper_preset("zhang2020")


def test_the_budget_is_the_broadcasts_and_an_independent_accountant_agrees(cancer):
    X, y, _, _ = cancer
    model = PDMLClassifier(epsilon=2.0, n_iterations=20, tol=None, random_state=0).fit(X, y)
    # the 20 broadcasts of a server compose to one Gaussian of multiplier z, calibrated to the budget
    assert model.privacy_["exact_gaussian"] == pytest.approx(2.0, rel=1e-6) and model.privacy_["exact_gaussian"] <= 2.0
    assert model.info_["label_epsilon"] == 2.0  # the same ε for the labels, against the collecting server
    assert model.info_["beta"] == 1.0  # β = 1 while the noise dominates (ε ≤ 10)
    assert len(model.ledger_) == 2 + 2 * 20 and not hasattr(model, "secret_result_")  # the default 2 groups
    independent = pld.PLDAccountant(value_discretization_interval=1e-3)
    independent.compose(dp_event.ComposedDpEvent([e.event for e in model.ledger_ if e.participant == "server-0"]))
    assert independent.get_epsilon(1e-5) == pytest.approx(2.0, abs=2e-3)
    # a label ε of its own changes the sensitivity (the debiased loss's slope), not the multiplier
    split = PDMLClassifier(epsilon=2.0, label_epsilon=0.5, n_iterations=20, tol=None, random_state=0).fit(X, y)
    assert split.info_["noise_multiplier"] == model.info_["noise_multiplier"]
    slope = (1 / -np.expm1(-0.5)) / (1 / -np.expm1(-2.0))  # G(ε1) = 1/(1 − e^{−ε1}) for the logistic loss
    np.testing.assert_allclose(split.info_["sensitivity"], model.info_["sensitivity"] * slope, rtol=1e-6)


@pytest.mark.parametrize(
    "means", [(0.0, 0.0, 1.0, 1.0), (0.0, 1.0, 1.0, 0.0), (0.3, -0.2, 0.7, 0.5), (0.0, 0.5, 0.5, 0.0)]
)
def test_a_mixture_over_the_reported_label_is_as_private_as_the_broadcast(means):
    """The module docstring's argument on one Gaussian release of multiplier z: the example (x, y) is
    seen as N(a(y'), z²) with y' = y kept with probability 1 − p, its neighbour (x*, −y) as N(b(y'), z²),
    every |a − b| ≤ 1 (the sensitivity); the hockey-stick divergence of the two mixtures, integrated
    on a grid, is at most the Gaussian's δ(ε), with equality when the label does not move the mean."""
    z, epsilon, p = 1.5, 1.0, 1 / (1 + math.e)
    a_kept, a_flipped, b_kept, b_flipped = means
    grid = np.linspace(-15.0, 16.0, 100_001)
    P = (1 - p) * norm.pdf(grid, a_kept, z) + p * norm.pdf(grid, a_flipped, z)
    Q = p * norm.pdf(grid, b_kept, z) + (1 - p) * norm.pdf(grid, b_flipped, z)  # the neighbour's label is −y
    divergence = trapezoid(np.maximum(P - math.exp(epsilon) * Q, 0.0), grid)
    bound = gaussian_delta(1 / z, epsilon)
    assert divergence <= bound + 1e-9
    if a_kept == a_flipped and b_kept == b_flipped:
        assert divergence == pytest.approx(bound, rel=1e-6)


def test_no_noise_matches_logistic_regression(cancer):
    X, y, X_test, y_test = cancer
    reference = LogisticRegression().fit(X, y).score(X_test, y_test)
    for epsilon in (math.inf, 1e6):
        model = PDMLClassifier(epsilon=epsilon, random_state=0).fit(X, y)
        assert abs(model.score(X_test, y_test) - reference) <= 0.02
        assert model.info_["beta"] == 0.01


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
