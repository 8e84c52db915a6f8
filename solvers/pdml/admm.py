"""PDML (Wang et al. 2020): local label randomization, then the servers' perturbed decentralized ADMM.

One run (Wang et al. 2020, Sec. IV, (12)–(17)), vectorised over (trials R, servers N, features d):

* **Phase 1** (users, once): group i's users flip their labels with p_i = 1/(1+e^{ε_i})
  (:mod:`solvers.pdml.randomization`); server i learns on y' with the debiased loss (19)–(22),
  Ĵ_i(w) = (1/m_i) Σ_j φ(y'_ij wᵀx_ij) − b_iᵀw + (a/n)·½‖w‖²  (a = ``problem.lam``).
* **Phase 2** (servers, t = 0..T−1), on the problem's ``GraphTopology``:
  - η_i, drawn once before the first iteration with ‖η_i‖₂ ≤ R_i, uniform in the ℓ2 ball (the paper
    calls the law arbitrary, so this is the toolkit's default; ``eta_dist="linf_uniform"``: coordinates
    U[−R_i, R_i]) and kept fixed (14);
  - (15) w_i(t+1) = argmin_w Ĵ_i(w) + η_iᵀw/n + γ_i(t)ᵀw + β Σ_{l∈𝒩_i} ‖w − ½(w̃_i(t) + w̃_l(t))‖²
    (batched damped Newton to ‖∇‖ ≤ ``tol``, warm-started at w_i(t));
  - (16) w̃_i(t+1) = w_i(t+1) + θ_i(t+1), θ_i(t+1) ~ N(0, ρ^t V_i² I): fresh, variance ρ^{t'−1}V_i²
    at broadcast t' = t+1;
  - (17) γ_i(t+1) = γ_i(t) + β Σ_{l∈𝒩_i} (w̃_i(t+1) − w̃_l(t+1)).
  w(0) = w̃(0) = γ(0) = 0 (public; the paper leaves the start open). The released model is
  (1/n) Σ_i w̃_i(t), post-processing of the broadcasts (the paper names no released model, and releasing an
  unperturbed w_i would void the broadcast accounting).

Transcript: ``w_tilde`` (T+1, R, N, d), every broadcast w̃_i(t), t = 0..T. White-box channels:
``w`` (w_i(t)), ``gamma`` (γ_i(t)), ``theta`` (θ_i(t), 0 at t = 0), ``eta`` (η_i, repeated) and
``y_reported`` (the labels y' that group i's users reported to server i, repeated).

Ledger (``Result.ledger``), every participant separately: ``"users-i"`` holds group i's label
release (``PureDpEvent(ε_i)``, local: against every server; ``NonPrivateDpEvent`` for ε_i = ∞);
``"server-i"`` holds each broadcast t = 1..T as ``GaussianDpEvent(σ_i(t)/Δ_i)`` with the DERIVED
sensitivity Δ_i of :mod:`solvers.pdml.privacy` (``NonPrivateDpEvent`` where V_i = 0). The paper
gives no number for Phase 2. ``Result.privacy`` is the worst server's ε at ``delta`` per accountant;
``Result.details.guarantees`` (``PDMLPlan``) is the per-group matrix by adversary (the collector s_i, the other
servers) and data piece (label, features).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np
from dp_accounting import dp_event
from scipy.special import expit

from accountants import Ledger, LedgerEntry, PureDpEvent
from accountants.constraints import Constraint, Integer, Interval, NonNegative, OneOf, Optional, Positive
from mechanisms import GaussianMechanism
from mechanisms.gaussian import DELTA
from solvers.agent_share import AgentShare
from solvers.engine.accounting import AccountantLike, privacy_by_name, register_entries
from solvers.engine.plan import RunPlan
from solvers.engine.recording import ChannelSpec
from solvers.engine.step import Agents, Combined, Release, StepSolver
from solvers.graph import GraphTopology
from solvers.graph_routing import GraphRouting
from solvers.horizontal import HorizontalSolver
from solvers.horizontal_recorder import Recorder
from solvers.pdml.privacy import (
    DERIVED_NOTE,
    broadcast_sensitivity,
    broadcast_sigmas,
    gdp_epsilon,
    joint_label_epsilon,
    strong_convexity,
    zcdp_epsilon,
    zcdp_total,
)
from solvers.pdml.randomization import check_label_symmetric, debias_linear_term, label_flips
from solvers.pdml.steps import solve_local
from solvers.problem import HorizontalProblem
from solvers.regularizers import L2Regularizer

__all__ = ["PDML", "PDMLPlan", "PDMLServers", "PDMLState", "sample_eta"]

_CHANNELS = {
    "w_tilde": ChannelSpec(
        "agents", "w̃_i(t) = w_i(t) + θ_i(t): server i's broadcast to its neighbours (16), t = 0..T (w̃(0) = 0)"
    ),
    "w": ChannelSpec("agents", "w_i(t): server i's unperturbed iterate (15) (never sent)", white_box=True),
    "gamma": ChannelSpec("agents", "γ_i(t): server i's dual (17) (a function of the broadcasts)", white_box=True),
    "theta": ChannelSpec("agents", "θ_i(t) ~ N(0, ρ^{t−1}V_i² I): broadcast noise (16) (never sent)", white_box=True),
    "eta": ChannelSpec("agents", "η_i: fixed objective noise (14), ‖η_i‖ ≤ R_i (never sent)", white_box=True),
    "y_reported": ChannelSpec(
        "agents",
        "y'_ij: group i's randomized labels as reported to server i (Phase 1; "
        "seen by s_i only; 0 on padding), repeated",
        white_box=True,
    ),
}


def sample_eta(
    rng: np.random.Generator, bound: np.ndarray, dim: int, dist: str = "l2_ball", trials: tuple[int, ...] = ()
) -> np.ndarray:
    """η_i for each server, (*trials, N, d): uniform in the ℓ2 ball of radius R_i (direction g/‖g‖,
    radius R_i U^{1/d}; the toolkit's default, as the paper leaves the law open), or
    ``"linf_uniform"``: every coordinate U[−R_i, R_i]. Every draw has the servers on the axis after
    the trials' (per-agent streams); ``trials`` are leading trial axes, () for one trial."""
    bound = np.asarray(bound, dtype=np.float64)
    N = bound.size
    if dist == "l2_ball":
        direction = rng.standard_normal((*trials, 1, N, dim))[..., 0, :, :]
        direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
        return direction * (bound * rng.random((*trials, 1, N))[..., 0, :] ** (1.0 / dim))[..., None]
    if dist == "linf_uniform":
        return (2.0 * rng.random((*trials, 1, N, dim))[..., 0, :, :] - 1.0) * bound[:, None]
    raise ValueError(f"eta_dist must be 'l2_ball' or 'linf_uniform', got {dist!r}")


class _TrialNoise:
    """One trial's randomness, shape (1, N, m + d + T·d) (behind any leading trial axes): row i is
    group i's flips (m), then server i's η (d), then its θ(1..T) (T·d).

    Every draw has the servers (user groups) on axis 1, so group i's flips and server i's noise
    come from stream i alone, and row i is all a server's actor holds (``PDML.share``).
    Groups with ε = ∞ and servers with V = 0 still draw (and discard)."""

    def __init__(
        self,
        eps_label: np.ndarray,
        eta_bound: np.ndarray,
        eta_dist: str,
        gaussian: GaussianMechanism | None,
        V: np.ndarray,
        N: int,
        m: int,
        d: int,
        T: int,
    ) -> None:
        self.eps_label = eps_label
        self.eta_bound, self.eta_dist, self.gaussian, self.noisy = eta_bound, eta_dist, gaussian, V > 0
        self.N, self.m, self.d, self.T = N, m, d, T

    #: ``sample`` takes leading trial axes (the engine then draws a whole chunk at once).
    leading_trials = True

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        N, m, d, T = self.N, self.m, self.d, self.T
        trials = tuple(shape[:-3])
        flips = label_flips(self.eps_label, (N, m), rng, trials)
        eta = sample_eta(rng, self.eta_bound, d, self.eta_dist, trials)
        theta = np.zeros((*trials, T, N, d))
        if self.gaussian is not None:
            theta = self.gaussian.sample(rng, (*trials, T, N, d)) * self.noisy[:, None]
        per_server = np.swapaxes(theta, -3, -2).reshape(*trials, N, T * d)
        return np.concatenate([flips, eta, per_server], axis=-1)[..., None, :, :]

    def split(self, noise: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(flips (R, n, m), η (R, n, d), θ (R, T, n, d)) of a chunk's noise (R, 1, n, m + d + T·d),
        n = N in process, 1 in a server's actor."""
        m, d, T = self.m, self.d, self.T
        rows = noise[:, 0]
        R, n = rows.shape[:2]
        return (rows[:, :, :m], rows[:, :, m : m + d], rows[:, :, m + d :].reshape(R, n, T, d).transpose(0, 2, 1, 3))


@dataclass(frozen=True)
class PDMLPlan:
    """The public constants of a PDML run (Wang et al. 2020; ``RunPlan.details``), fixed before the
    run; N servers (groups), T broadcasts.

    Attributes:
      eps_label: ε_i (N,), group i's label-randomisation ε (∞: labels kept).
      flip_probability: p_i = 1/(1 + e^{ε_i}) (N,), the probability a label is flipped.
      eta_bound: R_i (N,), the bound ‖η_i‖₂ ≤ R_i of server i's fixed linear perturbation (14).
      eta_dist: the distribution of η_i: "l2_ball" or "linf_uniform".
      V: V_i (N,), the standard deviation of θ_i(1) (16); 0 switches server i's noise off.
      rho_decay: ρ, the variance decay of θ: Var θ_i(t) = ρ^{t−1} V_i².
      sigma: σ_i(t) = V_i ρ^{(t−1)/2} (T, N), the noise standard deviation of broadcast t.
      sensitivity: Δ_i (N,), the DERIVED L2 sensitivity of server i's broadcast
        (``solvers.pdml.privacy.broadcast_sensitivity``; the paper gives none).
      x_max: the bound on every ‖x‖ the sensitivity uses.
      strong_convexity: μ_i = a/n + 2βV_i (N,) (V_i here the degree), of server i's objective.
      degrees: (N,) the servers' degrees in the graph, float.
      zcdp: Ξ_i (N,), server i's total zCDP of the T broadcasts, Σ_t Δ_i²/(2σ_i(t)²).
      epsilon_phase2: (N,) server i's ε at ``delta`` from μ² = 2Ξ_i (Gaussian DP).
      epsilon_phase2_zcdp: (N,) ε = Ξ + 2 sqrt(Ξ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3).
      guarantees: per group, {adversary: {"label" | "features": (ε, δ)}} (the collector s_i, the
        other servers).
      phase2_note: why Phase 2's numbers are derived (``DERIVED_NOTE``).
      broadcast_events: events[t][i], the ``DpEvent`` of server i's broadcast t = 1..T.
    """

    eps_label: np.ndarray
    flip_probability: np.ndarray
    eta_bound: np.ndarray
    eta_dist: str
    V: np.ndarray
    rho_decay: float
    sigma: np.ndarray
    sensitivity: np.ndarray
    x_max: float
    strong_convexity: np.ndarray
    degrees: np.ndarray
    zcdp: np.ndarray
    epsilon_phase2: np.ndarray
    epsilon_phase2_zcdp: np.ndarray
    guarantees: list[dict[str, dict[str, tuple[float, float]]]]
    phase2_note: str
    broadcast_events: list[list[dp_event.DpEvent]]


@dataclass(frozen=True)
class PDML(GraphRouting, HorizontalSolver[HorizontalProblem], StepSolver[HorizontalProblem, Recorder]):
    """PDML: randomized response on the labels, then perturbed decentralized ADMM (module docstring).

    Args:
      eps_label: label ε per user group (a number or (N,)); ``np.inf``: no randomization.
      eta_bound: R, the bound on ‖η_i‖₂ (a number or (N,)); 0: no objective perturbation.
      V: initial std V_i of θ_i (a number or (N,)); 0: unperturbed (non-private) broadcasts.
      rho_decay: ρ ∈ (0, 1], variance decay of θ.
      beta: ADMM penalty β > 0.
      n_iterations: T.
      eta_dist: "l2_ball" (default; the paper leaves the law open) or "linf_uniform".
      x_max: bound on every ‖x‖ for the sensitivity; None uses the largest observed ‖x‖ (the paper
        states no bound; pass a public bound for a data-independent guarantee).
      tol: Newton tolerance τ on ‖∇‖ (enters the sensitivity as 2τ/μ_i).
      delta: δ of ``Result.privacy`` and of the per-group guarantees.

    The baselines are special cases: "no privacy" is eps_label=np.inf, eta_bound=0, V=0; "modified
    loss" (Phase 1 only) finite eps_label with eta_bound=0, V=0.
    """

    eps_label: float | Sequence[float] = 1.0
    eta_bound: float | Sequence[float] = 1.0
    V: float | Sequence[float] = 0.1
    rho_decay: float = 0.8
    beta: float = 1.0
    n_iterations: int = 100
    eta_dist: str = "l2_ball"
    x_max: float | None = None
    tol: float = 1e-10
    delta: float = 1e-5

    name: ClassVar[str] = "pdml"
    channels: ClassVar[Mapping[str, ChannelSpec]] = _CHANNELS
    sent_channel = "w_tilde"
    broadcast_channel = "w_tilde"
    replay_refusal = "a server's state holds randomness of its own (its fixed η_i and its group's reported labels y')"
    ledger_written_upfront: ClassVar[bool] = True  # "users-i" labels, then broadcasts t = 1..T
    #: Accountants that bound the servers' Gaussian broadcasts at any noise level (PLD would allocate a
    #: grid over the huge privacy losses of late, nearly noiseless rounds: ask for it explicitly).
    default_accountants: ClassVar[tuple[str, ...]] = ("exact_gaussian", "rdp")
    parameter_constraints: ClassVar[Mapping[str, Constraint]] = {
        "eps_label": Positive(arrays=True, allow_inf=True),
        "eta_bound": NonNegative(arrays=True),
        "V": NonNegative(arrays=True),
        "rho_decay": Interval(0, 1, closed="right"),
        "beta": Positive(),
        "n_iterations": Integer(1),
        "eta_dist": OneOf("l2_ball", "linf_uniform"),
        "x_max": Optional(Positive()),
        "tol": Positive(),
        "delta": DELTA,
    }

    @property
    def target_delta(self) -> float:
        return self.delta

    def per_group(self, n_agents: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ε_i, R_i, V_i), each (N,) (their values are checked when the solver is made)."""
        return (
            _per_group(self.eps_label, n_agents, "eps_label"),
            _per_group(self.eta_bound, n_agents, "eta_bound"),
            _per_group(self.V, n_agents, "V"),
        )

    # ------------------------------------------------------------------------------------------
    def account(
        self, problem: HorizontalProblem, plan: RunPlan[PDMLPlan], accountants: Sequence[AccountantLike]
    ) -> tuple[Ledger, dict[str, float]]:
        """Register ``self.ledger(problem)``: every server's broadcasts with every accountant, each
        group's label release with the accountants that can bound it; ε is the worst server's."""
        ledger = self._ledger(plan)
        servers = [f"server-{i}" for i in range(problem.n_agents)]
        server_set = set(servers)

        def chosen(accountant: AccountantLike) -> list[LedgerEntry]:
            return [e for e in ledger if e.participant in server_set or accountant.supports(e.event)]

        register_entries(accountants, chosen)
        unperturbed = not np.all(plan.details.V > 0)  # (N,) V_i
        privacy = privacy_by_name(
            accountants,
            lambda a: math.inf if unperturbed else max(a.get_epsilon(self.delta, participant=s) for s in servers),
        )
        return ledger, privacy

    def ledger(self, problem: HorizontalProblem) -> Ledger:
        """Every release of a run on ``problem`` (data-independent): ``"users-i"`` (label, iteration
        0) for every group, then ``"server-i"`` broadcasts for t = 1..T."""
        return self._ledger(self.plan(problem))

    def _ledger(self, plan: RunPlan[PDMLPlan]) -> Ledger:
        details = plan.details
        entries = []
        for i, eps in enumerate(details.eps_label):
            label = PureDpEvent(float(eps)) if np.isfinite(eps) else dp_event.NonPrivateDpEvent()
            entries.append(LedgerEntry(participant=f"users-{i}", event=label, iteration=0))
        for t, row in enumerate(details.broadcast_events, start=1):
            entries.extend(LedgerEntry(participant=f"server-{i}", event=e, iteration=t) for i, e in enumerate(row))
        return Ledger(entries)

    # ------------------------------------------------------------------------------------------
    def check_problem(self, problem: HorizontalProblem) -> float:
        if not isinstance(problem, HorizontalProblem):
            raise TypeError(f"problem must be a HorizontalProblem, got {type(problem).__name__}")
        if not isinstance(problem.topology, GraphTopology):
            raise ValueError(f"problem.topology must be a solvers.graph.GraphTopology, got {problem.topology!r}")
        if not isinstance(problem.regularizer, L2Regularizer):
            raise ValueError(f"PDML needs N(w) = ½‖w‖² (L2Regularizer), got {problem.regularizer!r}")
        check_label_symmetric(problem.loss)
        if self.x_max is None:
            return problem.max_feature_norm
        problem.check_feature_bound(self.x_max)
        return float(self.x_max)

    def plan(self, problem: HorizontalProblem) -> RunPlan[PDMLPlan]:
        x_max = self.check_problem(problem)
        N, d, T = problem.n_agents, problem.n_features, self.n_iterations
        m = problem.partition.X.shape[1]
        eps, bound, V = self.per_group(N)
        degrees = _graph(problem).degrees.astype(np.float64)
        a = problem.lam
        sensitivity = broadcast_sensitivity(
            loss=problem.loss,
            eps_label=eps,
            sizes=problem.sizes,
            x_max=x_max,
            tol=self.tol,
            a=a,
            n_agents=N,
            beta=self.beta,
            degrees=degrees,
        )
        sigma = broadcast_sigmas(V, self.rho_decay, T)
        noisy = V > 0
        gaussian = None
        events = [[dp_event.NonPrivateDpEvent()] * N for _ in range(T)]
        if noisy.any():  # σ = 1 stands in where V_i = 0: that server's draw is discarded
            gaussian = GaussianMechanism(sensitivity[None, :, None], np.where(noisy, sigma, 1.0)[:, :, None])
            flat = gaussian.events()
            for t in range(T):
                for i in np.flatnonzero(noisy):
                    events[t][i] = flat[t * N + i]
        xi = zcdp_total(sensitivity, V, self.rho_decay, T)
        eps_phase2 = gdp_epsilon(xi, self.delta)
        joint, joint_delta = joint_label_epsilon(eps, eps_phase2, self.delta)
        details = PDMLPlan(
            eps_label=eps,
            flip_probability=expit(-eps),
            eta_bound=bound,
            eta_dist=self.eta_dist,
            V=V,
            rho_decay=self.rho_decay,
            sigma=sigma,
            sensitivity=sensitivity,
            x_max=x_max,
            strong_convexity=strong_convexity(a=a, n_agents=N, beta=self.beta, degrees=degrees),
            degrees=degrees,
            zcdp=xi,
            epsilon_phase2=eps_phase2,
            epsilon_phase2_zcdp=zcdp_epsilon(xi, self.delta),
            guarantees=_guarantees(eps, eps_phase2, joint, joint_delta, self.delta),
            phase2_note=DERIVED_NOTE,
            broadcast_events=events,
        )
        noise = _TrialNoise(eps, bound, self.eta_dist, gaussian, V, N, m, d, T)
        public = [[dp_event.NoOpDpEvent()] * N]
        return RunPlan(T + 1, public + events, noise, (1, N, m + d + T * d), details)

    def bytes_per_trial(self, problem: HorizontalProblem, plan: RunPlan) -> int:
        N, m, d = problem.partition.X.shape
        return 8 * (int(np.prod(plan.noise_shape)) + 4 * N * m + N * m * d + 3 * N * d * d + 8 * N * d)

    # ---- the pieces of one round (solvers.engine.step): server i, then the driver's routing and (17) ----
    def everyone(self, problem: HorizontalProblem) -> PDMLServers:
        graph = _graph(problem)
        return PDMLServers(problem, graph.adjacency_matrix(), graph.laplacian(), problem.lam / problem.n_agents)

    def share(self, problem: HorizontalProblem, agent: int) -> PDMLServers:
        graph, rows = _graph(problem), slice(agent, agent + 1)
        A = np.asarray(graph.adjacency_matrix(), dtype=np.float64)
        return PDMLServers(AgentShare(problem, agent), A[rows], graph.laplacian()[rows], problem.lam / problem.n_agents)

    def agent_state(
        self, agents: Agents, plan: RunPlan[PDMLPlan], n_trials: int, noise: np.ndarray | None
    ) -> PDMLState:
        """Phase 1 (the labels y' its users report, drawn with η_i and θ_i(·) from the servers' own noise)
        and w_i(0) = γ_i(0) = 0."""
        if noise is None:
            raise ValueError("a PDML plan draws every trial's label flips and noise: its noise cannot be None")
        servers: PDMLServers = agents.data
        records, rows = servers.records, agents.rows
        flips, eta, theta = cast(_TrialNoise, plan.mechanism).split(noise)  # the sampler of PDML.plan
        weights = records.partition.mask / records.sizes[:, None].astype(np.float64)  # (n, m)
        y_noisy = records.partition.y[None] * flips  # (R, n, m)
        eps = plan.details.eps_label[rows]
        b = debias_linear_term(records.loss, records.partition.X, y_noisy, eps[:, None], weights)  # (R, n, d)
        zeros = np.zeros((n_trials, y_noisy.shape[1], records.n_features))
        return PDMLState(w=zeros, gamma=zeros, weights=weights, y_noisy=y_noisy, b=b, eta=eta, theta=theta)

    def release(
        self,
        agents: Agents,
        plan: RunPlan[PDMLPlan],
        k: int,
        state: PDMLState,
        inbound: np.ndarray | None,
        noise: np.ndarray | None,
    ) -> Release:
        """Round 0: w̃_i(0) = 0. Round t ≥ 1: γ_i(t−1) by (17) from the broadcasts w̃(t−1), w_i(t) by (15),
        w̃_i(t) = w_i(t) + θ_i(t) (16)."""
        white = {"eta": state.eta, "y_reported": state.y_noisy}
        if k == 0 or inbound is None:
            return Release(np.zeros_like(state.w), {"w": state.w, "theta": np.zeros_like(state.w), **white})
        servers: PDMLServers = agents.data
        records, rows, beta = servers.records, agents.rows, self.beta
        gamma = state.gamma + beta * np.einsum("ij,rjd->rid", servers.laplacian, inbound)  # γ_i(t−1), (17)
        degrees = plan.details.degrees[rows]
        centre = degrees[:, None] * inbound[:, rows] + np.einsum("ij,rjd->rid", servers.adjacency, inbound)
        linear = -state.b + state.eta / servers.adjacency.shape[1] + gamma - beta * centre
        quad = (servers.lam_over_n + 2.0 * beta * degrees)[:, None]
        solution = solve_local(
            records.loss, records.partition.X, state.weights, state.y_noisy, linear, quad, state.w, tol=self.tol
        )  # (15)
        theta = state.theta[:, k - 1]
        diagnostics = {
            "newton_residual": float(solution.residual.max()),
            "newton_iterations": float(solution.iterations),
        }
        return Release(solution.x + theta, {"w": solution.x, "theta": theta, **white}, diagnostics, (solution.x, gamma))

    def advance(
        self, agents: Agents, plan: RunPlan[PDMLPlan], k: int, state: PDMLState, inbound: Any, release: Release
    ) -> PDMLState:
        if release.kept is None:
            return state
        w, gamma = release.kept
        return dataclasses.replace(state, w=w, gamma=gamma)

    def combine(
        self, problem: HorizontalProblem, plan: RunPlan[Any], k: int, state: Any, received: Release
    ) -> Combined:
        """γ(t) rebuilt from the broadcasts by (17) (γ(0) = 0); the model is the servers' mean broadcast."""
        sent = received.sent
        if state is None:
            gamma = np.zeros_like(sent)
        else:
            gamma = state[1] + self.beta * np.einsum("ij,rjd->rid", _graph(problem).laplacian(), sent)
        return Combined((sent, gamma), sent.mean(axis=1), {"gamma": gamma})


@dataclass(frozen=True)
class PDMLServers:
    """What servers hold: their groups' records (the problem, or one server's ``AgentShare``), their rows of
    the graph's adjacency and Laplacian (n, N), and λ/N."""

    records: Any
    adjacency: np.ndarray
    laplacian: np.ndarray
    lam_over_n: float


@dataclass(frozen=True)
class PDMLState:
    """Servers' state: w_i and γ_i (R, n, d), Phase 1's weights (n, m), labels y' (R, n, m) and debiased
    linear term b (R, n, d), and their noise η_i (R, n, d) and θ_i(·) (R, T, n, d)."""

    w: np.ndarray
    gamma: np.ndarray
    weights: np.ndarray
    y_noisy: np.ndarray
    b: np.ndarray
    eta: np.ndarray
    theta: np.ndarray


def _graph(problem: HorizontalProblem) -> GraphTopology:
    """The problem's topology, which ``PDML.check_problem`` has checked is a ``GraphTopology``."""
    return cast(GraphTopology, problem.topology)


def _guarantees(
    eps: np.ndarray, eps_phase2: np.ndarray, joint: np.ndarray, joint_delta: np.ndarray, delta: float
) -> list[dict[str, dict[str, tuple[float, float]]]]:
    """Per group: {adversary: {piece: (ε, δ)}}, adversaries "collector" (s_i, more trusted) and
    "other_servers" (type 2, colluding, see every broadcast); features get nothing from s_i."""
    return [
        {
            "collector": {"label": (float(eps[i]), 0.0), "features": (math.inf, 0.0)},
            "other_servers": {
                "label": (float(joint[i]), float(joint_delta[i])),
                "features": (float(eps_phase2[i]), delta if np.isfinite(eps_phase2[i]) else 0.0),
            },
        }
        for i in range(eps.size)
    ]


def _per_group(value: float | Sequence[float], n: int, name: str) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim > 1 or array.size not in (1, n):
        raise ValueError(f"{name} must be a number or one value per group/server ({n},), got shape {array.shape}")
    return np.broadcast_to(array, (n,)).copy()
