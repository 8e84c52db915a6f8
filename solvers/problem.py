"""The distributed learning problem with horizontally partitioned data (Huang et al. 2020; Zhang, Khalili & Liu
2018 and 2020; Wang et al. 2020).

Agent i holds m_i records and the local objective (Huang et al. 2020, Sec. V)
    f_i(w) = (1/m_i) Σ_j ℓ(x_ij, y_ij, w) + (λ/N) R(w),
and the global objective is F(w) = Σ_i f_i(w) (problem (1a)–(1b) at consensus w_i = w). With equal
m_i, F = N·(pooled mean loss) + λR, whose minimiser is that of the pooled mean loss + (λ/N) R.

Every evaluation is vectorised over leading axes (trials, agents): ``objective`` takes w (..., d),
the ``local_*`` methods take one model per agent, w (..., N, d). Internally the agents' data are
multiplied in one batched matrix product per call, with the trials as the last axis, and logistic
loss values and derivatives are computed in place (``_phi``, ``_dphi``, ``_d2phi``), checked
against ``solvers.losses`` in the tests.

Extension point: vertically partitioned features (Hu et al. 2019) need a ``VerticalProblem`` (each agent
holds a block of columns of the same rows, the server the labels) with its own evaluation methods;
solvers check the problem type they support, so the two never mix.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

import numpy as np

from accountants.constraints import Positive
from solvers.datasets import (
    HorizontalPartition,
    check_dataset,
    check_horizontal_partition,
    first_row_outside,
    partition_horizontal,
)
from solvers.losses import LogisticLoss, MarginLoss
from solvers.regularizers import L2Regularizer, Regularizer
from solvers.topology import StarTopology, Topology

__all__ = ["HorizontalProblem", "Optimum"]

#: A HorizontalProblem or a subclass (``with_optimum`` keeps the class).
_Problem = TypeVar("_Problem", bound="HorizontalProblem")

# Bound the (N, b, d, m) temporary of a batched Hessian to about this many bytes.
_HESSIAN_TEMP_BYTES = 64 * 2**20


@dataclass(frozen=True)
class Optimum:
    """A reference minimiser of F computed centrally (see ``solvers.centralized_optimum``).

    Attributes:
      w: the minimiser w*, shape (d,).
      objective: F(w*) on the paper's scale (sum over agents).
      residual: optimality residual at w* (gradient norm, or prox-gradient mapping norm for a
        non-smooth regularizer).
      iterations: iterations the solver took.
      method: the algorithm used, e.g. "newton" or "fista".
    """

    w: np.ndarray
    objective: float
    residual: float
    iterations: int
    method: str


@dataclass(frozen=True, eq=False)
class HorizontalProblem:
    """Regularised ERM over N agents holding disjoint records (all features each).

    Args:
      partition: the agents' data, ``solvers.datasets.HorizontalPartition``.
      loss: per-record margin loss (default logistic).
      regularizer: R (default ½‖w‖²).
      lam: regularisation weight λ > 0 of the global objective (each agent carries λ/N).
      X_test, y_test: optional test set for accuracy, labels ±1.
      X_public, y_public: optional public records (Huang et al. 2020, Table II: the 162
        "pre-training" rows), used only for data-independent quantities such as D_w; never part of the objective.
      optimum: optional reference minimiser (``with_optimum`` / ``solvers.centralized_optimum``).
      topology: who talks to whom; default ``StarTopology(N)``.

    Raises:
      TypeError, ValueError: bad arguments (the message names the argument).
    """

    partition: HorizontalPartition
    loss: MarginLoss = field(default_factory=LogisticLoss)
    regularizer: Regularizer = field(default_factory=L2Regularizer)
    lam: float = 0.17
    X_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    X_public: np.ndarray | None = None
    y_public: np.ndarray | None = None
    optimum: Optimum | None = None
    topology: Topology | None = None

    def __post_init__(self) -> None:
        # The partition's own constructor checked it; check again here so that every route into a
        # problem (a partition unpickled, or built around __init__) meets the same check.
        check_horizontal_partition(self.partition, "partition")
        if not isinstance(self.loss, MarginLoss):
            raise TypeError(f"loss must be a solvers.losses.MarginLoss, got {self.loss!r}")
        if not isinstance(self.regularizer, Regularizer):
            raise TypeError(f"regularizer must be a solvers.regularizers.Regularizer, got {self.regularizer!r}")
        Positive().check(self.lam, "lam")
        object.__setattr__(self, "lam", float(self.lam))
        for prefix in ("test", "public"):
            X, y = getattr(self, f"X_{prefix}"), getattr(self, f"y_{prefix}")
            if (X is None) != (y is None):
                raise ValueError(f"X_{prefix} and y_{prefix} must be given together")
            if X is not None:
                checked = check_dataset(X, y, max_norm=None)
                if checked.X.shape[1] != self.n_features:
                    raise ValueError(
                        f"X_{prefix} must have {self.n_features} features like the partition, got {checked.X.shape[1]}"
                    )
                object.__setattr__(self, f"X_{prefix}", _read_only(checked.X))
                object.__setattr__(self, f"y_{prefix}", _read_only(checked.y))
        if self.optimum is not None and not isinstance(self.optimum, Optimum):
            raise TypeError(f"optimum must be an Optimum or None, got {self.optimum!r}")
        topology = StarTopology(self.n_agents) if self.topology is None else self.topology
        if not isinstance(topology, Topology) or topology.n_agents != self.n_agents:
            raise ValueError(f"topology must be a Topology over {self.n_agents} agents, got {topology!r}")
        object.__setattr__(self, "topology", topology)

    @classmethod
    def from_data(
        cls,
        X: np.ndarray,
        y: np.ndarray,
        n_agents: int,
        *,
        seed: int | np.random.Generator | None,
        sizes: Sequence[int] | np.ndarray | None = None,
        clip: bool = False,
        **kwargs,
    ) -> HorizontalProblem:
        """Validate (X, y) (labels ±1, every ‖x‖ ≤ 1 unless ``clip``), split the records at random
        over ``n_agents`` agents (``partition_horizontal``) and build the problem; ``kwargs`` are
        the remaining fields (loss, regularizer, lam, X_test, ...)."""
        checked = check_dataset(X, y, max_norm=1.0, clip=clip)
        partition = partition_horizontal(checked.X, checked.y, n_agents, seed=seed, sizes=sizes)
        return cls(partition=partition, **kwargs)

    def with_optimum(self: _Problem, optimum: Optimum) -> _Problem:
        """A copy of this problem (of the same class) carrying the reference ``optimum``."""
        return replace(self, optimum=optimum)

    # ------------------------------------------------------------------------------------------
    @property
    def n_agents(self) -> int:
        """Number of agents N."""
        return self.partition.n_agents

    @property
    def n_features(self) -> int:
        """Feature dimension d."""
        return self.partition.n_features

    @property
    def sizes(self) -> np.ndarray:
        """(N,) records per agent m_i."""
        return self.partition.sizes

    @property
    def has_test(self) -> bool:
        return self.X_test is not None

    @functools.cached_property
    def max_feature_norm(self) -> float:
        """Largest ‖x_ij‖₂ over the agents' records."""
        return float(np.sqrt(np.einsum("nmd,nmd->nm", self.partition.X, self.partition.X).max()))

    def check_feature_bound(self, bound: float = 1.0) -> None:
        """Raise if some record has ‖x‖ > bound: the privacy analyses assume ‖x‖ ≤ 1 (S1 = 1 in
        Huang et al. 2020, Sec. VI; Theorem V.1 of Zhang, Khalili & Liu 2020; Theorem 4.1 of Zhang, Khalili & Liu
        2018), so a solver that relies on it calls this before its first release."""
        norms = np.sqrt(np.einsum("nmd,nmd->nm", self.partition.X, self.partition.X))
        if first_row_outside(norms, bound) is not None:  # NaN-safe; reports the largest norm
            agent, slot = np.unravel_index(int(norms.argmax()), norms.shape)
            raise ValueError(
                f"problem.partition.X: agent {agent}'s record {slot} has L2 norm "
                f"{norms[agent, slot]:.6g} > {bound:g}; the privacy analysis assumes every "
                f"‖x‖ ≤ {bound:g}: normalise the rows, or build the problem with "
                "HorizontalProblem.from_data(..., clip=True)"
            )

    @functools.cached_property
    def local_smoothness(self) -> np.ndarray:
        """(N,) L_i ≥ ‖∇²(mean loss_i)‖: curvature bound × λ_max((1/m_i) Σ_j x_ij x_ijᵀ)."""
        X, weights = self.partition.X, self._weights
        gram = np.einsum("nmd,nm,nme->nde", X, weights, X)
        return self.loss.curvature_bound * np.linalg.eigvalsh(gram)[:, -1]

    # ------------------------------------------------------------------------------------------
    # Global model w (..., d).
    def objective(self, w: np.ndarray) -> np.ndarray:
        """F(w) = Σ_i f_i(w) = Σ_i (1/m_i) Σ_j ℓ_ij(w) + λR(w), shape (...) (paper's scale)."""
        w = self._check_w(w, local=False)
        return self.empirical_loss(w) + self.lam * self.regularizer.value(w)

    def empirical_loss(self, w: np.ndarray) -> np.ndarray:
        """Σ_i (1/m_i) Σ_j ℓ_ij(w) without the regularizer, shape (...): the "quality" measure
        of Huang et al. 2020, Sec. VI."""
        w = self._check_w(w, local=False)
        lead, flat = w.shape[:-1], w.reshape(-1, self.n_features)
        z = self._Xy_flat @ flat.T  # (N·m, B)
        # einsum, not weights @ φ: OpenBLAS's threaded (n,)@(n, B) can stall for milliseconds.
        return np.einsum("j,jb->b", self._weights_flat, _phi(self.loss, z)).reshape(lead)

    def accuracy(self, w: np.ndarray) -> np.ndarray:
        """Test accuracy of sign(wᵀx) with ties wᵀx = 0 predicted +1, shape (...) (the logistic rule of Huang
        et al. 2020, Sec. VI; the tie rule is this toolkit's)."""
        X_test, y_test = self.X_test, self.y_test
        if X_test is None or y_test is None:  # given together (__post_init__)
            raise ValueError("accuracy needs a test set: build the problem with X_test and y_test")
        w = self._check_w(w, local=False)
        lead, flat = w.shape[:-1], w.reshape(-1, self.n_features)
        predicted_positive = X_test @ flat.T >= 0  # (n_test, B)
        correct = predicted_positive == (y_test > 0)[:, None]
        return (np.count_nonzero(correct, axis=0) / y_test.shape[0]).reshape(lead)

    # ------------------------------------------------------------------------------------------
    # One model per agent w (..., N, d).
    def local_loss(self, w: np.ndarray) -> np.ndarray:
        """(1/m_i) Σ_j ℓ_ij(w_i) for each agent, shape (..., N)."""
        lead, W = self._local_batch(w)
        values = np.einsum("nm,nmb->bn", self._weights, _phi(self.loss, self._margins(W)))
        return values.reshape(*lead, self.n_agents)

    def local_loss_gradient(self, w: np.ndarray) -> np.ndarray:
        """∇ of (1/m_i) Σ_j ℓ_ij at w_i for each agent, shape (..., N, d)."""
        lead, W = self._local_batch(w)
        gradient = np.matmul(self._XwT, _dphi(self.loss, self._margins(W)))  # (N, d, B)
        return np.ascontiguousarray(gradient.transpose(2, 0, 1)).reshape(*lead, self.n_agents, -1)

    def local_loss_hessian(self, w: np.ndarray) -> np.ndarray:
        """∇² of (1/m_i) Σ_j ℓ_ij at w_i for each agent, shape (..., N, d, d)."""
        lead, W = self._local_batch(w)
        curvature = _d2phi(self.loss, self._margins(W))  # (N, m, B); y² = 1 on real records
        N, m, d = self.partition.X.shape
        batch = curvature.shape[-1]
        hessian = np.empty((N, batch, d, d))
        step = max(1, _HESSIAN_TEMP_BYTES // (8 * N * d * m))
        for start in range(0, batch, step):  # bounded memory; one chunk when batch is small
            part = curvature[:, :, start : start + step].transpose(0, 2, 1)  # (N, b, m)
            hessian[:, start : start + step] = np.matmul(
                self._XwT[:, None, :, :] * part[:, :, None, :], self._Xy[:, None, :, :]
            )
        return hessian.transpose(1, 0, 2, 3).reshape(*lead, N, d, d)

    def local_objective(self, w: np.ndarray) -> np.ndarray:
        """f_i(w_i) = local loss + (λ/N) R(w_i), shape (..., N)."""
        return self.local_loss(w) + (self.lam / self.n_agents) * self.regularizer.value(w)

    def local_gradient(self, w: np.ndarray) -> np.ndarray:
        """g_i = ∇ local loss + (λ/N) R'(w_i) (a subgradient for l1), shape (..., N, d): the
        linearisation of eq. (2)."""
        return self.local_loss_gradient(w) + (self.lam / self.n_agents) * self.regularizer.gradient(w)

    # ------------------------------------------------------------------------------------------
    @functools.cached_property
    def _weights(self) -> np.ndarray:
        """(N, m) per-record weights 1/m_i, 0 on padding."""
        return self.partition.mask / self.partition.sizes[:, None].astype(np.float64)

    @functools.cached_property
    def _weights_flat(self) -> np.ndarray:
        return self._weights.reshape(-1)

    @functools.cached_property
    def _Xy(self) -> np.ndarray:
        """(N, m, d) rows y_ij·x_ij, so that margins are a plain matrix product."""
        return self.partition.X * self.partition.y[..., None]

    @functools.cached_property
    def _Xy_flat(self) -> np.ndarray:
        return self._Xy.reshape(-1, self.n_features)

    @functools.cached_property
    def _XwT(self) -> np.ndarray:
        """(N, d, m) rows (1/m_i)·y_ij·x_ij, transposed: the gradient is _XwT @ φ'(z)."""
        return np.ascontiguousarray((self._Xy * self._weights[..., None]).transpose(0, 2, 1))

    def _margins(self, W: np.ndarray) -> np.ndarray:
        """z_ijb = y_ij x_ijᵀ w_ib for W of shape (N, d, B): (N, m, B)."""
        return np.matmul(self._Xy, W)

    def _local_batch(self, w: np.ndarray) -> tuple[tuple[int, ...], np.ndarray]:
        w = self._check_w(w, local=True)
        lead = w.shape[:-2]
        flat = w.reshape(-1, self.n_agents, self.n_features)
        return lead, np.ascontiguousarray(flat.transpose(1, 2, 0))

    def _check_w(self, w: np.ndarray, local: bool) -> np.ndarray:
        w = np.asarray(w, dtype=np.float64)
        expected = (self.n_agents, self.n_features) if local else (self.n_features,)
        if w.shape[w.ndim - len(expected) :] != expected:
            axes = "(..., N, d)" if local else "(..., d)"
            raise ValueError(f"w must have shape {axes} = (..., {', '.join(map(str, expected))}), got {w.shape}")
        return w


def _phi(loss: MarginLoss, z: np.ndarray) -> np.ndarray:
    """φ(z); overwrites z. Logistic: log(1 + e^{−z}) = log1p(e^{−|z|}) − min(z, 0), in place."""
    if type(loss) is not LogisticLoss:
        return loss.phi(z)
    negative_part = np.minimum(z, 0.0)
    np.abs(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    np.log1p(z, out=z)
    z -= negative_part
    return z


def _dphi(loss: MarginLoss, z: np.ndarray) -> np.ndarray:
    """φ'(z); overwrites z. Logistic: −1/(1 + e^z), in place (e^z = ∞ gives −0)."""
    if type(loss) is not LogisticLoss:
        return loss.dphi(z)
    with np.errstate(over="ignore"):
        np.exp(z, out=z)
    z += 1.0
    np.divide(-1.0, z, out=z)
    return z


def _d2phi(loss: MarginLoss, z: np.ndarray) -> np.ndarray:
    """φ''(z); overwrites z. Logistic: σ(z)σ(−z) = a/(1 + a)² with a = e^{−|z|}, in place."""
    if type(loss) is not LogisticLoss:
        return loss.d2phi(z)
    np.abs(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    denominator = z + 1.0
    denominator *= denominator
    z /= denominator
    return z


def _read_only(array: np.ndarray) -> np.ndarray:
    array = np.array(array, copy=True)
    array.setflags(write=False)
    return array
