"""Routing released messages along a graph's edges: what each node of a decentralized protocol
receives in a round (its neighbours' broadcasts and its own), the coordinator's pieces of the graph
families (decentralized ADMM, PDML; ``solvers.engine.step``) written once in :class:`GraphRouting`."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from solvers.engine.plan import RunPlan
from solvers.engine.step import Agents
from solvers.graph import GraphTopology
from solvers.problem import HorizontalProblem

__all__ = ["Broadcasts", "GraphRouting", "required"]


#: What one node receives in a round: (its senders, their broadcasts (R, k, d)).
Broadcasts = tuple[np.ndarray, np.ndarray]


def required(value: np.ndarray | None, what: str) -> np.ndarray:
    """``value``, which an earlier round of the protocol has set (``what`` names it)."""
    if value is None:
        raise RuntimeError(f"{what} is not set: the rounds of a chunk must run in order from round 0")
    return value


class GraphRouting:
    """The coordinator's pieces of a family whose nodes broadcast on the problem's ``GraphTopology``: its
    state is (the broadcasts (R, N, d) of round t−1, the duals), None before round 0; node i receives its
    senders (itself and its neighbours, sorted) and their broadcasts (R, k, d), and reads them as an
    (R, N, d) array, zeros elsewhere (N: the columns of its data's ``adjacency`` rows)."""

    def coordinator_state(self, problem: HorizontalProblem, plan: RunPlan[Any], n_trials: int) -> Any:
        return None

    def inbound(self, problem: HorizontalProblem, plan: RunPlan[Any], k: int, state: Any) -> np.ndarray | None:
        return None if state is None else state[0]

    def route(self, problem: HorizontalProblem, message: np.ndarray | None, agent: int) -> Broadcasts | None:
        graph = cast(GraphTopology, problem.topology)  # the family's check_problem refuses any other topology
        senders = np.array(sorted({agent, *graph.neighbours(agent)}), dtype=np.int64)
        return None if message is None else (senders, message[:, senders])

    def delivered(self, agents: Agents, routed: Broadcasts | None) -> np.ndarray | None:
        if routed is None:
            return None
        senders, values = routed
        out = np.zeros((values.shape[0], agents.data.adjacency.shape[1], values.shape[2]))
        out[:, senders] = values
        return out
