"""Releases of any form as finite real matrices, the only thing the audit's distinguishers read.

A mechanism may release integers, booleans, floats with sentinel values (−1000 or −1 for "abort"),
fixed-length tuples of mixed type (numbers, booleans, strings, None), NaN or None as a category,
numpy masked arrays, or sequences whose length varies from run to run. :func:`encode_releases`
turns a batch of them into a float64 array of finite numbers, or refuses it with a message that
names the mechanism and what to declare:

* numbers and booleans are kept as they are (booleans as 0 and 1), in the release's own shape;
* a string is a category: it is replaced by a fixed code (48 bits of its BLAKE2b digest), the same
  in every process and run, so the distinguishers see equal strings as equal values;
* NaN, None, a masked entry and ±∞ are refused unless :class:`ReleaseFormat` declares
  ``missing="category"``; then the release is flattened, each such entry is replaced by 0, and one
  code column per coordinate follows the values (:data:`MISSING_CODES`: 0 a finite number, 1 NaN,
  None or masked, 2 +∞, 3 −∞), so a NaN never reaches a privacy computation as a number;
* with ``length`` and ``pad`` declared, each release is a sequence of at most ``length`` entries,
  padded with the declared abort value ``pad`` (a longer one is refused, never cut).

The encoded releases are what every score sees, a user's ``score`` included.
"""

from __future__ import annotations

import hashlib
import math
import numbers
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

__all__ = ["MISSING_CODES", "ReleaseFormat", "category_code", "describe_format", "encode_releases"]

#: The code column's values under ``missing="category"``.
MISSING_CODES = {"finite": 0, "missing": 1, "+inf": 2, "-inf": 3}
Missing = Literal["refuse", "category"]


@dataclass(frozen=True)
class ReleaseFormat:
    """What a mechanism's releases may hold beyond real numbers (module docstring).

    Attributes:
      missing: "refuse" (default): a NaN, None, masked entry or ±∞ stops the audit with an error;
        "category": each is a category of its own, encoded in a code column per coordinate.
      length: releases are sequences of at most this many entries (None: every release has one
        shape); requires ``pad``.
      pad: the abort value shorter releases are padded with (a finite number), with ``length``.

    Raises:
      ValueError: an unknown ``missing``, a ``length`` that is not an integer >= 1, a ``pad`` that
        is not a finite number, or one of ``length`` and ``pad`` without the other.
    """

    missing: Missing = "refuse"
    length: int | None = None
    pad: float | None = None

    def __post_init__(self) -> None:
        if self.missing not in ("refuse", "category"):
            raise ValueError(f"ReleaseFormat.missing must be 'refuse' or 'category', got {self.missing!r}")
        if self.length is not None and (
            isinstance(self.length, bool) or not isinstance(self.length, numbers.Integral) or self.length < 1
        ):
            raise ValueError(f"ReleaseFormat.length must be an integer >= 1 or None, got {self.length!r}")
        if self.pad is not None:
            if isinstance(self.pad, bool) or not isinstance(self.pad, numbers.Real) or not math.isfinite(self.pad):
                raise ValueError(f"ReleaseFormat.pad must be a finite number (the abort value), got {self.pad!r}")
            object.__setattr__(self, "pad", float(self.pad))
        if (self.length is None) != (self.pad is None):
            raise ValueError(
                "ReleaseFormat: variable-length releases need both length (the longest release) and pad "
                f"(the abort value shorter ones are padded with), got length={self.length!r}, pad={self.pad!r}"
            )


def category_code(value: str | bytes) -> float:
    """The fixed code of a string category: its first 48 bits of BLAKE2b, exact in float64."""
    raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    return float(int.from_bytes(hashlib.blake2b(raw, digest_size=6).digest(), "big"))


def _element(value: Any, name: str) -> float:
    if value is None or value is np.ma.masked:
        return math.nan
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, (str, bytes)):
        return category_code(value)
    raise ValueError(
        f"mechanism {name} released a {type(value).__name__} ({value!r:.40}): a release may hold numbers, "
        "booleans, strings (categories) and None"
    )


def _as_numbers(values: np.ndarray, name: str) -> np.ndarray:
    """An array of any dtype as float64 (NaN for None), or an error naming what cannot be read."""
    if values.dtype.kind in "biuf":
        return values.astype(np.float64, copy=False)
    if values.dtype.kind in "OUS":
        return np.array([_element(v, name) for v in values.ravel()], dtype=np.float64).reshape(values.shape)
    raise ValueError(f"mechanism {name} must return real numbers, booleans, strings or None, got dtype {values.dtype}")


