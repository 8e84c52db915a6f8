"""The one interface every accountant implements.

``register(event, count=1, participant=None)`` records a release and returns the accountant;
``get_epsilon(delta, participant=None)`` and ``get_delta(epsilon, participant=None)`` bound the
privacy of one participant, or of the worst one when ``participant`` is None; ``ledger`` is the
record of who released what, when.

A concrete accountant is a thin stateful wrapper over pure analysis functions (as in Opacus): it
says how a participant's summary grows with an event (``_compose``) and how a summary converts to
(ε, δ) (``_epsilon``, ``_delta``). Summaries are immutable, so the budget filter can ask "what if"
without touching the record.
"""

from __future__ import annotations

import abc
import numbers
import os
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import repeat
from typing import Any

from dp_accounting import dp_event

from accountants.errors import UnsupportedEventError
from accountants.ledger import Ledger, LedgerEntry, LedgerFile, check_participant
from accountants.validation import check_count, check_delta, check_epsilon

__all__ = ["Accountant"]


class Accountant(abc.ABC):
    """Base class: per-participant composition of registered privacy events.

    Args:
      ledger_path: if given, every release is appended to this JSON-lines file and synced to disk
        before the accountant accepts it, so a crash never loses a release record.
    """

    #: Short name used in reports and by :func:`accountants.best_epsilon`.
    name: str = "accountant"

    def __init__(self, ledger_path: str | os.PathLike | None = None) -> None:
        self._ledger = Ledger()
        self._summaries: dict[Hashable, Any] = {}
        self._ledger_file = LedgerFile(ledger_path) if ledger_path is not None else None

    # ----------------------------------------------------------------------------------------
    # Subclass hooks: pure functions of immutable summaries.
    @abc.abstractmethod
    def _empty(self) -> Any:
        """The summary of no release."""

    @abc.abstractmethod
    def _compose(self, summary: Any, event: dp_event.DpEvent, count: int) -> Any:
        """A new summary with ``count`` more releases of ``event``; raise UnsupportedEventError."""

    @abc.abstractmethod
    def _epsilon(self, summary: Any, delta: float) -> float:
        """Smallest ε this accountant can defend at ``delta`` (math.inf if none)."""

    @abc.abstractmethod
    def _delta(self, summary: Any, epsilon: float) -> float:
        """Smallest δ this accountant can defend at ``epsilon`` (1.0 if none)."""

    # ----------------------------------------------------------------------------------------
    def unsupported(self, event: object, reason: str = "") -> UnsupportedEventError:
        """The error for an event this accountant cannot bound (names both)."""
        return UnsupportedEventError(type(self).__name__, event, reason)

    def supports(self, event: dp_event.DpEvent) -> bool:
        """Whether this accountant can bound ``event``."""
        try:
            self._compose(self._empty(), event, 1)
        except UnsupportedEventError:
            return False
        return True

    def register(
        self,
        event: dp_event.DpEvent,
        count: int = 1,
        participant: Hashable = None,
        iteration: int | None = None,
    ) -> Accountant:
        """Record ``count`` releases of ``event`` by ``participant``; returns ``self``.

        Raises:
          TypeError / ValueError: bad arguments (nothing is recorded).
          UnsupportedEventError: this accountant cannot bound the event (nothing is recorded).
        """
        entry = LedgerEntry(
            participant=check_participant(participant), event=event, count=check_count(count), iteration=iteration
        )
        summary = self._compose(self._summary(entry.participant), event, entry.count)
        self._accept(entry, summary)
        return self

    def register_many(
        self,
        events: Sequence[dp_event.DpEvent],
        participants: Sequence[Hashable] | None = None,
        iteration: int | Sequence[int] | None = None,
    ) -> Accountant:
        """Record one release of ``events[j]`` by ``participants[j]`` for every j, at ``iteration``
        (one index for all, or one per event); returns ``self``. For example, a whole run's
        releases (agent i in iteration k) in one call.

        All or nothing: if any release is refused, none is recorded.
        """
        events = list(events)
        participants = [None] * len(events) if participants is None else list(participants)
        if len(participants) != len(events):
            raise ValueError(f"participants must have one entry per event: {len(participants)} != {len(events)}")
        if iteration is None or isinstance(iteration, numbers.Integral):
            if iteration is not None:
                check_count(iteration, name="iteration")
            iterations = repeat(iteration)
        else:
            iterations = list(iteration)
            if len(iterations) != len(events):
                raise ValueError(f"iteration must be one index or one per event: {len(iterations)} != {len(events)}")
            for value in set(iterations):
                check_count(value, name="iteration")
        checked = {p: check_participant(p) for p in dict.fromkeys(participants)}
        for kind in {type(e) for e in events}:
            if not issubclass(kind, dp_event.DpEvent):
                bad = next(e for e in events if type(e) is kind)
                raise TypeError(f"event must be a dp_accounting DpEvent, got {bad!r}")
        participants = [checked[p] for p in participants]
        grouped: dict[Hashable, list[dp_event.DpEvent]] = {}
        if len(checked) == 1:
            grouped[participants[0]] = events
        else:
            for participant, event in zip(participants, events):
                grouped.setdefault(participant, []).append(event)
        summaries = {p: self._compose_batch(self._summary(p), batch) for p, batch in grouped.items()}
        entries = LedgerEntry._trusted_many(zip(participants, events, repeat(1), iterations))
        if self._ledger_file is not None:
            self._ledger_file.extend(entries)  # write-ahead: on disk before it counts
        self._ledger.extend(entries)
        self._summaries.update(summaries)
        return self

    def _compose_batch(self, summary: Any, events: list[dp_event.DpEvent]) -> Any:
        """Summary after one release of each event: identical events compose once with their
        count (composition does not depend on order); subclasses may vectorise further."""
        try:
            grouped = Counter(events).items()
        except TypeError:  # an unhashable event (a list inside)
            grouped = [(event, 1) for event in events]
        for event, count in grouped:
            summary = self._compose(summary, event, count)
        return summary

    def register_ledger(self, ledger: Ledger) -> Accountant:
        """Register every entry of ``ledger`` in order; returns ``self``."""
        for entry in ledger:
            self.register(entry.event, entry.count, entry.participant, entry.iteration)
        return self

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> Accountant:
        """``dp_accounting``-style alias of :meth:`register` for the default participant."""
        return self.register(event, count)

    def _accept(self, entry: LedgerEntry, summary: Any) -> None:
        if self._ledger_file is not None:
            self._ledger_file.append(entry)  # write-ahead: on disk before it counts
        self._ledger.append(entry)
        self._summaries[entry.participant] = summary

    def _summary(self, participant: Hashable) -> Any:
        return self._summaries.get(participant, self._empty())

    def epsilon_if_registered(
        self, event: dp_event.DpEvent, delta: float, count: int = 1, participant: Hashable = None
    ) -> float:
        """The ε ``participant`` would have at ``delta`` after these releases; nothing is recorded."""
        delta = check_delta(delta)
        summary = self._summary(check_participant(participant))
        return self._epsilon(self._compose(summary, event, check_count(count)), delta)

    # ----------------------------------------------------------------------------------------
    @property
    def ledger(self) -> Ledger:
        """Who released what, when (a copy: the record itself only grows through register)."""
        return Ledger(self._ledger)

    @property
    def participants(self) -> list[Hashable]:
        return self._ledger.participants

    def get_epsilon(self, delta: float, participant: Hashable = None) -> float:
        """Smallest ε this accountant can defend at ``delta``; the worst participant if None."""
        delta = check_delta(delta)
        return max(self._epsilon(summary, delta) for summary in self._selected(participant))

    def get_delta(self, epsilon: float, participant: Hashable = None) -> float:
        """Smallest δ this accountant can defend at ``epsilon``; the worst participant if None."""
        epsilon = check_epsilon(epsilon)
        return max(self._delta(summary, epsilon) for summary in self._selected(participant))

    def _selected(self, participant: Hashable) -> list[Any]:
        if participant is None:
            return list(self._summaries.values()) or [self._empty()]
        participant = check_participant(participant)
        if participant not in self._summaries:
            raise ValueError(
                f"unknown participant {participant!r}: nothing was registered for it (known: {self.participants!r})"
            )
        return [self._summaries[participant]]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(participants={len(self._summaries)}, releases={len(self._ledger)})"
