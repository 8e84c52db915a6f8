"""One agent's share of a problem: its own records only, with the public constants its updates use.

The share is a one-agent ``HorizontalProblem`` over the agent's rows of the partition (with the same
padding, so every product has the same length as in the vectorised run) whose λ is the global λ/N,
so f_i = (1/m_i) Σ ℓ + (λ/N) R is computed with the same floating-point operations as in process.
The seed-scale functions of a ``DecentralizedProblem`` (C·f_i, and ρ/N in the Hessian) are provided
from the global C and ρ/N.
"""

from __future__ import annotations

import numpy as np

from solvers.datasets import HorizontalPartition
from solvers.problem import HorizontalProblem
from solvers.topology import StarTopology

__all__ = ["AgentShare"]


class AgentShare:
    """Agent ``agent``'s records of ``problem`` and nothing of the other agents' data.

    Attribute access falls through to the one-agent problem (``local_gradient``, ``regularizer``,
    ``local_smoothness`` ...), whose agents axis has length 1.
    """

    def __init__(self, problem: HorizontalProblem, agent: int) -> None:
        p, rows = problem.partition, slice(agent, agent + 1)
        partition = HorizontalPartition(
            X=p.X[rows], y=p.y[rows], mask=p.mask[rows], sizes=p.sizes[rows], indices=p.indices[rows]
        )
        self.agent = agent
        self.local = HorizontalProblem(
            partition=partition,
            loss=problem.loss,
            regularizer=problem.regularizer,
            lam=problem.lam / problem.n_agents,
            topology=StarTopology(1),
        )
        self.C = float(getattr(problem, "C", 1.0))
        self._rho_over_n = problem.rho / problem.n_agents if hasattr(problem, "rho") else None

    def __getattr__(self, name: str):
        if name == "local" or name.startswith("__"):  # not set yet (unpickling)
            raise AttributeError(name)
        return getattr(self.local, name)

    def local_objective_seed(self, f: np.ndarray) -> np.ndarray:
        """O(f_i, D_i) = C·f_i(f_i), shape (..., 1)."""
        return self.C * self.local.local_objective(f)

    def local_gradient_seed(self, f: np.ndarray) -> np.ndarray:
        """∇O(f_i, D_i), shape (..., 1, d)."""
        return self.C * self.local.local_gradient(f)

    def local_hessian_seed(self, f: np.ndarray) -> np.ndarray:
        """∇²O(f_i, D_i) = C ∇²(mean loss) + (ρ/N) I for the l2 regulariser, shape (..., 1, d, d)
        (a ``DecentralizedProblem``'s share only)."""
        if self._rho_over_n is None:
            raise TypeError("local_hessian_seed needs the share of a DecentralizedProblem (which has ρ)")
        H = self.C * self.local.local_loss_hessian(f)
        H += self._rho_over_n * self.local.regularizer.hessian_bound * np.eye(self.local.n_features)
        return H
