"""The smallest valid bound over every accountant that can bound a whole ledger."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dp_accounting import dp_event

from accountants.approximate import AdvancedCompositionAccountant, PureEpsilonAccountant
from accountants.base import Accountant
from accountants.display import best_bound_html, best_bound_markdown
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
    """The best bound for the worst (or named) participant, which accountant gave it, the bounds
    of the accountants evaluated for that participant, and the accountants that failed.

    ``bounds`` lacks an accountant that cannot bound the ledger (it refuses an event), one that
    failed, and, unless ``best_epsilon(..., every_accountant=True)``, one skipped (see
    :func:`best_epsilon`); :func:`epsilon_by_accountant` always evaluates every accountant.
    ``failures`` maps each accountant that accepted the releases but could not answer (an error
    inside it or a peer library it uses) to the error's type and message.
    """

    epsilon: float
    delta: float
    accountant: str
    participant: Hashable
    bounds: Mapping[str, float] = field(default_factory=dict)
    failures: Mapping[str, str] = field(default_factory=dict)

    def _repr_markdown_(self) -> str:
        return best_bound_markdown(self)

    def _repr_html_(self) -> str:
        return best_bound_html(self)


def epsilon_by_accountant(
    ledger: Ledger,
    delta: float,
    participant: Hashable = None,
    accountants: Mapping[str, Callable[[], Accountant[Any]]] | None = None,
) -> dict[str, dict[Hashable, float]]:
    """{accountant name: {participant: ε}} for every accountant that supports every event.

    Each accountant composes each participant's releases once (as a batch) and bounds only the
    participants asked for; an accountant that refuses some composition it is asked for (e.g.
    more releases than it can compose), or fails, is left out.

    Raises:
      TypeError: ``ledger`` is not a :class:`Ledger`, or ``accountants`` is not a mapping of names
        to factories of accountants.
      ValueError: bad ``delta``, an event of the ledger with invalid parameters, or an unknown
        ``participant``.
    """
    delta, factories, participants, releases, events = _checked_arguments(ledger, delta, participant, accountants)
    results: dict[str, dict[Hashable, float]] = {}
    for name, factory in factories.items():
        bounds = _bounds(_made(name, factory), events, releases, participants, delta, {}, name)
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
    in the last place). The classic moments accountant (Abadi et al.'s conversion, which the
    DP-ADMM paper reproduces) is evaluated only when neither the RDP accountant with the improved
    conversion nor the PLD accountant answers: the improved conversion is never larger than the
    classic one at the same order (Canonne, Kamath & Steinke 2020, Prop. 12), and the PLD is
    tighter still in practice, while the classic accountant's 10^4 orders cost seconds on sampled
    releases. No other accountant is skipped. Each accountant composes each participant's releases
    once.

    An accountant that accepts the releases but fails to answer (an error inside it or in a peer
    library) never aborts the call: it is named in ``BestBound.failures`` and the others answer.

    Raises:
      TypeError / ValueError: bad arguments (see :func:`epsilon_by_accountant`).
      ValueError: no accountant supports every event of the ledger (or every one that does failed:
        the message names them and their errors).
    """
    if not isinstance(every_accountant, bool):
        raise TypeError(f"every_accountant must be True or False, got {every_accountant!r}")
    delta, factories, participants, releases, events = _checked_arguments(ledger, delta, participant, accountants)
    made = {name: _made(name, factory) for name, factory in factories.items()}
    failures: dict[str, str] = {}
    by_accountant: dict[str, dict[Hashable, float]] = {}
    exact = [name for name, a in made.items() if type(a) is ExactGaussianAccountant]
    for name in exact if not every_accountant else []:
        accountant = made[name]
        assert isinstance(accountant, ExactGaussianAccountant)
        bounds = _bounds(accountant, events, releases, participants, delta, failures, name)
        relation = accountant.neighboring_relation
        if bounds is not None and all(getattr(a, "neighboring_relation", None) == relation for a in made.values()):
            by_accountant = {name: bounds}  # the exact trade-off: no other accountant can win
            break
        if bounds is not None:
            by_accountant[name] = bounds
    else:
        classic = [name for name, a in made.items() if _is_classic(a)]
        for name, accountant in made.items():
            if name in by_accountant or name in failures or name in classic or (name in exact and not every_accountant):
                continue
            bounds = _bounds(accountant, events, releases, participants, delta, failures, name)
            if bounds is not None:
                by_accountant[name] = bounds
        answered = any(isinstance(made[n], (PLDAccountant, MomentsAccountant)) for n in by_accountant)
        for name in classic if every_accountant or not answered else []:
            bounds = _bounds(made[name], events, releases, participants, delta, failures, name)
            if bounds is not None:
                by_accountant[name] = bounds
        by_accountant = {name: by_accountant[name] for name in made if name in by_accountant}  # the given order
    if not by_accountant:
        failed = "; ".join(f"{name}: {reason}" for name, reason in failures.items())
        raise ValueError(
            "no accountant supports every event of this ledger" + (f" (failed: {failed})" if failed else "")
        )
    if not participants:
        return BestBound(0.0, delta, next(iter(by_accountant)), None, {}, failures)

    def best_for(p: Hashable) -> BestBound:
        bounds = {name: values[p] for name, values in by_accountant.items()}
        name = min(bounds, key=lambda n: bounds[n])
        return BestBound(bounds[name], delta, name, p, bounds, failures)

    worst = best_for(participants[0])
    for p in participants[1:]:
        candidate = best_for(p)
        if candidate.epsilon > worst.epsilon or math.isnan(worst.epsilon):
            worst = candidate
    return worst


