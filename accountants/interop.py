"""dp-accounting's ``PrivacyAccountant`` interface over any accountant here: a drop-in.

    from dp_accounting import dp_event, mechanism_calibration
    from accountants import DpAccountingView, ExactGaussianAccountant

    mechanism_calibration.calibrate_dp_mechanism(
        lambda: DpAccountingView(ExactGaussianAccountant()), dp_event.GaussianDpEvent, 1.0, 1e-5
    )

:class:`DpAccountingView` is a ``dp_accounting.PrivacyAccountant`` (``compose``, ``supports``,
``get_epsilon(target_delta)``, ``get_delta(target_epsilon)``, ``ledger`` as a composed
``DpEvent``, ``neighboring_relation``), so code written for dp-accounting (calibration, a DP-SGD
accounting loop) runs unchanged; the wrapped accountant stays reachable as ``.accountant`` with its
per-participant extensions (``get_epsilon(target_delta, participant=...)`` works here too).

A release the wrapped accountant refuses is an error raised by ``compose`` and recorded nowhere:
the view has no record of its own, its ``ledger`` is read from the wrapped accountant's.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Hashable
from typing import Any

from dp_accounting import dp_event, dp_event_builder, privacy_accountant

from accountants.base import Accountant
from accountants.errors import UnsupportedEventError
from accountants.validation import check_epsilon

__all__ = ["DpAccountingView"]

#: The largest δ below 1, at which a ledger's ε is finite unless it holds a non-private release.
_BELOW_ONE = math.nextafter(1.0, 0.0)


class DpAccountingView(privacy_accountant.PrivacyAccountant):
    """An accountant of this package seen through dp-accounting's ``PrivacyAccountant`` interface.

    The neighbouring relation is the wrapped accountant's (``ADD_OR_REMOVE_ONE`` unless it was
    built with another; see :mod:`accountants.relations`). Releases are the default
    participant's (``participant=None``); ``get_epsilon`` and ``get_delta`` bound the worst
    participant unless one is named.

    Where dp-accounting's interface accepts more than the accountants here, the view answers as
    dp-accounting's own accountants do: ``get_epsilon(1)`` is 0 (every mechanism is (0, 1)-DP), or
    ∞ if a release is non-private; ``get_delta(math.inf)`` is the wrapped accountant's δ at the
    largest float ε (an upper bound on the least δ at ε = ∞: 0 for an empty ledger, 1 for a
    non-private release).
    """

    def __init__(self, accountant: Accountant[Any]) -> None:
        if not isinstance(accountant, Accountant):
            raise TypeError(f"accountant must be an accountants.Accountant, got {accountant!r:.80}")
        relation = getattr(accountant, "neighboring_relation", privacy_accountant.NeighboringRelation.ADD_OR_REMOVE_ONE)
        super().__init__(relation)
        self.accountant = accountant

    def supports(self, event: dp_event.DpEvent) -> bool:
        """Whether one release of ``event`` would be accepted now, on top of the releases already
        registered (an accountant may refuse a release because of them, e.g. too many)."""
        return self._maybe_compose(event, 1, do_compose=False) is None

    def _maybe_compose(
        self, event: dp_event.DpEvent, count: int, do_compose: bool
    ) -> privacy_accountant.PrivacyAccountant.CompositionErrorDetails | None:
        """None if ``count`` releases of ``event`` are (or, with ``do_compose``, were) accepted on top
        of the registered ones; else the unsupported part of ``event`` with the reason (nothing
        is recorded). Bad arguments raise TypeError / ValueError naming them."""
        try:
            if do_compose:
                self.accountant.register(event, count)
            else:
                self.accountant.check_registration(event, count)
        except UnsupportedEventError as error:
            return self.CompositionErrorDetails(invalid_event=error.event, error_message=error.reason or str(error))
        return None

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> DpAccountingView:
        """Register ``count`` releases of ``event`` with the wrapped accountant; returns ``self``.

        Raises:
          TypeError / ValueError: bad arguments, e.g. ``count`` < 1 (nothing is recorded).
          UnsupportedEventError: the wrapped accountant refuses the releases, given the releases
            already registered; the message names the unsupported part of ``event`` and the
            reason (nothing is recorded).
        """
        if isinstance(count, numbers.Integral) and not isinstance(count, bool) and count < 1:
            raise ValueError(f"count must be a positive integer (as in dp-accounting), got {count!r}")
        details = self._maybe_compose(event, count, do_compose=True)
        if details is not None:
            reason = f"[{details.error_message}] caused by subevent {details.invalid_event!r}"
            raise UnsupportedEventError(type(self.accountant).__name__, event, reason)
        return self

    @property
    def ledger(self) -> dp_event.DpEvent:
        """The default participant's releases composed into one ``DpEvent`` (dp-accounting's form),
        read from the wrapped accountant: releases composed through the view and any registered
        there directly or loaded from its ledger file."""
        builder = dp_event_builder.DpEventBuilder()
        for entry in self.accountant.ledger.for_participant(None):
            event, count = entry.event, entry.count
            while isinstance(event, dp_event.SelfComposedDpEvent):
                event, count = event.event, count * event.count
            if count:
                builder.compose(event, count)
        built: dp_event.DpEvent = builder.build()
        return built

    def get_epsilon(self, target_delta: float, participant: Hashable = None) -> float:
        """The accountant's ε at ``target_delta`` in [0, 1] (the worst participant if None)."""
        delta = _check_target_delta(target_delta)
        if delta == 1.0:
            return 0.0 if math.isfinite(self.accountant.get_epsilon(_BELOW_ONE, participant)) else math.inf
        return self.accountant.get_epsilon(delta, participant)

    def get_delta(self, target_epsilon: float, participant: Hashable = None) -> float:
        """The accountant's δ at ``target_epsilon`` >= 0, ∞ included (the worst participant if None)."""
        epsilon = check_epsilon(target_epsilon, name="target_epsilon", allow_inf=True)
        return self.accountant.get_delta(min(epsilon, sys.float_info.max), participant)

    def __repr__(self) -> str:
        return f"DpAccountingView({self.accountant!r})"


def _check_target_delta(delta: object) -> float:
    """``delta`` as a float if it is a probability in [0, 1] (dp-accounting accepts 1), else raise."""
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise TypeError(f"target_delta must be a real number, got {delta!r:.80}")
    value = float(delta)
    if not 0.0 <= value <= 1.0:  # False for NaN
        raise ValueError(f"target_delta must be a probability in [0, 1], got {delta!r}")
    return value
