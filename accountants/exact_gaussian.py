"""Exact accounting for sequences of plain Gaussian releases (e.g. DP-ADMM's time-varying σ).

Composition of Gaussian releases with noise multipliers z_t is exactly μ-GDP with
μ² = Σ_t count_t / z_t² (Dong, Roth & Su 2022, Cor. 3.3), so this accountant is O(1) per release
and its (ε, δ) are the exact trade-off (see :mod:`accountants.gaussian_dp`), up to floating point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from dp_accounting import dp_event

from accountants.base import Accountant
from accountants.events import flatten
from accountants.gaussian_dp import gaussian_delta, gaussian_epsilon

__all__ = ["ExactGaussianAccountant"]


@dataclass(frozen=True)
class _GdpSummary:
    """μ² as a compensated (Neumaier) sum, so long ledgers and their reorderings agree to ~1 ulp."""

    mu_squared: float = 0.0
    compensation: float = 0.0
    non_private: bool = False

    def add(self, value: float) -> _GdpSummary:
        total = self.mu_squared + value
        if abs(self.mu_squared) >= abs(value):
            compensation = self.compensation + ((self.mu_squared - total) + value)
        else:
            compensation = self.compensation + ((value - total) + self.mu_squared)
        return _GdpSummary(total, compensation, self.non_private)

    @property
    def mu(self) -> float:
        return math.inf if self.non_private else math.sqrt(self.mu_squared + self.compensation)


class ExactGaussianAccountant(Accountant):
    """μ-GDP composition of Gaussian releases, each with its own noise multiplier.

    Supports ``GaussianDpEvent`` (noise multiplier = σ/Δ for the L2 sensitivity Δ under the
    neighbouring relation the solver uses), their self-compositions and compositions,
    ``NoOpDpEvent`` and ``NonPrivateDpEvent`` (ε = ∞). Anything else is refused.
    """

    name = "exact_gaussian"

    def _empty(self) -> _GdpSummary:
        return _GdpSummary()

    def _compose(self, summary: _GdpSummary, event: dp_event.DpEvent, count: int) -> _GdpSummary:
        for leaf, repeats in flatten(event, count):
            if isinstance(leaf, dp_event.NonPrivateDpEvent):
                summary = _GdpSummary(summary.mu_squared, summary.compensation, True)
            elif isinstance(leaf, dp_event.GaussianDpEvent):
                z = leaf.noise_multiplier
                if not isinstance(z, (int, float)) or math.isnan(z) or z < 0:
                    raise ValueError(f"GaussianDpEvent.noise_multiplier must be >= 0, got {z!r}")
                if z == 0:
                    summary = _GdpSummary(summary.mu_squared, summary.compensation, True)
                elif not math.isinf(z):
                    summary = summary.add(repeats / (z * z))
            else:
                raise self.unsupported(leaf, "only Gaussian releases compose exactly as μ-GDP")
        return summary

    def _compose_batch(self, summary: _GdpSummary, events: list[dp_event.DpEvent]) -> _GdpSummary:
        if any(type(e) is not dp_event.GaussianDpEvent for e in events):
            return super()._compose_batch(summary, events)
        multipliers = np.array([e.noise_multiplier for e in events], dtype=float)
        if not np.all(multipliers > 0):  # NaN, zero or negative: the general path refuses or flags
            return super()._compose_batch(summary, events)
        return summary.add(math.fsum((1.0 / np.square(multipliers)).tolist()))

    def _epsilon(self, summary: _GdpSummary, delta: float) -> float:
        return gaussian_epsilon(summary.mu, delta)

    def _delta(self, summary: _GdpSummary, epsilon: float) -> float:
        return gaussian_delta(summary.mu, epsilon)

    def get_mu(self, participant=None) -> float:
        """The GDP parameter μ of one participant, or the largest over participants."""
        return max(summary.mu for summary in self._selected(participant))
