"""The Neyman–Pearson membership test for one agent's record in DP-ADMM, its noisy baseline, and any
family written as its noise-free step with Gaussian releases (``solvers.engine.StepSolver``).

Threat model (white-box in the auditing sense: the strongest adversary the DP definition allows).
The adversary sees the released transcript of the target agent i — its noisy local models
w̃_i^{k+1} and the trainer's broadcasts w^{k+1} — and knows everything except which of two
neighbouring data sets was used: every other record, the two candidates for the differing record,
the loss, λ, ρ, and the public step-size and noise schedules (η_k, σ_k). It never reads the solver's
private state (the noise-free w_i^{k+1} or the noise draws).

From the transcript it reconstructs the state before every iteration (w^k, w̃_i^k and the dual
γ_i^k, which (3d) makes a function of released values: γ_i^{k+1} = γ_i^k − ρ(w̃_i^{k+1} − w^{k+1})),
recomputes agent i's noise-free update under both hypotheses, m_D^k and m_D′^k (the family's own
step replayed, ``StepSolver.replay``), and sums the
Gaussian log-likelihood ratios of the released iterates (adaptive composition: the other agents'
releases have the same conditional law under D and D′, so they cancel):

    LLR = Σ_k <w̃_i^{k+1} − (m_D^k + m_D′^k)/2, m_D^k − m_D′^k> / σ_k².

This is the most powerful test (Neyman–Pearson). When the canary makes ‖m_D^k − m_D′^k‖ equal the
sensitivity Δ_k in every iteration, LLR ~ N(±μ²/2, μ²) with μ² = Σ_k Δ_k²/σ_k², exactly the
privacy-loss distribution of the exact (μ-GDP) accountant.

``noise="claimed"`` weighs iteration k by the σ_k the mechanism claims. ``noise="calibrated"``
weighs it by a noise level estimated on separate calibration trials with known labels
(:meth:`WhiteBoxNP.calibrate`), which catches implementations that add less noise than they
claim (an un-noised iteration gets an effectively infinite weight); for a correct mechanism both
give the same test up to estimation error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from attacks.base import TrialScorer

if TYPE_CHECKING:  # solvers is imported only when an attack runs
    from solvers.problem import HorizontalProblem

__all__ = ["WhiteBoxNP", "replay_statistics"]


def replay_statistics(result, solver, problem_in, problem_out, agent: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-iteration sufficient statistics of the NP test from a batched result.

    The noise-free releases m_D^k and m_D′^k come from the solver family's own step
    (``solvers.engine.StepSolver.replay``), replayed on the public transcript.

    Returns:
      (u, norm), both (T, R): u_k = <w̃_i^{k+1} − midpoint_k, unit(m_D^k − m_D′^k)>, the released
      iterate's signed distance along the mean difference (≈ N(±‖Δ_k‖/2, σ_k²)), and
      norm_k = ‖m_D^k − m_D′^k‖.
    """
    if result.transcript is None:
        raise ValueError("the result has no transcript: run the solver with record_transcript=True")
    if not callable(getattr(solver, "replay", None)):
        raise TypeError(
            f"no white-box replay for solver {type(solver).__name__}: it is not a solvers.engine.StepSolver"
        )
    replay = solver.replay(problem_in, problem_out, agent, result.transcript)
    T, R = replay.sent.shape[:2]
    u, norm = np.zeros((T, R)), np.zeros((T, R))
    for k in range(T):
        mean_in, mean_out = replay.mean_in[k], replay.mean_out[k]
        diff = mean_in - mean_out
        size = np.linalg.norm(diff, axis=1)
        unit = np.divide(diff, size[:, None], out=np.zeros_like(diff), where=size[:, None] > 0)
        u[k] = np.einsum("rd,rd->r", replay.sent[k] - 0.5 * (mean_in + mean_out), unit)
        norm[k] = size
    return u, norm


@dataclass
class WhiteBoxNP(TrialScorer):
    """The Neyman–Pearson (summed Gaussian log-likelihood-ratio) test on one agent's releases.

    Args:
      solver: the solver whose transcript is attacked (``DPADMM`` or ``NaiveNoisyADMM``, or a
        subclass); its parameters are public.
      problem_in, problem_out: the problems on D and D′ (identical except the target record).
      agent: the target agent i.
      noise: "claimed" (σ_k from the run's public schedule) or "calibrated" (call
        :meth:`calibrate` first).
    """

    solver: object
    problem_in: HorizontalProblem
    problem_out: HorizontalProblem
    agent: int = 0
    noise: str = "claimed"
    sigma_estimate: np.ndarray | None = field(default=None, repr=False)

    name = "white-box NP (summed Gaussian LLR)"
    white_box = True

    def __post_init__(self) -> None:
        if self.noise not in ("claimed", "calibrated"):
            raise ValueError(f"noise must be 'claimed' or 'calibrated', got {self.noise!r}")

    def statistics(self, result) -> tuple[np.ndarray, np.ndarray]:
        return replay_statistics(result, self.solver, self.problem_in, self.problem_out, self.agent)

    def claimed_sigma(self, result) -> np.ndarray:
        """(T,) the σ_k the mechanism claims for the target agent's releases (the family's ``release_sigma``
        of its public plan)."""
        solver = self.solver
        sigma = solver.release_sigma(solver.plan(self.problem_in))  # type: ignore[attr-defined]  # a StepSolver
        return np.array(np.broadcast_to(sigma, (sigma.shape[0], self.problem_in.n_agents))[:, self.agent])

    def calibrate(self, result_in, result_out) -> WhiteBoxNP:
        """Estimate σ_k from calibration trials with known labels (disjoint from audited trials):
        the root mean square of u_k ∓ ‖Δ_k‖/2 over both hypotheses."""
        u_in, n_in = self.statistics(result_in)
        u_out, n_out = self.statistics(result_out)
        residual = np.concatenate([u_in - n_in / 2, u_out + n_out / 2], axis=1)
        estimate = np.sqrt(np.mean(residual**2, axis=1))
        floor = 1e-9 * np.maximum(self.claimed_sigma(result_in), 1e-300)
        self.sigma_estimate = np.maximum(estimate, floor)
        return self

    def sigma(self, result) -> np.ndarray:
        if self.noise == "claimed":
            return self.claimed_sigma(result)
        if self.sigma_estimate is None:
            raise ValueError("noise='calibrated' needs calibrate(result_in, result_out) first")
        return self.sigma_estimate

    def score(self, result) -> np.ndarray:
        """(R,) LLR per trial of a batched result (higher: more likely D)."""
        u, norm = self.statistics(result)
        sigma = self.sigma(result)
        return np.sum(u * norm / sigma[:, None] ** 2, axis=0)

    def mu_squared(self, result) -> np.ndarray:
        """(R,) Σ_k ‖m_D^k − m_D′^k‖²/σ_k² realised in each trial (μ² when the canary is worst-case)."""
        _, norm = self.statistics(result)
        return np.sum(norm**2 / self.sigma(result)[:, None] ** 2, axis=0)

    def metadata(self) -> dict:
        return {
            "white_box": True,
            "reads": "released transcript of the target agent (w̃_i, w) and public schedules (η, σ)",
            "knows": "every other record, both candidates for the differing record (threat model of DP)",
            "noise": self.noise,
            "target_agent": int(self.agent),
        }
