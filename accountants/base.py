"""The one interface every accountant implements.

``register(event, count=1, participant=None)`` records a release and returns the accountant;
``get_epsilon(delta, participant=None)`` and ``get_delta(epsilon, participant=None)`` bound the
privacy of one participant, or of the worst one when ``participant`` is None; ``ledger`` is the
record of who released what, when.

A concrete accountant is a thin stateful wrapper over pure analysis functions (as in Opacus): it
says how a participant's summary grows with an event (``_compose``) and how a summary converts to
(ε, δ) (``epsilon_from_summary``, ``delta_from_summary``). Summaries are immutable, so the budget
filter can ask "what if" without touching the record.
"""

from __future__ import annotations

import abc
import logging
import numbers
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import repeat
from typing import Any, Generic, TypeVar

from dp_accounting import dp_event

from accountants.display import accountant_html, accountant_markdown, accountant_summary
from accountants.errors import UnsupportedEventError
from accountants.events import check_event, check_events
from accountants.ledger import (
    Ledger,
    LedgerCursor,
    LedgerEntry,
    LedgerFile,
    LockedLedgerFile,
    StrPath,
    check_participant,
)
from accountants.validation import check_count, check_delta, check_epsilon, check_not_nan

__all__ = ["Accountant"]

#: The accountants' records: a refused event at DEBUG.
LOGGER = logging.getLogger(__name__)

#: The type of one participant's summary, which each accountant defines.
SummaryT = TypeVar("SummaryT")


