"""The smallest valid bound over every accountant that can bound a whole ledger."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accountants.approximate import AdvancedCompositionAccountant, PureEpsilonAccountant
from accountants.base import Accountant
from accountants.errors import UnsupportedEventError
from accountants.events import check_event
from accountants.exact_gaussian import ExactGaussianAccountant
from accountants.ledger import Ledger, check_participant
from accountants.moments import MomentsAccountant
from accountants.pld import PLDAccountant
from accountants.validation import check_delta

__all__ = ["ACCOUNTANTS", "BestBound", "best_epsilon", "epsilon_by_accountant"]

#: Every accountant by report name, as a factory of a fresh instance.
ACCOUNTANTS: dict[str, Callable[[], Accountant[Any]]] = {
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
    accountants: Mapping[str, Callable[[], Accountant[Any]]] | None = None,
) -> dict[str, dict[Hashable, float]]:
    """{accountant name: {participant: ε}} for every accountant that supports every event.

    Raises:
      TypeError: ``ledger`` is not a :class:`Ledger`, or ``accountants`` is not a mapping of names
        to factories of accountants.
      ValueError: bad ``delta``, an event of the ledger with invalid parameters, or an unknown
        ``participant``.
    """
    if not isinstance(ledger, Ledger):
        raise TypeError(f"ledger must be an accountants.Ledger, got {type(ledger).__name__}: {ledger!r:.80}")
    delta = check_delta(delta)
    for index, entry in enumerate(ledger):  # a bad event is an error, not an event no accountant supports
        check_event(entry.event, where=f"ledger entry {index}")
    factories = _check_factories(ACCOUNTANTS if accountants is None else accountants)
    participants = ledger.participants if participant is None else [check_participant(participant)]
    results: dict[str, dict[Hashable, float]] = {}
    for name, factory in factories.items():
        accountant = factory()
        if not isinstance(accountant, Accountant):
            raise TypeError(f"accountants[{name!r}] must make an accountants.Accountant, got {accountant!r:.80}")
        if not all(accountant.supports(entry.event) for entry in ledger):
            continue
        try:
            accountant.register_ledger(ledger)
            results[name] = {p: accountant.get_epsilon(delta, p) for p in participants}
        except UnsupportedEventError:  # e.g. more releases than this accountant can compose
            continue
    return results


def _check_factories(factories: object) -> Mapping[str, Callable[[], Accountant[Any]]]:
    if not isinstance(factories, Mapping):
        raise TypeError(f"accountants must be a mapping of names to accountant factories, got {factories!r:.80}")
    for name, factory in factories.items():
        if not isinstance(name, str) or not callable(factory):
            raise TypeError(
                f"accountants must map names (str) to zero-argument accountant factories, got {name!r}: {factory!r:.80}"
            )
    return factories


def best_epsilon(
    ledger: Ledger,
    delta: float,
    participant: Hashable = None,
    accountants: Mapping[str, Callable[[], Accountant[Any]]] | None = None,
) -> BestBound:
    """The smallest ε any supporting accountant defends, per participant, then the worst one.

    Raises:
      TypeError / ValueError: bad arguments (see :func:`epsilon_by_accountant`).
      ValueError: no accountant supports every event of the ledger.
    """
    by_accountant = epsilon_by_accountant(ledger, delta, participant, accountants)
    delta = check_delta(delta)
    if not by_accountant:
        raise ValueError("no accountant supports every event of this ledger")
    participants = ledger.participants if participant is None else [check_participant(participant)]
    if not participants:
        return BestBound(0.0, delta, next(iter(by_accountant)), None, {})

    def best_for(p: Hashable) -> BestBound:
        bounds = {name: values[p] for name, values in by_accountant.items()}
        name = min(bounds, key=lambda n: bounds[n])
        return BestBound(bounds[name], delta, name, p, bounds)

    worst = best_for(participants[0])
    for p in participants[1:]:
        candidate = best_for(p)
        if candidate.epsilon > worst.epsilon or math.isnan(worst.epsilon):
            worst = candidate
    return worst
