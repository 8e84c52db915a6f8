"""A privacy filter: refuse any release that would push a participant past its budget."""

from __future__ import annotations

from collections.abc import Hashable

from dp_accounting import dp_event

from accountants.base import Accountant
from accountants.errors import PrivacyBudgetExceeded
from accountants.ledger import Ledger
from accountants.validation import check_delta, check_epsilon

__all__ = ["BudgetFilter"]


class BudgetFilter:
    """Wraps an accountant; ``register`` raises :class:`PrivacyBudgetExceeded` *before* recording
    a release that would take its participant's ε at ``delta`` above ``epsilon``.

    The refused release is not recorded, so the caller must not perform it. The filter has the
    accountant interface, so a solver attaches it like any accountant. (Adaptively chosen releases
    under a fixed budget: Rogers et al. 2016 privacy filters; the check is the accountant's own
    bound on the composed releases, which is valid for fully adaptive composition for the
    composition theorems and RDP used here — Feldman & Zrnic 2021 for RDP filters.)
    """

    def __init__(self, accountant: Accountant, epsilon: float, delta: float) -> None:
        if not isinstance(accountant, Accountant):
            raise TypeError(f"accountant must be an accountants.Accountant, got {accountant!r}")
        self.accountant = accountant
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.name = f"budget({accountant.name})"

    def register(
        self, event: dp_event.DpEvent, count: int = 1, participant: Hashable = None, iteration: int | None = None
    ) -> BudgetFilter:
        would_be = self.accountant.epsilon_if_registered(event, self.delta, count, participant)
        if would_be > self.epsilon:
            raise PrivacyBudgetExceeded(participant, would_be, self.epsilon, self.delta)
        self.accountant.register(event, count, participant, iteration)
        return self

    def remaining_epsilon(self, participant: Hashable = None) -> float:
        """Budget left for ``participant`` (the worst participant if None)."""
        return max(0.0, self.epsilon - self.accountant.get_epsilon(self.delta, participant))

    def get_epsilon(self, delta: float, participant: Hashable = None) -> float:
        return self.accountant.get_epsilon(delta, participant)

    def get_delta(self, epsilon: float, participant: Hashable = None) -> float:
        return self.accountant.get_delta(epsilon, participant)

    def supports(self, event: dp_event.DpEvent) -> bool:
        return self.accountant.supports(event)

    @property
    def ledger(self) -> Ledger:
        return self.accountant.ledger
