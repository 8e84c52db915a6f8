"""From a run's releases to its ledger and privacy bounds.

A solver states every release before it happens as (iteration, agent, event); this module records
them in a ``Ledger`` and registers each with every attached accountant under the releasing agent's
id (write-ahead: a crash mid-run never leaves a release unrecorded). Privacy parameters of the
seed-000 solvers do not depend on the data or the noise, so a batched run registers its releases
once, not once per trial.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dp_accounting import dp_event

from accountants import ACCOUNTANTS, Accountant, Ledger, LedgerEntry

__all__ = ["DEFAULT_ACCOUNTANTS", "AccountantsLike", "record_releases", "resolve_accountants"]

#: The paper's moments accountant (integer τ, Theorem 2), RDP, PLD and the exact μ-GDP bound.
DEFAULT_ACCOUNTANTS = ("moments_classic", "rdp", "pld", "exact_gaussian")

AccountantsLike = Sequence[Accountant | str] | None


def resolve_accountants(accountants: AccountantsLike) -> list[Accountant]:
    """Accountant instances from names (``accountants.ACCOUNTANTS``) or instances; None gives a
    fresh ``DEFAULT_ACCOUNTANTS`` set, ``()`` none."""
    if accountants is None:
        accountants = DEFAULT_ACCOUNTANTS
    if isinstance(accountants, (str, Accountant)):
        raise TypeError(f"accountants must be a sequence of names or Accountant instances, got {accountants!r}")
    resolved = []
    for item in accountants:
        if isinstance(item, Accountant):
            resolved.append(item)
        elif isinstance(item, str) and item in ACCOUNTANTS:
            resolved.append(ACCOUNTANTS[item]())
        else:
            raise ValueError(
                f"accountants must hold Accountant instances or names from {sorted(ACCOUNTANTS)}, got {item!r}"
            )
    return resolved


def record_releases(
    events: Sequence[Sequence[dp_event.DpEvent]],
    accountants: Sequence[Accountant],
    delta: float | None,
) -> tuple[Ledger, dict[str, float]]:
    """Register release ``events[k][i]`` of agent i in iteration k with every accountant.

    Returns:
      (ledger of all releases in order (k, i), {accountant name: ε at ``delta`` for the worst
      agent}); with ``delta`` None (a non-private solver) every ε is ∞.
    """
    flat = [(agent, event, k) for k, row in enumerate(events) for agent, event in enumerate(row)]
    agents, flat_events, iterations = (list(column) for column in zip(*flat)) if flat else ([], [], [])
    for accountant in accountants:
        accountant.register_many(flat_events, participants=agents, iteration=iterations)
    entries = [LedgerEntry(participant=a, event=e, iteration=k) for a, e, k in flat]
    privacy: dict[str, float] = {}
    for accountant in accountants:
        name = accountant.name
        suffix = 2
        while name in privacy:
            name, suffix = f"{accountant.name}#{suffix}", suffix + 1
        privacy[name] = math.inf if delta is None else accountant.get_epsilon(delta)
    return Ledger(entries), privacy
