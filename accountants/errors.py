"""Exceptions raised by the accountants."""

from __future__ import annotations

from dp_accounting.privacy_accountant import UnsupportedEventError as _DpUnsupportedEventError


class UnsupportedEventError(_DpUnsupportedEventError, ValueError):
    """An accountant cannot give a bound for an event; the message names both.

    Subclasses ``dp_accounting``'s error of the same name, so code written for ``dp_accounting``
    catches it unchanged.
    """

    def __init__(self, accountant: str, event: object, reason: str = "") -> None:
        self.accountant = accountant
        self.event = event
        self.reason = reason
        detail = f": {reason}" if reason else ""
        super().__init__(f"{accountant} cannot bound the event {event!r}{detail}")


class PrivacyBudgetExceeded(RuntimeError):
    """A release was refused because it would push a participant past the privacy budget."""

    def __init__(self, participant: object, epsilon: float, budget_epsilon: float, delta: float) -> None:
        self.participant = participant
        self.epsilon = epsilon
        self.budget_epsilon = budget_epsilon
        self.delta = delta
        super().__init__(
            f"release refused: participant {participant!r} would reach epsilon={epsilon:.6g} "
            f"at delta={delta:g}, over the budget epsilon={budget_epsilon:g}; nothing was recorded"
        )
