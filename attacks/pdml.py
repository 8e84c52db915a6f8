"""The Neyman–Pearson test on one PDML server's broadcasts (Wang et al. 2020, (15)–(17)), against
the toolkit's derived broadcast guarantee (``solvers.pdml.privacy``).

Threat model (the derived guarantee's worst case): the attacker knows every record but one of
group i's, every randomized label y' and server i's objective noise η_i (white-box ``y_reported``
and ``eta``: the derived guarantee conditions on η), and reads every server's public broadcasts w̃(t). D and
D′ differ in one record of group i with the same label, so (y', η) have the same law under both.

Given the history up to t − 1, server i's dual γ_i(t−1) = β Σ_{s<t} Lap w̃(s) (17) and its
neighbours' broadcasts are public, so its solve (15) is a deterministic function w_i^D(t) of the
history and D_i, and w̃_i(t) = w_i^D(t) + θ_i(t), θ_i(t) ~ N(0, σ_i(t)² I). The other servers'
broadcasts do not depend on D_i given the history, so the exact log-likelihood ratio of a
transcript, and the Neyman–Pearson statistic, is

    ℓ = Σ_t (‖w̃_i(t) − w_i^{D′}(t)‖² − ‖w̃_i(t) − w_i^{D}(t)‖²) / (2σ_i(t)²),

with mean +μ²/2 under D and −μ²/2 under D′, μ² = Σ_t ‖w_i^D(t) − w_i^{D′}(t)‖²/σ_i(t)² (μ-GDP
when the replayed difference is the same in every trial). :func:`replay_server` replays the
solve with the solver's own :func:`solvers.pdml.steps.solve_local`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from attacks.base import AttackScores

__all__ = ["BroadcastNP", "BroadcastStatistics", "replay_server"]


def replay_server(solver, problem, transcript: Mapping[str, np.ndarray], agent: int = 0) -> np.ndarray:
    """w_agent(t), t = 0..T, of every trial, replayed from the public broadcasts under ``problem``'s data.

    Args:
      solver: the ``solvers.pdml.PDML`` that produced the transcript (β, T, τ).
      problem: a ``HorizontalProblem`` (the hypothesis: group ``agent``'s data).
      transcript: channels ``w_tilde`` (T+1, R, N, d), and the white-box ``y_reported``
        (T+1, R, N, m) and ``eta`` (T+1, R, N, d) (only t = 0 and group ``agent`` are read).

    Returns:
      (T+1, R, d); equals the white-box channel ``w`` of ``agent`` when ``problem`` holds the data used.
    """
    from solvers.pdml.randomization import debias_linear_term
    from solvers.pdml.steps import solve_local

    missing = [k for k in ("w_tilde", "y_reported", "eta") if k not in transcript]
    if missing:
        raise ValueError(
            f"transcript must hold the channels w_tilde, y_reported and eta (record_white_box=True, "
            f"transcript_agents=None); missing {missing}"
        )
    w_tilde = np.asarray(transcript["w_tilde"], dtype=np.float64)
    T, N = solver.n_iterations, problem.n_agents
    if w_tilde.ndim != 4 or w_tilde.shape[0] != T + 1 or w_tilde.shape[2] != N:
        raise ValueError(
            f"transcript['w_tilde'] must have shape (T+1, R, N, d) = ({T + 1}, R, {N}, d), got {w_tilde.shape}"
        )
    if not 0 <= agent < N:
        raise ValueError(f"agent must be in [0, {N}), got {agent!r}")
    i = slice(agent, agent + 1)
    X = problem.partition.X[i]
    weights = problem.partition.mask[i] / problem.sizes[i, None].astype(np.float64)
    y_noisy = np.asarray(transcript["y_reported"])[0][:, i]  # (R, 1, m)
    eta = np.asarray(transcript["eta"])[0][:, i]  # (R, 1, d)
    eps = solver.per_group(N)[0][i]
    b = debias_linear_term(problem.loss, X, y_noisy, eps[:, None], weights)  # (R, 1, d)
    A = problem.topology.adjacency_matrix()
    degree = float(problem.topology.degrees[agent])
    quad = np.array([[problem.lam / N + 2.0 * solver.beta * degree]])
    lap_row = np.diag(A.sum(axis=1))[agent] - A[agent]  # row of Lap
    w = np.zeros(w_tilde.shape[1:2] + (1, w_tilde.shape[3]))
    gamma = np.zeros_like(w)
    out = [w[:, 0]]
    for t in range(1, T + 1):
        previous = w_tilde[t - 1]  # (R, N, d)
        centre = degree * previous[:, agent] + np.einsum("j,rjd->rd", A[agent], previous)
        linear = -b + eta / N + gamma - solver.beta * centre[:, None]
        w = solve_local(problem.loss, X, weights, y_noisy, linear, quad, w, tol=solver.tol).x
        gamma = gamma + solver.beta * np.einsum("j,rjd->rd", lap_row, w_tilde[t])[:, None]
        out.append(w[:, 0])
    return np.stack(out)


@dataclass(frozen=True, eq=False)
class BroadcastStatistics:
    """Per trial: ``llr`` ℓ (R,), ``mu_sq`` Σ_t ‖w^D(t) − w^{D′}(t)‖²/σ(t)² (R,), and the replays
    ``w_in`` (under D) and ``w_out`` (under D′), each (T+1, R, d)."""

    llr: np.ndarray
    mu_sq: np.ndarray
    w_in: np.ndarray
    w_out: np.ndarray


@dataclass(frozen=True, eq=False)
class BroadcastNP:
    """The Neyman–Pearson test for D (``problem_in``) against D′ (``problem_out``) on server
    ``agent``'s broadcasts (module docstring): white-box in y' and η, which PDML never sends."""

    solver: Any
    problem_in: Any
    problem_out: Any
    agent: int = 0
    name: str = "broadcast NP test (server replay)"

    def sigmas(self) -> np.ndarray:
        """σ_agent(t) for t = 1..T (the solver's schedule); positive."""
        from solvers.pdml.privacy import broadcast_sigmas

        V = self.solver.per_group(self.problem_in.n_agents)[2]
        if V[self.agent] <= 0:
            raise ValueError(f"server {self.agent} does not perturb its broadcasts (V = 0): the test is degenerate")
        return broadcast_sigmas(V, self.solver.rho_decay, self.solver.n_iterations)[:, self.agent]

    def statistics(self, transcript: Mapping[str, np.ndarray]) -> BroadcastStatistics:
        """ℓ, μ² and both replays of every trial of ``transcript`` (channels of :func:`replay_server`)."""
        observed = np.asarray(transcript["w_tilde"], dtype=np.float64)[1:, :, self.agent]
        w_in = replay_server(self.solver, self.problem_in, transcript, self.agent)
        w_out = replay_server(self.solver, self.problem_out, transcript, self.agent)
        var = self.sigmas()[:, None] ** 2
        far = np.sum((observed - w_out[1:]) ** 2, axis=-1)
        near = np.sum((observed - w_in[1:]) ** 2, axis=-1)
        llr = np.sum((far - near) / (2.0 * var), axis=0)
        mu_sq = np.sum(np.sum((w_in[1:] - w_out[1:]) ** 2, axis=-1) / var, axis=0)
        return BroadcastStatistics(llr, mu_sq, w_in, w_out)

    def observe(self, result: Any, on_d: bool) -> tuple[np.ndarray, np.ndarray, float]:
        """What an audit keeps of a chunk (:class:`attacks.base.Attack`): each trial's ℓ and μ², and the
        largest error of the replay under the true hypothesis against the server's white-box w."""
        if result.transcript is None:
            raise ValueError("the audit needs the run's transcript (record_transcript=True)")
        stats = self.statistics(result.transcript)
        truth = stats.w_in if on_d else stats.w_out
        return stats.llr, stats.mu_sq, float(np.abs(truth - result.transcript["w"][:, :, self.agent]).max())

    def conclude(
        self,
        seen_on_d: Sequence[tuple[np.ndarray, np.ndarray, float]],
        seen_on_d_prime: Sequence[tuple[np.ndarray, np.ndarray, float]],
    ) -> AttackScores:
        """:meth:`attack_scores` of the observed chunks' ℓ, in trial order."""
        return self.attack_scores(
            np.concatenate([s[0] for s in seen_on_d]), np.concatenate([s[0] for s in seen_on_d_prime])
        )

    def attack_scores(self, llr_in: np.ndarray, llr_out: np.ndarray) -> AttackScores:
        """``AttackScores`` from the ``llr`` of :meth:`statistics` on runs on D and on D′ (higher: D)."""
        return AttackScores(
            self.name,
            llr_in,
            llr_out,
            white_box=True,
            metadata={
                "reads": f"every broadcast w̃(t); white-box y' and η_{self.agent} of group {self.agent}",
                "optimal": "Neyman–Pearson (exact likelihood ratio)",
                "agent": self.agent,
            },
        )
