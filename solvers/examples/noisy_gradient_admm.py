"""A private ADMM variant written as a user would, on the toolkit's public names only: its round, once.

Gradient-perturbed linearised ADMM on a star. Agent i, iteration k (Huang et al. 2020, eq. (3a),
with the noise moved from the output to the gradient, as in the gradient-perturbation methods of
Bassily, Smith & Thakurta 2014):

    g̃_i^k     = ∇f_i(w̃_i^k) + ξ,  ξ ~ N(0, σ_i² I),  σ_i = z·Δ_i,  Δ_i = 2 S1 / m_i
    w̃_i^{k+1} = (ρ w^k + γ_i^k + w̃_i^k/η − g̃_i^k) / (ρ + 1/η)          (released)
    w^{k+1}   = mean_i w̃_i^{k+1} − mean_i γ_i^k / ρ,   γ_i^{k+1} = γ_i^k − ρ(w̃_i^{k+1} − w^{k+1})

Replacing one of agent i's m_i records moves the mean loss gradient by at most Δ_i = 2 S1/m_i when
|ℓ'| ≤ S1 and ‖x‖ ≤ 1; everything else in the release is public (w^k, γ_i^k, w̃_i^k are functions of
earlier releases), so each release is a Gaussian mechanism with noise multiplier z: μ = sqrt(T)/z
for T iterations (Dong, Roth & Su 2022, Corollary 3.3).

The module writes the plan and the pieces of one iteration (``solvers.engine.step``); the toolkit
derives from them batched trials (``trials=R``), the in-process, sequential and Ray backends, the
white-box replay of ``attacks.WhiteBoxNP``, and ``solvers.testing.check_solver`` proves they agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mechanisms import GaussianMechanism
from solvers import HorizontalProblem, HorizontalSolver, RunPlan, StarTopology
from solvers.engine import Agents, ChannelSpec, Combined, Release, StepSolver
from solvers.horizontal_recorder import Recorder

__all__ = ["AgentState", "GradientNoise", "NoisyGradientADMM"]

#: T of the example's audit.
T_DEFAULT = 10


@dataclass(frozen=True)
class GradientNoise:
    """The plan's constants: Δ_i = 2 S1/m_i (N,) and σ_i = z Δ_i (N,) of the gradient noise."""

    sensitivity: np.ndarray
    sigma: np.ndarray


@dataclass(frozen=True)
class AgentState:
    """The agents' duals γ_i^k and last releases w̃_i^k, (R, n, d) each (functions of released values)."""

    gamma: np.ndarray
    sent: np.ndarray


@dataclass(frozen=True)
class NoisyGradientADMM(HorizontalSolver[HorizontalProblem], StepSolver[HorizontalProblem, Recorder]):
    """Gradient-perturbed linearised ADMM on a star (module docstring).

    Args:
      noise_multiplier: z = σ_i/Δ_i > 0. rho: penalty ρ > 0. eta: step η > 0. n_iterations: T.
      delta: δ at which results report ε.
    """

    noise_multiplier: float = 1.0
    rho: float = 1.0
    eta: float = 0.5
    n_iterations: int = T_DEFAULT
    delta: float = 1e-5

    name = "noisy_gradient_admm"
    channels = {
        "w_tilde": ChannelSpec("agents", "w̃_i^{k+1}: agent i's update from its noisy gradient"),
        "w": ChannelSpec("server", "w^{k+1}: the trainer's average, broadcast"),
    }
    sent_channel = "w_tilde"
    broadcast_channel = "w"
    default_accountants = ("exact_gaussian", "rdp")

    @property
    def target_delta(self) -> float:
        return self.delta

    def plan(self, problem: HorizontalProblem) -> RunPlan[GradientNoise]:
        if not isinstance(problem.topology, StarTopology):
            raise ValueError(f"NoisyGradientADMM runs on a StarTopology, got {problem.topology!r}")
        problem.check_feature_bound(1.0)
        T, N, d = self.n_iterations, problem.n_agents, problem.n_features
        sensitivity = 2.0 * problem.loss.gradient_bound / problem.sizes.astype(np.float64)
        mechanism = GaussianMechanism.from_noise_multiplier(
            np.broadcast_to(sensitivity[None, :, None], (T, N, 1)), self.noise_multiplier
        )
        events = mechanism.events()
        details = GradientNoise(sensitivity, self.noise_multiplier * sensitivity)
        return RunPlan(T, [events[k * N : (k + 1) * N] for k in range(T)], mechanism, (T, N, d), details)

    # ---- agent i -----------------------------------------------------------------------------
    def agent_state(self, agents: Agents, plan: RunPlan[Any], n_trials: int, noise: np.ndarray | None) -> AgentState:
        zeros = np.zeros((n_trials, agents.data.n_agents, agents.data.n_features))
        return AgentState(gamma=zeros, sent=zeros)

    def dual(self, k: int, state: AgentState, w: np.ndarray) -> np.ndarray:
        """γ_i^k from γ_i^{k−1}, the agent's last release and the broadcast w^k (γ_i^0 = 0)."""
        return state.gamma if k == 0 else state.gamma - self.rho * (state.sent - w[:, None, :])

    def release(
        self,
        agents: Agents,
        plan: RunPlan[Any],
        k: int,
        state: AgentState,
        inbound: np.ndarray,
        noise: np.ndarray | None,
    ) -> Release:
        inverse = 1.0 / self.eta
        gradient = agents.data.local_gradient(state.sent)
        if noise is not None:
            gradient = gradient + noise[:, k]
        gamma = self.dual(k, state, inbound)
        return Release(
            (self.rho * inbound[:, None, :] + gamma + state.sent * inverse - gradient) / (self.rho + inverse)
        )

    def advance(
        self, agents: Agents, plan: RunPlan[Any], k: int, state: AgentState, inbound: np.ndarray, release: Release
    ) -> AgentState:
        return AgentState(gamma=self.dual(k, state, inbound), sent=release.sent)

    def release_sigma(self, plan: RunPlan[GradientNoise]) -> np.ndarray:
        """σ_i/(ρ + 1/η): the gradient noise as it reaches the release, (T, N)."""
        sigma = plan.details.sigma / (self.rho + 1.0 / self.eta)
        return np.broadcast_to(sigma, (plan.n_iterations, sigma.shape[0]))

    # ---- the trainer -------------------------------------------------------------------------
    def coordinator_state(
        self, problem: HorizontalProblem, plan: RunPlan[Any], n_trials: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(w^0, γ^0) = 0: the broadcast and the duals the trainer rebuilds from the releases."""
        return np.zeros((n_trials, problem.n_features)), np.zeros((n_trials, problem.n_agents, problem.n_features))

    def inbound(
        self, problem: HorizontalProblem, plan: RunPlan[Any], k: int, state: tuple[np.ndarray, np.ndarray]
    ) -> np.ndarray:
        return state[0]

    def combine(
        self,
        problem: HorizontalProblem,
        plan: RunPlan[Any],
        k: int,
        state: tuple[np.ndarray, np.ndarray],
        received: Release,
    ) -> Combined:
        gamma, sent = state[1], received.sent
        w = sent.mean(axis=1) - gamma.mean(axis=1) / self.rho
        return Combined((w, gamma - self.rho * (sent - w[:, None, :])), w, {"w": w})
