"""Leakage of ADMM sharing over vertically partitioned features (Hu et al. 2019).

Hu, Liu, Kong, Niu, "Learning Privately over Distributed Features: An ADMM Sharing Approach"
(2019, arXiv 1907.07735). Party m releases one N-vector ũ_m^{t+1} = D_m x_m^{t+1} (+ noise) per iteration;
the server also knows y^t and r^t (it computes and broadcasts them). Three adversaries, all reading
only the public transcript (channels ``u``, ``r``, ``y``) and public hyper-parameters (λ, ρ, b_1, σ):

* :func:`recover_gram` — the **server** recovers party m's Gram matrix K_m = D_m D_mᵀ from noiseless
  sharing (an attack of this toolkit). The KKT condition of (6) with R = ½‖·‖² and no active ball is
  λ x_m^{t+1} = −D_mᵀ w^t, w^t = y^t + ρ(r^t − ũ_m^t + ũ_m^{t+1}), so ũ_m^{t+1} = −(1/λ) K_m w^t. With
  Q an orthonormal basis of the released vectors' span (= col(D_m)), K_m = Q A Qᵀ and
  A (Qᵀ W) = −λ Qᵀ U is solved by least squares; K̂ = Q sym(A) Qᵀ. "One scalar per sample" thus
  reveals D_m up to a rotation of its columns.
* :class:`ColumnSpaceTest` — the range leak of the paper's parameter mode (10) (found by this toolkit):
  ũ_m = D_m(x_m + ξ) always lies in col(D_m). For neighbours D_m, D′_m (one row replaced, N > d_m)
  the column spaces differ, so the residual of the releases outside col(D′_m) is ~1e-16 under D′
  and nonzero almost surely under D: a test with no errors, hence ε = ∞.
* :class:`SharingNP` — the Neyman–Pearson test for output mode (ũ_m = D_m x_m + N(0, σ²I_N)):
  from the transcript it replays party m's noise-free release under D and D′ in every iteration
  (the x-update (6) depends only on y^t, r^t, party m's own previous release and D_m; the other
  parties' releases and the server's messages have the same conditional law under both, so they
  cancel) and sums the Gaussian log-likelihood ratios
  LLR = Σ_t <ũ_m^{t+1} − (c_D^t + c_D′^t)/2, c_D^t − c_D′^t>/σ².
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from accountants.constraints import Integer, Optional, Positive
from attacks.base import AttackScores, TrialScorer

if TYPE_CHECKING:  # solvers is imported only when an attack runs
    from solvers.sharing import ADMMSharing, VerticalProblem

__all__ = ["ColumnSpaceTest", "GramRecovery", "SharingNP", "recover_gram"]


def _public(transcript, party: int, *, batched: bool | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ũ_m (T, ..., N), r (T, ..., N), y (T, ..., N)) from a transcript or a result's transcript."""
    transcript = getattr(transcript, "transcript", transcript)
    if transcript is None:
        raise ValueError("the result has no transcript: run the solver with record_transcript=True")
    if not hasattr(transcript, "public"):
        raise TypeError(f"transcript must be a solvers Transcript or a Result, got {type(transcript).__name__}")
    transcript = transcript.public()  # never read a white-box channel
    if batched is not None and transcript.batched != batched:
        raise ValueError(
            f"the attack needs a {'batched' if batched else 'single-run'} transcript "
            f"({'run with trials= or seeds=' if batched else 'use transcript.trial(r)'})"
        )
    for name in ("u", "r", "y"):
        if name not in transcript:
            raise ValueError(f"transcript has no channel {name!r}: not an ADMM-sharing transcript")
    channel = transcript.channel("u")
    if isinstance(party, bool) or not isinstance(party, numbers.Integral) or party not in channel.agents:
        raise ValueError(f"party must be one of the recorded parties {channel.agents}, got {party!r}")
    axis = 2 if transcript.batched else 1
    u = np.take(channel.values, channel.agents.index(party), axis=axis)
    return u, transcript["r"], transcript["y"]


def _block(problem, party: int) -> np.ndarray:
    """Party m's block D_m (N, d_m) of a VerticalProblem."""
    partition = problem.partition
    if isinstance(party, bool) or not isinstance(party, numbers.Integral) or not 0 <= party < partition.n_parties:
        raise ValueError(f"party must be an integer in [0, {partition.n_parties}), got {party!r}")
    return np.asarray(partition.D[party, :, : int(partition.widths[party])])


# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GramRecovery:
    """The server's estimate of K_m = D_m D_mᵀ.

    Attributes:
      gram: K̂ (N, N), symmetric, rank ``rank``.
      rank: dimension of the released vectors' span (d_m when the iterations excite every direction).
      iterations: the iterations t whose equations were used.
      residual: ‖A QᵀW + λ QᵀU‖_F / ‖λ QᵀU‖_F, the fit of the KKT identity (≈ 1e-15 when it holds;
        informative only when more iterations than ``rank`` were used, else the fit is exact).
    """

    gram: np.ndarray
    rank: int
    iterations: tuple[int, ...]
    residual: float

    def relative_error(self, block: np.ndarray) -> float:
        """‖K̂ − D_m D_mᵀ‖_F / ‖D_m D_mᵀ‖_F against the true block."""
        block = np.asarray(block, dtype=np.float64)
        if block.ndim != 2 or block.shape[0] != self.gram.shape[0]:
            raise ValueError(f"block must be (N, d_m) with N = {self.gram.shape[0]}, got shape {block.shape}")
        truth = block @ block.T
        return float(np.linalg.norm(self.gram - truth) / np.linalg.norm(truth))


