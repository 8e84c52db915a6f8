"""Who talks to whom: the communication topology of a distributed solver.

A topology names the parties and says who receives each agent's messages, which is what an
adversary model needs (the transcript records messages; the topology says who saw them). Agents are
the integers 0..N−1 (the participant ids of the ledger); a central node, if any, is a string.

Implemented: :class:`StarTopology` (DP-ADMM, Huang et al. 2020): N agents and one central trainer; agents
talk only to the trainer, which broadcasts to every agent.

Extension points (not implemented here):
  - ``GraphTopology(adjacency)`` for the decentralized algorithms of Zhang, Khalili & Liu 2018 and 2020 and
    Wang et al. 2020: no server (``server`` is None), ``adjacency`` an undirected connected graph,
    ``recipients(i)`` the neighbours of i. It would add ``laplacian()`` (D − A) and
    ``signless_laplacian()`` (D + A), which the vectorised updates (the matrix forms (20)–(23) of
    Zhang, Khalili & Liu 2020 and (7)–(10) of Wang et al. 2020) use as (N, N) matrices acting on
    (..., N, d) arrays.
  - Vertically partitioned features (Hu et al. 2019) keep a star (the server holds the labels); what
    changes is the problem (each agent holds columns, not rows), not the topology.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Hashable

import numpy as np

from accountants.constraints import Integer, validate_parameters

__all__ = ["StarTopology", "Topology"]


class Topology(ABC):
    """The parties of a protocol and who receives whose messages."""

    @property
    @abstractmethod
    def n_agents(self) -> int:
        """Number of agents N (participants 0..N−1)."""

    @property
    @abstractmethod
    def server(self) -> str | None:
        """Id of the central node, or None for a peer-to-peer topology."""

    @property
    @abstractmethod
    def adjacency(self) -> np.ndarray:
        """(N, N) read-only bool matrix of direct agent-to-agent links (symmetric, no self-loops)."""

    @abstractmethod
    def recipients(self, agent: int) -> tuple[Hashable, ...]:
        """The parties that receive the messages ``agent`` sends."""

    @property
    def degrees(self) -> np.ndarray:
        """(N,) number of agent neighbours of each agent."""
        return self.adjacency.sum(axis=1)

    def _check_agent(self, agent: object) -> int:
        if isinstance(agent, bool) or not isinstance(agent, numbers.Integral) or not (0 <= int(agent) < self.n_agents):
            raise ValueError(f"agent must be an integer in [0, {self.n_agents}), got {agent!r}")
        return int(agent)


class StarTopology(Topology):
    """N agents around one central trainer (Huang et al. 2020, Sec. II-A): agents send to the trainer
    only, and the trainer broadcasts the global model to every agent.

    Args:
      n_agents: number of agents N ≥ 1.
    """

    SERVER = "trainer"

    @validate_parameters(n_agents=Integer(1))
    def __init__(self, n_agents: int) -> None:
        self._n_agents: int = int(n_agents)
        adjacency = np.zeros((self._n_agents, self._n_agents), dtype=bool)
        adjacency.setflags(write=False)
        self._adjacency: np.ndarray = adjacency

    @property
    def n_agents(self) -> int:
        return self._n_agents

    @property
    def server(self) -> str:
        return self.SERVER

    @property
    def adjacency(self) -> np.ndarray:
        """No agent-to-agent links in a star."""
        return self._adjacency

    def recipients(self, agent: int) -> tuple[Hashable, ...]:
        """Only the trainer receives an agent's message (an eavesdropper may see it too)."""
        self._check_agent(agent)
        return (self.SERVER,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StarTopology) and other.n_agents == self.n_agents

    def __hash__(self) -> int:
        return hash((StarTopology, self._n_agents))

    def __repr__(self) -> str:
        return f"StarTopology(n_agents={self._n_agents})"
