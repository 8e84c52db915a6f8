"""The ledger: who released what, when.

A ledger is an append-only sequence of :class:`LedgerEntry` (participant, iteration, event, count).
It round-trips through JSON exactly under a versioned schema (:meth:`Ledger.dumps`), and
:class:`LedgerFile` appends each entry to a JSON-lines file and syncs it to disk before the release
is accepted, so a crash never loses the record of a release (write-ahead: a record may exist for a
release that a crash prevented, never the other way round).

The ledger file (schema ``accountants.ledger``, version 1, unchanged since the first release):
UTF-8 JSON lines, each ended by ``\\n``. Line 1 is the header ``{"schema": "accountants.ledger",
"version": 1}``; every later line is one entry ``{"participant", "iteration", "count", "event"}``.
Readers also accept, so that no record is ever left unread,

- a single JSON document written with :meth:`Ledger.dumps` (on one line, or indented), and a
  one-line document followed by entry lines;
- a header line repeated later in the file (two processes once created the same file at the same
  moment) and blank lines, which carry no record;
- a last entry without its final newline (it is complete; the next append ends its line first).

Writers keep the file loadable whatever happens to them:

- every write (the header, or a batch of entries) happens under the file's lock
  (:mod:`accountants.filelock`: ``flock`` on POSIX), is one ``os.write`` of complete lines, and is
  synced (``fsync``) before the call returns; the header is written only into an empty file, under
  the lock, so concurrent creators write it once;
- before appending, the writer checks that the file ends with a complete line: a torn last line
  (a writer killed mid-write) is never extended — the append is refused and names the way back;
- a failed write (a full disk) is cut back to the length the file had before it (``ftruncate``),
  so no partial line stays behind; if even that fails, the next append finds the partial line.

The way back from a torn or partial line: :func:`repair_ledger` (``dp-accountant ledger repair
FILE``) keeps every complete record, saves the fragments to a sibling file and rewrites the ledger
atomically; ``Ledger.load(path, recover=True)`` reads the complete records without changing the file.
Neither drops a line that is complete JSON: a complete entry that does not decode (a corrupted
value, an event class this version does not know) is an error, never silently skipped. Recovery
takes time linear in the length of the file, however the torn lines were cut or crafted.

Reading is strict (:mod:`accountants.strictjson`), and every refusal names the file and line: a
key twice in one object, a header or entry with keys it does not have (``{"version": 2,
"version": 1}``, ``"cuont"``), a version that is not the integer 1, NaN or Infinity, an integer
beyond 10**300, an event class that is not a concrete event (``"type": "DpEvent"``), and nesting
deeper than :data:`MAX_JSON_DEPTH` (events nested deeper than
:data:`accountants.events.MAX_EVENT_DEPTH`, which registration refuses before anything is
written) are errors, measured before parsing so that no file can exhaust the interpreter's stack.
"""

from __future__ import annotations

import json
import numbers
import os
import re
import tempfile
from collections.abc import Hashable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any, NamedTuple, SupportsIndex, overload

import numpy as np
import numpy.typing as npt
from dp_accounting import dp_event

from accountants import strictjson
from accountants.display import data_frame, ledger_columns, ledger_html, ledger_markdown, ledger_summary, ledger_text
from accountants.events import MAX_EVENT_DEPTH
from accountants.filelock import fsync_directory, locked_file
from accountants.serialization import event_from_json, event_to_json
from accountants.validation import MAX_COUNT, check_count

__all__ = [
    "LedgerEntry",
    "Ledger",
    "LedgerFile",
    "LedgerFileError",
    "RepairReport",
    "repair_ledger",
    "SCHEMA",
    "SCHEMA_VERSION",
    "MAX_JSON_DEPTH",
    "StrPath",
    "check_participant",
]

SCHEMA = "accountants.ledger"
#: The version written. Files of every version in ``_READABLE_VERSIONS`` are read.
SCHEMA_VERSION = 1
_READABLE_VERSIONS = (1,)
#: The deepest nesting of JSON objects and arrays read: an entry whose event nests
#: :data:`accountants.events.MAX_EVENT_DEPTH` deep (each event an object, each list of events an
#: array, plus the entry and a parameter's list), inside a :meth:`Ledger.dumps` document.
MAX_JSON_DEPTH = 2 * MAX_EVENT_DEPTH + 3
_HEADER_KEYS = frozenset({"schema", "version"})
_DOCUMENT_KEYS = _HEADER_KEYS | {"entries"}
_ENTRY_KEYS = frozenset({"participant", "iteration", "count", "event"})

#: A file path: a string or an ``os.PathLike`` (``pathlib.Path``).
StrPath = str | os.PathLike[str]

