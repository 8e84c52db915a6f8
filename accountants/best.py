"""The smallest valid bound over every accountant that can bound a whole ledger."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field

from accountants.approximate import AdvancedCompositionAccountant, PureEpsilonAccountant
from accountants.base import Accountant
from accountants.exact_gaussian import ExactGaussianAccountant
from accountants.ledger import Ledger
from accountants.moments import MomentsAccountant
from accountants.pld import PLDAccountant
from accountants.validation import check_delta

__all__ = ["ACCOUNTANTS", "BestBound", "best_epsilon", "epsilon_by_accountant"]

#: Every accountant by report name, as a factory of a fresh instance.
ACCOUNTANTS: dict[str, Callable[[], Accountant]] = {
    "exact_gaussian": ExactGaussianAccountant,
    "rdp": MomentsAccountant,
    "moments_classic": MomentsAccountant.classic,
    "pld": PLDAccountant,
    "optimal_composition": AdvancedCompositionAccountant,
    "advanced_composition": lambda: AdvancedCompositionAccountant(theorem="drv"),
    "pure": PureEpsilonAccountant,
}


@dataclass(frozen=True)
class BestBound:
    """The best bound for the worst (or named) participant, which accountant gave it, and every
    accountant's bound for that participant (absent: the accountant cannot bound the ledger)."""

    epsilon: float
    delta: float
    accountant: str
    participant: Hashable
    bounds: Mapping[str, float] = field(default_factory=dict)


def epsilon_by_accountant(
    ledger: Ledger,
    delta: float,
    participant: Hashable = None,
    accountants: Mapping[str, Callable[[], Accountant]] | None = None,
) -> dict[str, dict[Hashable, float]]:
    """{accountant name: {participant: ε}} for every accountant that supports every event."""
    delta = check_delta(delta)
    factories = ACCOUNTANTS if accountants is None else accountants
    participants = ledger.participants if participant is None else [participant]
    results: dict[str, dict[Hashable, float]] = {}
    for name, factory in factories.items():
        accountant = factory()
        if not all(accountant.supports(entry.event) for entry in ledger):
            continue
        accountant.register_ledger(ledger)
        results[name] = {p: accountant.get_epsilon(delta, p) for p in participants}
    return results


def best_epsilon(
    ledger: Ledger,
    delta: float,
    participant: Hashable = None,
    accountants: Mapping[str, Callable[[], Accountant]] | None = None,
) -> BestBound:
    """The smallest ε any supporting accountant defends, per participant, then the worst one.

    Raises:
      ValueError: no accountant supports every event of the ledger.
    """
    by_accountant = epsilon_by_accountant(ledger, delta, participant, accountants)
    if not by_accountant:
        raise ValueError("no accountant supports every event of this ledger")
    participants = ledger.participants if participant is None else [participant]
    if not participants:
        return BestBound(0.0, delta, next(iter(by_accountant)), None, {})
    worst: BestBound | None = None
    for p in participants:
        bounds = {name: values[p] for name, values in by_accountant.items()}
        name = min(bounds, key=lambda n: bounds[n])
        candidate = BestBound(bounds[name], delta, name, p, bounds)
        if worst is None or candidate.epsilon > worst.epsilon or math.isnan(worst.epsilon):
            worst = candidate
    return worst
