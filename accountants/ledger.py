"""The ledger: who released what, when.

A ledger is an append-only sequence of :class:`LedgerEntry` (participant, iteration, event, count).
It round-trips through JSON exactly under a versioned schema, and :class:`LedgerFile` appends each
entry to a JSON-lines file and syncs it to disk before the release is accepted, so a crash never
loses the record of a release (write-ahead: a record may exist for a release that a crash prevented,
never the other way round).
"""

from __future__ import annotations

import json
import numbers
import os
from collections.abc import Hashable, Iterable, Iterator
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple

from dp_accounting import dp_event

from accountants.serialization import event_from_json, event_to_json
from accountants.validation import check_count

__all__ = ["LedgerEntry", "Ledger", "LedgerFile", "SCHEMA", "SCHEMA_VERSION", "check_participant"]

SCHEMA = "accountants.ledger"
SCHEMA_VERSION = 1


def check_participant(participant: Hashable) -> Hashable:
    """Participants are ``None``, strings or integers (so they survive JSON unchanged)."""
    if participant is None or isinstance(participant, str):
        return participant
    if isinstance(participant, numbers.Integral) and not isinstance(participant, bool):
        return int(participant)
    raise TypeError(f"participant must be None, a str or an int, got {participant!r}")


class _EntryFields(NamedTuple):
    participant: Hashable
    event: dp_event.DpEvent
    count: int
    iteration: int | None


class LedgerEntry(_EntryFields):
    """One registered release: ``count`` repetitions of ``event`` by ``participant``.

    ``iteration`` is the solver's iteration index (``None`` outside an iterative solver).
    An immutable (named-tuple) value, validated on construction.
    """

    __slots__ = ()

    def __new__(
        cls, participant: Hashable, event: dp_event.DpEvent, count: int = 1, iteration: int | None = None
    ) -> LedgerEntry:
        check_participant(participant)
        if not isinstance(event, dp_event.DpEvent):
            raise TypeError(f"event must be a dp_accounting DpEvent, got {event!r}")
        check_count(count)
        if iteration is not None:
            check_count(iteration, name="iteration")
        return super().__new__(cls, participant, event, int(count), iteration)

    @classmethod
    def _trusted_many(cls, rows: Iterable[tuple]) -> list[LedgerEntry]:
        """Entries from (participant, event, count, iteration) rows the caller has already
        validated (bulk registration: no per-entry checks)."""
        return list(map(tuple.__new__, repeat(cls), rows))

    def to_json(self) -> dict[str, Any]:
        return {
            "participant": self.participant,
            "iteration": self.iteration,
            "count": self.count,
            "event": event_to_json(self.event),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LedgerEntry:
        return cls(
            participant=data["participant"],
            event=event_from_json(data["event"]),
            count=data["count"],
            iteration=data.get("iteration"),
        )


class Ledger:
    """An ordered, append-only record of releases, grouped by participant on demand."""

    def __init__(self, entries: Iterable[LedgerEntry] = ()) -> None:
        self._entries: list[LedgerEntry] = []
        for entry in entries:
            self.append(entry)

    def append(self, entry: LedgerEntry) -> None:
        if not isinstance(entry, LedgerEntry):
            raise TypeError(f"entry must be a LedgerEntry, got {entry!r}")
        self._entries.append(entry)

    def extend(self, entries: Iterable[LedgerEntry]) -> None:
        entries = list(entries)
        if any(type(entry) is not LedgerEntry for entry in entries):
            raise TypeError("every entry must be a LedgerEntry")
        self._entries.extend(entries)

    def __iter__(self) -> Iterator[LedgerEntry]:
        return iter(tuple(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, index):
        return self._entries[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ledger) and self._entries == other._entries

    @property
    def participants(self) -> list[Hashable]:
        """Participants in order of first release."""
        return list(dict.fromkeys(entry.participant for entry in self._entries))

    def for_participant(self, participant: Hashable) -> list[LedgerEntry]:
        return [entry for entry in self._entries if entry.participant == participant]

    def total_count(self, participant: Hashable | None = None) -> int:
        """Number of releases (entries weighted by count), of one participant or of all."""
        return sum(e.count for e in self._entries if participant is None or e.participant == participant)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "version": SCHEMA_VERSION,
            "entries": [entry.to_json() for entry in self._entries],
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), allow_nan=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ledger:
        _check_header(data)
        return cls(LedgerEntry.from_json(item) for item in data["entries"])

    @classmethod
    def loads(cls, text: str) -> Ledger:
        return cls.from_json(json.loads(text))

    @classmethod
    def load(cls, path: str | os.PathLike) -> Ledger:
        """Read a ledger written by :class:`LedgerFile` (JSON lines: a header, then one entry a line)."""
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        if not lines:
            raise ValueError(f"ledger file {path} is empty: expected a header line")
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = lines[0]
        _check_header(header)
        entries = []
        for number, line in enumerate(lines[1:], start=2):
            try:
                entries.append(LedgerEntry.from_json(json.loads(line)))
            except (json.JSONDecodeError, KeyError) as error:
                raise ValueError(f"ledger file {path}, line {number} is not a complete entry: {error}") from error
        return cls(entries)


class LedgerFile:
    """Append-only JSON-lines ledger on disk; each entry is flushed and fsync'ed before returning."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        if self.path.exists() and self.path.stat().st_size > 0:
            Ledger.load(self.path)  # refuse to append to a file that is not a valid ledger
        else:
            header = {"schema": SCHEMA, "version": SCHEMA_VERSION}
            self._write_line(json.dumps(header))

    def append(self, entry: LedgerEntry) -> None:
        self.extend([entry])

    def extend(self, entries: Iterable[LedgerEntry]) -> None:
        """Append several entries with one write and one sync."""
        self._write_line("\n".join(json.dumps(e.to_json(), allow_nan=False) for e in entries))

    def _write_line(self, line: str) -> None:
        if not line:
            return
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())


def _check_header(data: dict[str, Any]) -> None:
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(f"not a ledger: expected schema {SCHEMA!r}, got {data!r:.200}")
    if data.get("version") != SCHEMA_VERSION:
        raise ValueError(f"unsupported ledger version {data.get('version')!r}; this code reads {SCHEMA_VERSION}")
