"""Peer-to-peer topologies: connected undirected graphs (the networks of Zhang, Khalili & Liu
2018 and 2020 and of Wang et al. 2020).

:class:`GraphTopology` is the ``Topology`` of the decentralized solvers: N agents, no server, and a
message of agent i reaches exactly its neighbours 𝒱_i. The graph is given by its (N, N) adjacency
matrix A (or built by :meth:`GraphTopology.from_edges`, :meth:`ring`, :meth:`complete`,
:meth:`random`), and must be undirected, free of self-loops and connected; anything else is a
``ValueError`` that says what is wrong. The vectorised updates use A, the degree vector V, the
Laplacian D − A and the signless Laplacian D + A as (N, N) matrices acting on (..., N, d) arrays.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable

import numpy as np

from solvers.topology import Topology

__all__ = ["GraphTopology"]


class GraphTopology(Topology):
    """A connected undirected graph over agents 0..N−1 (no server).

    Args:
      adjacency: (N, N) symmetric 0/1 (or bool) matrix with a zero diagonal, N ≥ 2.

    Raises:
      ValueError: not square, not 0/1, asymmetric, a self-loop, an isolated node or a
        disconnected graph (the message names the offending nodes).
    """

    def __init__(self, adjacency: np.ndarray) -> None:
        A = np.asarray(adjacency)
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"adjacency must be a square (N, N) matrix, got shape {A.shape}")
        if A.shape[0] < 2:
            raise ValueError(f"adjacency must have N >= 2 nodes, got N = {A.shape[0]}")
        if A.dtype != bool:
            if not np.all(np.isin(A, (0, 1))):
                raise ValueError("adjacency must hold only 0/1 (or bool) entries")
            A = A.astype(bool)
        loops = np.flatnonzero(np.diag(A))
        if loops.size:
            raise ValueError(f"adjacency has self-loops at node(s) {loops.tolist()}; a graph must have none")
        if not np.array_equal(A, A.T):
            i, j = np.argwhere(A != A.T)[0]
            raise ValueError(f"adjacency must be symmetric (undirected), but a[{i},{j}] != a[{j},{i}]")
        unreached = _unreached(A)
        if unreached:
            raise ValueError(f"the graph is not connected: node(s) {unreached} cannot be reached from node 0")
        A = A.copy()
        A.setflags(write=False)
        self._A = A
        self._neighbours = tuple(tuple(np.flatnonzero(row).tolist()) for row in A)

    # -- constructors ----------------------------------------------------------------------
    @classmethod
    def from_edges(cls, n_agents: int, edges: Iterable[tuple[int, int]]) -> GraphTopology:
        """The graph on nodes 0..n_agents−1 with the given undirected edges (i, j).

        Raises:
          ValueError: an edge names an unknown node or is a self-loop; the graph is disconnected.
        """
        N = _count(n_agents, "n_agents")
        A = np.zeros((N, N), dtype=bool)
        for edge in edges:
            try:
                i, j = edge
            except (TypeError, ValueError):
                raise ValueError(f"edges must be pairs (i, j) of node ids, got {edge!r}") from None
            for node in (i, j):
                if isinstance(node, bool) or not isinstance(node, numbers.Integral) or not 0 <= node < N:
                    raise ValueError(f"edge {edge!r} names unknown node {node!r}; nodes are 0..{N - 1}")
            if i == j:
                raise ValueError(f"edge {edge!r} is a self-loop; a graph must have none")
            A[i, j] = A[j, i] = True
        return cls(A)

    @classmethod
    def ring(cls, n_agents: int) -> GraphTopology:
        """The cycle 0−1−…−(N−1)−0 (N ≥ 3; N = 2 gives the single edge)."""
        N = _count(n_agents, "n_agents")
        return cls.from_edges(N, {_edge(i, (i + 1) % N) for i in range(N)})

    @classmethod
    def complete(cls, n_agents: int) -> GraphTopology:
        """Every pair of agents linked."""
        N = _count(n_agents, "n_agents")
        return cls(~np.eye(N, dtype=bool))

    @classmethod
    def random(
        cls,
        n_agents: int,
        p: float = 0.5,
        *,
        seed: int | np.random.Generator | None = None,
        min_degree: int = 1,
        max_tries: int = 10_000,
    ) -> GraphTopology:
        """An Erdős–Rényi G(N, p) graph, resampled until connected with every degree ≥ ``min_degree``
        (Zhang, Khalili & Liu 2020, Sec. VIII, say only "randomly generated"; this toolkit's experiments use
        G(5, 0.5)); seeded, so fixed across runs.

        Raises:
          ValueError: bad p, or no acceptable graph within ``max_tries`` draws.
        """
        N = _count(n_agents, "n_agents")
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 < p <= 1:
            raise ValueError(f"p must be in (0, 1], got {p!r}")
        rng = np.random.default_rng(seed)
        upper = np.triu(np.ones((N, N), dtype=bool), 1)
        for _ in range(max_tries):
            A = (rng.random((N, N)) < p) & upper
            A = A | A.T
            if A.sum(axis=1).min() >= min_degree and not _unreached(A):
                return cls(A)
        raise ValueError(f"no connected G({N}, {p}) graph with min degree {min_degree} in {max_tries} draws")

    # -- Topology interface ----------------------------------------------------------------
    @property
    def n_agents(self) -> int:
        return self._A.shape[0]

    @property
    def server(self) -> None:
        return None

    @property
    def adjacency(self) -> np.ndarray:
        return self._A

    def recipients(self, agent: int) -> tuple[Hashable, ...]:
        """The neighbours 𝒱_i of ``agent`` (messages travel only along edges)."""
        return self._neighbours[self._check_agent(agent)]

    def neighbours(self, agent: int) -> tuple[int, ...]:
        """𝒱_i, sorted."""
        return self._neighbours[self._check_agent(agent)]

    @property
    def edges(self) -> tuple[tuple[int, int], ...]:
        """The undirected edges (i, j), i < j."""
        return tuple((i, j) for i, j in np.argwhere(np.triu(self._A)).tolist())

    def adjacency_matrix(self) -> np.ndarray:
        """A as float64 (N, N)."""
        return self._A.astype(np.float64)

    def laplacian(self) -> np.ndarray:
        """D − A (PSD; null space span(1) because the graph is connected)."""
        return np.diag(self.degrees.astype(np.float64)) - self.adjacency_matrix()

    def signless_laplacian(self) -> np.ndarray:
        """D + A (PSD; positive definite iff the graph is not bipartite)."""
        return np.diag(self.degrees.astype(np.float64)) + self.adjacency_matrix()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GraphTopology) and np.array_equal(other._A, self._A)

    def __hash__(self) -> int:
        return hash((GraphTopology, self._A.tobytes()))

    def __repr__(self) -> str:
        return f"GraphTopology(n_agents={self.n_agents}, edges={list(self.edges)})"


def _edge(i: int, j: int) -> tuple[int, int]:
    """The edge between i and j as (min, max)."""
    return (i, j) if i < j else (j, i)


def _unreached(A: np.ndarray) -> list[int]:
    """Nodes not reachable from node 0 (breadth-first search)."""
    seen = np.zeros(A.shape[0], dtype=bool)
    seen[0] = True
    frontier = seen.copy()
    while frontier.any():
        frontier = A[frontier].any(axis=0) & ~seen
        seen |= frontier
    return np.flatnonzero(~seen).tolist()


def _count(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 2:
        raise ValueError(f"{name} must be an integer >= 2, got {value!r}")
    return int(value)
