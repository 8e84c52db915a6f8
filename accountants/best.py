"""The smallest valid bound over every accountant that can bound a whole ledger."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dp_accounting import dp_event

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
    """The best bound for the worst (or named) participant, which accountant gave it, and the
    bounds of the accountants evaluated for that participant.

    ``bounds`` lacks an accountant that cannot bound the ledger and, unless
    ``best_epsilon(..., every_accountant=True)``, one skipped because it cannot win (see
    :func:`best_epsilon`); :func:`epsilon_by_accountant` always evaluates every accountant.
    """

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

    Each accountant composes each participant's releases once (as a batch) and bounds only the
    participants asked for; an accountant that refuses some composition it is asked for (e.g.
    more releases than it can compose) is left out.

    Raises:
      TypeError: ``ledger`` is not a :class:`Ledger`, or ``accountants`` is not a mapping of names
        to factories of accountants.
      ValueError: bad ``delta``, an event of the ledger with invalid parameters, or an unknown
        ``participant``.
    """
    delta, factories, participants, releases, events = _checked_arguments(ledger, delta, participant, accountants)
    results: dict[str, dict[Hashable, float]] = {}
    for name, factory in factories.items():
        bounds = _bounds(_made(name, factory), events, releases, participants, delta)
        if bounds is not None:
            results[name] = bounds
    return results


def best_epsilon(
    ledger: Ledger,
    delta: float,
    participant: Hashable = None,
    accountants: Mapping[str, Callable[[], Accountant[Any]]] | None = None,
    *,
    every_accountant: bool = False,
) -> BestBound:
    """The smallest ε any supporting accountant defends, per participant, then the worst one.

    Accountants that cannot win are skipped (``every_accountant=True`` evaluates them all, as
    :func:`epsilon_by_accountant` does): when an :class:`ExactGaussianAccountant` supports every
    event of the ledger, every participant's releases compose to exactly μ-GDP (Dong, Roth & Su
    2022, Cor. 3.3), whose (ε, δ) trade-off is the exact one (their Cor. 2.13), so any other sound
    accountant under the same neighbouring relation bounds an ε at least the exact one; only the
    exact accountant is evaluated then, and the result is its own bound: a valid upper bound, the
    least float its rigorous check passes (rounded outward, see :mod:`accountants.exact_gaussian`),
    which another accountant's bound can undercut only within that outward rounding (a few units
    in the last place). No other accountant is skipped. Each accountant composes each
    participant's releases once.

    Raises:
      TypeError / ValueError: bad arguments (see :func:`epsilon_by_accountant`).
      ValueError: no accountant supports every event of the ledger.
    """
    if not isinstance(every_accountant, bool):
        raise TypeError(f"every_accountant must be True or False, got {every_accountant!r}")
    delta, factories, participants, releases, events = _checked_arguments(ledger, delta, participant, accountants)
    made = {name: _made(name, factory) for name, factory in factories.items()}
    computed: dict[str, dict[Hashable, float] | None] = {}
    by_accountant: dict[str, dict[Hashable, float]] = {}
    for name, accountant in made.items():
        if every_accountant or type(accountant) is not ExactGaussianAccountant:
            continue
        computed[name] = bounds = _bounds(accountant, events, releases, participants, delta)
        relation = accountant.neighboring_relation
        if bounds is not None and all(getattr(a, "neighboring_relation", None) == relation for a in made.values()):
            by_accountant = {name: bounds}  # the exact trade-off: no other accountant can win
            break
    else:
        for name, accountant in made.items():
            bounds = computed[name] if name in computed else _bounds(accountant, events, releases, participants, delta)
            if bounds is not None:
                by_accountant[name] = bounds
    if not by_accountant:
        raise ValueError("no accountant supports every event of this ledger")
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


def _checked_arguments(
    ledger: object, delta: float, participant: Hashable, accountants: object
) -> tuple[float, Mapping[str, Callable[[], Accountant[Any]]], list[Hashable], Ledger, list[dp_event.DpEvent]]:
    """(δ, factories, participants to bound, their releases, the other participants' distinct
    events), all checked. Every release of the ledger is checked: a bad event is an error, not an
    event no accountant supports (when every participant is bounded, each accountant's
    :meth:`Accountant.register_ledger` makes that check)."""
    if not isinstance(ledger, Ledger):
        raise TypeError(f"ledger must be an accountants.Ledger, got {type(ledger).__name__}: {ledger!r:.80}")
    delta = check_delta(delta)
    factories = _check_factories(ACCOUNTANTS if accountants is None else accountants)
    if participant is None:
        return delta, factories, ledger.participants, ledger, []
    participant = check_participant(participant)
    others = []
    for index, entry in enumerate(ledger):
        check_event(entry.event, where=f"ledger entry {index}")
        if entry.participant != participant:
            others.append(entry.event)
    return delta, factories, [participant], Ledger(ledger.for_participant(participant)), _distinct(others)


def _distinct(events: Iterable[dp_event.DpEvent]) -> list[dp_event.DpEvent]:
    """Each event once (unhashable ones, e.g. with a list inside, each time they occur)."""
    hashable: dict[dp_event.DpEvent, None] = {}
    unhashable: list[dp_event.DpEvent] = []
    for event in events:
        try:
            hashable[event] = None
        except TypeError:
            unhashable.append(event)
    return [*hashable, *unhashable]


def _check_factories(factories: object) -> Mapping[str, Callable[[], Accountant[Any]]]:
    if not isinstance(factories, Mapping):
        raise TypeError(f"accountants must be a mapping of names to accountant factories, got {factories!r:.80}")
    for name, factory in factories.items():
        if not isinstance(name, str) or not callable(factory):
            raise TypeError(
                f"accountants must map names (str) to zero-argument accountant factories, got {name!r}: {factory!r:.80}"
            )
    return factories


def _made(name: str, factory: Callable[[], Accountant[Any]]) -> Accountant[Any]:
    accountant = factory()
    if not isinstance(accountant, Accountant):
        raise TypeError(f"accountants[{name!r}] must make an accountants.Accountant, got {accountant!r:.80}")
    return accountant


def _bounds(
    accountant: Accountant[Any],
    events: Sequence[dp_event.DpEvent],
    releases: Ledger,
    participants: list[Hashable],
    delta: float,
) -> dict[Hashable, float] | None:
    """{participant: ε} from a fresh ``accountant`` given ``releases``, or None if it cannot bound
    them or does not support one of the other ``events`` of the ledger."""
    if not all(accountant.supports(event) for event in events):
        return None
    try:
        accountant.register_ledger(releases)
        return {p: accountant.get_epsilon(delta, p) for p in participants}
    except UnsupportedEventError:  # e.g. more releases than this accountant can compose
        return None