_HEADER_LINE = json.dumps({"schema": SCHEMA, "version": SCHEMA_VERSION}).encode("ascii") + b"\n"


class LedgerFileError(ValueError):
    """A ledger (a file, a text or a JSON document) that cannot be read, or a ledger file that
    cannot be appended to; the message names the file and line, and the way back if there is one.

    ``path`` and ``line`` (1-based) locate the problem when it is in a file.
    """

    def __init__(self, message: str, path: Path | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.line = line


def check_participant(participant: object) -> str | int | None:
    """Participants are ``None``, strings or integers of magnitude at most 10**300 (so they survive
    JSON unchanged and a ledger reader accepts them)."""
    if participant is None or isinstance(participant, str):
        return participant
    if not isinstance(participant, bool) and isinstance(participant, numbers.Integral):
        value = int(participant)
        if not -MAX_COUNT <= value <= MAX_COUNT:
            raise ValueError(f"participant must be an int of magnitude at most 10**300, got {participant!r:.60}")
        return value
    raise TypeError(f"participant must be None, a str or an int, got {participant!r:.200}")


class _EntryFields(NamedTuple):
    participant: Hashable
    event: dp_event.DpEvent
    count: int  # type: ignore[assignment]  # the public field deliberately shadows tuple.count()
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
            raise TypeError(f"event must be a dp_accounting DpEvent, got {event!r:.200}")
        check_count(count)
        if iteration is not None:
            check_count(iteration, name="iteration")
        return super().__new__(cls, participant, event, int(count), iteration)

    @classmethod
    def trusted_many(cls, rows: Iterable[tuple[Hashable, dp_event.DpEvent, int, int | None]]) -> list[LedgerEntry]:
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
    def from_json(cls, data: object) -> LedgerEntry:
        """Decode a mapping written by :meth:`to_json`; anything else raises :class:`LedgerFileError`."""
        if not isinstance(data, dict):
            raise LedgerFileError(f"a ledger entry must be a JSON object, got {_json_kind(data)}")
        missing = [key for key in ("participant", "count", "event") if key not in data]
        if missing:
            raise LedgerFileError(
                "a ledger entry needs the keys 'participant', 'count' and 'event'; "
                f"missing {', '.join(map(repr, missing))}"
            )
        unknown = sorted(data.keys() - _ENTRY_KEYS)
        if unknown:
            raise LedgerFileError(
                f"a ledger entry has the keys {sorted(_ENTRY_KEYS)}; unknown {', '.join(map(repr, unknown)):.200}"
            )
        try:
            return cls(
                participant=data["participant"],
                event=event_from_json(data["event"]),
                count=data["count"],
                iteration=data.get("iteration"),
            )
        except LedgerFileError:
            raise
        except (TypeError, ValueError, KeyError, AttributeError) as error:
            raise LedgerFileError(f"not a valid ledger entry: {error}") from error


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

    @overload
    def __getitem__(self, index: SupportsIndex) -> LedgerEntry: ...

    @overload
    def __getitem__(self, index: slice) -> list[LedgerEntry]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> LedgerEntry | list[LedgerEntry]:
        return self._entries[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ledger) and self._entries == other._entries

    def __repr__(self) -> str:
        return f"<Ledger: {ledger_summary(self)}>"

    def __str__(self) -> str:
        """Who released what, when: a table of the entries (a long ledger's first and last ones)."""
        return ledger_text(self)

    def _repr_markdown_(self) -> str:
        return ledger_markdown(self)

    def _repr_html_(self) -> str:
        return ledger_html(self)

    def to_frame(self) -> Any:
        """Every entry as a row of a pandas DataFrame (participant, event, count, iteration); needs pandas."""
        return data_frame(ledger_columns(self), "Ledger")

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
    def from_json(cls, data: object) -> Ledger:
        """Decode a document written by :meth:`to_json`; anything else raises :class:`LedgerFileError`."""
        _check_header(data, _DOCUMENT_KEYS)
        assert isinstance(data, dict)  # _check_header passed
        items = data.get("entries")
        if not isinstance(items, list):
            raise LedgerFileError(f"a ledger document needs a list of 'entries', got {_json_kind(items)}")
        entries = []
        for index, item in enumerate(items):
            try:
                entries.append(LedgerEntry.from_json(item))
            except LedgerFileError as error:
                raise LedgerFileError(f"ledger document, entry {index}: {error}") from error
        return cls(entries)

    @classmethod
    def loads(cls, text: str) -> Ledger:
        """Read a ledger from text: a document written by :meth:`dumps`, or the JSON lines of a
        ledger file. Anything else raises :class:`LedgerFileError` (a ``ValueError``)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        data = text.encode("utf-8", "surrogatepass")
        value = _whole_document(data, None)
        if value is not None:
            return cls.from_json(value)
        return cls(_scan(data, None, _STRICT).entries)

    @classmethod
    def load(cls, path: StrPath, recover: bool = False) -> Ledger:
        """Read a ledger file (JSON lines written by :class:`LedgerFile`, or a :meth:`dumps` document).

        Raises :class:`LedgerFileError`, naming the path and line, for a missing, empty, torn or
        non-ledger file. With ``recover=True`` a torn or partial line (an interrupted write) is set
        aside instead and every complete record is returned (the file is not changed; to rewrite
        it without the fragments use :func:`repair_ledger`); a complete line that is not a valid
        entry still raises, since dropping it could drop a real release.
        """
        path = Path(path)
        return cls(_scan(_read_file(path), path, _RECOVER if recover else _STRICT).entries)


class LedgerCursor(NamedTuple):
    """How much of a ledger file a reader has taken in: the file (device, inode), the byte offset
    and line number reached, and the number of entries read up to there."""

    device: int
    inode: int
    offset: int
    line: int
    entries: int


class LedgerFile:
    """Append-only JSON-lines ledger on disk; each batch is written whole, under the file's lock,
    and fsync'ed before returning.

    ``LedgerFile(path)`` creates the file (with its header) if it is missing or empty, and
    otherwise checks that it is a ledger that can be appended to: a file whose last line is torn
    is refused, with the way back (:func:`repair_ledger`). Instances hold no open file, so they
    can be pickled; every operation opens and locks the file anew, so a file repaired (replaced)
    meanwhile is found at its path.
    """

    def __init__(self, path: StrPath) -> None:
        self.path = Path(path)
        with self.locked(create=True) as held:
            held.open_or_create()

    @classmethod
    def open_with_entries(cls, path: StrPath) -> tuple[LedgerFile, list[LedgerEntry], LedgerCursor]:
        """A ledger file, the entries it holds and a cursor at its end (one read, one lock)."""
        ledger_file = cls.__new__(cls)
        ledger_file.path = Path(path)
        with ledger_file.locked(create=True) as held:
            entries, cursor = held.open_or_create()
        return ledger_file, entries, cursor

    def append(self, entry: LedgerEntry) -> None:
        self.extend([entry])

    def extend(self, entries: Iterable[LedgerEntry]) -> None:
        """Append several entries with one write and one sync; a write that fails is cut back, so
        no entry is left half-written."""
        entries = list(entries)
        if any(not isinstance(entry, LedgerEntry) for entry in entries):
            raise TypeError("every entry must be a LedgerEntry")
        if entries:
            with self.locked() as held:
                held.write(entries)

    @contextmanager
    def locked(self, create: bool = False) -> Iterator[LockedLedgerFile]:
        """Hold the file's lock (exclusive: threads of this process and, on POSIX, other processes
        wait) for the ``with`` block. Nested use by the same thread reuses the held lock."""
        with ExitStack() as stack:
            try:
                fd = stack.enter_context(locked_file(self.path, exclusive=True, create=create))
            except FileNotFoundError as error:
                if create:  # its directory is missing
                    raise
                raise LedgerFileError(
                    f"ledger file {self.path} no longer exists (it was removed or renamed); releases "
                    "recorded in it cannot be confirmed, so nothing more is appended",
                    path=self.path,
                ) from error
            yield LockedLedgerFile(self.path, fd)

    def __repr__(self) -> str:
        return f"LedgerFile({str(self.path)!r})"


class LockedLedgerFile:
    """A ledger file whose lock the caller holds (from :meth:`LedgerFile.locked`): what is read
    inside stays true until the block ends, so a decision and the write it leads to are atomic."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd = fd

    def open_or_create(self) -> tuple[list[LedgerEntry], LedgerCursor]:
        """Write the header into an empty file; otherwise read (and check) the whole file."""
        status = os.fstat(self.fd)
        if status.st_size == 0:
            _append(self.fd, _HEADER_LINE, 0)
            os.fsync(self.fd)
            fsync_directory(self.path.parent)
            return [], LedgerCursor(status.st_dev, status.st_ino, len(_HEADER_LINE), 1, 0)
        data = _read_from(self.fd, 0)
        scan = _scan(data, self.path, _STRICT)
        if scan.document:
            raise self._document_error()
        return scan.entries, LedgerCursor(status.st_dev, status.st_ino, scan.consumed, scan.lines, len(scan.entries))

    def follow(self, cursor: LedgerCursor | None, recorded: Ledger) -> tuple[list[LedgerEntry], LedgerCursor]:
        """The entries appended after ``cursor`` (all of them if None), and the cursor after them.

        ``recorded`` is the reader's ledger, whose last ``cursor.entries`` entries came from this
        file: if the file was replaced (repaired) since, the new file must still hold them first.
        A torn last line is left unread (an unacknowledged write; appending refuses it).
        """
        status = os.fstat(self.fd)
        if cursor is not None and (status.st_dev, status.st_ino) == (cursor.device, cursor.inode):
            if status.st_size < cursor.offset:
                raise LedgerFileError(
                    f"ledger file {self.path} shrank from {cursor.offset} to {status.st_size} bytes since it was "
                    "read: it was truncated or rewritten in place, and releases recorded in it may be lost",
                    path=self.path,
                )
            if status.st_size == cursor.offset:
                return [], cursor
            scan = _scan(
                _read_from(self.fd, cursor.offset), self.path, _FOLLOW, first_line=cursor.line + 1, need_header=False
            )
            return scan.entries, cursor._replace(
                offset=cursor.offset + scan.consumed,
                line=cursor.line + scan.lines,
                entries=cursor.entries + len(scan.entries),
            )
        scan = _scan(_read_from(self.fd, 0), self.path, _FOLLOW)
        if scan.document:
            raise self._document_error()
        seen = 0 if cursor is None else cursor.entries
        if seen and scan.entries[:seen] != recorded[len(recorded) - seen :]:
            raise LedgerFileError(
                f"ledger file {self.path} was replaced by a file that does not begin with the {seen} releases "
                "read from it before: releases would be lost, so nothing more is appended",
                path=self.path,
            )
        fresh = LedgerCursor(status.st_dev, status.st_ino, scan.consumed, scan.lines, len(scan.entries))
        return scan.entries[seen:], fresh

    def write(self, entries: Sequence[LedgerEntry], cursor: LedgerCursor | None = None) -> LedgerCursor | None:
        """Append ``entries`` with one write and sync it; returns ``cursor`` moved past them.

        Refuses (:class:`LedgerFileError`) to write after a torn last line. On a failed write the
        file is cut back to its previous length, so no partial line is left behind.
        """
        payload = b"".join(_entry_line(entry) for entry in entries)  # may raise: nothing written yet
        if not payload:
            return cursor
        size = os.fstat(self.fd).st_size
        prefix = b""
        if size == 0:  # emptied since it was opened: a ledger file starts with its header
            prefix = _HEADER_LINE
        elif _read_range(self.fd, size - 1, 1) != b"\n":
            last = self._last_line(size)
            try:
                _record(last)
            except (_Torn, LedgerFileError) as problem:
                raise LedgerFileError(
                    f"ledger file {self.path}: its last line is not a complete entry ({problem}), so nothing "
                    "can be appended after it: a write was interrupted (a crash, a kill or a full disk). "
                    + _way_back(self.path),
                    path=self.path,
                ) from None
            prefix = b"\n"  # a complete last entry without its newline: end its line first
        if cursor is not None and cursor.offset != size:
            raise LedgerFileError(f"ledger file {self.path} changed while its lock was held", path=self.path)
        data = prefix + payload
        _append(self.fd, data, size)
        os.fsync(self.fd)
        if cursor is None:
            return None
        return cursor._replace(
            offset=size + len(data), line=cursor.line + data.count(b"\n"), entries=cursor.entries + len(entries)
        )

    def _last_line(self, size: int) -> bytes:
        start = size
        while start > 0:
            start = max(0, start - 4096)
            chunk = _read_range(self.fd, start, size - start)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                return chunk[cut + 1 :]
        return _read_range(self.fd, 0, size)

    def _document_error(self) -> LedgerFileError:
        return LedgerFileError(
            f"ledger file {self.path} holds an indented JSON document (Ledger.dumps), which cannot be appended "
            "to line by line: read it with Ledger.load and write its entries to a new ledger file",
            path=self.path,
        )


