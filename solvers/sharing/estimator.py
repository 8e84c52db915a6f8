"""A scikit-learn classifier trained over simulated vertically partitioned parties.

``VerticalLogisticRegression(blocks=[53, 51])`` splits the columns of X over the parties
(``partition_vertical``), trains l2 logistic regression on the split, and keeps the joined model as a linear
classifier. Each row is first mapped into the unit ball by the public rule of the horizontal estimators
(x̃ = (clip(x/B), c)/s, B = ``data_norm``, default sqrt(d), c = ``intercept_scaling``, s = sqrt(1 + c²);
``UnitBallRecords``), so every row (and every party's block of it) has norm ≤ 1, as the sensitivities
assume. The intercept is the weight of the constant column c/s, held by the last party: a public constant,
the same in neighbouring data sets (and penalised like any column, as liblinear's ``intercept_scaling``).
``C`` has scikit-learn's meaning: with ``noise=None`` and enough iterations the fit matches
``LogisticRegression(C=C)`` on rows inside the bound (exactly with ``fit_intercept=False``); internally
λ = 1/(C·N·B²·s²) on the mapped rows (the mean-loss scaling of ``solvers.sharing.problem``).

``epsilon`` is the total budget of the fit, as for every estimator of the toolkit (default 1,
``DEFAULT_EPSILON``), and the fit is private by default. Its unit is one training example: a whole row
(every party's part of it) with its label, replaced by any other (``row_budget.ROW_ADJACENCY``). Two protocols:

- ``protocol="gradient"`` (the default; ``solvers.sharing.gradient``): noisy full-batch gradient descent on
  the vertical split, the private variant of the gradient baseline Hu, Liu, Kong & Niu 2019 (Sec. 5)
  compare ADMM sharing with. In each of T iterations the parties' per-sample products D_m x_m and the
  server's per-sample loss derivatives g_i are exchanged under secure computation (additively homomorphic
  encryption or secret sharing, as in Hardy et al. 2017's vertical federated logistic regression; this
  module computes them in the clear, as a simulation) and only the joint gradient Σ_i x_i g_i plus
  N(0, σ² I) is released, σ = z·Δ with Δ = 2/N (replacing a row moves it by at most 2 S_1/N, S_1 = 1 for
  the logistic loss). Each party then steps its own block: the model is a post-processing of the released
  gradients; nothing else is released (no labels, no model release of its own). ``privacy_`` covers a
  whole row with its label against anyone who sees the noisy gradients and the published model: every party
  and the public. It does not cover a failure of the secure computation (its trust assumptions, e.g.
  semi-honest non-colluding parties, and its side channels). The T releases compose to μ-GDP with
  μ = sqrt(T)/z (Dong, Roth & Su 2022, Cor. 3.3); z is the exact Gaussian accountant's for T releases at the
  total (``epsilon``, ``delta``) (``per_release_epsilon``, as ``DPADMMClassifier``), ``ledger_`` holds T
  events of multiplier z under one participant (the row). T, the step 1/L (L = 1/4 + λ) and Nesterov's
  momentum come from public quantities (``solvers.sharing.defaults.gradient_schedule``: 100 plain steps
  while ε ≤ 10, else ⌈5 sqrt(κ)⌉ accelerated ones, κ = L/λ); a ``ConvergenceWarning`` says when the last
  released gradient is still large (``tol``). The Ray backend does not apply (nothing runs as a party actor).
- ``protocol="admm_sharing"``: ADMM sharing (``solvers.sharing.admm.ADMMSharing``), whose guarantee covers
  everything exchanged in the clear and the published model (``solvers.sharing.row_budget``): the labels
  once by randomized response, the M parties' shares D_m x_m + N(0, σ_s² I_N) in each iteration (σ_s
  calibrated to the whole-row stability bound Δ_row), and the model once by output perturbation (Δ_w), split
  5 % labels, 85 % shares, 10 % model of μ². At ε = 1 its model is noise (docs/guides/estimators.md gives
  the figures). ``sensitivity="safe"`` calibrates the shares to sqrt(M)·2 sqrt(N) b_1; ρ, T and b_1 default
  to values from public quantities (``solvers.sharing.defaults``). In the claim modes (``noise="parameter"``
  or ``sensitivity="paper"``, not differentially private) each iteration is given ε/T.

``noise=None`` trains without noise (either protocol): not private, and ``privacy_`` says so (every ε is inf).

Like ``DPADMMClassifier``, a fitted estimator holds only the model, the privacy spent, the ledger, the
public run constants and claims; the noise seed and the training history only with ``keep_secrets=True``
(``secret_result_``, ``secret_seed_``).
"""

