"""A private ADMM variant written outside the toolkit, as a user would: one module, no toolkit edit.

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

What the module gets from the toolkit by subclassing ``solvers.HorizontalSolver`` and giving an
agent protocol: batched trials (``trials=R``), the ledger and every accountant, the in-process,
sequential and Ray backends, ``solvers.testing.check_solver``, and a full audit with

    python -m audits.run noisy_gradient_admm:audit_target      (this folder on PYTHONPATH)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from audits import AuditSpec, Claim, ScoreAttack
from mechanisms import GaussianMechanism
from solvers import HorizontalProblem, HorizontalSolver, RunPlan, StarTopology
from solvers.agent_share import AgentShare
from solvers.engine import AgentProgram, AgentProtocol, ChannelSpec, Coordinator, Draws
from solvers.recorder import Recorder

T_DEFAULT = 10


@dataclass(frozen=True)
class GradientNoise:
    """The plan's constants: Δ_i = 2 S1/m_i (N,) and σ_i = z Δ_i (N,) of the gradient noise."""

    sensitivity: np.ndarray
    sigma: np.ndarray


@dataclass(frozen=True)
class NoisyGradientADMM(HorizontalSolver[HorizontalProblem]):
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

    def local_update(self, problem: Any, w: np.ndarray, gamma: np.ndarray, sent: np.ndarray, noise: np.ndarray):
        """(3a) with the noisy gradient, for (R, n, d) arrays of n agents (all, or one agent's share)."""
        inverse = 1.0 / self.eta
        noisy_gradient = problem.local_gradient(sent) + noise
        return (self.rho * w[:, None, :] + gamma + sent * inverse - noisy_gradient) / (self.rho + inverse)

    def average(self, sent: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The trainer's average and the duals' ascent, for (R, N, d) releases."""
        w = sent.mean(axis=1) - gamma.mean(axis=1) / self.rho
        return w, gamma - self.rho * (sent - w[:, None, :])

    def iterate(
        self, problem: HorizontalProblem, plan: RunPlan[Any], R: int, draws: Draws | None, recorder: Recorder
    ) -> Mapping[str, float]:
        if draws is None:
            raise ValueError("NoisyGradientADMM always draws noise")
        N, d = problem.n_agents, problem.n_features
        w, sent, gamma = np.zeros((R, d)), np.zeros((R, N, d)), np.zeros((R, N, d))
        for k in range(self.n_iterations):
            sent = self.local_update(problem, w, gamma, sent, draws["noise"][:, k])
            w, gamma = self.average(sent, gamma)
            recorder.record(k, w, sent, w_tilde=sent, w=w)
        return {}

    def protocol(self, problem: HorizontalProblem, plan: RunPlan[Any], recorder: Recorder) -> AgentProtocol:
        return AgentProtocol(
            agent=lambda i: _Agent(self, AgentShare(problem, i), plan),
            coordinator=lambda n_trials: _Trainer(self, problem, n_trials, recorder),
        )


class _Agent(AgentProgram[np.ndarray]):
    """One agent: its own records and noise; it rebuilds its dual from its last release and w."""

    def begin(self, noise: np.ndarray | None, n_trials: int) -> None:
        self.noise = noise
        self.gamma = np.zeros((n_trials, 1, self.share.n_features))
        self.sent = np.zeros_like(self.gamma)

    def step(self, k: int, w: np.ndarray) -> Mapping[str, object]:
        if self.noise is None:
            raise ValueError("NoisyGradientADMM always draws noise")
        if k > 0:
            self.gamma = self.gamma - self.solver.rho * (self.sent - w[:, None, :])
        self.sent = self.solver.local_update(self.share, w, self.gamma, self.sent, self.noise[:, k])
        return {"w_tilde": self.sent}


class _Trainer(Coordinator[np.ndarray]):
    """The trainer: broadcasts w^k, averages the releases, records the iteration."""

    def __init__(self, solver: NoisyGradientADMM, problem: HorizontalProblem, n_trials: int, recorder: Recorder):
        super().__init__()
        self.solver, self.recorder, self.n_rounds = solver, recorder, solver.n_iterations
        self.w = np.zeros((n_trials, problem.n_features))
        self.gamma = np.zeros((n_trials, problem.n_agents, problem.n_features))

    def inbound(self, k: int, agent: int) -> np.ndarray:
        return self.w

    def receive(self, k: int, replies: Sequence[Mapping[str, object]]) -> None:
        sent = np.concatenate([reply["w_tilde"] for reply in replies], axis=1)
        self.w, self.gamma = self.solver.average(sent, self.gamma)
        self.recorder.record(k, self.w, sent, w_tilde=sent, w=self.w)


def neyman_pearson_score(solver: NoisyGradientADMM, problem_in: Any, problem_out: Any, agent: int):
    """The exact likelihood-ratio test of D against D′ from the released transcript: recover agent
    ``agent``'s noisy gradients from its releases and sum the Gaussian log-likelihood ratios."""
    sigma = solver.plan(problem_in).details.sigma[agent]
    inverse = 1.0 / solver.eta

    def score(result: Any) -> np.ndarray:
        sent, w = result.transcript["w_tilde"][:, :, 0], result.transcript["w"]  # (T, R, d) each
        T, R, d = sent.shape
        total, gamma, before, broadcast = np.zeros(R), np.zeros((R, d)), np.zeros((R, d)), np.zeros((R, d))
        for k in range(T):
            noisy = solver.rho * broadcast + gamma + before * inverse - (solver.rho + inverse) * sent[k]
            at = np.repeat(before[:, None, :], problem_in.n_agents, axis=1)
            g_in = problem_in.local_gradient(at)[:, agent]
            g_out = problem_out.local_gradient(at)[:, agent]
            total += np.einsum("rd,rd->r", g_in - g_out, noisy - 0.5 * (g_in + g_out)) / sigma**2
            gamma = gamma - solver.rho * (sent[k] - w[k])
            before, broadcast = sent[k], w[k]
        return total

    return score


def audit_target(epsilon: float | None, delta: float, quick: bool) -> AuditSpec:
    """The audit: a canary record's label flipped at agent 0; ``epsilon`` (None: μ = 1) is the total
    ε at ``delta`` the noise multiplier is calibrated to (μ-GDP, Dong, Roth & Su 2022)."""
    from accountants import gaussian_mu
    from audits.neighbours import canary_neighbours

    mu = 1.0 if epsilon is None else gaussian_mu(epsilon, delta)
    solver = NoisyGradientADMM(noise_multiplier=float(np.sqrt(T_DEFAULT) / mu), delta=delta)
    nb = canary_neighbours(n_agents=2, records_per_agent=20)
    return AuditSpec(
        name="noisy-gradient-admm",
        solver=solver,
        problem_in=nb.problem_in,
        problem_out=nb.problem_out,
        participant=nb.agent,
        attacks=(ScoreAttack("white-box NP", neyman_pearson_score(solver, nb.problem_in, nb.problem_out, nb.agent)),),
        claim=Claim(
            statement=f"Gaussian gradient perturbation, {T_DEFAULT} releases: μ = sqrt(T)/z",
            delta=delta,
            bound="exact_gaussian",
            noise="gaussian",
        ),
        canary=nb.description,
        epsilon_meaning="--epsilon is the total ε at δ the noise is calibrated to (default: μ = 1)",
        trials=20_000,
        quick_trials=2_000,
        run_options={"transcript_agents": [nb.agent]},
    )