@dataclass(frozen=True)
class RepairReport:
    """What :func:`repair_ledger` did: the ledger file, how many complete entries it kept, the
    torn or partial fragments it removed, and the sibling file where those were saved (None if
    nothing was set aside)."""

    path: Path
    kept: int
    set_aside: tuple[str, ...]
    fragment_path: Path | None

    def __str__(self) -> str:
        if not self.set_aside:
            return f"{self.path}: {self.kept} complete entries, nothing set aside"
        return (
            f"{self.path}: kept {self.kept} complete entries; set aside {len(self.set_aside)} torn "
            f"fragment(s), saved in {self.fragment_path}"
        )


def repair_ledger(path: StrPath) -> RepairReport:
    """Make a ledger file loadable and appendable again, keeping every complete record.

    Torn or partial lines (interrupted writes) are appended to the sibling file ``<name>.torn``
    (one per line, as they were, synced) and removed; repeated header lines and blank lines are
    dropped and a missing final newline is added. The ledger is rewritten atomically — a temporary
    file in the same directory, synced, ``os.replace``-d over it, the directory synced — under its
    lock, so writers waiting on it append to the repaired file. A file that needs nothing is left
    unchanged. Complete lines that are not valid entries are never dropped: they raise.

    Raises:
      LedgerFileError: the file is missing or is not a ledger at all.
    """
    path = Path(path)
    try:
        with locked_file(path, exclusive=True) as fd:
            scan = _scan(_read_from(fd, 0), path, _RECOVER)
            kept = len(scan.entries)
            if scan.document or not (scan.fragments or scan.irregular or scan.header is None):
                return RepairReport(path, kept, (), None)
            fragment_path = None
            if scan.fragments:
                fragment_path = path.with_name(path.name + ".torn")
                _save_fragments(fragment_path, scan.fragments)
            header = _HEADER_LINE if scan.header is None else scan.header + b"\n"
            content = header + b"".join(text + b"\n" for text in scan.texts)
            _replace_file(path, content, os.fstat(fd).st_mode)
    except FileNotFoundError as error:
        raise LedgerFileError(f"no ledger file at {path}", path=path) from error
    set_aside = tuple(fragment.decode("utf-8", "replace") for fragment in scan.fragments)
    return RepairReport(path, kept, set_aside, fragment_path)


