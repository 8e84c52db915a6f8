"""dp-accounting's ``PrivacyAccountant`` interface over any accountant here: a drop-in.

    from dp_accounting import mechanism_calibration
    from accountants import DpAccountingView, ExactGaussianAccountant

    mechanism_calibration.calibrate_dp_mechanism(
        lambda: DpAccountingView(ExactGaussianAccountant()), dp_event.GaussianDpEvent, 1.0, 1e-5
    )

:class:`DpAccountingView` is a ``dp_accounting.PrivacyAccountant`` (``compose``, ``supports``,
``get_epsilon(target_delta)``, ``get_delta(target_epsilon)``, ``ledger`` as a composed
``DpEvent``, ``neighboring_relation``), so code written for dp-accounting (calibration, a DP-SGD
accounting loop) runs unchanged; the wrapped accountant stays reachable as ``.accountant`` with its
per-participant extensions (``get_epsilon(target_delta, participant=...)`` works here too).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from dp_accounting import dp_event, privacy_accountant

from accountants.base import Accountant
from accountants.errors import UnsupportedEventError

__all__ = ["DpAccountingView"]


class DpAccountingView(privacy_accountant.PrivacyAccountant):
    """An accountant of this package seen through dp-accounting's ``PrivacyAccountant`` interface.

    The neighbouring relation is the wrapped accountant's (``ADD_OR_REMOVE_ONE`` unless it was
    built with another; see :mod:`accountants.relations`).
    """

    def __init__(self, accountant: Accountant[Any]) -> None:
        if not isinstance(accountant, Accountant):
            raise TypeError(f"accountant must be an accountants.Accountant, got {accountant!r:.80}")
        relation = getattr(accountant, "neighboring_relation", privacy_accountant.NeighboringRelation.ADD_OR_REMOVE_ONE)
        super().__init__(relation)
        self.accountant = accountant

    def _maybe_compose(
        self, event: dp_event.DpEvent, count: int, do_compose: bool
    ) -> privacy_accountant.PrivacyAccountant.CompositionErrorDetails | None:
        try:
            if do_compose:
                self.accountant.register(event, count)
            elif not self.accountant.supports(event):
                raise self.accountant.unsupported(event)
        except UnsupportedEventError as error:
            return self.CompositionErrorDetails(invalid_event=event, error_message=str(error))
        return None

    def get_epsilon(self, target_delta: float, participant: Hashable = None) -> float:
        """The accountant's ε at ``target_delta`` (the worst participant if None)."""
        return self.accountant.get_epsilon(target_delta, participant)

    def get_delta(self, target_epsilon: float, participant: Hashable = None) -> float:
        """The accountant's δ at ``target_epsilon`` (the worst participant if None)."""
        return self.accountant.get_delta(target_epsilon, participant)

    def __repr__(self) -> str:
        return f"DpAccountingView({self.accountant!r})"