from __future__ import annotations

import inspect
import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from accountants.constraints import (
    AnyOf,
    Constraint,
    Integer,
    Items,
    OneOf,
    Positive,
    check_parameters,
)
from mechanisms.gaussian import Calibration
from solvers.engine.result import Result
from solvers.losses import LogisticLoss
from solvers.private_estimator import (
    COMMON_PARAMETERS,
    DEFAULT_EPSILON,
    NOISE_DOMINATED_EPSILON,
    LinearPredictions,
    RemovedResult,
    UnitBallRecords,
    fit_one_vs_rest,
    noise_seed_sequence,
    per_release_epsilon,
    public_info,
    publish_fit,
    shared_constraints,
    validate_classification_data,
    warn_if_loose_bound,
)
from solvers.sharing.admm import ADMMSharing
from solvers.sharing.defaults import auto_ball_radius, auto_iterations, auto_rho_scale, gradient_schedule
from solvers.sharing.gradient import (
    NoisyGradientDescent,
    gradient_ledger,
    gradient_sensitivity,
    warn_if_gradient_not_small,
)
from solvers.sharing.partition import VerticalPartition, partition_vertical
from solvers.sharing.problem import VerticalProblem
from solvers.sharing.row_budget import ROW_ADJACENCY, RowBudget, RowSensitivities

__all__ = ["VerticalLogisticRegression"]

#: ``Result.info`` of ADMM sharing fixed before the run from public values (the rest, e.g. the
#: blocks' ranks and the iterates' norms, is computed from the private data).
_PUBLIC_INFO = ("rho", "lam", "b1", "noise", "sklearn_C", "block_widths", "sensitivity", "sigma", "noise_multiplier")
_PUBLIC_PREFIXES = ("claim",)
#: What of the solver's public info a covered fit keeps (its sensitivity, noise and adjacency are per party).
_ROW_INFO = ("rho", "lam", "b1", "noise", "sklearn_C", "block_widths")
#: The parameters of the ADMM sharing protocol only: the gradient protocol refuses a value other than the default.
_ADMM_ONLY = ("rho_scale", "b1", "sensitivity", "calibration")


