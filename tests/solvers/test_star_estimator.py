"""Tests for solvers.star.estimator: DPADMMClassifier in scikit-learn's machinery, its defaults (C,
intercept, total ε, public row bound, convergence warning) and the paper preset (Huang et al. 2020)."""

import math
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer
from sklearn.utils.estimator_checks import check_estimator

from solvers import DPADMM, DPADMMClassifier, HorizontalProblem
from solvers.datasets import twonorm
from solvers.private_estimator import UnitBallRecords

#: The paper preset, short (Huang et al. 2020's setting with 5 agents and 10 iterations).
FAST = {"n_agents": 5, "n_iterations": 10, "accountants": ()}


def preset(**kwargs):
    return DPADMMClassifier.paper_preset(**{**FAST, **kwargs})


@pytest.fixture(scope="module")
def data():
    dataset = twonorm(400, seed=0, dim=5)
    X = dataset.X / np.linalg.norm(dataset.X, axis=1).max()
    labels = np.where(dataset.y > 0, "yes", "no")
    return X, labels


def test_fit_predict_proba_score_with_string_labels(data):
    X, y = data
    model = preset(epsilon=0.5, random_state=0, dw=2.0).fit(X, y)
    assert model.coef_.shape == (1, 5) and model.intercept_.tolist() == [0.0]
    assert model.classes_.tolist() == ["no", "yes"] and model.n_features_in_ == 5
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    predictions = model.predict(X)
    np.testing.assert_array_equal(predictions, np.where(X @ model.coef_[0] >= 0, "yes", "no"))
    np.testing.assert_array_equal(predictions, model.classes_[proba.argmax(axis=1)])
    assert model.score(X, y) > 0.9  # twonorm is nearly separable through the origin
    assert len(model.ledger_) == 5 * 10 and not hasattr(model, "secret_result_")


def test_random_state_makes_fits_deterministic(data):
    X, y = data
    a = preset(random_state=3, dw=2.0).fit(X, y).coef_
    b = preset(random_state=3, dw=2.0).fit(X, y).coef_
    c = preset(random_state=4, dw=2.0).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_privacy_report_and_algorithms(data):
    X, y = data
    private = DPADMMClassifier.paper_preset(n_agents=4, n_iterations=5, random_state=0, dw=1.0).fit(X, y)
    assert set(private.privacy_) == {"moments_classic", "exact_gaussian"}
    assert 0 < private.privacy_["exact_gaussian"] < private.privacy_["moments_classic"]
    admm = preset(algorithm="admm", random_state=0).fit(X, y)
    assert admm.score(X, y) > 0.9 and admm.privacy_ == {}
    naive = preset(algorithm="naive", sensitivity="tight", epsilon=0.5, random_state=0).fit(X, y)
    assert naive.coef_.shape == (1, 5)
    average = preset(output="average", random_state=0, dw=2.0, keep_secrets=True).fit(X, y)
    np.testing.assert_allclose(average.coef_[0], average.secret_result_.model_average)


def test_public_rows_estimate_dw(data):
    X, y = data
    model = preset(random_state=0).fit(X[:300], y[:300], X_public=X[300:], y_public=y[300:])
    assert model.info_["dw"] > 0 and model.info_["dw"] != 1.0
    fallback = preset(random_state=0).fit(X[:300], y[:300])
    assert fallback.info_["dw"] == 1.0
    with pytest.raises(ValueError, match="y_public"):
        preset().fit(X, y, X_public=X[:3], y_public=["a", "b", "c"])


def test_rows_outside_the_data_bound_are_refused_unless_clipping(data):
    X, y = data
    with pytest.raises(ValueError, match="clip=True"):
        preset().fit(X * 3, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # clipping is part of the mechanism: silent
        clipped = preset(clip=True, random_state=0, dw=2.0).fit(X * 3, y)
    # each row is mapped on its own onto the unit sphere: the same fit as on the normalised rows
    normalised = X / np.linalg.norm(X * 3, axis=1, keepdims=True).clip(min=1.0) * 3
    again = preset(clip=True, random_state=0, dw=2.0).fit(normalised, y)
    np.testing.assert_allclose(clipped.coef_, again.coef_, rtol=1e-12)


def test_clone_params_pipeline_and_model_selection(data):
    X, y = data
    model = preset(epsilon=0.5, random_state=0, dw=2.0)
    copy = clone(model)
    assert copy.get_params() == model.get_params() and copy is not model
    assert copy.set_params(epsilon=0.2).epsilon == 0.2
    pipeline = make_pipeline(Normalizer(), FunctionTransformer(lambda Z: 0.9 * Z), model)
    scores = cross_val_score(pipeline, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.8)
    search = GridSearchCV(model, {"rho": [0.5, 1.0]}, cv=2).fit(X, y)
    assert search.best_params_["rho"] in (0.5, 1.0)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"algorithm": "sgd"}, "algorithm"),
        ({"regularizer": "elastic"}, "regularizer"),
        ({"output": "best"}, "output"),
        ({"n_agents": 0}, "n_agents"),
        ({"n_agents": 1000}, "n_agents"),
        ({"epsilon": -1.0}, "epsilon"),
    ],
)
def test_bad_parameters_are_reported_at_fit(data, params, match):
    X, y = data
    with pytest.raises(ValueError, match=match):
        DPADMMClassifier(**{**FAST, **params}).fit(X, y)


