"""Exact accounting for sequences of plain Gaussian releases (e.g. DP-ADMM's time-varying σ).

Composition of Gaussian releases with noise multipliers z_t is exactly μ-GDP with
μ² = Σ_t count_t / z_t² (Dong, Roth & Su 2022, Cor. 3.3), so this accountant is O(1) per release
and its (ε, δ) are the exact trade-off (see :mod:`accountants.gaussian_dp`), up to floating point.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, replace

import numpy as np
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation

from accountants.base import Accountant
from accountants.events import flatten
from accountants.gaussian_dp import gaussian_delta, gaussian_epsilon
from accountants.ledger import StrPath
from accountants.relations import DEFAULT_RELATION, check_relation, sensitivity_factor

__all__ = ["ExactGaussianAccountant"]


@dataclass(frozen=True)
class _GdpSummary:
    """μ² = (mu_squared + compensation) · 2^exponent: a compensated (Neumaier) sum, so long ledgers
    and their reorderings agree to ~1 ulp, with its own binary exponent (a multiple of 1024, zero
    unless the terms leave 2^±512), so that noise multipliers such as 1e-300 or 1e300 neither
    overflow nor vanish."""

    mu_squared: float = 0.0
    compensation: float = 0.0
    non_private: bool = False
    exponent: int = 0

    def add(self, value: float, exponent: int = 0) -> _GdpSummary:
        """The summary with value · 2^exponent (value >= 0) added to μ²."""
        tops = [math.frexp(x)[1] + e for x, e in ((self.mu_squared, self.exponent), (value, exponent)) if x > 0]
        scale = 1024 * round(max(tops) / 1024) if tops else 0
        current = math.ldexp(self.mu_squared, self.exponent - scale)  # exact, or off by < 2^-560 μ²
        previous = math.ldexp(self.compensation, self.exponent - scale)
        value = math.ldexp(value, exponent - scale)
        total = current + value
        if abs(current) >= abs(value):
            compensation = previous + ((current - total) + value)
        else:
            compensation = previous + ((value - total) + current)
        return _GdpSummary(total, compensation, self.non_private, scale)

    @property
    def mu(self) -> float:
        """μ, to a few ulps."""
        if self.non_private:
            return math.inf
        root = math.sqrt(max(self.mu_squared + self.compensation, 0.0))
        if math.frexp(root)[1] + self.exponent // 2 > 1024:
            return math.inf
        return math.ldexp(root, self.exponent // 2)

    @property
    def mu_upper(self) -> float:
        """An upper bound on the exact μ = sqrt(Σ count/z²).

        Each term count/z² is within 3 u (u = 2^-53) of its value, the compensated (Neumaier) sum of
        positive terms adds 2 u + O(n u²) (Higham 2002, §4.3) and the square root 1 u, so μ is within
        3.5 u + O(n u²); 8 u covers that with room for the rounding of this product.
        """
        mu = self.mu
        if mu == 0 or math.isinf(mu):
            return mu
        root = math.sqrt(max(self.mu_squared + self.compensation, 0.0)) * (1.0 + 8 * 2.0**-53)
        return math.nextafter(math.ldexp(root, self.exponent // 2), math.inf)


def _inverse_square(count: int, z: float) -> tuple[float, int]:
    """count / z² as value · 2^exponent (z > 0 finite), within 3 u, without overflow or underflow."""
    shift = max(0, count.bit_length() - 900)  # at most 2^-800 relative lost (count above 2^900)
    fraction, exponent = math.frexp(z)
    return float(count >> shift) / (fraction * fraction), shift - 2 * exponent


class ExactGaussianAccountant(Accountant[_GdpSummary]):
    """μ-GDP composition of Gaussian releases, each with its own noise multiplier.

    Supports ``GaussianDpEvent`` (noise multiplier = σ/Δ for the L2 sensitivity Δ under the
    neighbouring relation the solver uses), their self-compositions and compositions,
    ``NoOpDpEvent`` and ``NonPrivateDpEvent`` (ε = ∞). Anything else is refused.

    Args:
      neighboring_relation: dp-accounting's relation (default ``ADD_OR_REMOVE_ONE``); under
        ``REPLACE_ONE`` the sensitivity doubles (see :mod:`accountants.relations`).
      ledger_path: see :class:`accountants.base.Accountant`.
    """

    name = "exact_gaussian"

    def __init__(
        self, ledger_path: StrPath | None = None, neighboring_relation: NeighboringRelation = DEFAULT_RELATION
    ) -> None:
        self.neighboring_relation = check_relation(neighboring_relation)
        self._scale = sensitivity_factor(self.neighboring_relation)
        super().__init__(ledger_path)

    def _empty(self) -> _GdpSummary:
        return _GdpSummary()

    def _compose(self, summary: _GdpSummary, event: dp_event.DpEvent, count: int) -> _GdpSummary:
        for leaf, repeats in flatten(event, count):
            if isinstance(leaf, dp_event.NonPrivateDpEvent):
                summary = replace(summary, non_private=True)
            elif isinstance(leaf, dp_event.GaussianDpEvent):
                z = leaf.noise_multiplier
                if not isinstance(z, (int, float)) or math.isnan(z) or z < 0:
                    raise ValueError(f"GaussianDpEvent.noise_multiplier must be >= 0, got {z!r}")
                if z == 0:
                    summary = replace(summary, non_private=True)
                elif not math.isinf(z):
                    summary = summary.add(*_inverse_square(repeats, z / self._scale))  # ÷ 2 is exact
            else:
                raise self.unsupported(leaf, "only Gaussian releases compose exactly as μ-GDP")
        return summary

    def compose_batch(self, summary: _GdpSummary, events: list[dp_event.DpEvent]) -> _GdpSummary:
        if any(type(e) is not dp_event.GaussianDpEvent for e in events):
            return super().compose_batch(summary, events)
        multipliers = np.array([e.noise_multiplier for e in events], dtype=float)
        # NaN, zero, negative or extreme (1/z² near the ends of the float range): the general path
        # refuses, flags or rescales
        if not np.all((multipliers > 2.0**-400) & (multipliers < 2.0**400)):
            return super().compose_batch(summary, events)
        return summary.add(math.fsum((1.0 / np.square(multipliers / self._scale)).tolist()))

    def epsilon_from_summary(self, summary: _GdpSummary, delta: float) -> float:
        return gaussian_epsilon(summary.mu_upper, delta)  # ε and δ increase with μ

    def delta_from_summary(self, summary: _GdpSummary, epsilon: float) -> float:
        return gaussian_delta(summary.mu_upper, epsilon)

    def get_mu(self, participant: Hashable = None) -> float:
        """The GDP parameter μ of one participant, or the largest over participants."""
        return max(summary.mu for summary in self._selected(participant))