def _is_classic(accountant: Accountant[Any]) -> bool:
    return isinstance(accountant, MomentsAccountant) and accountant.conversion == "classic"


def _checked_arguments(
    ledger: object, delta: float, participant: Hashable, accountants: object
) -> tuple[float, Mapping[str, Callable[[], Accountant[Any]]], list[Hashable], Ledger, list[dp_event.DpEvent]]:
    """(δ, factories, participants to bound, their releases, the ledger's distinct events), all
    checked. Every release of the ledger is checked: a bad event is an error, not an event no
    accountant supports nor an accountant's failure. An accountant that does not support one of the
    distinct events is left out before it is given the releases (a thousand entries of one event
    cost it one check, not a thousand)."""
    if not isinstance(ledger, Ledger):
        raise TypeError(f"ledger must be an accountants.Ledger, got {type(ledger).__name__}: {ledger!r:.80}")
    delta = check_delta(delta)
    factories = _check_factories(ACCOUNTANTS if accountants is None else accountants)
    checked = set()  # by object (alive for the whole loop): entries often share one event object
    for index, entry in enumerate(ledger):
        if id(entry.event) not in checked:
            check_event(entry.event, where=f"ledger entry {index}")
            checked.add(id(entry.event))
    events = _distinct(entry.event for entry in ledger)
    if participant is None:
        return delta, factories, ledger.participants, ledger, events
    participant = check_participant(participant)
    return delta, factories, [participant], Ledger(ledger.for_participant(participant)), events


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
    failures: dict[str, str],
    name: str,
) -> dict[Hashable, float] | None:
    """{participant: ε} from a fresh ``accountant`` given ``releases``, or None if it cannot bound
    them, does not support one of the ``events`` of the ledger, or fails (then recorded in
    ``failures`` under ``name``). The arguments were checked, so any other error is the
    accountant's own (or a peer library's) failure on valid input."""
    try:
        if not all(accountant.supports(event) for event in events):
            return None
        try:
            accountant.register_ledger(releases)
        except UnsupportedEventError:  # e.g. more releases than this accountant can compose
            return None
        return {p: accountant.get_epsilon(delta, p) for p in participants}
    except Exception as error:  # noqa: BLE001 - reported in the result, never a raw error
        failures[name] = f"{type(error).__name__}: {error!s:.300}"
        return None
