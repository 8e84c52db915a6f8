"""A scikit-learn estimator for the decentralized private ADMMs: R-ADMM and MR-ADMM (Zhang, Khalili & Liu
2020) and penalty perturbation and dual variable perturbation (Zhang, Khalili & Liu 2018).

``DecentralizedClassifier(variant=...)`` splits the training rows at random over ``n_agents`` nodes of a
public graph, runs the chosen solver of :mod:`solvers.decentralized` and keeps the nodes' mean model
(1/N) Σ_i f_i(T) as a linear classifier (positive class iff wᵀx + b ≥ 0).

Its defaults are an estimator's: ``C=1.0`` on scikit-learn's scale, an intercept, rows mapped into
the unit ball by a public rule (``UnitBallRecords``), and a total pure-ε budget for the whole fit.
The papers' own Adult settings are :meth:`DecentralizedClassifier.paper_preset`.

Privacy of a fit (every quantity below is fixed before the data are read; the node sizes B_i are
public, as in the papers' bounds):

1. Each row becomes x̃ with ‖x̃‖ ≤ 1 (``UnitBallRecords``), which Theorem V.1 of Zhang, Khalili & Liu
   2020 and Theorem 4.1 of Zhang, Khalili & Liu 2018 assume; the intercept is the weight of a
   constant feature inside the analysis.
2. A record sits at one node; that node's noisy iterations cost ε_i(k) each: R-ADMM/MR-ADMM's odd
   iterations by eq. (32) of Zhang, Khalili & Liu 2020, ε_i(k) = (2C/B_i)(1.4c1/(ρ/N + 2η_i(2k−1)V_i)
   + α_i(k)); every iteration of PP/DVP by eq. (26) of Zhang, Khalili & Liu 2018,
   β_i(t) = C(1.4c1 + α_i(t))/(η_i(t)V_iB_i). By pure sequential composition (the papers' β) the fit
   is max_i Σ ε_i-DP. The total ``epsilon`` is split equally over the K noisy iterations, and each
   α_i is the solution of the equation above at ε/K: every node spends ``epsilon``
   (``privacy_["pure"]``, within 1e-12 relative and never above). The first term is a fixed cost
   that no noise can remove, so a budget at or below K times it is refused (the error names
   ``epsilon``); ``eta="auto"`` picks the penalty η so that the fixed cost is at most half the budget.
3. The broadcasts are post-processing; the model and the convergence check read only them.

A fitted estimator holds only what is safe to publish (``coef_``, ``privacy_``, ``ledger_``, the
public run constants ``info_``); the noise seed and the training history only with
``keep_secrets=True`` (``secret_result_``, ``secret_seed_``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from accountants.constraints import AnyOf, Constraint, OneOf, Optional, Positive, check_parameters
from solvers.datasets import near_equal_sizes, partition_horizontal
from solvers.decentralized.admm import DVP, MADMM, MRADMM, RADMM, DecentralizedSolver, PenaltyPerturbation
from solvers.decentralized.problem import DecentralizedProblem
from solvers.engine.backends import BackendLike
from solvers.estimator_defaults import AUTO_AGENTS, agent_count
from solvers.graph import GraphTopology
from solvers.losses import LogisticLoss
from solvers.private_estimator import (
    COMMON_PARAMETERS,
    DEFAULT_EPSILON,
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

__all__ = ["MIN_EPSILON", "DecentralizedClassifier"]

#: ``auto_iterations``'s (T when the noise dominates, fewest, most) for exact local minimisations; with
#: the noise dominating, T = 2 is one noisy iteration (K = 1, class docstring).
_AUTO_ITERATIONS = (2, 100, 1000)

_VARIANTS = ("radmm", "mradmm", "pp", "dvp")

#: η of ``eta="auto"`` when the budget asks for no more, relative to the loss scale C: a penalty
#: near the curvature of the mean logistic loss on unit rows, for fast consensus.
_ETA_FLOOR = 0.01
#: The total ε is at least this (or ∞): below it the noise is so large that the nodes' Newton solves do
#: not converge (they fail at 10⁻⁶ on every data set tried, and converge at 10⁻³).
MIN_EPSILON = 1e-3

#: The papers' Adult settings (Zhang, Khalili & Liu 2020, Sec. VIII; 2018, Sec. 5): 5 nodes on a
#: connected G(5, 0.5) graph with minimum degree 2, C = 1750, ρ = 0.22, T = 50, unit rows, no intercept.
_ADULT = {
    "n_agents": 5,
    "graph": GraphTopology.random(5, 0.5, seed=0, min_degree=2),
    "loss_scale": 1750.0,
    "lam": 0.22 / 1750.0,
    "n_iterations": 50,
    "fit_intercept": False,
    "data_norm": 1.0,
    "clip": False,
    "tol": None,
}
_PAPER_PRESETS: dict[str, dict[str, Any]] = {
    "zhang2020": {**_ADULT, "variant": "radmm", "eta": 1.0, "gamma": 0.5, "alpha": 1.0},
    "zhang2018": {**_ADULT, "variant": "pp", "eta": 0.5, "eta_growth": 1.05, "alpha": 3.0, "q2": 1.03},
}


class DecentralizedClassifier(LinearPredictions, ClassifierMixin, BaseEstimator):
    """l2 logistic regression by decentralized (private) ADMM over simulated nodes; K ≥ 3 classes are
    fitted one-vs-rest, each binary fit at ε/K (``private_estimator.fit_one_vs_rest``).

    Args:
      variant: "radmm" (R-ADMM, Zhang, Khalili & Liu 2020, Algorithm 3), "mradmm" (MR-ADMM: η grows by
        ``eta_growth`` per odd step), "pp" (penalty perturbation, Zhang, Khalili & Liu 2018, Algorithm 1)
        or "dvp" (dual variable perturbation as characterised there: η ≡ θ).
      n_agents: N nodes; the rows are split at random, as equally as possible. "auto" (default): N = 2,
        the fewest a graph allows: the noise rate of eq. (32), α_i(k) = (ε/K − fixed)·B_i/(2C), is
        proportional to the node's B_i = n/N rows, so the noise 1/α_i grows like N at a fixed n
        (``solvers.estimator_defaults``); give the number of nodes of the deployment you simulate.
        ``info_["n_agents"]`` is the N used.
      graph: "complete" (default), "ring" or a ``solvers.graph.GraphTopology`` over N nodes.
      epsilon: the total pure ε of the whole fit, all K one-vs-rest fits included (default 1,
        ``DEFAULT_EPSILON``, the same for every estimator of the toolkit; module docstring); inf: no noise (the
        non-private R-ADMM / M-ADMM). Pure-ε objective perturbation is costly on small nodes: the
        budget is refused when the fixed cost of the theorems alone exceeds it.
      alpha: the papers' noise rate α (of the density ∝ exp(−α‖ε‖)) of the first noisy iteration;
        None (default) derives it from ``epsilon``; a number overrides ``epsilon``.
      q2: growth of α per iteration for PP/DVP with ``alpha`` (α(t) = alpha·q2^{t−1}).
      C: inverse regularisation strength on scikit-learn's scale (λ = N/(C n (B s)²), ``sklearn_lam``).
      lam: λ = ρ/C of the papers' objective on the mapped records; None derives it from ``C``.
      loss_scale: the papers' constant C multiplying the loss, O(f, D_i) = (C/B_i) Σ L + (ρ/N) R
        (default 1; η is relative to it: the fit depends only on η/C).
      eta: the penalty η (θ for PP/DVP, whose η(t) = θ·eta_growth^{t−1}); "auto" (default):
        max(0.01·loss_scale, the η whose fixed privacy cost is half the budget, twice the η of the
        theorems' precondition).
      eta_growth: q ≥ 1, the growth of η (MR-ADMM per odd step, PP per step); 1 for R-ADMM and DVP.
      gamma: γ ≥ 0 of the even steps of R-ADMM/MR-ADMM.
      n_iterations: T, or "auto" (default): 2 for a total ε ≤ 10, else ⌈5κ⌉ within [100, 1000],
        κ = N/(4λ) = C n (B s)²/4 (``private_estimator.auto_iterations``, public quantities only;
        DPADMMClassifier's rule with the bounds of a solver whose local steps are exact
        minimisations), rounded up to even for R-ADMM/MR-ADMM; a number must be even for them.
        With ε ≤ 10 the noise limits the model, and pure sequential composition makes it grow
        linearly in the number K of noisy iterations: α_i(k) above is ∝ ε/K − fixed, so T = 2 spends
        the whole budget on one noisy exact minimisation (K = 1; at ε = 1 on 124 rows of wine, 73.5 %
        test accuracy against 41.4 % with T = 100), and the nodes' mean of their objective-perturbed
        local models is the fit. ``n_iter_`` is the T used.
      tol: ``ConvergenceWarning`` threshold of ``warn_if_not_converged`` on the nodes' mean
        broadcasts; None: no check.
      fit_intercept, intercept_scaling, data_norm, clip: the public row map (``UnitBallRecords``),
        as in ``DPADMMClassifier``.
      accountants: accountant names reported in ``privacy_`` (pure-ε events; default the papers'
        "pure" sum).
      random_state: None (fresh OS entropy) or an int/RandomState fixing the partition, f(0) and the
        noise (an int is then the noise seed).
      backend: "inprocess" (default), "ray" or a ``RayBackend``.
      keep_secrets: also keep ``secret_result_`` and ``secret_seed_`` (never publish such a fit).

    Attributes (after ``fit``), all safe to publish:
      coef_ (1, d), intercept_ (1,), classes_ (for K ≥ 3 classes (K, d), (K,), n_iter_ (K,) and the
      split in info_), n_features_in_, privacy_ {name: ε of the whole fit}, ledger_, info_
      (λ, ρ, the loss scale C, η, the per-iteration ε, α per noisy iteration and node, the data
      bound), n_iter_. With ``keep_secrets=True`` also secret_result_ and secret_seed_.
    """

    result_ = RemovedResult()
    #: What each parameter must be (``accountants.constraints``), checked at the top of ``fit``.
    parameter_constraints: dict[str, Constraint] = {
        **shared_constraints(
            *COMMON_PARAMETERS,
            "n_agents",
            "graph",
            "epsilon",
            "C",
            "lam",
            "tol",
        ),
        "variant": OneOf(*_VARIANTS),
        "alpha": Optional(Positive()),
        "q2": Positive(),
        "loss_scale": Positive(),
        "eta": AnyOf(OneOf("auto"), Positive()),
        "eta_growth": MRADMM.parameter_constraints["eta_growth"],
        "gamma": MRADMM.parameter_constraints["gamma"],
    }

    def __init__(
        self,
        variant: str = "radmm",
        n_agents: int | str = AUTO_AGENTS,
        graph: str | GraphTopology = "complete",
        epsilon: float = DEFAULT_EPSILON,
        alpha: float | None = None,
        q2: float = 1.0,
        C: float = 1.0,
        lam: float | None = None,
        loss_scale: float = 1.0,
        eta: float | str = "auto",
        eta_growth: float = 1.0,
        gamma: float = 0.5,
        n_iterations: int | str = "auto",
        tol: float | None = 0.1,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        data_norm: float | None = None,
        clip: bool = True,
        accountants: tuple[str, ...] = ("pure",),
        random_state: int | np.random.RandomState | None = None,
        backend: BackendLike = "inprocess",
        keep_secrets: bool = False,
    ) -> None:
        self.variant = variant
        self.n_agents = n_agents
        self.graph = graph
        self.epsilon = epsilon
        self.alpha = alpha
        self.q2 = q2
        self.C = C
        self.lam = lam
        self.loss_scale = loss_scale
        self.eta = eta
        self.eta_growth = eta_growth
        self.gamma = gamma
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
    def paper_preset(cls, name: str = "zhang2020", **overrides: Any) -> DecentralizedClassifier:
        """The estimator with a paper's Adult setting; ``overrides`` change any parameter.

        Both: 5 nodes on a seeded connected G(5, 0.5) graph with minimum degree 2, C = 1750, ρ = 0.22
        (λ = ρ/C), T = 50, rows already in the unit ball (``data_norm=1``, ``clip=False``), no
        intercept, no convergence check. "zhang2020" (Zhang, Khalili & Liu 2020, Fig. 5): R-ADMM with
        η = 1, γ = 0.5, α = 1. "zhang2018" (Zhang, Khalili & Liu 2018, Fig. 2): PP with θ = 0.5,
        q1 = 1.05, α(1) = 3, q2 = 1.03.

        Raises:
          ValueError: an unknown preset name.
        """
        if name not in _PAPER_PRESETS:
            raise ValueError(f"name must be one of {sorted(_PAPER_PRESETS)}, got {name!r}")
        return cls(**{**_PAPER_PRESETS[name], **overrides})

    def fit(self, X: np.ndarray, y: np.ndarray) -> DecentralizedClassifier:
        """Train on (X, y).

        Raises:
          ValueError: y neither binary nor multiclass, fewer rows than nodes, a row with ‖x‖ > ``data_norm`` and
            ``clip=False``, a budget the variant cannot reach, or a bad parameter (the message names it).
        """
        check_parameters(self)
        X, y = validate_classification_data(self, X, y)
        if self.classes_.size > 2:
            fit_one_vs_rest(self, X, y, ("epsilon",))
            return self
        n_agents = agent_count(self.n_agents, X.shape[0], fewest=2)
        if self.n_iterations != "auto":
            T = int(self.n_iterations)
            if self.variant in ("radmm", "mradmm") and T % 2:
                raise ValueError(f"n_iterations must be even for {self.variant} (T = 2K), got {T}")
        clip = bool(self.clip)
        graph = graph_topology(self.graph, n_agents)
        records = UnitBallRecords.create(X.shape[1], self.data_norm, self.fit_intercept, self.intercept_scaling)
        warn_if_loose_bound(X, records.data_norm, type(self).__name__)
        lam = sklearn_lam(self.C, X.shape[0], n_agents, records) if self.lam is None else self.lam
        scale, lam = float(self.loss_scale), float(lam)
        if self.n_iterations == "auto":
            condition = LogisticLoss().curvature_bound * n_agents / lam
            T = auto_iterations(float(self.epsilon), condition, _AUTO_ITERATIONS)
            T += T % 2 if self.variant in ("radmm", "mradmm") else 0
        root = noise_seed_sequence(self.random_state)
        partition_seed, noise_seed = root.spawn(2)
        partition = partition_horizontal(
            records.transform(X, clip=clip),
            np.where(y == self.classes_[1], 1.0, -1.0),
            n_agents,
            seed=np.random.default_rng(partition_seed),
            sizes=near_equal_sizes(X.shape[0], n_agents),
        )
        problem = DecentralizedProblem.create(partition, graph, C=scale, rho=lam * scale, loss=LogisticLoss())
        solver, eta = self._solver(problem, T)
        result = run_fit(self, solver, problem, noise_seed)
        details = result.details
        exact = details.exact
        self.info_ = {
            "lam": float(problem.lam),
            "rho": float(problem.rho),
            "loss_scale": scale,
            "eta": eta,
            "epsilon_per_iteration": details.epsilons[exact].max(initial=0.0) if solver.private else math.inf,
            "alpha": None if details.alpha is None else np.array(details.alpha),
            "data_norm": records.data_norm,
            "n_agents": n_agents,
        }
        if self.tol is not None and result.transcript is not None:
            warn_if_not_converged(
                np.asarray(result.transcript["f"])[1:].mean(axis=1),
                self.tol,
                type(self).__name__,
                _noise_std(details, n_agents, problem.n_features),
            )
        publish_fit(self, X, records, result.model, result, root, T)
        return self

    def _solver(self, problem: DecentralizedProblem, T: int) -> tuple[DecentralizedSolver, float]:
        """The solver of ``variant`` over T iterations and its (first) penalty η, with α from the budget."""
        growth = float(self.eta_growth)
        if self.variant in ("radmm", "dvp") and growth != 1:
            raise ValueError(f"eta_growth must be 1 for variant={self.variant!r} (a constant penalty)")
        epsilon = float(self.epsilon)
        if epsilon < MIN_EPSILON and self.alpha is None:
            raise ValueError(
                f"epsilon must be >= {MIN_EPSILON:g} (or inf): below, the noise it calls for is so large that the "
                f"nodes' Newton solves do not converge, got {self.epsilon!r}"
            )
        q2 = float(self.q2)
        eta = self._eta(problem, epsilon, T)
        alpha: float | list[float] | None = None  # a number, or a (K, N) schedule as nested lists
        if self.alpha is not None:
            alpha = float(self.alpha)
        elif not math.isinf(epsilon):
            alpha = _alpha_for_budget(problem, self.variant, epsilon, eta, growth, T).tolist()
        if self.variant in ("radmm", "mradmm"):
            gamma = float(self.gamma)
            if self.variant == "radmm":
                return RADMM(eta=eta, gamma=gamma, alpha=alpha, n_iterations=T), eta
            return MRADMM(eta=eta, eta_growth=growth, gamma=gamma, alpha=alpha, n_iterations=T), eta
        if alpha is None:
            return MADMM(theta=eta, q1=growth, n_iterations=T), eta
        if isinstance(alpha, float):  # the papers' schedule α(t) = α(1)·q2^{t−1}
            alpha = (alpha * q2 ** np.arange(T)).tolist()
        elif q2 != 1:
            raise ValueError("q2 applies to a given alpha only: leave q2 = 1 with a total epsilon")
        if self.variant == "dvp":
            return DVP(theta=eta, alpha=alpha, n_iterations=T), eta
        return PenaltyPerturbation(theta=eta, q1=growth, alpha=alpha, n_iterations=T), eta

    def _eta(self, problem: DecentralizedProblem, epsilon: float, T: int) -> float:
        """η (θ for PP/DVP): the parameter, or the rule of ``eta="auto"`` (class docstring)."""
        if self.eta != "auto":
            return float(self.eta)
        C, rho, N = problem.C, problem.rho, problem.n_agents
        B, V = problem.sizes.astype(np.float64), problem.graph.degrees.astype(np.float64)
        c1 = problem.loss.curvature_bound
        # Theorem V.1's / 4.1's precondition 2c1 < (B_i/C)(ρ/N + 2ηV_i), with a factor 2 of margin
        precondition = float(np.max((2 * c1 * C / B - rho / N) / V))
        budget = 0.0
        if self.alpha is None and not math.isinf(epsilon):
            if self.variant in ("radmm", "mradmm"):  # K(2C/B)(1.4c1/(ρ/N + 2ηV)) <= ε/2
                budget = float(np.max((5.6 * c1 * C * (T // 2) / (B * epsilon) - rho / N) / (2 * V)))
            else:  # T·C·1.4c1/(ηVB) <= ε/2
                budget = float(np.max(2.8 * c1 * C * T / (V * B * epsilon)))
        return max(_ETA_FLOOR * C, precondition, budget)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a noisy fit at a fixed privacy budget scores poorly on the checks' data sets of 100 rows
        tags.classifier_tags.poor_score = self.epsilon != math.inf or self.alpha is not None
        return tags


def _alpha_for_budget(
    problem: DecentralizedProblem, variant: str, epsilon: float, eta: float, growth: float, T: int
) -> np.ndarray:
    """α per noisy iteration and node (K, N) whose ε_i(k) (eq. (32) of Zhang, Khalili & Liu 2020, or
    eq. (26) of Zhang, Khalili & Liu 2018) is ε/K at every node: each node spends exactly ``epsilon``.

    Raises:
      ValueError: the fixed cost of the theorem alone reaches ε/K at some node.
    """
    C, rho, N = problem.C, problem.rho, problem.n_agents
    B, V = problem.sizes.astype(np.float64), problem.graph.degrees.astype(np.float64)
    c1 = problem.loss.curvature_bound
    share = epsilon * (1 - 1e-12)  # rounding never takes the sum over ε
    if variant in ("radmm", "mradmm"):
        K = T // 2
        eta_k = eta * (growth ** np.arange(1, K + 1) if growth != 1 else np.ones(K))
        fixed = (2 * C / B) * 1.4 * c1 / (rho / N + 2 * eta_k[:, None] * V)
        alpha = (share / K - fixed) * B / (2 * C)
    else:
        K = T
        eta_t = eta * growth ** np.arange(T)
        fixed = C * 1.4 * c1 / (eta_t[:, None] * V * B)
        alpha = (share / K - fixed) * eta_t[:, None] * V * B / C
    if not np.all(np.isfinite(alpha)):
        raise ValueError(
            f"epsilon={epsilon:g} is too large for variant={variant!r}: the noise rate α it calls for overflows "
            "(it would add no noise); give epsilon=inf for a fit without noise"
        )
    if np.any(alpha <= 0):
        raise ValueError(
            f"epsilon={epsilon:g} cannot be reached by variant={variant!r} with n_iterations={T}: the fixed cost "
            f"of the privacy theorem alone is {float(fixed.sum(axis=0).max()):.4g} at the worst node "
            "(Zhang, Khalili & Liu 2020, eq. (32); 2018, eq. (26)); raise epsilon or eta, or lower n_iterations"
        )
    return alpha


def _noise_std(details: Any, n_agents: int, d: int) -> np.ndarray | None:
    """Per-coordinate std (T,) of the noise's effect on the nodes' mean broadcast: a node's f moves by
    about ε/(2η_i V_i) under a perturbation ε of norm ~ Gamma(d, 1/α), E‖ε‖² = d(d + 1)/α²; even
    steps carry the noise of the odd step before."""
    if details.alpha is None:
        return None
    scale = details.noise_scale  # (T, N): 1 (objective) or 2ηV (penalty perturbation)
    curvature = 2.0 * details.eta * details.degrees[None, :]
    slots = np.maximum.accumulate(np.where(details.noise_slot >= 0, details.noise_slot, 0))
    alpha = details.alpha[slots]  # (T, N)
    variance = (scale / curvature) ** 2 * (d + 1) / alpha**2
    return np.sqrt(variance.mean(axis=1) / n_agents)
