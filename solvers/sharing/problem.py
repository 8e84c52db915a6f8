"""The learning problem over vertically partitioned features (Hu et al. 2019, Sec. 2).

Objective ((1) of Hu et al. 2019 with the mean loss: this toolkit's scaling, on which every constant depends):

    F(x) = l(Σ_m D_m x_m) + λ Σ_m R_m(x_m),    l(z) = (1/N) Σ_i φ(Y_i z_i),

with φ the margin loss (logistic: log(1 + e^{−t})) and R_m = R restricted to party m's columns
(R = ½‖·‖² by default, so R(x) = Σ_m R_m(x_m)). One λ is shared by every party. With l2 this is
scikit-learn's ``LogisticRegression(C=1/(λN), fit_intercept=False)`` divided by CN, so C = 1 is
λ = 1/N (the toolkit's default; the paper gives no λ), and the two minimisers coincide.

Every evaluation takes the full model x (..., d) in the original column order and is vectorised
over leading axes (trials).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import numpy as np

from accountants.constraints import Positive
from solvers.centralized import regularized_erm
from solvers.datasets import check_dataset, first_row_outside
from solvers.engine.blas import BLAS_THREADS, blas_threads
from solvers.losses import LogisticLoss, MarginLoss
from solvers.problem import Optimum
from solvers.regularizers import L1Regularizer, L2Regularizer, Regularizer
from solvers.sharing.partition import VerticalPartition, check_vertical_partition
from solvers.topology import StarTopology

__all__ = ["BlockSVD", "VerticalProblem", "effective_lam", "vertical_optimum"]


@dataclass(frozen=True)
class BlockSVD:
    """Thin SVDs D_m = U_m diag(s_m) V_mᵀ of the padded blocks, stacked (K = min(N, d_max)).

    Padded columns and rank deficiency (a9a's one-hot groups, against the full column rank
    that Assumption 1.1 of Hu et al. 2019 asks for) show up as s = 0; ``rank``
    counts s > ``tolerance``·s_max (numpy's matrix_rank rule) per party.
    """

    U: np.ndarray  # (M, N, K)
    s: np.ndarray  # (M, K)
    Vt: np.ndarray  # (M, K, d_max)
    rank: np.ndarray  # (M,)
    in_range: np.ndarray  # (M, K) bool, s above the rank tolerance


@dataclass(frozen=True, eq=False)
class VerticalProblem:
    """Regularised ERM over M parties holding column blocks of the same N samples.

    Args:
      partition: the parties' blocks and the server's labels (``VerticalPartition``).
      loss: margin loss φ (default logistic).
      regularizer: R (``L2Regularizer`` ½‖·‖², or ``L1Regularizer``).
      lam: λ > 0; None gives the toolkit's default 1/N (sklearn's C = 1).
      X_test, y_test: optional test set, full rows (n_test, d) in the partition's original column
        order, labels ±1 (test log loss and accuracy).
      optimum: optional reference minimiser (``vertical_optimum``).

    The topology is a star of the M parties around the label-holding server (Algorithm 1 of Hu et al.
    2019).
    """

    partition: VerticalPartition
    loss: MarginLoss = field(default_factory=LogisticLoss)
    regularizer: Regularizer = field(default_factory=L2Regularizer)
    lam: float | None = None
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    optimum: Optimum | None = None

    def __post_init__(self) -> None:
        # The partition's constructor checked it; check again so that every route into a problem
        # (a partition unpickled, or built around __init__) meets the same check.
        check_vertical_partition(self.partition, "partition")
        if not isinstance(self.loss, MarginLoss):
            raise TypeError(f"loss must be a solvers.losses.MarginLoss, got {self.loss!r}")
        if not isinstance(self.regularizer, (L2Regularizer, L1Regularizer)):
            raise TypeError(f"regularizer must be L2Regularizer or L1Regularizer, got {self.regularizer!r}")
        lam = 1.0 / self.partition.n_samples if self.lam is None else self.lam
        Positive().check(lam, "lam")
        object.__setattr__(self, "lam", float(lam))
        if (self.X_test is None) != (self.y_test is None):
            raise ValueError("X_test and y_test must be given together")
        if self.X_test is not None:
            checked = check_dataset(self.X_test, self.y_test, max_norm=None)
            if checked.X.shape[1] != self.n_features:
                raise ValueError(
                    f"X_test must have the partition's {self.n_features} columns, got {checked.X.shape[1]}"
                )
            for name, array in (("X_test", checked.X), ("y_test", checked.y)):
                array = np.array(array, copy=True)
                array.setflags(write=False)
                object.__setattr__(self, name, array)
        if self.optimum is not None and not isinstance(self.optimum, Optimum):
            raise TypeError(f"optimum must be an Optimum or None, got {self.optimum!r}")

    def with_optimum(self, optimum: Optimum) -> VerticalProblem:
        """A copy carrying the reference ``optimum``."""
        return replace(self, optimum=optimum)

    # --------------------------------------------------------------------------------------------
    @property
    def n_parties(self) -> int:
        """M."""
        return self.partition.n_parties

    @property
    def n_agents(self) -> int:
        """M (the framework's name for the senders; ``Recorder`` and ``Transcript`` use it)."""
        return self.partition.n_parties

    @property
    def n_samples(self) -> int:
        """N."""
        return self.partition.n_samples

    @property
    def n_features(self) -> int:
        """d."""
        return self.partition.n_features

    @property
    def has_test(self) -> bool:
        return self.X_test is not None

    @functools.cached_property
    def topology(self) -> StarTopology:
        """The M parties around the server (which holds the labels)."""
        return StarTopology(self.n_parties)

    @property
    def sklearn_C(self) -> float:
        """C of scikit-learn's ``LogisticRegression(C=C, fit_intercept=False)`` with the same minimiser."""
        return 1.0 / (effective_lam(self) * self.n_samples)

    def check_feature_bound(self, bound: float = 1.0) -> None:
        """Raise unless every party's every row has ‖D_m^i‖₂ ≤ ``bound`` (Assumption 2.3 of Hu et al. 2019,
        and the premise of Δ_safe = 2√N b_1)."""
        norms = self.partition.max_row_norms()
        if first_row_outside(norms, bound) is not None:  # NaN-safe
            m = int(norms.argmax())
            raise ValueError(
                f"problem.partition: party {m} has a row of L2 norm {norms[m]:.6g} > {bound:g}; the privacy "
                f"analysis assumes every ‖D_m^i‖ ≤ {bound:g}: scale the rows (e.g. "
                "solvers.datasets.scale_rows_to_unit_ball on the full rows) before partitioning"
            )

    @functools.cached_property
    def block_svd(self) -> BlockSVD:
        """Thin SVDs of the parties' blocks, computed once (the x-update's cached factorisation)."""
        with blas_threads(BLAS_THREADS):
            U, s, Vt = np.linalg.svd(self.partition.D, full_matrices=False)
        tolerance = s[:, :1] * max(self.n_samples, self.partition.max_width) * np.finfo(float).eps
        in_range = s > tolerance
        for array in (U, s, Vt, in_range):
            array.setflags(write=False)
        return BlockSVD(U=U, s=s, Vt=Vt, rank=in_range.sum(axis=1), in_range=in_range)

    # --------------------------------------------------------------------------------------------
    def margins(self, x: np.ndarray) -> np.ndarray:
        """Σ_m D_m x_m = D x, shape (..., N)."""
        x = self._check_x(x)
        return x @ self.partition.X.T

    def loss_value(self, x: np.ndarray) -> np.ndarray:
        """l(Dx) = (1/N) Σ_i φ(Y_i (Dx)_i), shape (...)."""
        return self._mean_loss(self.margins(x), self.partition.y)

    def objective(self, x: np.ndarray) -> np.ndarray:
        """F(x) = l(Dx) + λ R(x), shape (...)."""
        x = self._check_x(x)
        return self.loss_value(x) + self.lam * self.regularizer.value(x)

    def test_log_loss(self, x: np.ndarray) -> np.ndarray:
        """Test loss (1/N_te) Σ_i φ(Y_i (D^te x)_i) (log loss for the logistic φ), shape (...)."""
        X_test, y_test = self._need_test()
        x = self._check_x(x)
        return self._mean_loss(x @ X_test.T, y_test)

    def accuracy(self, x: np.ndarray) -> np.ndarray:
        """Test accuracy of sign(D^te x), ties predicted +1, shape (...)."""
        X_test, y_test = self._need_test()
        x = self._check_x(x)
        positive = x @ X_test.T >= 0
        return np.mean(positive == (y_test > 0), axis=-1)

    def _mean_loss(self, margins: np.ndarray, labels: np.ndarray) -> np.ndarray:
        t = labels * margins
        if type(self.loss) is LogisticLoss:  # log(1 + e^{−t}) = log1p(e^{−|t|}) − min(t, 0), fast and stable
            return np.mean(np.log1p(np.exp(-np.abs(t))) - np.minimum(t, 0.0), axis=-1)
        return np.mean(self.loss.phi(t), axis=-1)

    def _need_test(self) -> tuple[np.ndarray, np.ndarray]:
        """(X_test, y_test), or ValueError without a test set."""
        if self.X_test is None or self.y_test is None:  # given together (__post_init__)
            raise ValueError("this metric needs a test set: build the problem with X_test and y_test")
        return self.X_test, self.y_test

    def _check_x(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if x.shape[-1:] != (self.n_features,):
            raise ValueError(f"x must have shape (..., d) = (..., {self.n_features}), got {x.shape}")
        return x


def effective_lam(problem: VerticalProblem) -> float:
    """``problem.lam``, a float once the problem is built (``lam=None`` is resolved to 1/N)."""
    if problem.lam is None:
        raise ValueError("VerticalProblem.lam is resolved when the problem is built, got None")
    return problem.lam


def vertical_optimum(problem: VerticalProblem, *, tol: float = 1e-10) -> Optimum:
    """The minimiser of F on the pooled columns: the centralized reference of ADMM sharing.

    l2: damped Newton to ‖∇F‖ ≤ ``tol`` (``solvers.centralized.regularized_erm``; when d > N, e.g.
    the 5,000-feature gisette stand-in, Newton steps solve an N×N system by the Woodbury identity
    instead of the d×d Hessian). l1: FISTA. For l2 the minimiser is that of
    ``sklearn.linear_model.LogisticRegression(C=problem.sklearn_C, fit_intercept=False)``.
    """
    if not isinstance(problem, VerticalProblem):
        raise TypeError(f"problem must be a VerticalProblem, got {type(problem).__name__}")
    with blas_threads(BLAS_THREADS):
        if isinstance(problem.regularizer, L2Regularizer) and problem.n_features > problem.n_samples:
            w, residual, iterations = _woodbury_newton(problem, tol)
            return Optimum(w, float(problem.objective(w)), residual, iterations, "newton-woodbury")
        solution = regularized_erm(
            problem.partition.X,
            problem.partition.y,
            loss=problem.loss,
            regularizer=problem.regularizer,
            reg=effective_lam(problem),
            tol=tol,
        )
    return Optimum(
        solution.w, float(problem.objective(solution.w)), solution.residual, solution.iterations, solution.method
    )


def _woodbury_newton(problem: VerticalProblem, tol: float, max_iter: int = 100) -> tuple[np.ndarray, float, int]:
    """Damped Newton for F(w) = (1/N) Σ φ(y_i x_iᵀw) + (λ/2)‖w‖² with d > N.

    The Newton system (XᵀWX + λI) p = g is solved as p = (g − XᵀS (λI + S X Xᵀ S)^{-1} S X g)/λ,
    S = W^{1/2} (W = diag(φ''/N)), an N×N solve.
    """
    X, y, lam, loss = problem.partition.X, problem.partition.y, effective_lam(problem), problem.loss
    n = problem.n_samples
    gram = X @ X.T
    w = np.zeros(problem.n_features)
    for iteration in range(max_iter + 1):
        t = y * (X @ w)
        gradient = X.T @ (y * loss.dphi(t)) / n + lam * w
        residual = float(np.linalg.norm(gradient))
        if residual <= tol:
            return w, residual, iteration
        root = np.sqrt(loss.d2phi(t) / n)
        inner = lam * np.eye(n) + root[:, None] * gram * root[None, :]
        step = -(gradient - X.T @ (root * np.linalg.solve(inner, root * (X @ gradient)))) / lam
        value, slope, scale = float(problem.objective(w)), float(gradient @ step), 1.0
        for _ in range(60 if -slope > 1e-12 * (1.0 + abs(value)) else 0):  # Armijo, unless below rounding
            if float(problem.objective(w + scale * step)) <= value + 1e-4 * scale * slope:
                break
            scale *= 0.5
        w = w + scale * step
    raise RuntimeError(f"vertical_optimum: Newton did not reach ‖∇F‖ ≤ {tol:g} in {max_iter} steps (at {residual:.3e})")
