"""KKT inference of one record from a decentralized ADMM transcript (Zhang, Khalili & Liu 2018,
Sec. 6.2 and App. E).

Threat model (the paper's, Sec. 6.2). The attacker targets node i and knows every record of i but
the first, {(x_n, y_n)}_{n=2..B_i}; every broadcast f_j(t), j ∈ 𝒱_i ∪ {i}, t = 0..T (it reads only
``Transcript.public()``); the dual step θ; the public constants C, B_i, ρ, N, V_i, the loss and
R = ½‖f‖². In the paper's successful case it also knows node i's penalties η_i(t) (``eta`` = the
true schedule); when η is private it uses a guess, or the η-free estimate. It never reads the
solver's private state (duals, noise), so ``white_box`` is False.

The attack, for every iteration t of an exact local solve (the KKT condition (12), and (58) for
penalty perturbation):

1. rebuild the duals, λ_i(t) = (θ/2) Σ_{r≤t} (V_i f_i(r) − Σ_{j∈𝒱_i} f_j(r)), λ_i(0) = 0 (11);
2. a_t = (C/B_i) Σ_{n≥2} y_n ℒ′(y_n f_i(t)ᵀx_n) x_n + (ρ/N) f_i(t) + 2λ_i(t−1) (needs no η),
   b_t = Σ_{j∈𝒱_i} (2f_i(t) − f_i(t−1) − f_j(t−1));
3. the KKT residual r_t = −a_t/(2η_i(t)V_i) − b_t/(2V_i), which equals ε_i(t) + s_t x_1 exactly with
   s_t = (C/(2η_i(t)V_iB_i)) y_1 ℒ′(y_1 f_i(t)ᵀx_1) (the identity of App. E); averaging over t removes the
   zero-mean noise: v̂ = Σ_t w_t r_t ∝ −y_1 x_1, since ℒ′ < 0 (logistic);
4. η-free estimates, for a private η (derived here; the paper has none): at a noiseless fixed point b_t = 0
   and ∇O(f*, D_i) + 2λ_i* = 0, so a_t → −(C/B_i) y_1 ℒ′ x_1; v̂_B = −mean of a_t over the last
   ``late_fraction`` of the iterations, again ∝ −y_1 x_1; and (derived here) the subspace
   estimate: a_t + η_t b_t ∝ x_1 + noise at every t, so x_1 lies in every span(a_t, b_t)
   (:func:`eta_free_subspace`);
5. the sign from side information: with a public ``sign_reference`` u such that uᵀx > 0 on the
   domain (all-ones for non-negative features, e.g. Adult), σ̂ = sign(uᵀv̂), x̂ = σ̂ v̂/‖v̂‖ and
   ŷ_1 = −σ̂. With ‖x‖ = 1 known, x̂ is the full record.

Success metrics: cos(x̂, x_1), |cos(v̂, x_1)|, the rank of x_1 among candidate records under the
score cos(x̂, x) (:func:`candidate_ranks`), and label accuracy. :meth:`KKTInference.attack` returns
``AttackScores`` whose ground truth is "which candidate is the target": scores_in are
cos(x̂, x_1) per trial and scores_out the decoys' scores, so AUROC = 1 − mean (rank − 1)/(M − 1).
:func:`audit_section` runs the attack for the audit runner.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from accountants.constraints import Integer, Interval, OneOf, Positive
from attacks.base import AttackScores
from attacks.reconstruction_bound import best_rero_bound

if TYPE_CHECKING:  # solvers is imported only when an attack runs
    from solvers.losses import MarginLoss

__all__ = [
    "KKTInference",
    "KKTKnowledge",
    "attacker_variants",
    "audit_section",
    "candidate_ranks",
    "eta_free_estimate",
    "eta_free_subspace",
    "kkt_terms",
    "node_guarantees",
    "noise_reference",
    "rebuild_duals",
    "reconstruct",
    "reconstruction_metrics",
    "weighted_residual_mean",
]


@dataclass(frozen=True, eq=False)
class KKTKnowledge:
    """What the attacker knows about target node ``agent`` (the threat model of Zhang, Khalili & Liu 2018,
    Sec. 6.2).

    Attributes:
      agent: target node i. X_known, y_known: its records n = 2..B_i. B: B_i (records incl. the
      unknown one). C, rho, n_agents: the objective's constants. adjacency: (N, N) graph.
      loss: the public margin loss (``solvers.losses.MarginLoss``).
    """

    agent: int
    X_known: np.ndarray
    y_known: np.ndarray
    B: int
    C: float
    rho: float
    n_agents: int
    adjacency: np.ndarray
    loss: MarginLoss

    @classmethod
    def from_problem(cls, problem, agent: int = 0) -> KKTKnowledge:
        """The knowledge about ``problem``'s node ``agent``: every public constant and the node's
        records except its first (slot 0), which is the unknown target."""
        from solvers.decentralized import DecentralizedProblem
        from solvers.regularizers import L2Regularizer

        if not isinstance(problem, DecentralizedProblem):
            raise TypeError(f"problem must be a DecentralizedProblem, got {type(problem).__name__}")
        if not isinstance(problem.regularizer, L2Regularizer):
            raise ValueError(f"the KKT attack needs R = ½‖f‖² (L2Regularizer), got {problem.regularizer!r}")
        X, y = problem.partition.agent_data(agent)  # validates agent
        if X.shape[0] < 2:
            raise ValueError(f"node {agent} must hold at least 2 records (one unknown), got {X.shape[0]}")
        return cls(
            int(agent),
            np.asarray(X[1:]),
            np.asarray(y[1:]),
            int(X.shape[0]),
            problem.C,
            problem.rho,
            problem.n_agents,
            problem.graph.adjacency_matrix(),
            problem.loss,
        )

    @property
    def degree(self) -> float:
        return float(self.adjacency[self.agent].sum())


def _broadcasts(transcript, n_agents: int) -> np.ndarray:
    """The public channel ``f`` as (T+1, R, N, d) (a single run gets R = 1)."""
    if transcript is None:
        raise ValueError("the result has no transcript: run the solver with record_transcript=True")
    public = transcript.public()  # never read a white-box channel
    if "f" not in public:
        raise ValueError(f"the transcript has no public channel 'f' (channels: {list(public)})")
    channel = public.channel("f")
    if channel.agents and channel.agents != tuple(range(n_agents)):
        raise ValueError(f"the attack needs the broadcasts of every node, got agents {channel.agents}")
    f = np.asarray(channel.values, dtype=np.float64)
    if not public.batched:
        f = f[:, None]
    if f.ndim != 4 or f.shape[2] != n_agents or f.shape[0] < 2:
        raise ValueError(f"channel 'f' must be (T+1 >= 2, R, {n_agents}, d), got shape {f.shape}")
    return f


def step_schedule(value, T: int, name: str) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 0:
        array = np.full(T, float(array))
    if array.shape != (T,) or not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"{name} must be a positive finite number or ({T},) array, got {value!r}")
    return array


def rebuild_duals(f: np.ndarray, adjacency: np.ndarray, agent: int, theta) -> np.ndarray:
    """λ_i(t), t = 0..T, from broadcasts f (T+1, R, N, d) and the dual step θ (number or (T,)), (11).

    Returns:
      (T+1, R, d), λ_i(0) = 0.
    """
    T = f.shape[0] - 1
    theta = step_schedule(theta, T, "theta")
    A = np.asarray(adjacency, dtype=np.float64)
    row = -A[agent].copy()
    row[agent] += A[agent].sum()  # row i of the Laplacian
    increments = 0.5 * theta[:, None, None] * np.einsum("j,trjd->trd", row, f[1:])
    return np.concatenate([np.zeros_like(increments[:1]), np.cumsum(increments, axis=0)])


def kkt_terms(f: np.ndarray, knowledge: KKTKnowledge, theta) -> tuple[np.ndarray, np.ndarray]:
    """(a_t, b_t), each (T, R, d), t = 1..T (module docstring, step 2)."""
    i = knowledge.agent
    lam = rebuild_duals(f, knowledge.adjacency, i, theta)
    fi = f[1:, :, i]
    a = np.empty_like(fi)
    for t in range(fi.shape[0]):  # one iteration at a time: memory O(R·B_i), not O(T·R·B_i)
        margins = knowledge.y_known * (fi[t] @ knowledge.X_known.T)
        coefficients = np.asarray(knowledge.loss.dphi(margins)) * knowledge.y_known
        a[t] = (knowledge.C / knowledge.B) * (coefficients @ knowledge.X_known)
    a += (knowledge.rho / knowledge.n_agents) * fi + 2.0 * lam[:-1]
    V = knowledge.degree
    b = 2.0 * V * fi - V * f[:-1, :, i] - np.einsum("j,trjd->trd", knowledge.adjacency[i], f[:-1])
    return a, b


def weighted_residual_mean(a: np.ndarray, b: np.ndarray, eta, degree: float, weights=None) -> np.ndarray:
    """v̂ = Σ_t w_t r_t / Σ_t w_t with r_t = −a_t/(2η_tV_i) − b_t/(2V_i) (equation (E)).

    Args:
      a, b: from :func:`kkt_terms`, (T, R, d). eta: the attacker's η_i(t) (number or (T,)), the true
        schedule or a guess. degree: V_i. weights: None (the paper's plain mean) or (T,) w_t ≥ 0.

    Returns:
      (R, d).
    """
    T = a.shape[0]
    eta = step_schedule(eta, T, "eta")
    w = np.ones(T) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (T,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"weights must be ({T},) non-negative finite with a positive sum, got {weights!r}")
    r = -a / (2.0 * eta[:, None, None] * degree) - b / (2.0 * degree)
    return np.einsum("t,trd->rd", w / w.sum(), r)


def eta_free_estimate(a: np.ndarray, late_fraction: float = 0.5) -> np.ndarray:
    """v̂_B = −mean of a_t over the last ⌈late_fraction·T⌉ iterations (the η-free estimate), (R, d)."""
    Interval(0, 1, closed="right", what="a fraction").check(late_fraction, "late_fraction")
    T = a.shape[0]
    start = T - max(1, math.ceil(late_fraction * T))
    return -a[start:].mean(axis=0)


def eta_free_subspace(
    a: np.ndarray,
    b: np.ndarray,
    f_target: np.ndarray,
    knowledge: KKTKnowledge,
    *,
    n_directions: int = 3,
    record_norm: float = 1.0,
) -> np.ndarray:
    """η-free estimate by subspace intersection [derived here]: without noise the KKT condition
    reads a_t = c_t x_1 − η_t b_t with c_t = −(C/B_i) y_1 ℒ′(y_1 f_i(t)ᵀx_1), so x_1 lies in
    span(a_t, b_t) at every t. Candidates: ± the top ``n_directions`` eigenvectors of Σ_t P_t (P_t
    the projector onto span(a_t, b_t)), scaled to the public record norm (1 for unit rows), each
    with y = ±1; the chosen (x, y) minimises Σ_t ‖P_{b_t}^⊥(a_t − c_t(x, y) x)‖² (η_t eliminated).
    Returns v̂ = −y x (R, d), the convention v̂ ∝ −y_1 x_1 of the other estimates.

    Args:
      a, b: (T, R, d) from :func:`kkt_terms`. f_target: f_i(t), t = 1..T, (T, R, d).
      knowledge: the attacker's constants (C, B_i, loss). n_directions: eigenvectors tried.
      record_norm: the public ‖x‖ of a record (unit-row pipelines: 1).
    """
    Integer(1).check(n_directions, "n_directions")
    Positive().check(record_norm, "record_norm")
    first = _unit(a)
    second = _unit(b - np.einsum("trd,trd->tr", b, first)[..., None] * first)
    S = np.einsum("trd,tre->rde", first, first) + np.einsum("trd,tre->rde", second, second)
    k = min(int(n_directions), a.shape[-1])
    top = np.swapaxes(np.linalg.eigh(S)[1][..., -k:], -1, -2)  # (R, k, d)
    cands = record_norm * np.concatenate([top, -top], axis=1)  # (R, 2k, d)
    b_unit = _unit(b)
    best_cost = np.full(a.shape[1], np.inf)
    best = np.zeros((a.shape[1], a.shape[2]))
    for y in (1.0, -1.0):
        margins = y * np.einsum("trd,rkd->trk", f_target, cands)
        c = -(knowledge.C / knowledge.B) * y * np.asarray(knowledge.loss.dphi(margins))  # (T, R, 2k)
        e = a[:, :, None, :] - c[..., None] * cands[None]
        e = e - np.einsum("trkd,trd->trk", e, b_unit)[..., None] * b_unit[:, :, None, :]
        cost = np.einsum("trkd,trkd->rk", e, e)
        pick = np.argmin(cost, axis=1)
        value = cost[np.arange(cost.shape[0]), pick]
        better = value < best_cost
        best_cost = np.where(better, value, best_cost)
        best[better] = -y * cands[np.arange(cands.shape[0]), pick][better]
    return best


def reconstruct(v: np.ndarray, sign_reference: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(x̂ (R, d) unit rows, ŷ (R,)) from v̂ ∝ −y_1 x_1: σ̂ = sign(uᵀv̂), x̂ = σ̂v̂/‖v̂‖, ŷ = −σ̂.

    Args:
      v: (R, d) estimates. sign_reference: u with uᵀx > 0 for every record of the domain
        (default all-ones: non-negative features). A zero v̂ gives x̂ = 0 and ŷ = +1.
    """
    v = np.atleast_2d(np.asarray(v, dtype=np.float64))
    u = np.ones(v.shape[-1]) if sign_reference is None else np.asarray(sign_reference, dtype=np.float64)
    if u.shape != (v.shape[-1],):
        raise ValueError(f"sign_reference must have shape ({v.shape[-1]},), got {u.shape}")
    sign = np.where(v @ u < 0, -1.0, 1.0)
    size = np.linalg.norm(v, axis=-1, keepdims=True)
    x_hat = np.divide(sign[:, None] * v, size, out=np.zeros_like(v), where=size > 0)
    return x_hat, -sign


def _unit(x: np.ndarray) -> np.ndarray:
    size = np.linalg.norm(x, axis=-1, keepdims=True)
    return np.divide(x, size, out=np.zeros_like(x, dtype=np.float64), where=size > 0)


def candidate_ranks(x_hat: np.ndarray, candidates: np.ndarray, true_index) -> np.ndarray:
    """Rank of the true record among candidates under the score cos(x̂, x) (1 = top).

    Ties count against the attacker: rank = 1 + #{other candidates scoring ≥ the true one}.

    Args:
      x_hat: (R, d) reconstructions. candidates: (M, d) pool, or (R, M, d) one pool per trial.
      true_index: index of the true record in the pool (int, or (R,) ints).

    Returns:
      (R,) int ranks in 1..M.
    """
    x_hat = np.atleast_2d(np.asarray(x_hat, dtype=np.float64))
    pool = np.asarray(candidates, dtype=np.float64)
    R = x_hat.shape[0]
    if pool.ndim == 2:
        pool = np.broadcast_to(pool, (R,) + pool.shape)
    if pool.ndim != 3 or pool.shape[0] != R or pool.shape[2] != x_hat.shape[1] or pool.shape[1] < 1:
        raise ValueError(
            f"candidates must be (M, {x_hat.shape[1]}) or ({R}, M, {x_hat.shape[1]}), got shape {np.shape(candidates)}"
        )
    index = np.broadcast_to(np.asarray(true_index), (R,))
    if not np.issubdtype(index.dtype, np.integer) or np.any(index < 0) or np.any(index >= pool.shape[1]):
        raise ValueError(f"true_index must be integers in [0, {pool.shape[1]}), got {true_index!r}")
    scores = np.einsum("rmd,rd->rm", _unit(pool), _unit(x_hat))
    true = scores[np.arange(R), index]
    return (scores >= true[:, None]).sum(axis=1)  # counts the true record itself once


def reconstruction_metrics(
    x_hat: np.ndarray, y_hat: np.ndarray, v: np.ndarray, x_true: np.ndarray, y_true, candidates: np.ndarray, true_index
) -> dict[str, np.ndarray]:
    """Per-trial success metrics: cosine = cos(x̂, x_1), abs_cosine = |cos(v̂, x_1)|, rank among the
    candidates, label_correct; arrays (R,). x_true (d,) or (R, d); y_true ±1 or (R,)."""
    x_true = np.broadcast_to(np.asarray(x_true, dtype=np.float64), x_hat.shape)
    unit_true = _unit(x_true)
    return {
        "cosine": np.einsum("rd,rd->r", _unit(x_hat), unit_true),
        "abs_cosine": np.abs(np.einsum("rd,rd->r", _unit(np.atleast_2d(v)), unit_true)),
        "rank": candidate_ranks(x_hat, candidates, true_index),
        "label_correct": np.asarray(y_hat) == np.broadcast_to(np.asarray(y_true, dtype=np.float64), y_hat.shape),
    }


def summarize(metrics: dict[str, np.ndarray], n_candidates: int) -> dict[str, float]:
    """Means over trials: cosine, |cos|, median and mean rank, top-1 and top-10 rates, label accuracy."""
    rank = metrics["rank"]
    return {
        "cosine": float(np.mean(metrics["cosine"])),
        "abs_cosine": float(np.mean(metrics["abs_cosine"])),
        "abs_cosine_se": float(np.std(metrics["abs_cosine"]) / math.sqrt(rank.size)),
        "median_rank": float(np.median(rank)),
        "mean_rank": float(np.mean(rank)),
        "top1": float(np.mean(rank == 1)),
        "top10": float(np.mean(rank <= 10)),
        "label_accuracy": float(np.mean(metrics["label_correct"])),
        "n_trials": int(rank.size),
        "n_candidates": int(n_candidates),
    }


@dataclass(frozen=True, eq=False)
class KKTInference:
    """The KKT inference attack on node ``knowledge.agent`` (module docstring).

    Args:
      knowledge: what the attacker knows (:meth:`KKTKnowledge.from_problem`).
      theta: the public dual step θ (number or (T,)).
      eta: the attacker's η_i(t): the true schedule ("η known", the paper's threat model), a guess
        ("η private"), or None for the η-free late-iteration estimate.
      weights: None (the paper's plain mean) or (T,) weights w_t, e.g. α_t²/η_t (inverse noise
        variance × signal scale; a weighting of this toolkit).
      late_fraction: the window of the η-free late-iteration mean.
      eta_free: with eta None, "late_mean" (:func:`eta_free_estimate`) or "subspace"
        (:func:`eta_free_subspace`; assumes unit-norm records, as in the papers' pipeline).
      sign_reference: u with uᵀx > 0 on the feature domain (default: non-negative features).
      label: a name for reports, e.g. "η known".
    """

    knowledge: KKTKnowledge
    theta: float | np.ndarray
    eta: float | np.ndarray | None = None
    weights: np.ndarray | None = None
    late_fraction: float = 0.5
    sign_reference: np.ndarray | None = None
    label: str = ""
    eta_free: str = "late_mean"

    name = "KKT inference (Zhang, Khalili & Liu 2018, App. E)"

    def __post_init__(self) -> None:
        if not isinstance(self.knowledge, KKTKnowledge):
            raise TypeError(f"knowledge must be a KKTKnowledge, got {type(self.knowledge).__name__}")
        OneOf("late_mean", "subspace").check(self.eta_free, "eta_free")

    def estimate(self, transcript) -> np.ndarray:
        """v̂ ∝ −y_1 x_1 per trial, (R, d), from the public transcript only."""
        f = _broadcasts(transcript, self.knowledge.n_agents)
        a, b = kkt_terms(f, self.knowledge, self.theta)
        if self.eta is None:
            if self.eta_free == "subspace":
                return eta_free_subspace(a, b, f[1:, :, self.knowledge.agent], self.knowledge)
            return eta_free_estimate(a, self.late_fraction)
        return weighted_residual_mean(a, b, self.eta, self.knowledge.degree, self.weights)

    def reconstruct(self, transcript) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x̂ (R, d), ŷ (R,), v̂ (R, d))."""
        v = self.estimate(transcript)
        x_hat, y_hat = reconstruct(v, self.sign_reference)
        return x_hat, y_hat, v

    def evaluate(self, transcript, x_true, y_true, candidates, true_index) -> dict[str, np.ndarray]:
        """Per-trial :func:`reconstruction_metrics` (the ground truth is read only here)."""
        x_hat, y_hat, v = self.reconstruct(transcript)
        return reconstruction_metrics(x_hat, y_hat, v, x_true, y_true, candidates, true_index)

    def attack(self, result, candidates: np.ndarray, true_index: int) -> AttackScores:
        """``AttackScores`` for "which candidate is the target": scores_in = cos(x̂, x_true) per trial,
        scores_out = cos(x̂, decoy) for every decoy and trial."""
        x_hat, _, _ = self.reconstruct(result.transcript)
        pool = np.asarray(candidates, dtype=np.float64)
        if pool.ndim != 2 or not 0 <= int(true_index) < pool.shape[0] or pool.shape[0] < 2:
            raise ValueError(
                f"candidates must be (M >= 2, d) with true_index in [0, M), got shape {pool.shape} "
                f"and true_index {true_index!r}"
            )
        scores = _unit(x_hat) @ _unit(pool).T
        decoys = np.delete(scores, int(true_index), axis=1)
        return AttackScores(
            self.name, scores[:, int(true_index)], decoys.ravel(), white_box=False, metadata=self.metadata()
        )

    def metadata(self) -> dict:
        eta = (
            f"none (η-free estimate: {self.eta_free})"
            if self.eta is None
            else (self.label or "the attacker's η_i(t) schedule")
        )
        return {
            "white_box": False,
            "reads": "public broadcasts f_j(t) of the target node and its neighbours, t = 0..T",
            "knows": "records 2..B_i of the target node, θ, C, B_i, ρ, N, V_i, loss and regulariser",
            "eta": eta,
            "target_agent": int(self.knowledge.agent),
            "weights": "plain mean" if self.weights is None else "weighted",
        }


def noise_reference(
    x_true, y_true, candidates, true_index, *, d: int, draws: int, seed: int, sign_reference: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """The metrics of a pure-noise 'attack' (v̂ ∼ N(0, I_d), same sign rule and ranking): the null
    reference; its |cos| is ≈ sqrt(2/(πd)), its rank uniform on 1..M, its label accuracy 1/2."""
    Integer(1).check(draws, "draws")
    v = np.random.default_rng(seed).standard_normal((draws, d))
    x_hat, y_hat = reconstruct(v, sign_reference)
    return reconstruction_metrics(x_hat, y_hat, v, x_true, y_true, candidates, true_index)


# ============================================================================================
def attacker_variants(details, agent: int) -> list[tuple[str, dict]]:
    """The attacker variants for a PP-family run's ``details`` (its ``Result.details``, a
    ``DecentralizedPlan``): (label, :class:`KKTInference` kwargs).
    η known (plain and α²/η-weighted mean); when η ≠ θ (η is then the node's secret) the guesses
    η̂ ∈ {θ, 10η, 0.1η}; the two η-free estimates."""
    eta = np.asarray(details.eta)[:, agent]
    theta = float(np.asarray(details.theta)[0, agent])
    out: list[tuple[str, dict]] = [("η known", {"eta": eta})]
    if details.alpha is not None:
        out.append(("η known, weighted α²/η", {"eta": eta, "weights": np.asarray(details.alpha)[:, agent] ** 2 / eta}))
    if not np.allclose(eta, theta):
        out += [
            ("η private, guess θ", {"eta": np.full(eta.shape, theta)}),
            ("η private, guess 10η", {"eta": 10.0 * eta}),
            ("η private, guess 0.1η", {"eta": 0.1 * eta}),
        ]
    out += [("η-free, late mean", {"eta": None}), ("η-free, subspace", {"eta": None, "eta_free": "subspace"})]
    return out


def node_guarantees(epsilons, delta: float | None) -> list[tuple[float, float]]:
    """The target node's (ε, δ) guarantees from its per-iteration pure ε (T,) (``details.epsilons
    [:, i]``): the pure sum (β, 0) and, with ``delta``, the optimal composition (ε(δ), δ)."""
    from accountants import AdvancedCompositionAccountant, PureDpEvent

    epsilons = np.asarray(epsilons, dtype=np.float64)
    pure = float(epsilons.sum())
    if not math.isfinite(pure) or delta is None:
        return [(pure, 0.0)]
    accountant = AdvancedCompositionAccountant()
    for value in epsilons[epsilons > 0]:
        accountant.register(PureDpEvent(float(value)), participant=0)
    return [(pure, 0.0), (float(accountant.get_epsilon(delta, participant=0)), float(delta))]


def candidate_pool(problem, agent: int, size: int, seed: int) -> tuple[np.ndarray, int]:
    """The target (node ``agent``'s first record) and up to ``size`` − 1 decoys drawn from the other
    nodes' records (the attacker does not know them), distinct from the target; (pool, true index)."""
    X = np.asarray(problem.partition.X)
    mask = np.asarray(problem.partition.mask).copy()
    target = X[agent, 0]
    mask[agent] = False
    others = X[mask]
    others = others[np.any(others != target, axis=1)]
    others = np.unique(others, axis=0)
    rng = np.random.default_rng(seed)
    take = rng.permutation(others.shape[0])[: max(0, size - 1)]
    pool = np.concatenate([target[None], others[take]])
    order = rng.permutation(pool.shape[0])
    return pool[order], int(np.flatnonzero(order == 0)[0])


def audit_section(solver, problem, *, agent: int = 0, trials: int, seed: int) -> dict:
    """The KKT attack against ``solver`` (M-ADMM, PP or DVP) on ``problem`` for the audit report.

    The target is node ``agent``'s first record; candidates are it and up to 999 other nodes'
    records. Runs ``trials`` trials and every attacker variant (η known, η private guesses, η-free),
    a pure-noise reference, and the reconstruction-robustness bound of the run's accountant.

    Returns:
      {"title", "markdown", "data"} with JSON-ready data.

    Raises:
      TypeError: the solver is not of the PP family (the attack needs an exact local solve with a
        common dual step at every iteration).
    """
    if not getattr(solver, "penalty_perturbed", False):
        raise TypeError(f"audit_section needs a PenaltyPerturbation/MADMM/DVP solver, got {type(solver).__name__}")
    Integer(1).check(trials, "trials")
    started = time.perf_counter()
    knowledge = KKTKnowledge.from_problem(problem, agent)
    result = solver.run(problem, seed=seed, trials=int(trials), record_transcript=True)
    details, T = result.details, solver.n_iterations
    theta = float(np.asarray(details.theta)[0, agent])
    pool, index = candidate_pool(problem, agent, 1000, seed)
    X, y = problem.partition.agent_data(agent)
    x_true, y_true = np.asarray(X[0]), float(y[0])
    # The sign rule (hence the label) assumes non-negative features; flagged in the report otherwise.
    nonnegative = bool(np.all(np.asarray(problem.partition.X) >= 0))
    M = pool.shape[0]
    guarantees = node_guarantees(np.asarray(details.epsilons)[:, agent], result.delta)
    epsilon_pure = guarantees[0][0]
    bounds = {
        "top1": best_rero_bound(guarantees, 1.0 / M),
        "top10": best_rero_bound(guarantees, min(1.0, 10.0 / M)),
        "label": best_rero_bound(guarantees, 0.5),
    }
    rows = []
    for label, kwargs in attacker_variants(details, agent):
        attack = KKTInference(knowledge, theta, label=label, **kwargs)
        metrics = attack.evaluate(result.transcript, x_true, y_true, pool, index)
        rows.append(
            {"attacker": label, **summarize(metrics, M), "auroc": attack.attack(result, pool, index).metrics()["auroc"]}
        )
    noise = noise_reference(x_true, y_true, pool, index, d=problem.n_features, draws=2000, seed=seed)
    rows.append({"attacker": "pure-noise reference", **summarize(noise, M), "auroc": None})
    data = {
        "solver": solver.name,
        "agent": int(agent),
        "trials": int(trials),
        "seed": int(seed),
        "n_iterations": int(T),
        "n_candidates": int(M),
        "target_label": y_true,
        "nonnegative_features": nonnegative,
        "epsilon_pure": epsilon_pure,
        "guarantees": [list(g) for g in guarantees],
        "rero_bounds": bounds,
        "rows": rows,
        "seconds": time.perf_counter() - started,
    }
    header = (
        "| attacker | cos(x̂, x₁) | abs cos(v̂, x₁) | median rank | top-1 | label acc. |\n|---|---|---|---|---|---|\n"
    )
    lines = "".join(
        f"| {r['attacker']} | {r['cosine']:.3f} | {r['abs_cosine']:.3f} | {r['median_rank']:g} / {M} | "
        f"{r['top1']:.2f} | {r['label_accuracy']:.2f} |\n"
        for r in rows
    )
    markdown = (
        f"KKT inference (Zhang, Khalili & Liu 2018, App. E) on node {agent}'s first record, {solver.name}, T = {T}, "
        f"{trials} trials; β (pure, node {agent}) = {epsilon_pure:.4g}. Reconstruction-robustness bound "
        f"(Balle et al. 2022, f-DP form): top-1 ≤ {bounds['top1']:.3g} (κ = 1/{M}), label ≤ {bounds['label']:.3g} "
        f"(κ = 1/2)."
        + (
            ""
            if nonnegative
            else " Features take both signs: the sign rule, hence the "
            "label, is not identifiable (label accuracy is not meaningful)."
        )
        + "\n\n"
        + header
        + lines
    )
    return {"title": f"KKT inference attack ({solver.name})", "markdown": markdown, "data": data}
