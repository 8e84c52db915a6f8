"""Hypothesis strategies of neighbouring data sets, for property-based privacy tests.

:func:`neighbouring_datasets` draws pairs (D, D′) of numpy arrays (rows are records) that are
neighbours under a stated relation (Dwork & Roth 2014, Definition 2.4 and Section 2.3):

* ``"replace-one"``: D′ is D with one record replaced (bounded DP);
* ``"add-remove-one"``: D′ is D with one record removed, or with one record added (unbounded DP);
* ``"user-level"``: D′ is D with up to ``k`` records replaced, the records of one user.

Every value lies in ``bounds`` (the domain the mechanism's privacy claim assumes), and the pairs
shrink toward simple ones: few rows, values at 0 (or the bound nearest it), the changed record
first, one record changed, removal before addition. Pass the strategy to ``@given`` or to
:func:`audits.testing.assert_private` as ``neighbours`` (its search mode)::

    from audits.strategies import neighbouring_datasets
    assert_private(mechanism, neighbours=neighbouring_datasets(rows=(1, 8), columns=3, bounds=(0, 1)), claim=claim)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

__all__ = ["RELATIONS", "neighbouring_datasets"]

#: The neighbouring relations :func:`neighbouring_datasets` draws.
RELATIONS = ("replace-one", "add-remove-one", "user-level")


def _size(value: object, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < least:
        raise ValueError(f"{name} must be an integer >= {least}, got {value!r:.60}")
    return int(value)


def _elements(dtype: np.dtype[Any], lo: float, hi: float) -> st.SearchStrategy[Any]:
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if math.ceil(lo) > math.floor(hi) or math.ceil(lo) < info.min or math.floor(hi) > info.max:
            raise ValueError(f"bounds must hold an integer representable as {dtype}, got ({lo}, {hi})")
        return st.integers(math.ceil(lo), math.floor(hi))
    if dtype.itemsize == 2:
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False, width=16)
    if dtype.itemsize == 4:
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False, width=32)
    if dtype.itemsize == 8:
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    raise ValueError(f"dtype must be a float16, float32 or float64 among the floats, got {dtype}")


def neighbouring_datasets(
    *,
    rows: int | tuple[int, int] = (1, 10),
    columns: int | tuple[int, ...] = 1,
    dtype: Any = np.float64,
    bounds: tuple[float, float] = (0.0, 1.0),
    relation: str = "replace-one",
    k: int = 1,
) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    """Pairs (D, D′) of neighbouring data sets: arrays of shape (rows, *columns) of ``dtype`` in ``bounds``.

    Args:
      rows: the number of records of D (an int, or (least, most)); under "add-remove-one" D′ has one
        more or one fewer (never fewer than 0 rows).
      columns: the shape of one record (an int for a vector, a tuple, or () for scalars).
      dtype: a float (float16/32/64), integer or boolean numpy dtype.
      bounds: (low, high) of every value, finite (integers: the integers in it; ignored for booleans).
      relation: one of :data:`RELATIONS`.
      k: the records of one user under "user-level" (1 to k are replaced; at least 1).

    Returns:
      A strategy of (D, D′) tuples; D and D′ never share memory.

    Raises:
      ValueError: a bad argument, named.
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {', '.join(map(repr, RELATIONS))}, got {relation!r:.60}")
    least, most = (rows, rows) if isinstance(rows, numbers.Integral) and not isinstance(rows, bool) else _pair(rows)
    least, most = _size(least, "rows (least)", 0), _size(most, "rows (most)", 0)
    if most < least:
        raise ValueError(f"rows must be (least, most) with least <= most, got {rows!r}")
    shape = (columns,) if isinstance(columns, numbers.Integral) and not isinstance(columns, bool) else columns
    if not isinstance(shape, tuple):
        raise ValueError(f"columns must be an int or a tuple of ints (the shape of a record), got {columns!r:.60}")
    shape = tuple(_size(c, "columns", 1) for c in shape)
    try:
        kind = np.dtype(dtype)
    except TypeError:
        raise ValueError(f"dtype must be a numpy float, integer or boolean dtype, got {dtype!r:.60}") from None
    if kind.kind not in "fiub":
        raise ValueError(f"dtype must be a numpy float, integer or boolean dtype, got {kind}")
    lo, hi = _pair(bounds, "bounds")
    if not all(isinstance(b, numbers.Real) and not isinstance(b, bool) and math.isfinite(b) for b in (lo, hi)):
        raise ValueError(f"bounds must be two finite numbers (low, high), got {bounds!r:.60}")
    if lo >= hi and kind.kind != "b":
        raise ValueError(
            f"bounds must be (low, high) with low < high (a replaced record must differ), got {bounds!r:.60}"
        )
    k = _size(k, "k", 1)
    least_rows = max(least, k if relation == "user-level" else 1 if relation == "replace-one" else 0)
    if least_rows > most:
        raise ValueError(f"rows must allow at least {least_rows} record(s) for relation {relation!r}, got {rows!r}")
    elements = _elements(kind, float(lo), float(hi))
    record = st.lists(elements, min_size=math.prod(shape), max_size=math.prod(shape)).map(
        lambda values: np.asarray(values, dtype=kind).reshape(shape)
    )

    @st.composite
    def pairs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
        n = draw(st.integers(least_rows, most))
        records = [draw(record) for _ in range(n)]
        D = np.asarray(records, dtype=kind).reshape((n, *shape))
        if relation == "add-remove-one":
            if n > 0 and not draw(st.booleans()):  # shrinks toward removal: D′ is D without one record
                index = draw(st.integers(0, n - 1))
                return D, np.delete(D, index, axis=0)
            index = draw(st.integers(0, n))
            return D, np.insert(D, index, draw(record), axis=0)
        changed = draw(st.integers(1, k)) if relation == "user-level" else 1
        first = draw(st.integers(0, n - changed))
        D_prime = D.copy()
        for offset in range(changed):
            D_prime[first + offset] = draw(record.filter(_differs(D[first + offset])))
        return D, D_prime

    return pairs()


def _differs(old: np.ndarray) -> Callable[[np.ndarray], bool]:
    """A record other than ``old`` (a replaced record must change)."""

    def other(new: np.ndarray) -> bool:
        return not np.array_equal(new, old)

    return other


def _pair(value: object, name: str = "rows") -> tuple[Any, Any]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"{name} must be a pair (low, high), got {value!r:.60}")
    return value[0], value[1]
