"""A scikit-learn estimator for PDML (Wang et al. 2020): local label randomization, then perturbed
decentralized ADMM among the servers.

``PDMLClassifier`` splits the training rows at random over ``n_agents`` user groups, one server each
on a public graph; every user randomizes the label (Phase 1, randomized response, Wang et al. 2020,
Def. 2 and Prop. 1), the servers run (15)–(17) with Gaussian noise on their broadcasts (Phase 2), and
the estimator keeps the servers' mean broadcast (1/N) Σ_i w̃_i(T) as a linear classifier.

Its defaults are an estimator's: ``C=1.0`` on scikit-learn's scale, an intercept, rows mapped into
the unit ball by a public rule (``UnitBallRecords``, so X_max = 1), and a total budget (ε, δ) for the
whole fit. The paper's Table I setting is :meth:`PDMLClassifier.paper_preset`.

Privacy of a fit (fixed before the data are read; the group sizes are public), for one training
example (x, y) of group i, by who observes what:

1. Phase 1: each label is flipped with probability 1/(1 + e^{ε1}), ε1 = ``label_epsilon`` (default
   ε, the budget of the fit): ε1-label-LDP against everyone, including the collecting server s_i
   (Prop. 1), which also receives the features in the clear (Wang et al. 2020, Sec. IV): nothing
   protects them from it.
2. Phase 2: server i's broadcast t is a Gaussian mechanism of sensitivity Δ_i
   (``solvers.pdml.privacy.broadcast_sensitivity``, this toolkit's derivation: the paper gives none)
   for a change of the example's features *and* reported label y', and noise σ_i(t) = V_i ρ^{(t−1)/2}
   (16). The T broadcasts compose to one Gaussian of multiplier z = 1/sqrt(Σ_t Δ_i²/σ_i(t)²); z is
   the smallest multiplier the accountant (default the exact Gaussian one) bounds by (``epsilon``,
   ``delta``), and V_i = z Δ_i sqrt(Σ_t ρ^{−(t−1)}).
3. Against everyone who sees the broadcasts but not the reported labels (the other servers and
   whoever reads the model), the example, label and features, is (ε, δ)-DP by Phase 2 alone: the
   broadcasts' law is a mixture over the reported label y' ~ RR(y) of laws that are (ε, δ)-close
   for every pair of reported labels, and the hockey-stick divergence is jointly convex, so the
   mixtures are (ε, δ)-close too; the label release is not composed in, since that adversary never
   sees it. ``privacy_`` is this guarantee per accountant, for the worst server (the run's
   ``Result.privacy``). (Only an observer of the reported label y' who does not hold the features
   would face both releases, label and broadcasts, composed; in the paper's protocol that is no one:
   y' goes to s_i alone.)
4. The objective perturbation η (14) has no privacy analysis in the paper; it is off by default
   (``eta_bound=0``) and never counted.

A fitted estimator holds only what is safe to publish; the noise seed and the training history only
with ``keep_secrets=True`` (``secret_result_``, ``secret_seed_``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from accountants import ACCOUNTANTS, calibrate_noise_multiplier
from accountants.constraints import AnyOf, Constraint, NonNegative, OneOf, Optional, Positive, check_parameters
from solvers.datasets import near_equal_sizes
from solvers.engine.backends import BackendLike
from solvers.estimator_defaults import AUTO_AGENTS, agent_count
from solvers.graph import GraphTopology
from solvers.losses import LogisticLoss
from solvers.pdml.admm import PDML
from solvers.pdml.privacy import broadcast_sensitivity
from solvers.private_estimator import (
    COMMON_PARAMETERS,
    DEFAULT_EPSILON,
    NOISE_DOMINATED_EPSILON,
    LinearPredictions,
    RemovedResult,
    UnitBallRecords,
    auto_iterations,
    fit_one_vs_rest,
    graph_topology,
    noise_seed_sequence,
    publish_fit,
    run_fit,
    shared_constraints,
    sklearn_lam,
    validate_classification_data,
    warn_if_loose_bound,
    warn_if_not_converged,
)
from solvers.problem import HorizontalProblem

__all__ = ["MIN_LABEL_EPSILON", "PDMLClassifier"]

#: ``auto_iterations``'s (T when the noise dominates, fewest, most) for exact local minimisations; with
#: the noise dominating, T = 3 broadcasts per server (class docstring).
_AUTO_ITERATIONS = (3, 100, 1000)

#: The label randomization's ε1 is at least this: the debiased loss (Wang et al. 2020, eq. (19)) weighs
#: the flipped term by 1/(e^ε1 − 1), 200 here, beyond which the servers' Newton solves stop converging
#: (they fail at ε1 = 0.0015 on every data set tried, and converge at 0.005).
MIN_LABEL_EPSILON = 0.005

#: Wang et al. 2020, Sec. VI (Twonorm, Table I, ε = 1, R = 1): 10 servers, a = 1, β = 1, V = 0.1,
#: ρ = 0.8, T = 100, η uniform in the ℓ2 ball of radius 1, rows already in the unit ball.
_PAPER_PRESETS: dict[str, dict[str, Any]] = {
    "wang2020": {
        "n_agents": 10,
        "graph": "ring",
        "label_epsilon": 1.0,
        "V": 0.1,
        "eta_bound": 1.0,
        "rho_decay": 0.8,
        "beta": 1.0,
        "lam": 1.0,
        "n_iterations": 100,
        "fit_intercept": False,
        "data_norm": 1.0,
        "clip": False,
        "tol": None,
    }
}


class PDMLClassifier(LinearPredictions, ClassifierMixin, BaseEstimator):
    """l2 logistic regression by PDML (Wang et al. 2020) over simulated user groups and servers; K ≥ 3
    classes are fitted one-vs-rest, each binary fit at (ε/K, δ/K) and label ε ε1/K
    (``private_estimator.fit_one_vs_rest``).

    Args:
      n_agents: N user groups and servers; the rows are split at random, as equally as possible.
        "auto" (default): N = 2, the fewest a graph of servers allows: a server's broadcast has a
        sensitivity Δ_i that falls as 1/B_i with its B_i = n/N rows (``broadcast_sensitivity``), so
        the noise grows with N at a fixed n (``solvers.estimator_defaults``); give the number of
        groups of the deployment you simulate. ``info_["n_agents"]`` is the N used.
      graph: the servers' graph, "complete" (default), "ring" or a ``solvers.graph.GraphTopology``.
      epsilon, delta: the total budget of the fit, all K one-vs-rest fits included (default ε = 1,
        ``DEFAULT_EPSILON``, the same for every estimator of the toolkit, and δ = 10⁻⁵): a training
        example, label and features, against everyone but its collecting server (module docstring);
        ε = inf: no randomization and no noise.
      label_epsilon: ε1 of the label randomization, a guarantee of its own against the collecting server
        (module docstring); None (default): ε, so that no party learns more than ε about a label.
      V: V of the broadcast noise σ(t) = V ρ^{(t−1)/2}; None (default) calibrates it from the budget, a
        number overrides ``epsilon`` for Phase 2.
      rho_decay: ρ ∈ (0, 1] (default 1: constant noise).
      eta_bound: R, the bound on the objective perturbation η (default 0: none; never accounted).
      beta: the ADMM penalty β, or "auto" (default): 0.01, near the curvature of the mean loss on unit
        rows, for a total ε > 10; for ε ≤ 10, β = 1 (Wang et al. 2020, Table I). There the noise limits
        the model: Δ_i ∝ 1/μ_i, μ_i = λ/N + 2βN_i (``broadcast_sensitivity``), and once 2βN_i dominates,
        the minimiser of (15) shrinks as 1/μ_i too (towards a centroid direction): the broadcasts'
        signal-to-noise ratio is then at its largest (below, it falls with β). At ε = 1, β = 1 scores 7
        to 11 points more than β = 0.01 on breast cancer and wine (398 and 124 rows), whose noise was 3
        to 7 times the model's norm. ``info_["beta"]`` is the β used.
      C, lam: as in ``DPADMMClassifier`` (λ is the paper's a; ``lam`` overrides ``C``).
      n_iterations: T, or "auto" (default): 3 for a total ε ≤ 10, else ⌈5κ⌉ within [100, 1000],
        κ = N/(4λ) = C n (B s)²/4 (``private_estimator.auto_iterations``, public quantities only;
        DPADMMClassifier's rule with the bounds of a solver whose local steps are exact
        minimisations). With ε ≤ 10 the noise limits the model: at ρ = 1 the T broadcasts share one
        budget, V_i = z Δ_i sqrt(T) (module docstring), so every broadcast w̃_i(t) (16), the released
        mean broadcast included, carries noise of scale z Δ_i sqrt(T), and each w_i(t + 1) of (15) is
        pulled towards its neighbours' noisy broadcasts: a few iterations, each server's ridge fit and
        two rounds of averaging, are all the budget pays for. ``n_iter_`` is the T used.
      tol: ``ConvergenceWarning`` threshold on the mean broadcasts; None: no check.
      fit_intercept, intercept_scaling, data_norm, clip: the public row map (``UnitBallRecords``).
      accountants: names from ``accountants.ACCOUNTANTS`` that compose the broadcasts; the first
        calibrates V (default ("exact_gaussian",): the T Gaussian broadcasts are one Gaussian of
        multiplier z, which it bounds exactly).
      random_state, backend, keep_secrets: as in ``DPADMMClassifier``.

    Attributes (after ``fit``), all safe to publish:
      coef_ (1, d) or (K, d), intercept_, classes_, n_features_in_, privacy_ {name: total ε at δ of a
      training example against all but its collecting server, worst server, all K one-vs-rest fits
      included}, ledger_ (the label releases too), info_ (λ, ε1, V, Δ, z, the data bound, β), n_iter_.
    """

    result_ = RemovedResult()
    #: What each parameter must be (``accountants.constraints``), checked at the top of ``fit``.
    parameter_constraints: dict[str, Constraint] = {
        **shared_constraints(
            *COMMON_PARAMETERS,
            "n_agents",
            "graph",
            "epsilon",
            "delta",
            "C",
            "lam",
            "tol",
        ),
        "label_epsilon": Optional(Positive(allow_inf=True)),
        "V": Optional(Positive()),
        "rho_decay": PDML.parameter_constraints["rho_decay"],
        "eta_bound": NonNegative(),
        "beta": AnyOf(OneOf("auto"), Positive()),
    }

    def __init__(
        self,
        n_agents: int | str = AUTO_AGENTS,
        graph: str | GraphTopology = "complete",
        epsilon: float = DEFAULT_EPSILON,
        delta: float = 1e-5,
        label_epsilon: float | None = None,
        V: float | None = None,
        rho_decay: float = 1.0,
        eta_bound: float = 0.0,
        beta: float | str = "auto",
        C: float = 1.0,
        lam: float | None = None,
        n_iterations: int | str = "auto",
        tol: float | None = 0.1,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        data_norm: float | None = None,
        clip: bool = True,
        accountants: tuple[str, ...] = ("exact_gaussian",),
        random_state: int | np.random.RandomState | None = None,
        backend: BackendLike = "inprocess",
        keep_secrets: bool = False,
    ) -> None:
        self.n_agents = n_agents
        self.graph = graph
        self.epsilon = epsilon
        self.delta = delta
        self.label_epsilon = label_epsilon
        self.V = V
        self.rho_decay = rho_decay
        self.eta_bound = eta_bound
        self.beta = beta
        self.C = C
        self.lam = lam
        self.n_iterations = n_iterations
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.data_norm = data_norm
        self.clip = clip
        self.accountants = accountants
        self.random_state = random_state
        self.backend = backend
        self.keep_secrets = keep_secrets

    @classmethod
    def paper_preset(cls, name: str = "wang2020", **overrides: Any) -> PDMLClassifier:
        """The estimator with a paper's setting; ``overrides`` change any parameter.

        "wang2020" (Wang et al. 2020, Sec. VI, Table I at ε = 1, R = 1): 10 servers, label ε = 1,
        V = 0.1, ρ = 0.8, ‖η‖ ≤ 1, β = 1, a = 1, T = 100, no intercept, rows already in the unit ball
        (``data_norm=1``, ``clip=False``), no convergence check. The paper's graph is a random
        connected graph with 13 links; the preset uses a ring (10 links): pass ``graph=`` a
        ``GraphTopology`` to change it.

        Raises:
          ValueError: an unknown preset name.
        """
        if name not in _PAPER_PRESETS:
            raise ValueError(f"name must be one of {sorted(_PAPER_PRESETS)}, got {name!r}")
        return cls(**{**_PAPER_PRESETS[name], **overrides})

    def fit(self, X: np.ndarray, y: np.ndarray) -> PDMLClassifier:
        """Train on (X, y).

        Raises:
          ValueError: y neither binary nor multiclass, fewer rows than groups, a row with ‖x‖ > ``data_norm`` and
            ``clip=False``, a budget the label randomization alone uses up, or a bad parameter (the
            message names it).
        """
        check_parameters(self)
        X, y = validate_classification_data(self, X, y)
        if self.classes_.size > 2:
            fit_one_vs_rest(self, X, y, ("epsilon", "delta", "label_epsilon"))
            return self
        n_agents = agent_count(self.n_agents, X.shape[0], fewest=2)
        clip = bool(self.clip)
        epsilon, delta = float(self.epsilon), float(self.delta)
        if not self.accountants or any(name not in ACCOUNTANTS for name in self.accountants):
            raise ValueError(f"accountants must be names from {sorted(ACCOUNTANTS)}, got {self.accountants!r}")
        graph = graph_topology(self.graph, n_agents)
        records = UnitBallRecords.create(X.shape[1], self.data_norm, self.fit_intercept, self.intercept_scaling)
        warn_if_loose_bound(X, records.data_norm, type(self).__name__)
        lam = float(sklearn_lam(self.C, X.shape[0], n_agents, records) if self.lam is None else self.lam)
        T = (
            auto_iterations(epsilon, LogisticLoss().curvature_bound * n_agents / lam, _AUTO_ITERATIONS)
            if self.n_iterations == "auto"
            else int(self.n_iterations)
        )
        root = noise_seed_sequence(self.random_state)
        partition_seed, noise_seed = root.spawn(2)
        problem = HorizontalProblem.from_data(
            records.transform(X, clip=clip),
            np.where(y == self.classes_[1], 1.0, -1.0),
            n_agents,
            seed=np.random.default_rng(partition_seed),
            sizes=near_equal_sizes(X.shape[0], n_agents),
            loss=LogisticLoss(),
            lam=lam,
            topology=graph,
        )
        solver, phase2 = self._solver(problem, graph.degrees, epsilon, delta, T)
        result = run_fit(self, solver, problem, noise_seed)
        details = result.details
        self.info_ = {
            "lam": float(problem.lam),
            "label_epsilon": float(details.eps_label[0]),
            "V": np.array(details.V),
            "rho_decay": float(details.rho_decay),
            "sensitivity": np.array(details.sensitivity),
            "noise_multiplier": phase2,
            "data_norm": records.data_norm,
            "n_agents": n_agents,
            "beta": solver.beta,
        }
        if self.tol is not None and result.transcript is not None:
            # the mean broadcast carries fresh noise of variance mean_i σ_i(t)² / N per coordinate
            noise_std = np.sqrt((np.asarray(details.sigma) ** 2).mean(axis=1) / n_agents)
            broadcasts = np.asarray(result.transcript["w_tilde"])[1:].mean(axis=1)
            warn_if_not_converged(broadcasts, self.tol, type(self).__name__, noise_std)
        publish_fit(self, X, records, result.model, result, root, T)
        return self

    def _solver(
        self, problem: HorizontalProblem, degrees: np.ndarray, epsilon: float, delta: float, T: int
    ) -> tuple[PDML, float]:
        """PDML of T iterations with ε1 and V from the budget, and the composed multiplier z (inf without noise)."""
        N = problem.n_agents
        rho_decay, eta_bound = float(self.rho_decay), float(self.eta_bound)
        beta = float(self.beta) if self.beta != "auto" else 1.0 if epsilon <= NOISE_DOMINATED_EPSILON else 0.01

        def pdml(label: float, V: float | list[float]) -> PDML:
            return PDML(
                eps_label=label,
                eta_bound=eta_bound,
                V=V,
                rho_decay=rho_decay,
                beta=beta,
                n_iterations=T,
                x_max=1.0,
                delta=delta,
            )

        label = epsilon if self.label_epsilon is None else float(self.label_epsilon)
        if label < MIN_LABEL_EPSILON:
            name, given = (
                ("epsilon", self.epsilon) if self.label_epsilon is None else ("label_epsilon", self.label_epsilon)
            )
            raise ValueError(
                f"{name} must be >= {MIN_LABEL_EPSILON:g} (or inf), the labels' ε: below, the debiased loss's "
                f"coefficient 1/(e^ε − 1) exceeds 200 and the servers' Newton solves do not converge, got {given!r}"
            )
        if self.V is not None:
            return pdml(label, float(self.V)), math.nan
        if math.isinf(epsilon):
            return pdml(label, 0.0), math.inf
        sensitivity = broadcast_sensitivity(
            loss=problem.loss,
            eps_label=label,
            sizes=problem.sizes,
            degrees=degrees,
            a=problem.lam,
            beta=beta,
            n_agents=N,
            x_max=1.0,
            tol=PDML.tol,
        )
        z = calibrate_noise_multiplier(epsilon, delta, accountant=self.accountants[0])  # the broadcasts alone
        growth = float(np.sum(rho_decay ** -np.arange(T, dtype=np.float64)))  # Σ_t ρ^{−(t−1)}
        return pdml(label, (z * sensitivity * math.sqrt(growth)).tolist()), z

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a noisy fit at a fixed privacy budget scores poorly on the checks' data sets of 100 rows
        tags.classifier_tags.poor_score = not (
            self.epsilon == math.inf and self.label_epsilon is None and self.V is None
        )
        return tags
