"""The privacy of ``VerticalLogisticRegression``'s ADMM sharing protocol (``protocol="admm_sharing"``) for one
training example: a whole row (every party's part of it) with its label, covering everything exchanged in
training and the published model (the gradient protocol's is in ``solvers.sharing.gradient``).

A fit makes three kinds of Gaussian releases, all fixed before the data are read:

1. the labels, once: Ỹ_i = sign(Y_i + N(0, (2 z_Y)²)) (a ±1 label changes by ``LABEL_SENSITIVITY`` = 2;
   the sign is post-processing: randomized response with flip probability Φ(−1/(2 z_Y))). The server
   runs (7)–(8) of Hu et al. 2019 on Ỹ, so its broadcasts are a function of released values only;
2. in each of the T iterations, the M parties' shares D_m x_m + N(0, σ_s² I_N), σ_s = z_s Δ_row, with
   Δ_row the joint change of all M shares (``row_stability_sensitivity``): their inputs are the
   broadcasts and their own released shares, so the iteration is a Gaussian mechanism of multiplier z_s
   given the past releases (adaptive composition);
3. the model, once: the joined x + N(0, σ_w² I), σ_w = z_w Δ_w (``row_model_sensitivity``, the output
   perturbation of Chaudhuri, Monteleoni & Sarwate 2011 on the parties' last exact (6)), then each
   party's block scaled into its ball ‖x_m‖ ≤ b_1 (post-processing).

They compose to μ-GDP with μ² = 1/z_Y² + T/z_s² + 1/z_w² (Dong, Roth & Su 2022, Cor. 3.3). From a total
(ε, δ) μ is the exact Gaussian accountant's, split as μ_Y² = f_Y μ², μ_w² = f_w μ² and the rest to the
shares (``LABEL_SHARE``, ``MODEL_SHARE``). The ledger registers every release under one participant,
the row: the label, then per iteration M events of multiplier sqrt(M) z_s (which compose to z_s), then
the model.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from dp_accounting import dp_event
from scipy.stats import norm

from accountants import Ledger, LedgerEntry
from accountants.calibration import calibrate_noise_multiplier
from accountants.exact_gaussian import ExactGaussianAccountant
from solvers.engine.accounting import privacy_by_name, register_entries, resolve_accountants
from solvers.sharing.partition import VerticalPartition
from solvers.sharing.privacy import (
    LABEL_SENSITIVITY,
    row_model_sensitivity,
    row_stability_sensitivity,
    safe_sensitivity,
    stability_input_bounds,
)

__all__ = ["LABEL_SHARE", "MODEL_SHARE", "ROW_ADJACENCY", "RowBudget", "RowSensitivities", "account_row"]

#: f_Y: the share of μ² the label release gets when the budget is a total (ε, δ).
LABEL_SHARE = 0.05
#: f_w: the share of μ² the model release gets when the budget is a total (ε, δ).
MODEL_SHARE = 0.1
#: The neighbouring relation ``privacy_`` holds for.
ROW_ADJACENCY = "one training example: a whole row across the parties (rows in the unit ball) and its label"


def account_row(
    entries: Sequence[LedgerEntry], accountants: Sequence[str], delta: float
) -> tuple[Ledger, dict[str, float]]:
    """The ledger of a fit's releases of one row (``entries``, participant 0) and each accountant's ε at
    ``delta`` (shared by both protocols of ``VerticalLogisticRegression``)."""
    resolved = resolve_accountants(accountants)
    register_entries(resolved, entries)
    return Ledger(entries), privacy_by_name(resolved, lambda accountant: float(accountant.get_epsilon(delta)))


@dataclass(frozen=True)
class RowSensitivities:
    """The L2 sensitivities to a change of one row (module docstring).

    Attributes:
      shares: Δ_row, the joint change of the M shares of one iteration.
      model: Δ_w, the joint change of the parties' models.
    """

    shares: float
    model: float

    @classmethod
    def of(
        cls, n_samples: int, rho: float, b1: float, lam: float, n_parties: int, gradient_bound: float, mode: str
    ) -> RowSensitivities:
        """``mode`` "stability" (inputs of (6) clipped, ``row_stability_sensitivity``) or "safe" (any change of
        the blocks: sqrt(M) Δ_safe, the balls' diameter for the model)."""
        if mode == "safe":
            return cls(math.sqrt(n_parties) * safe_sensitivity(n_samples, b1), 2.0 * b1 * math.sqrt(n_parties))
        eta, beta = stability_input_bounds(n_samples, rho, b1, gradient_bound)
        return cls(
            row_stability_sensitivity(b1, rho, eta, beta, n_parties),
            row_model_sensitivity(b1, rho, eta, beta, lam, n_parties),
        )


@dataclass(frozen=True)
class RowBudget:
    """The noise multipliers of the three releases (module docstring).

    Attributes:
      label_multiplier: z_Y (the labels' noise is 2 z_Y).
      share_multiplier: z_s of one iteration's M shares together (σ_s = z_s Δ_row).
      model_multiplier: z_w (σ_w = z_w Δ_w).
      n_iterations: T.
    """

    label_multiplier: float
    share_multiplier: float
    model_multiplier: float
    n_iterations: int

    @classmethod
    def calibrated(cls, epsilon: float, delta: float, n_iterations: int) -> RowBudget:
        """μ of the exact Gaussian accountant at (ε, δ), split by ``LABEL_SHARE`` and ``MODEL_SHARE``."""
        mu = 1.0 / calibrate_noise_multiplier(epsilon, delta, count=1, accountant=ExactGaussianAccountant)
        shares = 1.0 - LABEL_SHARE - MODEL_SHARE
        return cls(
            1.0 / (math.sqrt(LABEL_SHARE) * mu),
            math.sqrt(n_iterations) / (math.sqrt(shares) * mu),
            1.0 / (math.sqrt(MODEL_SHARE) * mu),
            n_iterations,
        )

    @classmethod
    def per_release(cls, multiplier: float, n_iterations: int) -> RowBudget:
        """The one multiplier z for each of the T + 2 releases (μ = sqrt(T + 2)/z)."""
        return cls(multiplier, multiplier, multiplier, n_iterations)

    @property
    def mu(self) -> float:
        """μ of the whole fit: sqrt(1/z_Y² + T/z_s² + 1/z_w²)."""
        return math.sqrt(
            self.label_multiplier**-2 + self.n_iterations * self.share_multiplier**-2 + self.model_multiplier**-2
        )

    @property
    def label_flip_probability(self) -> float:
        """Φ(−1/(2 z_Y)) = Φ(−μ_Y/2): the probability that Ỹ_i ≠ Y_i."""
        return float(norm.cdf(-0.5 / self.label_multiplier))

    def margin_noise_multiplier(self, n_parties: int) -> float:
        """z of ``auto_ball_radius`` (whose σ is 2 sqrt(3) z b_1, a party's Δ_stab for a large ball): σ_s ≈
        z_s 2 b_1 sqrt(1 + 2 sqrt(M)) for Δ_row of a large ball."""
        return self.share_multiplier * math.sqrt((1.0 + 2.0 * math.sqrt(n_parties)) / 3.0)

    def randomized_labels(self, labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Ỹ = sign(Y + N(0, (2 z_Y)²)) for ±1 labels (a tie, of probability 0, is +1)."""
        noisy = labels + rng.standard_normal(labels.shape) * (LABEL_SENSITIVITY * self.label_multiplier)
        return np.where(noisy >= 0.0, 1.0, -1.0)

    def perturbed_model(
        self, partition: VerticalPartition, model: np.ndarray, sensitivity: float, b1: float, rng: np.random.Generator
    ) -> np.ndarray:
        """The joined model plus N(0, (z_w Δ_w)² I), each party's block then scaled into ‖x_m‖ ≤ b_1."""
        noisy = model + rng.standard_normal(model.shape) * (self.model_multiplier * sensitivity)
        blocks = partition.split_model(noisy)
        norms = np.linalg.norm(blocks, axis=-1, keepdims=True)
        return partition.join_model(blocks * np.minimum(1.0, b1 / np.maximum(norms, np.finfo(float).tiny)))

    def ledger(self, n_parties: int, accountants: Sequence[str], delta: float) -> tuple[Ledger, dict[str, float]]:
        """Every release registered under participant 0, the row (module docstring), and each accountant's ε at
        ``delta``."""
        per_share = dp_event.GaussianDpEvent(math.sqrt(n_parties) * self.share_multiplier)
        entries = [LedgerEntry(0, dp_event.GaussianDpEvent(self.label_multiplier), iteration=0)]
        T = self.n_iterations
        entries += [LedgerEntry(0, per_share, iteration=t + 1) for t in range(T) for _ in range(n_parties)]
        entries.append(LedgerEntry(0, dp_event.GaussianDpEvent(self.model_multiplier), iteration=T + 1))
        return account_row(entries, accountants, delta)

    def info(self, row: RowSensitivities) -> dict[str, object]:
        """The public constants of the three releases, for ``info_``."""
        return {
            "adjacency": ROW_ADJACENCY,
            "mu": self.mu,
            "label_noise_multiplier": self.label_multiplier,
            "label_flip_probability": self.label_flip_probability,
            "row_sensitivity": row.shares,
            "share_noise_multiplier": self.share_multiplier,
            "share_sigma": self.share_multiplier * row.shares,
            "model_sensitivity": row.model,
            "model_noise_multiplier": self.model_multiplier,
            "model_sigma": self.model_multiplier * row.model,
        }
