"""A privacy filter: refuse any release that would push a participant past its budget."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from dp_accounting import dp_event

from accountants.approximate import PureEpsilonAccountant
from accountants.base import Accountant
from accountants.errors import PrivacyBudgetExceeded
from accountants.events import check_event
from accountants.exact_gaussian import ExactGaussianAccountant
from accountants.ledger import Ledger, check_participant
from accountants.moments import MomentsAccountant
from accountants.odometer import PrivacyOdometer
from accountants.pld import PLDAccountant
from accountants.validation import check_delta, check_epsilon

__all__ = ["BudgetFilter", "UNPROVEN_CHOICES", "UnprovenFilterWarning", "proven_filter"]

#: What a :class:`BudgetFilter` does with an accountant that is not a proven filter (``unproven``).
UNPROVEN_CHOICES = ("warn", "refuse", "ignore")


class UnprovenFilterWarning(UserWarning):
    """A :class:`BudgetFilter` uses an accountant whose budget is not proven to hold for releases
    chosen adaptively (see :func:`proven_filter`)."""


def proven_filter(accountant: Accountant[Any]) -> bool:
    """Whether stopping ``accountant``'s releases at a budget is a proven privacy filter for fully
    adaptive releases: basic composition (:class:`PureEpsilonAccountant`; Rogers et al. 2016),
    Gaussian DP (:class:`ExactGaussianAccountant`, μ² adding up; Smith & Thakurta 2022),
    RDP at one fixed order (:class:`MomentsAccountant` with a single order; Feldman & Zrnic
    2021) and the privacy odometer (:class:`PrivacyOdometer`, valid at every stopping time, so at
    the filter's: see :mod:`accountants.odometer`). Subclasses are not trusted (they may change
    the composition)."""
    if type(accountant) is MomentsAccountant:
        return len(accountant.orders) == 1
    return type(accountant) in (ExactGaussianAccountant, PureEpsilonAccountant, PrivacyOdometer)


class BudgetFilter:
    """Wraps an accountant; ``register`` raises :class:`PrivacyBudgetExceeded` *before* recording
    a release that would take its participant's ε at ``delta`` above ``epsilon``.

    The refused release is not recorded, so the caller must not perform it. The filter has the
    accountant interface a solver uses (``register``, ``register_many``, ``get_epsilon``,
    ``get_delta``, ``epsilon_if_registered``, ``supports``, ``ledger``, ``participants``, ``name``),
    so a solver can attach it like an accountant, and can refuse a whole run before its first
    release (``register_many`` is all or nothing).

    What is checked: the accountant's own bound on the composed releases, the candidate included.
    For releases fixed in advance that is simply composition, valid for every accountant. For
    releases chosen adaptively (each one, and the budget spent so far, depending on earlier
    outputs) a privacy filter needs its own theorem (Rogers et al. 2016). Proven: basic
    composition of (ε, δ) guarantees (:class:`accountants.PureEpsilonAccountant`; Rogers et al.
    2016), RDP at one fixed order (a :class:`accountants.MomentsAccountant` given a single order;
    Feldman & Zrnic 2021) and Gaussian DP (:class:`accountants.ExactGaussianAccountant`, μ² adding
    up; Smith & Thakurta 2022). Not proven for adaptively chosen releases: RDP optimised over
    several orders, the PLD accountant, and advanced or optimal composition (Whitehouse et al.
    2023 give filters at advanced-composition rates, with constants other than these bounds').

    ``require_adaptive=True`` refuses, at construction, an accountant without such a theorem;
    ``adaptive`` says which case holds.

    Concurrency: the check and the registration are atomic. Threads sharing a filter take turns
    (a lock). When the accountant has a ledger file, the filter also holds the file's OS lock
    (``fcntl.flock``, POSIX) from the check until the release is synced to disk, and first
    composes every release other processes appended to the file, so processes each with its own
    filter on the same ``ledger_path`` never overspend together. On platforms without ``flock``
    (Windows) only threads are serialised: processes must not share a ledger file there. Use the
    accountant only through the filter: registering on it directly bypasses the check.
    """

    def __init__(
        self,
        accountant: Accountant[Any],
        epsilon: float,
        delta: float,
        require_adaptive: bool = False,
        unproven: str = "warn",
    ) -> None:
        if not isinstance(accountant, Accountant):
            raise TypeError(f"accountant must be an accountants.Accountant, got {accountant!r}")
        if not isinstance(unproven, str) or unproven not in UNPROVEN_CHOICES:
            raise ValueError(f"unproven must be one of {', '.join(map(repr, UNPROVEN_CHOICES))}, got {unproven!r}")
        #: Whether the budget holds for adaptively chosen releases (see :func:`proven_filter`).
        self.adaptive = proven_filter(accountant)
        if not self.adaptive and (require_adaptive or unproven != "ignore"):
            message = (
                f"{type(accountant).__name__} has no proven privacy filter for adaptively chosen releases "
                "(its budget holds for releases fixed in advance); use BudgetFilter.odometer, "
                "ExactGaussianAccountant, PureEpsilonAccountant or a MomentsAccountant with a single order"
            )
            if require_adaptive:
                raise ValueError(f"require_adaptive: {message}")
            if unproven == "refuse":
                raise ValueError(f"unproven='refuse': {message}")
            warnings.warn(f"BudgetFilter: {message}, or unproven='ignore'", UnprovenFilterWarning, stacklevel=2)
        self.accountant = accountant
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.name = f"budget({accountant.name})"
        self._lock = threading.RLock()
        #: How many of :meth:`_within_by_delta`'s cheap bounds already exceeded the budget, by participant.
        self._exceeded: dict[Hashable, int] = {}

    @classmethod
    def odometer(cls, epsilon: float, delta: float, **options: Any) -> BudgetFilter:
        """A filter over a :class:`accountants.PrivacyOdometer` (``options`` are its arguments, e.g.
        ``ledger_path``, ``rule``): a proven filter for fully adaptive Gaussian, (ε, δ) and
        RDP-bounded (e.g. Poisson-sampled) releases, whose budget holds whenever the analyst stops."""
        return cls(PrivacyOdometer(**options), epsilon, delta, unproven="refuse")

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """This thread's turn: the filter's lock, and the ledger file's with its news composed."""
        with self._lock, self.accountant.ledger_turn():
            yield

    def register(
        self, event: dp_event.DpEvent, count: int = 1, participant: Hashable = None, iteration: int | None = None
    ) -> BudgetFilter:
        """Record ``count`` releases of ``event`` by ``participant`` if that keeps its ε within
        the budget; otherwise raise :class:`PrivacyBudgetExceeded` and record nothing."""
        with self._turn():
            within, exceeded = self._within_by_delta(event, count, participant)
            if not within:
                would_be = self.accountant.epsilon_if_registered(event, self.delta, count, participant)
                if not would_be <= self.epsilon:  # (a NaN bound is refused too)
                    raise PrivacyBudgetExceeded(participant, would_be, self.epsilon, self.delta)
            self.accountant.register(event, count, participant, iteration)
            if exceeded is not None:  # only a recorded release's bounds hold for the releases after it
                self._exceeded[exceeded[0]] = exceeded[1]
        return self

    def _within_by_delta(
        self, event: dp_event.DpEvent, count: int, participant: Hashable
    ) -> tuple[bool, tuple[Hashable, int] | None]:
        """Whether a :class:`PLDAccountant` proves the budget with this one release more, by δ at
        the budget's ε, trying three upper bounds on δ(ε) of the same releases, cheapest first,
        each only if the one before exceeds the budget's δ:

        1. the Rényi-DP bound (curves add up: a few hundred floats, no PLD);
        2. the PLD's δ(ε) on a grid ten times coarser
           (:meth:`PLDAccountant.coarse_delta_from_summary`: each composition and sum about ten
           times cheaper, and near the budget within about 1e-4 of the next bound, which it never
           undercuts);
        3. the PLD's own δ(ε) (one sum instead of the search for ε(δ), which costs a PLD query
           ten times more).

        δ(ε) <= δ means (ε, δ)-DP, so a release admitted by any of them keeps the participant
        within the budget; the ledger, which the accountant composes exactly when asked
        (``get_epsilon``), is unchanged by how it was admitted. A release none admits (or any other
        case) is decided by ε as before, and the refusal names that ε.

        Also returns (participant, how many of the first two bounds exceeded the budget), for
        :meth:`register` to keep once the release is recorded: such a bound is not tried again for
        that participant, whose recorded releases are only ever added to. Skipping it changes no
        decision: the RDP bound only grows with the releases (their curves add up), and so does
        the coarse one on one grid (a composition's δ(ε) is at least each part's); where its grid
        changed with the releases' span and it would admit, the fine bound, which it never
        undercuts, admits too."""
        accountant = self.accountant
        if type(accountant) is not PLDAccountant or count != 1 or not isinstance(event, dp_event.DpEvent):
            return False, None
        try:
            participant = check_participant(participant)
            summary = accountant.compose_batch(accountant.participant_summary(participant), [check_event(event)])
            bounds = (accountant.rdp_delta_from_summary, accountant.coarse_delta_from_summary)
            exceeded = self._exceeded.get(participant, 0)
            for rank in range(exceeded, len(bounds)):
                if bounds[rank](summary, self.epsilon) <= self.delta:
                    return True, (participant, exceeded)
                exceeded = rank + 1
            return accountant.delta_from_summary(summary, self.epsilon) <= self.delta, (participant, exceeded)
        except Exception:  # noqa: BLE001 - the ε path raises the same error with its message
            return False, None

    def register_many(
        self,
        events: Sequence[dp_event.DpEvent],
        participants: Sequence[Hashable] | None = None,
        iteration: int | Sequence[int] | None = None,
    ) -> BudgetFilter:
        """:meth:`Accountant.register_many` under the budget, all or nothing: if any participant
        would exceed it, raise :class:`PrivacyBudgetExceeded` (naming the first such participant)
        before recording any release."""
        events = list(events)
        participants = [None] * len(events) if participants is None else list(participants)
        if len(participants) != len(events):
            raise ValueError(f"participants must have one entry per event: {len(participants)} != {len(events)}")
        for event in events:
            if not isinstance(event, dp_event.DpEvent):
                raise TypeError(f"event must be a dp_accounting DpEvent, got {event!r}")
        batches: dict[Hashable, list[dp_event.DpEvent]] = {}
        for participant, event in zip(participants, events, strict=True):
            batches.setdefault(check_participant(participant), []).append(event)
        accountant = self.accountant
        with self._turn():
            for participant, batch in batches.items():
                would_be = accountant.epsilon_from_summary(
                    accountant.compose_batch(accountant.participant_summary(participant), batch), self.delta
                )
                if not would_be <= self.epsilon:
                    raise PrivacyBudgetExceeded(participant, would_be, self.epsilon, self.delta)
            accountant.register_many(events, participants, iteration)
        return self

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> BudgetFilter:
        """``dp_accounting``-style alias of :meth:`register` for the default participant."""
        return self.register(event, count)

    def epsilon_if_registered(
        self, event: dp_event.DpEvent, delta: float, count: int = 1, participant: Hashable = None
    ) -> float:
        """The ε ``participant`` would have at ``delta`` after these releases; nothing is recorded."""
        with self._turn():
            return self.accountant.epsilon_if_registered(event, delta, count, participant)

    def remaining_epsilon(self, participant: Hashable = None) -> float:
        """Budget left for ``participant`` (the worst participant if None)."""
        with self._turn():
            return max(0.0, self.epsilon - self.accountant.get_epsilon(self.delta, participant))

    def get_epsilon(self, delta: float, participant: Hashable = None) -> float:
        with self._turn():
            return self.accountant.get_epsilon(delta, participant)

    def get_delta(self, epsilon: float, participant: Hashable = None) -> float:
        with self._turn():
            return self.accountant.get_delta(epsilon, participant)

    def supports(self, event: dp_event.DpEvent) -> bool:
        return self.accountant.supports(event)

    @property
    def ledger(self) -> Ledger:
        """Every release counted against the budget (with a ledger file: all of the file's)."""
        with self._turn():
            return self.accountant.ledger

    @property
    def participants(self) -> list[Hashable]:
        with self._turn():
            return self.accountant.participants

    def __repr__(self) -> str:
        return f"BudgetFilter({self.accountant!r}, epsilon={self.epsilon:g}, delta={self.delta:g})"