class VerticalLogisticRegression(LinearPredictions, ClassifierMixin, BaseEstimator):
    """l2 logistic regression over column blocks, by noisy gradient descent (default) or ADMM sharing (Hu et
    al. 2019); K ≥ 3 classes are fitted one-vs-rest, each binary fit at (ε/K, δ/K)
    (``private_estimator.fit_one_vs_rest``).

    Args:
      blocks: the column split (``partition_vertical``): a number of parties, block widths, or
        column-index lists.
      protocol: "gradient" (default: noisy gradients released, the per-sample messages under secure
        computation; ``solvers.sharing.gradient``) or "admm_sharing" (every message in the clear, covered;
        ``solvers.sharing.row_budget``); module docstring.
      C: inverse regularisation strength as in scikit-learn (λ = 1/(C·N·B²·s²) on the mapped rows).
      fit_intercept, intercept_scaling: an intercept, the weight of the public constant column c
        (``intercept_scaling``) held by the last party (module docstring); default True, c = 1.
      rho_scale: (admm_sharing) ρ = rho_scale/N; "auto" (default): 1.5·S_2 = 0.375 for the logistic loss, the
        smallest ρ of Assumption 1.2(c) of Hu et al. 2019 with a margin (``solvers.sharing.defaults``).
      n_iterations: T; "auto" (default): gradient: 100 while ε ≤ 10, else ⌈5 sqrt(κ)⌉ within [100, 10,000];
        admm_sharing: 100, fewer above N·d = 3·10^5 (``solvers.sharing.defaults``).
      noise: "output" (default, differentially private: the released values carry Gaussian noise, the
        gradients or the shares and the model), None (no noise), or "parameter" (admm_sharing's claim mode,
        see ``ADMMSharing``).
      epsilon: the total ε of the fit, all K one-vs-rest fits included (default 1,
        ``DEFAULT_EPSILON``, the same for every estimator of the toolkit; module docstring).
      noise_multiplier, sigma: a number overrides ``epsilon``: gradient: z of each of the T gradient releases,
        or their σ (z = σ/Δ, Δ = 2/N); admm_sharing: in the covered mode z is the multiplier of each of the
        T + 2 releases (labels, each iteration's shares together, model), or σ that of the shares
        (z = σ/Δ_row); in the claim modes as ``ADMMSharing`` (per release).
      delta: δ of the total budget (and of the reported ε).
      data_norm, clip: the public row map (``UnitBallRecords`` without intercept): B, a public bound
        on ‖x‖ (None: sqrt(d)); rows beyond it are scaled onto the sphere (``clip=True``, default) or
        refused in a private mode (``clip=False``).
      b1: (admm_sharing) the radius of the model's ball (Assumption 2.1); None: in a private mode the smaller
        of sqrt(2 ln 2/λ) (which holds the l2 optimum) and the radius at which the noise moves a margin by
        1/4, but not below S_1/(Nρ) (``solvers.sharing.defaults.auto_ball_radius``); no ball without
        noise.
      sensitivity: (admm_sharing) "stability" (default, certified, does not grow with N), "safe" (certified,
        2 sqrt(N) b_1) or "paper" (Lemma 1's claim, not private); see ``ADMMSharing``.
      calibration: (admm_sharing) as ``ADMMSharing`` (only matters with a per-release noise of the claim modes).
      accountants: accountant names reported in ``privacy_``.
      random_state: None (default: the noise comes from fresh OS entropy, never from numpy's
        global generator), or an int or RandomState that fixes the noise, for reproducibility (an
        int is then the noise seed: whoever knows it can undo the noise).
      backend: "inprocess" (default), "ray" (every party a Ray actor) or a ``RayBackend``; admm_sharing only
        (the gradient protocol refuses any other than "inprocess").
      keep_secrets: also keep ``secret_result_`` (the solver's ``Result``: seeds, training
        history, diagnostics) and ``secret_seed_`` (default False). Never publish such a fit.
      tol: (gradient) a ``ConvergenceWarning`` when the last released gradient of the objective has a norm
        above ``tol`` times the first one's plus three times the noise's expected norm (default 10^-3; None:
        no check). admm_sharing has no such check.

    The gradient protocol refuses ``backend`` other than "inprocess", ``noise="parameter"`` and the ADMM
    parameters ``rho_scale``, ``b1``, ``sensitivity`` and ``calibration`` away from their defaults.

    Attributes (after ``fit``) (``privacy_`` covers a whole row and its label, ``coef_`` included: module
    docstring):
      coef_ (1, d) or (K, d), intercept_ (1,) or (K,) (0 without intercept), classes_,
      n_features_in_, privacy_ {name: ε of the whole fit}, ledger_, info_ (public run constants: the
      protocol, the releases' sensitivities, multipliers and σ, μ, the adjacency; gradient: the step and the
      momentum; admm_sharing: the labels' flip probability, the claims of the unverified modes; the data
      bound), n_iter_ (T).
      With ``keep_secrets=True`` also secret_result_ and secret_seed_.
    """

    result_ = RemovedResult()
    #: What each parameter must be (``accountants.constraints``), checked at the top of ``fit``.
    parameter_constraints: dict[str, Constraint] = {
        **shared_constraints(*COMMON_PARAMETERS),
        **{
            name: ADMMSharing.parameter_constraints[name]
            for name in (
                "noise",
                "epsilon",
                "noise_multiplier",
                "sigma",
                "delta",
                "b1",
                "sensitivity",
                "calibration",
            )
        },
        **shared_constraints("tol"),
        "protocol": OneOf("gradient", "admm_sharing"),
        "blocks": AnyOf(Integer(1), Items("one sequence of column indices per party")),
        "C": Positive(),
        "rho_scale": AnyOf(OneOf("auto"), Positive()),
    }

    def __init__(
        self,
        blocks=2,
        protocol: str = "gradient",
        C: float = 1.0,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        rho_scale: float | str = "auto",
        n_iterations: int | str = "auto",
        noise: str | None = "output",
        epsilon: float | None = DEFAULT_EPSILON,
        noise_multiplier: float | None = None,
        sigma: float | None = None,
        delta: float = 1e-5,
        data_norm: float | None = None,
        clip: bool = True,
        b1: float | None = None,
        sensitivity: str = "stability",
        calibration: Calibration = "classic",
        accountants: tuple[str, ...] = ("rdp", "exact_gaussian"),
        random_state=None,
        backend="inprocess",
        keep_secrets: bool = False,
        tol: float | None = 1e-3,
    ) -> None:
        self.blocks = blocks
        self.protocol = protocol
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.rho_scale = rho_scale
        self.n_iterations = n_iterations
        self.noise = noise
        self.epsilon = epsilon
        self.noise_multiplier = noise_multiplier
        self.sigma = sigma
        self.delta = delta
        self.data_norm = data_norm
        self.clip = clip
        self.b1 = b1
        self.sensitivity = sensitivity
        self.calibration = calibration
        self.accountants = accountants
        self.random_state = random_state
        self.backend = backend
        self.keep_secrets = keep_secrets
        self.tol = tol

    def fit(self, X: np.ndarray, y: np.ndarray) -> VerticalLogisticRegression:
        """Train on (X, y) with X's columns split by ``blocks``.

        Raises:
          ValueError: y neither binary nor multiclass, bad blocks (overlap, missing columns), bad
            parameters, or rows with ‖x‖ > ``data_norm`` and ``clip=False`` in a private mode.
        """
        check_parameters(self)
        X, y = validate_classification_data(self, X, y)
        if self.classes_.size > 2:
            fit_one_vs_rest(self, X, y, ("epsilon", "delta"))
            return self
        if isinstance(self.blocks, numbers.Integral) and not isinstance(self.blocks, bool) and self.blocks > X.shape[1]:
            raise ValueError(f"blocks={self.blocks} parties need a column each, got n_features = {X.shape[1]}")
        records = UnitBallRecords.create(
            X.shape[1], self.data_norm, bool(self.fit_intercept), float(self.intercept_scaling)
        )
        n = X.shape[0]
        lam = 1.0 / (self.C * n * (records.data_norm * records.scale) ** 2)
        if not 0 < lam < math.inf:
            raise ValueError(f"C={self.C!r} is too large: the regularisation λ = 1/(C·N·B²·s²) with N = {n} rows is 0")
        labels = np.where(y == self.classes_[1], 1.0, -1.0)
        rows = records.transform(X, clip=bool(self.clip))
        partition = partition_vertical(rows, labels, self._blocks(X.shape[1], rows.shape[1]))
        seed = noise_seed_sequence(self.random_state)
        if self.protocol == "gradient":
            self._refuse_admm_settings()
            warn_if_loose_bound(X, records.data_norm, type(self).__name__)
            result, T = self._fit_gradient(partition, lam, seed)
            self.info_ = {**result.info, "data_norm": records.data_norm}
            publish_fit(self, X, records, result.model, result, seed, T, (result.ledger, result.privacy))
            return self
        T = auto_iterations(n, rows.shape[1]) if self.n_iterations == "auto" else int(self.n_iterations)
        label_seed, model_seed, run_seed = (
            np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, k)) for k in range(3)
        )
        loss = LogisticLoss()
        rho_scale = auto_rho_scale(loss.curvature_bound) if self.rho_scale == "auto" else float(self.rho_scale)
        covered = self.noise == "output" and self.sensitivity != "paper" and self.sigma != 0
        budget = self._row_budget(T) if covered else None
        epsilon, noise_multiplier = (None, None) if covered else self._claimed_budget(T)
        b1 = self.b1
        if b1 is None and self.noise is not None:
            z = budget.margin_noise_multiplier(partition.n_parties) if budget is not None else noise_multiplier
            b1 = auto_ball_radius(lam, n, rows.shape[1], z, loss.gradient_bound / rho_scale)
        sigma, row = self.sigma, None
        if covered and b1 is not None:
            row = RowSensitivities.of(
                n, rho_scale / n, b1, lam, partition.n_parties, loss.gradient_bound, self.sensitivity
            )
            if budget is None and self.sigma is not None:  # the one multiplier of every release is σ/Δ_row
                budget = RowBudget.per_release(float(self.sigma) / row.shares, T)
        if budget is not None and row is not None:
            sigma = budget.share_multiplier * row.shares
            randomized = budget.randomized_labels(labels, np.random.default_rng(label_seed))
            partition = partition_vertical(rows, randomized, self._blocks(X.shape[1], rows.shape[1]))
        problem = VerticalProblem(partition, lam=lam, loss=loss)
        solver = ADMMSharing(
            rho=rho_scale / n,
            n_iterations=T,
            noise=self.noise,
            epsilon=epsilon,
            noise_multiplier=noise_multiplier,
            sigma=sigma,
            delta=self.delta,
            b1=b1,
            sensitivity=self.sensitivity,
            calibration=self.calibration,
        )
        keep = bool(self.keep_secrets)
        result = solver.run(
            problem,
            seed=run_seed,
            accountants=self.accountants,
            record_history=keep,
            record_transcript=False,
            backend=self.backend,
        )
        model, info = result.model, public_info(result.info, _PUBLIC_INFO, _PUBLIC_PREFIXES)
        accounted = None  # without noise, or a claim mode: the solver's ledger
        if budget is not None and row is not None and b1 is not None:
            model = budget.perturbed_model(partition, model, row.model, b1, np.random.default_rng(model_seed))
            accounted = budget.ledger(partition.n_parties, self.accountants, float(self.delta))
            info = {**public_info(info, _ROW_INFO), **budget.info(row)}
        self.info_ = {**info, "data_norm": records.data_norm}
        publish_fit(self, X, records, model, result, seed, T, accounted)
        return self

    def _refuse_admm_settings(self) -> None:
        """The gradient protocol runs in process, privately or without noise, and has no ρ, ball or claim mode.

        Raises:
          ValueError: ``backend`` other than "inprocess", ``noise="parameter"``, or an ADMM-only parameter
            (``rho_scale``, ``b1``, ``sensitivity``, ``calibration``) not at its default.
        """
        if self.backend != "inprocess":
            raise ValueError(
                f"backend={self.backend!r} runs ADMM sharing's parties as actors; protocol='gradient' simulates its "
                "secure computation in process: give backend='inprocess', or protocol='admm_sharing'"
            )
        if self.noise == "parameter":
            raise ValueError("noise='parameter' is a claim mode of ADMM sharing: give protocol='admm_sharing'")
        defaults = inspect.signature(type(self).__init__).parameters
        for name in _ADMM_ONLY:
            value = getattr(self, name)
            if value != defaults[name].default:
                raise ValueError(f"{name}={value!r} is a parameter of protocol='admm_sharing', not of 'gradient'")

    def _fit_gradient(
        self, partition: VerticalPartition, lam: float, seed: np.random.SeedSequence
    ) -> tuple[Result, int]:
        """The gradient protocol (``solvers.sharing.gradient``): the noise multiplier z of each of the T
        releases from the total (``epsilon``, ``delta``) by the exact Gaussian accountant
        (``per_release_epsilon``), or ``noise_multiplier``, or ``sigma``/Δ; T, η and β from public quantities
        (``solvers.sharing.defaults.gradient_schedule``). Returns (the run's secret ``Result``, T).

        Raises:
          ValueError: noise on with none of ``epsilon``, ``noise_multiplier`` and ``sigma``.
        """
        loss = LogisticLoss()
        n = partition.n_samples
        sensitivity = gradient_sensitivity(n, loss.gradient_bound)
        regime, z, total = math.inf, 0.0, None  # no noise
        if self.noise is not None and self.noise_multiplier is not None:
            regime, z = NOISE_DOMINATED_EPSILON, float(self.noise_multiplier)
        elif self.noise is not None and self.sigma is not None:
            regime, z = NOISE_DOMINATED_EPSILON, float(self.sigma) / sensitivity
        elif self.noise is not None:
            if self.epsilon is None:
                raise ValueError("epsilon must be given for a private fit (or noise_multiplier, sigma, or noise=None)")
            regime = total = float(self.epsilon)
        given = None if self.n_iterations == "auto" else int(self.n_iterations)
        T, step, momentum = gradient_schedule(regime, lam, loss.curvature_bound, given)
        if total is not None:  # the multiplier of T releases that compose to the total (ε, δ)
            _, z = per_release_epsilon(total, float(self.delta), T)
        sigma = z * sensitivity
        run = NoisyGradientDescent(T, step, momentum, sigma).run(partition, lam, loss, np.random.default_rng(seed))
        if self.tol is not None:
            warn_if_gradient_not_small(run, float(self.tol), sigma, partition.n_features, type(self).__name__)
        ledger, privacy = gradient_ledger(z, T, self.accountants, float(self.delta))
        info = {
            "protocol": "gradient",
            "adjacency": ROW_ADJACENCY,
            "lam": lam,
            "sklearn_C": float(self.C),
            "block_widths": partition.widths.tolist(),
            "step_size": step,
            "momentum": momentum,
            "sensitivity": sensitivity,
            "noise_multiplier": z,
            "sigma": sigma,
            "mu": math.sqrt(T) / z if z > 0 else math.inf,
        }
        result = Result(
            model=run.model,
            model_average=run.model,
            history={"gradient_norm": run.gradient_norms},
            transcript=None,
            ledger=ledger,
            privacy=privacy,
            delta=float(self.delta),
            seeds=[seed],
            solver={"name": "noisy_gradient_descent", "n_iterations": T, "step_size": step, "momentum": momentum},
            info=info,
        )
        return result, T

    def _blocks(self, n_features: int, n_columns: int):
        """``blocks`` over the mapped rows' columns: the intercept's constant column (index d, when
        ``fit_intercept``) goes to the last party."""
        if n_columns == n_features or isinstance(self.blocks, numbers.Integral):
            return self.blocks
        blocks = list(self.blocks)
        if blocks and isinstance(blocks[-1], numbers.Integral):
            return [*blocks[:-1], int(blocks[-1]) + 1]
        return [*blocks[:-1], [*blocks[-1], n_features]]

    def _row_budget(self, T: int) -> RowBudget | None:
        """The covered mode's multipliers: from the total ``epsilon`` (``RowBudget.calibrated``), or the user's
        ``noise_multiplier`` for every release; None when ``sigma`` is given (known once Δ_row is)."""
        if self.noise_multiplier is not None:
            return RowBudget.per_release(float(self.noise_multiplier), T)
        if self.sigma is not None or self.epsilon is None:
            return None
        return RowBudget.calibrated(float(self.epsilon), float(self.delta), T)

    def _claimed_budget(self, T: int) -> tuple[float | None, float | None]:
        """(ε per iteration, z per release) of a claim mode for ``ADMMSharing``: ε/T (the paper's total by
        basic composition is ``epsilon``), or the user's ``noise_multiplier`` or ``sigma`` as they are;
        nothing without noise."""
        if self.noise is None or self.noise_multiplier is not None or self.sigma is not None or self.epsilon is None:
            return None, None if self.noise is None else self.noise_multiplier
        return float(self.epsilon) / T, None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a noisy fit at a fixed privacy budget scores poorly on the checks' data sets of 100 rows
        tags.classifier_tags.poor_score = self.noise is not None
        return tags