# ------------------------------------------------------------------------------------------------
# Reading: one line at a time, in three modes.
_STRICT = "strict"  # every problem raises
_RECOVER = "recover"  # torn or partial lines are set aside (their complete parts salvaged)
_FOLLOW = "follow"  # as strict, but a torn last line is left unread (a writer may have died in it)


class _Torn(Exception):
    """A line that is not complete JSON (not UTF-8, or cut short): an interrupted write."""


class _TooDeep(_Torn):
    """A line nested deeper than :data:`MAX_JSON_DEPTH`: no record, but perhaps records glued to a
    fragment (recovery looks for them); an error if there are none and the line is complete."""


@dataclass
class _Scan:
    entries: list[LedgerEntry] = field(default_factory=list)
    texts: list[bytes] = field(default_factory=list)  # the text of each entry read from its own line
    header: bytes | None = None  # line 1, as it is
    fragments: list[bytes] = field(default_factory=list)  # set aside (recover mode)
    consumed: int = 0  # bytes read
    lines: int = 0  # newline-ended lines read
    irregular: bool = False  # a repeated header, a blank line or no final newline (repair rewrites)
    document: bool = False  # an indented JSON document (Ledger.dumps): entries hold all of it


def _scan(data: bytes, path: Path | None, mode: str, *, first_line: int = 1, need_header: bool = True) -> _Scan:
    scan = _Scan()
    where = "ledger text" if path is None else f"ledger file {path}"
    if need_header and _blank(data):
        if mode == _STRICT:
            raise LedgerFileError(f"{where} is empty: expected a header line", path=path, line=1)
        scan.irregular = bool(data)
        return scan
    pieces = data.split(b"\n")
    tail = pieces.pop()  # what follows the last newline: empty, or a line without its newline
    for number, raw in enumerate(pieces, start=first_line):
        if need_header and scan.header is None:
            if not _take_header(scan, data, raw, True, path, mode):
                return scan
        else:
            _take_line(scan, raw, number, True, path, mode)
        scan.consumed += len(raw) + 1
        scan.lines += 1
    if tail:
        number = first_line + len(pieces)
        if need_header and scan.header is None:
            taken = _take_header(scan, data, tail, False, path, mode)
        else:
            taken = _take_line(scan, tail, number, False, path, mode)
        if taken and not scan.document:
            scan.consumed += len(tail)
            scan.irregular = True
    return scan


