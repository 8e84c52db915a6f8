"""The moments accountant: Rényi-DP composition over a wide range of orders.

Per-release RDP curves add up (Mironov 2017, Prop. 1); the total converts to (ε, δ) at the best
order. Gaussian and pure-ε releases use closed forms here; every other ``dp_accounting`` event
(Laplace, randomized response, Poisson-sampled, ...) gets its curve from dp-accounting's
``RdpAccountant`` at the same orders.

``MomentsAccountant.classic()`` reproduces the conversion of Abadi et al. (2016) over integer
log-moment orders τ that the DP-ADMM paper uses (Huang et al., Theorem 2 and Appendix A):
ε̄ = min_τ [α(τ) + ln(1/δ)]/τ, with τ up to 10^4 (spec 000 §4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from dp_accounting.rdp import RdpAccountant

from accountants.base import Accountant
from accountants.events import ApproxDpEvent, PureDpEvent, flatten
from accountants.rdp import DEFAULT_ORDERS, gaussian_rdp, pure_dp_rdp, rdp_to_delta, rdp_to_epsilon

__all__ = ["MomentsAccountant", "DELEGATED_MAX_ORDER"]

#: Largest order at which curves are taken from dp-accounting (its default grid stops at 1024).
DELEGATED_MAX_ORDER = 1024.0


class MomentsAccountant(Accountant):
    """RDP / moments accountant.

    Args:
      orders: RDP orders α > 1 (default: 1.001 … 10^6, see ``accountants.rdp.DEFAULT_ORDERS``).
      conversion: "improved" (Canonne–Kamath–Steinke; default) or "classic" (Mironov Prop. 3,
        i.e. Abadi et al.'s tail bound).
      neighboring_relation: dp_accounting's relation, used for events whose curve depends on it
        (randomized response needs REPLACE_ONE, Poisson sampling ADD_OR_REMOVE_ONE). Gaussian,
        Laplace and pure events read their noise multiplier relative to the sensitivity under the
        relation the caller uses.
      ledger_path: see :class:`accountants.base.Accountant`.
    """

    name = "rdp"

    def __init__(
        self,
        orders: Sequence[float] | None = None,
        conversion: str = "improved",
        neighboring_relation: NeighboringRelation = NeighboringRelation.REPLACE_ONE,
        ledger_path=None,
    ) -> None:
        super().__init__(ledger_path)
        orders = DEFAULT_ORDERS if orders is None else np.asarray(orders, dtype=float)
        if orders.ndim != 1 or orders.size == 0 or np.any(~np.isfinite(orders)) or np.any(orders <= 1):
            raise ValueError("orders must be a non-empty 1-D sequence of finite numbers > 1")
        if conversion not in ("improved", "classic"):
            raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
        self.orders = np.array(orders)
        self.orders.setflags(write=False)
        self.conversion = conversion
        self.neighboring_relation = neighboring_relation
        self._curve_cache: dict[dp_event.DpEvent, np.ndarray] = {}

    @classmethod
    def classic(cls, max_log_moment_order: int = 10_000, ledger_path=None) -> MomentsAccountant:
        """The moments accountant exactly as DP-ADMM's Theorem 2 uses it: integer τ = 1..max,
        i.e. RDP orders α = τ + 1, classic tail-bound conversion."""
        if max_log_moment_order < 1:
            raise ValueError(f"max_log_moment_order must be >= 1, got {max_log_moment_order!r}")
        orders = np.arange(2, max_log_moment_order + 2, dtype=float)
        accountant = cls(orders=orders, conversion="classic", ledger_path=ledger_path)
        accountant.name = "moments_classic"
        return accountant

    def _empty(self) -> np.ndarray:
        return np.zeros_like(self.orders)

    def _compose(self, summary: np.ndarray, event: dp_event.DpEvent, count: int) -> np.ndarray:
        total = summary
        for leaf, repeats in flatten(event, count):
            total = total + repeats * self._curve(leaf)
        return total

    def _curve(self, event: dp_event.DpEvent) -> np.ndarray:
        try:
            return self._curve_cache[event]
        except KeyError:
            curve = self._compute_curve(event)
            curve.setflags(write=False)
            self._curve_cache[event] = curve
            return curve
        except TypeError:  # an unhashable event (a list inside): compute without caching
            return self._compute_curve(event)

    def _compute_curve(self, event: dp_event.DpEvent) -> np.ndarray:
        if isinstance(event, dp_event.GaussianDpEvent):
            z = event.noise_multiplier
            if math.isnan(z) or z < 0:
                raise ValueError(f"GaussianDpEvent.noise_multiplier must be >= 0, got {z!r}")
            return gaussian_rdp(self.orders, z)
        if isinstance(event, PureDpEvent):
            return pure_dp_rdp(self.orders, event.epsilon)
        if isinstance(event, ApproxDpEvent):
            if event.delta > 0:
                raise self.unsupported(event, "an (ε, δ) guarantee with δ > 0 has no RDP curve")
            return pure_dp_rdp(self.orders, event.epsilon)
        if type(event).__module__ != dp_event.__name__:
            raise self.unsupported(event, "not a dp_accounting event")
        # dp-accounting's general curves cost O(α) per order; above DELEGATED_MAX_ORDER we use the
        # trivial bound ∞, which only removes those orders from the minimisation.
        low_orders = self.orders[self.orders <= DELEGATED_MAX_ORDER]
        delegate = RdpAccountant(orders=low_orders, neighboring_relation=self.neighboring_relation)
        if not delegate.supports(event):
            raise self.unsupported(event, f"dp_accounting's RdpAccountant refuses it under {self.neighboring_relation}")
        delegate.compose(event)
        curve = np.full_like(self.orders, math.inf)
        curve[self.orders <= DELEGATED_MAX_ORDER] = delegate.rdp
        return curve

    def _epsilon(self, summary: np.ndarray, delta: float) -> float:
        return rdp_to_epsilon(self.orders, summary, delta, self.conversion)[0]

    def _delta(self, summary: np.ndarray, epsilon: float) -> float:
        return rdp_to_delta(self.orders, summary, epsilon, self.conversion)[0]

    def get_epsilon_and_order(self, delta: float, participant=None) -> tuple[float, float]:
        """(ε, optimal RDP order α) for the worst participant (or the one named)."""
        results = [rdp_to_epsilon(self.orders, s, delta, self.conversion) for s in self._selected(participant)]
        return max(results)

    def rdp(self, participant=None) -> np.ndarray:
        """The composed RDP curve at ``orders`` (pointwise maximum over participants if None)."""
        return np.max(np.stack(self._selected(participant)), axis=0)
