"""Decentralized (private) ADMM over a connected graph: R-ADMM and MR-ADMM
(Zhang, Khalili & Liu 2020), M-ADMM and penalty perturbation (PP; Zhang, Khalili & Liu 2018).

All variants share one engine, vectorised over (trials R, nodes N, features d), with the graph as
(N, N) matrices acting on node arrays; there is no Python loop over nodes or trials.

Iteration t = 1..T is one of two kinds (Zhang, Khalili & Liu 2020, Secs. II-C and III; Zhang, Khalili & Liu 2018,
Secs. 2–4):

* **exact step** (every iteration of ADMM, ADMM-OP, M-ADMM/PP/DVP; odd iterations of (M)R-ADMM)
      f_i(t) = argmin_f O(f, D_i) + (2λ_i(t−1) + s_i(t) ε_i(t))ᵀ f + η_i(t) Σ_{j∈𝒱_i} ‖½(f_i(t−1) + f_j(t−1)) − f‖²
  solved by batched damped Newton, then the dual step λ_i(t) = λ_i(t−1) + (θ_i(t)/2) Σ_j (f_i(t) − f_j(t)).
  The noise ε_i(t) has density ∝ exp(−α_i(t)‖ε‖) (``mechanisms.GammaNormMechanism``); s_i(t) = 1 for
  objective perturbation (ADMM-OP, R-ADMM (18)) and s_i(t) = 2η_i(t)V_i for penalty perturbation
  ((24) of Zhang, Khalili & Liu 2018 and its equivalent form after (25): ‖f + ε − m‖² has the same minimiser as
  the linear term 2ηVεᵀf).
  θ_i(t) = η_i(t) for ADMM (9), R-ADMM (13), MR-ADMM (15) ("paper" dual step); θ common for
  M-ADMM (11) and MR-ADMM's ``dual_step="common"``.
* **even step** of (M)R-ADMM (10)/(19), computed from released values only: the noisy gradient of
  the preceding odd step is taken from its KKT condition (47),
      g̃_i = −2λ_i(2k−2) − η_i Σ_j (2f_i(2k−1) − f_i(2k−2) − f_j(2k−2)),
  and f_i(2k) = f_i(2k−1) − [g̃_i + 2λ_i(2k−1) + η_i Σ_j (f_i(2k−1) − f_j(2k−1))]/(2η_iV_i + γ), λ unchanged.
  (∇O is never recomputed from the data here: after an inexact odd solve that would leak, and Lemma V.1 of
  Zhang, Khalili & Liu 2020 needs the even step to be post-processing of the broadcasts.)

Initialisation: f_i(0) ~ N(0, init_scale² I) from node i's own stream of the trial (data independent),
λ_i(0) = 0. The transcript channel ``f`` holds f(t) for t = 0..T, shape (T+1, R, N, d): entry t is
iteration t (t = 0 is the random start, which is released too, Def. V.1). History rows are
likewise t = 0..T. White-box channels: ``lam`` (λ_i(t)) and ``noise`` (ε_i(t), zero where none).

Privacy: each node registers one ``PureDpEvent`` per costly iteration with the theorem's ε
(``solvers.decentralized.privacy``), a ``NoOpDpEvent`` for t = 0 and R-ADMM's even iterations,
once per run (the bounds depend on no data or noise); participant = node, iteration = t.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeGuard

import numpy as np
from dp_accounting import dp_event

from accountants import PureDpEvent
from accountants.constraints import Constraint, Integer, Interval, NonNegative, OneOf, Optional, Positive
from mechanisms import GammaNormMechanism
from mechanisms.gaussian import DELTA
from solvers.agent_share import AgentShare
from solvers.decentralized.privacy import pp_epsilons, radmm_epsilons
from solvers.decentralized.problem import DecentralizedProblem
from solvers.decentralized.steps import even_step, exact_step, neighbour_sum
from solvers.engine.plan import RunPlan
from solvers.engine.recording import ChannelSpec
from solvers.engine.step import Agents, Combined, Release, StepSolver
from solvers.graph_routing import GraphRouting, required
from solvers.horizontal import HorizontalSolver
from solvers.horizontal_recorder import Recorder
from solvers.regularizers import L2Regularizer

__all__ = [
    "DVP",
    "DecentralizedADMM",
    "DecentralizedPlan",
    "MADMM",
    "MRADMM",
    "ObjectivePerturbationADMM",
    "PenaltyPerturbation",
    "RADMM",
]

#: A growth factor of the penalties (η non-decreasing in t): a real number >= 1.
AT_LEAST_ONE = Interval(1, math.inf, closed="left")

_CHANNELS = {
    "f": ChannelSpec("agents", "f_i(t): node i's primal variable broadcast to its neighbours (t = 0..T)"),
    "lam": ChannelSpec("agents", "λ_i(t): node i's dual (a function of the transcript; never sent)", white_box=True),
    "noise": ChannelSpec("agents", "ε_i(t): node i's noise at iteration t (0 if none; never sent)", white_box=True),
}


class _InitAndNoise:
    """One trial's randomness, drawn from its per-agent streams (agents on axis 1 of every draw):
    f(0) ~ N(0, s² I) (N, d), then the Gamma-norm noise of the costly iterations (n_noisy, N, d);
    ``sample`` returns them stacked, behind any leading trial axes of ``shape``."""

    #: ``sample`` takes leading trial axes (the engine then draws a whole chunk at once).
    leading_trials = True

    def __init__(self, init_scale: float, mechanism: GammaNormMechanism | None, n_noisy: int) -> None:
        self.init_scale, self.mechanism, self.n_noisy = init_scale, mechanism, n_noisy

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        *trials, _, N, d = shape
        out = np.empty(shape)
        out[..., 0, :, :] = self.init_scale * rng.standard_normal((*trials, 1, N, d))[..., 0, :, :]
        if self.mechanism is not None:
            out[..., 1:, :, :] = self.mechanism.sample(rng, (*trials, self.n_noisy, N))
        return out


@dataclass(frozen=True)
class StepSchedule:
    """Per-iteration plan of t = 1..T (index t−1): kind, penalties, dual steps, noise."""

    exact: np.ndarray  # (T,) bool
    eta: np.ndarray  # (T, N) penalty η_i(t) (even steps: that of the odd step before)
    theta: np.ndarray  # (T, N) dual step (0 on even steps)
    noise_slot: np.ndarray  # (T,) int index into the trial's noise, −1 if none
    noise_scale: np.ndarray  # (T, N) s_i(t)
    alpha: np.ndarray | None  # (n_noisy, N) α of the noisy iterations
    epsilons: np.ndarray  # (T, N) ε per iteration (0 if free, inf if non-private)


@dataclass(frozen=True)
class DecentralizedPlan:
    """The public constants of a decentralized run (``RunPlan.details``), fixed before the run from
    the step schedule (``StepSchedule``) and the graph; iteration t = 1..T is index t − 1. The
    equations are those of R-ADMM (Zhang, Khalili & Liu 2020) and penalty perturbation (Zhang, Khalili &
    Liu 2018).

    Attributes:
      exact: (T,) bool, whether iteration t is an exact (costly) step; False on the even steps of
        (M)R-ADMM (R-ADMM's (10)/(19)).
      eta: (T, N) the penalties η_i(t) (even steps: that of the odd step before).
      theta: (T, N) the dual steps θ_i(t) of λ_i(t) = λ_i(t−1) + (θ_i(t)/2) Σ_j (f_i(t) − f_j(t))
        (0 on even steps).
      alpha: (n_noisy, N) the α_i(t) of the noise density ∝ exp(−α‖ε‖) of the noisy iterations,
        in noise-slot order; None without noise.
      noise_scale: (T, N) s_i(t): 1 for objective perturbation, 2η_i(t)V_i for penalty
        perturbation (penalty perturbation's (24)).
      epsilons: (T, N) the per-iteration pure ε of node i (R-ADMM's Theorem V.1, penalty
        perturbation's Theorem 4.1; 0 if the iteration is free, ∞ if the run is not private).
      noise_slot: (T,) int, the index of iteration t's noise in the trial's draws, −1 if none.
      beta: the worst node's total pure ε, max_i Σ_t ε_i(t) (∞ if not private).
      degrees: (N,) the nodes' degrees V_i in the graph.
    """

    exact: np.ndarray
    eta: np.ndarray
    theta: np.ndarray
    alpha: np.ndarray | None
    noise_scale: np.ndarray
    epsilons: np.ndarray
    noise_slot: np.ndarray
    beta: float
    degrees: np.ndarray


@dataclass(frozen=True)
class DecentralizedSolver(
    GraphRouting, HorizontalSolver[DecentralizedProblem], StepSolver[DecentralizedProblem, Recorder]
):
    """Shared engine (module docstring). Subclasses implement ``step_schedule``."""

    n_iterations: int = 50
    init_scale: float = 0.1
    tol: float = 1e-10
    bound: str = "paper"
    delta: float = 1e-5

    channels: ClassVar[Mapping[str, ChannelSpec]] = _CHANNELS
    sent_channel = "f"
    broadcast_channel = "f"
    replay_refusal = (
        "a node's release minimises an objective its own noise perturbs: no Gaussian around a noise-free release"
    )
    #: Pure sequential composition (the papers' β), advanced and optimal composition.
    default_accountants: ClassVar[tuple[str, ...]] = ("pure", "advanced_composition", "optimal_composition")
    #: Whether every iteration is an exact local solve whose noise enters the penalty with one common dual
    #: step θ (penalty perturbation, Zhang, Khalili & Liu 2018): what the KKT attack of ``attacks.kkt`` inverts.
    penalty_perturbed: ClassVar[bool] = False
    parameter_constraints: ClassVar[Mapping[str, Constraint]] = {
        "n_iterations": Integer(1),
        "init_scale": NonNegative(),
        "tol": Positive(),
        "bound": OneOf("paper", "tight"),
        "delta": DELTA,
    }

    @property
    def private(self) -> bool:
        return False

    @property
    def target_delta(self) -> float | None:
        return self.delta if self.private else None

    @property
    def gamma_step(self) -> float:
        """γ of the even (linear) steps: 0, as only (M)R-ADMM has even steps."""
        return 0.0

    # ---------------------------------------------------------------------------------------
    def check_problem(self, problem: DecentralizedProblem) -> None:
        if not isinstance(problem, DecentralizedProblem):
            raise TypeError(f"problem must be a DecentralizedProblem, got {type(problem).__name__}")
        if not isinstance(problem.regularizer, L2Regularizer):
            raise ValueError(f"{type(self).__name__} needs R = ½‖f‖² (L2Regularizer), got {problem.regularizer!r}")
        if self.private:
            problem.check_feature_bound(1.0)
            if problem.loss.gradient_bound > 1.0:
                raise ValueError(f"the privacy theorems need |L'| <= 1, got {problem.loss!r}")

    def step_schedule(self, problem: DecentralizedProblem) -> StepSchedule:
        raise NotImplementedError

    def epsilon_constants(self, problem: DecentralizedProblem) -> dict[str, Any]:
        """The arguments of the papers' ε_i(k) other than the schedules and degrees (``radmm_epsilons``,
        ``pp_epsilons``): C, B_i, ρ, N, the loss's curvature bound c1 and the bound's kind."""
        return {
            "C": problem.C,
            "B": problem.sizes,
            "rho": problem.rho,
            "n_agents": problem.n_agents,
            "c1": problem.loss.curvature_bound,
            "bound": self.bound,
        }

    def plan(self, problem: DecentralizedProblem) -> RunPlan[DecentralizedPlan]:
        self.check_problem(problem)
        s = self.step_schedule(problem)
        T, N, d = self.n_iterations, problem.n_agents, problem.n_features
        n_noisy = 0 if s.alpha is None else s.alpha.shape[0]
        mechanism = None if s.alpha is None else GammaNormMechanism(s.alpha, d)
        free = dp_event.NoOpDpEvent()
        events: list[list[dp_event.DpEvent]] = [[free] * N]
        for t in range(T):
            if not self.private and s.exact[t]:
                events.append([dp_event.NonPrivateDpEvent()] * N)
            else:
                events.append([PureDpEvent(e) if e > 0 else free for e in s.epsilons[t]])
        details = DecentralizedPlan(
            exact=s.exact,
            eta=s.eta,
            theta=s.theta,
            alpha=s.alpha,
            noise_scale=s.noise_scale,
            epsilons=s.epsilons,
            noise_slot=s.noise_slot,
            beta=float(s.epsilons.sum(axis=0).max()) if self.private else math.inf,
            degrees=problem.graph.degrees,
        )
        return RunPlan(
            T + 1,
            events,
            _InitAndNoise(self.init_scale, mechanism, n_noisy),
            (1 + n_noisy, N, d),
            details,
        )

    def bytes_per_trial(self, problem: DecentralizedProblem, plan: RunPlan) -> int:
        N, m, d = problem.partition.X.shape
        return 8 * (int(np.prod(plan.noise_shape)) + 4 * N * m + 3 * N * d * d + 8 * N * d)

    # ---------------------------------------------------------------------------------------
    # ---- the pieces of one round (solvers.engine.step): node i, then the driver's routing and duals ----
    def everyone(self, problem: DecentralizedProblem) -> GraphNodes:
        graph = problem.graph
        return GraphNodes(problem, graph.adjacency_matrix(), graph.laplacian(), graph.degrees.astype(np.float64))

    def share(self, problem: DecentralizedProblem, agent: int) -> GraphNodes:
        rows = slice(agent, agent + 1)
        A = np.asarray(problem.graph.adjacency_matrix(), dtype=np.float64)
        return GraphNodes(AgentShare(problem, agent), A[rows], (np.diag(A.sum(axis=1)) - A)[rows], A.sum(axis=1)[rows])

    def agent_state(self, agents: Agents, plan: RunPlan[Any], n_trials: int, noise: np.ndarray | None) -> NodeState:
        if noise is None:
            raise ValueError("a decentralized plan draws every node's f(0): its noise cannot be None")
        zeros = np.zeros((n_trials, agents.data.adjacency.shape[0], agents.data.records.n_features))
        return NodeState(f=zeros, lam=zeros, f_before=None, lam_before=None, Af_before=None)

    def release(
        self,
        agents: Agents,
        plan: RunPlan[DecentralizedPlan],
        k: int,
        state: NodeState,
        inbound: np.ndarray | None,
        noise: np.ndarray | None,
    ) -> Release:
        """Round 0: the random start f_i(0). Round t ≥ 1: λ_i(t−1) completed from the neighbours' f(t−1),
        then f_i(t) by the exact step (with its noise) or, on (M)R-ADMM's even iterations, the linear one."""
        noise = required(noise, "the plan's noise")
        zero = np.zeros_like(state.lam)
        if k == 0:
            f = np.array(noise[:, 0])
            return Release(f, {"noise": zero}, kept=dataclasses.replace(state, f=f))
        nodes, rows, details = agents.data, agents.rows, plan.details
        f_prev, lam = required(inbound, "f(t - 1)"), state.lam
        if k >= 2 and details.exact[k - 2]:
            lam = lam + 0.5 * details.theta[k - 2][rows][:, None] * neighbour_sum(nodes.laplacian, f_prev)
        Af, eta = neighbour_sum(nodes.adjacency, f_prev), details.eta[k - 1][rows]
        if not details.exact[k - 1]:
            if state.f_before is None or state.lam_before is None or state.Af_before is None:
                raise ValueError(f"iteration {k}: an even (linear) step must follow an exact step")
            f = even_step(
                state.f_before,
                state.f,
                state.lam_before,
                lam,
                eta,
                float(self.gamma_step),
                state.Af_before,
                Af,
                nodes.V,
            )
            return Release(f, {"noise": zero}, kept=dataclasses.replace(state, f=f, lam=lam))
        slot = details.noise_slot[k - 1]
        eps = zero if slot < 0 else noise[:, 1 + slot]
        f, residual, iterations = exact_step(
            nodes.records, state.f, Af, lam, details.noise_scale[k - 1][rows][:, None] * eps, eta, nodes.V, self.tol
        )
        diagnostics = {"kkt_residual": residual, "newton_iterations": float(iterations)}
        kept = NodeState(f=f, lam=lam, f_before=state.f, lam_before=lam, Af_before=Af)
        return Release(f, {"noise": eps}, diagnostics, kept)

    def advance(
        self, agents: Agents, plan: RunPlan[Any], k: int, state: NodeState, inbound: Any, release: Release
    ) -> NodeState:
        return release.kept

    def combine(
        self, problem: DecentralizedProblem, plan: RunPlan[DecentralizedPlan], k: int, state: Any, received: Release
    ) -> Combined:
        """λ(t) from the broadcasts: λ_i(t) = λ_i(t−1) + (θ_i(t)/2) Σ_j (f_i(t) − f_j(t)) after an exact step."""
        sent = received.sent
        if state is None:
            lam = np.zeros_like(sent)
        elif plan.details.exact[k - 1]:
            lam = state[1] + 0.5 * plan.details.theta[k - 1][:, None] * neighbour_sum(problem.graph.laplacian(), sent)
        else:
            lam = state[1]
        return Combined((sent, lam), sent.mean(axis=1), {"lam": lam})

    def record(
        self,
        problem: DecentralizedProblem,
        recorder: Recorder,
        k: int,
        model: np.ndarray,
        sent: np.ndarray,
        channels: Mapping[str, Any],
    ) -> None:
        recorder.record(k, model, sent, **channels)
        if recorder.history_enabled:
            # Framework gap: Recorder has no hook for extra metrics; we write into its arrays.
            history = recorder.history
            if "average_loss" not in history:
                history["average_loss"] = np.empty((recorder.T, recorder.R))
            history["average_loss"][k, recorder.chunk_rows] = problem.local_loss(sent).mean(axis=-1)


@dataclass(frozen=True)
class GraphNodes:
    """What nodes hold: their records (the problem, or one node's ``AgentShare``), their rows of the graph's
    adjacency and Laplacian (n, N), and their degrees V_i (n,)."""

    records: Any
    adjacency: np.ndarray
    laplacian: np.ndarray
    V: np.ndarray


@dataclass(frozen=True)
class NodeState:
    """Nodes' f_i and λ_i (R, n, d), and after an exact step the f, λ and Σ_j A_ij f_j it started from
    (an even step of (M)R-ADMM reads them)."""

    f: np.ndarray
    lam: np.ndarray
    f_before: np.ndarray | None
    lam_before: np.ndarray | None
    Af_before: np.ndarray | None


# ============================================================================================
def _schedule_array(value, n: int, N: int, name: str) -> np.ndarray:
    """A float, (n,) or (n, N) array → (n, N) float array, positive and finite."""
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 1:
        array = array[:, None]
    if (
        array.ndim > 2
        or (array.ndim == 2 and array.shape[0] != n)
        or (array.ndim == 2 and array.shape[1] not in (1, N))
    ):
        raise ValueError(f"{name} must be a number, ({n},) or ({n}, {N}) array, got shape {np.shape(value)}")
    array = np.broadcast_to(array, (n, N)).copy()
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"{name} must be positive and finite, got min {array.min()!r}")
    return array


def _is_scalar(value: object) -> TypeGuard[float]:
    """Whether a schedule parameter (``float | Sequence[float]``) is its scalar form, a real number."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class DecentralizedADMM(DecentralizedSolver):
    """Conventional decentralized ADMM (8)–(9) of Zhang, Khalili & Liu 2020 (and 2018): exact local
    solves at every iteration, common penalty η, no noise (every release is non-private).

    Args:
      eta: penalty η > 0. n_iterations: T. init_scale: std of f(0). tol: Newton tolerance
        (‖∇‖ ≤ tol·max(1, C)).
    """

    eta: float = 1.0
    name = "decentralized_admm"
    parameter_constraints = {**DecentralizedSolver.parameter_constraints, "eta": Positive()}

    def step_schedule(self, problem):
        T, N = self.n_iterations, problem.n_agents
        eta = np.full((T, N), float(self.eta))
        return StepSchedule(
            np.ones(T, bool), eta, eta.copy(), np.full(T, -1), np.zeros((T, N)), None, np.full((T, N), np.inf)
        )


@dataclass(frozen=True)
class ObjectivePerturbationADMM(DecentralizedSolver):
    """ADMM-OP (a baseline of this toolkit, not of the paper): (8)–(9) with objective perturbation
    ε_i(t) ~ exp(−α_i(t)‖ε‖) at every iteration; each iteration costs (2C/B_i)(1.4c1/(ρ/N + 2ηV_i) + α_i(t))
    (Thm V.1 applied per iteration).

    Args:
      eta: penalty η > 0. alpha: noise rate α > 0 (float, (T,) or (T, N)).
    """

    eta: float = 1.0
    alpha: float | Sequence[float] = 1.0
    name = "admm_op"
    parameter_constraints = {
        **DecentralizedSolver.parameter_constraints,
        "eta": Positive(),
        "alpha": Positive(arrays=True),
    }

    @property
    def private(self) -> bool:
        return True

    def step_schedule(self, problem):
        T, N = self.n_iterations, problem.n_agents
        eta = np.full((T, N), float(self.eta))
        alpha = _schedule_array(self.alpha, T, N, "alpha")
        eps = radmm_epsilons(V=problem.graph.degrees, eta=eta, alpha=alpha, **self.epsilon_constants(problem))
        return StepSchedule(np.ones(T, bool), eta, eta.copy(), np.arange(T), np.ones((T, N)), alpha, eps)


@dataclass(frozen=True)
class MRADMM(DecentralizedSolver):
    """MR-ADMM (Zhang, Khalili & Liu 2020, Algorithms 2 and 3): odd iterations exact (with objective
    perturbation if ``alpha``), even iterations the recycled linear step (19) from released values.

    Args:
      eta: η_i(2k−1): a number (times ``eta_growth``^k), a (K,) or (K, N) array; non-decreasing in k.
      eta_growth: q ≥ 1 for η(2k−1) = eta·q^k (the paper's Fig. 5: eta=1, q=1.04). 1 gives R-ADMM.
      gamma: γ ≥ 0 of the even step (no effect on privacy).
      alpha: None (non-private) or α_i(k) > 0: a number, (K,) or (K, N).
      dual_step: "paper" (15): λ += (η_i(2k−1)/2) Σ_j(f_i − f_j) (biased limit for node-specific η:
        Σ_i λ_i is then not conserved); "common": the dual step ``theta`` for all nodes (this toolkit's
        correction, after the common dual step θ of Zhang, Khalili & Liu 2018).
      theta: the common dual step (default min η(1)); only with dual_step="common".
      n_iterations: T = 2K (even).

    Raises:
      ValueError: T odd; η decreasing; Theorem V.1's precondition (private runs).
    """

    eta: float | Sequence[float] = 1.0
    eta_growth: float = 1.0
    gamma: float = 0.5
    alpha: float | Sequence[float] | None = None
    dual_step: str = "paper"
    theta: float | None = None
    name = "mradmm"

    parameter_constraints = {
        **DecentralizedSolver.parameter_constraints,
        "eta": Positive(arrays=True),
        "eta_growth": AT_LEAST_ONE,
        "gamma": NonNegative(),
        "alpha": Optional(Positive(arrays=True)),
        "dual_step": OneOf("paper", "common"),
        "theta": Optional(Positive()),
    }

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.n_iterations % 2:
            raise ValueError(f"n_iterations must be even (T = 2K), got {self.n_iterations}")
        if self.theta is not None and self.dual_step != "common":
            raise ValueError("theta is the common dual step: pass it only with dual_step='common'")

    @property
    def private(self) -> bool:
        return self.alpha is not None

    @property
    def gamma_step(self) -> float:
        return float(self.gamma)

    def eta_odd(self, n_agents: int) -> np.ndarray:
        """η_i(2k−1), (K, N)."""
        K = self.n_iterations // 2
        eta: np.ndarray | float | Sequence[float]
        if _is_scalar(self.eta):
            eta = (
                float(self.eta) * float(self.eta_growth) ** np.arange(1, K + 1)
                if self.eta_growth != 1
                else np.full(K, float(self.eta))
            )
        else:
            eta = self.eta
        eta = _schedule_array(eta, K, n_agents, "eta")
        if np.any(np.diff(eta, axis=0) < 0):
            raise ValueError(
                "eta must be non-decreasing in k at every node (MR-ADMM, Zhang, Khalili & Liu 2020, Sec. III-B)"
            )
        return eta

    def step_schedule(self, problem):
        T, N, K = self.n_iterations, problem.n_agents, self.n_iterations // 2
        eta_odd = self.eta_odd(N)
        eta = np.repeat(eta_odd, 2, axis=0)
        if self.dual_step == "paper":
            theta_odd = eta_odd
        else:
            theta_odd = np.full((K, N), float(eta_odd[0].min() if self.theta is None else self.theta))
        theta = np.zeros((T, N))
        theta[0::2] = theta_odd
        exact = np.tile([True, False], K)
        alpha = None
        eps = np.zeros((T, N))
        slots = np.full(T, -1)
        if self.private:
            alpha = _schedule_array(self.alpha, K, N, "alpha")
            constants = self.epsilon_constants(problem)
            eps[0::2] = radmm_epsilons(V=problem.graph.degrees, eta=eta_odd, alpha=alpha, **constants)
            slots[0::2] = np.arange(K)
        else:
            eps[0::2] = np.inf
        return StepSchedule(exact, eta, theta, slots, np.ones((T, N)), alpha, eps)


@dataclass(frozen=True)
class RADMM(MRADMM):
    """R-ADMM (Zhang, Khalili & Liu 2020, Algorithm 1; private: Algorithm 3 with η_i ≡ η): MR-ADMM with a
    constant, common η."""

    name = "radmm"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not _is_scalar(self.eta) or self.eta_growth != 1:
            raise ValueError("R-ADMM has a constant penalty: eta must be a number and eta_growth 1 (use MRADMM)")


@dataclass(frozen=True)
class PenaltyPerturbation(DecentralizedSolver):
    """M-ADMM (10)–(11) with penalty perturbation (Zhang, Khalili & Liu 2018, Algorithm 1, (24)–(25));
    non-private M-ADMM when ``alpha`` is None.

    Schedules (Zhang, Khalili & Liu 2018, Sec. 5): η_i(t) = eta·q1^{t−1} (eta defaults to θ),
    α_i(t) = alpha·q2^{t−1}; or explicit (T,) / (T, N) arrays. ``eta_max`` caps η (an option of this
    toolkit: Theorem 3.1 assumes a bounded η, which geometric schedules are not; the privacy bound, computed
    with the capped η, stays valid).
    Each iteration costs β_i(t) = C(1.4c1 + α_i(t))/(η_i(t)V_iB_i) (Thm 4.1).

    Raises:
      ValueError: η < θ, C > B_i, or the θ-condition fails (private runs).
    """

    theta: float = 0.5
    eta: float | Sequence[float] | None = None
    q1: float = 1.0
    alpha: float | Sequence[float] | None = None
    q2: float = 1.0
    eta_max: float | None = None
    name = "pp"
    penalty_perturbed = True
    parameter_constraints = {
        **DecentralizedSolver.parameter_constraints,
        "theta": Positive(),
        "eta": Optional(Positive(arrays=True)),
        "q1": AT_LEAST_ONE,
        "alpha": Optional(Positive(arrays=True)),
        "q2": Positive(),
        "eta_max": Optional(Positive()),
    }

    @property
    def private(self) -> bool:
        return self.alpha is not None

    def schedules(self, n_agents: int) -> tuple[np.ndarray, np.ndarray | None]:
        """(η (T, N), α (T, N) or None)."""
        T = self.n_iterations
        powers = np.arange(T)
        base = self.theta if self.eta is None else self.eta
        eta = float(base) * float(self.q1) ** powers if _is_scalar(base) else base
        eta = _schedule_array(eta, T, n_agents, "eta")
        if self.eta_max is not None:
            eta = np.minimum(eta, self.eta_max)
        if np.any(eta < self.theta):
            raise ValueError(f"eta_i(t) must be >= theta = {self.theta:g} (Theorem 3.1/4.1), got min {eta.min():g}")
        alpha = None
        if self.alpha is not None:
            a = float(self.alpha) * float(self.q2) ** powers if _is_scalar(self.alpha) else self.alpha
            alpha = _schedule_array(a, T, n_agents, "alpha")
        return eta, alpha

    def step_schedule(self, problem):
        T, N = self.n_iterations, problem.n_agents
        eta, alpha = self.schedules(N)
        V = problem.graph.degrees.astype(np.float64)
        theta = np.full((T, N), float(self.theta))
        if alpha is None:
            return StepSchedule(
                np.ones(T, bool), eta, theta, np.full(T, -1), np.zeros((T, N)), None, np.full((T, N), np.inf)
            )
        eps = pp_epsilons(V=V, eta=eta, alpha=alpha, theta=self.theta, **self.epsilon_constants(problem))
        return StepSchedule(np.ones(T, bool), eta, theta, np.arange(T), 2.0 * eta * V, alpha, eps)


@dataclass(frozen=True)
class MADMM(PenaltyPerturbation):
    """Non-private M-ADMM (Zhang, Khalili & Liu 2018, (10)–(11)): PP with α = ∞."""

    name = "madmm"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.alpha is not None:
            raise ValueError("MADMM is non-private: use PenaltyPerturbation for alpha")


@dataclass(frozen=True)
class DVP(PenaltyPerturbation):
    """Dual variable perturbation (Zhang & Zhu 2017) as characterised by Zhang, Khalili & Liu 2018
    (Sec. 4, after (25)): PP with η_i(t) ≡ θ (q1 = 1), noise α(t) = alpha·q2^{t−1}; its total loss is accounted
    with Theorem 4.1 at η = θ ("DVP as in Zhang, Khalili & Liu 2018")."""

    name = "dvp"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.q1 != 1 or self.eta is not None:
            raise ValueError("DVP has eta(t) = theta: leave eta None and q1 = 1")
        if self.alpha is None:
            raise ValueError("DVP needs alpha (use DecentralizedADMM for the non-private algorithm)")