def recover_gram(
    transcript,
    party: int,
    *,
    lam: float,
    rho: float,
    rank_tol: float = 1e-9,
    max_iterations: int | None = None,
) -> GramRecovery:
    """Recover K_m = D_m D_mᵀ from one noiseless ADMM-sharing run.

    Reads only what the server holds: party m's released ũ_m^{t+1} and the server's own y^t, r^t.
    Valid for R_m = ½‖·‖² with the ball X_m inactive (``b1=None`` or never reached) and no noise;
    otherwise the KKT identity does not hold and ``residual`` says so.

    Args:
      transcript: a single run's ``Transcript`` (or its ``Result``) with channels u, r, y.
      party: m.
      lam, rho: the public λ and ρ (``problem.lam``, ``result.details.rho``).
      rank_tol: singular values of the stacked releases below ``rank_tol``·s_max are dropped.
      max_iterations: use only the first iterations (None: all); d_m + a few suffice.

    Raises:
      ValueError: a batched transcript, a party not recorded, λ or ρ not positive, or no
        informative iteration (every release zero).
    """
    for name, value in (("lam", lam), ("rho", rho), ("rank_tol", rank_tol)):
        Positive().check(value, name)
    u, r, y = _public(transcript, party, batched=False)
    T = u.shape[0]
    Optional(Integer(1)).check(max_iterations, "max_iterations")
    if max_iterations is not None:
        T = min(T, int(max_iterations))
    zeros = np.zeros((1, u.shape[1]))
    u_prev = np.concatenate([zeros, u[: T - 1]])  # ũ_m^t, t = 0..T−1
    r_prev = np.concatenate([zeros, r[: T - 1]])
    y_prev = np.concatenate([zeros, y[: T - 1]])
    U = u[:T].T  # (N, T): ũ_m^{t+1}
    W = (y_prev + rho * (r_prev - u_prev + u[:T])).T  # w^t
    left, s, _ = np.linalg.svd(U, full_matrices=False)
    if s.size == 0 or s[0] == 0:
        raise ValueError("every release is zero: nothing to recover (run more iterations)")
    rank = int(np.sum(s > rank_tol * s[0]))
    Q = left[:, :rank]
    Wq, Uq = Q.T @ W, -lam * (Q.T @ U)
    A = np.linalg.lstsq(Wq.T, Uq.T, rcond=None)[0].T  # A Wq = Uq
    residual = float(np.linalg.norm(A @ Wq - Uq) / np.linalg.norm(Uq))
    A = 0.5 * (A + A.T)
    return GramRecovery(Q @ A @ Q.T, rank, tuple(range(T)), residual)


# ------------------------------------------------------------------------------------------------
def _projector_complement(block: np.ndarray, tol: float = 1e-10) -> np.ndarray:
    """Orthonormal basis (N, N − rank) of col(D)^⊥."""
    left, s, _ = np.linalg.svd(block, full_matrices=True)
    rank = int(np.sum(s > tol * max(s[0], np.finfo(float).tiny))) if s.size else 0
    return left[:, rank:]


@dataclass(frozen=True)
class ColumnSpaceTest(TrialScorer):
    """The range test against the paper's parameter mode ((10) of Hu et al. 2019).

    Score of a trial = max_t ‖(I − P_{D′_m}) ũ_m^{t+1}‖ / ‖ũ_m^{t+1}‖: the relative residual of party
    m's releases outside the column space of D′_m (the "out" data set). Under D′ every release lies
    in col(D′_m), so the score is rounding (~1e-15); under D it is > 0 almost surely. Higher means
    "in". ``THRESHOLD`` (1e-9) is fixed in advance: a release counts as outside col(D′_m) iff its
    relative residual exceeds it.

    Args:
      problem_in, problem_out: the neighbouring ``VerticalProblem``s (D and D′); the adversary knows
        both, as DP's adversary does.
      party: m, the party whose block differs.
    """

    problem_in: VerticalProblem
    problem_out: VerticalProblem
    party: int
    name: str = "column-space residual test"
    white_box: bool = False
    _basis: np.ndarray = field(init=False, repr=False)

    THRESHOLD = 1e-9

    def __post_init__(self) -> None:
        block_in, block_out = _block(self.problem_in, self.party), _block(self.problem_out, self.party)
        if block_in.shape != block_out.shape:
            raise ValueError(f"D_m and D′_m must have the same shape, got {block_in.shape} and {block_out.shape}")
        basis = _projector_complement(block_out)
        if basis.shape[1] == 0:
            raise ValueError("col(D′_m) is all of R^N (rank = N): the range test needs N > rank(D′_m)")
        object.__setattr__(self, "_basis", basis)

    def residuals(self, result) -> np.ndarray:
        """(T, R) relative residual of every release outside col(D′_m)."""
        u, _, _ = _public(result, self.party, batched=True)
        outside = np.linalg.norm(u @ self._basis, axis=-1)
        norm = np.linalg.norm(u, axis=-1)
        return np.divide(outside, norm, out=np.zeros_like(outside), where=norm > 0)

    def score(self, result) -> np.ndarray:
        """(R,) max over iterations of the relative residual; higher means "in"."""
        return self.residuals(result).max(axis=0)

    def metadata(self) -> dict:
        return {
            "reads": "party m's released shares ũ_m^{t+1} (public channel u)",
            "knows": "D_m and D′_m (the neighbouring blocks)",
            "score": "max_t ‖(I − P_{col(D′_m)}) ũ_m^{t+1}‖ / ‖ũ_m^{t+1}‖",
            "threshold": self.THRESHOLD,
            "party": int(self.party),
        }


# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SharingNP(TrialScorer):
    """Neyman–Pearson test for party m's block in output mode (ũ_m = D_m x_m + N(0, σ²I_N)).

    Threat model: the adversary reads the public transcript (ũ_m, r, y), and knows D_m and D′_m,
    λ, ρ, b_1 and σ (public parameters); it never reads x_m or the noise. It replays (6) — the solver's
    own step (``solvers.engine.StepSolver.replay``) — under both hypotheses from the state the transcript
    reveals (y^t, r^t, ũ_m^t).

    Args:
      solver: the ``ADMMSharing`` run (output mode, R = ½‖·‖²).
      problem_in, problem_out: D and D′ (only party m's block may differ; labels, λ equal).
      party: m.
    """

    solver: ADMMSharing
    problem_in: VerticalProblem
    problem_out: VerticalProblem
    party: int
    name: str = "white-box NP (summed Gaussian LLR of party m's shares)"
    white_box: bool = False

    def __post_init__(self) -> None:
        from solvers.regularizers import L2Regularizer

        if getattr(self.solver, "noise", None) != "output":
            raise ValueError(
                f"SharingNP needs an output-mode solver (noise='output'), got noise="
                f"{getattr(self.solver, 'noise', None)!r}"
            )
        for name in ("problem_in", "problem_out"):
            if not isinstance(
                getattr(self.problem_in if name == "problem_in" else self.problem_out, "regularizer", None),
                L2Regularizer,
            ):
                raise ValueError(f"{name} must use the L2 regulariser (the replay is the l2 closed form)")
        if self.problem_in.lam != self.problem_out.lam or not np.array_equal(
            self.problem_in.partition.y, self.problem_out.partition.y
        ):
            raise ValueError("problem_in and problem_out must share λ and the labels (only D_m differs)")
        _block(self.problem_in, self.party), _block(self.problem_out, self.party)

    def replay(self, result) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ũ_m, c_D, c_D′), each (T, R, N): the releases and the noise-free releases under D and D′, replayed
        by the solver's own step from the public transcript (``solvers.engine.StepSolver.replay``)."""
        _public(result, self.party, batched=True)  # a batched ADMM-sharing transcript that holds party m
        replay = self.solver.replay(self.problem_in, self.problem_out, self.party, result.transcript)
        return replay.sent, replay.mean_in, replay.mean_out

    def statistics(self, result) -> tuple[np.ndarray, np.ndarray]:
        """(LLR (R,), realised μ² (R,)): the summed log-likelihood ratio and Σ_t ‖c_D − c_D′‖²/σ²."""
        sigma = float(np.asarray(result.details.sigma, dtype=np.float64).reshape(-1)[self.party])
        u, c_in, c_out = self.replay(result)
        diff = c_in - c_out
        llr = np.einsum("trn,trn->r", u - 0.5 * (c_in + c_out), diff) / sigma**2
        return llr, np.einsum("trn,trn->r", diff, diff) / sigma**2

    def score(self, result) -> np.ndarray:
        """(R,) summed LLR; higher means "in"."""
        return self.statistics(result)[0]

    def observe(self, result, on_d: bool) -> tuple[np.ndarray, np.ndarray]:
        """What an audit keeps of a chunk (:class:`attacks.base.Attack`): :meth:`statistics`."""
        return self.statistics(result)

    def conclude(
        self,
        seen_on_d: Sequence[tuple[np.ndarray, np.ndarray]],
        seen_on_d_prime: Sequence[tuple[np.ndarray, np.ndarray]],
    ) -> AttackScores:
        """The summed LLRs of the observed chunks, in trial order."""
        return AttackScores(
            self.name,
            np.concatenate([llr for llr, _ in seen_on_d]),
            np.concatenate([llr for llr, _ in seen_on_d_prime]),
            self.white_box,
            self.metadata(),
        )

    def metadata(self) -> dict:
        return {
            "reads": "public channels u (party m's noisy shares), r and y (the server's broadcasts)",
            "knows": "D_m and D′_m, λ, ρ, b_1, σ",
            "replays": "(6) under D and D′ from (y^t, r^t, ũ_m^t)",
            "party": int(self.party),
        }