def _take_header(scan: _Scan, data: bytes, raw: bytes, complete: bool, path: Path | None, mode: str) -> bool:
    """Read line 1; False when there is nothing more to read line by line."""
    where = _where(path)
    try:
        record = _record(raw)
    except _Torn as torn:
        document = _whole_document(data, path)
        if document is not None:  # an indented Ledger.dumps document
            scan.entries = Ledger.from_json(document)._entries
            scan.document = True
            scan.consumed = len(data)
            return False
        if not complete and _HEADER_LINE.startswith(raw):  # a header cut short as the file was created
            if mode == _STRICT:
                raise _torn_error(path, 1, torn) from None
            if mode == _RECOVER:
                scan.fragments.append(raw)
            return False
        raise LedgerFileError(f"{where} is not a ledger: line 1 is {torn}", path=path, line=1) from None
    except LedgerFileError as error:
        raise LedgerFileError(f"{where} is not a ledger: line 1: {error}", path=path, line=1) from error
    if isinstance(record, LedgerEntry):
        raise LedgerFileError(
            f"{where} is not a ledger: line 1 is an entry, expected the header {_HEADER_LINE.decode().strip()}",
            path=path,
            line=1,
        )
    scan.header = raw
    if "entries" in record:  # a one-line Ledger.dumps document, perhaps with entry lines after it
        try:
            scan.entries.extend(Ledger.from_json(record))
        except LedgerFileError as error:
            raise LedgerFileError(f"{where}, line 1: {error}", path=path, line=1) from error
    return True


