"""The engine's hooks for problems whose agents hold records (``HorizontalProblem``).

:class:`HorizontalSolver` is a ``solvers.engine.Solver`` on a ``HorizontalProblem`` (or a subclass
such as ``DecentralizedProblem``) recording into a ``solvers.horizontal_recorder.Recorder`` (objective,
consensus, accuracy …), with each agent's share of the records (``share``, for the agent backends).
A family's hooks are listed in ``solvers.engine.step``.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from solvers.agent_share import AgentShare
from solvers.engine.plan import RunPlan
from solvers.engine.recording import RecordOptions
from solvers.engine.solver import Solver
from solvers.horizontal_recorder import Recorder
from solvers.problem import HorizontalProblem

__all__ = ["HorizontalSolver"]

#: A problem whose agents hold records: ``HorizontalProblem`` or a subclass.
HP = TypeVar("HP", bound=HorizontalProblem)


class HorizontalSolver(Solver[HP, Recorder]):
    """Base class of the solvers on problems whose agents hold records (``HorizontalProblem``)."""

    def make_recorder(self, problem: HP, plan: RunPlan[Any], n_trials: int, options: RecordOptions) -> Recorder:
        return Recorder(problem, self.channels, plan.n_iterations, n_trials, options)

    def share(self, problem: HP, agent: int) -> Any:
        """Agent ``agent``'s records of ``problem`` (``solvers.agent_share``), for the agent backends."""
        return AgentShare(problem, agent)

    def bytes_per_trial(self, problem: HP, plan: RunPlan[Any]) -> int:
        """Memory one trial adds to a chunk: its noise and the (N, m) margins."""
        n_agents, width = problem.partition.X.shape[:2]
        return 8 * (int(np.prod(plan.noise_shape)) + 3 * n_agents * width)
