"""Routing released messages along a graph's edges: what each node of a decentralized protocol
receives in a round (its neighbours' broadcasts and its own), shared by the graph families'
``route`` and ``delivered`` pieces (decentralized ADMM, PDML; ``solvers.engine.step``)."""

from __future__ import annotations

import numpy as np

__all__ = ["Broadcasts", "neighbourhoods", "outbound_to", "received_broadcasts", "required"]


#: What one node receives in a round: (its senders, their broadcasts (R, k, d)).
Broadcasts = tuple[np.ndarray, np.ndarray]


def neighbourhoods(graph) -> list[np.ndarray]:
    """For every node i, the sorted nodes whose broadcasts it reads: itself and its neighbours."""
    return [np.array(sorted({i, *graph.neighbours(i)}), dtype=np.int64) for i in range(graph.n_agents)]


def outbound_to(broadcasts: np.ndarray, senders: np.ndarray) -> Broadcasts:
    """What one node receives: its senders and their broadcasts (R, k, d) from all (R, N, d)."""
    return senders, broadcasts[:, senders]


def required(value: np.ndarray | None, what: str) -> np.ndarray:
    """``value``, which an earlier round of the protocol has set (``what`` names it)."""
    if value is None:
        raise RuntimeError(f"{what} is not set: the rounds of a chunk must run in order from round 0")
    return value


def received_broadcasts(inbound: Broadcasts | None, n_agents: int) -> np.ndarray:
    """(senders, values (R, k, d)) as an (R, N, d) array: the senders' rows filled, zeros elsewhere."""
    if inbound is None:
        raise RuntimeError("round 0 has no broadcasts to receive")
    senders, values = inbound
    out = np.zeros((values.shape[0], n_agents, values.shape[2]))
    out[:, senders] = values
    return out
