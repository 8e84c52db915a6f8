"""Strict JSON for ledgers: what Python's ``json`` module lets through, refused with its place.

``json.loads`` accepts what a ledger must not hold: a key twice in one object (the last one wins,
so ``"count": 1, "count": 1000000`` reads as a million), ``NaN`` and ``Infinity``, a float literal
that overflows to ``inf``, integers whose conversion takes time quadratic in their length (CPython
stops at 4,300 digits with a bare ``ValueError``), and nesting deep enough to exhaust the
interpreter's stack (``RecursionError``). :func:`loads` refuses each with a :class:`StrictJSONError`
(a ``ValueError``) that says what and, with ``locate=True``, at which byte; the nesting depth is
measured before parsing, in one vectorised pass (:func:`depth_exceeded`), so no input can make the
parser recurse past the limit.

:class:`BracketView` and :func:`span_from` serve the recovery of torn lines: a torn line is not one
JSON value, and where its strings begin depends on where reading starts. Every ``"`` that is not
escaped toggles between "in a string" and "outside", so reading from any position sees one of two
alternating views (the *parity* of the unescaped quotes before that position); within one view the
brackets outside strings nest, and each ``{`` has at most one matching bracket. Both views are
computed at once, in time linear in the length of the line, block by block (numpy).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "MAX_INTEGER_DIGITS",
    "MAX_FLOAT_CHARACTERS",
    "SCAN_BLOCK",
    "StrictJSONError",
    "loads",
    "depth_exceeded",
    "read_from_start",
    "span_from",
    "BracketView",
]

#: Integer literals longer than this (sign excluded) are refused: no integer in a ledger exceeds
#: 10**300 (:data:`accountants.validation.MAX_COUNT`), which has 301 digits.
MAX_INTEGER_DIGITS = 301
#: Float literals longer than this are refused (``repr`` of a float has at most 24 characters).
MAX_FLOAT_CHARACTERS = 400

_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPEN_BRACE, _CLOSE_BRACE, _OPEN_BRACKET, _CLOSE_BRACKET = ord("{"), ord("}"), ord("["), ord("]")


class StrictJSONError(ValueError):
    """JSON text that parses but is not strict JSON, or is nested too deep; ``position`` is the
    byte offset of the problem in the text when it was located (else None)."""

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message)
        self.position = position


class _Found(ValueError):
    """Raised by a parsing hook; carries what to look for to locate the problem."""

    def __init__(self, message: str, needle: bytes | None = None, object_number: int | None = None) -> None:
        super().__init__(message)
        self.needle = needle
        self.object_number = object_number


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        key = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise _Found(f"the key {key!r:.80} appears twice in one object")
    return value


def _integer(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_INTEGER_DIGITS:
        raise _Found(
            f"an integer of {digits:,} digits (at most {MAX_INTEGER_DIGITS}: integers in a ledger are at most 10**300)",
            needle=text[:64].encode("ascii"),
        )
    return int(text)


def _number(text: str) -> float:
    if len(text) > MAX_FLOAT_CHARACTERS:
        raise _Found(f"a number of {len(text):,} characters", needle=text[:64].encode("ascii"))
    value = float(text)
    if value in (math.inf, -math.inf):
        raise _Found(f"the number {text:.40} overflows a float", needle=text[:64].encode("ascii"))
    return value


def _constant(name: str) -> float:
    raise _Found(
        f"{name} is not valid in a ledger (non-finite floats are encoded as {{'float': ...}})",
        needle=name.encode("ascii"),
    )


_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_keys, parse_int=_integer, parse_float=_number, parse_constant=_constant
)


class _Counting:
    """Finds which object (in the order objects close) holds a duplicate key."""

    def __init__(self) -> None:
        self.objects = 0

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self.objects += 1
        try:
            return _unique_keys(pairs)
        except _Found as found:
            found.object_number = self.objects
            raise


def loads(data: bytes, max_depth: int | None, locate: bool = False, errors: str = "strict") -> Any:
    """Parse ``data`` (UTF-8 JSON text, decoded with ``errors``) strictly; ``max_depth=None`` when
    the caller has measured the depth already.

    Raises:
      UnicodeDecodeError / json.JSONDecodeError: ``data`` is not UTF-8, or not one JSON value
        (as ``json.loads``: incomplete or malformed text).
      StrictJSONError: nesting deeper than ``max_depth`` (checked before parsing), a duplicate
        key, NaN or Infinity, a float that overflows, an over-long number. With ``locate`` its
        ``position`` is the byte offset of the problem (an extra pass over ``data``).
    """
    if max_depth is not None:
        deep = depth_exceeded(data, max_depth)
        if deep is not None:
            raise StrictJSONError(f"nesting deeper than {max_depth} levels of objects and arrays", deep)
    text = data.decode("utf-8", errors)
    try:
        return _DECODER.decode(text)
    except _Found as found:
        position = _locate(data, text, found) if locate else None
        raise StrictJSONError(str(found), position) from None


def depth_exceeded(data: bytes, max_depth: int) -> int | None:
    """The byte offset of the first bracket that nests deeper than ``max_depth`` in ``data`` read
    as one JSON value (strings skipped), or None. Linear time; a count of brackets settles most
    texts without looking further."""
    if data.count(b"{") + data.count(b"[") <= max_depth:
        return None
    return read_from_start(data, max_depth)[0]


def read_from_start(data: bytes, max_depth: int) -> tuple[int | None, bool]:
    """Reading ``data`` from its start as one JSON value, with strings skipped: the byte offset of
    the first bracket nested deeper than ``max_depth`` (or None), and whether the first byte is a
    bracket closed by the last byte that is not white space and by none before it (only then can
    the text be one complete JSON object or array). One pass in blocks, stopped at the first
    bracket too deep (the second answer is then False) or once the first bracket is closed.
    """
    last = len(data.rstrip(b" \t\r\n")) - 1
    level = 0
    for positions, opening, parity, _ in _bracket_blocks(data):
        outside = parity == 0
        positions, opening = positions[outside], opening[outside]
        if not positions.size:
            continue
        if level == 0 and (positions[0] != 0 or not opening[0]):
            return None, False  # the text does not start with an opening bracket
        levels = level + np.cumsum(np.where(opening, 1, -1))
        above = np.flatnonzero(levels > max_depth)
        closed = np.flatnonzero(levels <= 0)
        if closed.size and (not above.size or closed[0] < above[0]):  # whichever comes first decides
            return None, int(positions[closed[0]]) == last
        if above.size:
            return int(positions[above[0]]), False
        level = int(levels[-1])
    return None, False


#: Bytes per block of the vectorised passes (their temporary arrays stay in the processor's cache;
#: the tests shrink it to exercise the block edges).
SCAN_BLOCK = 1 << 18
_BACKSLASH_RUN = re.compile(rb"\\*")


def span_from(data: bytes, start: int, max_depth: int) -> tuple[int, bool]:
    """For the opening bracket at ``start``, read from there (so outside a string): the position of
    its matching bracket (-1 if none), and whether it nests deeper than ``max_depth`` before that
    (then the position is -1: the reading stops there). One pass in blocks over the span only."""
    level = 0
    for positions, opening, parity, _ in _bracket_blocks(data, start):
        outside = parity == 0
        positions, opening = positions[outside], opening[outside]
        if not positions.size:
            continue
        levels = level + np.cumsum(np.where(opening, 1, -1))
        closed = np.flatnonzero(levels <= 0)
        within = levels[: closed[0]] if closed.size else levels
        if within.size and int(within.max()) > max_depth:
            return -1, True
        if closed.size:
            return int(positions[closed[0]]), False
        level = int(levels[-1])
    return -1, False


def _bracket_blocks(
    data: bytes, start: int = 0
) -> Iterator[tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.uint8], npt.NDArray[np.int64]]]:
    """Block by block from ``start``: the positions of the brackets, whether each opens, the parity
    of the unescaped quotes between ``start`` and each, and the positions of the unescaped quotes.
    A block never ends inside a run of backslashes or just after one, so whether a quote is escaped
    is decided within its block (``start`` is a bracket, never inside such a run)."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    quotes_before = 0
    while start < buffer.size:
        end = min(start + SCAN_BLOCK, buffer.size)
        if buffer[end - 1] == _BACKSLASH:  # keep the run and the byte it escapes in this block
            match = _BACKSLASH_RUN.match(data, end)
            end = min((match.end() if match else end) + 1, buffer.size)
        block = buffer[start:end]
        opening = (block == _OPEN_BRACE) | (block == _OPEN_BRACKET)
        local = np.flatnonzero(opening | (block == _CLOSE_BRACE) | (block == _CLOSE_BRACKET))
        quotes = _unescaped_quotes(block, np.flatnonzero(block == _QUOTE))
        parity = ((np.searchsorted(quotes, local) + quotes_before) & 1).astype(np.uint8)
        quotes_before = (quotes_before + quotes.size) & 1
        yield start + local, opening[local], parity, start + quotes
        start = end