class _LoadsItsLedgerFile(abc.ABCMeta):
    """Composes the releases already in an accountant's ledger file once its whole constructor
    has run (subclasses set what composition needs after ``super().__init__``)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        accountant = super().__call__(*args, **kwargs)
        accountant._compose_loaded_releases()
        return accountant


class Accountant(abc.ABC, Generic[SummaryT], metaclass=_LoadsItsLedgerFile):
    """Base class: per-participant composition of registered privacy events.

    Generic in the summary type ``SummaryT`` (what a participant's releases compose to).

    Args:
      ledger_path: if given, every release is appended to this JSON-lines file and synced to disk
        before the accountant accepts it, so a crash never loses a release record. An existing
        file is loaded and continued: its releases count (they are composed, not written again),
        so a restarted run resumes its budget. Accountants sharing one file (other threads or
        processes) compose each other's releases whenever they write, before their own release,
        under the file's lock (see :class:`accountants.BudgetFilter` to check a budget there).
        An accountant object itself is not thread-safe; share a ``BudgetFilter`` instead.
    """

    #: Short name used in reports and by :func:`accountants.best_epsilon`.
    name: str = "accountant"

    def __init__(self, ledger_path: StrPath | None = None) -> None:
        self._ledger = Ledger()
        self._summaries: dict[Hashable, SummaryT] = {}
        self._ledger_file: LedgerFile | None = None
        #: How far into the ledger file this accountant has composed (None: not read yet).
        self._ledger_cursor: LedgerCursor | None = None
        #: Releases read from the file, composed once the subclass's constructor has run.
        self._loaded_releases: list[LedgerEntry] = []
        if ledger_path is not None:
            self._ledger_file, self._loaded_releases, self._ledger_cursor = LedgerFile.open_with_entries(ledger_path)

    # ----------------------------------------------------------------------------------------
    # Subclass hooks: pure functions of immutable summaries.
    @abc.abstractmethod
    def _empty(self) -> SummaryT:
        """The summary of no release."""

    @abc.abstractmethod
    def _compose(self, summary: SummaryT, event: dp_event.DpEvent, count: int) -> SummaryT:
        """A new summary with ``count`` more releases of ``event``; raise UnsupportedEventError."""

    @abc.abstractmethod
    def epsilon_from_summary(self, summary: SummaryT, delta: float) -> float:
        """Smallest ε this accountant can defend at ``delta`` (math.inf if none)."""

    @abc.abstractmethod
    def delta_from_summary(self, summary: SummaryT, epsilon: float) -> float:
        """Smallest δ this accountant can defend at ``epsilon`` (1.0 if none)."""

    # ----------------------------------------------------------------------------------------
    def unsupported(self, event: object, reason: str = "") -> UnsupportedEventError:
        """The error for an event this accountant cannot bound (names both), logged at DEBUG."""
        LOGGER.debug("%s refuses %r%s", type(self).__name__, event, f": {reason}" if reason else "")
        return UnsupportedEventError(type(self).__name__, event, reason)

    def supports(self, event: dp_event.DpEvent) -> bool:
        """Whether this accountant can bound ``event``."""
        try:
            self._compose(self._empty(), event, 1)
        except UnsupportedEventError:
            return False
        return True

    def check_registration(self, event: dp_event.DpEvent, count: int = 1, participant: Hashable = None) -> None:
        """Raise what ``register(event, count, participant)`` would raise now, given what is already
        registered (e.g. too many releases for one participant, or kinds that do not mix); record
        nothing. Cheap: no ε or δ is computed.

        Raises:
          TypeError / ValueError: bad arguments.
          UnsupportedEventError: this accountant cannot bound these releases on top of the ledger.
        """
        summary = self.participant_summary(check_participant(participant))
        self._compose(summary, check_event(event), check_count(count))

    def register(
        self,
        event: dp_event.DpEvent,
        count: int = 1,
        participant: Hashable = None,
        iteration: int | None = None,
    ) -> Accountant[SummaryT]:
        """Record ``count`` releases of ``event`` by ``participant``; returns ``self``.

        Raises:
          TypeError / ValueError: bad arguments (nothing is recorded).
          UnsupportedEventError: this accountant cannot bound the event (nothing is recorded).
        """
        event = check_event(event)  # the one parameter check (numpy scalars become Python numbers)
        entry = LedgerEntry(
            participant=check_participant(participant), event=event, count=check_count(count), iteration=iteration
        )
        summary = self._compose(self.participant_summary(entry.participant), event, entry.count)
        self._accept(entry, summary)
        return self

    def register_many(
        self,
        events: Sequence[dp_event.DpEvent],
        participants: Sequence[Hashable] | None = None,
        iteration: int | Sequence[int] | None = None,
    ) -> Accountant[SummaryT]:
        """Record one release of ``events[j]`` by ``participants[j]`` for every j, at ``iteration``
        (one index for all, or one per event); returns ``self``. For example, a whole run's
        releases (agent i in iteration k) in one call.

        All or nothing: if any release is refused, none is recorded.
        """
        events = list(events)
        participants = [None] * len(events) if participants is None else list(participants)
        if len(participants) != len(events):
            raise ValueError(f"participants must have one entry per event: {len(participants)} != {len(events)}")
        iterations: Iterable[int | None]
        # int spelt out: typeshed does not register it as numbers.Integral (numpy integers are).
        if iteration is None or isinstance(iteration, (int, numbers.Integral)):
            if iteration is not None:
                check_count(iteration, name="iteration")
            iterations = repeat(iteration)
        else:
            per_event = list(iteration)
            if len(per_event) != len(events):
                raise ValueError(f"iteration must be one index or one per event: {len(per_event)} != {len(events)}")
            for value in set(per_event):
                check_count(value, name="iteration")
            iterations = per_event
        checked = {p: check_participant(p) for p in dict.fromkeys(participants)}
        for kind in {type(e) for e in events}:
            if not issubclass(kind, dp_event.DpEvent):
                bad = next(e for e in events if type(e) is kind)
                raise TypeError(f"event must be a dp_accounting DpEvent, got {bad!r}")
        events = check_events(events)  # the one parameter check (numpy scalars become Python numbers)
        participants = [checked[p] for p in participants]
        grouped: dict[Hashable, list[dp_event.DpEvent]] = {}
        if len(checked) == 1:
            grouped[participants[0]] = events
        else:
            for participant, event in zip(participants, events, strict=True):
                grouped.setdefault(participant, []).append(event)
        summaries = {p: self.compose_batch(self.participant_summary(p), batch) for p, batch in grouped.items()}
        entries = LedgerEntry.trusted_many(zip(participants, events, repeat(1), iterations))
        self._accept_many(entries, summaries)
        return self

    def compose_batch(self, summary: SummaryT, events: list[dp_event.DpEvent]) -> SummaryT:
        """Summary after one release of each event: identical events compose once with their
        count (composition does not depend on order); subclasses may vectorise further."""
        grouped: Iterable[tuple[dp_event.DpEvent, int]]
        try:
            grouped = Counter(events).items()
        except TypeError:  # an unhashable event (a list inside)
            grouped = [(event, 1) for event in events]
        for event, count in grouped:
            summary = self._compose(summary, event, count)
        return summary

    def register_ledger(self, ledger: Ledger | Iterable[LedgerEntry]) -> Accountant[SummaryT]:
        """Register every entry of ``ledger`` (or of any iterable of entries); returns ``self``.

        Each participant's releases compose once, as a batch (:meth:`compose_batch`: composition
        does not depend on order), not entry by entry. All or nothing: if any release is refused
        (bad parameters, named by their entry's index, or ``UnsupportedEventError``), none is
        recorded.
        """
        entries = list(ledger) if isinstance(ledger, Iterable) else None
        if entries is None or any(type(entry) is not LedgerEntry for entry in entries):
            raise TypeError(f"ledger must be an accountants.Ledger (LedgerEntry values), got {ledger!r:.80}")
        checked: dict[int, dp_event.DpEvent] = {}  # by object: entries often share one event object
        for index, entry in enumerate(entries):  # the one parameter check (numpy scalars become Python numbers)
            event = checked.get(id(entry.event))
            if event is None:
                event = checked[id(entry.event)] = check_event(entry.event, where=f"ledger entry {index}")
            if event is not entry.event:
                entries[index] = entry._replace(event=event)
        self._accept_many(entries, self._composed_with(entries))
        return self

    def compose(self, event: dp_event.DpEvent, count: int = 1) -> Accountant[SummaryT]:
        """``dp_accounting``-style alias of :meth:`register` for the default participant."""
        return self.register(event, count)

    def _accept(self, entry: LedgerEntry, summary: SummaryT) -> None:
        if self._ledger_file is not None:
            with self._ledger_file.locked() as held:
                if self._catch_up(held):  # others appended meanwhile: this release composes on top
                    summary = self._compose(self.participant_summary(entry.participant), entry.event, entry.count)
                self._ledger_cursor = held.write([entry], self._ledger_cursor)  # write-ahead
        self._ledger.append(entry)
        self._summaries[entry.participant] = summary

    def _accept_many(self, entries: list[LedgerEntry], summaries: dict[Hashable, SummaryT]) -> None:
        if self._ledger_file is not None:
            with self._ledger_file.locked() as held:
                if self._catch_up(held):
                    summaries = self._composed_with(entries)
                self._ledger_cursor = held.write(entries, self._ledger_cursor)  # write-ahead
        self._ledger.extend(entries)
        self._summaries.update(summaries)

    # ----------------------------------------------------------------------------------------
    # The ledger file: releases read from it (at construction, and those other accountants
    # sharing it appended) are composed like registered ones, but not written again.
    @contextmanager
    def ledger_turn(self) -> Iterator[None]:
        """Hold the ledger file's lock (if any) with every release in it composed: a check made in
        the block stays true until a release registered in the block is on disk."""
        if self._ledger_file is None:
            yield
            return
        with self._ledger_file.locked() as held:
            self._catch_up(held)
            yield

    def _catch_up(self, held: LockedLedgerFile) -> bool:
        """Compose what was appended to the (locked) ledger file since this accountant last read
        it; whether there was anything. All or nothing: on an error nothing changes."""
        self._compose_loaded_releases()
        fresh, cursor = held.follow(self._ledger_cursor, self._ledger)
        if fresh:
            summaries = self._composed_with(fresh)
            self._ledger.extend(fresh)
            self._summaries.update(summaries)
        self._ledger_cursor = cursor
        return bool(fresh)

    def _compose_loaded_releases(self) -> None:
        if self._loaded_releases:
            summaries = self._composed_with(self._loaded_releases)
            self._ledger.extend(self._loaded_releases)
            self._summaries.update(summaries)
            self._loaded_releases = []

    def _composed_with(self, entries: Sequence[LedgerEntry]) -> dict[Hashable, SummaryT]:
        """The summaries of the participants of ``entries`` once these compose (nothing changes)."""
        singles: dict[Hashable, list[dp_event.DpEvent]] = {}
        repeated: dict[Hashable, list[tuple[dp_event.DpEvent, int]]] = {}
        for entry in entries:
            if entry.count == 1:
                singles.setdefault(entry.participant, []).append(entry.event)
            else:
                repeated.setdefault(entry.participant, []).append((entry.event, entry.count))
        summaries = {}
        for participant in dict.fromkeys(entry.participant for entry in entries):
            summary = self.participant_summary(participant)
            if participant in singles:
                summary = self.compose_batch(summary, singles[participant])
            for event, count in repeated.get(participant, ()):
                summary = self._compose(summary, event, count)
            summaries[participant] = summary
        return summaries

    def participant_summary(self, participant: Hashable) -> SummaryT:
        return self._summaries.get(participant, self._empty())

    def epsilon_if_registered(
        self, event: dp_event.DpEvent, delta: float, count: int = 1, participant: Hashable = None
    ) -> float:
        """The ε ``participant`` would have at ``delta`` after these releases; nothing is recorded."""
        delta = check_delta(delta)
        event = check_event(event)
        summary = self.participant_summary(check_participant(participant))
        epsilon = self.epsilon_from_summary(self._compose(summary, event, check_count(count)), delta)
        return check_not_nan(epsilon, f"{type(self).__name__}: epsilon at delta={delta!r}")

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
        epsilon = max(self.epsilon_from_summary(summary, delta) for summary in self._selected(participant))
        return check_not_nan(epsilon, f"{type(self).__name__}: epsilon at delta={delta!r}")

    def get_delta(self, epsilon: float, participant: Hashable = None) -> float:
        """Smallest δ this accountant can defend at ``epsilon``; the worst participant if None."""
        epsilon = check_epsilon(epsilon)
        delta = max(self.delta_from_summary(summary, epsilon) for summary in self._selected(participant))
        return check_not_nan(delta, f"{type(self).__name__}: delta at epsilon={epsilon!r}")

    def _selected(self, participant: Hashable) -> list[SummaryT]:
        if participant is None:
            return list(self._summaries.values()) or [self._empty()]
        participant = check_participant(participant)
        if participant not in self._summaries:
            raise ValueError(
                f"unknown participant {participant!r}: nothing was registered for it (known: {self.participants!r})"
            )
        return [self._summaries[participant]]

    def __repr__(self) -> str:
        return accountant_summary(self)  # releases counts each entry's repetitions

    def _repr_markdown_(self) -> str:
        return accountant_markdown(self)

    def _repr_html_(self) -> str:
        return accountant_html(self)
