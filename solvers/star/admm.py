"""DP-ADMM (Huang et al. 2020): Algorithms 1, 2 and 3 on a star topology.

All three share the sweep of one iteration: local primal update at every agent, the trainer's
global update (3c) w^{k+1} = mean_i ŵ_i^{k+1} − mean_i γ_i^k/ρ, and the dual update (3d)
γ_i^{k+1} = γ_i^k − ρ(ŵ_i^{k+1} − w^{k+1}), where ŵ_i is what agent i sends. Initialisation is
w^0 = w̃_i^0 = γ_i^0 = 0 (the paper leaves the start open; zeros are data-independent), so
Σ_i γ_i^k = 0 for all k.

  - :class:`ADMM` (Algorithm 1): exact local argmin of the augmented Lagrangian, sent in the clear.
  - :class:`NaiveNoisyADMM` (Algorithm 2): the same, plus Gaussian noise of constant σ_i on the
    local minimiser (output perturbation); the paper's sensitivity 2S1N/(m_i λ) or the tight one.
  - :class:`DPADMM` (Algorithm 3): the linearised, proximal local step (3a) at the previous noisy
    iterate, Gaussian noise (3b) with the time-varying σ_{i,k+1} = z Δ_{i,k+1} of Theorem 1, and
    the step sizes of Theorem 3 (l1) or Theorem 4 (smooth, l2).

The released messages are ŵ_i^{k+1} (agents → trainer) and w^{k+1} (trainer → agents). The duals
γ_i^k that agents also send in the paper's pseudo-code are a deterministic function of these, so
the transcript does not repeat them. Every release is one privacy event per agent and iteration,
stated by a ``mechanisms.GaussianMechanism`` (``NonPrivateDpEvent`` for a noiseless release).

The iteration is written once, as the pieces of ``solvers.engine.StepSolver`` (agent i's dual (3d)
and local step, the trainer's (3c)); the engine derives the vectorised run, the agents and trainer
of the sequential and Ray backends, and the white-box replay of ``attacks.whitebox``.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np
from dp_accounting import dp_event

from accountants.constraints import PRIVACY_EPSILON, AnyOf, Integer, OneOf, Optional, Positive
from mechanisms import GaussianMechanism
from mechanisms.gaussian import CALIBRATION, DELTA, Calibration
from solvers.engine.plan import RunPlan
from solvers.engine.recording import ChannelSpec
from solvers.engine.step import Agents, Combined, Release, StepSolver
from solvers.horizontal import HorizontalSolver
from solvers.horizontal_recorder import Recorder
from solvers.inner import accelerated_proximal_gradient, damped_newton
from solvers.problem import HorizontalProblem
from solvers.regularizers import L2Regularizer
from solvers.star.privacy import (
    dpadmm_sensitivity,
    estimate_dw,
    eta_theorem3,
    eta_theorem4,
    naive_sensitivity,
)
from solvers.topology import StarTopology

__all__ = ["ADMM", "DPADMM", "DPADMMPlan", "NaiveNoisyADMM", "NaiveNoisyPlan", "StarState", "linearized_update"]


#: The noise of both private solvers: ε per iteration (inf switches the noise off), δ, the δ accounted at
#: (None: δ) and the Gaussian calibration.
NOISE_CONSTRAINTS = {
    "epsilon": PRIVACY_EPSILON,
    "delta": DELTA,
    "delta_target": Optional(DELTA),
    "calibration": CALIBRATION,
}

_BROADCAST = ChannelSpec("server", "w^{k+1}, (3c): the trainer's global model, broadcast to every agent")


@dataclass(frozen=True)
class NaiveNoisyPlan:
    """The constants of Algorithm 2 (naive noisy ADMM), fixed before the run (``RunPlan.details``).

    Attributes:
      sensitivity: Δ_i (N,), the L2 sensitivity of agent i's exact local minimiser (Huang et al.
        2020, Secs. IV-A and VI; "paper" or "tight" mode of ``naive_sensitivity``), per agent, the same
        in every iteration.
      sigma: σ_i = z·Δ_i (N,), the standard deviation of the Gaussian noise added to agent i's
        release in every iteration (0 when ε = ∞).
      noise_multiplier: z = σ/Δ, a float (classic sqrt(2 ln(1.25/δ))/ε or analytic calibration;
        0 when ε = ∞).
    """

    sensitivity: np.ndarray
    sigma: np.ndarray
    noise_multiplier: float


@dataclass(frozen=True)
class DPADMMPlan:
    """The constants of Algorithm 3 (DP-ADMM, Huang et al. 2020), fixed before the run
    (``RunPlan.details``).

    Attributes:
      eta: η_i^k (T, N), the step sizes of the linearised local step (3a) (Theorem 3 for an l1
        regulariser, Theorem 4 for l2, or a constant).
      sensitivity: Δ_{i,k} = 2 S1 / (m_i (ρ + 1/η_i^k)) (T, N), the L2 sensitivity of agent i's
        release in iteration k (Lemma 1).
      sigma: σ_{i,k} = z·Δ_{i,k} (T, N), the standard deviation of the Gaussian noise of (3b)
        (0 when ε = ∞).
      noise_multiplier: z = σ/Δ, a float (Theorem 1's sqrt(2 ln(1.25/δ))/ε, or analytic
        calibration; 0 when ε = ∞).
      dw: D_w, the bound on the model's diameter used by the step sizes of Theorems 3/4; None for
        a constant step size.
    """

    eta: np.ndarray
    sensitivity: np.ndarray
    sigma: np.ndarray
    noise_multiplier: float
    dw: float | None


@dataclass(frozen=True)
class StarState:
    """The agents' state between iterations: their duals γ_i^k and last releases ŵ_i^k, (R, n, d) each
    (zero before iteration 0). Both are functions of released values (3d)."""

    gamma: np.ndarray
    sent: np.ndarray


@dataclass(frozen=True)
class StarADMM(HorizontalSolver[HorizontalProblem], StepSolver[HorizontalProblem, Recorder]):
    """Shared parameters, validation and the pieces of one iteration (``solvers.engine.step``): agent i's
    dual (3d) and local step, the trainer's average (3c)."""

    rho: float = 1.0
    n_iterations: int = 100

    broadcast_channel = "w"
    parameter_constraints = {"rho": Positive(), "n_iterations": Integer(1)}

    def check_problem(self, problem: HorizontalProblem, private: bool) -> None:
        if not isinstance(problem, HorizontalProblem):
            raise TypeError(f"problem must be a HorizontalProblem, got {type(problem).__name__}")
        if not isinstance(problem.topology, StarTopology):
            raise ValueError(f"{type(self).__name__} runs on a StarTopology, got {problem.topology!r}")
        if private:
            problem.check_feature_bound(1.0)

    def consensus_step(self, w_sent: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(3c) and (3d): the trainer's average and the agents' dual ascent, for (R, N, d) arrays."""
        w = w_sent.mean(axis=1) - gamma.mean(axis=1) / self.rho
        return w, gamma - self.rho * (w_sent - w[:, None, :])

    @abstractmethod
    def local_step(
        self, agents: Agents, plan: RunPlan[Any], k: int, w: np.ndarray, gamma: np.ndarray, sent: np.ndarray
    ) -> tuple[np.ndarray, dict[str, float]]:
        """The noise-free local model w_i^{k+1} of ``agents`` (R, n, d) from the broadcast w^k (R, d),
        their duals γ_i^k and last releases ŵ_i^k, and diagnostics."""

    # ---- the pieces of one iteration (solvers.engine.step) --------------------------------------
    def agent_state(self, agents: Agents, plan: RunPlan[Any], n_trials: int, noise: np.ndarray | None) -> StarState:
        zeros = np.zeros((n_trials, agents.data.n_agents, agents.data.n_features))
        return StarState(gamma=zeros, sent=zeros)

    def dual(self, k: int, state: StarState, w: np.ndarray) -> np.ndarray:
        """γ_i^k = γ_i^{k−1} − ρ(ŵ_i^k − w^k) (3d) once w^k is received (γ_i^0 = 0)."""
        return state.gamma if k == 0 else state.gamma - self.rho * (state.sent - w[:, None, :])

    def release(
        self,
        agents: Agents,
        plan: RunPlan[Any],
        k: int,
        state: StarState,
        inbound: np.ndarray,
        noise: np.ndarray | None,
    ) -> Release:
        local, diagnostics = self.local_step(agents, plan, k, inbound, self.dual(k, state, inbound), state.sent)
        sent = local if noise is None else local + noise[:, k]
        white_box = {} if self.sent_channel == "w_local" else {"w_local": local}
        return Release(sent, white_box, diagnostics)

    def advance(
        self, agents: Agents, plan: RunPlan[Any], k: int, state: StarState, inbound: np.ndarray, release: Release
    ) -> StarState:
        return StarState(gamma=self.dual(k, state, inbound), sent=release.sent)

    def coordinator_state(
        self, problem: HorizontalProblem, plan: RunPlan[Any], n_trials: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(w^0, γ^0) = 0: the trainer's model and the duals it rebuilds from the releases."""
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
        w, gamma = self.consensus_step(received.sent, state[1])  # (3c), (3d)
        return Combined((w, gamma), w, {"w": w})

    def _events(self, problem: HorizontalProblem, mechanism: GaussianMechanism | None) -> list[list[dp_event.DpEvent]]:
        """events[k][i] of agent i's release in iteration k (``NonPrivateDpEvent`` without noise)."""
        T, N = self.n_iterations, problem.n_agents
        if mechanism is None:
            release = dp_event.NonPrivateDpEvent()
            return [[release] * N for _ in range(T)]
        events = mechanism.events()
        return [events[k * N : (k + 1) * N] for k in range(T)]


@dataclass(frozen=True)
class ExactLocalADMM(StarADMM):
    """Algorithms 1 and 2: the local step is the exact argmin of the augmented Lagrangian."""

    tol: float = 1e-10

    parameter_constraints = {**StarADMM.parameter_constraints, "tol": Positive()}

    def local_step(
        self, agents: Agents, plan: RunPlan[Any], k: int, w: np.ndarray, gamma: np.ndarray, sent: np.ndarray
    ) -> tuple[np.ndarray, dict[str, float]]:
        """The exact argmin (``local_argmin``; ``sent`` is unused)."""
        w_local, residual, iterations = self.local_argmin(agents.data, w, gamma)
        return w_local, {"inner_residual": residual, "inner_iterations": float(iterations)}

    def local_argmin(
        self, problem: HorizontalProblem, w: np.ndarray, gamma: np.ndarray
    ) -> tuple[np.ndarray, float, int]:
        """argmin_v f_i(v) − <γ_i, v − w> + (ρ/2)‖v − w‖² for every trial and agent, warm-started
        at the public broadcast w (never at a private iterate, which an inexact solve would leak): damped
        Newton for l2, FISTA otherwise."""
        rho, c = self.rho, problem.lam / problem.n_agents
        anchor = w[:, None, :]
        start = np.broadcast_to(anchor, gamma.shape)
        if isinstance(problem.regularizer, L2Regularizer):
            identity = np.eye(problem.n_features)

            def value(v: np.ndarray) -> np.ndarray:
                shift = v - anchor
                return (
                    problem.local_objective(v)
                    - np.einsum("...i,...i->...", gamma, shift)
                    + 0.5 * rho * np.einsum("...i,...i->...", shift, shift)
                )

            def derivatives(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                gradient = problem.local_gradient(v) - gamma + rho * (v - anchor)
                return gradient, problem.local_loss_hessian(v) + (c + rho) * identity

            solution = damped_newton(value, derivatives, start, tol=self.tol)
        else:
            kappa = problem.regularizer.strong_convexity
            solution = accelerated_proximal_gradient(
                lambda v: problem.local_loss_gradient(v) - gamma + rho * (v - anchor),
                lambda v, step: problem.regularizer.prox(v, step * c),
                start,
                lipschitz=problem.local_smoothness + rho,
                strong_convexity=rho + kappa * c,
                tol=self.tol,
            )
        return solution.x, float(solution.residual.max()), solution.iterations


@dataclass(frozen=True)
class ADMM(ExactLocalADMM):
    """Algorithm 1: non-private ADMM with an exact local solve (Huang et al. 2020, Sec. II-B).

    Args:
      rho: penalty ρ > 0.
      n_iterations: T ≥ 1.
      tol: inner-solver tolerance (gradient or prox-gradient mapping norm).

    Each agent sends its exact local minimiser in the clear: every release is a
    ``NonPrivateDpEvent``, so every accountant reports ε = ∞.
    """

    name = "admm"
    channels = {
        "w_local": ChannelSpec("agents", "w_i^{k+1}: agent i's exact local minimiser, sent in the clear"),
        "w": _BROADCAST,
    }
    sent_channel = "w_local"

    def plan(self, problem: HorizontalProblem) -> RunPlan[None]:
        self.check_problem(problem, private=False)
        return RunPlan(self.n_iterations, self._events(problem, None), None, (), None)

    def release_sigma(self, plan: RunPlan[None]) -> np.ndarray:
        """Every release is exact (σ = 0); its width is the problem's agents, unknown to a plan: (T, 1)."""
        return np.zeros((plan.n_iterations, 1))


@dataclass(frozen=True)
class NaiveNoisyADMM(ExactLocalADMM):
    """Algorithm 2: exact local minimiser plus Gaussian noise of constant σ_i (Huang et al. 2020, Sec. III-A).

    Args:
      epsilon, delta: per-iteration (ε, δ) of the Gaussian mechanism (classic calibration needs
        ε ≤ 1); ε = ∞ switches the noise off (σ = 0), which is Algorithm 1.
      delta_target: δ of the reported total ε (default ``delta``).
      sensitivity: "paper" (2S1N/(m_i λ), the paper's default; refused for l1) or "tight"
        (2S1/(m_i(λ/N + ρ)) for l2, 2S1/(m_i ρ) for l1; derived here from the (λ/N + ρ)-strong
        convexity of the local subproblem).
      calibration: "classic" (σ = Δ sqrt(2 ln(1.25/δ))/ε) or "analytic" (Balle & Wang).
      rho, n_iterations, tol: as for :class:`ADMM`.
    """

    epsilon: float = 0.05
    delta: float = 1e-3
    delta_target: float | None = None
    sensitivity: str = "paper"
    calibration: Calibration = "classic"

    name = "naive"
    channels = {
        "w_tilde": ChannelSpec("agents", "w̃_i^{k+1} = w_i^{k+1} + N(0, σ_i² I): agent i's noisy exact minimiser"),
        "w": _BROADCAST,
        "w_local": ChannelSpec("agents", "w_i^{k+1}: the noise-free local minimiser (never released)", white_box=True),
    }
    sent_channel = "w_tilde"
    parameter_constraints = {
        **ExactLocalADMM.parameter_constraints,
        **NOISE_CONSTRAINTS,
        "sensitivity": OneOf("paper", "tight"),
    }

    @property
    def target_delta(self) -> float:
        return self.delta if self.delta_target is None else self.delta_target

    def plan(self, problem: HorizontalProblem) -> RunPlan[NaiveNoisyPlan]:
        self.check_problem(problem, private=True)
        T, N, d = self.n_iterations, problem.n_agents, problem.n_features
        sensitivity = naive_sensitivity(
            s1=problem.loss.gradient_bound,
            m=problem.sizes,
            lam=problem.lam,
            n_agents=N,
            rho=self.rho,
            strong_convexity=problem.regularizer.strong_convexity,
            mode=self.sensitivity,
        )
        z = _noise_multiplier(self.epsilon, self.delta, self.calibration)
        mechanism = None
        if z > 0:
            mechanism = GaussianMechanism.from_noise_multiplier(
                np.broadcast_to(sensitivity[None, :, None], (T, N, 1)), z
            )
        details = NaiveNoisyPlan(sensitivity=sensitivity, sigma=z * sensitivity, noise_multiplier=z)
        return RunPlan(T, self._events(problem, mechanism), mechanism, (T, N, d), details)

    def release_sigma(self, plan: RunPlan[NaiveNoisyPlan]) -> np.ndarray:
        """σ_i (N,), the same in every iteration, as (T, N)."""
        return np.broadcast_to(plan.details.sigma, (plan.n_iterations, plan.details.sigma.shape[0]))

    def replay_means(
        self,
        problems: tuple[HorizontalProblem, HorizontalProblem],
        agents: tuple[Agents, Agents],
        plans: tuple[RunPlan[Any], RunPlan[Any]],
        k: int,
        states: tuple[Any, ...],
        inbound: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The exact argmin depends on (w^k, γ_i^k) only: solved on each whole problem, the other
        agents' duals zero (their rows are not read)."""
        i = int(agents[0].rows.start)
        gamma = self.dual(k, states[0], inbound)[:, 0]
        means = []
        for problem in problems:
            gammas = np.zeros((inbound.shape[0], problem.n_agents, inbound.shape[1]))
            gammas[:, i] = gamma
            means.append(self.local_argmin(problem, inbound, gammas)[0][:, i])
        return means[0], means[1]


@dataclass(frozen=True)
class DPADMM(StarADMM):
    """Algorithm 3, DP-ADMM (Huang et al. 2020, Sec. III-B, (2)–(3d)): linearised proximal local step and
    Gaussian noise.

    Args:
      epsilon, delta: per-iteration (ε, δ) of the Gaussian mechanism (Theorem 1; classic
        calibration needs ε ≤ 1); ε = ∞ switches the noise off (deterministic linearised ADMM).
      delta_target: δ of the reported total ε (default ``delta``, as in the paper).
      rho: penalty ρ > 0. n_iterations: T ≥ 1.
      step_size: "auto" (Theorem 3 for l1, Theorem 4 for l2), "theorem3", "theorem4", or a
        constant η > 0.
      dw: D_w of the step sizes; None estimates it on the problem's public records (as in
        Huang et al. 2020, Sec. VI).
        Any data-independent value keeps the guarantee (σ ∝ Δ for every η).
      calibration: "classic" (the paper's z = sqrt(2 ln(1.25/δ))/ε) or "analytic".

    Iteration k, agent i (vectorised over trials and agents):
      (3a) w_i^{k+1} = (ρ w^k + γ_i^k + w̃_i^k/η − g_i^k)/(ρ + 1/η), g_i^k = ∇f_i(w̃_i^k)
      (3b) w̃_i^{k+1} = w_i^{k+1} + ξ, ξ ~ N(0, σ² I), σ = z·Δ_{i,k+1}, Δ = 2S1/(m_i(ρ + 1/η)).
    """

    epsilon: float = 0.05
    delta: float = 1e-3
    delta_target: float | None = None
    step_size: str | float = "auto"
    dw: float | None = None
    calibration: Calibration = "classic"

    name = "dpadmm"
    sent_channel = "w_tilde"
    channels = {
        "w_tilde": ChannelSpec("agents", "w̃_i^{k+1} = w_i^{k+1} + ξ_i^{k+1}, (3b): agent i's noisy local model"),
        "w": _BROADCAST,
        "w_local": ChannelSpec(
            "agents", "w_i^{k+1}, (3a): the noise-free local model (never released)", white_box=True
        ),
    }
    parameter_constraints = {
        **StarADMM.parameter_constraints,
        **NOISE_CONSTRAINTS,
        "step_size": AnyOf(OneOf("auto", "theorem3", "theorem4"), Positive()),
        "dw": Optional(Positive()),
    }

    @property
    def target_delta(self) -> float:
        return self.delta if self.delta_target is None else self.delta_target

    def plan(self, problem: HorizontalProblem) -> RunPlan[DPADMMPlan]:
        self.check_problem(problem, private=True)
        T, N, d = self.n_iterations, problem.n_agents, problem.n_features
        z = _noise_multiplier(self.epsilon, self.delta, self.calibration)
        eta, dw = self._step_sizes(problem, z)
        sensitivity = dpadmm_sensitivity(s1=problem.loss.gradient_bound, m=problem.sizes, rho=self.rho, eta=eta)
        mechanism = None
        if z > 0:
            mechanism = GaussianMechanism.from_noise_multiplier(sensitivity[:, :, None], z)
        details = DPADMMPlan(eta=eta, sensitivity=sensitivity, sigma=z * sensitivity, noise_multiplier=z, dw=dw)
        return RunPlan(T, self._events(problem, mechanism), mechanism, (T, N, d), details)

    def _step_sizes(self, problem: HorizontalProblem, z: float) -> tuple[np.ndarray, float | None]:
        """η (T, N) and the D_w it used (None for a constant step)."""
        T, N = self.n_iterations, problem.n_agents
        if not isinstance(self.step_size, str):
            return np.full((T, N), float(self.step_size)), None
        rule = self.step_size
        if rule == "auto":
            rule = "theorem4" if isinstance(problem.regularizer, L2Regularizer) else "theorem3"
        dw = estimate_dw(problem) if self.dw is None else float(self.dw)
        k = np.arange(T)
        loss, reg, lam = problem.loss, problem.regularizer, problem.lam
        if rule == "theorem3":
            eta = eta_theorem3(
                k, dw=dw, s1=loss.gradient_bound, s2=reg.gradient_bound(problem.n_features), lam=lam, n_agents=N
            )
            return np.repeat(eta[:, None], N, axis=1), dw
        eta = eta_theorem4(
            k,
            dw=dw,
            s1=loss.gradient_bound,
            s3=loss.curvature_bound,
            s4=reg.hessian_bound,
            lam=lam,
            n_agents=N,
            m=problem.sizes,
            noise_multiplier=z,
        )
        return eta, dw

    def local_step(
        self, agents: Agents, plan: RunPlan[Any], k: int, w: np.ndarray, gamma: np.ndarray, sent: np.ndarray
    ) -> tuple[np.ndarray, dict[str, float]]:
        """(3a) at the agents' previous noisy iterates ``sent``."""
        gradient = agents.data.local_gradient(sent)
        return linearized_update(w, gamma, sent, gradient, 1.0 / plan.details.eta[k, agents.rows], self.rho), {}

    def release_sigma(self, plan: RunPlan[DPADMMPlan]) -> np.ndarray:
        """σ_{i,k} (T, N) of (3b)."""
        return plan.details.sigma

    def replay_means(
        self,
        problems: tuple[HorizontalProblem, HorizontalProblem],
        agents: tuple[Agents, Agents],
        plans: tuple[RunPlan[Any], RunPlan[Any]],
        k: int,
        states: tuple[Any, ...],
        inbound: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(3a) under D′ on the agent's records, and under D as that minus the change of the gradient,
        which (3a) divides by ρ + 1/η: summed over the changed records only (nothing cancels)."""
        problem_in, problem_out = problems
        i = int(agents[0].rows.start)
        w, gamma, w_tilde = inbound, self.dual(k, states[1], inbound)[:, 0], states[1].sent[:, 0]
        inverse_eta = 1.0 / float(plans[1].details.eta[k, i])

        def update(problem: HorizontalProblem) -> np.ndarray:
            X, y = problem.partition.agent_data(i)
            gradient = problem.loss.gradient(w_tilde, X, y)
            gradient = gradient + (problem.lam / problem.n_agents) * problem.regularizer.gradient(w_tilde)
            return (self.rho * w + gamma + w_tilde * inverse_eta - gradient) / (self.rho + inverse_eta)

        mean_out = update(problem_out)
        X_in, y_in = problem_in.partition.agent_data(i)
        X_out, y_out = problem_out.partition.agent_data(i)
        if X_in.shape != X_out.shape or problem_in.lam != problem_out.lam or problem_in.loss != problem_out.loss:
            return update(problem_in), mean_out
        rows = np.flatnonzero(np.any(X_in != X_out, axis=1) | (y_in != y_out))
        if rows.size == 0:
            return mean_out, mean_out
        change = (rows.size / X_in.shape[0]) * (
            problem_in.loss.gradient(w_tilde, X_in[rows], y_in[rows])
            - problem_out.loss.gradient(w_tilde, X_out[rows], y_out[rows])
        )
        return mean_out - change / (self.rho + inverse_eta), mean_out


def linearized_update(
    w: np.ndarray,
    gamma: np.ndarray,
    w_tilde: np.ndarray,
    gradient: np.ndarray,
    inverse_eta: np.ndarray,
    rho: float,
) -> np.ndarray:
    """(3a): the minimiser of the approximate augmented Lagrangian (2) in closed form,
    w_i^{k+1} = (ρ w^k + γ_i^k + w̃_i^k/η_i − g_i^k) / (ρ + 1/η_i).

    Shapes: w (R, d), gamma, w_tilde, gradient (R, N, d), inverse_eta (N,) = 1/η_i^{k+1}.
    """
    inv = np.asarray(inverse_eta, dtype=np.float64)[:, None]
    return (rho * w[:, None, :] + gamma + w_tilde * inv - gradient) / (rho + inv)


def _noise_multiplier(epsilon: float, delta: float, calibration: Calibration) -> float:
    """z = σ/Δ of the per-iteration Gaussian mechanism (0 for ε = ∞), from ``mechanisms``."""
    if math.isinf(epsilon):
        return 0.0
    try:
        mechanism = GaussianMechanism.from_epsilon_delta(1.0, epsilon, delta, calibration=calibration)
    except ValueError as error:
        raise ValueError(f"epsilon={epsilon!r}, delta={delta!r}, calibration={calibration!r}: {error}") from error
    return float(mechanism.noise_multiplier)
