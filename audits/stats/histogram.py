"""An attack's scores on one hypothesis as a histogram: their distinct values and how many trials took each.

Every statistic the audit computes from the scores of an attack is a function of the multiset of scores
(the empirical distribution, whose order statistics are sufficient for i.i.d. trials: Lehmann & Romano
2005, Example 2.4.1): each test's error counts, the order statistics and quantiles that fix a grid of
thresholds, the ROC and its area, the moments. Scores rounded to a grid fixed before the audited trials
(:func:`audits.distinguishers.quantize`, whose grid the calibration's validation half fixes) take few
distinct values, so their :class:`ScoreHistogram` holds 16 bytes a distinct value, whatever the number
of trials; :class:`HistogramBuilder` gathers one from chunks of scores in memory bounded the same way.

The moments are exact: :func:`exact_sum` is the sum of the scores correctly rounded (Shewchuk 1997, as
``math.fsum``), whether it is given the scores or their histogram, so that a mean and a variance read off
a histogram equal, bit for bit, those of the scores (:func:`score_moments`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from attacks.metrics import check_scores

__all__ = ["BLOCK", "HistogramBuilder", "ScoreHistogram", "exact_sum", "score_moments"]

#: Scores per block when scores are summed (bounds the copies).
BLOCK = 1 << 20
#: Bits per part of a count in :func:`exact_sum`: a part times a half of a double (26 bits, Dekker 1971) is exact.
_COUNT_BITS = 18
#: Magnitudes within which Dekker's split of a double is exact and its products neither overflow nor underflow.
_SAFE = (2.0**-900, 2.0**900)


@dataclass(frozen=True, eq=False)
class ScoreHistogram:
    """The scores of some trials as their distinct values, increasing, and each value's count (> 0).

    Build one with :meth:`of` (from scores) or :meth:`merged`; :attr:`trials` is the number of scores.
    """

    values: NDArray[np.float64]
    counts: NDArray[np.int64]

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=np.float64)
        counts = np.asarray(self.counts, dtype=np.int64)
        if values.ndim != 1 or values.shape != counts.shape:
            raise ValueError(f"values and counts must be 1-D of one length, got {values.shape} and {counts.shape}")
        if not np.isfinite(values).all() or np.any(np.diff(values) <= 0) or np.any(counts <= 0):
            raise ValueError("values must be finite and strictly increasing, and counts positive")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "counts", counts)

    @classmethod
    def of(cls, scores: ArrayLike, name: str = "scores") -> ScoreHistogram:
        """The histogram of ``scores`` (finite, at least one); −0 is counted as 0 (they compare equal)."""
        values, counts = np.unique(check_scores(scores, name), return_counts=True)
        return cls(values + 0.0, counts)

    @classmethod
    def merged(cls, parts: Sequence[ScoreHistogram]) -> ScoreHistogram:
        """The histogram of the scores of every part together."""
        if not parts:
            raise ValueError("parts must hold at least one histogram")
        values, inverse = np.unique(np.concatenate([p.values for p in parts]), return_inverse=True)
        counts = np.zeros(values.size, dtype=np.int64)
        np.add.at(counts, inverse, np.concatenate([p.counts for p in parts]))
        return cls(values, counts)

    @property
    def trials(self) -> int:
        """The number of scores."""
        return int(self.counts.sum())

    def below(self, thresholds: ArrayLike) -> NDArray[np.int64]:
        """#{scores < t} at each threshold t."""
        cumulative = np.concatenate([[0], np.cumsum(self.counts)])
        return cumulative[np.searchsorted(self.values, np.asarray(thresholds, dtype=np.float64), side="left")]

    def at_most(self, thresholds: ArrayLike) -> NDArray[np.int64]:
        """#{scores ≤ t} at each threshold t."""
        cumulative = np.concatenate([[0], np.cumsum(self.counts)])
        return cumulative[np.searchsorted(self.values, np.asarray(thresholds, dtype=np.float64), side="right")]

    def order_statistics(self, ranks: ArrayLike) -> NDArray[np.float64]:
        """The scores at these 0-based ``ranks`` of the sorted scores (``np.sort(scores)[ranks]``)."""
        index = np.asarray(ranks, dtype=np.int64)
        if np.any((index < 0) | (index >= self.trials)):
            raise IndexError(f"ranks must lie in [0, {self.trials}), got {ranks!r:.80}")
        return self.values[np.searchsorted(np.cumsum(self.counts), index, side="right")]

    def quantiles(self, levels: ArrayLike) -> NDArray[np.float64]:
        """``np.quantile(scores, levels, method="inverted_cdf")``: the order statistic of rank ⌈n·q − 1⌉,
        within [0, n − 1], computed as numpy computes it (Hyndman & Fan 1996, definition 1)."""
        n = self.trials
        virtual = n * np.asarray(levels, dtype=np.float64) - 1
        previous = np.floor(virtual)
        rank = np.where(virtual - previous > 0, previous + 1, previous)
        return self.order_statistics(np.clip(rank, 0, n - 1).astype(np.int64))

    def sorted_range(self, lo: int, hi: int) -> NDArray[np.float64]:
        """``np.sort(scores)[lo:hi]``, expanded from the histogram (memory of the range only)."""
        lo, hi = max(lo, 0), min(hi, self.trials)
        if hi <= lo:
            return np.zeros(0)
        ends = np.cumsum(self.counts)
        first, last = (int(i) for i in np.searchsorted(ends, [lo, hi - 1], side="right"))
        counts = self.counts[first : last + 1].copy()
        counts[0] = min(int(ends[first]), hi) - lo
        if last > first:
            counts[-1] = hi - int(ends[last - 1])
        return np.repeat(self.values[first : last + 1], counts)


