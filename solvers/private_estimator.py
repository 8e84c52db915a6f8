"""What a published private estimator may hold, shared by the estimators of every solver family.

A fitted private estimator is something one publishes: the noise seed undoes the noise (with it, an
adversary who knows every record but one re-runs the fit on both candidates and matches the model
exactly), and most of a run's diagnostics are computed from the private data. These helpers draw a
fit's noise seed, keep only the public run constants, refuse the removed ``result_`` attribute, run
scikit-learn's checks of a classification target and fit K ≥ 3 classes one-vs-rest at a stated
split of the budget (:func:`fit_one_vs_rest`); :data:`DEFAULT_EPSILON` is every estimator's default
total ε.

They also hold what the horizontal estimators (``DPADMMClassifier``, ``DecentralizedClassifier``,
``PDMLClassifier``) share so that a user's raw rows meet the papers' assumptions without the
estimator looking at them: :class:`UnitBallRecords` (the public map of a row into the unit ball, with
the intercept as a bounded constant feature), :func:`sklearn_lam` (scikit-learn's ``C`` as the
papers' λ), :func:`per_release_epsilon` (a total ε for the whole fit, split over the releases by an
accountant) and :func:`warn_if_not_converged` (scikit-learn's ``ConvergenceWarning``, from released
models only).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from dp_accounting import dp_event
from scipy import special
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from accountants.constraints import (
    PRIVACY_EPSILON,
    PROBABILITY,
    AnyOf,
    Boolean,
    Constraint,
    Instance,
    Integer,
    Items,
    OneOf,
    Optional,
    Positive,
    validate_parameters,
)
from accountants.exact_gaussian import ExactGaussianAccountant
from accountants.gaussian_dp import gaussian_mu
from accountants.ledger import Ledger
from solvers.engine.backends import BACKENDS, Backend
from solvers.engine.result import Result
from solvers.engine.solver import Solver
from solvers.graph import GraphTopology

__all__ = [
    "AUTO_ITERATIONS",
    "NOISE_DOMINATED_EPSILON",
    "DEFAULT_EPSILON",
    "COMMON_PARAMETERS",
    "SHARED_CONSTRAINTS",
    "LinearPredictions",
    "LooseDataNormWarning",
    "OneClassWarning",
    "RemovedResult",
    "UnitBallRecords",
    "auto_iterations",
    "fit_one_vs_rest",
    "graph_topology",
    "keep_secrets",
    "noise_seed_sequence",
    "per_release_epsilon",
    "public_info",
    "publish_fit",
    "run_fit",
    "shared_constraints",
    "sklearn_lam",
    "validate_classification_data",
    "warn_if_loose_bound",
    "warn_if_not_converged",
    "warn_if_one_class",
]

#: The total ε of a fit when none is given, the same for every estimator of the toolkit.
DEFAULT_EPSILON = 1.0

#: (T when the noise dominates, the fewest and the most iterations when it does not) of ``auto_iterations``.
AUTO_ITERATIONS = (300, 300, 10_000)
#: The total ε at or below which the privacy noise, not the optimisation, limits a fit's model
#: (``auto_iterations``); the defaults chosen from ε switch there.
NOISE_DOMINATED_EPSILON = 10.0

#: What the parameters several estimators take must be (``accountants.constraints``). An estimator's
#: ``__init__`` only stores its arguments (scikit-learn's convention); its class declares
#: ``parameter_constraints`` and ``fit`` checks them first (``accountants.constraints.check_parameters``).
SHARED_CONSTRAINTS: dict[str, Constraint] = {
    "n_agents": AnyOf(OneOf("auto"), Integer(1)),
    "graph": AnyOf(OneOf("complete", "ring"), Instance(GraphTopology, "a solvers.graph.GraphTopology")),
    "epsilon": PRIVACY_EPSILON,
    "delta": PROBABILITY,
    "C": Positive(),
    "lam": Optional(Positive()),
    "n_iterations": AnyOf(OneOf("auto"), Integer(1)),
    "tol": Optional(Positive()),
    "fit_intercept": Boolean(),
    "intercept_scaling": Positive(),
    "data_norm": Optional(Positive()),
    "clip": Boolean(),
    "accountants": Items("accountant names (accountants.ACCOUNTANTS)"),
    "random_state": Optional(
        AnyOf(Integer(0, 2**32 - 1), Instance(np.random.RandomState, "a numpy.random.RandomState"))
    ),
    "backend": AnyOf(OneOf(*BACKENDS), Instance(Backend, "a solvers.engine.backends.Backend")),
    "keep_secrets": Boolean(),
}


#: The parameters every estimator of this package takes (declared in :data:`SHARED_CONSTRAINTS`).
COMMON_PARAMETERS = (
    "n_iterations",
    "fit_intercept",
    "intercept_scaling",
    "data_norm",
    "clip",
    "accountants",
    "random_state",
    "backend",
    "keep_secrets",
)


def shared_constraints(*names: str) -> dict[str, Constraint]:
    """The declarations of ``names`` from :data:`SHARED_CONSTRAINTS`."""
    return {name: SHARED_CONSTRAINTS[name] for name in names}


class LooseDataNormWarning(UserWarning):
    """Every row lies far inside the declared public bound ``data_norm``: the privacy noise and the
    iteration budget are sized for rows that are not there."""


def noise_seed_sequence(random_state: object) -> np.random.SeedSequence:
    """The root ``SeedSequence`` of a fit: from OS entropy when ``random_state`` is None (never from
    numpy's global generator, which ``np.random.seed`` makes public), else from the int or
    ``RandomState`` the user chose for reproducibility (scikit-learn's convention)."""
    if random_state is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def public_info(info: Mapping[str, object], keys: Sequence[str] = (), prefixes: Sequence[str] = ()) -> dict:
    """The entries of ``Result.info`` that are public run constants (named in ``keys`` or starting
    with one of ``prefixes``): the rest (inner-solver diagnostics, norms of iterates, ranks of the
    data) is computed from the private data."""
    return {k: v for k, v in info.items() if k in keys or any(k.startswith(p) for p in prefixes)}


class RemovedResult:
    """``result_`` is gone: it held the noise seed and the non-private training history."""

    def __get__(self, instance: object, owner: type | None = None) -> object:
        raise AttributeError(
            "result_ was removed: it held the noise seed (which undoes the noise) and the non-private training "
            "history; a fitted estimator keeps only what is safe to publish (coef_, privacy_, ledger_, info_). "
            "Fit with keep_secrets=True and read secret_result_ (never publish it)"
        )


def validate_classification_data(estimator: BaseEstimator, X, y) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's checks of (X, y) for a classifier; sets ``estimator.classes_`` (binary or
    multiclass: K ≥ 3 classes are fitted one-vs-rest, ``fit_one_vs_rest``).

    Raises:
      ValueError: y is neither binary nor multiclass, or holds one class (scikit-learn's wording,
        which its estimator checks expect).
    """
    X, y = validate_data(estimator, X, y, dtype=np.float64)
    check_classification_targets(y)
    target = type_of_target(y, input_name="y", raise_unknown=True)
    if target not in ("binary", "multiclass"):
        raise ValueError(
            f"Only binary and multiclass classification are supported. The type of the target is {target}."
        )
    estimator.classes_ = np.unique(y)
    if estimator.classes_.size < 2:
        raise ValueError(
            f"{type(estimator).__name__} needs at least 2 classes in y, got {estimator.classes_.size} class"
        )
    return X, y


def fit_one_vs_rest(estimator: BaseEstimator, X: np.ndarray, y: np.ndarray, budget: Sequence[str]) -> None:
    """Fit ``estimator`` (``classes_`` set, K ≥ 3 classes) as K binary fits, class k against the rest,
    each at 1/K of the budget: every parameter named in ``budget`` (the total ε, δ and what else
    spends privacy, e.g. PDML's label ε) is divided by K.

    The K fits each see every row, so their budgets add up (basic sequential composition, Dwork &
    Roth 2014, Theorem 3.16; parallel composition does not apply): K fits at (ε/K, δ/K) are (ε, δ)-DP
    in total, and ``privacy_`` is the sum of the K fits' ε per accountant. Each fit draws its own noise:
    with ``random_state`` None from fresh OS entropy, else from a child of the user's seed (never the
    same noise twice, which would let differences of two classes' models cancel it).

    Sets ``coef_`` (K, d), ``intercept_`` (K,), ``privacy_``, ``ledger_`` (every fit's releases),
    ``info_`` (the split under "one_vs_rest" and each fit's ``info_`` under "per_class"), ``n_iter_``
    (K,), and with ``keep_secrets=True`` ``secret_result_`` and ``secret_seed_`` as lists; warns
    (``OneClassWarning``) when the combined model predicts one class for every training row.

    Raises:
      ValueError: a parameter of ``budget`` is not a positive number.
    """
    K = int(estimator.classes_.size)
    params = estimator.get_params(deep=False)
    split = {name: float(params[name]) / K for name in budget if params[name] is not None}
    seeds: list[object] = [None] * K
    if params.get("random_state") is not None:
        seeds = [int(child.generate_state(1)[0]) for child in noise_seed_sequence(params["random_state"]).spawn(K)]
    fits = []
    for label, seed in zip(estimator.classes_, seeds, strict=True):
        binary = clone(estimator).set_params(**split, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OneClassWarning)  # one class against the rest: judged on the combined model
            fits.append(binary.fit(X, (y == label).astype(np.int64)))
    estimator.coef_ = np.vstack([fit.coef_ for fit in fits])
    estimator.intercept_ = np.concatenate([fit.intercept_ for fit in fits])
    estimator.privacy_ = {name: math.fsum(fit.privacy_[name] for fit in fits) for name in fits[0].privacy_}
    ledger = Ledger()
    for fit in fits:
        ledger.extend(fit.ledger_)
    estimator.ledger_ = ledger
    estimator.info_ = {
        "one_vs_rest": {"classes": K, **{f"{name}_per_class": value for name, value in split.items()}},
        "per_class": [fit.info_ for fit in fits],
    }
    estimator.n_iter_ = np.array([fit.n_iter_ for fit in fits])
    results, secret_seeds = ([fit.__dict__.get(name) for fit in fits] for name in ("secret_result_", "secret_seed_"))
    keep_secrets(estimator, results, secret_seeds)
    scores = X @ estimator.coef_.T + estimator.intercept_
    warn_if_one_class(estimator.classes_[scores.argmax(axis=1)], type(estimator).__name__)


def run_fit(estimator: BaseEstimator, solver: Solver[Any, Any], problem: Any, seed: np.random.SeedSequence) -> Result:
    """``solver.run`` as a fit runs it: the estimator's ``accountants`` and ``backend``, the history only with
    ``keep_secrets=True``, the transcript also when ``tol`` asks for the convergence check."""
    params = estimator.get_params(deep=False)
    keep = bool(params["keep_secrets"])
    return solver.run(
        problem,
        seed=seed,
        accountants=params["accountants"],
        record_history=keep,
        record_transcript=keep or params.get("tol") is not None,
        backend=params["backend"],
    )


def keep_secrets(estimator: BaseEstimator, result: object, seed: object) -> None:
    """``secret_result_`` and ``secret_seed_`` only with ``keep_secrets=True`` (a refit without it drops them)."""
    for name in ("secret_result_", "secret_seed_"):
        estimator.__dict__.pop(name, None)
    if estimator.get_params(deep=False)["keep_secrets"]:
        estimator.secret_result_, estimator.secret_seed_ = result, seed


def publish_fit(
    estimator: BaseEstimator,
    X: np.ndarray,
    records: UnitBallRecords,
    model: np.ndarray,
    result: Result,
    seed: np.random.SeedSequence,
    n_iter: int,
    accounted: tuple[Ledger, Mapping[str, float]] | None = None,
) -> None:
    """Set what a binary fit publishes (module docstring): ``coef_`` and ``intercept_`` of ``model`` (on the
    mapped records) on the raw rows, ``ledger_`` and ``privacy_`` (``accounted``, or the run's), ``n_iter_``,
    the secrets (``keep_secrets``); warns (``OneClassWarning``) when it predicts one class on every row of X."""
    estimator.coef_, estimator.intercept_ = records.linear_model(model)
    estimator.ledger_, privacy = (result.ledger, result.privacy) if accounted is None else accounted
    estimator.privacy_ = {name: float(epsilon) for name, epsilon in privacy.items()}
    estimator.n_iter_ = n_iter
    keep_secrets(estimator, result, seed)
    scores = X @ estimator.coef_[0] + estimator.intercept_[0]  # the training rows as validated (not re-checked)
    warn_if_one_class(estimator.classes_[(scores >= 0).astype(int)], type(estimator).__name__)


@dataclass(frozen=True)
class UnitBallRecords:
    """The public map of a user's rows into the unit ball that the papers' analyses assume.

    Huang et al. 2020 (Sec. VI, S1 = 1), Zhang, Khalili & Liu 2018 (Theorem 4.1) and 2020
    (Theorem V.1) bound every record by ‖x‖ ≤ 1; Wang et al. 2020 by a public X_max. The map is
    chosen from public values only (the data bound B = ``data_norm`` and the intercept's constant c),
    never from the data, and is applied to each row on its own, so neighbouring data sets stay
    neighbours and every sensitivity of the papers holds for the records the solver sees:

        x̃ = (clip(x/B), c) / sqrt(1 + c²),   clip(u) = u · min(1, 1/‖u‖),

    so ‖x̃‖ ≤ 1 for every row (without intercept: x̃ = clip(x/B)). The constant feature c carries
    the intercept inside the privacy analysis (its weight is penalised like any other, as in
    liblinear's ``intercept_scaling``). A model w̃ on the records is the linear classifier
    coef = w̃[:d]/(B s), intercept = w̃[d]·c/s, s = sqrt(1 + c²) on the raw rows (exact for rows with
    ‖x‖ ≤ B; rows outside were clipped for training only).

    Attributes:
      data_norm: B > 0, the public bound on ‖x‖ (rows beyond it are clipped or refused).
      intercept_scaling: c > 0, the constant feature, or None for no intercept.
    """

    data_norm: float
    intercept_scaling: float | None

    @classmethod
    @validate_parameters(
        n_features=Integer(1),
        data_norm=SHARED_CONSTRAINTS["data_norm"],
        fit_intercept=SHARED_CONSTRAINTS["fit_intercept"],
        intercept_scaling=SHARED_CONSTRAINTS["intercept_scaling"],
    )
    def create(
        cls, n_features: int, data_norm: float | None, fit_intercept: bool, intercept_scaling: float
    ) -> UnitBallRecords:
        """From estimator parameters: ``data_norm`` None is sqrt(d) (the norm of a row whose d
        features are each within [−1, 1], e.g. standardised features), a public value.

        Raises:
          TypeError / ValueError: a bad parameter (the message names it).
        """
        norm = math.sqrt(n_features) if data_norm is None else float(data_norm)
        return cls(norm, float(intercept_scaling) if fit_intercept else None)

    @property
    def scale(self) -> float:
        """s = sqrt(1 + c²) (1 without intercept)."""
        return 1.0 if self.intercept_scaling is None else math.hypot(1.0, self.intercept_scaling)

    def transform(self, X: np.ndarray, clip: bool) -> np.ndarray:
        """x̃ for every row of X (n, d) → (n, d) or (n, d + 1). With ``clip=False`` rows with
        ‖x‖ > B are kept as they are, for the solver's own check to refuse."""
        records = X / self.data_norm
        if clip:
            norms = np.linalg.norm(records, axis=1, keepdims=True)
            records = records / np.maximum(norms, 1.0)
        if self.intercept_scaling is None:
            return records
        constant = np.full((records.shape[0], 1), self.intercept_scaling)
        return np.hstack([records, constant]) / self.scale

    def linear_model(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(coef_ (1, d), intercept_ (1,)) on the raw rows of the model w̃ on the records."""
        w = np.asarray(w, dtype=np.float64)
        if self.intercept_scaling is None:
            return w[None, :] / self.data_norm, np.zeros(1)
        s = self.scale
        return w[None, :-1] / (self.data_norm * s), np.array([w[-1] * self.intercept_scaling / s])


@validate_parameters(
    C=SHARED_CONSTRAINTS["C"],
    n_rows=Integer(1),
    n_agents=Integer(1),
    records=Instance(UnitBallRecords, "a UnitBallRecords", UnitBallRecords(1.0, None)),
)
def sklearn_lam(C: float, n_rows: int, n_agents: int, records: UnitBallRecords) -> float:
    """λ of F = Σ_i [(1/m_i) Σ_j ℓ + (λ/N) R] on the records x̃ that matches scikit-learn's
    C Σ_j ℓ(wᵀx_j) + ½‖w‖² on the raw rows: with m_i = n/N, F is (N/n)·(Σ_j ℓ + (λ n/N)·½‖w̃‖²) and
    w̃ = (B s)·w, so λ = N / (C n (B s)²).

    Raises:
      TypeError / ValueError: a bad argument (the message names it).
    """
    return n_agents / (C * n_rows * (records.data_norm * records.scale) ** 2)


def per_release_epsilon(epsilon: float, delta: float, count: int) -> tuple[float, float]:
    """(ε per release, noise multiplier z) of ``count`` Gaussian releases of one record that compose
    to (``epsilon``, ``delta``)-DP in total.

    The exact Gaussian accountant decides (Dong, Roth & Su 2022, Cor. 3.3: ``count`` releases of
    multiplier z compose to μ-GDP with μ = sqrt(count)/z, which is (ε, δ)-DP iff δ ≥ δ_μ(ε) of their
    Cor. 2.13): z = sqrt(count)/μ* for the largest such μ*
    (``accountants.gaussian_dp.gaussian_mu``, rounded down), raised by an ulp until the accountant's
    own ε of the composition is at most ``epsilon`` (never over the budget; the same z as
    ``accountants.calibrate_noise_multiplier`` within its relative precision 1e-9, without its
    bisection). The per-release ε is that accountant's ε of one release at the same δ.
    ``epsilon`` = inf gives (inf, 0): no noise.
    """
    if math.isinf(epsilon):
        return math.inf, 0.0
    z = math.sqrt(count) / gaussian_mu(epsilon, delta)
    while ExactGaussianAccountant().register(dp_event.GaussianDpEvent(z), count).get_epsilon(delta) > epsilon:
        z = math.nextafter(z, math.inf)
    single = ExactGaussianAccountant().register(dp_event.GaussianDpEvent(z), 1).get_epsilon(delta)
    return float(single), float(z)


def auto_iterations(epsilon: float, condition: float, iterations: tuple[int, int, int] = AUTO_ITERATIONS) -> int:
    """The number of iterations T of a fit, from public quantities only: the total ε and the condition
    number κ = L/μ of the objective on the mapped records (L the public curvature bound of the loss,
    μ its public strong convexity, e.g. κ = N/(4λ) = C n (B s)²/4 for the logistic loss).

    With ε ≤ 10 the privacy noise, not the optimisation, limits the model: a linearised (noisy
    gradient) step moves the model by η g and adds noise of scale η z S1/m, so the final model's
    signal-to-noise ratio does not grow with T at a fixed total budget (z grows like sqrt(T)), and T
    stays at 300. Above, the noise is negligible and T = ⌈5κ⌉ (gradient steps of size 1/L contract
    the error by 1 − 1/κ each, e^{−5} after 5κ steps), at least 300 and at most 10,000 (which bounds the
    fit time; rows far inside the bound make κ of the data larger than the public one can say, see
    ``warn_if_loose_bound``). ``iterations`` replaces (300, 300, 10,000) for solvers whose local steps
    are exact minimisations rather than gradient steps (fewer, dearer iterations).
    """
    noise_dominated, fewest, most = iterations
    if epsilon <= NOISE_DOMINATED_EPSILON:
        return noise_dominated
    if not math.isfinite(condition):
        return most
    return int(min(most, max(fewest, math.ceil(5.0 * condition * (1.0 - 1e-12)))))  # κ's last-bit rounding


class OneClassWarning(UserWarning):
    """The fitted model predicts the same class for every training row."""


def warn_if_one_class(predicted: np.ndarray, estimator: str) -> bool:
    """Warn (``OneClassWarning``) when a fitted ``estimator`` predicts one class (``predicted``, its
    predictions on its training rows) for every training row; True if it warned.

    A model that always answers one class is what the noise leaves when it drowns the signal (a
    budget too small for the number of rows, or rows far inside the data bound). Like
    ``warn_if_loose_bound``, the warning reads the private rows but is shown only to whoever holds
    them and enters no release, so it costs no privacy.
    """
    classes = np.unique(predicted)
    if classes.size != 1:
        return False
    warnings.warn(
        f"{estimator} predicts the class {classes.tolist()[0]!r} for every training row: if the fit is private, "
        "the noise drowns the signal. Raise epsilon, train on more rows, or declare a tighter public data bound",
        OneClassWarning,
        stacklevel=4,  # the estimator's caller (this is called by the helpers of its fit)
    )
    return True


def warn_if_loose_bound(X: np.ndarray, data_norm: float, estimator: str, factor: float = 4.0) -> bool:
    """Warn (``LooseDataNormWarning``) when every row has ‖x‖ < ``data_norm``/``factor``; True if it warned.

    The noise and the step sizes are calibrated on ``data_norm`` (public), never on the rows' norms:
    rows far inside the bound pay the privacy of a bound they do not need (a record's influence on the
    model is measured against B, its signal against its own norm) and converge slowly. The warning
    reads the data, but it is shown to the user who holds the data and enters no released value or
    privacy computation, so it releases nothing; it names the factor, not the rows' norms.
    """
    if X.shape[0] == 0 or float(np.max(np.linalg.norm(X, axis=1))) >= data_norm / factor:
        return False
    warnings.warn(
        f"{estimator}: every row has a norm below data_norm/{factor:g} = {data_norm / factor:.3g} (data_norm "
        f"{data_norm:.3g}): the fit pays privacy noise for a bound the rows do not need and converges slowly. "
        "Declare a tighter public bound that you know without looking at the private rows, e.g. data_norm=1.0 "
        "for rows scaled into the unit ball (sklearn.preprocessing.Normalizer)",
        LooseDataNormWarning,
        stacklevel=3,
    )
    return True


def warn_if_not_converged(
    models: np.ndarray, tol: float, estimator: str, noise_std: np.ndarray | None = None, carried: bool = False
) -> float:
    """Warn (scikit-learn's ``ConvergenceWarning``) when the direction of the released model still turns.

    ``models`` (T, d) are the models released in iterations 1..T (public broadcasts: reading them is
    post-processing and costs no privacy); ``noise_std`` (T,) the public standard deviation per
    coordinate of the fresh privacy noise in each of them (None: no noise). With ā₄, ā₃ the means
    over the last and the second-to-last quarter of the run and u = ā/‖ā‖ their directions (a linear
    classifier's predictions depend on the direction only; the norm of a logistic model keeps
    growing slowly on nearly separable data), the fit warns iff

        ‖u₄ − u₃‖ > tol + 3·sqrt(d (v₄ + v₃)) / ‖ā₄‖,

    v₃, v₄ the variances per coordinate of the fresh noise in ā₃, ā₄ (so that the noise, which
    averages out over a quarter, does not read as drift). With ``carried=True`` (a solver whose next
    iterate starts from the noisy one, as DP-ADMM's linearised step (3a) does) the noise of iteration j
    may also persist in every later iterate, at most as in a random walk, and v₄ + v₃ becomes
    Σ_j (c_j² + f_j) v_j with c_j = (#{k ∈ Q₄: k ≥ j} − #{k ∈ Q₃: k ≥ j})/q the weight of noise j in
    ā₄ − ā₃ of a random walk (q the quarter's length; 0 before Q₃) and f_j = 1/q² for j in Q₃ or Q₄
    (the fresh part): a bound for any contraction of the carried noise, so that a noise-limited fit
    (where more iterations would not help) does not warn. Without it, noise carried over is not in
    the allowance and a small budget on few rows can warn too. Returns ‖u₄ − u₃‖; no check (NaN)
    under 8 iterations.
    """
    models = np.asarray(models, dtype=np.float64)
    quarter = models.shape[0] // 4
    if quarter < 2:
        return math.nan
    last = models[-quarter:].mean(axis=0)
    before = models[-2 * quarter : -quarter].mean(axis=0)
    norm = max(float(np.linalg.norm(last)), 1e-12)
    turn = float(np.linalg.norm(last / norm - before / max(float(np.linalg.norm(before)), 1e-12)))
    allowance = 0.0
    if noise_std is not None:
        variance = np.broadcast_to(np.asarray(noise_std, dtype=np.float64) ** 2, (models.shape[0],))
        spread = (variance[-quarter:].sum() + variance[-2 * quarter : -quarter].sum()) / quarter**2
        if carried:
            T, j = models.shape[0], np.arange(models.shape[0])
            in_last = np.clip(T - np.maximum(j, T - quarter), 0, quarter)
            in_before = np.clip(T - quarter - np.maximum(j, T - 2 * quarter), 0, quarter)
            spread += float(np.sum(((in_last - in_before) / quarter) ** 2 * variance))
        allowance = 3.0 * math.sqrt(models.shape[1] * spread) / norm
    if turn > tol + allowance:
        warnings.warn(
            f"{estimator} did not converge: the direction of the released model still turns by {turn:.3g} between "
            f"the last two quarters of the run, more than tol={tol:g} and than its fresh privacy noise explains: "
            "increase n_iterations, or, if the noise carried over from earlier iterations dominates, epsilon or "
            "the number of rows",
            ConvergenceWarning,
            stacklevel=3,
        )
    return turn


def graph_topology(graph: object, n_agents: int) -> GraphTopology:
    """The communication graph of a decentralized estimator: "complete" (every pair of agents
    linked), "ring", or a ``GraphTopology`` over ``n_agents`` agents (public: chosen before the data).

    Raises:
      ValueError: another value, or a graph over a different number of agents.
    """
    if isinstance(graph, GraphTopology):
        if graph.n_agents != n_agents:
            raise ValueError(f"graph has {graph.n_agents} agents but n_agents={n_agents}")
        return graph
    if graph == "complete":
        return GraphTopology.complete(n_agents)
    if graph == "ring":
        return GraphTopology.ring(n_agents) if n_agents > 2 else GraphTopology.complete(n_agents)
    raise ValueError(f"graph must be 'complete', 'ring' or a solvers.graph.GraphTopology, got {graph!r}")


class LinearPredictions:
    """``decision_function``, ``predict`` and ``predict_proba`` of a fitted linear classifier with the
    logistic link: binary (``coef_`` (1, d), ``intercept_`` (1,), ``classes_`` (2,)) or one-vs-rest
    over K ≥ 3 classes (``coef_`` (K, d), ``intercept_`` (K,), ``classes_`` (K,))."""

    coef_: np.ndarray
    intercept_: np.ndarray
    classes_: np.ndarray

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """wᵀx + b for each row: shape (n,) for two classes (positive means ``classes_[1]``), (n, K)
        for K ≥ 3 (one column per class of ``classes_``, that class against the rest)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if self.coef_.shape[0] == 1 else scores

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Two classes: ``classes_[1]`` iff wᵀx + b ≥ 0 (the tie goes to the positive class); K ≥ 3:
        the class of the largest score (the first on a tie)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores >= 0).astype(int)]
        return self.classes_[scores.argmax(axis=1)]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Per row, columns in the order of ``classes_``: [1 − σ(s), σ(s)] for two classes; for K ≥ 3
        the softmax of the K one-vs-rest scores, exp(s_k)/Σ_j exp(s_j). Not scikit-learn's normalised
        σ(s_k)/Σ_j σ(s_j): two scores above ~37 both round σ to 1, and that rule then ties classes that
        ``predict`` tells apart; the softmax keeps the order of the scores (as ``predict``) and is
        post-processing of the released models like any other."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            positive = 0.5 * (1.0 + np.tanh(0.5 * scores))  # σ(s), overflow-free
            return np.column_stack([1.0 - positive, positive])
        return special.softmax(scores, axis=1)
