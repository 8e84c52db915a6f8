"""ADMM sharing (Hu et al. 2019, Algorithm 1) split into the parties and the server.

Party m's actor holds only its column block D_m (as its thin SVD U_m S_m V_mᵀ), its own noise (its
stream) and its last share ũ_m^t. Round t: the server sends r^t and y^t (zero at t = 0); the party
solves (6) for x_m^{t+1} with the same functions as the vectorised run and releases
ũ_m^{t+1} = D_m x_m^{t+1} (+ its noise, in output or parameter mode). The server (labels, (7), (8)) runs
in the driver: it sums the shares, updates z and y, and records iteration t. The model of a run is the
noise-free x = (x_1, …, x_M) (the paper does not say which model it evaluates), so every party also
returns its x_m^{t+1} for the recorder; D_m x_m (noise-free) travels only when the white-box channels are recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import SimpleNamespace

import numpy as np

from solvers.engine.protocol import AgentProgram, Coordinator
from solvers.regularizers import L2Regularizer
from solvers.sharing.base import VerticalRecorder
from solvers.sharing.problem import BlockSVD, VerticalProblem
from solvers.sharing.steps import ball_constrained_l2_coefficients, z_update

__all__ = ["PartyShare", "ServerBroadcast", "SharingParty", "SharingServer", "sharing_white_box"]

#: What every party receives in round t: the server's broadcast (r^t, y^t), each (R, N).
ServerBroadcast = tuple[np.ndarray, np.ndarray]


def sharing_white_box(recorder: VerticalRecorder) -> bool:
    """Whether the parties must also return D_m x_m without noise (recorded white-box)."""
    return "u_clean" in recorder.specs


class PartyShare:
    """Party ``party``'s block of ``problem`` (its SVD, padded as in the vectorised run) with the
    public constants its update uses; no labels and no other party's columns. The attributes
    ``lam``, ``regularizer``, ``n_samples``, ``partition.widths`` and ``block_svd`` mirror a
    ``VerticalProblem`` with this one party (leading axis of length 1)."""

    def __init__(self, problem: VerticalProblem, party: int) -> None:
        svd, rows = problem.block_svd, slice(party, party + 1)
        self.agent = party
        self.block_svd = BlockSVD(
            U=svd.U[rows], s=svd.s[rows], Vt=svd.Vt[rows], rank=svd.rank[rows], in_range=svd.in_range[rows]
        )
        self.partition = SimpleNamespace(widths=problem.partition.widths[rows])
        self.lam, self.regularizer, self.n_samples = problem.lam, problem.regularizer, problem.n_samples


class SharingParty(AgentProgram[ServerBroadcast]):
    """Party ``share.agent`` of an ``ADMMSharing`` run."""

    def begin(self, noise: np.ndarray | None, n_trials: int) -> None:
        svd = self.share.block_svd
        self.noise = noise  # (R, T, 1, N or K)
        self.x = np.zeros((1, n_trials, svd.Vt.shape[2]))
        self.shared = np.zeros((1, n_trials, svd.U.shape[1]))

    def step(self, t: int, inbound: ServerBroadcast) -> Mapping[str, object]:
        r, y = inbound
        solver, share, svd = self.solver, self.share, self.share.block_svd
        rho = self.plan.details.rho
        c = (y + rho * (r - self.shared)) @ svd.U  # Uᵀ(y^t + ρ b_m^t), (1, R, K)
        if isinstance(share.regularizer, L2Regularizer):
            a = ball_constrained_l2_coefficients(c, svd.s, share.lam, rho, solver.b1)
            self.x = a @ svd.Vt
        else:
            self.x = solver.l1_update(self.x, c, svd, share, rho)
            a = self.x @ svd.Vt.transpose(0, 2, 1)
        Ut = svd.U.transpose(0, 2, 1)
        clean = (a * svd.s[:, None, :]) @ Ut  # D_m x_m^{t+1}, (1, R, N)
        if self.noise is None:
            self.shared = clean
        elif solver.noise == "parameter":  # D_m ξ = σ U_m g on col(D_m)
            self.shared = clean + (self.noise[:, t].transpose(1, 0, 2) * svd.in_range[:, None, :]) @ Ut
        else:
            self.shared = clean + self.noise[:, t].transpose(1, 0, 2)
        reply: dict[str, object] = {"u": self.shared, "x": self.x}
        if self.white_box:
            reply["u_clean"] = clean
        return reply


class SharingServer(Coordinator[ServerBroadcast]):
    """The server: broadcasts (r^t, y^t), sums the shares, (7) and (8), records iteration t."""

    def __init__(self, solver, problem: VerticalProblem, plan, n_trials: int, recorder: VerticalRecorder) -> None:
        super().__init__()
        self.diagnostics = {"z_newton_iterations": 0.0, "max_x_norm": 0.0, "max_y_norm": 0.0, "max_z_norm": 0.0}
        self.solver, self.problem, self.recorder = solver, problem, recorder
        self.rho, self.n_rounds = plan.details.rho, plan.n_iterations
        N = problem.n_samples
        self.r, self.y = np.zeros((n_trials, N)), np.zeros((n_trials, N))

    def inbound(self, t: int, agent: int) -> ServerBroadcast:
        return self.r, self.y

    def receive(self, t: int, replies: Sequence[Mapping[str, object]]) -> None:
        problem, rho, worst = self.problem, self.rho, self.diagnostics
        shared = np.concatenate([reply["u"] for reply in replies], axis=0)  # (M, R, N)
        x = np.concatenate([reply["x"] for reply in replies], axis=0)
        total = shared.sum(axis=0)
        z, newton = z_update(total, self.y, problem.partition.y, rho, problem.loss, tol=self.solver.tol)  # (7)
        self.y = self.y + rho * (total - z)  # (8)
        self.r = total - z
        worst["z_newton_iterations"] = max(worst["z_newton_iterations"], float(newton))
        worst["max_x_norm"] = max(worst["max_x_norm"], float(np.sqrt(np.einsum("mrd,mrd->mr", x, x).max())))
        worst["max_y_norm"] = max(worst["max_y_norm"], float(np.linalg.norm(self.y, axis=-1).max()))
        worst["max_z_norm"] = max(worst["max_z_norm"], float(np.linalg.norm(z, axis=-1).max()))
        messages = {"u": shared.transpose(1, 0, 2), "r": self.r, "y": self.y, "x": x.transpose(1, 0, 2)}
        if sharing_white_box(self.recorder):
            messages["u_clean"] = np.concatenate([reply["u_clean"] for reply in replies], axis=0).transpose(1, 0, 2)
        self.recorder.record(
            t,
            problem.partition.join_model(x.transpose(1, 0, 2)),
            {"primal_residual": np.linalg.norm(self.r, axis=-1)},
            **messages,
        )
