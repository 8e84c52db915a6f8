"""GraphTopology: construction, validation and the matrices the decentralized solvers use."""

import numpy as np
import pytest

from solvers.graph import GraphTopology
from solvers.topology import Topology


def test_ring_complete_degrees_and_neighbours():
    ring = GraphTopology.ring(5)
    assert isinstance(ring, Topology) and ring.server is None
    assert ring.degrees.tolist() == [2, 2, 2, 2, 2]
    assert ring.recipients(0) == (1, 4)
    assert len(ring.edges) == 5
    complete = GraphTopology.complete(4)
    assert complete.degrees.tolist() == [3, 3, 3, 3]
    assert complete.neighbours(2) == (0, 1, 3)


def test_from_edges_and_matrices():
    g = GraphTopology.from_edges(5, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)])
    assert g.degrees.tolist() == [3, 2, 3, 2, 2]
    L, Q = g.laplacian(), g.signless_laplacian()
    assert np.allclose(L @ np.ones(5), 0)
    eig = np.linalg.eigvalsh(L)
    assert abs(eig[0]) < 1e-12 and eig[1] > 1e-9  # connected: 1-dim null space
    assert np.allclose(L + Q, 2 * np.diag(g.degrees))
    assert np.linalg.eigvalsh(Q)[0] > 1e-9  # contains a triangle: non-bipartite
    assert g == GraphTopology(g.adjacency) and hash(g) == hash(GraphTopology(g.adjacency))


def test_random_is_seeded_and_connected():
    a = GraphTopology.random(8, 0.3, seed=3, min_degree=2)
    b = GraphTopology.random(8, 0.3, seed=3, min_degree=2)
    assert a == b and a.degrees.min() >= 2
    assert np.linalg.eigvalsh(a.laplacian())[1] > 1e-9


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: GraphTopology.from_edges(4, [(0, 1), (2, 3)]), "not connected: node\\(s\\) \\[2, 3\\]"),
        (lambda: GraphTopology.from_edges(3, [(0, 1), (1, 1)]), "self-loop"),
        (lambda: GraphTopology.from_edges(3, [(0, 1), (1, 5)]), "unknown node 5"),
        (lambda: GraphTopology.from_edges(3, [(0, 1, 2)]), "pairs"),
        (lambda: GraphTopology(np.array([[0, 1], [0, 0]])), "symmetric"),
        (lambda: GraphTopology(np.array([[1, 1], [1, 0]])), "self-loops at node\\(s\\) \\[0\\]"),
        (lambda: GraphTopology(np.array([[0, 2], [2, 0]])), "0/1"),
        (lambda: GraphTopology(np.zeros((2, 3))), "square"),
        (lambda: GraphTopology.ring(1), "n_agents"),
        (lambda: GraphTopology.random(3, 0.0), "p must be"),
    ],
)
def test_bad_graphs_raise_clear_errors(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_recipients_rejects_unknown_agent():
    with pytest.raises(ValueError, match="agent"):
        GraphTopology.ring(3).recipients(3)