def _take_line(scan: _Scan, raw: bytes, number: int, complete: bool, path: Path | None, mode: str) -> bool:
    """Read one line after the header; False if it was left unread (a torn tail, follow mode)."""
    where = _where(path)
    if _blank(raw):
        scan.irregular = True
        return True
    try:
        record = _record(raw)
    except _Torn as torn:
        if mode == _RECOVER:
            found = _salvage(scan, raw, number, path)
            if isinstance(torn, _TooDeep) and not found and _complete(raw):
                raise _too_deep_error(path, number, torn) from None
            return True
        if mode == _FOLLOW and not complete:
            return False
        if isinstance(torn, _TooDeep):
            raise _too_deep_error(path, number, torn) from None
        raise _torn_error(path, number, torn) from None
    except LedgerFileError as error:
        raise LedgerFileError(f"{where}, line {number}: {error}", path=path, line=number) from error
    if isinstance(record, LedgerEntry):
        scan.entries.append(record)
        scan.texts.append(raw)
    elif "entries" in record:
        raise LedgerFileError(f"{where}, line {number}: a ledger document after line 1", path=path, line=number)
    else:  # the header again: no record
        scan.irregular = True
    return True


#: The first key of a record (an entry, a header or a document), found where it follows a ``{``:
#: objects nested in a record (events, encoded floats) begin with other keys.
_RECORD_KEY = re.compile(rb'"(?:participant|iteration|count|event|schema|version|entries)"[ \t\r\n]*:')
_WHITE_SPACE = b" \t\r\n"
#: Up to this many record starts in a torn line, each one's span is measured on its own (at most
#: this many passes over the line) rather than all at once (:class:`strictjson.BracketView`).
_FEW_STARTS = 8


def _record_starts(raw: bytes) -> npt.NDArray[np.int64]:
    """The positions of the ``{`` that a record's first key follows (white space between allowed)."""
    starts = []
    for match in _RECORD_KEY.finditer(raw):
        before = match.start() - 1
        while before >= 0 and raw[before] in _WHITE_SPACE:
            before -= 1
        if before >= 0 and raw[before] == 0x7B:  # {
            starts.append(before)
    return np.array(starts, dtype=np.int64)


def _salvage(scan: _Scan, raw: bytes, number: int, path: Path | None) -> int:
    """Split a torn line into the complete records it holds (fragments that later writes were glued
    to, or records merged on one line) and the fragments around them, which are set aside; returns
    the number of records found.

    Linear in the length of the line. A record begins at a ``{`` (see ``_RECORD_KEY``) and, if
    complete, ends at its matching bracket in the view of the line where that ``{`` is outside a
    string (:class:`accountants.strictjson.BracketView`; :func:`accountants.strictjson.span_from`
    for a few candidates), so each candidate is parsed over that span only, and only if it nests no
    deeper than a record can. When a parse fails at byte p, every
    candidate it had entered and not closed by p fails at p too (parsing a value does not depend on
    what surrounds it), so those are not parsed again; the candidates it closed before p parsed
    without error and are taken as they are. Each byte is thus parsed a bounded number of times.
    """
    scan.irregular = True
    starts = _record_starts(raw)
    if not starts.size:
        scan.fragments.append(raw)
        return 0
    if starts.size <= _FEW_STARTS:  # each span read on its own: no skipping needed to stay linear
        spans = [strictjson.span_from(raw, int(start), MAX_JSON_DEPTH) for start in starts]
        ends = np.array([end for end, _ in spans], dtype=np.int64)
        deep = np.array([too_deep for _, too_deep in spans], dtype=bool)
        parities = np.arange(starts.size)  # all different: no candidate is skipped after a failure
    else:
        view = strictjson.BracketView(raw)
        ends, deep = view.spans(starts, MAX_JSON_DEPTH)
        parities = view.parities(starts)
    skip = (ends < 0) | deep
    records = position = fragment_start = 0
    for index in range(starts.size):
        start = int(starts[index])
        if skip[index] or start < position:
            continue
        end = int(ends[index]) + 1
        failed_at, is_record = _parse_span(scan, raw, start, end, number, path)
        if failed_at is None:  # one JSON value: a record (taken), or a part of a fragment
            if is_record:
                if not _blank(raw[fragment_start:start]):
                    scan.fragments.append(raw[fragment_start:start])
                fragment_start = end
                records += 1
            position = end
        else:  # the candidates this parse entered and had not closed fail where it failed
            inside = slice(index + 1, int(np.searchsorted(starts, failed_at)))
            skip[inside] |= (parities[inside] == parities[index]) & (ends[inside] >= failed_at)
    rest = raw[fragment_start:]
    if not _blank(rest):
        scan.fragments.append(rest)
    return records


