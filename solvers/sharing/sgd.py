"""The gradient-based baseline of Hu, Liu, Kong & Niu 2019: distributed mini-batch SGD on the same vertical split.

The paper (Sec. 5) compares ADMM sharing with the SGD-based algorithm of Hu et al. 2019 (FDML, KDD'19),
run here on the same model and parameter split: each party holds its own linear
model x_m, the local outputs are summed, and SGD runs on the joint loss. One step on a mini-batch B:

    party m:   u_m = D_m^B x_m                       (|B| numbers, sent to the server)
    server:    g_i = Y_i φ'(Y_i Σ_m u_{m,i}) / |B|   (|B| numbers, broadcast; it holds the labels)
    party m:   x_m ← prox_{ηλR}(x_m − η (D_m^B)ᵀ g)  (its block of the gradient of l + λR)

Unspecified in the paper, so chosen by this toolkit: init x ~ N(0, 0.01²) (the paper
says "random"), shuffled mini-batches without replacement, one pass over the data = one epoch, a
constant (or 1/√epoch) learning rate to be tuned on a small grid. Over one epoch every party sends
exactly one value per sample, N numbers, as ADMM sharing does per iteration; the transcript stores
them per epoch in sample order. The baseline is non-private (its DP variant is not part of the paper's
comparison).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from dp_accounting import dp_event

from accountants.constraints import Integer, NonNegative, OneOf, Positive
from mechanisms import make_rng
from solvers.engine.plan import RunPlan
from solvers.engine.recording import ChannelSpec
from solvers.engine.solver import Draws
from solvers.engine.trials import SeedLike
from solvers.sharing.base import VerticalRecorder, VerticalSolver
from solvers.sharing.problem import VerticalProblem, effective_lam
from solvers.sharing.steps import loss_derivatives

__all__ = ["VerticalSGD", "VerticalSGDPlan"]


@dataclass(frozen=True)
class VerticalSGDPlan:
    """The constants of vertical SGD (the FDML-style baseline, Hu et al. 2019), fixed before the
    run (``RunPlan.details``).

    Attributes:
      lam: λ of the problem (``VerticalProblem.lam``), the regularisation weight.
      steps_per_epoch: ⌈N/|B|⌉, the mini-batch steps of one epoch (N samples, batch size |B|).
    """

    lam: float | None
    steps_per_epoch: int


@dataclass(frozen=True)
class VerticalSGD(VerticalSolver):
    """FDML-style distributed SGD over vertically partitioned features (non-private baseline).

    Args:
      learning_rate: η > 0.
      batch_size: |B| ≥ 1 (the last batch of an epoch may be smaller).
      n_epochs: passes over the data (history is recorded once per epoch).
      init_scale: standard deviation of the random initial model.
      schedule: "constant" (η) or "inverse_sqrt" (η/√(epoch + 1)).
    """

    learning_rate: float = 1.0
    batch_size: int = 64
    n_epochs: int = 20
    init_scale: float = 0.01
    schedule: str = "constant"

    name = "vertical_sgd"
    channels = {
        "u": ChannelSpec(
            "agents", "D_m^B x_m: party m's output for every sample, once per epoch (N numbers, in sample order)"
        ),
        "g": ChannelSpec(
            "server", "Y_i φ'(Y_i Σ_m u_m,i): the loss derivative per sample broadcast back, once per epoch"
        ),
    }

    parameter_constraints = {
        "learning_rate": Positive(),
        "batch_size": Integer(1),
        "n_epochs": Integer(1),
        "init_scale": NonNegative(),
        "schedule": OneOf("constant", "inverse_sqrt"),
    }

    def plan(self, problem: VerticalProblem) -> RunPlan[VerticalSGDPlan]:
        M = problem.n_parties
        events = [[dp_event.NonPrivateDpEvent()] * M for _ in range(self.n_epochs)]
        batches = -(-problem.n_samples // self.batch_size)
        return RunPlan(self.n_epochs, events, None, (), VerticalSGDPlan(lam=problem.lam, steps_per_epoch=batches))

    def trial_draws(self, seed: SeedLike, problem: VerticalProblem, plan: RunPlan[Any]) -> dict[str, np.ndarray]:
        """The random initial model (M, d_max) and one permutation of the samples per epoch (E, N),
        from the trial's own generator."""
        rng = make_rng(seed)
        init = rng.standard_normal((problem.n_parties, problem.partition.max_width)) * self.init_scale
        order = np.tile(np.arange(problem.n_samples), (self.n_epochs, 1))
        return {"init": init * problem.partition.mask, "order": rng.permuted(order, axis=1)}

    def bytes_per_trial(self, problem: VerticalProblem, plan: RunPlan) -> int:
        M, N, width = problem.partition.D.shape
        return 8 * (self.n_epochs * N + 4 * M * N + M * width * (2 + self.batch_size))

    def iterate(
        self,
        problem: VerticalProblem,
        plan: RunPlan,
        R: int,
        draws: Draws | None,
        recorder: VerticalRecorder,
    ) -> Mapping[str, float]:
        if draws is None:  # trial_draws draws every trial's initial model and shuffles
            raise ValueError("VerticalSGD needs every trial's initial model and shuffles")
        D, labels = problem.partition.D, problem.partition.y
        M, N, _ = D.shape
        reg, lam = problem.regularizer, effective_lam(problem)
        x = draws["init"].transpose(1, 0, 2).copy()  # (M, R, d_max)
        orders = draws["order"]  # (R, E, N)
        for epoch in range(self.n_epochs):
            rate = self.learning_rate / (math.sqrt(epoch + 1) if self.schedule == "inverse_sqrt" else 1.0)
            released, derivative = np.empty((M, R, N)), np.empty((R, N))
            for start in range(0, N, self.batch_size):
                batch = orders[:, epoch, start : start + self.batch_size]  # (R, b)
                rows = D[:, batch]  # (M, R, b, d_max)
                u = (rows @ x[..., None])[..., 0]  # (M, R, b)
                y = labels[batch]
                first, _ = loss_derivatives(problem.loss, y * u.sum(axis=0))
                g = y * first  # (R, b)
                gradient = ((g / batch.shape[1])[None, :, None, :] @ rows)[..., 0, :]  # (M, R, d_max)
                x = reg.prox(x - rate * gradient, rate * lam)
                np.put_along_axis(released, np.broadcast_to(batch, u.shape), u, axis=2)
                np.put_along_axis(derivative, batch, g, axis=1)
            recorder.record(
                epoch,
                problem.partition.join_model(x.transpose(1, 0, 2)),
                None,
                u=released.transpose(1, 0, 2),
                g=derivative,
            )
        return {}