def _padded(releases: Any, n: int, fmt: ReleaseFormat, name: str) -> np.ndarray:
    rows = list(releases)
    if len(rows) != n:
        raise ValueError(f"mechanism {name} must return n = {n} releases, got {len(rows)}")
    length, out = int(fmt.length or 0), np.empty((n, int(fmt.length or 0)), dtype=object)
    out[:] = fmt.pad
    for i, row in enumerate(rows):
        entries = np.ma.getdata(row).ravel() if isinstance(row, np.ndarray) else np.asarray(row, dtype=object).ravel()
        mask = np.ma.getmaskarray(row).ravel() if isinstance(row, np.ma.MaskedArray) else None
        if len(entries) > length:
            raise ValueError(
                f"mechanism {name} released a sequence of {len(entries)} entries, longer than the declared "
                f"ReleaseFormat(length={length}): raise length (releases are padded, never cut)"
            )
        out[i, : len(entries)] = [None if mask is not None and mask[k] else v for k, v in enumerate(entries)]
    return out


def _stacked(releases: Any, n: int, name: str) -> tuple[np.ndarray, np.ndarray | None]:
    """The batch as one array and its mask (None: no masked array in it)."""
    items = releases if isinstance(releases, (list, tuple)) else None
    masked = isinstance(releases, np.ma.MaskedArray) or (
        items is not None and any(isinstance(item, np.ma.MaskedArray) for item in items)
    )
    try:
        if masked:
            stacked = np.ma.asarray(releases) if items is None else np.ma.stack([np.ma.asarray(i) for i in items])
            return np.ma.getdata(stacked), np.ma.getmaskarray(stacked)
        values = np.asarray(releases)
        if values.dtype.kind in "US" and not isinstance(releases, np.ndarray):  # numpy turned numbers into text
            values = np.asarray(releases, dtype=object)
        return values, None
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"mechanism {name} must return an array of releases of one shape ({error}); for releases of varying "
            "length declare release=ReleaseFormat(length=..., pad=...)"
        ) from error


def encode_releases(releases: Any, n: int, fmt: ReleaseFormat, name: str) -> np.ndarray:
    """The batch ``releases`` of ``n`` trials as finite float64 (n, ...) (module docstring).

    Args:
      releases: an array with a leading axis of n, or a sequence of n releases.
      fmt: what the releases may hold. name: the mechanism, for messages.

    Raises:
      ValueError: what was released cannot be read as ``n`` releases of ``fmt`` (the message says
        what was found and what to declare).
    """
    mask: np.ndarray | None = None
    if fmt.length is not None:
        values = _as_numbers(_padded(releases, n, fmt, name), name)
    else:
        raw, mask = _stacked(releases, n, name)
        if mask is not None and fmt.missing != "category":
            raise ValueError(
                f"mechanism {name} returned a numpy masked array: its mask would be lost as numbers; declare "
                "release=ReleaseFormat(missing='category') to count masked entries as a category, or return "
                "a plain array"
            )
        if raw.ndim == 0 or raw.shape[0] != n:
            raise ValueError(
                f"mechanism {name} must return n = {n} releases (an array with a leading axis of {n}), "
                f"got shape {raw.shape}"
            )
        values = _as_numbers(raw, name)
        if mask is not None:
            values = np.where(mask, np.nan, values)
    if values.ndim == 1:
        values = values.reshape(n, 1)
    if values[0].size == 0:
        raise ValueError(
            f"mechanism {name} returned empty releases (shape {values.shape}): each release must hold at least "
            "one value"
        )
    finite = np.isfinite(values)
    if fmt.missing != "category":
        if finite.all():
            return values
        bad = int(np.count_nonzero(~finite.reshape(n, -1).all(axis=1)))
        raise ValueError(
            f"mechanism {name} returned NaN or infinite values in {bad} of {n} releases: a privacy audit cannot "
            "score them as numbers. If NaN, None or ±inf is an output of the mechanism (an abort), declare "
            "release=ReleaseFormat(missing='category'); otherwise fix the mechanism"
        )
    # declared: the code columns are always there, so every batch has the same width
    flat_values = values.reshape(n, -1)
    codes = np.select(
        [np.isnan(flat_values), flat_values == np.inf, flat_values == -np.inf],
        [MISSING_CODES["missing"], MISSING_CODES["+inf"], MISSING_CODES["-inf"]],
        MISSING_CODES["finite"],
    ).astype(np.float64)
    return np.concatenate([np.where(np.isfinite(flat_values), flat_values, 0.0), codes], axis=1)


def describe_format(fmt: ReleaseFormat) -> str:
    """The declared format in words, for the report."""
    parts = ["real arrays of one shape" if fmt.length is None else f"sequences of at most {fmt.length} entries"]
    if fmt.pad is not None:
        parts.append(f"padded with {fmt.pad:g} (the declared abort value)")
    if fmt.missing == "category":
        parts.append("NaN, None, masked entries and ±inf as categories (a code column per coordinate)")
    return ", ".join(parts)