def _blank(data: bytes) -> bool:
    """Empty or white space only (without copying ``data``, as ``strip`` would)."""
    return not data or data.isspace()


def _complete(raw: bytes) -> bool:
    """Whether ``raw`` could be one complete JSON object or array, however deep (its first bracket
    closes at its end)."""
    text = raw.lstrip(b" \t\r\n")
    return strictjson.read_from_start(text, len(text))[1]


def _parse_span(
    scan: _Scan, raw: bytes, start: int, end: int, number: int, path: Path | None
) -> tuple[int | None, bool]:
    """Parse ``raw[start:end]`` (its depth already checked): ``(None, whether it was a record, now
    taken)`` if it is one JSON value, else ``(the byte where parsing failed, False)``."""
    chunk = raw[start:end]
    try:
        value = strictjson.loads(chunk, None, errors="surrogateescape")
    except json.JSONDecodeError as error:
        return start + len(error.doc[: error.pos].encode("utf-8", "surrogateescape")), False
    except strictjson.StrictJSONError as error:
        raise LedgerFileError(f"{_where(path)}, line {number}: {error}", path=path, line=number) from None
    if not (isinstance(value, dict) and ({"participant", "event"} <= value.keys() or "schema" in value)):
        return None, False  # an object nested in a fragment (an event), not a record
    try:
        chunk.decode("utf-8")
    except UnicodeDecodeError:
        return None, False  # bytes of a torn write inside its strings: a fragment
    try:
        record = _record_of(value)
    except LedgerFileError as error:
        raise LedgerFileError(f"{_where(path)}, line {number}: {error}", path=path, line=number) from error
    if isinstance(record, LedgerEntry):
        scan.entries.append(record)
        scan.texts.append(chunk)
    elif "entries" in record:
        raise LedgerFileError(
            f"{_where(path)}, line {number}: a ledger document (with 'entries') glued into a torn line; read it "
            "with Ledger.loads and write its entries to a new ledger file",
            path=path,
            line=number,
        )
    return None, True


