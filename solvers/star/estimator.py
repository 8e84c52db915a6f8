"""A scikit-learn estimator for the DP-ADMM solvers (Huang et al. 2020), for pipelines and model selection.

``DPADMMClassifier`` splits the training rows at random over ``n_agents`` agents, runs Algorithm 1,
2 or 3 on a star, and keeps the final global model as a linear classifier without intercept
(predict the positive class iff wᵀx ≥ 0: the logistic rule of Huang et al. 2020, Sec. VI, with ties
positive).

A fitted private estimator is something one publishes, so it holds only what is safe to publish:
the model, the privacy spent and its ledger, and the public run constants (``info_``: schedules,
noise multiplier, D_w from public rows). The noise seed undoes the noise (with it, an adversary who
knows every record but one re-runs the fit on both candidates and matches ``coef_`` exactly), and
the training history is not private; both are kept only on request (``keep_secrets=True``), under
``secret_result_`` and ``secret_seed_``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from solvers.datasets import near_equal_sizes
from solvers.engine.backends import BackendLike
from solvers.losses import LogisticLoss
from solvers.private_estimator import RemovedResult, noise_seed_sequence, public_info, validate_binary_data
from solvers.problem import HorizontalProblem
from solvers.regularizers import L1Regularizer, L2Regularizer
from solvers.star.admm import ADMM, DPADMM, NaiveNoisyADMM

__all__ = ["DPADMMClassifier"]

_REGULARIZERS = {"l1": L1Regularizer, "l2": L2Regularizer}

#: ``Result.info`` keys of the DP-ADMM family fixed before the run from public values only.
_PUBLIC_INFO = ("eta", "sensitivity", "sigma", "noise_multiplier", "dw")


class DPADMMClassifier(ClassifierMixin, BaseEstimator):
    """Binary logistic regression trained by distributed (DP-)ADMM over simulated agents.

    Args:
      n_agents: N; the rows are split at random, as equally as possible, over N agents.
      epsilon, delta: per-iteration privacy of each agent's release ("dpadmm", "naive").
      delta_target: δ of the reported total ε in ``privacy_`` (default ``delta``).
      rho: ADMM penalty ρ. lam: regularisation weight λ of F = Σ_i f_i (each agent λ/N).
      n_iterations: T.
      regularizer: "l2" (½‖w‖²) or "l1".
      algorithm: "dpadmm" (Algorithm 3), "admm" (Algorithm 1, non-private) or "naive"
        (Algorithm 2).
      sensitivity: Algorithm 2's sensitivity, "paper" or "tight".
      step_size: DP-ADMM's step rule ("auto", "theorem3", "theorem4" or a constant).
      dw: D_w for DP-ADMM's step sizes. None: estimated on public rows passed to ``fit``
        (``X_public``, ``y_public``), else 1.0 (any data-independent value keeps the guarantee).
      output: "last" (w^T) or "average" (the ergodic mean w̄^T).
      clip: scale rows with ‖x‖ > 1 onto the unit sphere (with a warning) instead of refusing
        them; the privacy analysis assumes ‖x‖ ≤ 1.
      accountants: accountants (names from ``accountants.ACCOUNTANTS``) reported in ``privacy_``.
      random_state: None (default: the partition and the noise come from fresh OS entropy, never
        from numpy's global generator), or an int or RandomState that fixes both, for
        reproducibility. An int is then the noise seed: whoever knows it can undo the noise.
      backend: where the agents run, "inprocess" (default) or "ray" (one Ray actor per agent,
        ``solvers.engine.backends``), or a ``solvers.engine.backends.RayBackend``; the fit is the same.
      keep_secrets: also keep the fit's secrets (default False): ``secret_result_`` (the solver's
        ``Result``: seeds, training history, diagnostics) and ``secret_seed_`` (the root seed of the
        partition and the noise). Never publish an estimator fitted with it.

    Attributes (after ``fit``), all safe to publish:
      coef_ (1, d), intercept_ (1,) = 0, classes_ (2,), n_features_in_, privacy_ {name: ε at δ},
      ledger_ (every release), info_ (public run constants: step sizes η, σ, z, D_w), n_iter_.
      With ``keep_secrets=True`` also secret_result_ and secret_seed_.
    """

    result_ = RemovedResult()

    def __init__(
        self,
        n_agents: int = 100,
        epsilon: float = 0.05,
        delta: float = 1e-3,
        delta_target: float | None = None,
        rho: float = 1.0,
        lam: float = 0.17,
        n_iterations: int = 100,
        regularizer: str = "l2",
        algorithm: str = "dpadmm",
        sensitivity: str = "paper",
        step_size: str | float = "auto",
        dw: float | None = None,
        output: str = "last",
        clip: bool = False,
        accountants: tuple[str, ...] = ("moments_classic", "exact_gaussian"),
        random_state: int | np.random.RandomState | None = None,
        backend: BackendLike = "inprocess",
        keep_secrets: bool = False,
    ) -> None:
        self.n_agents = n_agents
        self.epsilon = epsilon
        self.delta = delta
        self.delta_target = delta_target
        self.rho = rho
        self.lam = lam
        self.n_iterations = n_iterations
        self.regularizer = regularizer
        self.algorithm = algorithm
        self.sensitivity = sensitivity
        self.step_size = step_size
        self.dw = dw
        self.output = output
        self.clip = clip
        self.accountants = accountants
        self.random_state = random_state
        self.backend = backend
        self.keep_secrets = keep_secrets

    def fit(
        self,
        X: np.ndarray,
        y: np.ndarray,
        X_public: np.ndarray | None = None,
        y_public: np.ndarray | None = None,
    ) -> DPADMMClassifier:
        """Train on (X, y); optional public rows (labels in ``classes_``) only estimate D_w.

        Raises:
          ValueError: y is not binary (two classes), a row with ‖x‖ > 1 and ``clip=False``, fewer rows
            than agents, or a bad parameter (the message names it).
        """
        X, y = validate_binary_data(self, X, y)
        if self.regularizer not in _REGULARIZERS:
            raise ValueError(f"regularizer must be 'l1' or 'l2', got {self.regularizer!r}")
        if self.output not in ("last", "average"):
            raise ValueError(f"output must be 'last' or 'average', got {self.output!r}")
        n_agents = self.n_agents
        if not isinstance(n_agents, (int, np.integer)) or isinstance(n_agents, bool) or n_agents < 1:
            raise ValueError(f"n_agents must be a positive integer, got {self.n_agents!r}")
        if self.n_agents > X.shape[0]:
            raise ValueError(f"n_agents={self.n_agents} exceeds the number of rows ({X.shape[0]})")
        public = {}
        if X_public is not None:
            y_public = np.asarray(y_public)
            if not np.isin(y_public, self.classes_).all():
                raise ValueError(f"y_public must hold labels from classes_={self.classes_.tolist()}")
            public = {"X_public": X_public, "y_public": np.where(y_public == self.classes_[1], 1.0, -1.0)}
        if not isinstance(self.keep_secrets, (bool, np.bool_)):
            raise ValueError(f"keep_secrets must be True or False, got {self.keep_secrets!r}")
        root = noise_seed_sequence(self.random_state)
        partition_seed, noise_seed = root.spawn(2)
        problem = HorizontalProblem.from_data(
            X,
            np.where(y == self.classes_[1], 1.0, -1.0),
            int(self.n_agents),
            seed=np.random.default_rng(partition_seed),
            sizes=None if X.shape[0] % self.n_agents == 0 else near_equal_sizes(X.shape[0], int(self.n_agents)),
            clip=self.clip,
            loss=LogisticLoss(),
            regularizer=_REGULARIZERS[self.regularizer](),
            lam=self.lam,
            **public,
        )
        keep = bool(self.keep_secrets)
        result = self._solver(problem).run(
            problem,
            seed=noise_seed,
            accountants=self.accountants,
            record_history=keep,
            record_transcript=False,
            backend=self.backend,
        )
        model = result.model if self.output == "last" else result.model_average
        self.coef_ = np.array(model[None, :], dtype=np.float64)
        self.intercept_ = np.zeros(1)
        self.privacy_ = {name: float(epsilon) for name, epsilon in result.privacy.items()}
        self.ledger_ = result.ledger
        self.info_ = public_info(result.info, _PUBLIC_INFO)
        self.n_iter_ = self.n_iterations
        for name in ("secret_result_", "secret_seed_"):  # a refit without keep_secrets drops them
            self.__dict__.pop(name, None)
        if keep:
            self.secret_result_ = result
            self.secret_seed_ = root
        return self

    def _solver(self, problem: HorizontalProblem) -> ADMM | NaiveNoisyADMM | DPADMM:
        rho, T = self.rho, self.n_iterations
        epsilon, delta, delta_target = self.epsilon, self.delta, self.delta_target
        if self.algorithm == "admm":
            return ADMM(rho=rho, n_iterations=T)
        if self.algorithm == "naive":
            return NaiveNoisyADMM(
                rho=rho,
                n_iterations=T,
                epsilon=epsilon,
                delta=delta,
                delta_target=delta_target,
                sensitivity=self.sensitivity,
            )
        if self.algorithm == "dpadmm":
            dw = self.dw if (self.dw is not None or problem.X_public is not None) else 1.0
            return DPADMM(
                rho=rho,
                n_iterations=T,
                epsilon=epsilon,
                delta=delta,
                delta_target=delta_target,
                step_size=self.step_size,
                dw=dw,
            )
        raise ValueError(f"algorithm must be 'dpadmm', 'admm' or 'naive', got {self.algorithm!r}")

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """wᵀx for each row, shape (n,); positive means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """``classes_[1]`` iff wᵀx ≥ 0 (the tie goes to the positive class, a choice of this toolkit)."""
        scores = self.decision_function(X)
        return self.classes_[(scores >= 0).astype(int)]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """[1 − σ(wᵀx), σ(wᵀx)] per row, columns in the order of ``classes_``."""
        scores = self.decision_function(X)
        positive = 0.5 * (1.0 + np.tanh(0.5 * scores))  # σ(s), overflow-free
        return np.column_stack([1.0 - positive, positive])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
