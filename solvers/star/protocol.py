"""The DP-ADMM protocol on a star (Huang et al. 2020, Algorithms 1–3) split into agents and the trainer.

Round k: the trainer sends the broadcast w^k (w^0 = 0); agent i updates its dual from its own last
release, γ_i^k = γ_i^{k−1} − ρ(ŵ_i^k − w^k) (3d), computes its local step with
``solver.agent_update`` on its own records, adds its own noise and releases ŵ_i^{k+1}. The trainer
averages the releases (3c), w^{k+1} = mean_i ŵ_i − mean_i γ_i/ρ, with the duals rebuilt from the
releases by the same (3d) (they are a function of the transcript), and records the iteration.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from solvers.engine.protocol import AgentProgram, Coordinator
from solvers.recorder import Recorder

__all__ = ["StarAgent", "StarTrainer", "white_box_needed"]


def white_box_needed(recorder: Recorder, solver) -> bool:
    """Whether the agents must also return their unreleased local models (recorded white-box)."""
    return "w_local" in recorder.specs and solver.sent_channel != "w_local"


class StarAgent(AgentProgram[np.ndarray]):
    """Agent ``share.agent`` of a ``StarADMM`` solver."""

    def begin(self, noise: np.ndarray | None, n_trials: int) -> None:
        d = self.share.n_features
        self.noise = noise
        self.gamma, self.sent = np.zeros((n_trials, 1, d)), np.zeros((n_trials, 1, d))

    def step(self, k: int, w: np.ndarray) -> Mapping[str, object]:
        if k > 0:
            self.gamma = self.gamma - self.solver.rho * (self.sent - w[:, None, :])  # (3d)
        agents = slice(self.agent, self.agent + 1)
        w_local, diagnostics = self.solver.agent_update(self.share, self.plan, k, w, self.gamma, self.sent, agents)
        self.sent = w_local if self.noise is None else w_local + self.noise[:, k]
        reply: dict[str, object] = {"sent": self.sent, "diagnostics": diagnostics}
        if self.white_box:
            reply["w_local"] = w_local
        return reply


class StarTrainer(Coordinator[np.ndarray]):
    """The trainer: broadcasts w^k, averages the releases, records every iteration."""

    def __init__(self, solver, problem, plan, n_trials: int, recorder: Recorder) -> None:
        super().__init__()
        self.solver, self.recorder = solver, recorder
        self.n_rounds = plan.n_iterations
        self.w = np.zeros((n_trials, problem.n_features))
        self.gamma = np.zeros((n_trials, problem.n_agents, problem.n_features))

    def inbound(self, k: int, agent: int) -> np.ndarray:
        return self.w

    def receive(self, k: int, replies: Sequence[Mapping[str, object]]) -> None:
        self.merge_diagnostics(replies)
        sent = np.concatenate([r["sent"] for r in replies], axis=1)
        self.w, self.gamma = self.solver.consensus_step(sent, self.gamma)  # (3c), (3d)
        messages = {self.solver.sent_channel: sent, "w": self.w}
        if white_box_needed(self.recorder, self.solver):
            messages["w_local"] = np.concatenate([r["w_local"] for r in replies], axis=1)
        self.recorder.record(k, self.w, sent, **messages)
