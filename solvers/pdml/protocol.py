"""PDML (Wang et al. 2020) split into servers and the graph driver.

Server i's actor holds only group i's records, the labels y'_i its users reported (Phase 1, drawn
from its own stream with η_i and θ_i(·), ``solvers.pdml.admm._TrialNoise``) and its dual γ_i.
Round t ≥ 1: it receives the broadcasts w̃_j(t−1) of its neighbours (and its own), completes
γ_i(t−1) = γ_i(t−2) + β Σ_l L_il w̃_l(t−1) (17), solves (15) with ``solve_local`` and releases
w̃_i(t) = w_i(t) + θ_i(t) (16). Round 0 releases w̃_i(0) = 0. The driver routes the broadcasts along
the edges and records iteration t; the duals it records are rebuilt from the broadcasts by the same
(17) (they are a function of the transcript). The unreleased w_i, θ_i, η_i and y'_i travel to the
driver only when the white-box channels are recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from solvers.agent_share import AgentShare
from solvers.engine.protocol import AgentProgram, Coordinator
from solvers.graph_routing import Broadcasts, neighbourhoods, outbound_to, received_broadcasts, required
from solvers.pdml.randomization import debias_linear_term
from solvers.pdml.steps import solve_local
from solvers.recorder import Recorder

__all__ = ["PDMLDriver", "PDMLServer", "pdml_white_box"]

_WHITE_BOX = ("w", "theta", "eta", "y_reported")


def pdml_white_box(recorder: Recorder) -> bool:
    """Whether the servers must also return their unreleased values (recorded white-box)."""
    return any(name in recorder.specs for name in _WHITE_BOX)


class PDMLServer(AgentProgram[Broadcasts | None]):
    """Server ``share.agent`` of a ``PDML`` run on the problem's graph."""

    def __init__(
        self,
        solver,
        share: AgentShare,
        plan,
        adjacency: np.ndarray,
        laplacian: np.ndarray,
        quad: np.ndarray,
        white_box: bool,
    ) -> None:
        super().__init__(solver, share, plan, white_box)
        i = self.agent
        rows = slice(i, i + 1)
        self.A, self.Lap = np.asarray(adjacency, dtype=np.float64)[rows], np.asarray(laplacian)[rows]
        self.degree = plan.details.degrees[rows]
        self.quad = quad[rows]
        self.eps = plan.details.eps_label[rows]
        self.n_agents = self.A.shape[1]

    def begin(self, noise: np.ndarray | None, n_trials: int) -> None:
        flips, self.eta, self.theta = self.plan.mechanism.split(noise)
        partition = self.share.partition
        self.weights = partition.mask / self.share.sizes[:, None].astype(np.float64)  # (1, m)
        self.y_noisy = partition.y[None] * flips  # (R, 1, m)
        self.b = debias_linear_term(self.share.loss, partition.X, self.y_noisy, self.eps[:, None], self.weights)
        d = self.share.n_features
        self.w = np.zeros((n_trials, 1, d))
        self.gamma = np.zeros((n_trials, 1, d))

    def step(self, t: int, inbound: Broadcasts | None) -> Mapping[str, object]:
        if t == 0:
            w_tilde, theta = np.zeros_like(self.w), np.zeros_like(self.w)
        else:
            received = received_broadcasts(inbound, self.n_agents)
            beta, N = self.solver.beta, self.n_agents
            self.gamma = self.gamma + beta * np.einsum("ij,rjd->rid", self.Lap, received)  # γ_i(t−1), (17)
            own = received[:, self.agent : self.agent + 1]
            centre = self.degree[:, None] * own + np.einsum("ij,rjd->rid", self.A, received)
            linear = -self.b + self.eta / N + self.gamma - beta * centre
            solution = solve_local(
                self.share.loss,
                self.share.partition.X,
                self.weights,
                self.y_noisy,
                linear,
                self.quad,
                self.w,
                tol=self.solver.tol,
            )  # (15)
            self.w = solution.x
            theta = self.theta[:, t - 1]
            w_tilde = self.w + theta  # (16)
        reply: dict[str, object] = {"w_tilde": w_tilde}
        if t > 0:
            reply["diagnostics"] = {
                "newton_residual": float(solution.residual.max()),
                "newton_iterations": float(solution.iterations),
            }
        if self.white_box:
            reply.update(w=self.w, theta=theta)
            if t == 0:
                reply.update(eta=self.eta, y_reported=self.y_noisy)
        return reply


class PDMLDriver(Coordinator[Broadcasts | None]):
    """Routes w̃(t−1) along the edges, collects w̃(t), rebuilds γ(t) by (17), records iteration t."""

    # The broadcasts w̃(t−1) and the duals γ(t−1) of the last round (None before round 0).
    w_tilde: np.ndarray | None
    gamma: np.ndarray | None

    def __init__(self, solver, problem, plan, n_trials: int, recorder: Recorder) -> None:
        super().__init__()
        self.diagnostics = {"newton_residual": 0.0, "newton_iterations": 0.0}
        self.solver, self.recorder = solver, recorder
        self.n_rounds = plan.n_iterations
        self.Lap = problem.topology.laplacian()
        self.senders = neighbourhoods(problem.topology)
        self.w_tilde = self.gamma = None
        self.white: dict[str, np.ndarray] = {}

    def inbound(self, t: int, agent: int) -> Broadcasts | None:
        return None if t == 0 else outbound_to(required(self.w_tilde, "w̃(t − 1)"), self.senders[agent])

    def receive(self, t: int, replies: Sequence[Mapping[str, object]]) -> None:
        self.merge_diagnostics(replies)
        joined = {key: np.concatenate([r[key] for r in replies], axis=1) for key in replies[0] if key != "diagnostics"}
        w_tilde = joined["w_tilde"]
        if t == 0:
            gamma = np.zeros_like(w_tilde)
        else:
            gamma = required(self.gamma, "γ(t − 1)") + self.solver.beta * np.einsum("ij,rjd->rid", self.Lap, w_tilde)
        self.w_tilde, self.gamma = w_tilde, gamma
        self.white.update({key: value for key, value in joined.items() if key != "w_tilde"})
        self.recorder.record(t, w_tilde.mean(axis=1), w_tilde, w_tilde=w_tilde, gamma=gamma, **self.white)