class HistogramBuilder:
    """Gathers the histogram of scores that arrive in chunks: the chunks are kept until they hold as many
    scores as the histogram has values (at least ``batch``), then folded into it, so that its memory is
    that of the histogram and a batch, and each score is sorted about once."""

    def __init__(self, batch: int = 1 << 18) -> None:
        self.batch = batch
        self.histogram: ScoreHistogram | None = None
        self.pending: list[NDArray[np.float64]] = []
        self.held = 0

    def add(self, scores: NDArray[np.float64]) -> None:
        """Count ``scores`` (a copy is kept until the next fold)."""
        if scores.size == 0:
            return
        self.pending.append(np.array(scores, dtype=np.float64))
        self.held += scores.size
        if self.held >= max(self.batch, 0 if self.histogram is None else self.histogram.values.size):
            self.fold()

    def fold(self) -> None:
        """Fold the pending chunks into the histogram."""
        if not self.pending:
            return
        chunk = ScoreHistogram.of(np.concatenate(self.pending))
        self.histogram = chunk if self.histogram is None else ScoreHistogram.merged([self.histogram, chunk])
        self.pending, self.held = [], 0

    def result(self) -> ScoreHistogram:
        """The histogram of every score added.

        Raises:
          ValueError: no score was added.
        """
        self.fold()
        if self.histogram is None:
            raise ValueError("the histogram holds no score")
        return self.histogram


def _split_terms(values: NDArray[np.float64], counts: NDArray[np.int64]) -> NDArray[np.float64]:
    """Doubles whose exact sum is Σ counts·values: each value split in two halves of 26 bits (Dekker 1971),
    each count in parts of :data:`_COUNT_BITS` bits, every product of a half and a part exact."""
    factor = 2.0**27 + 1.0
    scaled = values * factor
    high = scaled - (scaled - values)
    low = values - high
    terms = []
    remaining = counts.astype(np.int64)
    shift = 1.0
    while np.any(remaining):
        part = (remaining & ((1 << _COUNT_BITS) - 1)).astype(np.float64) * shift
        terms += [high * part, low * part]
        remaining = remaining >> _COUNT_BITS
        shift *= 2.0**_COUNT_BITS
    return np.concatenate(terms) if terms else np.zeros(0)


def exact_sum(values: ArrayLike, counts: ArrayLike | None = None) -> float:
    """Σ counts·values (Σ values without ``counts``), exact, then rounded to the nearest double.

    Raises:
      OverflowError: the sum exceeds the largest double (as ``math.fsum``).
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    if counts is None:
        blocks = (x[lo : lo + BLOCK].tolist() for lo in range(0, x.size, BLOCK))
        return math.fsum(itertools.chain.from_iterable(blocks))
    c = np.asarray(counts, dtype=np.int64).ravel()
    magnitude = np.abs(x[x != 0])
    if magnitude.size and (magnitude.min() < _SAFE[0] or magnitude.max() > _SAFE[1]):
        total = sum((Fraction(float(v)) * int(k) for v, k in zip(x.tolist(), c.tolist(), strict=True)), Fraction(0))
        return float(total)
    return math.fsum(_split_terms(x, c).tolist())


def score_moments(scores: ArrayLike | ScoreHistogram) -> tuple[float, float]:
    """(mean, variance) of the scores, or of the scores a histogram counts: m = (Σ s, exact, rounded)/n and
    (Σ (s − m)², exact, rounded)/n, each (s − m)² rounded as numpy rounds it. Both are functions of the
    multiset of scores, equal bit for bit for the scores and for their histogram."""
    if isinstance(scores, ScoreHistogram):
        n = scores.trials
        mean = exact_sum(scores.values, scores.counts) / n
        return mean, exact_sum((scores.values - mean) ** 2, scores.counts) / n
    x = check_scores(scores, "scores")
    mean = exact_sum(x) / x.size
    return mean, exact_sum((x - mean) ** 2) / x.size
