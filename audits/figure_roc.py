"""An attack's empirical ROC for drawing, in memory and points bounded independently of the trials.

The empirical ROC of "in iff score ≥ t" (:func:`attacks.metrics.roc_curve`) has a vertex at every
distinct pooled score: 2 × 10^7 points at 10^7 trials per hypothesis, and five arrays of that length
to build it. A figure needs far fewer. :func:`figure_roc` keeps the vertices of the full curve at the
thresholds where the false-positive count or the true-positive count reaches one of a set of levels
(``resolution`` + 1 evenly spaced counts from 0 to n, and ``resolution`` + 1 geometrically spaced
counts from 1 to n), plus the vertex just above each of them. Every kept point is a vertex of the full
curve, with the same rates bit for bit, and between two consecutive kept vertices the full curve either
is the same segment (the vertex above a kept one is kept) or changes each count by less than the gap
between two consecutive levels: its points lie in the box the two kept vertices span. So at every
false-positive rate the drawn curve is within 1/``resolution`` of the axis span of the full one, on a
linear axis (a rate) and on a logarithmic one (log10 of a rate, the span being log10(2n) decades
when a rate of 0 is drawn at 1/(2n)); on axes under ``resolution`` pixels that is under one pixel.
The curve keeps at most 8·(``resolution`` + 1) + 1 points.

:func:`figure_roc` also returns the full curve's area (exactly :attr:`attacks.metrics.ROC.auroc`: the
Mann–Whitney count in integers, Mann & Whitney 1947) and a digest of the full curve, equal for two
attacks exactly when their full curves are (up to a BLAKE2b collision): their scores order every trial
the same way. :func:`step_tpr` evaluates the full curve's step function at given rates.
Each sorts the two score arrays once and holds nothing else of their size; :func:`curve_of` and
:func:`step_tpr_of` compute the same from the scores' histograms (:mod:`audits.histogram_scores`), bit for bit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from attacks.metrics import check_scores
from audits.stats.histogram import ScoreHistogram
from audits.stats.sides import ScoreArray

__all__ = [
    "DEFAULT_RESOLUTION",
    "FigureROC",
    "Ordered",
    "curve_of",
    "figure_roc",
    "step_tpr",
    "step_tpr_of",
]

#: Count levels per axis and scale: the drawn curve is within 1/1000 of each axis span of the full one.
DEFAULT_RESOLUTION = 1000
#: Scores per block of the digest and the area (bounds their temporary arrays).
BLOCK = 1 << 20


@dataclass(frozen=True, eq=False)
class FigureROC:
    """The kept vertices of an empirical ROC (see the module), its area and a digest of the full curve.

    Attributes:
      fpr, tpr: the kept vertices' rates, non-decreasing, from (0, 0) to (1, 1).
      auroc: the full curve's area, equal to :attr:`attacks.metrics.ROC.auroc` bit for bit.
      digest: equal for two curves exactly when the full curves are (BLAKE2b of the pooled order).
      n_in, n_out: the trials under D and D′.
    """

    fpr: NDArray[np.float64]
    tpr: NDArray[np.float64]
    auroc: float
    digest: bytes
    n_in: int
    n_out: int


#: One hypothesis's scores as the curve reads them: sorted, or as a histogram (the same curve, bit for bit).
Ordered = ScoreArray | ScoreHistogram


def _levels(n: int, resolution: int) -> NDArray[np.int64]:
    """Counts 1..n: ``resolution`` + 1 evenly spaced from 0 and as many geometrically spaced from 1."""
    even = np.rint(np.linspace(0, n, resolution + 1))
    geometric = np.rint(np.geomspace(1, n, resolution + 1))
    levels = np.unique(np.concatenate([even, geometric]).astype(np.int64))
    return levels[levels >= 1]


def _above(side: Ordered, thresholds: NDArray[np.float64]) -> NDArray[np.float64]:
    """The smallest score above each threshold, +∞ where there is none."""
    index = np.searchsorted(side.values, thresholds, side="right")
    out = np.full(thresholds.shape, np.inf)
    inside = index < side.values.size
    out[inside] = side.values[index[inside]]
    return out


def figure_roc(scores_in: ArrayLike, scores_out: ArrayLike, resolution: int = DEFAULT_RESOLUTION) -> FigureROC:
    """The empirical ROC's vertices kept for drawing, its area and digest (see the module).

    Args:
      scores_in: scores of the trials under D (target in); scores_out: under D′.
      resolution: count levels per axis and scale; the drawn curve is within 1/``resolution`` of each
        axis span of the full one.
    """
    return curve_of(
        ScoreArray(check_scores(scores_in, "scores_in")), ScoreArray(check_scores(scores_out, "scores_out")), resolution
    )


def _check_resolution(resolution: int) -> None:
    """Raises ValueError unless ``resolution`` is a positive int."""
    if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution < 1:
        raise ValueError(f"resolution must be a positive integer, got {resolution!r}")


def curve_of(h_in: Ordered, h_out: Ordered, resolution: int = DEFAULT_RESOLUTION) -> FigureROC:
    """:func:`figure_roc` of the scores, sorted or as histograms (the digest hashes the sorted scores' ties and
    ranks block by block)."""
    _check_resolution(resolution)
    n_in, n_out = h_in.trials, h_out.trials
    levels = np.concatenate(
        [
            h_in.order_statistics(n_in - _levels(n_in, resolution)),
            h_out.order_statistics(n_out - _levels(n_out, resolution)),
        ]
    )
    levels = np.unique(levels)
    above = np.minimum(_above(h_in, levels), _above(h_out, levels))  # the vertex just above
    kept = np.unique(np.concatenate([levels, above, [np.inf]]))[::-1]
    tp = n_in - h_in.below(kept)
    fp = n_out - h_out.below(kept)
    digest = hashlib.blake2b(np.array([n_in, n_out], dtype=np.int64).tobytes(), digest_size=16)
    # the pooled order: which in-scores tie, which out-scores tie, and where each out-score falls among the in-scores
    for lo in range(0, n_in, BLOCK):
        digest.update(np.diff(h_in.sorted_range(max(lo - 1, 0), lo + BLOCK)).astype(bool).tobytes())
    twice = 0
    for lo in range(0, n_out, BLOCK):
        block = h_out.sorted_range(lo, lo + BLOCK)
        digest.update(np.diff(h_out.sorted_range(max(lo - 1, 0), lo + BLOCK)).astype(bool).tobytes())
        left, right = h_in.below(block), h_in.at_most(block)
        digest.update(left.tobytes())
        digest.update(right.tobytes())
        twice += int(np.sum(2 * (n_in - right) + (right - left), dtype=np.int64))
    return FigureROC(
        fpr=fp / n_out,
        tpr=tp / n_in,
        auroc=float(twice) / (2.0 * n_in * n_out),
        digest=digest.digest(),
        n_in=int(n_in),
        n_out=int(n_out),
    )


def step_tpr(scores_in: ArrayLike, scores_out: ArrayLike, fpr: ArrayLike) -> NDArray[np.float64]:
    """The TPR of the full empirical ROC's last vertex whose FPR (as a rate, fp/n_out) is ≤ each ``fpr``:
    ``roc.tpr[np.searchsorted(roc.fpr, fpr, side="right") - 1]`` of ``roc = attacks.metrics.roc_curve(...)``,
    equal bit for bit, without the curve. With k the largest count with k/n_out ≤ f, it is
    #{in > o}/n_in, o the (k + 1)-th largest out-score (1 when k = n_out)."""
    return step_tpr_of(
        ScoreArray(check_scores(scores_in, "scores_in")), ScoreArray(check_scores(scores_out, "scores_out")), fpr
    )


def step_tpr_of(h_in: Ordered, h_out: Ordered, fpr: ArrayLike) -> NDArray[np.float64]:
    """:func:`step_tpr` of the scores, sorted or as histograms."""
    n_in, n_out = h_in.trials, h_out.trials
    target = np.asarray(fpr, dtype=float)
    if np.any(~np.isfinite(target) | (target < 0)):
        raise ValueError(f"fpr must be non-negative rates, got {fpr!r}")
    count = np.minimum(np.floor(target * n_out), n_out).astype(np.int64)
    count = np.where((count < n_out) & ((count + 1) / n_out <= target), count + 1, count)
    count = np.where(count / n_out > target, count - 1, count)
    tp = np.full(target.shape, n_in, dtype=np.int64)
    below = count < n_out
    tp[below] = n_in - h_in.at_most(h_out.order_statistics(n_out - 1 - count[below]))
    return tp / n_in
