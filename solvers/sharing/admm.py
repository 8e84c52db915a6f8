"""Parallel ADMM sharing over vertically partitioned features (Hu et al. 2019, Algorithm 1 and (10)).

Hu, Liu, Kong, Niu, "Learning Privately over Distributed Features: An ADMM Sharing Approach"
(Hu, Liu, Kong & Niu 2019, arXiv 1907.07735), Secs. 3–4. Iteration t → t+1, all parties in parallel (Jacobi):

  (6) x_m^{t+1} = argmin_{‖x‖≤b_1} λR_m(x) + <y^t, D_m x> + (ρ/2)‖b_m^t + D_m x‖²,  b_m^t = r^t − ũ_m^t
      party m releases ũ_m^{t+1} = D_m x_m^{t+1} (+ noise): N numbers, one per sample
  (7) z^{t+1}   = argmin_z l(z) − <y^t, z> + (ρ/2)‖s^{t+1} − z‖²,   s^{t+1} = Σ_m ũ_m^{t+1}
  (8) y^{t+1}   = y^t + ρ(s^{t+1} − z^{t+1});  the server broadcasts r^{t+1} = s^{t+1} − z^{t+1} and y^{t+1}

from x = z = y = 0. Party m's cached ũ_m^t is the (noisy) value it pushed, since the server's sum
contains it. The model is always the noise-free x^t (the paper does not say which model its private runs
evaluate).

The iteration is written once, as the pieces of ``solvers.engine.StepSolver`` (party m's (6) and release,
the server's (7) and (8)), agent-major ((parties, trials, ...): every product batches over the parties);
the engine derives the vectorised run, the parties and server of the sequential and Ray backends, and
the white-box replay. Party m also sends the server its x_m^{t+1}, which is not released (no privacy
event; the white-box channel ``x``): the run's model is built from it. The updates, with no loop over
parties or trials:
  - l2 (R = ½‖·‖²): closed form on the cached thin SVD D_m = U S Vᵀ,
    x = −V diag(s/(λ + μ + ρs²)) Uᵀ(y + ρb); μ = 0 unconstrained, else the smallest μ ≥ 0 with
    ‖x‖ ≤ b_1 (Newton on the secular equation 1/‖x(μ)‖ = 1/b_1);
  - l1: (6) solved exactly by FISTA (``solvers.inner``) with prox = soft-threshold then ball scaling;
  - (7): per-sample safeguarded Newton in the bracket s + (y ± S_1/N)/ρ to relative step 1e−12.

Noise modes (``noise=None`` is Algorithm 1; "output" is this toolkit's addition, the mechanism that the proof
of Theorem 1 analyses):
  - ``"output"``: ũ_m = D_m x_m + N(0, σ_m² I_N). With ``sensitivity="safe"`` (default), σ_m is
    calibrated to Δ_safe = 2√N b_1, which holds because x_m is kept in the ball of radius b_1
    (the ball is part of the mechanism); every release is a ``GaussianDpEvent`` registered with
    participant = party index, and ``Result.privacy`` holds the accountants' ε per party.
  - ``"parameter"``: the paper's (10): ũ_m = D_m(x_m + ξ), ξ ~ N(0, σ_m²(D_mᵀD_m)^+), σ_m from Theorem 1
    with Lemma 1's C. **Not differentially private** (the release stays in col(D_m), which differs between
    neighbours; and Lemma 1 fails, see ``solvers.sharing.privacy``): nothing is registered as a guarantee
    (the ledger records ``NonPrivateDpEvent``s, so every accountant reports ∞) and ``Result.info`` holds the
    paper's claimed ε (Corollary 1) with ``claim_verified=False`` and the reason.
  - ``"output"`` with ``sensitivity="stability"``: certified for a change of one row of D_m, σ_m
    calibrated to Δ_stab = 2 sqrt(b_1 (2 b_1 + β + η/ρ)) (``solvers.sharing.privacy.stability_sensitivity``),
    which does not grow with N: party m clips its inputs of (6) to the box |y_i| ≤ η = S_1/N,
    |b_i| ≤ β = b_1 + 2S_1/(Nρ) that the noise-free run never leaves (``stability_input_bounds``), and
    (6) is solved exactly (l2 only; the l1 update is iterative).
  - ``"output"`` with ``sensitivity="paper"``: output noise calibrated to Lemma 1's C: a claim as
    in parameter mode (an audit target).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from dp_accounting import dp_event

from accountants import gaussian_epsilon
from accountants.constraints import Integer, NonNegative, OneOf, Optional, Positive
from mechanisms import GaussianMechanism, Mechanism
from mechanisms.gaussian import CALIBRATION, DELTA, Calibration
from solvers.engine.plan import RunPlan, details_info
from solvers.engine.recording import ChannelSpec
from solvers.engine.step import Agents, Combined, Release, StepSolver
from solvers.engine.transcript import Transcript
from solvers.inner import accelerated_proximal_gradient
from solvers.regularizers import L2Regularizer
from solvers.sharing.base import VerticalRecorder, VerticalSolver
from solvers.sharing.privacy import (
    PAPER_SENSITIVITY_REASON,
    PARAMETER_MODE_REASON,
    corollary1_epsilon,
    lemma1_bound,
    safe_sensitivity,
    stability_input_bounds,
    stability_sensitivity,
    theorem1_epsilon,
    theorem1_sigma,
)
from solvers.sharing.problem import BlockSVD, VerticalProblem, effective_lam
from solvers.sharing.steps import BALL_SLACK, ball_constrained_l2_coefficients, z_update

__all__ = [
    "ADMMSharing",
    "CertifiedSharingPlan",
    "ClaimedSharingPlan",
    "NoisySharingPlan",
    "PartyBlocks",
    "PartyState",
    "SharingPlan",
    "StableSharingPlan",
    "ZeroNoiseSharingPlan",
]


#: The sensitivities whose output noise the accountants certify.
_CERTIFIED = ("safe", "stability")


@dataclass(frozen=True)
class SharingPlan:
    """The constants of ADMM sharing (Hu et al. 2019, Algorithm 1), fixed before the run
    (``RunPlan.details``); without noise (``noise=None``) the plan's details are exactly these.

    Attributes:
      rho: the penalty ρ > 0 of the augmented Lagrangian (default 1/N, N samples).
      lam: λ of the problem (``VerticalProblem.lam``), the weight of Σ_m R_m(x_m).
      b1: radius b_1 of the ball X_m = {‖x_m‖ ≤ b_1} (Assumption 2.1), or None (unconstrained).
      noise: the noise mode: None, "output" or "parameter" (the paper's (10)).
      sklearn_C: the equivalent scikit-learn C = 1/(λN).
      block_widths: the parties' column-block widths d_m, a list of M ints.
      block_rank: rank(D_m) of each party's block, a list of M ints.
    """

    rho: float
    lam: float | None
    b1: float | None
    noise: str | None
    sklearn_C: float
    block_widths: list[int]
    block_rank: list[int]


@dataclass(frozen=True)
class NoisySharingPlan(SharingPlan):
    """A noisy mode's plan (base of the three below).

    Attributes:
      sensitivity: Δ_m (M,), party m's sensitivity: Δ_safe = 2√N b_1 (certified output mode) or
        Lemma 1's claimed C (Hu et al. 2019; claim modes).
      sigma: σ_m (M,), the noise standard deviation (per shared value in output mode; the scale
        of ξ in parameter mode, eq. (10)).
    """

    sensitivity: np.ndarray
    sigma: np.ndarray


@dataclass(frozen=True)
class ZeroNoiseSharingPlan(NoisySharingPlan):
    """A noisy mode with σ = 0: no noise, nothing private.

    Attributes:
      claim_verified: always False.
      claim_reason: why ("sigma = 0: no noise, not private").
    """

    claim_verified: Literal[False]
    claim_reason: str


@dataclass(frozen=True)
class CertifiedSharingPlan(NoisySharingPlan):
    """Output noise calibrated to Δ_safe (``noise="output"``, ``sensitivity="safe"``): certified.

    Attributes:
      noise_multiplier: z_m = σ_m/Δ_m (M,).
      claim_verified: always True.
      adjacency: the neighbouring relation the guarantee holds for (text).
      epsilon_joint_rows: ε at the target δ of a change of every party's rows at once (Gaussian
        DP with μ = sqrt(T Σ_m 1/z_m²)).
      not_accounted: what the guarantee does not cover (text).
    """

    noise_multiplier: np.ndarray
    claim_verified: Literal[True]
    adjacency: str
    epsilon_joint_rows: float
    not_accounted: str


@dataclass(frozen=True)
class StableSharingPlan(CertifiedSharingPlan):
    """Output noise calibrated to Δ_stab (``sensitivity="stability"``): certified for a change of one row
    of a party's block, with the party's inputs of (6) clipped.

    Attributes:
      dual_bound: η = S_1/N, the clip of |y_i^t|.
      residual_bound: β = b_1 + 2S_1/(Nρ), the clip of |b_{m,i}^t|.
    """

    dual_bound: float
    residual_bound: float


@dataclass(frozen=True)
class ClaimedSharingPlan(NoisySharingPlan):
    """The paper's claim (parameter mode, or output mode with Lemma 1's C): not verified.

    Attributes:
      claimed_sensitivity: Lemma 1's C_m (M,) (Hu et al. 2019).
      claimed_epsilon_per_iteration: ε_m (M,) per iteration (given, or Theorem 1 from σ_m and C_m).
      claimed_epsilon: ε' of Corollary 1 over T iterations at δ', the worst party.
      claimed_epsilon_basic: T·max_m ε_m (basic composition).
      claimed_delta: Tδ + δ' of Corollary 1.
      claim_theorem1_applies: whether every ε_m ≤ 1 (Theorem 1's range).
      claim_verified: always False.
      claim_reason: why the claim is not a guarantee (column space, or Lemma 1 false).
    """

    claimed_sensitivity: np.ndarray
    claimed_epsilon_per_iteration: np.ndarray
    claimed_epsilon: float
    claimed_epsilon_basic: float
    claimed_delta: float
    claim_theorem1_applies: bool
    claim_verified: Literal[False]
    claim_reason: str


class _UnaccountedGaussian(Mechanism):
    """N(0, σ²) draws for the modes whose privacy is only claimed: no event, nothing to register."""

    def __init__(self, sigma: np.ndarray) -> None:
        self._sigma = np.asarray(sigma, dtype=np.float64)

    @property
    def parameter_shape(self) -> tuple[int, ...]:
        return self._sigma.shape

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.standard_normal(shape) * self._sigma


@dataclass(frozen=True)
class ADMMSharing(VerticalSolver, StepSolver[VerticalProblem, VerticalRecorder]):
    """ADMM sharing (Algorithm 1), optionally with noise on the shared vectors (see module docstring).

    Args:
      rho: penalty ρ > 0; None gives the toolkit's default 1/N (the paper gives no ρ).
      n_iterations: T ≥ 1 (T releases per party; one iteration is the paper's "epoch").
      noise: None (non-private), "output" (Gaussian noise on D_m x_m) or "parameter" (the paper's
        noise on x_m; not DP).
      epsilon: per-iteration ε. Output mode with the safe sensitivity: calibrated with
        ``calibration``; claim modes: Theorem 1 (classic, ε ≤ 1).
      noise_multiplier: z = σ/Δ per release, instead of ``epsilon``.
      sigma: the noise standard deviation σ itself (per shared value in output mode; the scale of
        ξ in parameter mode), instead of ``epsilon``; 0 switches the noise off.
      delta: δ of the per-iteration calibration (and of the reported ε unless ``delta_target``).
      delta_target: δ at which ``Result.privacy`` reports ε (output mode, safe sensitivity).
      delta_prime: δ' of Corollary 1 (claim modes): the claim is (ε', Tδ + δ').
      b1: radius of the ball X_m = {‖x_m‖ ≤ b_1}; required by every private mode (the bound of
        Assumption 2.1, enforced). Optional without noise (then the constrained problem is solved).
      sensitivity: output mode: "safe" (Δ = 2√N b_1, certified for any change of D_m), "stability"
        (Δ_stab, certified for a change of one row of D_m, l2 only; module docstring) or "paper"
        (Lemma 1's C, claimed).
      calibration: "classic" or "analytic" (output mode, certified sensitivity, from ``epsilon``).
      tol: relative step tolerance of the per-sample z Newton solves.
      inner_tol: l1 only: tolerance of the exact x_m solve (prox-gradient mapping norm).
    """

    rho: float | None = None
    n_iterations: int = 50
    noise: str | None = None
    epsilon: float | None = None
    noise_multiplier: float | None = None
    sigma: float | None = None
    delta: float = 1e-5
    delta_target: float | None = None
    delta_prime: float = 1e-5
    b1: float | None = None
    sensitivity: str = "safe"
    calibration: Calibration = "classic"
    tol: float = 1e-12
    inner_tol: float = 1e-10

    name = "admm_sharing"
    history_extras = ("primal_residual",)
    sent_channel = "u"
    broadcast_channel = "y"
    agent_axis = 0  # (parties, trials, ...): every party's products batch over the parties
    channels = {
        "u": ChannelSpec(
            "agents", "ũ_m^{t+1} = D_m x_m^{t+1} (+ noise): party m's shared N-vector, one value per sample (line 6)"
        ),
        "r": ChannelSpec(
            "server", "r^{t+1} = Σ_m ũ_m^{t+1} − z^{t+1}: the residual broadcast to every party (line 12)"
        ),
        "y": ChannelSpec("server", "y^{t+1}, (8): the dual variable broadcast to every party (line 12)"),
        "u_clean": ChannelSpec("agents", "D_m x_m^{t+1}: party m's noise-free share (never released)", white_box=True),
        "x": ChannelSpec(
            "agents", "x_m^{t+1}, zero-padded to d_max: party m's local model (never released)", white_box=True
        ),
    }

    parameter_constraints = {
        "rho": Optional(Positive()),
        "n_iterations": Integer(1),
        "noise": Optional(OneOf("parameter", "output")),
        "epsilon": Optional(Positive()),
        "noise_multiplier": Optional(Positive()),
        "sigma": Optional(NonNegative()),
        "delta": DELTA,
        "delta_target": Optional(DELTA),
        "delta_prime": DELTA,
        "b1": Optional(Positive()),
        "sensitivity": OneOf("safe", "stability", "paper"),
        "calibration": CALIBRATION,
        "tol": Positive(),
        "inner_tol": Positive(),
    }

    def __post_init__(self) -> None:
        """Exactly one of epsilon, noise_multiplier, sigma with a noise mode (and b1), none without."""
        super().__post_init__()
        given = [name for name in ("epsilon", "noise_multiplier", "sigma") if getattr(self, name) is not None]
        if self.noise is None:
            if given:
                raise ValueError(f"{given[0]}={getattr(self, given[0])!r} needs a noise mode: pass noise='output'")
            return
        if len(given) != 1:
            raise ValueError(
                f"noise={self.noise!r} needs exactly one of epsilon, noise_multiplier, sigma; got {given or 'none'}"
            )
        if self.b1 is None:
            raise ValueError(
                f"noise={self.noise!r} needs b1, the radius of the ball that keeps every ‖x_m‖ ≤ b1 "
                "(the bound the sensitivity rests on)"
            )

    @property
    def certified(self) -> bool:
        """Whether the releases carry a guarantee the accountants can state (output mode, Δ_safe)."""
        return self.noise == "output" and self.sensitivity in _CERTIFIED and self.sigma != 0

    @property
    def replay_refusal(self) -> str | None:
        """Parameter mode's noise D_m ξ ~ N(0, σ_m² P_m) lies in col(D_m) (P_m its projector, (10) of Hu et al.
        2019), a subspace of the private block that differs between neighbours: no one σ per shared value."""
        return "its noise lies in col(D_m): no one σ per shared value" if self.noise == "parameter" else None

    @property
    def target_delta(self) -> float | None:
        if not self.certified:
            return None
        return self.delta if self.delta_target is None else self.delta_target

    # --------------------------------------------------------------------------------------------
    def plan(self, problem: VerticalProblem) -> RunPlan[SharingPlan]:
        T, M, N = self.n_iterations, problem.n_parties, problem.n_samples
        rho = 1.0 / N if self.rho is None else float(self.rho)
        l2 = isinstance(problem.regularizer, L2Regularizer)
        claim = self.noise is not None and not (self.noise == "output" and self.sensitivity in _CERTIFIED)
        if self.noise is not None and self.sensitivity == "stability" and not l2:
            raise ValueError(
                "sensitivity='stability' needs the exact x-update of R = ½‖·‖² (the l1 update is iterative): "
                "use sensitivity='safe'"
            )
        if claim and not l2:
            raise ValueError(
                f"noise={self.noise!r} with the paper's analysis needs a twice-differentiable R_m (Assumption 2.2); "
                "l1 is excluded: use noise='output' with sensitivity='safe'"
            )
        svd = problem.block_svd
        base = SharingPlan(
            rho=rho,
            lam=problem.lam,
            b1=self.b1,
            noise=self.noise,
            sklearn_C=problem.sklearn_C,
            block_widths=problem.partition.widths.tolist(),
            block_rank=svd.rank.tolist(),
        )
        non_private = [[dp_event.NonPrivateDpEvent()] * M for _ in range(T)]
        if self.noise is None:
            return RunPlan(T, non_private, None, (), base)
        problem.check_feature_bound(1.0)
        b1 = self.b1
        if b1 is None:  # __post_init__ requires b1 with every noise mode
            raise ValueError(f"noise={self.noise!r} needs b1")
        if claim:
            sensitivity = np.asarray(
                lemma1_bound(
                    problem.partition.widths, rho, effective_lam(problem), problem.regularizer.hessian_bound, b1, M
                ),
                dtype=np.float64,
            ).reshape(M)
        elif self.sensitivity == "stability":
            dual_bound, residual_bound = stability_input_bounds(N, rho, b1, problem.loss.gradient_bound)
            sensitivity = np.full(M, stability_sensitivity(b1, rho, dual_bound, residual_bound))
        else:
            sensitivity = np.full(M, safe_sensitivity(N, b1))
        if self.sigma is not None:
            sigma = np.full(M, float(self.sigma))
        elif self.noise_multiplier is not None:
            sigma = self.noise_multiplier * sensitivity
        elif self.epsilon is None:  # __post_init__ requires one of sigma, noise_multiplier, epsilon
            raise ValueError(f"noise={self.noise!r} needs one of epsilon, noise_multiplier, sigma")
        elif claim:
            sigma = np.asarray(theorem1_sigma(sensitivity, self.epsilon, self.delta), dtype=np.float64).reshape(M)
        else:
            z = GaussianMechanism.from_epsilon_delta(1.0, self.epsilon, self.delta, self.calibration).noise_multiplier
            sigma = float(z) * sensitivity
        common = {**details_info(base), "sensitivity": sensitivity, "sigma": sigma}
        noise_width = N if self.noise == "output" else svd.s.shape[1]
        noise_shape = (T, M, noise_width)
        if np.all(sigma == 0):
            zero = ZeroNoiseSharingPlan(**common, claim_verified=False, claim_reason="sigma = 0: no noise, not private")
            return RunPlan(T, non_private, None, (), zero)
        if not claim:
            z = sigma / sensitivity
            mechanism = GaussianMechanism.from_noise_multiplier(
                np.broadcast_to(sensitivity[None, :, None], (T, M, 1)), z[None, :, None]
            )
            events = mechanism.events()
            mu = math.sqrt(T * float(np.sum(1.0 / z**2)))
            target_delta = self.target_delta
            if target_delta is None:  # certified: output noise of σ > 0 calibrated to Δ_safe
                raise ValueError("a certified run reports ε at a target δ")
            kind: type[CertifiedSharingPlan] = CertifiedSharingPlan
            extra: dict[str, Any] = {}
            adjacency = "per party: any change of D_m with rows in the unit ball (Δ_safe bounds ‖D_m x‖ for all)"
            if self.sensitivity == "stability":
                kind, extra = StableSharingPlan, {"dual_bound": dual_bound, "residual_bound": residual_bound}
                adjacency = "per party: a change of one row of D_m, rows in the unit ball (Δ_stab)"
            certified = kind(
                **common,
                noise_multiplier=z,
                claim_verified=True,
                adjacency=adjacency,
                epsilon_joint_rows=gaussian_epsilon(mu, target_delta),
                not_accounted=(
                    "the labels, the server's broadcasts' dependence on them, and test-time shares D_m^te x_m"
                ),
                **extra,
            )
            return RunPlan(T, [events[t * M : (t + 1) * M] for t in range(T)], mechanism, noise_shape, certified)
        per_iteration = self.epsilon if self.epsilon is not None else theorem1_epsilon(sensitivity, sigma, self.delta)
        per_iteration = np.broadcast_to(np.asarray(per_iteration, dtype=np.float64), (M,))
        claimed = ClaimedSharingPlan(
            **common,
            claimed_sensitivity=sensitivity,
            claimed_epsilon_per_iteration=per_iteration.copy(),
            claimed_epsilon=max(corollary1_epsilon(float(e), T, self.delta_prime) for e in per_iteration),
            claimed_epsilon_basic=float(T * per_iteration.max()),
            claimed_delta=T * self.delta + self.delta_prime,
            claim_theorem1_applies=bool(np.all(per_iteration <= 1.0)),
            claim_verified=False,
            claim_reason=PARAMETER_MODE_REASON if self.noise == "parameter" else PAPER_SENSITIVITY_REASON,
        )
        return RunPlan(T, non_private, _UnaccountedGaussian(sigma[:, None]), noise_shape, claimed)

    # ---- the pieces of one iteration (solvers.engine.step): party m's (6), the server's (7) and (8) ----
    def everyone(self, problem: VerticalProblem) -> PartyBlocks:
        return PartyBlocks.of(problem, slice(None))

    def share(self, problem: VerticalProblem, agent: int) -> PartyBlocks:
        """Party ``agent``'s column block (as its SVD) and the public constants: no labels, no other block."""
        return PartyBlocks.of(problem, slice(agent, agent + 1))

    def agent_state(self, agents: Agents, plan: RunPlan[Any], n_trials: int, noise: np.ndarray | None) -> PartyState:
        (M, N, _), width = agents.data.svd.U.shape, agents.data.svd.Vt.shape[2]
        return PartyState(x=np.zeros((M, n_trials, width)), shared=np.zeros((M, n_trials, N)))

    def release(
        self,
        agents: Agents,
        plan: RunPlan[Any],
        k: int,
        state: PartyState,
        inbound: tuple[np.ndarray, np.ndarray],
        noise: np.ndarray | None,
    ) -> Release:
        """(6) from the broadcast (r^t, y^t) and the party's last share ũ_m^t, then ũ_m^{t+1} = D_m x_m^{t+1}
        (+ its noise: N(0, σ_m² I_N) in output mode, D_m ξ = σ_m U_m g on col(D_m) in parameter mode (10))."""
        (r, y), blocks, rho = inbound, agents.data, plan.details.rho
        svd, Ut = blocks.svd, blocks.svd.U.transpose(0, 2, 1)
        b = r - state.shared
        if isinstance(plan.details, StableSharingPlan):  # the inputs Δ_stab assumes bounded (no-op without noise)
            y = np.clip(y, -plan.details.dual_bound, plan.details.dual_bound)
            b = np.clip(b, -plan.details.residual_bound, plan.details.residual_bound)
        c = (y + rho * b) @ svd.U  # Uᵀ(y^t + ρ b_m^t), (M, R, K)
        if isinstance(blocks.regularizer, L2Regularizer):
            a = ball_constrained_l2_coefficients(c, svd.s, blocks.lam, rho, self.b1)
            x = a @ svd.Vt
        else:
            if state.x is None:
                raise ValueError(
                    "the l1 x-update warm-starts at the party's previous x_m, which a replay does not hold"
                )
            x = self.l1_update(state.x, c, svd, blocks, rho)
            a = x @ svd.Vt.transpose(0, 2, 1)
        clean = (a * svd.s[:, None, :]) @ Ut  # D_m x_m^{t+1}, (M, R, N)
        if noise is None:
            shared = clean
        elif self.noise == "parameter":
            shared = clean + (noise[:, k].transpose(1, 0, 2) * svd.in_range[:, None, :]) @ Ut
        else:
            shared = clean + noise[:, k].transpose(1, 0, 2)
        return Release(shared, {"u_clean": clean}, kept=x, reported={"x": x})

    def advance(
        self, agents: Agents, plan: RunPlan[Any], k: int, state: Any, inbound: Any, release: Release
    ) -> PartyState:
        """The party keeps its x_m^{t+1} and the share it pushed, ũ_m^{t+1} (the server's sum holds it)."""
        return PartyState(x=release.kept, shared=release.sent)

    def coordinator_state(self, problem: VerticalProblem, plan: RunPlan[Any], n_trials: int) -> tuple[np.ndarray, ...]:
        """(r^0, y^0) = 0."""
        return np.zeros((n_trials, problem.n_samples)), np.zeros((n_trials, problem.n_samples))

    def inbound(self, problem: VerticalProblem, plan: RunPlan[Any], k: int, state: Any) -> tuple[np.ndarray, ...]:
        """The server's broadcast (r^t, y^t)."""
        return state

    def combine(self, problem: VerticalProblem, plan: RunPlan[Any], k: int, state: Any, received: Release) -> Combined:
        """s^{t+1} = Σ_m ũ_m^{t+1}, (7) and (8) from (r^t, y^t); the model is the parties' noise-free x^{t+1}."""
        y, rho, x = state[1], plan.details.rho, received.reported["x"]
        total = received.sent.sum(axis=0)
        z, newton = z_update(total, y, problem.partition.y, rho, problem.loss, tol=self.tol)
        y = y + rho * (total - z)
        r = total - z
        diagnostics = {
            "z_newton_iterations": float(newton),
            "max_x_norm": float(np.sqrt(np.einsum("mrd,mrd->mr", x, x).max())),
            "max_y_norm": float(np.linalg.norm(y, axis=-1).max()),
            "max_z_norm": float(np.linalg.norm(z, axis=-1).max()),
        }
        return Combined((r, y), problem.partition.join_model(x.transpose(1, 0, 2)), {"r": r, "y": y}, diagnostics)

    def release_sigma(self, plan: RunPlan[Any]) -> np.ndarray:
        """σ_m in every iteration, (T, M) (zero without noise: (T, 1)); parameter mode's noise lies in
        col(D_m), with no one σ per shared value."""
        if plan.mechanism is None:
            return np.zeros((plan.n_iterations, 1))
        if self.replay_refusal is not None:
            return super().release_sigma(plan)
        sigma = np.asarray(plan.details.sigma, dtype=np.float64)
        return np.broadcast_to(sigma, (plan.n_iterations, sigma.shape[0]))

    def replayed_inbound(self, problem: VerticalProblem, plan: RunPlan[Any], k: int, transcript: Transcript) -> Any:
        """(r^t, y^t): zero at t = 0, then the server's broadcasts of the iteration before."""
        if k == 0:
            return self.coordinator_state(problem, plan, transcript["y"].shape[1])
        return transcript["r"][k - 1], transcript["y"][k - 1]

    def record(
        self,
        problem: VerticalProblem,
        recorder: VerticalRecorder,
        k: int,
        model: np.ndarray,
        sent: np.ndarray,
        channels: Mapping[str, Any],
    ) -> None:
        """Record iteration t with the primal residual ‖r^{t+1}‖ of the sharing constraint."""
        recorder.record(k, model, {"primal_residual": np.linalg.norm(channels["r"], axis=-1)}, **channels)

    def l1_update(self, x0: np.ndarray, c: np.ndarray, svd: BlockSVD, blocks: PartyBlocks, rho: float) -> np.ndarray:
        """(6) for R = ‖·‖₁ (and the ball), solved exactly by FISTA from the previous x_m."""
        s, Vt, lam, b1 = svd.s, svd.Vt, blocks.lam, self.b1
        V = Vt.transpose(0, 2, 1)
        linear = (s[:, None, :] * c) @ Vt  # D_mᵀ(y + ρb), (M, R, d_max)
        curvature = (rho * s * s)[:, None, :]
        widths = blocks.widths
        full_rank = (svd.rank == widths) & (widths <= blocks.n_samples)
        smallest = s[np.arange(s.shape[0]), np.minimum(widths, s.shape[1]) - 1]
        strong = np.where(full_rank, rho * smallest**2, 0.0)[:, None]
        lipschitz = np.maximum(rho * s[:, :1] ** 2, np.finfo(float).tiny)

        def gradient(v: np.ndarray) -> np.ndarray:
            return linear + ((v @ V) * curvature) @ Vt

        def prox(v: np.ndarray, step: np.ndarray) -> np.ndarray:
            w = np.sign(v) * np.maximum(np.abs(v) - step * lam, 0.0)
            if b1 is None:
                return w
            norms = np.linalg.norm(w, axis=-1, keepdims=True)
            radius = b1 * (1.0 - BALL_SLACK)
            return w * (radius / np.maximum(norms, radius))  # 1 inside the ball, radius/‖w‖ outside

        shape = x0.shape[:2]
        solution = accelerated_proximal_gradient(
            gradient,
            prox,
            x0,
            lipschitz=np.broadcast_to(lipschitz, shape),
            strong_convexity=np.broadcast_to(strong, shape),
            tol=self.inner_tol,
        )
        return solution.x


@dataclass(frozen=True)
class PartyBlocks:
    """What parties hold: their column blocks as thin SVDs (``BlockSVD`` of n parties), widths d_m (n,) and the
    public λ, R and N; ``of(problem, rows)``: all parties (``slice(None)``) or party m (``slice(m, m + 1)``)."""

    svd: BlockSVD
    widths: np.ndarray
    lam: float
    regularizer: Any
    n_samples: int

    @classmethod
    def of(cls, problem: VerticalProblem, rows: slice) -> PartyBlocks:
        svd = problem.block_svd
        if rows != slice(None):
            svd = BlockSVD(
                U=svd.U[rows], s=svd.s[rows], Vt=svd.Vt[rows], rank=svd.rank[rows], in_range=svd.in_range[rows]
            )
        return cls(svd, problem.partition.widths[rows], effective_lam(problem), problem.regularizer, problem.n_samples)


@dataclass(frozen=True)
class PartyState:
    """The parties' state, (n, R, ...) each: x_m^t, the l1 update's warm start (None in a replay, which reads
    only the released shares), and ũ_m^t, the share each party last pushed (zero before iteration 0)."""

    x: np.ndarray | None
    shared: np.ndarray