def test_targets_neither_binary_nor_multiclass_are_refused(data):
    X, _ = data
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        DPADMMClassifier(**FAST).fit(X, np.linspace(0.0, 1.0, X.shape[0]))
    with pytest.raises(ValueError, match="1 class"):
        DPADMMClassifier(**FAST).fit(X, np.ones(X.shape[0]))
    assert DPADMMClassifier().__sklearn_tags__().classifier_tags.multi_class is True


@pytest.mark.parametrize(
    "params",
    [
        {"n_iterations": 20},
        {"epsilon": math.inf, "n_iterations": 100},
        {"tol": None, "n_agents": 2, "n_iterations": 20},
    ],
)
def test_sklearn_estimator_checks_pass(params):
    """The defaults in a short fit, the noise-free fit (held to the checks' accuracy threshold; 100
    iterations, not the up to 10,000 of "auto", keep the multiclass checks cheap) and a short fit of two
    agents without the convergence check."""
    estimator = DPADMMClassifier(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the checks' tiny data sets at ε = 1
        results = check_estimator(estimator, on_fail=None)
    failed = {r["check_name"]: str(r["exception"])[:200] for r in results if r["status"] == "failed"}
    assert failed == {} and len(results) > 40
    assert DPADMMClassifier(**params).__sklearn_tags__().classifier_tags.poor_score is ("epsilon" not in params)


def test_paper_preset_keeps_huang2020_golden_values(data):
    """The preset is Huang et al. 2020, Sec. VI (λ = 0.17, 100 agents, T = 100, ε = 0.05 and δ = 10⁻³
    per iteration, no intercept): its fits are those of the estimator before the defaults changed."""
    X, y = data
    short = DPADMMClassifier.paper_preset(n_agents=5, n_iterations=10, random_state=0, dw=2.0).fit(X, y)
    np.testing.assert_allclose(
        short.coef_[0],
        [-0.0973734402492497, -0.7166251999940009, -0.4439956592594724, 0.09448410671668574, -0.0470183037070371],
        rtol=1e-12,
    )
    golden = {"moments_classic": 0.15649728934227267, "exact_gaussian": 0.06709743525326092}
    assert short.privacy_ == pytest.approx(golden)
    paper = DPADMMClassifier.paper_preset(random_state=0).fit(X, y)
    np.testing.assert_allclose(
        paper.coef_[0],
        [-0.027534839889760136, 0.34371605838768116, 0.4388493944153318, 0.38434695657426377, -0.17299095496884637],
        rtol=1e-12,
    )
    golden = {"moments_classic": 0.5008810771410094, "exact_gaussian": 0.27716404673954925}
    assert paper.privacy_ == pytest.approx(golden)
    assert paper.get_params()["lam"] == 0.17 and paper.n_iter_ == 100 and paper.intercept_.tolist() == [0.0]
    with pytest.raises(ValueError, match="name must be one of"):
        DPADMMClassifier.paper_preset("zhang2020")


def test_paper_preset_is_the_solver_on_the_paper_problem(data):
    """Without intercept and with data_norm = 1 the estimator runs DP-ADMM on the rows as given."""
    X, y = data
    model = preset(random_state=5, dw=2.0, keep_secrets=True).fit(X, y)
    partition_seed, noise_seed = np.random.SeedSequence(model.secret_seed_.entropy).spawn(2)
    problem = HorizontalProblem.from_data(
        X, np.where(y == "yes", 1.0, -1.0), 5, seed=np.random.default_rng(partition_seed), lam=0.17
    )
    result = DPADMM(rho=1.0, n_iterations=10, epsilon=0.05, delta=1e-3, dw=2.0).run(
        problem, seed=noise_seed, accountants=()
    )
    np.testing.assert_array_equal(model.coef_[0], result.model)


@pytest.fixture(scope="module")
def tabular():
    """Raw-scale tabular data with an intercept: standardised features, 30 % minority class."""
    X, y = make_classification(600, 8, n_informative=4, weights=[0.7], random_state=1)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X[:400], y[:400], X[400:], y[400:]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_defaults_total_budget_and_derived_per_iteration_epsilon(tabular):
    X, y, _, _ = tabular
    model = DPADMMClassifier(random_state=0).fit(X, y)
    assert model.get_params()["epsilon"] == 1.0 and model.get_params()["budget"] == "total"
    # the total ε of the whole fit is the budget; the per-iteration ε is derived by the accountant
    assert model.privacy_["exact_gaussian"] == pytest.approx(1.0, rel=1e-8)
    assert model.privacy_["exact_gaussian"] <= 1.0 + 1e-8
    assert 0 < model.info_["epsilon_per_iteration"] < 1.0 / 300 * 20
    assert len(model.ledger_) == 1 * 300 and model.n_iter_ == 300 and model.info_["n_agents"] == 1  # one holder
    per_iteration = DPADMMClassifier(
        budget="per_iteration", epsilon=model.info_["epsilon_per_iteration"], random_state=0
    ).fit(X, y)
    np.testing.assert_allclose(per_iteration.coef_, model.coef_, rtol=1e-6)
    for name in ("lam", "data_norm", "noise_multiplier"):
        assert name in model.info_
    assert model.info_["data_norm"] == math.sqrt(8)
    assert model.info_["lam"] == pytest.approx(1 / (400 * 8 * 2))


def test_no_noise_matches_logistic_regression_with_intercept(tabular):
    """With ε = inf the default estimator approaches LogisticRegression() (C = 1, intercept)."""
    X, y, X_test, y_test = tabular
    reference = LogisticRegression().fit(X, y)
    model = DPADMMClassifier(epsilon=math.inf, n_iterations=2000, tol=1e-3, random_state=0).fit(X, y)
    assert model.privacy_["exact_gaussian"] == math.inf
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=0.1, atol=0.05)
    # the intercept is penalised (a constant feature) and rows beyond sqrt(d) are clipped: close, not equal
    np.testing.assert_allclose(model.intercept_, reference.intercept_, atol=0.1)
    assert abs(model.score(X_test, y_test) - reference.score(X_test, y_test)) <= 0.02
    np.testing.assert_allclose(model.decision_function(X_test), X_test @ model.coef_[0] + model.intercept_[0])


