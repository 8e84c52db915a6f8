"""Accountants for releases with a stated (ε, δ) guarantee: basic, advanced and optimal composition.

Each release is reduced to its (ε, δ) (``PureDpEvent``, ``ApproxDpEvent``, ``LaplaceDpEvent`` with
ε = 1/b, randomized response; see :func:`accountants.events.epsilon_delta_of`); a participant's
summary is the multiset of those guarantees, so order and splitting never matter.
"""

from __future__ import annotations

import math
from collections import Counter

from dp_accounting import dp_event

from accountants import composition
from accountants.base import Accountant
from accountants.events import epsilon_delta_of, flatten

__all__ = ["PureEpsilonAccountant", "AdvancedCompositionAccountant"]


class _GuaranteeAccountant(Accountant):
    """Summary: Counter {(ε, δ): count}."""

    def _empty(self) -> Counter:
        return Counter()

    def _compose(self, summary: Counter, event: dp_event.DpEvent, count: int) -> Counter:
        updated = Counter(summary)
        for leaf, repeats in flatten(event, count):
            if isinstance(leaf, dp_event.NonPrivateDpEvent):
                updated[(math.inf, 0.0)] += repeats
                continue
            guarantee = epsilon_delta_of(leaf)
            if guarantee is None:
                raise self.unsupported(leaf, "it states no (ε, δ) guarantee to compose")
            updated[guarantee] += repeats
        return updated

    @staticmethod
    def _triples(summary: Counter) -> list[tuple[float, float, int]]:
        return sorted((eps, delta, count) for (eps, delta), count in summary.items() if count)


class PureEpsilonAccountant(_GuaranteeAccountant):
    """Basic composition: (Σ ε_i, Σ δ_i); at δ = 0 the plain sum Σ ε_i.

    ``get_epsilon(delta)`` is Σ ε_i when ``delta`` ≥ Σ δ_i and ∞ otherwise; ``get_delta(epsilon)``
    is Σ δ_i when ``epsilon`` ≥ Σ ε_i and 1 otherwise.
    """

    name = "pure"

    def _epsilon(self, summary: Counter, delta: float) -> float:
        return composition.basic_epsilon(self._triples(summary), delta)

    def _delta(self, summary: Counter, epsilon: float) -> float:
        return composition.basic_delta(self._triples(summary), epsilon)


class AdvancedCompositionAccountant(_GuaranteeAccountant):
    """Advanced composition of heterogeneous (ε_i, δ_i) releases.

    Args:
      theorem: "optimal" (default): Kairouz–Oh–Viswanath's exact optimal composition, enumerated
        in log space while the loss support has at most ``max_support`` atoms, else KOV Thm. 3.5;
        "drv": Dwork–Rothblum–Vadhan. Both also take the basic sum when it is smaller.
      max_support: enumeration limit for the exact optimal composition.
    """

    def __init__(self, theorem: str = "optimal", max_support: int = 200_000, ledger_path=None) -> None:
        if theorem not in ("optimal", "drv"):
            raise ValueError(f"theorem must be 'optimal' or 'drv', got {theorem!r}")
        super().__init__(ledger_path)
        self.theorem = theorem
        self.max_support = max_support
        self.name = "optimal_composition" if theorem == "optimal" else "advanced_composition"

    def _exact(self, triples) -> bool:
        return self.theorem == "optimal" and composition.loss_support_size(triples) <= self.max_support

    def _epsilon(self, summary: Counter, delta: float) -> float:
        triples = self._triples(summary)
        if self._exact(triples):
            return composition.optimal_epsilon(triples, delta)
        bound = composition.basic_epsilon(triples, delta)
        if delta > 0:
            second = composition.drv_epsilon if self.theorem == "drv" else composition.kov_heterogeneous_epsilon
            bound = min(bound, second(triples, delta))
        return bound

    def _delta(self, summary: Counter, epsilon: float) -> float:
        triples = self._triples(summary)
        if self._exact(triples):
            return composition.optimal_delta(triples, epsilon)
        basic = composition.basic_delta(triples, epsilon)
        if self.theorem == "drv":
            return min(basic, composition.drv_delta(triples, epsilon))
        return min(basic, _invert_decreasing(lambda d: composition.kov_heterogeneous_epsilon(triples, d), epsilon))


def _invert_decreasing(epsilon_of_delta, epsilon: float) -> float:
    """Smallest δ (to 1e-12 relative, rounded up) with epsilon_of_delta(δ) ≤ ε; 1.0 if none."""
    if epsilon_of_delta(1.0 - 1e-16) > epsilon:
        return 1.0
    low, high = 1e-300, 1.0 - 1e-16
    if epsilon_of_delta(low) <= epsilon:
        return low
    for _ in range(200):
        middle = math.sqrt(low * high) if high / low > 2 else (low + high) / 2
        if epsilon_of_delta(middle) <= epsilon:
            high = middle
        else:
            low = middle
        if high - low <= 1e-12 * high:
            break
    return high
