"""From a run's releases to its ledger and privacy bounds.

A solver states every release before it happens as (iteration, agent, event); this module records
them in a ``Ledger`` and registers each with every attached accountant under the releasing agent's
id (write-ahead: a crash mid-run never leaves a release unrecorded). Privacy parameters of the
DP-ADMM solvers (Huang et al. 2020) do not depend on the data or the noise, so a batched run registers its releases
once, not once per trial (its trials are independent simulations, ``Result.privacy_scope``).

A :class:`accountants.BudgetFilter` attaches like any accountant. A run's releases are all known
before the first one happens, so they are registered at once, before any noise is drawn, and a
run that would exceed the filter's budget is refused whole (``PrivacyBudgetExceeded``) with
nothing recorded anywhere: the filter registers first (all or nothing), and before it every other
accountant is asked whether it can bound every event, so that none fails once the filter has
counted the run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from dp_accounting import dp_event

from accountants import ACCOUNTANTS, Accountant, BudgetFilter, Ledger, LedgerEntry

__all__ = [
    "DEFAULT_ACCOUNTANTS",
    "AccountantLike",
    "AccountantsLike",
    "privacy_by_name",
    "record_releases",
    "register_entries",
    "resolve_accountants",
]

#: The paper's moments accountant (integer τ, Theorem 2), RDP, PLD and the exact μ-GDP bound.
DEFAULT_ACCOUNTANTS = ("moments_classic", "rdp", "pld", "exact_gaussian")

#: What a run registers its releases with: an accountant, or a budget filter around one.
AccountantLike = Accountant | BudgetFilter
AccountantsLike = Sequence[Accountant | BudgetFilter | str] | None


def resolve_accountants(
    accountants: AccountantsLike, default: Sequence[str] = DEFAULT_ACCOUNTANTS
) -> list[AccountantLike]:
    """Accountant instances from names (``accountants.ACCOUNTANTS``), instances or
    ``BudgetFilter``s; None gives a fresh set of the ``default`` names, ``()`` none.

    Raises:
      TypeError: a single name or accountant instead of a sequence.
      ValueError: an unknown name or object; the same accountant twice, or a filter together with
        the accountant it wraps (its releases would count twice); more than one ``BudgetFilter``
        (a second filter could refuse the run after the first had counted it).
    """
    if accountants is None:
        accountants = default
    if isinstance(accountants, (str, Accountant, BudgetFilter)):
        raise TypeError(f"accountants must be a sequence of names or Accountant instances, got {accountants!r}")
    resolved: list[AccountantLike] = []
    for item in accountants:
        if isinstance(item, (Accountant, BudgetFilter)):
            resolved.append(item)
        elif isinstance(item, str) and item in ACCOUNTANTS:
            resolved.append(ACCOUNTANTS[item]())
        else:
            raise ValueError(
                "accountants must hold Accountant instances, BudgetFilters or names from "
                f"{sorted(ACCOUNTANTS)}, got {item!r}"
            )
    filters = [a for a in resolved if isinstance(a, BudgetFilter)]
    if len(filters) > 1:
        raise ValueError(
            f"accountants holds {len(filters)} BudgetFilters; attach at most one per run (a second filter "
            "could refuse the run after the first had counted its releases)"
        )
    seen: set[int] = set()
    for item in resolved:
        if id(item) in seen:
            raise ValueError(f"accountants lists {item!r} twice: its releases would count twice")
        seen.add(id(item))
    for budget in filters:
        if id(budget.accountant) in seen:
            raise ValueError(
                f"accountants lists both {budget!r} and the accountant it wraps: its releases would count twice "
                "(use the accountant only through the filter)"
            )
    return resolved


def register_entries(
    accountants: Sequence[AccountantLike],
    entries: Sequence[LedgerEntry] | Callable[[AccountantLike], Sequence[LedgerEntry]],
) -> None:
    """Register ``entries`` (or ``entries(accountant)``, each accountant's own selection) with
    every accountant, refusing the whole run before anything is recorded if any refuses.

    Order: every plain accountant is first asked whether it can bound each event (``supports``);
    then the ``BudgetFilter`` registers (all or nothing: ``PrivacyBudgetExceeded`` records
    nothing); then the plain accountants register.

    Raises:
      accountants.UnsupportedEventError: a plain accountant cannot bound an event (nothing recorded).
      accountants.PrivacyBudgetExceeded: the run would take a participant past the filter's budget
        (nothing recorded).
    """
    selected = [(a, list(entries(a) if callable(entries) else entries)) for a in accountants]
    for accountant, chosen in selected:
        if isinstance(accountant, Accountant):
            for event in _distinct([e.event for e in chosen]):
                if not accountant.supports(event):
                    raise accountant.unsupported(event, "refused before any release of the run was registered")
    ordered = [item for item in selected if isinstance(item[0], BudgetFilter)]
    ordered += [item for item in selected if not isinstance(item[0], BudgetFilter)]
    for accountant, chosen in ordered:
        numbered = [e.iteration for e in chosen if e.iteration is not None]
        if numbered and len(numbered) != len(chosen):
            raise ValueError("every ledger entry of a run states its iteration, or none does")
        accountant.register_many(
            [e.event for e in chosen],
            participants=[e.participant for e in chosen],
            iteration=numbered if numbered else None,
        )


def record_releases(
    events: Sequence[Sequence[dp_event.DpEvent]],
    accountants: Sequence[AccountantLike],
    delta: float | None,
) -> tuple[Ledger, dict[str, float]]:
    """Register release ``events[k][i]`` of agent i in iteration k with every accountant
    (:func:`register_entries`: a ``BudgetFilter`` refuses the whole run before anything is recorded).

    Returns:
      (ledger of all releases in order (k, i), {accountant name: ε at ``delta`` for the worst
      agent}); with ``delta`` None (a non-private solver) every ε is ∞.
    """
    entries = [
        LedgerEntry(participant=agent, event=event, iteration=k)
        for k, row in enumerate(events)
        for agent, event in enumerate(row)
    ]
    register_entries(accountants, entries)
    return Ledger(entries), privacy_by_name(
        accountants, lambda accountant: math.inf if delta is None else accountant.get_epsilon(delta)
    )


def privacy_by_name(
    accountants: Sequence[AccountantLike], epsilon: Callable[[AccountantLike], float]
) -> dict[str, float]:
    """{name: epsilon(accountant)}, a repeated name numbered ("rdp", "rdp#2", ...)."""
    privacy: dict[str, float] = {}
    for accountant in accountants:
        name = accountant.name
        suffix = 2
        while name in privacy:
            name, suffix = f"{accountant.name}#{suffix}", suffix + 1
        privacy[name] = epsilon(accountant)
    return privacy


def _distinct(events: list[dp_event.DpEvent]) -> list[dp_event.DpEvent]:
    try:
        return list(dict.fromkeys(events))
    except TypeError:  # an unhashable event (a list inside)
        return list({id(e): e for e in events}.values())
