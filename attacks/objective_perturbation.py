"""Transcript reconstruction and realised privacy loss for Gamma-norm objective / penalty perturbation.

Solvers: R-ADMM and MR-ADMM (Zhang, Khalili & Liu 2020, Algorithm 3: noise on the odd iterations), the
every-iteration ADMM-OP baseline, PP and DVP (Zhang, Khalili & Liu 2018, Algorithm 1). Every costly
iteration t solves exactly

    f_i(t) = argmin_f O(f, D_i) + (2λ_i(t−1) + s_i(t) ε_i(t))ᵀ f + η_i(t) Σ_{j∈𝒱_i} ‖½(f_i(t−1) + f_j(t−1)) − f‖²

with ε_i(t) of density ∝ exp(−α_i(t)‖ε‖), s = 1 for objective perturbation ((18) of Zhang, Khalili & Liu
2020) and s = 2η_i(t)V_i for penalty perturbation ((24) of Zhang, Khalili & Liu 2018, in its equivalent form
after (25)). Its first-order condition gives, **from the broadcasts alone** ((47) of Zhang, Khalili & Liu
2020; (58) of Zhang, Khalili & Liu 2018),

    ∇O(f_i(t), D_i) + s ε_i(t) = p_i(t) := −2λ_i(t−1) − η_i(t) Σ_j (2f_i(t) − f_i(t−1) − f_j(t−1)),

with λ rebuilt from the transcript (λ_i(0) = 0, λ_i(t) = λ_i(t−1) + (θ_i(t)/2) Σ_j (f_i(t) − f_j(t))).
p_i(t) is R-ADMM's noisy local gradient (the bracket of (19) in Zhang, Khalili & Liu 2020). An adversary who
knows D up to the canary gets ε = (p − ∇O(f_i(t), D))/s under either hypothesis, and the change of variables
((51) of Zhang, Khalili & Liu 2020, (60) of Zhang, Khalili & Liu 2018) gives the conditional density of f_i(t)
as p_α(ε) |det(∇²O + 2ηV I)| / s^d. Other nodes' factors and every data-free release (f(0), R-ADMM's even
iterates) cancel, so the exact log-likelihood ratio of a transcript — its **realised privacy loss** — is

    ℓ = Σ_t α_i(t)(‖ε_t^{D′}‖ − ‖ε_t^{D}‖) + ln det H_t(D) − ln det H_t(D′),   H = ∇²O(f_i(t)) + 2η_i(t)V_i I.

Theorems V.1 and 4.1 bound |ℓ_t| by the iteration's ε for every transcript. ℓ is also the
Neyman–Pearson statistic for D against D′ (:class:`TranscriptNP`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from attacks.base import AttackScores, TrialScorer

if TYPE_CHECKING:
    from solvers.decentralized import DecentralizedPlan

__all__ = [
    "TranscriptNP",
    "costly_iterations",
    "public_gradients",
    "realised_privacy_loss",
    "reconstruct_duals",
    "reconstruct_noise",
]

_SCHEDULE_KEYS = ("exact", "eta", "theta", "noise_scale", "noise_slot", "alpha")


def _check_details(details: DecentralizedPlan) -> None:
    missing = [k for k in _SCHEDULE_KEYS if not hasattr(details, k)]
    if missing:
        raise ValueError(
            f"details must hold the decentralized solver's schedules {_SCHEDULE_KEYS} (a DecentralizedPlan); "
            f"missing {missing}"
        )
    if details.alpha is None:
        raise ValueError("details.alpha is None: the run is not private (no noise to reconstruct)")


def _check_f(f: np.ndarray, n_iterations: int) -> np.ndarray:
    f = np.asarray(f, dtype=np.float64)
    if f.ndim < 3 or f.shape[0] != n_iterations + 1:
        raise ValueError(
            f"f must be the transcript channel 'f' of shape (T+1, ..., N, d) with T = "
            f"{n_iterations}, got shape {f.shape}"
        )
    return f


def costly_iterations(details: DecentralizedPlan) -> np.ndarray:
    """The iterations t (1-based) that draw noise, in order of their noise slot (``details``: the
    run's ``Result.details``)."""
    _check_details(details)
    slots = np.asarray(details.noise_slot)
    return np.flatnonzero(slots >= 0) + 1


def reconstruct_duals(f: np.ndarray, adjacency: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """λ_i(t) for t = 0..T from the broadcasts: λ(0) = 0, λ(t) = λ(t−1) + (θ(t)/2) Lap f(t).

    Args:
      f: (T+1, ..., N, d) broadcasts. adjacency: (N, N). theta: (T, N) dual steps (0 where none).
    """
    A = np.asarray(adjacency, dtype=np.float64)
    lap = np.diag(A.sum(axis=1)) - A
    theta = np.asarray(theta, dtype=np.float64)
    f = _check_f(f, theta.shape[0])
    steps = (
        0.5
        * theta[(slice(None),) + (None,) * (f.ndim - 3) + (slice(None), None)]
        * np.einsum("ij,t...jd->t...id", lap, f[1:])
    )
    return np.concatenate([np.zeros_like(f[:1]), np.cumsum(steps, axis=0)])


def public_gradients(f: np.ndarray, adjacency: np.ndarray, details: DecentralizedPlan) -> np.ndarray:
    """p_i(t) = ∇O(f_i(t), D_i) + s_i(t) ε_i(t) for every costly iteration, from the broadcasts
    alone ((47) of Zhang, Khalili & Liu 2020; for R-ADMM this is the noisy local gradient of the odd step).

    Returns:
      (n_costly, ..., N, d), in the order of :func:`costly_iterations`.
    """
    _check_details(details)
    eta = np.asarray(details.eta, dtype=np.float64)
    f = _check_f(f, eta.shape[0])
    A = np.asarray(adjacency, dtype=np.float64)
    V = A.sum(axis=1)
    lam = reconstruct_duals(f, A, details.theta)
    t = costly_iterations(details)
    expand = (slice(None),) + (None,) * (f.ndim - 3) + (slice(None), None)
    e = eta[t - 1][expand]
    pull = 2 * V[:, None] * f[t] - V[:, None] * f[t - 1] - np.einsum("ij,t...jd->t...id", A, f[t - 1])
    return -2.0 * lam[t - 1] - e * pull


def reconstruct_noise(f: np.ndarray, problem, details: DecentralizedPlan) -> np.ndarray:
    """ε_i(t) = (p_i(t) − ∇O(f_i(t), D_i))/s_i(t) under the data of ``problem`` (a
    ``DecentralizedProblem``): the noise that produced the broadcasts if ``problem`` holds the
    data used. (n_costly, ..., N, d)."""
    t = costly_iterations(details)
    f = _check_f(f, np.asarray(details.eta).shape[0])
    scale = np.asarray(details.noise_scale, dtype=np.float64)[t - 1]
    scale = scale[(slice(None),) + (None,) * (f.ndim - 3) + (slice(None), None)]
    return (public_gradients(f, problem.graph.adjacency, details) - problem.local_gradient_seed(f[t])) / scale


def _log_det_jacobian(f_costly: np.ndarray, problem, eta: np.ndarray, V: np.ndarray, agent: int) -> np.ndarray:
    """ln det(∇²O(f_i(t), D_i) + 2η_i(t)V_i I) of node ``agent`` (the s^d factor cancels in ratios)."""
    H = problem.local_hessian_seed(f_costly)[..., agent, :, :]
    shift = (2.0 * eta[:, agent] * V[agent])[(slice(None),) + (None,) * (H.ndim - 1)]
    sign, logdet = np.linalg.slogdet(H + shift * np.eye(H.shape[-1]))
    if np.any(sign <= 0):
        raise ValueError(
            "the local Hessian is not positive definite: the problem violates Assumptions 4–5 of the papers"
        )
    return logdet


def realised_privacy_loss(
    f: np.ndarray, problem_in, problem_out, details: DecentralizedPlan, agent: int, *, jacobian: bool = True
) -> dict[str, np.ndarray]:
    """Per-iteration realised privacy loss ℓ_t = ln p(f_i(t) | past, D) − ln p(f_i(t) | past, D′)
    of node ``agent`` (module docstring), for every costly iteration and trial.

    Args:
      f: (T+1, ..., N, d) broadcasts (public channel ``f``).
      problem_in, problem_out: ``DecentralizedProblem`` on D and D′ (they differ at ``agent`` only).
      details: the run's ``Result.details`` (public schedules η, θ, s, α, noise slots).
      jacobian: include the log-determinant term (False only to measure its size).

    Returns:
      {"loss": ℓ (n_costly, ...), "noise_term": α(‖ε^{D′}‖ − ‖ε^D‖), "jacobian_term": ln det H(D) −
      ln det H(D′), "eps_in": ε^D of ``agent``, "eps_out": ε^{D′} of ``agent`` ((n_costly, ..., d))}.
    """
    _check_details(details)
    N = problem_in.n_agents
    if not (isinstance(agent, (int, np.integer)) and 0 <= agent < N):
        raise ValueError(f"agent must be a node index in [0, {N}), got {agent!r}")
    if problem_out.n_agents != N or problem_out.n_features != problem_in.n_features:
        raise ValueError("problem_in and problem_out must have the same nodes and features")
    if not np.array_equal(problem_in.graph.adjacency, problem_out.graph.adjacency):
        raise ValueError("problem_in and problem_out must be on the same graph")
    t = costly_iterations(details)
    f = _check_f(f, np.asarray(details.eta).shape[0])
    eps_in = reconstruct_noise(f, problem_in, details)[..., agent, :]
    eps_out = reconstruct_noise(f, problem_out, details)[..., agent, :]
    alpha = np.asarray(details.alpha, dtype=np.float64)[np.asarray(details.noise_slot)[t - 1], agent]
    alpha = alpha[(slice(None),) + (None,) * (eps_in.ndim - 2)]
    noise_term = alpha * (np.linalg.norm(eps_out, axis=-1) - np.linalg.norm(eps_in, axis=-1))
    eta = np.asarray(details.eta, dtype=np.float64)[t - 1]
    V = np.asarray(problem_in.graph.adjacency, dtype=np.float64).sum(axis=1)
    jac = np.zeros_like(noise_term)
    if jacobian:
        jac = _log_det_jacobian(f[t], problem_in, eta, V, agent) - _log_det_jacobian(f[t], problem_out, eta, V, agent)
    return {
        "loss": noise_term + jac,
        "noise_term": noise_term,
        "jacobian_term": jac,
        "eps_in": eps_in,
        "eps_out": eps_out,
    }


@dataclass(frozen=True, eq=False)
class TranscriptNP(TrialScorer):
    """The Neyman–Pearson membership test for one record of node ``agent``: the transcript's exact
    log-likelihood ratio ℓ (D against D′), higher means "the record of D was used".

    Threat model (Def. V.1 of Zhang, Khalili & Liu 2020, Def. 4.1 of Zhang, Khalili & Liu 2018): the
    adversary sees every broadcast f_j(t), t = 0..T, knows the public schedules (η, θ, α, s), λ(0) = 0, and
    every record except which of the two candidates node ``agent`` holds. It never reads λ or the noise.
    """

    problem_in: Any
    problem_out: Any
    agent: int
    name: str = "transcript_np"

    def loss(self, result) -> dict[str, np.ndarray]:
        """:func:`realised_privacy_loss` of a batched ``Result`` (public channel ``f`` only)."""
        if result.transcript is None:
            raise ValueError("the result has no transcript: run the solver with record_transcript=True")
        public = result.transcript.public()
        if not public.batched:
            raise ValueError("the attack needs a batched result (run with trials= or seeds=)")
        return realised_privacy_loss(public["f"], self.problem_in, self.problem_out, result.details, self.agent)

    def score(self, result) -> np.ndarray:
        """ℓ summed over the costly iterations, (R,)."""
        return self.loss(result)["loss"].sum(axis=0)

    def observe(self, result, on_d: bool) -> dict[str, Any]:
        """What an audit keeps of a chunk (:class:`attacks.base.Attack`): ℓ_t per costly iteration
        ("loss", (T_c, R)), the largest |Jacobian term| ("jacobian") and the canary's noise shift
        ‖ε^D′ − ε^D‖ ("shift", (T_c, R))."""
        parts = self.loss(result)
        return {
            "loss": parts["loss"],
            "jacobian": float(np.abs(parts["jacobian_term"]).max()),
            "shift": np.linalg.norm(parts["eps_out"] - parts["eps_in"], axis=-1),
        }

    def conclude(
        self, seen_on_d: Sequence[Mapping[str, Any]], seen_on_d_prime: Sequence[Mapping[str, Any]]
    ) -> AttackScores:
        """The scores ℓ = Σ_t ℓ_t of the observed chunks, in trial order."""
        ell_in, ell_out = (np.concatenate([s["loss"] for s in seen], axis=1) for seen in (seen_on_d, seen_on_d_prime))
        return AttackScores(
            self.name, ell_in.sum(axis=0), ell_out.sum(axis=0), white_box=self.white_box, metadata=self.metadata()
        )

    def metadata(self) -> dict:
        return {
            "reads": "every broadcast f_j(t), t = 0..T (public channel 'f') and the public schedules "
            "(η, θ, α, noise scale s)",
            "knows": f"every record except which candidate node {int(self.agent)} holds",
            "statistic": "exact log-likelihood ratio Σ_t α_t(‖ε_t^D′‖ − ‖ε_t^D‖) + ln det H_t(D) − ln det H_t(D′)",
            "agent": int(self.agent),
        }
