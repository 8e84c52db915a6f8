"""A scikit-learn classifier trained by ADMM sharing over simulated vertically partitioned parties.

``VerticalLogisticRegression(blocks=[53, 51])`` splits the columns of X over the parties
(``partition_vertical``), runs :class:`~solvers.sharing.admm.ADMMSharing` and keeps the joined
model as a linear classifier without intercept. ``C`` has scikit-learn's meaning: with
``noise=None`` and enough iterations the fit matches ``LogisticRegression(C=C,
fit_intercept=False)``; internally λ = 1/(C·N) (the mean-loss scaling of
``solvers.sharing.problem``).

``epsilon`` is the total budget of the fit, as for every estimator of the toolkit. With
``noise="output"`` (the certified mode, safe sensitivity) each party releases a Gaussian share in
each of the T iterations; the noise multiplier z is the smallest whose T-fold composition the exact
Gaussian accountant (Dong, Roth & Su 2019, μ = sqrt(T)/z) bounds by (``epsilon``, ``delta``) for a
change of one party's block of a row, and ``privacy_`` reports that total. In the claim modes
(``noise="parameter"`` or ``sensitivity="paper"``, not differentially private) each iteration is
given ε/T, so the paper's claimed total by basic composition is ``epsilon``. The default
(``noise=None``) is Algorithm 1 without noise: not private, and ``privacy_`` says so (every ε is inf).

Like ``DPADMMClassifier``, a fitted estimator holds only what is safe to publish (the model, the
privacy spent, the ledger, the public run constants and claims); the noise seed and the training
history only with ``keep_secrets=True`` (``secret_result_``, ``secret_seed_``).
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from accountants.calibration import calibrate_noise_multiplier
from accountants.exact_gaussian import ExactGaussianAccountant
from mechanisms.gaussian import Calibration
from solvers.private_estimator import (
    RemovedResult,
    noise_seed_sequence,
    positive_integer,
    positive_number,
    public_info,
    validate_binary_data,
    warn_if_one_class,
)
from solvers.sharing.admm import ADMMSharing
from solvers.sharing.partition import partition_vertical
from solvers.sharing.problem import VerticalProblem

__all__ = ["VerticalLogisticRegression"]

#: ``Result.info`` of ADMM sharing fixed before the run from public values (the rest, e.g. the
#: blocks' ranks and the iterates' norms, is computed from the private data).
_PUBLIC_INFO = ("rho", "lam", "b1", "noise", "sklearn_C", "block_widths", "sensitivity", "sigma", "noise_multiplier")
_PUBLIC_PREFIXES = ("claim", "adjacency", "epsilon_joint_rows", "not_accounted")


class VerticalLogisticRegression(ClassifierMixin, BaseEstimator):
    """Binary l2 logistic regression by ADMM sharing over column blocks (Hu et al. 2019).

    Args:
      blocks: the column split (``partition_vertical``): a number of parties, block widths, or
        column-index lists.
      C: inverse regularisation strength as in scikit-learn (λ = 1/(C·N)).
      rho_scale: ρ = rho_scale/N (the toolkit's default ρ = 1/N; the paper gives no ρ).
      n_iterations: T.
      noise: None, "output" or "parameter" (see ``ADMMSharing``).
      epsilon: the total ε of the fit (module docstring), instead of ``noise_multiplier`` or ``sigma``.
      noise_multiplier, sigma: as ``ADMMSharing`` (per release), instead of ``epsilon``.
      delta: δ of the total budget (and of the reported ε).
      b1, sensitivity, calibration: as ``ADMMSharing`` (``calibration`` only matters with a
        per-release noise of the claim modes).
      accountants: accountant names reported in ``privacy_``.
      random_state: None (default: the noise comes from fresh OS entropy, never from numpy's
        global generator), or an int or RandomState that fixes the noise, for reproducibility (an
        int is then the noise seed: whoever knows it can undo the noise).
      backend: "inprocess" (default), "ray" (every party a Ray actor) or a ``RayBackend``.
      keep_secrets: also keep ``secret_result_`` (the solver's ``Result``: seeds, training
        history, diagnostics) and ``secret_seed_`` (default False). Never publish such a fit.

    Attributes (after ``fit``), all safe to publish:
      coef_ (1, d), intercept_ (1,) = 0, classes_, n_features_in_, privacy_ {name: ε}, ledger_,
      info_ (public run constants and the claims of the unverified modes), n_iter_.
      With ``keep_secrets=True`` also secret_result_ and secret_seed_.
    """

    result_ = RemovedResult()

    def __init__(
        self,
        blocks=2,
        C: float = 1.0,
        rho_scale: float = 1.0,
        n_iterations: int = 300,
        noise: str | None = None,
        epsilon: float | None = None,
        noise_multiplier: float | None = None,
        sigma: float | None = None,
        delta: float = 1e-5,
        b1: float | None = None,
        sensitivity: str = "safe",
        calibration: Calibration = "classic",
        accountants: tuple[str, ...] = ("rdp", "exact_gaussian"),
        random_state=None,
        backend="inprocess",
        keep_secrets: bool = False,
    ) -> None:
        self.blocks = blocks
        self.C = C
        self.rho_scale = rho_scale
        self.n_iterations = n_iterations
        self.noise = noise
        self.epsilon = epsilon
        self.noise_multiplier = noise_multiplier
        self.sigma = sigma
        self.delta = delta
        self.b1 = b1
        self.sensitivity = sensitivity
        self.calibration = calibration
        self.accountants = accountants
        self.random_state = random_state
        self.backend = backend
        self.keep_secrets = keep_secrets

    def fit(self, X: np.ndarray, y: np.ndarray) -> VerticalLogisticRegression:
        """Train on (X, y) with X's columns split by ``blocks``.

        Raises:
          ValueError: y not binary, bad blocks (overlap, missing columns), bad parameters, or rows
            with ‖D_m^i‖ > 1 in a private mode.
        """
        X, y = validate_binary_data(self, X, y)
        if not (isinstance(self.C, (int, float)) and 0 < self.C < math.inf):
            raise ValueError(f"C must be a positive finite number (λ = 1/(C·N), the regularisation), got {self.C!r}")
        if not 0 < 1.0 / (self.C * X.shape[0]) < math.inf:
            raise ValueError(
                f"C={self.C!r} is too large: the regularisation λ = 1/(C·N) with N = {X.shape[0]} rows is 0"
            )
        if not (isinstance(self.rho_scale, (int, float)) and self.rho_scale > 0):
            raise ValueError(f"rho_scale must be a positive number, got {self.rho_scale!r}")
        labels = np.where(y == self.classes_[1], 1.0, -1.0)
        n = X.shape[0]
        problem = VerticalProblem(partition_vertical(X, labels, self.blocks), lam=1.0 / (self.C * n))
        epsilon, noise_multiplier = self._per_release_budget()
        solver = ADMMSharing(
            rho=self.rho_scale / n,
            n_iterations=self.n_iterations,
            noise=self.noise,
            epsilon=epsilon,
            noise_multiplier=noise_multiplier,
            sigma=self.sigma,
            delta=self.delta,
            b1=self.b1,
            sensitivity=self.sensitivity,
            calibration=self.calibration,
        )
        if not isinstance(self.keep_secrets, (bool, np.bool_)):
            raise ValueError(f"keep_secrets must be True or False, got {self.keep_secrets!r}")
        keep = bool(self.keep_secrets)
        seed = noise_seed_sequence(self.random_state)
        result = solver.run(
            problem,
            seed=seed,
            accountants=self.accountants,
            record_history=keep,
            record_transcript=False,
            backend=self.backend,
        )
        self.coef_ = np.array(result.model[None, :], dtype=np.float64)
        self.intercept_ = np.zeros(1)
        self.privacy_ = {name: float(epsilon) for name, epsilon in result.privacy.items()}
        self.ledger_ = result.ledger
        self.info_ = public_info(result.info, _PUBLIC_INFO, _PUBLIC_PREFIXES)
        self.n_iter_ = self.n_iterations
        for name in ("secret_result_", "secret_seed_"):  # a refit without keep_secrets drops them
            self.__dict__.pop(name, None)
        if keep:
            self.secret_result_ = result
            self.secret_seed_ = seed
        scores = X @ self.coef_[0] + self.intercept_[0]  # the training rows as validated (predict would re-check them)
        warn_if_one_class(self.classes_[(scores >= 0).astype(int)], type(self).__name__)
        return self

    def _per_release_budget(self) -> tuple[float | None, float | None]:
        """(ε per iteration, z per release) for ``ADMMSharing`` from the total ``epsilon``: z of the
        T-fold exact Gaussian composition in the certified mode, ε/T in the claim modes; the user's
        ``noise_multiplier`` as it is when ``epsilon`` is None.

        Raises:
          ValueError: ``epsilon`` is not a positive finite number or comes with ``noise_multiplier`` or
            ``sigma``, or ``n_iterations`` is not a positive integer.
        """
        if self.epsilon is None or self.noise is None:
            return self.epsilon, self.noise_multiplier
        if self.noise_multiplier is not None or self.sigma is not None:
            raise ValueError(
                f"give one of epsilon (the total budget), noise_multiplier or sigma, got epsilon={self.epsilon!r}, "
                f"noise_multiplier={self.noise_multiplier!r}, sigma={self.sigma!r}"
            )
        epsilon = positive_number(self.epsilon, "epsilon")
        T = positive_integer(self.n_iterations, "n_iterations")
        if self.noise == "output" and self.sensitivity == "safe":
            delta = positive_number(self.delta, "delta")
            z = calibrate_noise_multiplier(epsilon, delta, count=T, accountant=ExactGaussianAccountant)
            return None, float(z)
        return epsilon / T, self.noise_multiplier

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """xᵀw per row (the sum of the parties' shares), shape (n,); positive means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """``classes_[1]`` iff xᵀw ≥ 0."""
        return self.classes_[(self.decision_function(X) >= 0).astype(int)]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """[1 − σ(xᵀw), σ(xᵀw)] per row."""
        positive = 0.5 * (1.0 + np.tanh(0.5 * self.decision_function(X)))
        return np.column_stack([1.0 - positive, positive])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