def test_unit_ball_records_bound_every_row_and_map_the_model_back():
    records = UnitBallRecords.create(3, data_norm=2.0, fit_intercept=True, intercept_scaling=1.0)
    rows = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [100.0, -50.0, 3.0]])
    mapped = records.transform(rows, clip=True)
    assert mapped.shape == (3, 4) and np.all(np.linalg.norm(mapped, axis=1) <= 1.0 + 1e-12)
    np.testing.assert_allclose(mapped[:, -1], 1 / math.sqrt(2))
    w = np.array([1.0, -2.0, 0.5, 3.0])
    coef, intercept = records.linear_model(w)
    np.testing.assert_allclose(rows[:2] @ coef[0] + intercept[0], mapped[:2] @ w)  # rows inside the bound
    assert UnitBallRecords.create(3, None, False, 1.0) == UnitBallRecords(math.sqrt(3), None)
    for kwargs, match in (({"data_norm": 0.0}, "data_norm"), ({"intercept_scaling": -1.0}, "intercept_scaling")):
        with pytest.raises(ValueError, match=match):
            UnitBallRecords.create(3, **{"data_norm": 1.0, "fit_intercept": True, "intercept_scaling": 1.0, **kwargs})


def test_convergence_warning_from_the_released_models(tabular):
    X, y, _, _ = tabular
    with pytest.warns(ConvergenceWarning, match="increase n_iterations"):
        DPADMMClassifier(epsilon=math.inf, n_iterations=12, rho=1.0, tol=0.01, random_state=0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        DPADMMClassifier(epsilon=math.inf, random_state=0).fit(X, y)
        DPADMMClassifier(epsilon=math.inf, n_iterations=12, tol=None, random_state=0).fit(X, y)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"budget": "per_agent"}, ValueError, "^budget must be 'total' or 'per_iteration', got 'per_agent'$"),
        ({"C": 0.0}, ValueError, "^C must be finite and > 0"),
        ({"tol": -1.0}, ValueError, "^tol must be None or finite and > 0"),
        ({"fit_intercept": "yes"}, TypeError, "^fit_intercept must be True or False, got 'yes'$"),
        ({"clip": 1}, TypeError, "^clip must be True or False, got 1$"),
        ({"delta": 0.0}, ValueError, "^delta must be a probability in"),
    ],
)
def test_bad_new_parameters_are_reported_at_fit(tabular, params, error, match):
    X, y, _, _ = tabular
    with pytest.raises(error, match=match):
        DPADMMClassifier(**{**FAST, **params}).fit(X, y)
