"""The decentralized ERM problem on the papers' scale (Zhang, Khalili & Liu 2020, Sec. V; Zhang, Khalili & Liu
2018, eq. (1)).

Node i holds B_i records and the local objective
    O(f, D_i) = (C/B_i) Σ_n L(y_n fᵀx_n) + (ρ/N) R(f),
and the network minimises Σ_i O(f, D_i). This is ``C`` times the framework's
``HorizontalProblem`` objective with λ = ρ/C (f_i = (1/m_i) Σ ℓ + (λ/N) R), so
:class:`DecentralizedProblem` *is* a ``HorizontalProblem`` (every framework metric, the recorder
and ``centralized_optimum`` apply unchanged; the minimiser is the same) that also carries C and a
``GraphTopology``, and exposes the paper-scale O, ∇O, ∇²O per node on (..., N, d) arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from accountants.constraints import Positive
from solvers.datasets import HorizontalPartition
from solvers.graph import GraphTopology
from solvers.problem import HorizontalProblem

__all__ = ["DecentralizedProblem"]


@dataclass(frozen=True, eq=False)
class DecentralizedProblem(HorizontalProblem):
    """``HorizontalProblem`` with λ = ρ/C on a ``GraphTopology``, plus the papers' constant C.

    Build it with :meth:`create` (which takes C and ρ); the fields are the framework's plus ``C``.
    ``objective_seed(f) = C · objective(f)`` is Σ_i O(f, D_i).
    """

    C: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        Positive().check(self.C, "C")
        object.__setattr__(self, "C", float(self.C))
        if not isinstance(self.topology, GraphTopology):
            raise ValueError(
                f"topology must be a solvers.graph.GraphTopology for a decentralized problem, got {self.topology!r}"
            )

    @classmethod
    def create(
        cls, partition: HorizontalPartition, graph: GraphTopology, *, C: float, rho: float, **kwargs
    ) -> DecentralizedProblem:
        """The problem with O(f, D_i) = (C/B_i) Σ L + (ρ/N) R on ``graph`` (kwargs: loss,
        regularizer, X_test, y_test, optimum)."""
        Positive().check(rho, "rho")
        Positive().check(C, "C")
        return cls(partition=partition, topology=graph, lam=float(rho) / float(C), C=float(C), **kwargs)

    @property
    def rho(self) -> float:
        """ρ of the papers' objective (= λ·C)."""
        return self.lam * self.C

    @property
    def graph(self) -> GraphTopology:
        return cast(GraphTopology, self.topology)  # __post_init__ refuses any other topology

    # Seed-scale objective, per node on (..., N, d) and global on (..., d).
    def objective_seed(self, f: np.ndarray) -> np.ndarray:
        """Σ_i O(f, D_i) for a global f (..., d)."""
        return self.C * self.objective(f)

    def local_objective_seed(self, f: np.ndarray) -> np.ndarray:
        """O(f_i, D_i), shape (..., N)."""
        return self.C * self.local_objective(f)

    def local_gradient_seed(self, f: np.ndarray) -> np.ndarray:
        """∇O(f_i, D_i), shape (..., N, d)."""
        return self.C * self.local_gradient(f)

    def local_hessian_seed(self, f: np.ndarray) -> np.ndarray:
        """∇²O(f_i, D_i) = (C/B_i) Σ L'' x xᵀ + (ρ/N) I, shape (..., N, d, d) (l2 regulariser)."""
        H = self.C * self.local_loss_hessian(f)
        H += (self.rho / self.n_agents) * self.regularizer.hessian_bound * np.eye(self.n_features)
        return H
