"""Accountants for releases with a stated (ε, δ) guarantee: basic, advanced and optimal composition.

Each release is reduced to its (ε, δ) (``PureDpEvent``, ``ApproxDpEvent``, ``LaplaceDpEvent`` with
ε = 1/b, randomized response; see :func:`accountants.events.epsilon_delta_of`); a participant's
summary is the multiset of those guarantees, so order and splitting never matter.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Callable

from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation

from accountants import composition, lattice
from accountants.base import Accountant
from accountants.events import epsilon_delta_of, flatten
from accountants.ledger import StrPath
from accountants.relations import DEFAULT_RELATION, add_or_remove_equivalent, check_relation, relation_refusal

__all__ = ["PureEpsilonAccountant", "AdvancedCompositionAccountant", "MAX_SUPPORT"]

#: Largest ``max_support`` accepted: the exact enumeration allocates a few arrays of that many
#: float64 atoms (10^8 atoms is a few GB).
MAX_SUPPORT = 10**8

#: A participant's summary: how many releases it made with each (ε, δ) guarantee.
_Guarantees = Counter[tuple[float, float]]


class _GuaranteeAccountant(Accountant[_Guarantees]):
    """Summary: Counter {(ε, δ): count}.

    ``neighboring_relation`` (default ``ADD_OR_REMOVE_ONE``): a Laplace multiplier b is relative to
    the add-or-remove sensitivity, so a release is (1/b)-DP, and (2/b)-DP under ``REPLACE_ONE``
    (see :mod:`accountants.relations`); stated guarantees hold under the relation they are
    registered with; randomized response states its ``REPLACE_ONE`` guarantee, and is refused under
    ``ADD_OR_REMOVE_ONE`` (:func:`accountants.relations.relation_refusal`).
    """

    def __init__(
        self, ledger_path: StrPath | None = None, neighboring_relation: NeighboringRelation = DEFAULT_RELATION
    ) -> None:
        self.neighboring_relation = check_relation(neighboring_relation)
        super().__init__(ledger_path)

    def _empty(self) -> _Guarantees:
        return Counter()

    def _compose(self, summary: _Guarantees, event: dp_event.DpEvent, count: int) -> _Guarantees:
        updated = Counter(summary)
        for leaf, repeats in flatten(event, count):
            if isinstance(leaf, dp_event.NonPrivateDpEvent):
                updated[(math.inf, 0.0)] += repeats
                continue
            refusal = relation_refusal(leaf, self.neighboring_relation)
            if refusal:
                raise self.unsupported(leaf, refusal)
            guarantee = epsilon_delta_of(add_or_remove_equivalent(leaf, self.neighboring_relation))
            if guarantee is None:
                raise self.unsupported(leaf, "it states no (ε, δ) guarantee to compose")
            updated[guarantee] += repeats
        return updated

    @staticmethod
    def _triples(summary: _Guarantees) -> list[tuple[float, float, int]]:
        return sorted((eps, delta, count) for (eps, delta), count in summary.items() if count)


class PureEpsilonAccountant(_GuaranteeAccountant):
    """Basic composition: (Σ ε_i, Σ δ_i); at δ = 0 the plain sum Σ ε_i.

    ``get_epsilon(delta)`` is Σ ε_i when ``delta`` ≥ Σ δ_i and ∞ otherwise; ``get_delta(epsilon)``
    is Σ δ_i when ``epsilon`` ≥ Σ ε_i and 1 otherwise.
    """

    name = "pure"

    def epsilon_from_summary(self, summary: _Guarantees, delta: float) -> float:
        return composition.basic_epsilon(self._triples(summary), delta)

    def delta_from_summary(self, summary: _Guarantees, epsilon: float) -> float:
        return composition.basic_delta(self._triples(summary), epsilon)


class AdvancedCompositionAccountant(_GuaranteeAccountant):
    """Advanced composition of heterogeneous (ε_i, δ_i) releases.

    Args:
      theorem: "optimal" (default): Kairouz–Oh–Viswanath's exact optimal composition, enumerated
        in log space while the loss support has at most ``max_support`` atoms; beyond that the
        smaller of two upper bounds on it: the pessimistic lattice privacy-loss distribution of
        :func:`accountants.lattice.lattice_epsilon` (each ε_i rounded up to a lattice, the
        composed losses convolved; within about ``resolution`` of the optimum, relative) and
        KOV Thm. 3.5. "drv": Dwork–Rothblum–Vadhan. Both also take the basic sum when smaller.
      max_support: enumeration limit for the exact optimal composition (an integer in
        [1, ``MAX_SUPPORT``]).
      resolution: the lattice step beyond the enumeration limit, as a fraction of Σε²/Σε (a
        number in (0, 1]; smaller is tighter and slower).
    """

    def __init__(
        self,
        theorem: str = "optimal",
        max_support: int = 200_000,
        ledger_path: StrPath | None = None,
        neighboring_relation: NeighboringRelation = DEFAULT_RELATION,
        resolution: float = lattice.DEFAULT_RESOLUTION,
    ) -> None:
        if not isinstance(theorem, str) or theorem not in ("optimal", "drv"):
            raise ValueError(f"theorem must be 'optimal' or 'drv', got {theorem!r}")
        limit: object = max_support
        if isinstance(limit, bool) or not isinstance(limit, numbers.Integral):
            raise TypeError(f"max_support must be an integer >= 1, got {max_support!r}")
        if not 1 <= int(limit) <= MAX_SUPPORT:
            raise ValueError(f"max_support must be in [1, {MAX_SUPPORT}], got {max_support!r}")
        if isinstance(resolution, bool) or not isinstance(resolution, numbers.Real) or not 0 < resolution <= 1:
            raise ValueError(f"resolution must be a number in (0, 1], got {resolution!r}")
        super().__init__(ledger_path, neighboring_relation)
        self.resolution: float = float(resolution)
        self.theorem: str = theorem
        self.max_support: int = int(limit)
        self.name = "optimal_composition" if theorem == "optimal" else "advanced_composition"

    def _exact(self, triples: composition.Guarantees) -> bool:
        return self.theorem == "optimal" and composition.loss_support_size(triples) <= self.max_support

    def epsilon_from_summary(self, summary: _Guarantees, delta: float) -> float:
        triples = self._triples(summary)
        if not triples:  # no release: identical outputs
            return 0.0
        if self._exact(triples):
            return composition.optimal_epsilon(triples, delta)
        bound = composition.basic_epsilon(triples, delta)
        if delta > 0:
            second = composition.drv_epsilon if self.theorem == "drv" else composition.kov_heterogeneous_epsilon
            bound = min(bound, second(triples, delta))
        if self.theorem == "optimal":
            bound = min(bound, lattice.lattice_epsilon(triples, delta, self.resolution))
        return bound

    def delta_from_summary(self, summary: _Guarantees, epsilon: float) -> float:
        triples = self._triples(summary)
        if not triples:  # no release: identical outputs
            return 0.0
        if self._exact(triples):
            return composition.optimal_delta(triples, epsilon)
        basic = composition.basic_delta(triples, epsilon)
        if self.theorem == "drv":
            return min(basic, composition.drv_delta(triples, epsilon))
        kov = _invert_decreasing(lambda d: composition.kov_heterogeneous_epsilon(triples, d), epsilon)
        return min(basic, kov, lattice.lattice_delta(triples, epsilon, self.resolution))


def _invert_decreasing(epsilon_of_delta: Callable[[float], float], epsilon: float) -> float:
    """Smallest δ (to 1e-12 relative, rounded up) with epsilon_of_delta(δ) ≤ ε; 1.0 if none."""
    if epsilon_of_delta(1.0 - 1e-16) > epsilon:
        return 1.0
    low, high = 1e-300, 1.0 - 1e-16
    if epsilon_of_delta(low) <= epsilon:
        return low
    for _ in range(200):
        middle = math.sqrt(low) * math.sqrt(high) if high > 2 * low else (low + high) / 2  # no underflow
        if not low < middle < high:  # adjacent floats
            break
        if epsilon_of_delta(middle) <= epsilon:
            high = middle
        else:
            low = middle
        if high - low <= 1e-12 * high:
            break
    return high
