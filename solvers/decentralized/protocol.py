"""The decentralized ADMM protocol (Zhang, Khalili & Liu 2020 and 2018) split into nodes and the graph driver.

Round t ≤ T: node i receives the broadcasts f_j(t−1) of its neighbours (and its own), completes
its dual λ_i(t−1) (the step λ_i += (θ_i/2) Σ_j (f_i − f_j) needs the neighbours' new f), and computes
f_i(t) on its own records with its own noise: the exact step or, for (M)R-ADMM's even iterations,
the linear step from released values, with the same functions as the vectorised engine. Round 0
releases the random start f_i(0); a last round T+1 completes λ(T). The driver routes the broadcasts
along the graph's edges and records iteration t−1 once its duals are complete (the duals are
white-box values, recorded only on request).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from solvers.agent_share import AgentShare
from solvers.decentralized.steps import even_step, exact_step, neighbour_sum
from solvers.engine.protocol import AgentProgram, Coordinator
from solvers.graph_routing import Broadcasts, neighbourhoods, outbound_to, received_broadcasts, required
from solvers.recorder import Recorder

__all__ = ["GraphDriver", "GraphNode"]


class GraphNode(AgentProgram[Broadcasts | None]):
    """Node ``share.agent`` of a ``DecentralizedSolver``."""

    # The node's state in a chunk of trials (None until the round that sets it).
    f: np.ndarray | None
    f_before: np.ndarray | None
    lam_before: np.ndarray | None
    Af_before: np.ndarray | None

    def __init__(self, solver, share: AgentShare, plan, adjacency: np.ndarray) -> None:
        super().__init__(solver, share, plan)
        i = self.agent
        rows = slice(i, i + 1)
        A = np.asarray(adjacency, dtype=np.float64)
        self.A, self.Lap = A[rows], (np.diag(A.sum(axis=1)) - A)[rows]
        self.V = A.sum(axis=1)[rows]
        self.n_agents, self.rows = A.shape[0], rows

    def begin(self, noise: np.ndarray | None, n_trials: int) -> None:
        if noise is None:
            raise ValueError("a decentralized plan draws every node's f(0): its noise cannot be None")
        self.noise = noise
        self.lam = np.zeros((n_trials, 1, self.share.n_features))
        self.f = self.f_before = self.lam_before = self.Af_before = None

    def step(self, t: int, inbound: Broadcasts | None) -> Mapping[str, object]:
        details, i = self.plan.details, self.rows
        T = self.plan.n_iterations - 1
        zero = np.zeros_like(self.lam)
        if t == 0:
            self.f = np.array(self.noise[:, 0])
            return {"f": self.f, "noise": zero}
        f_prev = received_broadcasts(inbound, self.n_agents)
        if t >= 2 and details.exact[t - 2]:
            self.lam = self.lam + 0.5 * details.theta[t - 2][i][:, None] * neighbour_sum(self.Lap, f_prev)
        if t == T + 1:
            return {"lam": self.lam}
        reply: dict[str, object] = {"lam": self.lam}
        Af = neighbour_sum(self.A, f_prev)
        eta = details.eta[t - 1][i]
        eps = zero
        if details.exact[t - 1]:
            slot = details.noise_slot[t - 1]
            eps = zero if slot < 0 else self.noise[:, 1 + slot]
            f_new, residual, iterations = exact_step(
                self.share,
                required(self.f, "f(t - 1)"),
                Af,
                self.lam,
                details.noise_scale[t - 1][i][:, None] * eps,
                eta,
                self.V,
                self.solver.tol,
            )
            reply["diagnostics"] = {"kkt_residual": residual, "newton_iterations": float(iterations)}
            self.f_before, self.lam_before, self.Af_before = self.f, self.lam, Af
            self.f = f_new
        else:
            self.f = even_step(
                self.f_before,
                self.f,
                self.lam_before,
                self.lam,
                eta,
                float(self.solver.gamma_step),
                self.Af_before,
                Af,
                self.V,
            )
        reply.update(f=self.f, noise=eps)
        return reply


class GraphDriver(Coordinator[Broadcasts | None]):
    """Routes f(t−1) along the edges, collects f(t), records iteration t−1 with its complete duals."""

    # The broadcasts f(t−1) and noise of the last round (None before round 0).
    f: np.ndarray | None
    noise: np.ndarray | None

    def __init__(self, solver, problem, plan, n_trials: int, recorder: Recorder) -> None:
        super().__init__()
        self.solver, self.problem, self.recorder = solver, problem, recorder
        self.n_rounds = plan.n_iterations + 1
        self.diagnostics = {"kkt_residual": 0.0, "newton_iterations": 0.0}
        self.senders = neighbourhoods(problem.graph)
        self.f = self.noise = None

    def inbound(self, t: int, agent: int) -> Broadcasts | None:
        return None if t == 0 else outbound_to(required(self.f, "f(t - 1)"), self.senders[agent])

    def receive(self, t: int, replies: Sequence[Mapping[str, object]]) -> None:
        self.merge_diagnostics(replies)
        if t >= 1:
            lam = np.concatenate([r["lam"] for r in replies], axis=1)
            self.solver.record_iteration(self.problem, self.recorder, t - 1, self.f, lam, self.noise)
        if t < self.n_rounds - 1:
            self.f = np.concatenate([r["f"] for r in replies], axis=1)
            self.noise = np.concatenate([r["noise"] for r in replies], axis=1)