def _record(raw: bytes) -> LedgerEntry | dict[str, Any]:
    """One line: an entry or a header; raises _Torn (not complete JSON), _TooDeep (complete, but
    nested deeper than a record can be) or LedgerFileError.

    A line with more brackets than :data:`MAX_JSON_DEPTH` is measured before it is parsed
    (:func:`accountants.strictjson.read_from_start`): if its first bracket does not close at its
    end it is not complete JSON, and is not parsed at all.
    """
    text = raw.lstrip(b" \t\r\n")
    if text[:1] in (b"{", b"[") and text.count(b"{") + text.count(b"[") > MAX_JSON_DEPTH:
        if text.rstrip(b" \t\r\n")[-1:] not in (b"}", b"]"):
            raise _Torn("not complete JSON: it does not end with a closing bracket")
        deep, complete = strictjson.read_from_start(text, MAX_JSON_DEPTH)
        if deep is not None:
            column = len(raw) - len(text) + deep + 1
            raise _TooDeep(f"nested deeper than {MAX_JSON_DEPTH} levels of objects and arrays (column {column})")
        if not complete:
            raise _Torn("not complete JSON: its first bracket is not closed at its end")
    try:
        value = strictjson.loads(raw, None)
    except UnicodeDecodeError:
        raise _Torn("not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise _Torn(f"not complete JSON: {error.msg} at column {error.colno}") from None
    except strictjson.StrictJSONError as error:
        raise LedgerFileError(str(error)) from None
    return _record_of(value)


def _record_of(value: object) -> LedgerEntry | dict[str, Any]:
    if isinstance(value, dict) and "schema" in value:
        _check_header(value, _DOCUMENT_KEYS if "entries" in value else _HEADER_KEYS)
        return value
    if not isinstance(value, dict):
        raise LedgerFileError(f"expected a JSON object (a ledger entry or the header), got {_json_kind(value)}")
    return LedgerEntry.from_json(value)


def _whole_document(data: bytes, path: Path | None) -> dict[str, Any] | None:
    """``data`` as one :meth:`Ledger.dumps` document, or None if it is not one JSON value (it may be
    JSON lines); raises :class:`LedgerFileError`, naming the line, if it is one but not strict JSON."""
    text = data.lstrip(b" \t\r\n")
    if text[:1] != b"{":
        return None
    deep, complete = strictjson.read_from_start(text, MAX_JSON_DEPTH)
    if deep is not None and _complete(text):
        line = data.count(b"\n", 0, len(data) - len(text) + deep) + 1
        raise LedgerFileError(
            f"{_where(path)}, line {line}: nested deeper than {MAX_JSON_DEPTH} levels of objects and arrays, "
            f"which no ledger is (events nest at most MAX_EVENT_DEPTH = {MAX_EVENT_DEPTH} deep)",
            path=path,
            line=line,
        )
    if not complete:
        return None
    try:
        value = strictjson.loads(data, None, locate=True)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    except strictjson.StrictJSONError as error:
        line = 1 if error.position is None else data.count(b"\n", 0, error.position) + 1
        raise LedgerFileError(f"{_where(path)}, line {line}: {error}", path=path, line=line) from None
    return value if isinstance(value, dict) and "schema" in value and "entries" in value else None


def _where(path: Path | None) -> str:
    return "ledger text" if path is None else f"ledger file {path}"


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    kinds = {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }
    return kinds.get(type(value), type(value).__name__)


def _check_header(data: object, keys: frozenset[str]) -> None:
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise LedgerFileError(f"not a ledger: expected schema {SCHEMA!r}, got {data!r:.200}")
    version = data.get("version")
    if type(version) is not int or version not in _READABLE_VERSIONS:
        raise LedgerFileError(
            f"unsupported ledger version {version!r:.60}; "
            f"this code reads {', '.join(map(str, _READABLE_VERSIONS))} (an integer)"
        )
    unknown = sorted(data.keys() - keys)
    if unknown:
        raise LedgerFileError(
            f"a ledger header has the keys {sorted(keys)}; unknown {', '.join(map(repr, unknown)):.200}"
        )


def _too_deep_error(path: Path | None, number: int, torn: _Torn) -> LedgerFileError:
    return LedgerFileError(
        f"{_where(path)}, line {number} is {torn}: not a ledger entry, which nests at "
        f"most MAX_JSON_DEPTH = {MAX_JSON_DEPTH} levels (events at most MAX_EVENT_DEPTH = {MAX_EVENT_DEPTH} deep)",
        path=path,
        line=number,
    )


def _torn_error(path: Path | None, number: int, torn: _Torn) -> LedgerFileError:
    if path is None:
        return LedgerFileError(f"ledger text, line {number} is not a complete entry ({torn})", line=number)
    return LedgerFileError(
        f"ledger file {path}, line {number} is not a complete entry ({torn}): a write was interrupted "
        f"(a crash, a kill or a full disk). {_way_back(path)}",
        path=path,
        line=number,
    )


def _way_back(path: Path) -> str:
    return (
        f"To keep every complete record and set the fragment aside, run `dp-accountant ledger repair {path}` "
        "(or read the complete records with Ledger.load(path, recover=True)), then start again"
    )


# ------------------------------------------------------------------------------------------------
# Bytes on disk.
def _entry_line(entry: LedgerEntry) -> bytes:
    return json.dumps(entry.to_json(), allow_nan=False).encode("utf-8") + b"\n"


def _read_file(path: Path) -> bytes:
    try:
        with locked_file(path, exclusive=False) as fd:
            return _read_from(fd, 0)
    except FileNotFoundError as error:
        raise LedgerFileError(f"no ledger file at {path}", path=path) from error


def _read_from(fd: int, offset: int) -> bytes:
    os.lseek(fd, offset, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _read_range(fd: int, offset: int, length: int) -> bytes:
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, length)


def _append(fd: int, data: bytes, size: int) -> None:
    """Write ``data`` at the end of the file (one ``os.write``, more only after a short write); on
    any failure cut the file back to ``size`` so that no partial line stays behind."""
    written = 0
    try:
        while written < len(data):
            written += os.write(fd, data[written:] if written else data)
    except BaseException:
        try:
            os.ftruncate(fd, size)
            os.fsync(fd)
        except OSError:
            pass  # the partial line stays; the next append finds it and refuses
        raise


def _save_fragments(fragment_path: Path, fragments: list[bytes]) -> None:
    fd = os.open(fragment_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0), 0o666)
    try:
        os.write(fd, b"".join(fragment + b"\n" for fragment in fragments))
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_directory(fragment_path.parent)


def _replace_file(path: Path, content: bytes, mode: int) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".repair")
    try:
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode & 0o7777)
            view = memoryview(content)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)