class BracketView:
    """The brackets of ``data`` outside strings, in both views (parity 0: read from a position
    with an even number of unescaped quotes before it, as from the start; parity 1: odd)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        blocks = list(_bracket_blocks(data))
        self._positions = np.concatenate([block[0] for block in blocks] or [np.zeros(0, np.int64)])
        self._opening = np.concatenate([block[1] for block in blocks] or [np.zeros(0, bool)])
        self._parity = np.concatenate([block[2] for block in blocks] or [np.zeros(0, np.uint8)])
        self._quotes = np.concatenate([block[3] for block in blocks] or [np.zeros(0, np.int64)])
        self._views: dict[int, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]] = {}

    def parities(self, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The view in which each of ``positions`` is outside a string (for non-quote bytes)."""
        return np.searchsorted(self._quotes, positions) & 1

    def brackets(self, parity: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Positions of the brackets outside strings in view ``parity``, and the nesting level of
        each (an opening bracket at level ℓ raises the nesting to ℓ, its match is at level ℓ too)."""
        positions, levels, _ = self._view(parity)
        return positions, levels

    def _view(self, parity: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        if parity not in self._views:
            chosen = self._parity == parity
            positions, opening = self._positions[chosen], self._opening[chosen]
            levels = np.cumsum(np.where(opening, 1, -1))
            levels += ~opening  # a closing bracket is at the level of the bracket it closes
            self._views[parity] = positions, levels, opening
        return self._views[parity]

    def spans(
        self, starts: npt.NDArray[np.int64], max_depth: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """For each opening bracket at ``starts`` (outside a string in its own view): the position
        of its matching bracket (-1 if none), and whether what it encloses nests deeper than
        ``max_depth``."""
        ends = np.full(starts.shape, -1, dtype=np.int64)
        deep = np.zeros(starts.shape, dtype=bool)
        parities = self.parities(starts)
        for parity in (0, 1):
            chosen = np.flatnonzero(parities == parity)
            if not chosen.size:
                continue
            positions, levels, opening = self._view(parity)
            key_scale = len(self.data) + 1
            level_index = levels - int(levels.min(initial=0))  # from 0 up
            # Matching: the first closing bracket after an opening one at the same level.
            closing_keys = level_index[~opening] * key_scale + positions[~opening]
            order = np.argsort(closing_keys, kind="stable")
            closing_keys = closing_keys[order]
            at = np.searchsorted(positions, starts[chosen])
            start_levels = level_index[at]
            queries = start_levels * key_scale + starts[chosen]
            found = np.minimum(np.searchsorted(closing_keys, queries), closing_keys.size - 1)
            if closing_keys.size:
                match_keys = closing_keys[found]
                same_level = (match_keys >= queries) & (match_keys // key_scale == start_levels)
                ends[chosen] = np.where(same_level, match_keys % key_scale, -1)
            # Too deep: an opening bracket at level ℓ marks the one enclosing it at level ℓ - max_depth
            # (the last opening bracket at that level before it), which then holds max_depth + 1 levels.
            open_positions, open_levels = positions[opening], level_index[opening]
            sorted_open = np.sort(open_levels * key_scale + open_positions)
            targets = (open_levels - max_depth) * key_scale + open_positions
            before = np.searchsorted(sorted_open, targets) - 1
            candidates = sorted_open[np.maximum(before, 0)]
            marked = (before >= 0) & (candidates // key_scale == open_levels - max_depth)
            deep[chosen] = np.isin(starts[chosen], candidates[marked] % key_scale)
        return ends, deep


def _unescaped_quotes(buffer: npt.NDArray[np.uint8], quotes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The ``quotes`` (positions of ``"``) not preceded by an odd run of backslashes."""
    after_backslash = quotes[(quotes > 0) & (buffer[np.maximum(quotes - 1, 0)] == _BACKSLASH)]
    if not after_backslash.size:
        return quotes
    backslashes = np.flatnonzero(buffer == _BACKSLASH)
    run_starts = np.ones(backslashes.size, dtype=bool)
    run_starts[1:] = np.diff(backslashes) != 1
    run_start_index = np.maximum.accumulate(np.where(run_starts, np.arange(backslashes.size), 0))
    last = np.searchsorted(backslashes, after_backslash - 1)
    run_lengths = last - run_start_index[last] + 1
    escaped = after_backslash[(run_lengths & 1) == 1]
    return np.setdiff1d(quotes, escaped, assume_unique=True)


def _locate(data: bytes, text: str, found: _Found) -> int | None:
    """The byte offset of what a hook refused: for a duplicate key, the closing brace of its
    object (found by parsing again, counting objects as they close: in the order of their closing
    braces); else the needle's first occurrence outside strings."""
    view = BracketView(data)
    positions, _ = view.brackets(0)
    if found.needle is None:
        counting = _Counting()
        try:
            json.JSONDecoder(object_pairs_hook=counting, parse_int=_integer, parse_float=_number).decode(text)
        except _Found as again:
            found = again
        if found.object_number is None:
            return None
        closing = positions[np.frombuffer(data, dtype=np.uint8)[positions] == _CLOSE_BRACE]
        return int(closing[found.object_number - 1]) if found.object_number <= closing.size else None
    start = data.find(found.needle)
    while start >= 0 and view.parities(np.array([start]))[0] != 0:
        start = data.find(found.needle, start + 1)
    return start if start >= 0 else None
